//! `docs/deploy-hooks.md`: the deploy hook over HTTP, firing into a real
//! HTTPS receiver on loopback, and its URL never shown to anyone but project admins.

use std::sync::Arc;
use std::time::Duration;

use blogread_core::hook::AddressPolicy;
use blogread_core::testing::receiver::{
    Answer, Receiver, TestPki, loopback_resolver, test_notifier, test_pki,
};
use blogread_tests::{TestApp, captured_logs, spawn_app, spawn_app_with};
use reqwest::Method;
use serde_json::{Value, json};

const SECRET_PATH: &str = "/build_hooks/e2e-s3cr3t-7f3a9c";

/// A server whose hooks fire into a receiver on loopback (test CA trusted, the receiver's
/// host name resolved to 127.0.0.1), and the receiver.
async fn app_with_receiver(pki: &TestPki, answer: Answer) -> (TestApp, Receiver) {
    let receiver = Receiver::start(pki, answer).await;
    let app = spawn_app_with(|service| {
        service
            .with_notifier(Arc::new(test_notifier(
                pki,
                loopback_resolver(),
                Duration::from_secs(10),
            )))
            .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback)
    })
    .await;
    (app, receiver)
}

#[tokio::test]
async fn no_hook_reads_null_and_test_is_404() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let r = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json, json!({"deploy_hook_url": null, "has_hook": false}));
    let r = app
        .send(
            Method::POST,
            &p.path("/deploy-hook/test"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 404, "{r:?}");
    assert!(r.detail().contains("no deploy hook"), "{}", r.detail());
    let r = app
        .send(
            Method::DELETE,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "removing none is a success");
    let r = app
        .get(&p.path("/deploy-hook/deliveries"), Some(&p.admin))
        .await;
    assert_eq!(r.json, json!({"deliveries": []}));
}

#[tokio::test]
async fn bad_urls_are_422_naming_the_rule_and_not_saved() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    for url in [
        "http://hooks.example.com/build_hooks/abc",
        "https://a.io/x",
        "https://hooks.example.com/build hooks/abc",
        " https://hooks.example.com/build_hooks/abc",
        "https://10.0.0.1/build_hooks/abcdef",
        "https://192.168.1.20/build_hooks/abcdef",
        "https://localhost/build_hooks/abcdef",
        "https://builder.internal/build_hooks/abc",
        "not a url at all, but long enough",
    ] {
        let r = app
            .send(
                Method::PUT,
                &p.path("/deploy-hook"),
                Some(&p.admin),
                Some(json!({ "deploy_hook_url": url })),
            )
            .await;
        assert_eq!(r.status, 422, "{url}: {r:?}");
        assert!(
            r.detail().starts_with("deploy_hook_url: "),
            "{}",
            r.detail()
        );
    }
    let r = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(r.json["has_hook"], false, "nothing saved");
    let r = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({})),
        )
        .await;
    assert_eq!(r.status, 400, "missing field");
}

#[tokio::test]
async fn publishing_through_the_api_fires_the_hook_into_a_real_https_receiver() {
    let pki = test_pki();
    let (app, mut receiver) = app_with_receiver(&pki, Answer::Status(200)).await;
    let p = app.new_project(None).await;
    let url = receiver.url_string(SECRET_PATH);
    let r = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({ "deploy_hook_url": url })),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json, json!({"deploy_hook_url": url, "has_hook": true}));
    let r = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(r.json["deploy_hook_url"], url.as_str());

    let id = app
        .create_blog(
            &p,
            json!({"title": "Hooked", "slug": "hooked", "content": "<p>secret body</p>"}),
        )
        .await;
    let r = app.publish(&p, &id, None).await;
    assert_eq!(r.status, 200);
    let request = receiver.next_request().await;
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, SECRET_PATH);
    assert_eq!(request.body, b"{}", "the POST carries no blog content");
    assert!(app.service.wait_for_firings(Duration::from_secs(10)).await);

    let r = app
        .get(&p.path("/deploy-hook/deliveries"), Some(&p.admin))
        .await;
    assert_eq!(r.status, 200);
    let d = &r.json["deliveries"][0];
    assert_eq!(d["trigger"], "published");
    assert_eq!(d["blog_slug"], "hooked");
    assert_eq!(d["success"], true);
    assert_eq!(d["status_code"], 200);

    let r = app
        .send(
            Method::POST,
            &p.path("/deploy-hook/test"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["success"], true);
    assert_eq!(r.json["status_code"], 200);
    assert!(r.json["message"].is_string());
    assert_eq!(receiver.next_request().await.path, SECRET_PATH);
    let r = app
        .get(&p.path("/deploy-hook/deliveries"), Some(&p.admin))
        .await;
    assert_eq!(r.json["deliveries"][0]["trigger"], "test", "newest first");
    assert_eq!(r.json["deliveries"][0]["blog_slug"], Value::Null);

    let r = app
        .send(
            Method::DELETE,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    let r = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(r.json, json!({"deploy_hook_url": null, "has_hook": false}));
}

#[tokio::test]
async fn a_failing_target_is_reported_not_raised() {
    let pki = test_pki();
    let (app, _receiver) = app_with_receiver(&pki, Answer::Status(500)).await;
    let p = app.new_project(None).await;
    let url = _receiver.url_string(SECRET_PATH);
    let r = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({ "deploy_hook_url": url })),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = app
        .send(
            Method::POST,
            &p.path("/deploy-hook/test"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["success"], false);
    assert_eq!(r.json["status_code"], 500);
    let id = app
        .create_blog(&p, json!({"title": "T", "slug": "t"}))
        .await;
    assert_eq!(
        app.publish(&p, &id, None).await.status,
        200,
        "publishing is not failed"
    );
}

#[tokio::test]
async fn the_hook_url_never_reaches_non_admins_nor_the_logs() {
    let pki = test_pki();
    let (app, mut receiver) = app_with_receiver(&pki, Answer::Status(200)).await;
    let p = app.new_project(None).await;
    let other = app.new_project(None).await;
    let url = receiver.url_string(SECRET_PATH);
    let r = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({ "deploy_hook_url": url })),
        )
        .await;
    assert_eq!(r.status, 200);
    let id = app
        .published_blog(&p, "visible", "2026-01-01T00:00:00Z", json!({}))
        .await;
    receiver.next_request().await;
    assert!(app.service.wait_for_firings(Duration::from_secs(10)).await);
    let agent = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    let agent = format!("Bearer {}", agent.json["key"].as_str().unwrap());

    let mut answers = Vec::new();
    for path in [
        "/blog/api/v1/public/blogs?include_content=true",
        "/blog/api/v1/public/blogs/visible",
        "/blog/api/v1/public/blogs/sitemap",
    ] {
        answers.push(app.get(path, Some(&p.bearer_key())).await);
    }
    for auth in [&agent, &other.admin, &p.bearer_key()] {
        answers.push(app.get(&p.path("/deploy-hook"), Some(auth)).await);
        answers.push(
            app.get(&p.path("/deploy-hook/deliveries"), Some(auth))
                .await,
        );
        answers.push(app.get(&p.path(""), Some(auth)).await);
        answers.push(app.get(&p.path(&format!("/blogs/{id}")), Some(auth)).await);
    }
    answers.push(app.get(&p.path("/deploy-hook"), None).await);
    for r in &answers {
        assert!(!r.text.contains("e2e-s3cr3t"), "leaked: {r:?}");
        for (name, value) in &r.headers {
            assert!(
                !value.to_str().unwrap_or("").contains("e2e-s3cr3t"),
                "leaked in {name}"
            );
        }
    }
    assert!(
        !captured_logs().contains("e2e-s3cr3t"),
        "the hook URL is a credential and never logged"
    );
}
