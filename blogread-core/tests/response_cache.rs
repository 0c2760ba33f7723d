//! The response cache is exact: every write that could change a public response changes what
//! the next read returns, on every service sharing the store, and a rotated or revoked key
//! fails on the very next request, cache or not. Every case runs on the in-memory store, on
//! SQLite, and on PostgreSQL when `BLOGREAD_TEST_POSTGRES_URL` is set.

use std::sync::Arc;

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogInput, OperatorToken};
use blogread_core::error::{Error, NotFound, Unauthorized};
use blogread_core::read::{Answer, Conditional, RawListParams};
use blogread_core::service::ProjectUpdate;
use blogread_core::store::{MemoryStore, Store};
use blogread_core::testing::{Fixture, OPERATOR_TOKEN, blog_id};

const SITE: &str = "https://www.example.com";
const LINKS_TO_B: &str = r#"<p>See <a href="[INTERNAL:b]">the other post</a> now.</p>"#;

fn with_content() -> RawListParams {
    RawListParams {
        include_content: Some("true".to_owned()),
        ..Default::default()
    }
}

fn text<T>(c: Conditional<Answer<T>>) -> String {
    let body = c.into_value().expect("a 200, not a 304").into_body();
    String::from_utf8(body.to_vec()).expect("JSON is UTF-8")
}

/// The typed value of `answer` serialises to its body, whether this read computed it or the
/// response cache held its body.
fn value_matches_body<T: serde::Serialize + serde::de::DeserializeOwned>(
    answer: Conditional<Answer<T>>,
) {
    let answer = answer.into_value().expect("a 200, not a 304");
    let body = answer.body().clone();
    assert_eq!(serde_json::to_vec(&answer.value()).unwrap(), body.to_vec());
}

/// Reads blog `a` and the list with content through `service`; both bodies as text.
async fn read_a(service: &Service, key: &Caller) -> (String, String) {
    let blog = service.get_blog(key, "a", None).await.expect("blog a");
    let list = service
        .list_blogs(key, with_content(), None)
        .await
        .expect("list");
    (text(blog), text(list))
}

fn links_to_b(body: &str, base: &str) -> bool {
    body.contains(&format!(r#"href=\"{base}/blog/b/\""#))
}

async fn json_bodies_are_the_typed_responses_serialised(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    f.published("b", "B", "<p>b</p>").await;
    f.published("a", "A", LINKS_TO_B).await;
    let key = &f.key();
    // Each read twice: computed (the cache misses), then held (it hits).
    for _ in 0..2 {
        value_matches_body(f.service.get_blog(key, "a", None).await.unwrap());
        value_matches_body(
            f.service
                .list_blogs(key, with_content(), None)
                .await
                .unwrap(),
        );
        value_matches_body(f.service.sitemap(key, None).await.unwrap());
        value_matches_body(f.service.redirects(key, None).await.unwrap());
    }
    let first = f.service.get_blog(key, "a", None).await.unwrap();
    let again = f.service.get_blog(key, "a", None).await.unwrap();
    assert_eq!(first.etag(), again.etag());
}

async fn a_publish_elsewhere_in_the_project_changes_cached_links(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    let b = f.draft("b", "B", "<p>b</p>").await;
    f.published("a", "A", LINKS_TO_B).await;
    let (blog, list) = read_a(&f.service, &f.key()).await;
    assert!(!links_to_b(&blog, SITE) && !links_to_b(&list, SITE));
    assert!(!f.service.responses().is_empty(), "the reads were cached");
    // Cached: the same answer again.
    assert_eq!(read_a(&f.service, &f.key()).await, (blog, list));

    f.clock.advance(1);
    f.publish(&b, None).await;
    let (blog, list) = read_a(&f.service, &f.key()).await;
    assert!(links_to_b(&blog, SITE), "{blog}");
    assert!(links_to_b(&list, SITE), "{list}");

    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&b))
        .await
        .unwrap();
    let (blog, list) = read_a(&f.service, &f.key()).await;
    assert!(!links_to_b(&blog, SITE) && !links_to_b(&list, SITE));
}

async fn deleting_a_linked_blog_changes_cached_links(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    let b = f.published("b", "B", "<p>b</p>").await;
    f.published("a", "A", LINKS_TO_B).await;
    let (blog, _) = read_a(&f.service, &f.key()).await;
    assert!(links_to_b(&blog, SITE));
    f.service
        .delete_blog(&f.admin, f.project, blog_id(&b))
        .await
        .unwrap();
    let (blog, list) = read_a(&f.service, &f.key()).await;
    assert!(!links_to_b(&blog, SITE) && !links_to_b(&list, SITE));
}

async fn a_site_url_change_changes_every_cached_link(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    f.published("b", "B", "<p>b</p>").await;
    f.published("a", "A", LINKS_TO_B).await;
    let (blog, list) = read_a(&f.service, &f.key()).await;
    assert!(links_to_b(&blog, SITE) && links_to_b(&list, SITE));

    let new_site = "https://blog.example.org";
    f.service
        .update_project(
            &f.admin,
            f.project,
            ProjectUpdate {
                site_url: Some(Some(new_site.into())),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let (blog, list) = read_a(&f.service, &f.key()).await;
    assert!(links_to_b(&blog, new_site), "{blog}");
    assert!(links_to_b(&list, new_site), "{list}");

    // No site URL: root-relative links.
    f.service
        .update_project(
            &f.admin,
            f.project,
            ProjectUpdate {
                site_url: Some(None),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let (blog, list) = read_a(&f.service, &f.key()).await;
    assert!(links_to_b(&blog, "") && links_to_b(&list, ""), "{blog}");
}

async fn a_resync_of_the_blog_itself_changes_its_cached_body(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    let a = f.published("a", "A", "<p>first</p>").await;
    let before = text(f.service.get_blog(&f.key(), "a", None).await.unwrap());
    assert!(before.contains("first"));
    f.service
        .edit_blog(
            &f.admin,
            f.project,
            blog_id(&a),
            BlogInput {
                content: Some("<p>second</p>".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    // A draft edit does not change the public answer.
    let unchanged = text(f.service.get_blog(&f.key(), "a", None).await.unwrap());
    assert_eq!(unchanged, before);
    f.clock.advance(1);
    f.publish(&a, None).await;
    let after = text(f.service.get_blog(&f.key(), "a", None).await.unwrap());
    assert!(after.contains("second"), "{after}");
}

async fn every_read_is_unauthorised(service: &Service, key: &str, etag: &str) {
    let header = format!("Bearer {key}");
    let creds = &Caller::from_authorization(Some(header.as_bytes()));
    for if_none_match in [None, Some(etag)] {
        fn unauthorised<T>(r: blogread_core::error::Result<Conditional<Answer<T>>>) -> bool {
            matches!(r, Err(Error::Unauthorized(Unauthorized::UnknownPublicKey)))
        }
        assert!(unauthorised(
            service.get_blog(creds, "a", if_none_match).await
        ));
        assert!(unauthorised(
            service
                .list_blogs(creds, with_content(), if_none_match)
                .await
        ));
        assert!(unauthorised(
            service
                .list_blogs(creds, RawListParams::default(), if_none_match)
                .await
        ));
        assert!(unauthorised(service.sitemap(creds, if_none_match).await));
    }
}

/// Warms the cache for every endpoint with `key`; returns blog `a`'s ETag.
async fn warm(service: &Service, key: &str) -> String {
    let creds = &Caller::public(key);
    let (_, _) = read_a(service, creds).await;
    service
        .list_blogs(creds, RawListParams::default(), None)
        .await
        .unwrap();
    service.sitemap(creds, None).await.unwrap();
    service
        .get_blog(creds, "a", None)
        .await
        .unwrap()
        .etag()
        .to_owned()
}

async fn a_rotated_key_fails_on_the_very_next_request(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    f.published("a", "A", "<p>a</p>").await;
    let etag = warm(&f.service, &f.public_key).await;
    let new_key = f
        .service
        .rotate_public_key(&f.admin, f.project)
        .await
        .unwrap()
        .key;
    every_read_is_unauthorised(&f.service, &f.public_key, &etag).await;
    // The new key reads the same (unchanged) content, from the cache.
    let creds = &Caller::public(&new_key);
    let c = f.service.get_blog(creds, "a", None).await.unwrap();
    assert_eq!(c.etag(), etag);
}

async fn a_revoked_key_fails_on_the_very_next_request(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    f.published("a", "A", "<p>a</p>").await;
    let etag = warm(&f.service, &f.public_key).await;
    f.service
        .revoke_public_key(&f.admin, f.project)
        .await
        .unwrap();
    every_read_is_unauthorised(&f.service, &f.public_key, &etag).await;
}

async fn instances_sharing_a_store_see_each_others_writes_and_key_changes(store: Arc<dyn Store>) {
    let shared = store;
    let f = Fixture::new(shared.clone(), Some(SITE)).await;
    // A second server instance: its own cache, the same database.
    let other = Service::new(shared)
        .with_operator_token(OperatorToken::new(OPERATOR_TOKEN).expect("long enough"));
    let b = f.draft("b", "B", "<p>b</p>").await;
    f.published("a", "A", LINKS_TO_B).await;
    let (blog, _) = read_a(&other, &f.key()).await;
    assert!(!links_to_b(&blog, SITE));

    // The write goes through the first instance; the second one's next read shows it.
    f.clock.advance(1);
    f.publish(&b, None).await;
    let (blog, list) = read_a(&other, &f.key()).await;
    assert!(links_to_b(&blog, SITE) && links_to_b(&list, SITE), "{blog}");

    let etag = warm(&other, &f.public_key).await;
    f.service
        .rotate_public_key(&f.admin, f.project)
        .await
        .unwrap();
    every_read_is_unauthorised(&other, &f.public_key, &etag).await;
}

async fn a_cached_blog_unpublished_is_404_even_with_its_old_etag(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some(SITE)).await;
    let a = f.published("a", "A", "<p>a</p>").await;
    let etag = warm(&f.service, &f.public_key).await;
    // While current, the old tag is a 304 (answered from the cache's knowledge).
    let c = f
        .service
        .get_blog(&f.key(), "a", Some(&etag))
        .await
        .unwrap();
    assert!(matches!(c, Conditional::NotModified { .. }));
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&a))
        .await
        .unwrap();
    let r = f.service.get_blog(&f.key(), "a", Some(&etag)).await;
    assert!(
        matches!(r, Err(Error::NotFound(NotFound::PublishedBlog))),
        "{r:?}"
    );
}

macro_rules! on_backend {
    ($backend:ident, $store:expr) => {
        mod $backend {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test]
            async fn json_bodies_are_the_typed_responses_serialised() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::json_bodies_are_the_typed_responses_serialised(store).await;
            }

            #[tokio::test]
            async fn a_publish_elsewhere_in_the_project_changes_cached_links() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::a_publish_elsewhere_in_the_project_changes_cached_links(store).await;
            }

            #[tokio::test]
            async fn deleting_a_linked_blog_changes_cached_links() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::deleting_a_linked_blog_changes_cached_links(store).await;
            }

            #[tokio::test]
            async fn a_site_url_change_changes_every_cached_link() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::a_site_url_change_changes_every_cached_link(store).await;
            }

            #[tokio::test]
            async fn a_resync_of_the_blog_itself_changes_its_cached_body() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::a_resync_of_the_blog_itself_changes_its_cached_body(store).await;
            }

            #[tokio::test]
            async fn a_rotated_key_fails_on_the_very_next_request() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::a_rotated_key_fails_on_the_very_next_request(store).await;
            }

            #[tokio::test]
            async fn a_revoked_key_fails_on_the_very_next_request() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::a_revoked_key_fails_on_the_very_next_request(store).await;
            }

            #[tokio::test]
            async fn instances_sharing_a_store_see_each_others_writes_and_key_changes() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::instances_sharing_a_store_see_each_others_writes_and_key_changes(store)
                    .await;
            }

            #[tokio::test]
            async fn a_cached_blog_unpublished_is_404_even_with_its_old_etag() {
                let Some((store, _guard)) = $store else {
                    return;
                };
                super::a_cached_blog_unpublished_is_404_even_with_its_old_etag(store).await;
            }
        }
    };
}

on_backend!(
    memory,
    Some((Arc::new(MemoryStore::new()) as Arc<dyn Store>, ()))
);
#[cfg(feature = "sqlite")]
on_backend!(
    sqlite,
    Some(blogread_core::testing::databases::fresh_sqlite().await)
);
#[cfg(feature = "postgres")]
on_backend!(
    postgres,
    blogread_core::testing::databases::fresh_postgres().await
);
