//! A firing is recorded in the transaction of the write that caused it, so a process that
//! dies before attempting it loses nothing: the next start attempts it, once. A firing whose
//! process died during the POST is recorded as "outcome unknown" and not retried.
//!
//! The kill test re-runs its own binary as the writer: with `BLOGREAD_FIRING_WRITER` set to a
//! database URL (and `BLOGREAD_FIRING_HOOK` to the receiver's URL), the `firing_writer` test
//! below publishes one post and prints `published <project id>` once the publish call has
//! returned, then blocks its only runtime thread, so the firing it spawned never runs.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use blogread_core::domain::{ProjectId, Timestamp};
use blogread_core::hook::AddressPolicy;
use blogread_core::store::{SqliteStore, Store};
use blogread_core::testing::receiver::{
    Answer, Event, Receiver, loopback_resolver, test_notifier, test_pki,
};
use blogread_core::testing::{Fixture, blog_id};
use blogread_core::{Service, lifecycle};

const WRITER_ENV: &str = "BLOGREAD_FIRING_WRITER";
const HOOK_ENV: &str = "BLOGREAD_FIRING_HOOK";
const TIMEOUT: Duration = Duration::from_secs(10);

/// The writer half: does nothing unless started by the kill test. A current-thread runtime:
/// once the publish has returned, blocking this thread keeps the spawned firing from running.
#[tokio::test]
async fn firing_writer() {
    let (Ok(url), Ok(hook)) = (std::env::var(WRITER_ENV), std::env::var(HOOK_ENV)) else {
        return;
    };
    let store = Arc::new(SqliteStore::connect(&url).await.expect("open"));
    let mut f = Fixture::new(store, None).await;
    f.service = f
        .service
        .clone()
        .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback);
    f.service
        .save_deploy_hook(&f.admin, f.project, hook)
        .await
        .expect("save the hook");
    let draft = f.draft("kept", "Kept", "<p>words</p>").await;
    f.publish(&draft, None).await;
    println!("published {}", f.project);
    // Never returns before the parent's SIGKILL.
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
}

fn requests(events: Vec<Event>) -> usize {
    events
        .into_iter()
        .filter(|e| matches!(e, Event::Request(_)))
        .count()
}

fn service_over(store: Arc<dyn Store>, pki: &blogread_core::testing::receiver::TestPki) -> Service {
    Service::new(store)
        .with_notifier(Arc::new(test_notifier(pki, loopback_resolver(), TIMEOUT)))
        .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_firing_not_attempted_before_a_kill_9_is_attempted_once_at_the_next_start() {
    if std::env::var(WRITER_ENV).is_ok() {
        return; // this process is the writer
    }
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("firings.db").display());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "firing_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, &url)
        .env(HOOK_ENV, receiver.url_string("/build_hooks/durable"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the writer");
    let stdout = child.stdout.take().unwrap();
    let mut project = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read the writer's output");
        // The harness prints `test firing_writer ... ` on the same line first.
        if let Some((_, id)) = line.split_once("published ") {
            project = Some(id.trim().parse::<ProjectId>().expect("a project id"));
            break;
        }
    }
    let project = project.expect("the writer published");
    child.kill().expect("SIGKILL the writer");
    child.wait().unwrap();
    assert_eq!(
        requests(receiver.drain().await),
        0,
        "the writer died before the POST"
    );

    let store: Arc<dyn Store> = Arc::new(SqliteStore::connect(&url).await.unwrap());
    let service = service_over(store.clone(), &pki);
    assert_eq!(service.resume_firings().await.unwrap(), 1);
    let post = receiver.next_request().await;
    assert_eq!(post.path, "/build_hooks/durable");
    assert!(service.wait_for_firings(TIMEOUT).await);
    let log = store.deliveries(project).await.unwrap();
    assert_eq!(log.len(), 1, "the delivery log shows it: {log:?}");
    assert!(log[0].success);
    assert_eq!(log[0].blog_slug.as_deref(), Some("kept"));

    // Another start finds nothing left: attempted once.
    let again = service_over(store.clone(), &pki);
    assert_eq!(again.resume_firings().await.unwrap(), 0);
    assert!(again.wait_for_firings(TIMEOUT).await);
    assert_eq!(requests(receiver.drain().await), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_firing_abandoned_during_its_post_is_logged_as_outcome_unknown_and_not_retried() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("abandoned.db").display());
    let store: Arc<dyn Store> = Arc::new(SqliteStore::connect(&url).await.unwrap());
    let f = Fixture::new(store.clone(), None).await;
    store
        .set_deploy_hook(f.project, Some(&receiver.url_string("/build_hooks/x")))
        .await
        .unwrap();
    // A publish written straight to the store records its firing without attempting it...
    let draft = f.draft("lost", "Lost", "").await;
    let now = Timestamp::now();
    store
        .update_blog(
            f.project,
            blog_id(&draft),
            blogread_core::store::BlogUpdate::new(
                Box::new(move |b| lifecycle::publish(b, None, now)),
                now,
            ),
        )
        .await
        .unwrap();
    // ...and a process that died during the POST had claimed it an hour ago.
    let an_hour_ago = Timestamp::from_unix_seconds(now.unix_seconds() - 3600).unwrap();
    assert_eq!(
        store.claim_firings(None, an_hour_ago).await.unwrap().len(),
        1
    );

    let service = service_over(store.clone(), &pki);
    assert_eq!(service.resume_firings().await.unwrap(), 0, "not retried");
    assert!(service.wait_for_firings(TIMEOUT).await);
    assert_eq!(requests(receiver.drain().await), 0);
    let log = store.deliveries(f.project).await.unwrap();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(!log[0].success);
    assert!(
        log[0].message.contains("outcome unknown"),
        "{}",
        log[0].message
    );
    assert!(
        store.stale_firings(now).await.unwrap().is_empty(),
        "forgotten"
    );
}
