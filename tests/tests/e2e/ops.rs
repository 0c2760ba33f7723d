//! Health, the OpenAPI document and UI, request ids, redacted logs, graceful shutdown.

use blogread_tests::{captured_logs, spawn_app};

#[tokio::test]
async fn healthz_answers_ok_when_the_store_answers() {
    let app = spawn_app().await;
    let r = app.get("/healthz", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json, serde_json::json!({"status": "ok"}));
}

#[tokio::test]
async fn the_served_document_is_the_checked_in_one_and_docs_serve_a_ui() {
    let app = spawn_app().await;
    let r = app.get("/openapi.json", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text, blogread_server::spec());
    let checked_in = include_str!("../../../openapi/openapi.json");
    assert_eq!(
        checked_in.trim_end(),
        r.text,
        "openapi/openapi.json is current"
    );
    let r = app.get("/docs", None).await;
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
}

#[tokio::test]
async fn every_answer_has_a_request_id_and_the_log_shows_at_most_12_key_characters() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let r = app
        .get(
            &format!("/blog/api/v1/public/blogs?api_key={}&limit=3", p.key),
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    assert!(r.header("x-request-id").is_some());
    let logs = captured_logs();
    let prefix = &p.key[..12];
    assert!(
        logs.contains(&format!("api_key={prefix}")),
        "request logged"
    );
    assert!(
        !logs.contains(&p.key),
        "the key never appears whole in the logs"
    );
    assert!(!logs.contains(&p.key[..13]));
}

#[tokio::test]
async fn shutdown_stops_accepting_and_returns() {
    let app = spawn_app().await;
    let base = app.base.clone();
    assert_eq!(app.get("/healthz", None).await.status, 200);
    app.stop().await.expect("clean stop");
    let after = reqwest::get(format!("{base}/healthz")).await;
    assert!(after.is_err(), "no longer accepting");
}
