//! Health, the OpenAPI document and UI, request ids, redacted logs, graceful shutdown.

use std::sync::Arc;

use blogread_core::store::SqliteStore;
use blogread_tests::{StoreGuard, captured_logs, spawn_app, spawn_app_over};

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

/// A request the server is reading when shutdown starts is answered in full, and only then
/// does the server stop. `Expect: 100-continue` is the sync point: the server sends
/// `100 Continue` when the handler starts reading the body, so the request is in flight.
#[tokio::test]
async fn a_request_in_flight_when_shutdown_starts_is_answered() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let mut app = spawn_app().await;
    let addr = app.base.trim_start_matches("http://").to_owned();
    let body = br#"{"name": "Created during shutdown"}"#;
    let head = format!(
        "POST /api/v1/projects HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\
         Expect: 100-continue\r\nConnection: close\r\n\r\n",
        app.operator(),
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut interim = [0u8; 25];
    stream.read_exact(&mut interim).await.unwrap();
    assert_eq!(
        &interim, b"HTTP/1.1 100 Continue\r\n\r\n",
        "the handler reads"
    );

    app.begin_shutdown();
    stream.write_all(body).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 201"),
        "the in-flight request is answered: {answer}"
    );
    assert!(answer.contains("Created during shutdown"), "{answer}");
    app.stop().await.expect("then the server stops cleanly");
}

/// The demo content: most posts published and linking to each other with every placeholder
/// resolved, a renamed post listed by the redirects. (Its printed commands are run, as pasted,
/// against the real `blogread-server demo` in `blogread-server/tests/binary.rs`.)
#[tokio::test]
async fn the_demo_seeds_linked_posts_and_a_renamed_one() {
    let app = spawn_app().await;
    let demo = blogread_server::demo::seed(&app.service)
        .await
        .expect("seed");
    assert!(demo.published.len() >= 20, "about 25 posts, most published");
    let key = format!("Bearer {}", demo.public_key);
    let all = app
        .get(
            "/blog/api/v1/public/blogs?include_content=true&limit=100",
            Some(&key),
        )
        .await;
    assert_eq!(all.json["total"], demo.published.len());
    let bodies: Vec<&str> = all.json["blogs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["content"].as_str().unwrap())
        .collect();
    assert!(
        bodies.iter().all(|b| !b.contains("[INTERNAL:")),
        "placeholders resolved"
    );
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("href=\"https://www.example.com/blog/")),
        "published posts link to each other"
    );
    let (old, new) = &demo.renamed;
    let redirects = app
        .get("/blog/api/v1/public/blogs/redirects", Some(&key))
        .await;
    assert_eq!(
        redirects.json["redirects"],
        serde_json::json!([{"from": old, "to": new}])
    );
    assert!(
        bodies.iter().any(|b| b.contains(&format!(
            "href=\"https://www.example.com/blog/{new}/\">our sitemap post</a>"
        ))),
        "a link written with the old slug follows the rename"
    );
}

#[tokio::test]
async fn a_failing_database_is_a_500_with_only_a_request_id_and_healthz_is_503() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("failing.db").display());
    let store = Arc::new(SqliteStore::connect(&url).await.unwrap());
    let app = spawn_app_over(store.clone(), StoreGuard::new(dir), |s| s).await;
    let p = app.new_project(None).await;
    assert_eq!(app.get("/healthz", None).await.status, 200);

    // The database goes away under the running server.
    store.close().await;

    let r = app.get("/healthz", None).await;
    assert_eq!(r.status, 503, "{r:?}");
    assert!(r.detail().contains("database"), "{}", r.detail());

    let r = app
        .get("/blog/api/v1/public/blogs", Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 500, "{r:?}");
    let detail = r.detail().to_owned();
    let request_id = r.header("x-request-id").expect("request id").to_owned();
    assert!(detail.contains(&request_id), "{detail}");
    assert!(
        !detail.to_lowercase().contains("pool") && !detail.to_lowercase().contains("sqlx"),
        "the cause stays in the logs: {detail}"
    );
    let logs = captured_logs();
    let logged = logs
        .lines()
        .find(|l| l.contains(&request_id) && l.contains("internal error"))
        .expect("the 500 is logged with its request id");
    assert!(
        logged.to_lowercase().contains("pool") || logged.to_lowercase().contains("closed"),
        "the log carries the cause: {logged}"
    );
    // Counted in the metrics, which the operator still reads (the token check needs no store).
    let r = app.get("/metrics", Some(&app.operator())).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(
        r.text.contains("blogread_store_errors_total{kind="),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn a_clean_stop_closes_the_store_and_leaves_the_sqlite_wal_empty() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("clean.db");
    let store = SqliteStore::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    let app = spawn_app_over(Arc::new(store), StoreGuard::new(()), |s| s).await;
    let p = app.new_project(None).await;
    app.published_blog(&p, "kept", "2026-01-01T00:00:00Z", serde_json::json!({}))
        .await;
    let wal = dir.path().join("clean.db-wal");
    let wal_len = || std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    assert!(wal_len() > 0, "writes went to the WAL");
    app.stop().await.expect("clean stop");
    assert_eq!(wal_len(), 0, "the WAL was checkpointed into the database");
    let reopened = SqliteStore::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    assert_eq!(
        blogread_core::store::PublicStore::published_titles(
            &reopened,
            p.id.parse().unwrap(),
            &["kept".to_owned()]
        )
        .await
        .unwrap()
        .len(),
        1
    );
}

/// A firing still waiting for its receiver when the server stops gets its full time-out, and
/// its delivery is recorded before the store closes.
#[tokio::test]
async fn a_stop_waits_for_a_slow_firing_and_records_its_delivery() {
    use blogread_core::hook::AddressPolicy;
    use blogread_core::testing::receiver::{
        Answer, Receiver, loopback_resolver, test_notifier, test_pki,
    };
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Never).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("slow.db").display());
    let store = SqliteStore::connect(&url).await.unwrap();
    let app = spawn_app_over(Arc::new(store), StoreGuard::new(()), |service| {
        service
            .with_notifier(Arc::new(test_notifier(
                &pki,
                loopback_resolver(),
                std::time::Duration::from_secs(1),
            )))
            .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback)
    })
    .await;
    let p = app.new_project(None).await;
    let r = app
        .send(
            reqwest::Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(serde_json::json!({"deploy_hook_url": receiver.url_string("/build_hooks/slow")})),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    app.published_blog(&p, "slow", "2026-01-01T00:00:00Z", serde_json::json!({}))
        .await;
    receiver.next_request().await; // the POST is in flight, never answered
    app.stop().await.expect("clean stop");
    let reopened = SqliteStore::connect(&url).await.unwrap();
    let log = blogread_core::store::FiringStore::deliveries(&reopened, p.id.parse().unwrap())
        .await
        .unwrap();
    assert_eq!(log.len(), 1, "the delivery was recorded: {log:?}");
    assert!(!log[0].success);
    assert!(log[0].message.contains("timed out"), "{}", log[0].message);
}

/// Creates and publishes `post-{i}` (published one minute after `post-{i-1}`), through HTTP.
async fn publish_numbered(app: &blogread_tests::TestApp, p: &blogread_tests::TestProject, i: u32) {
    let at = format!("2026-01-01T{:02}:{:02}:00Z", i / 60, i % 60);
    app.published_blog(
        p,
        &format!("post-{i}"),
        &at,
        serde_json::json!({"content": format!("<p>Body of post {i}.</p>")}),
    )
    .await;
}

/// Every published blog of the project with its content, newest first, and the list's ETag.
async fn public_list(
    app: &blogread_tests::TestApp,
    p: &blogread_tests::TestProject,
) -> (serde_json::Value, String) {
    let r = app
        .get(
            "/blog/api/v1/public/blogs?include_content=true&limit=100",
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let etag = r.header("etag").expect("an ETag").to_owned();
    (r.json, etag)
}

/// Starts a server over a copy of a backup (as an operator restores one: the file put in place
/// of the database, no `-wal` beside it).
async fn restore(backup: &std::path::Path) -> blogread_tests::TestApp {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("restored.db");
    std::fs::copy(backup, &db).unwrap();
    let store = SqliteStore::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    spawn_app_over(Arc::new(store), StoreGuard::new(dir), |s| s).await
}

/// A backup taken while posts are being published is the database as of one commit: the
/// restored server serves exactly the oldest posts of the live one, with the same bodies; and a
/// backup of a quiet database serves the very same answers, ETags included.
#[tokio::test]
async fn a_backup_under_write_load_restores_into_a_server_with_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("live.db").display());
    let store = SqliteStore::connect(&url).await.unwrap();
    let app = Arc::new(spawn_app_over(Arc::new(store), StoreGuard::new(()), |s| s).await);
    let p = app.new_project(Some("https://www.example.com")).await;
    publish_numbered(&app, &p, 0).await;

    // Writers publish posts until told to stop, reporting each one published.
    const MAX_POSTS: u32 = 90;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel::<u32>();
    let next = Arc::new(std::sync::atomic::AtomicU32::new(1));
    let mut writers = Vec::new();
    for _ in 0..2 {
        let (app, p, stop, done, next) = (
            app.clone(),
            p.clone(),
            stop_rx.clone(),
            done_tx.clone(),
            next.clone(),
        );
        writers.push(tokio::spawn(async move {
            while !*stop.borrow() {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= MAX_POSTS {
                    break;
                }
                publish_numbered(&app, &p, i).await;
                let _ = done.send(i);
            }
        }));
    }
    drop(done_tx);
    // The load is under way: some posts were published before the backup starts.
    for _ in 0..3 {
        done_rx.recv().await.expect("a writer published");
    }
    let under_load = dir.path().join("under-load.db");
    let report = blogread_core::store::backup_database(&url, &under_load)
        .await
        .expect("backed up while the writers write");
    stop_tx.send(true).unwrap();
    for writer in writers {
        writer.await.unwrap();
    }
    assert!(report.blogs >= 4, "{report:?}");

    // The live server's answer, all writes done.
    let (live, live_etag) = public_list(&app, &p).await;
    let live_blogs = live["blogs"].as_array().unwrap();
    let written = live_blogs.len();
    assert_eq!(live["total"], written);

    // The copy is one moment of the database: it holds the posts whose publish committed
    // before the backup's read (two writers may commit out of order), each of them served as
    // the live server serves it.
    let restored = restore(&under_load).await;
    let (copy, _) = public_list(&restored, &p).await;
    let copy_blogs = copy["blogs"].as_array().unwrap();
    assert_eq!(copy["total"], copy_blogs.len());
    // (A draft created just before the backup's moment and published after it is in the copy
    // as a draft.)
    assert!(copy_blogs.len() as u64 <= report.blogs, "{report:?}");
    assert!(copy_blogs.len() >= 4 && copy_blogs.len() <= written);
    for blog in copy_blogs {
        let slug = blog["slug"].as_str().unwrap();
        let same = live_blogs
            .iter()
            .find(|b| b["slug"] == slug)
            .expect("the live server has every post of the copy");
        assert_eq!(blog, same, "{slug} is served the same");
        let single = format!("/blog/api/v1/public/blogs/{slug}");
        let a = app.get(&single, Some(&p.bearer_key())).await;
        let b = restored.get(&single, Some(&p.bearer_key())).await;
        assert_eq!((a.status, &a.json), (b.status, &b.json), "{slug}");
    }

    // A backup of the database at rest serves the very same answers, under new ETags: a
    // restored copy is another database to every tag issued before it.
    let at_rest = dir.path().join("at-rest.db");
    blogread_core::store::backup_database(&url, &at_rest)
        .await
        .expect("backed up");
    let restored = restore(&at_rest).await;
    let (copy, copy_etag) = public_list(&restored, &p).await;
    assert_eq!(copy, live);
    assert_ne!(copy_etag, live_etag);
    let sitemap = "/blog/api/v1/public/blogs/sitemap";
    assert_eq!(
        restored.get(sitemap, Some(&p.bearer_key())).await.json,
        app.get(sitemap, Some(&p.bearer_key())).await.json
    );
}

/// The feed from `since` (or the start) to its end: the last cursor.
async fn feed_end(
    app: &blogread_tests::TestApp,
    p: &blogread_tests::TestProject,
    since: Option<&str>,
) -> String {
    let mut since = since.map(str::to_owned);
    loop {
        let path = match &since {
            Some(c) => format!("/blog/api/v1/public/changes?since={c}"),
            None => "/blog/api/v1/public/changes".to_owned(),
        };
        let r = app.get(&path, Some(&p.bearer_key())).await;
        assert_eq!(r.status, 200, "{r:?}");
        since = Some(r.json["cursor"].as_str().expect("a cursor").to_owned());
        if r.json["has_more"] == false {
            return since.unwrap_or_default();
        }
    }
}

/// Restoring a backup, then writing as much as the live database wrote after the backup,
/// brings the content versions and change numbers back to where they were: a restored
/// database is nevertheless another database to every ETag and cursor issued before it (by
/// the live database after the backup, or by an earlier restore of the same copy). Old ETags
/// miss (never a 304 for other content) and old cursors are 400 "another database".
#[tokio::test]
async fn a_restored_backup_is_another_database_to_every_etag_and_cursor_issued_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("live.db").display());
    let store = SqliteStore::connect(&url).await.unwrap();
    let live = spawn_app_over(Arc::new(store), StoreGuard::new(()), |s| s).await;
    let p = live.new_project(Some("https://www.example.com")).await;
    for i in 0..3 {
        publish_numbered(&live, &p, i).await;
    }
    let backup = dir.path().join("backup.db");
    blogread_core::store::backup_database(&url, &backup)
        .await
        .expect("backed up");
    // After the backup, the live database takes two more writes, and gives out an ETag and a
    // cursor of that state.
    for i in 3..5 {
        publish_numbered(&live, &p, i).await;
    }
    let (_, live_etag) = public_list(&live, &p).await;
    let live_cursor = feed_end(&live, &p, None).await;
    live.stop().await.unwrap();

    // Restored, the copy takes two writes of its own: other posts, the same counts.
    let restored = restore(&backup).await;
    for i in 10..12 {
        publish_numbered(&restored, &p, i).await;
    }
    let (listed, etag) = public_list(&restored, &p).await;
    assert_eq!(listed["total"], 5, "{listed}");
    assert_ne!(
        etag, live_etag,
        "the live database's tag is another database's"
    );
    let again = restored
        .request(
            reqwest::Client::new()
                .get(restored.url("/blog/api/v1/public/blogs?include_content=true&limit=100"))
                .header("authorization", p.bearer_key())
                .header("if-none-match", &live_etag),
        )
        .await;
    assert_eq!(
        again.status, 200,
        "never a 304 for other content: {again:?}"
    );
    let refused = restored
        .get(
            &format!("/blog/api/v1/public/changes?since={live_cursor}"),
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(refused.status, 400, "{refused:?}");
    assert!(refused.detail().contains("another database"), "{refused:?}");
    let restored_cursor = feed_end(&restored, &p, None).await;
    restored.stop().await.unwrap();

    // The same copy restored once more is another database again, to what the first restore
    // gave out.
    let second = restore(&backup).await;
    for i in 20..22 {
        publish_numbered(&second, &p, i).await;
    }
    let refused = second
        .get(
            &format!("/blog/api/v1/public/changes?since={restored_cursor}"),
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(refused.status, 400, "{refused:?}");
    assert!(refused.detail().contains("another database"), "{refused:?}");
    // Its own cursors work.
    let own = feed_end(&second, &p, None).await;
    let r = second
        .get(
            &format!("/blog/api/v1/public/changes?since={own}"),
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

/// `/metrics` as the operator reads it.
async fn metrics_text(app: &blogread_tests::TestApp) -> String {
    let r = app.get("/metrics", Some(&app.operator())).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(
        r.header("content-type")
            .is_some_and(|c| c.starts_with("text/plain; version=0.0.4")),
        "{r:?}"
    );
    r.text
}

/// The value of the first sample of `metric` whose labels include every one of `labels`
/// (`name="value"`), if any.
fn sample(text: &str, metric: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' '))
        .find(|(series, _)| {
            series.split('{').next() == Some(metric) && labels.iter().all(|l| series.contains(l))
        })
        .and_then(|(_, value)| value.parse().ok())
}

#[tokio::test]
async fn metrics_need_the_operator_token() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let r = app.get("/metrics", None).await;
    assert_eq!(r.status, 401, "{r:?}");
    assert!(r.detail().contains("Authorization"), "{}", r.detail());
    let r = app.get("/metrics", Some(&p.admin)).await;
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.detail().contains("operator"), "{}", r.detail());
    let r = app.get("/metrics", Some(&p.bearer_key())).await;
    assert_eq!(r.status, 401, "{r:?}");
    let r = app
        .get("/metrics", Some("Bearer not-the-operator-token"))
        .await;
    assert_eq!(r.status, 401, "{r:?}");

    let text = metrics_text(&app).await;
    let build_info = format!(
        "blogread_build_info{{version=\"{}\",commit=\"{}\"}} 1",
        blogread_server::build_info::VERSION,
        blogread_server::build_info::COMMIT
    );
    assert!(text.contains(&build_info), "{build_info} in:\n{text}");
    assert!(
        !blogread_server::spec().contains("/metrics"),
        "/metrics stays out of the API document"
    );
}

#[tokio::test]
async fn a_request_is_counted_under_its_route_template_never_its_path() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let slug = "metrics-only-slug-7c1e";
    app.published_blog(&p, slug, "2026-01-01T00:00:00Z", serde_json::json!({}))
        .await;
    let path = format!("/blog/api/v1/public/blogs/{slug}");
    let template = "route=\"/blog/api/v1/public/blogs/{slug}\"";
    let before = metrics_text(&app).await;
    let ok = |text: &str| {
        sample(
            text,
            "blogread_http_requests_total",
            &[template, "method=\"GET\"", "status=\"200\""],
        )
        .unwrap_or(0.0)
    };
    let hits = |text: &str| {
        sample(
            text,
            "blogread_response_cache_requests_total",
            &["result=\"hit\""],
        )
        .unwrap_or(0.0)
    };
    for _ in 0..2 {
        assert_eq!(app.get(&path, Some(&p.bearer_key())).await.status, 200);
    }
    let missing = "/blog/api/v1/public/blogs/no-such-post-5d2a";
    assert_eq!(app.get(missing, Some(&p.bearer_key())).await.status, 404);
    assert_eq!(app.get("/no/such/route-91b4", None).await.status, 404);

    let after = metrics_text(&app).await;
    assert!(ok(&after) >= ok(&before) + 2.0, "{after}");
    assert!(
        sample(
            &after,
            "blogread_http_requests_total",
            &[template, "status=\"404\""]
        )
        .is_some(),
        "{after}"
    );
    assert!(
        sample(
            &after,
            "blogread_http_request_duration_seconds_bucket",
            &[template, "status=\"200\"", "le=\"+Inf\""],
        )
        .is_some_and(|n| n >= 2.0),
        "a latency histogram: {after}"
    );
    assert!(
        sample(
            &after,
            "blogread_http_requests_total",
            &["route=\"unmatched\""]
        )
        .is_some(),
        "{after}"
    );
    for concrete in [slug, "no-such-post-5d2a", "route-91b4"] {
        assert!(!after.contains(concrete), "{concrete} is never a label");
    }
    assert!(hits(&after) > hits(&before), "the second read was a hit");
    assert!(
        sample(
            &after,
            "blogread_response_cache_requests_total",
            &["result=\"miss\""]
        )
        .is_some()
    );
    assert!(
        sample(&after, "blogread_response_cache_bytes", &[]).is_some_and(|b| b > 0.0),
        "{after}"
    );
    // The response cache's miss was made from the fragment cache's posts.
    assert!(
        sample(
            &after,
            "blogread_fragment_cache_fragments_total",
            &["result=\"miss\""]
        )
        .is_some_and(|n| n > 0.0),
        "{after}"
    );
    assert!(
        sample(&after, "blogread_fragment_cache_bytes", &[]).is_some_and(|b| b > 0.0),
        "{after}"
    );
    // The request log names the route the same way.
    let logs = captured_logs();
    assert!(
        logs.lines()
            .any(|l| l.contains("GET /blog/api/v1/public/blogs/{slug} -> 200")),
        "logged under its template"
    );
}

#[tokio::test]
async fn a_deploy_hook_firing_is_counted_by_outcome_with_its_latency() {
    use blogread_core::hook::AddressPolicy;
    use blogread_core::testing::receiver::{
        Answer, Receiver, loopback_resolver, test_notifier, test_pki,
    };
    let pki = test_pki();
    let receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let app = blogread_tests::spawn_app_with(|service| {
        service
            .with_notifier(Arc::new(test_notifier(
                &pki,
                loopback_resolver(),
                std::time::Duration::from_secs(10),
            )))
            .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback)
    })
    .await;
    let p = app.new_project(None).await;
    let r = app
        .send(
            reqwest::Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(
                serde_json::json!({"deploy_hook_url": receiver.url_string("/build_hooks/metrics")}),
            ),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let fired = |text: &str| {
        sample(
            text,
            "blogread_deploy_hook_firings_total",
            &["outcome=\"success\"", "trigger=\"test\""],
        )
        .unwrap_or(0.0)
    };
    let before = fired(&metrics_text(&app).await);
    let r = app
        .send(
            reqwest::Method::POST,
            &p.path("/deploy-hook/test"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.json["success"], true, "{r:?}");
    let text = metrics_text(&app).await;
    assert!(fired(&text) >= before + 1.0, "{text}");
    assert!(
        sample(
            &text,
            "blogread_deploy_hook_duration_seconds_count",
            &["outcome=\"success\""]
        )
        .is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert!(
        !text.contains("build_hooks"),
        "the hook URL is never a label"
    );
}
