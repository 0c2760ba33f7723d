//! The one error shape: every non-2xx, including what poem itself answers, is
//! `application/json` `{"detail": "..."}` (`docs/management-api.md#statuses`,
//! `docs/public-api.md#errors`).

use blogread_tests::spawn_app;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn unknown_routes_are_404_with_a_detail() {
    let app = spawn_app().await;
    for path in [
        "/nope",
        "/api/v1",
        "/blog/api/v2/public/blogs",
        "/blog/api/v1/public/blogs/a/b",
    ] {
        let r = app.get(path, None).await;
        assert_eq!(r.status, 404, "{path}");
        assert!(r.detail().contains("/openapi.json"), "{}", r.detail());
    }
}

#[tokio::test]
async fn wrong_methods_are_405_with_allow() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let r = app
        .send(Method::POST, "/blog/api/v1/public/blogs", None, None)
        .await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
    assert!(r.detail().contains("allowed: GET, HEAD"), "{}", r.detail());
    let r = app
        .send(Method::PUT, &p.path("/public-key"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 405);
    let allow = r.header("allow").unwrap();
    for m in ["GET", "POST", "DELETE"] {
        assert!(allow.contains(m), "{allow}");
    }
    let r = app.send(Method::DELETE, "/healthz", None, None).await;
    assert_eq!(r.status, 405);
    assert!(!r.detail().is_empty());
    let r = app
        .send(
            Method::HEAD,
            &p.path("/public-key/rotate"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 405, "HEAD only where GET is: {r:?}");
    assert_eq!(r.header("allow"), Some("POST"));
}

/// `HEAD` answers what `GET` would, without the body: the status, the `ETag` (so a 304 works
/// too) and a 401 for a bad key (`docs/public-api.md#methods`).
#[tokio::test]
async fn head_answers_the_status_and_headers_of_get_without_a_body() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let get = app
        .get("/blog/api/v1/public/blogs/sitemap", Some(&p.bearer_key()))
        .await;
    assert_eq!(get.status, 200);
    let etag = get.header("etag").expect("an ETag").to_owned();
    let r = app
        .send(
            Method::HEAD,
            "/blog/api/v1/public/blogs/sitemap",
            Some(&p.bearer_key()),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("etag"), Some(etag.as_str()));
    assert_eq!(r.header("cache-control"), Some("private, no-cache"));
    assert!(r.text.is_empty(), "no body: {:?}", r.text);
    let r = app
        .request(
            app.http
                .head(app.url("/blog/api/v1/public/blogs/sitemap"))
                .header("authorization", p.bearer_key())
                .header("if-none-match", &etag),
        )
        .await;
    assert_eq!(r.status, 304);
    let r = app
        .send(
            Method::HEAD,
            "/blog/api/v1/public/blogs",
            Some("Bearer pk_live_wrong"),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(r.text.is_empty());
    let r = app
        .send(
            Method::HEAD,
            "/blog/api/v1/public/blogs/no-such-post",
            Some(&p.bearer_key()),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn bodies_over_4_mib_are_413() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let big = "x".repeat(4 * 1024 * 1024 + 1);
    let r = app
        .request(
            app.http
                .post(app.url(&p.path("/blogs")))
                .header("authorization", &p.admin)
                .header("content-type", "application/json")
                .body(big),
        )
        .await;
    assert_eq!(r.status, 413);
    assert!(r.detail().contains("4 MiB"), "{}", r.detail());

    let mut chunked = format!(
        "POST {} HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        p.path("/blogs"),
        p.admin
    )
    .into_bytes();
    let chunk = vec![b'x'; 1024 * 1024];
    for _ in 0..5 {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(&chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let (status, body) = app.raw(&chunked).await;
    assert_eq!(status, 413, "chunked body without Content-Length: {body}");
    assert!(body.contains("\"detail\""), "{body}");

    let ok_size = json!({"title": "Big", "slug": "big", "content": "y".repeat(1024 * 1024)});
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(ok_size),
        )
        .await;
    assert_eq!(r.status, 201, "1 MiB is fine");
}

#[tokio::test]
async fn malformed_bodies_are_400_with_an_actionable_detail() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let url = app.url(&p.path("/blogs"));
    let r = app
        .request(
            app.http
                .post(&url)
                .header("authorization", &p.admin)
                .header("content-type", "application/json")
                .body("{not json"),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.detail().contains("JSON"), "{}", r.detail());
    let r = app
        .request(
            app.http
                .post(&url)
                .header("authorization", &p.admin)
                .header("content-type", "text/plain")
                .body("{}"),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(
        r.detail().contains("Content-Type: application/json"),
        "{}",
        r.detail()
    );
    let r = app
        .request(app.http.post(&url).header("authorization", &p.admin))
        .await;
    assert_eq!(r.status, 400, "missing body");
    assert!(!r.detail().is_empty());
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(json!({"title": "t"})),
        )
        .await;
    assert_eq!(r.status, 400, "missing field");
    assert!(r.detail().contains("slug"), "{}", r.detail());
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(json!([1, 2])),
        )
        .await;
    assert_eq!(r.status, 400, "wrong type");
}
