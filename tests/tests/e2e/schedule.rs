//! Scheduled publishing through the server: a post published with a future time stays out of
//! every public answer until its time, then shows everywhere and fires the deploy hook once,
//! whether the scheduler, a read, a restarted server or one of two servers notices it first.

use std::sync::Arc;
use std::time::Duration;

use blogread_core::Service;
use blogread_core::clock::ManualClock;
use blogread_core::domain::Timestamp;
use blogread_core::hook::AddressPolicy;
use blogread_core::testing::receiver::{
    Answer, Event, Receiver, TestPki, loopback_resolver, test_notifier, test_pki,
};
use blogread_tests::{TestApp, TestProject, spawn_app_over, spawn_app_with};
use reqwest::Method;
use serde_json::json;

const LIST: &str = "/blog/api/v1/public/blogs";
const HOOK_PATH: &str = "/build_hooks/scheduled-e2e";

fn with_receiver(pki: &TestPki) -> impl FnOnce(Service) -> Service + '_ {
    move |service| {
        service
            .with_notifier(Arc::new(test_notifier(
                pki,
                loopback_resolver(),
                Duration::from_secs(10),
            )))
            .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback)
    }
}

async fn set_hook(app: &TestApp, p: &TestProject, receiver: &Receiver) {
    let r = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({ "deploy_hook_url": receiver.url_string(HOOK_PATH) })),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

async fn schedule(app: &TestApp, p: &TestProject, slug: &str, at: &str) -> String {
    let id = app
        .create_blog(
            p,
            json!({"title": format!("Title of {slug}"), "slug": slug}),
        )
        .await;
    let r = app.publish(p, &id, Some(at)).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["status"], "scheduled");
    id
}

async fn deliveries(app: &TestApp, p: &TestProject) -> Vec<String> {
    let r = app
        .get(&p.path("/deploy-hook/deliveries"), Some(&p.admin))
        .await;
    r.json["deliveries"]
        .as_array()
        .expect("deliveries")
        .iter()
        .map(|d| d["trigger"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn requests(events: Vec<Event>) -> usize {
    events
        .into_iter()
        .filter(|e| matches!(e, Event::Request(_)))
        .count()
}

#[tokio::test]
async fn the_scheduler_publishes_on_time_and_fires_the_hook_once() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let app = spawn_app_with(with_receiver(&pki)).await;
    let p = app.new_project(None).await;
    set_hook(&app, &p, &receiver).await;
    let at = Timestamp::from_unix_seconds(Timestamp::now().unix_seconds() + 2).unwrap();
    schedule(&app, &p, "soon", &at.to_string()).await;
    let r = app
        .get(&format!("{LIST}/soon"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 404, "invisible before its time");
    assert_eq!(app.get(LIST, Some(&p.bearer_key())).await.json["total"], 0);

    // No read happens: the scheduler alone publishes it and fires.
    let request = receiver.next_request().await;
    assert_eq!(request.path, HOOK_PATH);
    assert!(app.service.wait_for_firings(Duration::from_secs(10)).await);
    let r = app
        .get(&format!("{LIST}/soon"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(deliveries(&app, &p).await, vec!["published"]);
    assert_eq!(requests(receiver.drain().await), 0, "fired once");
}

#[tokio::test]
async fn two_servers_reading_after_go_live_publish_once_with_one_post() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2026-01-01T00:00:00Z").unwrap(),
    ));
    // Two servers on one database, each with its own connections (as two processes would
    // have); the in-memory store can only be shared as one object.
    let database = blogread_tests::SharedDatabase::fresh().await;
    let (store, guard) = (database.store(), blogread_tests::StoreGuard::new(()));
    let with_clock = |c: Arc<ManualClock>| {
        let configure = with_receiver(&pki);
        move |s: Service| configure(s).with_clock(c)
    };
    let a = spawn_app_over(store.clone(), guard, with_clock(clock.clone())).await;
    let p = a.new_project(None).await;
    set_hook(&a, &p, &receiver).await;
    let linker = a
        .create_blog(
            &p,
            json!({"title": "Linker", "slug": "linker", "content": "<p>[INTERNAL:launch]</p>"}),
        )
        .await;
    assert_eq!(a.publish(&p, &linker, None).await.status, 200);
    receiver.next_request().await;
    assert!(a.service.wait_for_firings(Duration::from_secs(10)).await);
    schedule(&a, &p, "launch", "2026-01-01T01:00:00Z").await;
    let before = a.get(LIST, Some(&p.bearer_key())).await;
    let etag = before.header("etag").expect("etag").to_owned();

    let b_store = database.open_again().await;
    let b_guard = blogread_tests::StoreGuard::new(());
    let b = spawn_app_over(b_store, b_guard, with_clock(clock.clone())).await;
    clock.set(Timestamp::parse("2026-01-01T01:00:01Z").unwrap());
    let (single, key) = (format!("{LIST}/launch"), p.bearer_key());
    let (ra, rb) = tokio::join!(a.get(&single, Some(&key)), b.get(&single, Some(&key)));
    assert_eq!((ra.status, rb.status), (200, 200), "{ra:?} {rb:?}");
    let list = a
        .request(
            a.http
                .get(a.url(LIST))
                .header("authorization", p.bearer_key())
                .header("if-none-match", &etag),
        )
        .await;
    assert_eq!(list.status, 200, "never a 304 across a go-live");
    assert_eq!(list.json["total"], 2);
    let linked = b
        .get(&format!("{LIST}/linker"), Some(&p.bearer_key()))
        .await;
    assert!(
        linked.json["content"]
            .as_str()
            .unwrap_or_default()
            .contains("/blog/launch/"),
        "{linked:?}"
    );

    let request = receiver.next_request().await;
    assert_eq!(request.path, HOOK_PATH);
    assert!(a.service.wait_for_firings(Duration::from_secs(10)).await);
    assert!(b.service.wait_for_firings(Duration::from_secs(10)).await);
    assert_eq!(
        requests(receiver.drain().await),
        0,
        "one POST for one go-live"
    );
    assert_eq!(deliveries(&a, &p).await, vec!["published", "published"]);
}

#[tokio::test]
async fn a_go_live_that_passed_while_no_server_ran_fires_at_the_next_start() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2026-01-01T00:00:00Z").unwrap(),
    ));
    // The next server opens the database anew (its own connections), as after a restart.
    let database = blogread_tests::SharedDatabase::fresh().await;
    let (store, guard) = (database.store(), blogread_tests::StoreGuard::new(()));
    let configure = with_receiver(&pki);
    let a = spawn_app_over(store.clone(), guard, {
        let clock = clock.clone();
        move |s| configure(s).with_clock(clock)
    })
    .await;
    let p = a.new_project(None).await;
    set_hook(&a, &p, &receiver).await;
    schedule(&a, &p, "overnight", "2026-01-01T06:00:00Z").await;

    // The next server starts after the go-live: its scheduler records it at once, no read.
    let later = Arc::new(ManualClock::new(
        Timestamp::parse("2026-01-01T07:00:00Z").unwrap(),
    ));
    let configure = with_receiver(&pki);
    let store = database.open_again().await;
    let b = spawn_app_over(store, blogread_tests::StoreGuard::new(()), move |s| {
        configure(s).with_clock(later)
    })
    .await;
    let request = receiver.next_request().await;
    assert_eq!(request.path, HOOK_PATH);
    assert!(b.service.wait_for_firings(Duration::from_secs(10)).await);
    assert_eq!(deliveries(&b, &p).await, vec!["published"]);
}
