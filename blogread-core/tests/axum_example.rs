//! The axum embedding example (`examples/axum.rs`) served on loopback over a real SQLite file:
//! the core under a framework other than poem answers as the reference server does.

#[allow(dead_code)]
#[path = "../examples/axum.rs"]
mod example;

use blogread_core::Service;
use blogread_core::store::open_store;

struct Served {
    base: String,
    key: String,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
}

/// Prepares the example's project in a fresh SQLite file, stops, reopens it as a restarted
/// program would (finding the project again by name), and serves the example's routes.
async fn serve_example() -> Served {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("blog.db").display());
    let first = Service::new(open_store(&url).await.expect("open"));
    let key = example::prepare(&first).await.expect("prepare");
    first.stop().await;

    let service = Service::new(open_store(&url).await.expect("reopen"));
    let again = example::prepare(&service).await.expect("prepare again");
    assert_eq!(
        again, key,
        "the restarted program found its project by name"
    );

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, example::app(service))
            .await
            .expect("serve")
    });
    Served {
        base,
        key,
        http: reqwest::Client::new(),
        _dir: dir,
    }
}

#[tokio::test]
async fn the_axum_example_serves_lists_304s_404s_and_401s() {
    let s = serve_example().await;
    let list = s
        .http
        .get(format!("{}/blog/api/v1/public/blogs", s.base))
        .bearer_auth(&s.key)
        .send()
        .await
        .unwrap();
    assert_eq!(list.status(), 200);
    assert_eq!(list.headers()["cache-control"], "private, no-cache");
    let etag = list.headers()["etag"].to_str().unwrap().to_owned();
    let body: serde_json::Value = serde_json::from_str(&list.text().await.unwrap()).unwrap();
    assert_eq!(body["total"], 1);
    assert_eq!(body["blogs"][0]["slug"], "hello");

    let again = s
        .http
        .get(format!("{}/blog/api/v1/public/blogs", s.base))
        .bearer_auth(&s.key)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);

    let single = s
        .http
        .get(format!(
            "{}/blog/api/v1/public/blogs/hello?api_key={}",
            s.base, s.key
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(single.status(), 200);
    let sitemap = s
        .http
        .get(format!(
            "{}/blog/api/v1/public/blogs/sitemap?api_key={}",
            s.base, s.key
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(sitemap.status(), 200);

    let missing = s
        .http
        .get(format!("{}/blog/api/v1/public/blogs/no-such-post", s.base))
        .bearer_auth(&s.key)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404, "an unknown slug is 404, never 304");
    let detail: serde_json::Value = serde_json::from_str(&missing.text().await.unwrap()).unwrap();
    assert!(detail["detail"].is_string(), "{detail}");

    let anonymous = s
        .http
        .get(format!("{}/blog/api/v1/public/blogs", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert_eq!(anonymous.headers()["www-authenticate"], "Bearer");
    let detail: serde_json::Value = serde_json::from_str(&anonymous.text().await.unwrap()).unwrap();
    assert!(
        detail["detail"]
            .as_str()
            .unwrap()
            .contains("missing API key"),
        "{detail}"
    );
}
