//! What an author writes costs what it is: a body of many placeholders gets answers of a
//! page and a total, never answers that grow with the body (a publish answer of 18.5 MiB for
//! a 1 MiB body of broken placeholders, once).

use blogread_tests::spawn_app;
use reqwest::Method;
use serde_json::json;

/// A body of `n` placeholders naming `n` distinct slugs no post has (about 24 bytes each).
fn broken_body(n: usize) -> String {
    (0..n).map(|i| format!("[INTERNAL:gone-{i:06}] ")).collect()
}

/// An agent key of the project: the credential an automated author holds.
async fn agent_key(app: &blogread_tests::TestApp, p: &blogread_tests::TestProject) -> String {
    let r = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 201, "{r:?}");
    format!("Bearer {}", r.json["key"].as_str().unwrap())
}

#[tokio::test]
async fn a_publish_of_a_mib_of_broken_placeholders_answers_a_page_and_the_total() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let agent = agent_key(&app, &p).await;
    let n = 46_000;
    let body = broken_body(n);
    assert!(body.len() > 1 << 20, "{}", body.len());
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&agent),
            Some(json!({"title": "Many", "slug": "many", "content": body})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.detail());
    let id = r.json["id"].as_str().unwrap().to_owned();
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/publish")),
            Some(&agent),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.detail());
    assert_eq!(r.json["unresolved_links"].as_array().unwrap().len(), 100);
    assert_eq!(r.json["unresolved_links_total"], n);
    assert_eq!(
        r.json["unresolved_links"][0]["placeholder"],
        "[INTERNAL:gone-000000]"
    );
    // The answer carries the body once (the managed blog), and a page of entries beside it.
    assert!(r.text.len() < 2 * (1 << 20), "{} bytes", r.text.len());

    // The rest, a page at a time.
    let r = app
        .get(
            &p.path(&format!(
                "/blogs/{id}/links?state=broken&copy=published&limit=100&offset=45950"
            )),
            Some(&agent),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.detail());
    assert_eq!(r.json["total"], n);
    assert_eq!(r.json["links"].as_array().unwrap().len(), 50);
    assert_eq!(r.json["links"][0]["placeholder"], "[INTERNAL:gone-045950]");
    assert!(r.text.len() < 100_000, "{} bytes", r.text.len());
    // Both copies, the working one first.
    let r = app
        .get(
            &p.path(&format!("/blogs/{id}/links?limit=1000")),
            Some(&agent),
        )
        .await;
    assert_eq!(r.json["total"], 2 * n);
    assert_eq!(r.json["limit"], 100, "clamped");
    assert_eq!(r.json["links"][0]["copy"], "working");
    let r = app
        .get(
            &p.path(&format!("/blogs/{id}/links?copy=nope")),
            Some(&agent),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.detail().contains("copy must be working or published"));
}

#[tokio::test]
async fn backlinks_of_a_post_named_thousands_of_times_are_a_page() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let agent = agent_key(&app, &p).await;
    let target = app
        .published_blog(&p, "target", "2026-01-01T00:00:00Z", json!({}))
        .await;
    let naming = "<a href=\"[INTERNAL:target]\">t</a> ".repeat(40_000);
    for slug in ["linker-a", "linker-b"] {
        let r = app
            .send(
                Method::POST,
                &p.path("/blogs"),
                Some(&agent),
                Some(json!({"title": slug, "slug": slug, "content": naming})),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.detail());
        let id = r.json["id"].as_str().unwrap();
        let r = app
            .send(
                Method::POST,
                &p.path(&format!("/blogs/{id}/publish")),
                Some(&agent),
                None,
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.detail());
        assert_eq!(r.json["unresolved_links_total"], 0);
    }
    let r = app
        .get(
            &p.path(&format!("/blogs/{target}/backlinks?limit=3")),
            Some(&agent),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.detail());
    assert_eq!(
        (r.json["total"].as_u64(), r.json["limit"].as_u64()),
        (Some(4), Some(3))
    );
    let backlinks = r.json["backlinks"].as_array().unwrap();
    assert_eq!(backlinks.len(), 3);
    for b in backlinks {
        assert_eq!(b["placeholders"].as_array().unwrap().len(), 20);
        assert_eq!(
            (b["count"].as_u64(), b["resolved"].as_u64()),
            (Some(40_000), Some(40_000))
        );
    }
    assert!(r.text.len() < 20_000, "{} bytes", r.text.len());
    let r = app
        .get(
            &p.path(&format!("/blogs/{target}/backlinks?which=would_lose")),
            Some(&agent),
        )
        .await;
    assert_eq!(r.json["total"], 2, "the two published copies");
    assert!(
        r.json["backlinks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["copy"] == "published")
    );
    let r = app
        .get(
            &p.path(&format!("/blogs/{target}/backlinks?which=some")),
            Some(&agent),
        )
        .await;
    assert_eq!(r.status, 400, "{r:?}");
}
