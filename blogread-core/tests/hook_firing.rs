//! Deploy hook firing through the service, into a real HTTPS receiver on loopback: one POST per
//! visible-content event, none for draft edits, outcomes in the delivery log, never blocking or
//! failing the write. Firings are awaited through the service's handle, never by sleeping.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use blogread_core::domain::{BlogInput, Trigger};
use blogread_core::error::{Error, NotFound};
use blogread_core::hook::{AddressPolicy, HttpNotifier, StaticResolver};
use blogread_core::store::MemoryStore;
use blogread_core::testing::receiver::{
    Answer, Event, HOST, Receiver, TestPki, loopback_resolver, test_notifier, test_pki,
};
use blogread_core::testing::{Fixture, blog_id};

const WAIT: Duration = Duration::from_secs(20);

/// A fixture whose service fires into `receiver` (notifier allowed loopback, test CA trusted)
/// and whose hook is saved.
async fn fixture_firing_into(pki: &TestPki, receiver: &Receiver, timeout: Duration) -> Fixture {
    let mut f = Fixture::new(Arc::new(MemoryStore::new()), None).await;
    f.service = f
        .service
        .clone()
        .with_notifier(Arc::new(test_notifier(pki, loopback_resolver(), timeout)))
        .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback);
    f.service
        .save_deploy_hook(
            &f.admin,
            f.project,
            receiver.url_string("/build_hooks/s3cr3t"),
        )
        .await
        .expect("save hook");
    f
}

async fn requests_since_last(f: &Fixture, receiver: &mut Receiver) -> usize {
    assert!(f.service.wait_for_firings(WAIT).await, "firings finished");
    receiver
        .drain()
        .await
        .into_iter()
        .filter(|e| matches!(e, Event::Request(_)))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_visible_change_posts_once_and_draft_edits_never() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let f = fixture_firing_into(&pki, &receiver, WAIT).await;
    let auth = &f.admin;
    let s = &f.service;

    let b = f.draft("post", "Post", "<p>v1</p>").await;
    let id = blog_id(&b);
    let edit = || BlogInput {
        content: Some("<p>edited</p>".into()),
        ..Default::default()
    };
    assert_eq!(requests_since_last(&f, &mut receiver).await, 0, "create");
    s.edit_blog(auth, f.project, id, edit()).await.unwrap();
    assert_eq!(
        requests_since_last(&f, &mut receiver).await,
        0,
        "draft edit"
    );
    s.publish_blog(auth, f.project, id, None).await.unwrap();
    assert_eq!(requests_since_last(&f, &mut receiver).await, 1, "publish");
    s.edit_blog(auth, f.project, id, edit()).await.unwrap();
    assert_eq!(
        requests_since_last(&f, &mut receiver).await,
        0,
        "edit of published"
    );
    s.publish_blog(auth, f.project, id, None).await.unwrap();
    assert_eq!(requests_since_last(&f, &mut receiver).await, 1, "re-sync");
    s.unpublish_blog(auth, f.project, id).await.unwrap();
    assert_eq!(requests_since_last(&f, &mut receiver).await, 1, "unpublish");
    s.publish_blog(auth, f.project, id, None).await.unwrap();
    assert_eq!(
        requests_since_last(&f, &mut receiver).await,
        1,
        "publish again"
    );
    s.delete_blog(auth, f.project, id).await.unwrap();
    assert_eq!(
        requests_since_last(&f, &mut receiver).await,
        1,
        "delete published"
    );
    let d = f.draft("draft", "Draft", "").await;
    s.delete_blog(auth, f.project, blog_id(&d)).await.unwrap();
    assert_eq!(
        requests_since_last(&f, &mut receiver).await,
        0,
        "delete draft"
    );

    let log = s.deliveries(auth, f.project).await.unwrap();
    let triggers: Vec<Trigger> = log.iter().map(|d| d.trigger).collect();
    assert_eq!(
        triggers,
        [
            Trigger::Deleted,
            Trigger::Published,
            Trigger::Unpublished,
            Trigger::Updated,
            Trigger::Published
        ]
    );
    assert!(log.iter().all(|d| d.success && d.status_code == 200));
    assert!(log.iter().all(|d| d.blog_slug.as_deref() == Some("post")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_post_carries_no_content_and_the_specified_headers() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(204)).await;
    let f = fixture_firing_into(&pki, &receiver, WAIT).await;
    f.published("secret-post", "Secret title", "<p>private words</p>")
        .await;
    let request = receiver.next_request().await;
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/build_hooks/s3cr3t");
    assert_eq!(request.body, b"{}");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert!(
        request
            .header("user-agent")
            .is_some_and(|ua| ua.starts_with("blogread/"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_publishes_in_a_row_give_several_posts() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let f = fixture_firing_into(&pki, &receiver, WAIT).await;
    for i in 0..3 {
        f.published(&format!("post-{i}"), "P", "").await;
    }
    assert_eq!(requests_since_last(&f, &mut receiver).await, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_hook_is_recorded_once_and_never_fails_the_publish() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(500)).await;
    let f = fixture_firing_into(&pki, &receiver, WAIT).await;
    let published = f.published("post", "Post", "").await;
    assert_eq!(published.status.to_string(), "published");
    assert_eq!(requests_since_last(&f, &mut receiver).await, 1, "no retry");
    let log = f.service.deliveries(&f.admin, f.project).await.unwrap();
    assert_eq!(log.len(), 1);
    assert!(!log[0].success);
    assert_eq!(log[0].status_code, 500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_returns_while_the_hook_is_still_waiting_for_an_answer() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Never).await;
    // The default 10 s time-out: the publish must not wait for it.
    let f = fixture_firing_into(&pki, &receiver, Duration::from_secs(10)).await;
    f.published("post", "Post", "").await;
    // The publish has returned; the receiver has the request but has not answered, so the
    // firing is still in flight: the write did not wait for it.
    receiver.next_request().await;
    assert!(!f.service.wait_for_firings(Duration::ZERO).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_rebinds_to_a_private_address_is_refused_at_fire_time() {
    let public: IpAddr = "93.184.215.14".parse().unwrap();
    let resolver = Arc::new(StaticResolver::new().with(HOST, [public]));
    let mut f = Fixture::new(Arc::new(MemoryStore::new()), None).await;
    let notifier = HttpNotifier::builder()
        .resolver(resolver.clone())
        .build()
        .unwrap();
    f.service = f
        .service
        .clone()
        .with_notifier(Arc::new(notifier))
        .with_hook_resolver(resolver.clone(), AddressPolicy::GlobalOnly);
    f.service
        .save_deploy_hook(
            &f.admin,
            f.project,
            format!("https://{HOST}/build_hooks/abc"),
        )
        .await
        .expect("saved while public");
    resolver.insert(HOST, ["10.0.0.7".parse().unwrap()]);
    f.published("post", "Post", "").await;
    assert!(f.service.wait_for_firings(WAIT).await);
    let log = f.service.deliveries(&f.admin, f.project).await.unwrap();
    assert_eq!(log.len(), 1);
    assert!(!log[0].success);
    assert_eq!(log[0].status_code, 0);
    assert!(log[0].message.contains("10.0.0.7"), "{}", log[0].message);
    assert!(log[0].message.starts_with("refused"), "{}", log[0].message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saving_refuses_a_bad_url_and_keeps_the_old_one() {
    let pki = test_pki();
    let receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let f = fixture_firing_into(&pki, &receiver, WAIT).await;
    for bad in [
        "http://api.netlify.com/build_hooks/abc",
        "https://short.io/",
        "https://10.0.0.1/build_hooks/abcdef",
        "https://hooks.internal/build/abcdef",
    ] {
        let err = f
            .service
            .save_deploy_hook(&f.admin, f.project, bad.into())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Invalid(e) if e.field == "deploy_hook_url"),
            "{bad}: {err:?}"
        );
    }
    let view = f.service.deploy_hook(&f.admin, f.project).await.unwrap();
    assert_eq!(
        view.deploy_hook_url.as_deref(),
        Some(receiver.url_string("/build_hooks/s3cr3t").as_str())
    );
    assert!(view.has_hook);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_operation_posts_once_and_reports_the_answer() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let f = fixture_firing_into(&pki, &receiver, WAIT).await;
    let result = f
        .service
        .test_deploy_hook(&f.admin, f.project)
        .await
        .unwrap();
    assert!(result.success);
    assert_eq!(result.status_code, 200);
    assert_eq!(requests_since_last(&f, &mut receiver).await, 1);
    let log = f.service.deliveries(&f.admin, f.project).await.unwrap();
    assert_eq!(log[0].trigger, Trigger::Test);
    assert_eq!(log[0].blog_slug, None);

    f.service
        .remove_deploy_hook(&f.admin, f.project)
        .await
        .unwrap();
    let err = f
        .service
        .test_deploy_hook(&f.admin, f.project)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(NotFound::DeployHook)));
    let view = f.service.deploy_hook(&f.admin, f.project).await.unwrap();
    assert_eq!((view.deploy_hook_url, view.has_hook), (None, false));
    f.published("after-removal", "P", "").await;
    assert_eq!(requests_since_last(&f, &mut receiver).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_operation_reports_status_0_when_nothing_answers() {
    let pki = test_pki();
    let receiver = Receiver::start(&pki, Answer::Never).await;
    let f = fixture_firing_into(&pki, &receiver, Duration::from_millis(300)).await;
    let result = f
        .service
        .test_deploy_hook(&f.admin, f.project)
        .await
        .unwrap();
    assert!(!result.success);
    assert_eq!(result.status_code, 0);
    assert!(result.message.contains("timed out"), "{}", result.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unpublish_is_logged_under_the_slug_the_public_saw() {
    let pki = test_pki();
    let receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let f = fixture_firing_into(&pki, &receiver, WAIT).await;
    let auth = &f.admin;
    let b = f.published("public-slug", "Post", "").await;
    f.service
        .edit_blog(
            auth,
            f.project,
            blog_id(&b),
            BlogInput {
                slug: Some("renamed-draft".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    f.service
        .unpublish_blog(auth, f.project, blog_id(&b))
        .await
        .unwrap();
    assert!(f.service.wait_for_firings(WAIT).await);
    let log = f.service.deliveries(auth, f.project).await.unwrap();
    let unpublished = log
        .iter()
        .find(|d| d.trigger == Trigger::Unpublished)
        .expect("the unpublish fired");
    assert_eq!(unpublished.blog_slug.as_deref(), Some("public-slug"));
}
