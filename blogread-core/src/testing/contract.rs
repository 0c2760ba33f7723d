//! The store contract: the same behaviours checked against every [`Store`] backend.
//!
//! Each case is an async function taking a fresh, empty store. A backend's tests invoke
//! [`crate::store_contract_tests!`] once with an expression that builds such a store; the
//! macro expands to one `#[tokio::test]` per case, named after the behaviour it checks.

use std::sync::Arc;

use crate::auth::Caller;
use crate::domain::{
    BlogId, BlogInput, BlogStatus, Delivery, DeliveryId, SecretHash, Timestamp, Trigger,
};
use crate::error::{Error, NotFound, Unauthorized};
use crate::read::{Answer, Conditional, ListParams, RawListParams};
use crate::service::ProjectUpdate;
use crate::store::{PageQuery, Store};
use crate::testing::{Fixture, blog_id};

pub use super::changes_contract::{
    changes_feed_cursors_are_checked_and_expire_with_the_retention,
    following_the_changes_feed_ends_equal_to_a_full_read,
    the_changes_feed_names_what_changed_and_only_that,
};
pub use super::credentials_contract::each_credential_kind_is_found_listed_and_deleted_on_its_own;
pub use super::fragments_contract::answers_from_fragments_are_the_answers_from_rows;
pub use super::links_contract::{
    BEFORE_THE_SLUG_INDEX, backlinks_name_the_posts_linking_by_slug_or_alias,
    link_answers_are_pages_whatever_the_bodies_hold,
    links_judged_by_what_a_post_names_are_the_whole_projects,
    links_report_follows_edits_and_target_changes,
    links_report_gives_each_placeholder_its_targets_state,
    publish_answers_carry_the_unresolved_links, reports_read_by_slug_agree_with_the_whole_report,
    the_slug_index_migration_indexes_the_stored_lists,
};
#[cfg(all(feature = "media", unix))]
pub use super::media_contract::{
    identical_uploads_give_one_item_per_project, media_follow_the_blog_credential_rules,
    refused_uploads_store_nothing, served_files_are_found_by_their_exact_name_only,
    the_sweep_removes_only_old_files_without_a_row,
    uploads_are_stored_listed_read_edited_and_deleted,
};
#[cfg(all(feature = "media", unix))]
pub use super::media_usage_contract::{
    a_used_image_is_not_deleted_and_an_unused_one_is,
    featured_images_from_caches_are_the_answers_from_rows,
    featured_images_show_their_item_and_an_alt_edit_fires_once,
    media_usage_follows_featured_images_and_bodies_through_every_write,
};

fn fresh<T: serde::de::DeserializeOwned>(c: Conditional<Answer<T>>) -> T {
    c.into_value().expect("a fresh response").value()
}

async fn list(f: &Fixture, raw: RawListParams) -> crate::domain::BlogList {
    fresh(
        f.service
            .list_blogs(&f.key(), raw, None)
            .await
            .expect("list"),
    )
}

fn slugs(list: &crate::domain::BlogList) -> Vec<&str> {
    list.blogs
        .iter()
        .map(|b| b.fields.slug().as_str())
        .collect()
}

/// Lists show only published blogs, newest first, with `total` independent of paging.
pub async fn list_returns_only_published_newest_first(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    f.published("first", "First", "<p>1</p>").await;
    f.draft("a-draft", "Draft", "<p>d</p>").await;
    f.published("second", "Second", "<p>2</p>").await;
    let gone = f.published("gone", "Gone", "<p>g</p>").await;
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&gone))
        .await
        .unwrap();
    let l = list(&f, RawListParams::default()).await;
    assert_eq!(slugs(&l), ["second", "first"]);
    assert_eq!(l.total, 2);
    assert!(
        l.blogs.iter().all(|b| b.content.is_none()),
        "no content by default"
    );
}

/// Offset paging with the id tie-break never repeats or skips a blog, even when every blog
/// has the same `published_at`.
pub async fn paging_under_equal_published_at_never_repeats_or_skips(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    for i in 0..25 {
        let b = f.draft(&format!("same-{i}"), "Same", "").await;
        f.publish(&b, Some("2025-06-01T12:00:00Z")).await;
    }
    let mut seen = Vec::new();
    for offset in (0..25).step_by(7) {
        let offset = offset.to_string();
        let page = list(
            &f,
            RawListParams {
                limit: Some("7".to_owned()),
                offset: Some(offset.clone()),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(page.total, 25);
        seen.extend(page.blogs.into_iter().map(|b| b.id));
    }
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 25, "each blog exactly once");
    let mut desc = seen.clone();
    desc.sort_by(|a, b| b.cmp(a));
    assert_eq!(seen, desc, "ties broken by id descending");
}

/// Every page of a long list, deep ones included, holds exactly the blogs its offset names:
/// with many ties in `published_at`, in a category too, and after the list changes between
/// reads (a post published on top, one taken out of the middle).
pub async fn deep_pages_under_ties_never_repeat_or_skip(store: Arc<dyn Store>) {
    const N: usize = 300;
    let f = Fixture::new(store, None).await;
    // (published_at, id, in the category) of every published blog.
    let mut blogs = Vec::new();
    for i in 0..N {
        let b = f
            .draft_with(BlogInput {
                title: Some(format!("Deep {i}")),
                slug: Some(format!("deep-{i}")),
                categories: Some(vec![if i % 2 == 0 { "Deep" } else { "Other" }.into()]),
                ..Default::default()
            })
            .await;
        // Seven distinct times for 300 blogs: long runs of ties.
        let at = format!("2025-06-0{}T12:00:00Z", 1 + i % 7);
        f.publish(&b, Some(&at)).await;
        blogs.push((Timestamp::parse(&at).unwrap(), blog_id(&b), i % 2 == 0, b));
    }
    async fn read_all(f: &Fixture, category: Option<&str>, limit: usize) -> (Vec<BlogId>, u64) {
        let mut seen = Vec::new();
        let mut total = None;
        let mut offset = 0;
        loop {
            let page = list(
                f,
                RawListParams {
                    limit: Some(limit.to_string()),
                    offset: Some(offset.to_string()),
                    category: category.map(str::to_owned),
                    ..Default::default()
                },
            )
            .await;
            assert_eq!(
                *total.get_or_insert(page.total),
                page.total,
                "total per page"
            );
            if page.blogs.is_empty() {
                break;
            }
            offset += page.blogs.len();
            seen.extend(page.blogs.into_iter().map(|b| b.id));
        }
        (seen, total.unwrap_or_default())
    }
    type Deep = (Timestamp, BlogId, bool, crate::domain::ManagedBlog);
    fn expected(blogs: &[Deep], only_category: bool) -> Vec<BlogId> {
        let mut keys: Vec<(Timestamp, BlogId)> = blogs
            .iter()
            .filter(|b| !only_category || b.2)
            .map(|b| (b.0, b.1))
            .collect();
        keys.sort_by(|a, b| b.cmp(a));
        keys.into_iter().map(|(_, id)| id).collect()
    }
    async fn check(f: &Fixture, blogs: &[Deep], when: &str) {
        let all = expected(blogs, false);
        let deep = expected(blogs, true);
        for limit in [7, 50, 100] {
            let (seen, total) = read_all(f, None, limit).await;
            assert_eq!(total, all.len() as u64, "{when}: total");
            assert!(
                seen == all,
                "{when}: pages of {limit}: every blog once, in order"
            );
            let (seen, total) = read_all(f, Some("dEEP"), limit).await;
            assert_eq!(total, deep.len() as u64, "{when}: category total");
            assert!(
                seen == deep,
                "{when}: category pages of {limit}: every blog once, in order"
            );
        }
        // Single deep pages, at and around the page index's strides.
        for offset in [127_usize, 128, 129, 255, 256, 257] {
            let page = list(
                f,
                RawListParams {
                    limit: Some("3".into()),
                    offset: Some(offset.to_string()),
                    ..Default::default()
                },
            )
            .await;
            let ids: Vec<BlogId> = page.blogs.iter().map(|b| b.id).collect();
            let want: Vec<BlogId> = all.iter().skip(offset).take(3).copied().collect();
            assert_eq!(ids, want, "{when}: offset {offset}");
        }
        // The keys a page read fetches first are that page's posts, deep pages too.
        for (category, offset) in [
            (None, 127),
            (None, 257),
            (Some("deep"), 0),
            (Some("deep"), 129),
        ] {
            let query = PageQuery {
                limit: 7,
                offset,
                category: category.map(str::to_owned),
                include_content: false,
            };
            let store = f.service.store();
            let page = store.published_page(f.project, &query).await.unwrap();
            let keys = store.published_page_keys(f.project, &query).await.unwrap();
            let ids: Vec<BlogId> = page.blogs.iter().map(|b| b.id).collect();
            let key_ids: Vec<BlogId> = keys.keys.iter().map(|k| k.id).collect();
            assert_eq!(
                (key_ids, keys.total),
                (ids, page.total),
                "{when}: {query:?}"
            );
        }
        let past = list(
            f,
            RawListParams {
                offset: Some(all.len().to_string()),
                ..Default::default()
            },
        )
        .await;
        assert!(past.blogs.is_empty(), "{when}: past the end");
        assert_eq!(past.total, all.len() as u64, "{when}: total past the end");
    }
    check(&f, &blogs, "first read").await;
    // A newest post on top and one taken out of the middle move every later page by one.
    let top = f
        .draft_with(BlogInput {
            title: Some("Top".into()),
            slug: Some("top".into()),
            categories: Some(vec!["Deep".into()]),
            ..Default::default()
        })
        .await;
    f.publish(&top, Some("2025-07-01T00:00:00Z")).await;
    blogs.push((
        Timestamp::parse("2025-07-01T00:00:00Z").unwrap(),
        blog_id(&top),
        true,
        top,
    ));
    let middle = blogs.remove(N / 2);
    f.service
        .unpublish_blog(&f.admin, f.project, middle.1)
        .await
        .unwrap();
    check(&f, &blogs, "after a publish and an unpublish").await;
}

/// `limit` and `offset` echo the applied (clamped) values.
pub async fn limit_and_offset_echo_the_applied_values(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    f.published("only", "Only", "").await;
    let l = list(
        &f,
        RawListParams {
            limit: Some("1000".to_owned()),
            offset: Some("-3".to_owned()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!((l.limit, l.offset), (100, 0));
    let l = list(
        &f,
        RawListParams {
            offset: Some("5".to_owned()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!((l.limit, l.offset, l.blogs.len(), l.total), (50, 5, 0, 1));
}

/// The category filter matches case-insensitively and `total` counts after the filter.
pub async fn category_filter_is_case_insensitive_with_filtered_total(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    for (slug, cats) in [
        ("a", vec!["Rust", "Web"]),
        ("b", vec!["rust"]),
        ("c", vec!["Go"]),
        ("d", vec!["Ünïcode"]),
    ] {
        f.clock.advance(1);
        let b = f
            .draft_with(BlogInput {
                title: Some(slug.into()),
                slug: Some(slug.into()),
                categories: Some(cats.into_iter().map(String::from).collect()),
                ..Default::default()
            })
            .await;
        f.publish(&b, None).await;
    }
    let l = list(
        &f,
        RawListParams {
            category: Some("RUST".to_owned()),
            limit: Some("1".to_owned()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(l.total, 2);
    assert_eq!(slugs(&l), ["b"]);
    let l = list(
        &f,
        RawListParams {
            category: Some("üNÏCODE".to_owned()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(slugs(&l), ["d"]);
    let l = list(
        &f,
        RawListParams {
            category: Some("Rus".to_owned()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(l.total, 0, "equality, not prefix");
}

/// `include_content=true` adds resolved bodies to every item.
pub async fn include_content_adds_resolved_bodies(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some("https://site.example")).await;
    f.published("target", "Target", "<p>t</p>").await;
    f.published(
        "linker",
        "Linker",
        r#"<p><a href="[INTERNAL:target]">go</a></p>"#,
    )
    .await;
    let l = list(
        &f,
        RawListParams {
            include_content: Some("true".to_owned()),
            ..Default::default()
        },
    )
    .await;
    let linker = &l.blogs[0];
    let content = linker.content.as_deref().expect("content present");
    assert!(!content.contains("[INTERNAL:"), "{content}");
}

/// A single blog is found by slug with content, `updated_at` and `word_count`.
pub async fn single_blog_has_content_updated_at_and_word_count(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    f.published("hello", "Hello", "<p>one two <b>three</b></p>")
        .await;
    let b = fresh(f.service.get_blog(&f.key(), "hello", None).await.unwrap());
    assert_eq!(b.fields.slug(), "hello");
    assert_eq!(b.content, "<p>one two <b>three</b></p>");
    assert_eq!(b.word_count, 3);
    assert_eq!(b.updated_at, b.published_at);
}

/// Drafts, unpublished blogs, unknown slugs and other projects' blogs are 404.
pub async fn single_blog_is_404_unless_published_in_this_project(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let other = f.another(None).await;
    f.draft("draft", "Draft", "").await;
    let b = f.published("was", "Was", "").await;
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&b))
        .await
        .unwrap();
    other.published("theirs", "Theirs", "").await;
    for slug in ["draft", "was", "missing", "theirs", "sitemap", "UPPER"] {
        let err = f.service.get_blog(&f.key(), slug, None).await.unwrap_err();
        assert!(
            matches!(err, Error::NotFound(NotFound::PublishedBlog)),
            "{slug}: {err:?}"
        );
    }
}

/// A blog of project B is never visible with project A's key, even with the same slug.
pub async fn projects_are_isolated_even_with_the_same_slug(store: Arc<dyn Store>) {
    let a = Fixture::new(store, None).await;
    let b = a.another(None).await;
    a.published("same", "A's post", "<p>a</p>").await;
    b.published("same", "B's post", "<p>b</p>").await;
    b.published("only-b", "Only B", "").await;
    let got = fresh(a.service.get_blog(&a.key(), "same", None).await.unwrap());
    assert_eq!(got.fields.title(), "A's post");
    let l = list(&a, RawListParams::default()).await;
    assert_eq!(slugs(&l), ["same"]);
    let s = fresh(a.service.sitemap(&a.key(), None).await.unwrap());
    assert_eq!(s.total, 1);
}

/// The sitemap returns the newest 5000 of 5001, with `total` the number returned.
pub async fn sitemap_caps_at_5000_newest_first(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    for i in 0..5001 {
        let b = f.draft(&format!("post-{i}"), "P", "").await;
        let at = Timestamp::from_unix_seconds(1_700_000_000 + i).unwrap();
        f.publish(&b, Some(&at.to_string())).await;
    }
    let s = fresh(f.service.sitemap(&f.key(), None).await.unwrap());
    assert_eq!(s.total, 5000);
    assert_eq!(s.blogs.len(), 5000);
    assert_eq!(s.blogs[0].slug, "post-5000");
    assert_eq!(s.blogs[4999].slug, "post-1", "the oldest one is left out");
}

/// Publish, re-sync, unpublish and delete report their events; edits and creation none.
pub async fn lifecycle_moves_report_their_events(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let auth = &f.admin;
    let b = f.draft("life", "Life", "<p>v1</p>").await;
    let id = blog_id(&b);
    let s = &f.service;
    let edit = BlogInput {
        content: Some("<p>v2</p>".into()),
        ..Default::default()
    };
    assert_eq!(
        s.edit_blog(auth, f.project, id, edit.clone())
            .await
            .unwrap()
            .event,
        None
    );
    let w = s.publish_blog(auth, f.project, id, None).await.unwrap();
    assert_eq!(w.event, Some(Trigger::Published));
    assert_eq!(w.blog.status, BlogStatus::Published);
    assert_eq!(
        s.publish_blog(auth, f.project, id, None)
            .await
            .unwrap()
            .event,
        Some(Trigger::Updated)
    );
    assert_eq!(
        s.unpublish_blog(auth, f.project, id).await.unwrap().event,
        Some(Trigger::Unpublished)
    );
    assert!(matches!(
        s.unpublish_blog(auth, f.project, id).await,
        Err(Error::Conflict(_))
    ));
    assert_eq!(s.delete_blog(auth, f.project, id).await.unwrap(), None);
    let p = f.published("gone", "Gone", "").await;
    assert_eq!(
        s.delete_blog(auth, f.project, blog_id(&p)).await.unwrap(),
        Some(Trigger::Deleted)
    );
    assert!(matches!(
        s.get_blog(&f.key(), "gone", None).await,
        Err(Error::NotFound(_))
    ));
    assert!(matches!(
        s.delete_blog(auth, f.project, blog_id(&p)).await,
        Err(Error::NotFound(NotFound::Blog))
    ));
}

/// Editing a published blog changes nothing public until it is re-synced.
pub async fn edits_stay_private_until_resync(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let b = f.published("post", "Old title", "<p>old</p>").await;
    let etag = f
        .service
        .get_blog(&f.key(), "post", None)
        .await
        .unwrap()
        .etag()
        .to_owned();
    f.service
        .edit_blog(
            &f.admin,
            f.project,
            blog_id(&b),
            BlogInput {
                title: Some("New title".into()),
                slug: Some("new-slug".into()),
                content: Some("<p>new</p>".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let got = f.service.get_blog(&f.key(), "post", None).await.unwrap();
    assert_eq!(got.etag(), etag, "public output did not change");
    assert_eq!(fresh(got).fields.title(), "Old title");
    assert!(
        f.service
            .get_blog(&f.key(), "new-slug", None)
            .await
            .is_err()
    );
    f.clock.advance(60);
    f.publish(&b, None).await;
    let got = fresh(
        f.service
            .get_blog(&f.key(), "new-slug", None)
            .await
            .unwrap(),
    );
    assert_eq!(got.fields.title(), "New title");
    assert!(got.updated_at > got.published_at);
    assert!(f.service.get_blog(&f.key(), "post", None).await.is_err());
}

/// A slug is unique within a project across working and published slugs; another project may
/// reuse it.
pub async fn duplicate_slug_is_a_conflict_within_a_project_only(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let other = f.another(None).await;
    let a = f.published("taken", "A", "").await;
    let dup = f.try_draft("taken", "B").await;
    assert!(matches!(dup, Err(Error::Conflict(_))), "{dup:?}");
    // The published slug stays reserved while the working copy is renamed.
    f.rename(&a, "renamed").await;
    let dup = f.try_draft("taken", "B").await;
    assert!(matches!(dup, Err(Error::Conflict(_))), "{dup:?}");
    other.draft("taken", "Elsewhere", "").await;
}

/// Rotation and revocation take effect on the very next request.
pub async fn rotation_and_revocation_take_effect_at_once(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let old = f.public_key.clone();
    let new = f
        .service
        .rotate_public_key(&f.admin, f.project)
        .await
        .unwrap()
        .key;
    let old_key = old;
    let err = f
        .service
        .sitemap(&Caller::public(&old_key), None)
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        Error::Unauthorized(Unauthorized::UnknownPublicKey)
    ));
    assert!(f.service.sitemap(&Caller::public(&new), None).await.is_ok());
    let revealed = f
        .service
        .reveal_public_key(&f.admin, f.project)
        .await
        .unwrap();
    assert_eq!(revealed.key, new);
    f.service
        .revoke_public_key(&f.admin, f.project)
        .await
        .unwrap();
    assert!(matches!(
        f.service.sitemap(&Caller::public(&new), None).await,
        Err(Error::Unauthorized(Unauthorized::UnknownPublicKey))
    ));
    assert!(matches!(
        f.service.reveal_public_key(&f.admin, f.project).await,
        Err(Error::NotFound(NotFound::PublicKey))
    ));
    assert!(matches!(
        f.service.rotate_public_key(&f.admin, f.project).await,
        Err(Error::NotFound(NotFound::PublicKey))
    ));
    f.service
        .generate_public_key(&f.admin, f.project)
        .await
        .unwrap();
    assert!(matches!(
        f.service.generate_public_key(&f.admin, f.project).await,
        Err(Error::Conflict(_))
    ));
}

/// Agent keys and admin tokens are found by hash; deleting one revokes it at once; an agent
/// key never reads the public API.
pub async fn agent_keys_and_admin_tokens_are_looked_up_by_hash(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let issued = f
        .service
        .create_agent_key(&f.admin, f.project)
        .await
        .unwrap();
    let agent = format!("Bearer {}", issued.key);
    let agent_caller = Caller::from_authorization(Some(agent.as_bytes()));
    let listed = f.service.agent_keys(&f.admin, f.project).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].prefix, &issued.key[..12]);
    f.service
        .create_blog(
            &agent_caller,
            f.project,
            BlogInput {
                title: Some("By agent".into()),
                slug: Some("by-agent".into()),
                ..Default::default()
            },
        )
        .await
        .expect("agents may write blogs");
    assert!(matches!(
        f.service
            .sitemap(&Caller::from_authorization(Some(agent.as_bytes())), None)
            .await,
        Err(Error::Unauthorized(Unauthorized::AgentKeyOnPublicApi))
    ));
    f.service
        .delete_agent_key(&f.admin, f.project, issued.id)
        .await
        .unwrap();
    assert!(matches!(
        f.service
            .blogs(&agent_caller, f.project, None, RawListParams::default())
            .await,
        Err(Error::Unauthorized(Unauthorized::UnknownToken))
    ));
}

/// A site URL change and a publish elsewhere in the project change the ETag (resolved links
/// may change); an unrelated project's writes do not.
pub async fn etag_changes_with_every_visible_change(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let other = f.another(None).await;
    f.published("a", "A", "<p>[INTERNAL:b]</p>").await;
    let e1 = etag_of(&f).await;
    let again = f.service.get_blog(&f.key(), "a", Some(&e1)).await.unwrap();
    assert!(matches!(again, Conditional::NotModified { .. }));
    other.published("x", "X", "").await;
    assert_eq!(
        etag_of(&f).await,
        e1,
        "another project's publish changes nothing"
    );
    f.published("b", "B", "").await;
    let e2 = etag_of(&f).await;
    assert_ne!(e2, e1, "publishing the link target changes resolved links");
    f.service
        .update_project(
            &f.admin,
            f.project,
            ProjectUpdate {
                site_url: Some(Some("https://new.example".into())),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_ne!(
        etag_of(&f).await,
        e2,
        "a site URL change changes every link"
    );
}

async fn etag_of(f: &Fixture) -> String {
    f.service
        .get_blog(&f.key(), "a", None)
        .await
        .unwrap()
        .etag()
        .to_owned()
}

/// A bad key is 401 even with a matching If-None-Match.
pub async fn bad_key_is_401_never_304(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let etag = f
        .service
        .sitemap(&f.key(), None)
        .await
        .unwrap()
        .etag()
        .to_owned();
    let bogus = "pk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let err = f
        .service
        .sitemap(&Caller::public(bogus), Some(&etag))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unauthorized(_)));
}

/// Unicode survives every text field.
pub async fn unicode_round_trips_in_every_text_field(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let b = f
        .draft_with(BlogInput {
            title: Some("Ünïcödé 日本語 🚀".into()),
            slug: Some("unicode".into()),
            content: Some("<p>Ελληνικά — עברית — 中文 🚀</p>".into()),
            excerpt: Some("Résumé ✓".into()),
            meta_title: Some("Mëta 标题".into()),
            meta_description: Some("Désc 🌍".into()),
            featured_image_url: Some(Some("https://cdn.example/ü.png".into())),
            categories: Some(vec!["Catégorie".into(), "分类".into()]),
            tags: Some(vec!["étiquette".into(), "🏷".into()]),
        })
        .await;
    f.publish(&b, None).await;
    let got = fresh(f.service.get_blog(&f.key(), "unicode", None).await.unwrap());
    assert_eq!(got.fields.title(), "Ünïcödé 日本語 🚀");
    assert_eq!(got.content, "<p>Ελληνικά — עברית — 中文 🚀</p>");
    assert_eq!(got.fields.excerpt(), "Résumé ✓");
    assert_eq!(got.fields.meta_title(), "Mëta 标题");
    assert_eq!(got.fields.meta_description(), "Désc 🌍");
    assert_eq!(
        got.fields.featured_image_url(),
        Some("https://cdn.example/ü.png")
    );
    assert_eq!(got.fields.categories(), ["Catégorie", "分类"]);
    assert_eq!(got.fields.tags(), ["étiquette", "🏷"]);
    let managed = f
        .service
        .blog(&f.admin, f.project, blog_id(&b))
        .await
        .unwrap();
    assert_eq!(managed.working.title(), "Ünïcödé 日本語 🚀");
}

/// The largest allowed body (2 MiB) is stored and returned whole.
pub async fn largest_allowed_content_round_trips(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let para = "<p>lorem ipsum dolor sit amet</p>";
    let mut content = para.repeat(crate::domain::blog::limits::CONTENT_MAX_BYTES / para.len());
    content.push_str(&"x".repeat(crate::domain::blog::limits::CONTENT_MAX_BYTES - content.len()));
    assert_eq!(
        content.len(),
        crate::domain::blog::limits::CONTENT_MAX_BYTES
    );
    f.published("big", "Big", &content).await;
    let got = fresh(f.service.get_blog(&f.key(), "big", None).await.unwrap());
    assert_eq!(got.content.len(), content.len());
    assert!(got.content == content);
}

/// The delivery log keeps the newest 100, newest first.
pub async fn delivery_log_keeps_newest_100(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    for i in 0..105u16 {
        let d = Delivery::new(
            DeliveryId::generate(),
            Trigger::Published,
            Some(format!("post-{i}")),
            Timestamp::from_unix_seconds(1_700_000_000 + i64::from(i)).unwrap(),
            i % 2 == 0,
            200 + i,
            "ok".into(),
            u64::from(i),
        );
        store.record_delivery(f.project, &d).await.unwrap();
    }
    let log = store.deliveries(f.project).await.unwrap();
    assert_eq!(log.len(), 100);
    assert_eq!(log[0].blog_slug.as_deref(), Some("post-104"));
    assert_eq!(log[99].blog_slug.as_deref(), Some("post-5"));
    assert_eq!(log[0].status_code, 304);
}

/// The deploy hook URL is saved, replaced and cleared.
pub async fn deploy_hook_is_saved_replaced_and_cleared(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    assert_eq!(store.deploy_hook(f.project).await.unwrap(), None);
    store
        .set_deploy_hook(f.project, Some("https://api.netlify.com/build_hooks/abc"))
        .await
        .unwrap();
    store
        .set_deploy_hook(f.project, Some("https://api.netlify.com/build_hooks/def"))
        .await
        .unwrap();
    assert_eq!(
        store.deploy_hook(f.project).await.unwrap().as_deref(),
        Some("https://api.netlify.com/build_hooks/def")
    );
    store.set_deploy_hook(f.project, None).await.unwrap();
    assert_eq!(store.deploy_hook(f.project).await.unwrap(), None);
}

/// The management list filters by status and pages.
pub async fn management_list_filters_by_status(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    f.draft("d1", "D1", "").await;
    f.draft("d2", "D2", "").await;
    f.published("p1", "P1", "").await;
    let all = f
        .service
        .blogs(&f.admin, f.project, None, RawListParams::default())
        .await
        .unwrap();
    assert_eq!(all.total, 3);
    let drafts = f
        .service
        .blogs(
            &f.admin,
            f.project,
            Some(BlogStatus::Draft),
            RawListParams {
                limit: Some("1".to_owned()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!((drafts.total, drafts.blogs.len()), (2, 1));
}

async fn content_version(f: &Fixture) -> u64 {
    f.service
        .store()
        .project_by_public_key(&SecretHash::of(&f.public_key))
        .await
        .expect("look-up")
        .expect("the fixture's key is valid")
        .content_version
}

async fn category_total(f: &Fixture, category: &str) -> (u64, Vec<String>) {
    let l = list(
        f,
        RawListParams {
            category: Some(category.to_owned()),
            ..Default::default()
        },
    )
    .await;
    (
        l.total,
        l.blogs
            .into_iter()
            .map(|b| b.fields.slug().to_string())
            .collect(),
    )
}

/// Deleting a published blog bumps the content version (in the same write); deleting a
/// draft or an unpublished blog, and editing, do not.
pub async fn delete_bumps_the_content_version_only_when_published(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let auth = &f.admin;
    let draft = f.draft("draft", "Draft", "").await;
    let published = f.published("published", "Published", "").await;
    let v0 = content_version(&f).await;
    f.service
        .edit_blog(
            auth,
            f.project,
            blog_id(&published),
            BlogInput {
                title: Some("Edited".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        content_version(&f).await,
        v0,
        "an edit changes nothing public"
    );
    f.service
        .delete_blog(auth, f.project, blog_id(&draft))
        .await
        .unwrap();
    assert_eq!(content_version(&f).await, v0, "a draft was never visible");
    f.service
        .delete_blog(auth, f.project, blog_id(&published))
        .await
        .unwrap();
    assert!(
        content_version(&f).await > v0,
        "a published blog disappeared"
    );
    let unpublished = f.published("unpublished", "U", "").await;
    f.service
        .unpublish_blog(auth, f.project, blog_id(&unpublished))
        .await
        .unwrap();
    let v1 = content_version(&f).await;
    f.service
        .delete_blog(auth, f.project, blog_id(&unpublished))
        .await
        .unwrap();
    assert_eq!(content_version(&f).await, v1, "it was no longer visible");
    let l = list(&f, RawListParams::default()).await;
    assert_eq!(
        (l.total, l.blogs.len()),
        (0, 0),
        "the total followed every move"
    );
    let again = f.published("again", "Again", "").await;
    f.publish(&again, None).await;
    assert_eq!(
        list(&f, RawListParams::default()).await.total,
        1,
        "a re-sync counts once"
    );
}

/// A change that fails (a lifecycle rule, a taken slug) writes nothing: the blog, its slugs
/// and the content version stay as they were.
pub async fn failed_changes_write_nothing(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    let b = f.published("mine", "Mine", "<p>1</p>").await;
    f.published("theirs", "Theirs", "").await;
    let id = blog_id(&b);
    let before = store.blog(f.project, id).await.unwrap().unwrap();
    let v0 = content_version(&f).await;
    let err = store
        .update_blog(
            f.project,
            id,
            crate::store::BlogUpdate::new(
                Box::new(|blog| {
                    blog.updated_at = Timestamp::from_unix_seconds(0).unwrap();
                    Err(Error::Conflict("refused".into()))
                }),
                f.service.now(),
            ),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Conflict(_)));
    let err = f
        .service
        .edit_blog(
            &f.admin,
            f.project,
            id,
            BlogInput {
                slug: Some("theirs".into()),
                title: Some("Changed".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    assert_eq!(store.blog(f.project, id).await.unwrap().unwrap(), before);
    assert_eq!(content_version(&f).await, v0);
    // The slug it holds is still its own: a rename to a free slug works.
    f.service
        .edit_blog(
            &f.admin,
            f.project,
            id,
            BlogInput {
                slug: Some("free".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(matches!(
        store
            .update_blog(
                f.project,
                crate::domain::BlogId::generate(),
                crate::store::BlogUpdate::new(Box::new(|_| Ok(None)), f.service.now())
            )
            .await,
        Err(Error::NotFound(NotFound::Blog))
    ));
}

/// The category filter follows the published snapshot: an edit of the working copy's
/// categories shows at the next publish, and unpublish and delete remove the blog from it.
/// The filtered list is ordered by the snapshot's `published_at`, which a re-sync or a
/// publish after an unpublish keeps: not by id, nor by the newer `updated_at` they set.
pub async fn category_filter_follows_the_published_snapshot(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let auth = &f.admin;
    let b = f
        .draft_with(BlogInput {
            title: Some("B".into()),
            slug: Some("b".into()),
            categories: Some(vec!["Rust".into(), "rust".into(), "Web".into()]),
            ..Default::default()
        })
        .await;
    let id = blog_id(&b);
    // `b` is created first (the smaller id) but first published later than `other`.
    f.publish(&b, Some("2025-01-03T00:00:00Z")).await;
    let other = f
        .draft_with(BlogInput {
            title: Some("Other".into()),
            slug: Some("other".into()),
            categories: Some(vec!["RUST".into()]),
            ..Default::default()
        })
        .await;
    f.publish(&other, Some("2025-01-02T00:00:00Z")).await;
    assert_eq!(
        category_total(&f, "rust").await,
        (2, vec!["b".into(), "other".into()]),
        "a blog listing one category twice (in two cases) counts once; newest published_at first"
    );
    f.service
        .edit_blog(
            auth,
            f.project,
            id,
            BlogInput {
                categories: Some(vec!["Go".into()]),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(category_total(&f, "rust").await.0, 2, "edits stay private");
    assert_eq!(category_total(&f, "go").await.0, 0);
    f.clock.advance(1);
    f.publish(&b, None).await;
    assert_eq!(category_total(&f, "rust").await.0, 1);
    assert_eq!(category_total(&f, "web").await.0, 0);
    assert_eq!(category_total(&f, "go").await, (1, vec!["b".into()]));
    f.service
        .edit_blog(
            auth,
            f.project,
            id,
            BlogInput {
                categories: Some(vec!["Rust".into()]),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    f.clock.advance(1);
    f.publish(&b, None).await;
    assert_eq!(
        category_total(&f, "rust").await,
        (2, vec!["b".into(), "other".into()]),
        "back in the filter, at the published_at the re-sync kept"
    );
    f.clock.advance(1);
    f.publish(&other, None).await;
    assert_eq!(
        category_total(&f, "rust").await,
        (2, vec!["b".into(), "other".into()]),
        "a re-sync (the newest updated_at) does not move a blog in the filtered order"
    );
    f.service.unpublish_blog(auth, f.project, id).await.unwrap();
    assert_eq!(category_total(&f, "rust").await, (1, vec!["other".into()]));
    f.clock.advance(1);
    f.publish(&b, None).await;
    assert_eq!(
        category_total(&f, "rust").await,
        (2, vec!["b".into(), "other".into()]),
        "publishing again keeps the first published_at"
    );
    f.service.delete_blog(auth, f.project, id).await.unwrap();
    assert_eq!(category_total(&f, "rust").await, (1, vec!["other".into()]));
}

/// Deleting a blog frees its slugs; re-syncing a renamed blog frees its old published slug.
pub async fn slugs_are_freed_by_delete_and_by_resync(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let auth = &f.admin;
    let a = f.published("old-name", "A", "").await;
    f.service
        .edit_blog(
            auth,
            f.project,
            blog_id(&a),
            BlogInput {
                slug: Some("new-name".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    f.publish(&a, None).await;
    f.draft("old-name", "Takes the freed slug", "").await;
    f.service
        .delete_blog(auth, f.project, blog_id(&a))
        .await
        .unwrap();
    f.draft("new-name", "Takes the deleted blog's slug", "")
        .await;
}

/// Link resolution's look-up answers only the published slugs of the project, by their
/// published title, and an empty request with an empty answer.
pub async fn published_titles_answer_only_published_slugs_of_the_project(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    let other = f.another(None).await;
    f.published("one", "One ✓", "").await;
    f.published("two", "Two", "").await;
    f.draft("draft", "Draft", "").await;
    other.published("elsewhere", "Elsewhere", "").await;
    let wanted: Vec<String> = ["one", "two", "draft", "elsewhere", "missing", "one"]
        .into_iter()
        .map(String::from)
        .collect();
    let titles = store.published_titles(f.project, &wanted).await.unwrap();
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert_eq!(titles["one"], "One ✓");
    assert_eq!(titles["two"], "Two");
    assert!(
        store
            .published_titles(f.project, &[])
            .await
            .unwrap()
            .is_empty()
    );
}

/// Blogs created at once with the same slug: exactly one gets it, the others a conflict.
pub async fn concurrent_creates_with_one_slug_let_exactly_one_win(store: Arc<dyn Store>) {
    let f = Arc::new(Fixture::new(store, None).await);
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let f = f.clone();
            tokio::spawn(async move {
                f.service
                    .create_blog(
                        &f.admin,
                        f.project,
                        BlogInput {
                            title: Some(format!("Racer {i}")),
                            slug: Some("contested".into()),
                            ..Default::default()
                        },
                    )
                    .await
            })
        })
        .collect();
    let mut won = 0;
    for t in tasks {
        match t.await.expect("task") {
            Ok(_) => won += 1,
            Err(Error::Conflict(_)) => {}
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(won, 1);
}

/// The management list is newest created first, ids breaking ties, and pages by offset.
pub async fn management_list_is_newest_created_first(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    for slug in ["a", "b", "c"] {
        f.draft(slug, slug, "").await;
    }
    f.clock.advance(5);
    f.draft("d", "d", "").await;
    let all = f
        .service
        .blogs(&f.admin, f.project, None, RawListParams::default())
        .await
        .unwrap();
    let got: Vec<_> = all
        .blogs
        .iter()
        .map(|b| b.working.slug().as_str())
        .collect();
    assert_eq!(
        got,
        ["d", "c", "b", "a"],
        "ids are time-ordered within a second"
    );
    let page = f
        .service
        .blogs(
            &f.admin,
            f.project,
            None,
            RawListParams {
                limit: Some("2".to_owned()),
                offset: Some("3".to_owned()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!((page.total, page.blogs.len()), (4, 1));
    assert_eq!(page.blogs[0].working.slug(), "a");
}

/// Two concurrent project updates of different fields (one the name, one the site URL) both
/// apply: neither writes back a stale copy of the other's field.
pub async fn concurrent_updates_of_different_project_fields_both_apply(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    for round in 0..20 {
        let name = format!("Renamed {round}");
        let url = format!("https://site{round}.example");
        let rename = f.service.update_project(
            &f.admin,
            f.project,
            ProjectUpdate {
                name: Some(name.clone()),
                ..Default::default()
            },
        );
        let move_site = f.service.update_project(
            &f.admin,
            f.project,
            ProjectUpdate {
                site_url: Some(Some(url.clone())),
                ..Default::default()
            },
        );
        let (a, b) = tokio::join!(rename, move_site);
        assert_eq!(a.unwrap().name.as_str(), name);
        assert_eq!(
            b.unwrap().site_url.map(|u| u.as_str().to_owned()),
            Some(url.clone())
        );
        let project = f.service.project(&f.admin, f.project).await.unwrap();
        assert_eq!(
            (
                project.name.as_str(),
                project.site_url.as_ref().map(|u| u.as_str())
            ),
            (name.as_str(), Some(url.as_str())),
            "round {round}: both changes apply"
        );
    }
}

/// Every project is listed, oldest first, for the operator only; a program finds its own
/// project again by name.
pub async fn projects_are_listed_oldest_first_and_found_by_name(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    f.clock.advance(1);
    let other = f.another(None).await;
    let me = Caller::operator();
    let listed: Vec<crate::domain::ProjectId> = f
        .service
        .projects(&me)
        .await
        .unwrap()
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(listed, vec![f.project, other.project]);
    let found = f
        .service
        .project_by_name(&me, "Other project")
        .await
        .unwrap()
        .expect("found by name");
    assert_eq!(found.id, other.project);
    assert!(
        f.service
            .project_by_name(&me, "other project")
            .await
            .unwrap()
            .is_none(),
        "names match exactly"
    );
    assert!(matches!(
        f.service.projects(&f.admin).await,
        Err(Error::Forbidden(_))
    ));
}

/// The operator lists the projects a page at a time, oldest first (creation time, then id),
/// with the total and the applied, clamped limit and offset; a project admin is 403 and no
/// credential 401.
pub async fn projects_are_paged_oldest_first_for_the_operator_only(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let mut ids = vec![f.project];
    for i in 0..4 {
        // Two projects per second: ties on the creation time are broken by id.
        if i % 2 == 0 {
            f.clock.advance(1);
        }
        ids.push(f.another(None).await.project);
    }
    let mut expected = ids.clone();
    expected.sort_by_key(|id| {
        let created = ids.iter().position(|i| i == id).unwrap() as i64;
        ((created + 1) / 2, *id)
    });
    let me = &f.operator;
    let page = |limit: &str, offset: &str| RawListParams {
        limit: Some(limit.to_owned()),
        offset: Some(offset.to_owned()),
        ..Default::default()
    };
    let mut seen = Vec::new();
    for offset in ["0", "2", "4"] {
        let list = f
            .service
            .list_projects(me, page("2", offset))
            .await
            .expect("a page");
        assert_eq!(list.total, 5);
        assert_eq!(list.limit, 2);
        assert_eq!(list.offset, offset.parse::<u64>().unwrap());
        seen.extend(list.projects.iter().map(|p| p.id));
    }
    assert_eq!(seen, expected, "oldest first, ties by id, each once");
    let all = f
        .service
        .list_projects(me, RawListParams::default())
        .await
        .unwrap();
    assert_eq!((all.limit, all.offset, all.projects.len()), (50, 0, 5));
    assert_eq!(all.projects[0].name.as_str(), "Test project");
    let clamped = f
        .service
        .list_projects(me, page("1000", "-3"))
        .await
        .unwrap();
    assert_eq!((clamped.limit, clamped.offset), (100, 0));
    let beyond = f.service.list_projects(me, page("10", "99")).await.unwrap();
    assert!(beyond.projects.is_empty());
    assert_eq!(beyond.total, 5);
    assert!(matches!(
        f.service.list_projects(me, page("ten", "0")).await,
        Err(Error::BadRequest(_))
    ));
    assert!(matches!(
        f.service
            .list_projects(&f.admin, RawListParams::default())
            .await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        f.service
            .list_projects(&Caller::anonymous(), page("ten", "0"))
            .await,
        Err(Error::Unauthorized(_))
    ));
}

/// A write that changes what the public sees records its firing only when the project has a
/// deploy hook; a recorded firing is claimed once, however many claim at the same moment, and
/// forgotten once.
pub async fn recorded_firings_are_claimed_once_and_only_with_a_hook(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    let now = crate::domain::Timestamp::now();
    f.published("a", "A", "").await;
    // The publish starts a background attempt of the project's unclaimed firings; let it end
    // before any firing exists, or it could claim the one this case records below.
    assert!(
        f.service
            .wait_for_firings(std::time::Duration::from_secs(10))
            .await
    );
    assert!(
        store.claim_firings(None, now).await.unwrap().is_empty(),
        "no hook, no firing"
    );
    store
        .set_deploy_hook(f.project, Some("https://hooks.example.com/build"))
        .await
        .unwrap();
    let draft = f.draft("b", "B", "").await;
    let (published, _) = store
        .update_blog(
            f.project,
            blog_id(&draft),
            crate::store::BlogUpdate::new(
                Box::new(move |b| crate::lifecycle::publish(b, None, now)),
                now,
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        published.state.status(),
        crate::domain::BlogStatus::Published
    );
    let other = f.another(None).await;
    let (mine, all) = tokio::join!(
        store.claim_firings(Some(f.project), now),
        store.claim_firings(None, now)
    );
    let claimed: Vec<_> = mine.unwrap().into_iter().chain(all.unwrap()).collect();
    assert_eq!(claimed.len(), 1, "claimed once: {claimed:?}");
    let firing = &claimed[0];
    assert_eq!(
        (firing.project, firing.trigger, firing.slug.as_str()),
        (f.project, crate::domain::Trigger::Published, "b")
    );
    assert!(
        store
            .claim_firings(Some(other.project), now)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.complete_firing(firing, None).await.unwrap());
    assert!(
        !store.complete_firing(firing, None).await.unwrap(),
        "forgotten once"
    );
}

/// A post published with a future time is scheduled: no public path shows it (list, total,
/// single, sitemap, link resolution) until the clock reaches its time; the first read after
/// that shows it everywhere, with an ETag no earlier answer had, and records the go-live.
pub async fn scheduled_posts_are_public_from_their_time_on_every_read_path(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some("https://www.example.com")).await;
    f.published("linker", "Linker", "<p>[INTERNAL:later]</p>")
        .await;
    let draft = f.draft("later", "Later", "<p>soon</p>").await;
    let scheduled = f.publish(&draft, Some("2026-01-01T01:00:00Z")).await;
    assert_eq!(scheduled.status, BlogStatus::Scheduled);

    let page = list(&f, RawListParams::default()).await;
    assert_eq!((slugs(&page), page.total), (vec!["linker"], 1));
    assert!(matches!(
        f.service.get_blog(&f.key(), "later", None).await,
        Err(Error::NotFound(_))
    ));
    let sitemap = fresh(f.service.sitemap(&f.key(), None).await.unwrap());
    assert_eq!(sitemap.blogs.len(), 1);
    let linker = fresh(f.service.get_blog(&f.key(), "linker", None).await.unwrap());
    assert!(
        !linker.content.contains("/blog/later/"),
        "no link to a post before its time: {}",
        linker.content
    );
    let etag_before = etag_of_list(&f).await;

    f.clock
        .set(Timestamp::parse("2026-01-01T01:00:01Z").unwrap());
    let after = f
        .service
        .list_blogs(&f.key(), RawListParams::default(), Some(&etag_before))
        .await
        .unwrap();
    assert!(
        after.into_value().is_some(),
        "never a 304 for an answer a go-live changed"
    );
    assert_ne!(etag_of_list(&f).await, etag_before);
    let page = list(&f, RawListParams::default()).await;
    assert_eq!((slugs(&page), page.total), (vec!["later", "linker"], 2));
    let single = fresh(f.service.get_blog(&f.key(), "later", None).await.unwrap());
    assert_eq!(
        single.published_at,
        Timestamp::parse("2026-01-01T01:00:00Z").unwrap()
    );
    assert_eq!(
        fresh(f.service.sitemap(&f.key(), None).await.unwrap())
            .blogs
            .len(),
        2
    );
    let linker = fresh(f.service.get_blog(&f.key(), "linker", None).await.unwrap());
    assert!(
        linker
            .content
            .contains("https://www.example.com/blog/later/"),
        "{}",
        linker.content
    );
    let managed = f
        .service
        .blog(&f.admin, f.project, blog_id(&draft))
        .await
        .unwrap();
    assert_eq!(
        managed.status,
        BlogStatus::Published,
        "the read recorded the go-live"
    );
}

async fn etag_of_list(f: &Fixture) -> String {
    f.service
        .list_blogs(&f.key(), RawListParams::default(), None)
        .await
        .unwrap()
        .etag()
        .to_owned()
}

/// The store reports which projects have posts due and the next go-live; recording a
/// project's go-live from two writers at once publishes it once, with one recorded firing.
pub async fn a_go_live_is_applied_once_with_one_firing(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    store
        .set_deploy_hook(f.project, Some("https://hooks.example.com/build"))
        .await
        .unwrap();
    let first = f.draft("first", "First", "").await;
    let second = f.draft("second", "Second", "").await;
    f.publish(&second, Some("2026-01-03T00:00:00Z")).await;
    f.publish(&first, Some("2026-01-02T00:00:00Z")).await;
    let t = |s: &str| Timestamp::parse(s).unwrap();
    assert_eq!(
        store.next_go_live().await.unwrap(),
        Some(t("2026-01-02T00:00:00Z"))
    );
    assert!(
        store
            .projects_due(t("2026-01-01T23:59:59Z"))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .claim_firings(None, t("2026-01-01T00:00:00Z"))
            .await
            .unwrap()
            .is_empty(),
        "scheduling fires nothing"
    );
    let now = t("2026-01-02T00:00:00Z");
    assert_eq!(store.projects_due(now).await.unwrap(), vec![f.project]);
    let version = content_version(&f).await;
    let (a, b) = tokio::join!(store.go_live(f.project, now), store.go_live(f.project, now));
    assert_eq!(a.unwrap() + b.unwrap(), 1, "published once");
    assert_eq!(content_version(&f).await, version + 1);
    let firings = store.claim_firings(None, now).await.unwrap();
    assert_eq!(firings.len(), 1, "{firings:?}");
    assert_eq!(
        (firings[0].trigger, firings[0].slug.as_str()),
        (Trigger::Published, "first")
    );
    assert!(store.projects_due(now).await.unwrap().is_empty());
    assert_eq!(
        store.go_live(f.project, now).await.unwrap(),
        0,
        "nothing left"
    );
    assert_eq!(
        store.next_go_live().await.unwrap(),
        Some(t("2026-01-03T00:00:00Z"))
    );
    let page = list(&f, RawListParams::default()).await;
    assert_eq!(slugs(&page), vec!["first"]);
}

/// Many posts of a project scheduled for the same second go live together, in one write
/// (the content version moves once), each public on every read path with its categories,
/// each freeing the alias its slug names, each with one `published` firing; another
/// project's due posts are left to that project's own go-live.
pub async fn a_projects_due_posts_go_live_together_in_one_write(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    let other = f.another(None).await;
    // "renamed" was published as "launch" and renamed: "launch" is its alias until a post
    // publishes that slug.
    let renamed = f.draft("launch", "Renamed", "").await;
    f.publish(&renamed, None).await;
    f.rename(&renamed, "renamed").await;
    f.publish(&renamed, None).await;
    // As many as the attack that once made every read of the project walk them one write
    // each.
    const MANY: usize = 400;
    let go_live_at = "2026-03-01T12:00:00Z";
    for i in 0..MANY {
        let slug = if i == 0 {
            "launch".to_owned()
        } else {
            format!("post-{i}")
        };
        let post = f
            .draft_with(BlogInput {
                title: Some(format!("Post {i}")),
                slug: Some(slug),
                categories: Some(vec!["Launch".into(), format!("c{}", i % 3)]),
                ..Default::default()
            })
            .await;
        f.publish(&post, Some(go_live_at)).await;
    }
    let elsewhere = other.draft("elsewhere", "Elsewhere", "").await;
    other.publish(&elsewhere, Some(go_live_at)).await;
    let now = Timestamp::parse(go_live_at).unwrap();
    let mut due = store.projects_due(now).await.unwrap();
    due.sort();
    let mut both = vec![f.project, other.project];
    both.sort();
    assert_eq!(due, both);

    // A hook only now, so that nothing but the go-live records a firing.
    store
        .set_deploy_hook(f.project, Some("https://hooks.example.com/build"))
        .await
        .unwrap();
    let version = content_version(&f).await;
    assert_eq!(store.go_live(f.project, now).await.unwrap(), MANY as u64);
    assert_eq!(content_version(&f).await, version + 1, "one write");
    assert_eq!(
        store.projects_due(now).await.unwrap(),
        vec![other.project],
        "the other project's post waits for its own go-live"
    );
    let firings = store.claim_firings(None, now).await.unwrap();
    assert_eq!(
        firings.len(),
        MANY,
        "one firing each, none for the other project"
    );
    assert!(
        firings
            .iter()
            .all(|x| x.trigger == Trigger::Published && x.project == f.project)
    );

    f.clock.set(now);
    let page = list(
        &f,
        RawListParams {
            limit: Some("100".into()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(page.total, MANY as u64 + 1);
    let launch = list(
        &f,
        RawListParams {
            category: Some("launch".into()),
            limit: Some("100".into()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(launch.total, MANY as u64, "every one in its category");
    let c1 = list(
        &f,
        RawListParams {
            category: Some("C1".into()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(c1.total, (0..MANY).filter(|i| i % 3 == 1).count() as u64);
    let single = f.service.get_blog(&f.key(), "launch", None).await.unwrap();
    assert_eq!(
        fresh(single).fields.title(),
        "Post 0",
        "the alias was freed for the new post"
    );
    let redirects = fresh(f.service.redirects(&f.key(), None).await.unwrap());
    assert!(redirects.redirects.is_empty(), "{:?}", redirects.redirects);
}

/// Public reads that all find the same go-live due at once record it once: every one of them
/// answers with the posts public, and the content version moves once.
pub async fn concurrent_reads_at_a_go_live_record_it_once(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    for i in 0..20 {
        let post = f
            .draft(&format!("post-{i}"), &format!("Post {i}"), "")
            .await;
        f.publish(&post, Some("2026-03-01T12:00:00Z")).await;
    }
    let version = content_version(&f).await;
    f.clock
        .set(Timestamp::parse("2026-03-01T12:00:00Z").unwrap());
    let reads = (0..8).map(|_| async {
        fresh(
            f.service
                .list_blogs(&f.key(), RawListParams::default(), None)
                .await
                .unwrap(),
        )
        .total
    });
    let totals = futures_util::future::join_all(reads).await;
    assert!(totals.iter().all(|t| *t == 20), "{totals:?}");
    assert_eq!(content_version(&f).await, version + 1);
}

/// Every store keeps the link template of a published body with placeholders, compiled before
/// the write, and its public reads give the template (not the body) to fill; a body without
/// placeholders is read as it is; an unpublished body's template goes with it.
pub async fn every_store_reads_a_published_body_through_its_template(store: Arc<dyn Store>) {
    let f = Fixture::new(store.clone(), None).await;
    f.published("target", "Target", "<p>t</p>").await;
    let linking = f
        .published("linking", "Linking", "<p>See [INTERNAL:target].</p>")
        .await;
    let read = |slug: &'static str| {
        let store = store.clone();
        let project = f.project;
        async move {
            store
                .published_by_slug(project, slug)
                .await
                .unwrap()
                .unwrap()
        }
    };
    let with_links = read("linking").await;
    let template = with_links
        .template
        .expect("a template for a body with placeholders");
    assert_eq!(with_links.content, None, "the body itself is not read");
    assert_eq!(template.slugs(), ["target"]);
    let plain = read("target").await;
    assert_eq!(
        (plain.template, plain.content.as_deref()),
        (None, Some("<p>t</p>"))
    );
    let page = store
        .published_page(
            f.project,
            &PageQuery {
                limit: 10,
                offset: 0,
                category: None,
                include_content: true,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        page.blogs.iter().filter(|b| b.template.is_some()).count(),
        1
    );
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&linking))
        .await
        .unwrap();
    f.publish(&linking, None).await;
    assert!(read("linking").await.template.is_some(), "compiled again");
}

/// A scheduled post holds its slug like a published one; unscheduling returns it to draft and
/// frees the scheduled slug; management lists filter on `scheduled`.
pub async fn unschedule_returns_to_draft_and_frees_the_scheduled_slug(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let post = f.draft("launch", "Launch", "").await;
    f.publish(&post, Some("2026-02-01T00:00:00Z")).await;
    f.rename(&post, "launch-day").await;
    let taken = f.try_draft("launch", "Other").await;
    assert!(matches!(taken, Err(Error::Conflict(_))), "{taken:?}");
    let scheduled = f
        .service
        .blogs(
            &f.admin,
            f.project,
            Some(BlogStatus::Scheduled),
            RawListParams::default(),
        )
        .await
        .unwrap();
    assert_eq!(scheduled.total, 1);
    let back = f
        .service
        .unschedule_blog(&f.admin, f.project, blog_id(&post))
        .await
        .unwrap();
    assert_eq!((back.blog.status, back.event), (BlogStatus::Draft, None));
    assert_eq!(back.blog.published_at, None);
    f.draft("launch", "Other", "").await;
    assert!(matches!(
        f.service
            .unschedule_blog(&f.admin, f.project, blog_id(&post))
            .await,
        Err(Error::Conflict(_))
    ));
}

async fn rename(f: &Fixture, blog: &crate::domain::ManagedBlog, to: &str) {
    f.clock.advance(1);
    f.rename(blog, to).await;
    let w = f
        .service
        .publish_blog(&f.admin, f.project, blog_id(blog), None)
        .await
        .unwrap();
    assert_eq!(w.event, Some(Trigger::Updated));
}

async fn redirect_pairs(f: &Fixture) -> Vec<(String, String)> {
    fresh(f.service.redirects(&f.key(), None).await.unwrap())
        .redirects
        .into_iter()
        .map(|r| (r.from, r.to))
        .collect()
}

/// A re-sync that publishes a new slug keeps the old one as an alias: placeholders naming it
/// resolve to the post's current link and title, the single-blog endpoint stays 404 for it
/// with a detail naming the current slug, and the redirects list it; another post publishing
/// that slug frees it.
pub async fn renamed_posts_keep_their_old_slug_for_links_and_redirects(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some("https://www.example.com")).await;
    let post = f.published("old-name", "The post", "<p>body</p>").await;
    f.published(
        "linker",
        "Linker",
        "<p>[INTERNAL:old-name]</p><a href=\"[INTERNAL:old-name]\">read</a>",
    )
    .await;
    rename(&f, &post, "new-name").await;

    let err = f
        .service
        .get_blog(&f.key(), "old-name", None)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::NotFound(NotFound::RenamedBlog { current }) if current == "new-name"),
        "{err:?}"
    );
    assert!(err.to_string().contains("`new-name`"), "{err}");
    let linker = fresh(f.service.get_blog(&f.key(), "linker", None).await.unwrap());
    assert_eq!(
        linker.content,
        "<p><a href=\"https://www.example.com/blog/new-name/\">The post</a></p>\
         <a href=\"https://www.example.com/blog/new-name/\">read</a>"
    );
    assert_eq!(
        redirect_pairs(&f).await,
        vec![("old-name".to_owned(), "new-name".to_owned())]
    );

    let taker = f.published("old-name", "Newcomer", "").await;
    assert!(
        redirect_pairs(&f).await.is_empty(),
        "publishing the slug frees it"
    );
    let linker = fresh(f.service.get_blog(&f.key(), "linker", None).await.unwrap());
    assert!(
        linker.content.contains(">Newcomer</a>"),
        "the slug now names the newcomer: {}",
        linker.content
    );
    assert_eq!(taker.working.slug(), "old-name");
}

/// Bodies are compiled at publish and linked at read: whatever the state of the targets
/// (draft, published, renamed, unpublished) and after a re-sync of the linking post with a new
/// body, the list with content and the single blog give exactly what the full resolver gives
/// for the body as published, in the targets' state at that read.
pub async fn compiled_bodies_link_like_the_full_resolver_at_every_read(store: Arc<dyn Store>) {
    use crate::links::{LinkContext, resolve};
    let f = Fixture::new(store, Some("https://www.example.com/")).await;
    let first = "<p>See [INTERNAL:target] &amp; <a href=\"[INTERNAL:target]#part\" class=x>the \
                 <em>part</em></a>.</p><img alt=\"about [INTERNAL:target]\" src=a.png>\
                 <script>go('[INTERNAL:target]')</script><p>[INTERNAL:missing]</p>";
    let target = f.draft("target", "Target & <Co>", "<p>t</p>").await;
    let linker = f.published("linker", "Linker", first).await;
    let check = |body: &'static str, ctx: LinkContext| {
        let f = &f;
        async move {
            let want = resolve(body, &ctx).into_owned();
            let single = fresh(f.service.get_blog(&f.key(), "linker", None).await.unwrap());
            assert_eq!(single.content, want);
            assert_eq!(single.word_count, crate::word_count::word_count(&want));
            let list = fresh(
                f.service
                    .list_blogs(&f.key(), ListParams::new().with_content(), None)
                    .await
                    .unwrap(),
            );
            let item = list
                .blogs
                .iter()
                .find(|b| b.fields.slug() == "linker")
                .unwrap();
            assert_eq!(item.content.as_deref(), Some(want.as_str()));
        }
    };
    let site = Some("https://www.example.com/");
    let titled = |slug: &str, title: &str| {
        std::collections::HashMap::from([(slug.to_owned(), title.to_owned())])
    };
    check(first, LinkContext::new(site, Default::default())).await;

    f.publish(&target, None).await;
    check(
        first,
        LinkContext::new(site, titled("target", "Target & <Co>")),
    )
    .await;

    rename(&f, &target, "moved").await;
    check(
        first,
        LinkContext::new(site, titled("moved", "Target & <Co>")).with_aliases(
            std::collections::HashMap::from([("target".to_owned(), "moved".to_owned())]),
        ),
    )
    .await;

    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&target))
        .await
        .unwrap();
    check(first, LinkContext::new(site, Default::default())).await;

    // A re-sync with a new body compiles it anew.
    let second = "<p>Now only [INTERNAL:moved] and [INTERNAL:linker].</p>";
    f.service
        .edit_blog(
            &f.admin,
            f.project,
            blog_id(&linker),
            BlogInput {
                content: Some(second.into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    f.publish(&linker, None).await;
    check(second, LinkContext::new(site, titled("linker", "Linker"))).await;
}

/// Aliases are listed only while their post is published, newest rename first, and go with
/// the post when it is deleted.
pub async fn redirects_follow_their_post_and_list_newest_first(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let a = f.published("a-1", "A", "").await;
    let b = f.published("b-1", "B", "").await;
    rename(&f, &a, "a-2").await;
    rename(&f, &b, "b-2").await;
    rename(&f, &a, "a-3").await;
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(x, y)| (x.to_string(), y.to_string()))
            .collect()
    };
    assert_eq!(
        redirect_pairs(&f).await,
        pairs(&[("a-2", "a-3"), ("b-1", "b-2"), ("a-1", "a-3")])
    );
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&a))
        .await
        .unwrap();
    assert_eq!(redirect_pairs(&f).await, pairs(&[("b-1", "b-2")]));
    f.service
        .publish_blog(&f.admin, f.project, blog_id(&a), None)
        .await
        .unwrap();
    assert_eq!(redirect_pairs(&f).await.len(), 3, "kept while unpublished");
    rename(&f, &a, "a-1").await;
    assert_eq!(
        redirect_pairs(&f).await,
        pairs(&[("a-3", "a-1"), ("a-2", "a-1"), ("b-1", "b-2")]),
        "renaming back to an old slug frees that alias"
    );
    f.service
        .delete_blog(&f.admin, f.project, blog_id(&a))
        .await
        .unwrap();
    assert_eq!(redirect_pairs(&f).await, pairs(&[("b-1", "b-2")]));
    assert!(matches!(
        f.service.get_blog(&f.key(), "a-2", None).await,
        Err(Error::NotFound(NotFound::PublishedBlog))
    ));
}

/// An admin session acts as what it was signed in with: the operator may do everything, a
/// project admin what its token may (its own project, never operator-only operations). Only
/// the hash of the session id is stored.
pub async fn admin_sessions_act_as_the_credential_signed_in_with(store: Arc<dyn Store>) {
    use crate::auth::Principal;
    use crate::error::Forbidden;
    let f = Fixture::new(store, None).await;
    let other = f.another(None).await;

    let operator = f
        .service
        .sign_in(crate::testing::OPERATOR_TOKEN)
        .await
        .expect("the operator token signs in");
    assert_eq!(operator.principal, Principal::Operator);
    let stored = f
        .service
        .store()
        .admin_session(&operator.id.hash())
        .await
        .unwrap()
        .expect("stored by the hash of its id");
    assert_eq!(
        stored.expires_at.unix_seconds() - stored.created_at.unix_seconds(),
        12 * 3600
    );
    assert!(
        f.service
            .store()
            .admin_session(&SecretHash::of("ss_admin_not-the-id"))
            .await
            .unwrap()
            .is_none()
    );
    let signed_in = f
        .service
        .admin_session(operator.id.expose_secret())
        .await
        .unwrap();
    assert_eq!(signed_in.principal, Principal::Operator);
    assert_eq!(
        f.service.projects(&signed_in.caller).await.unwrap().len(),
        2
    );

    let admin = f
        .service
        .sign_in(&f.admin_token)
        .await
        .expect("an admin token signs in");
    assert_eq!(admin.principal, Principal::ProjectAdmin(f.project));
    let caller = f
        .service
        .admin_session(admin.id.expose_secret())
        .await
        .unwrap()
        .caller;
    f.service
        .reveal_public_key(&caller, f.project)
        .await
        .expect("its own project's settings");
    assert!(matches!(
        f.service.reveal_public_key(&caller, other.project).await,
        Err(Error::Forbidden(Forbidden::OtherProject))
    ));
    assert!(matches!(
        f.service.projects(&caller).await,
        Err(Error::Forbidden(Forbidden::OperatorOnly))
    ));
    assert!(matches!(
        f.service
            .list_blogs(&caller, RawListParams::default(), None)
            .await,
        Err(Error::Unauthorized(Unauthorized::MissingPublicKey))
    ));
}

/// Only the operator token and project admin tokens sign in: a public key and an agent key are
/// refused saying what to use, an unknown or empty token is refused, and nothing is stored.
pub async fn sign_in_refuses_public_keys_agent_keys_and_unknown_tokens(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let agent = f
        .service
        .create_agent_key(&f.admin, f.project)
        .await
        .unwrap()
        .key;
    for (token, kind) in [
        (f.public_key.as_str(), "public key"),
        (agent.as_str(), "agent key"),
    ] {
        match f.service.sign_in(token).await {
            Err(Error::Unauthorized(err @ Unauthorized::WrongKind { got, .. })) => {
                assert_eq!(got, kind);
                let message = err.to_string();
                assert!(message.contains("operator token"), "{message}");
                assert!(message.contains("sk_admin_"), "{message}");
            }
            other => panic!("{kind} signed in: {other:?}"),
        }
    }
    assert!(matches!(
        f.service.sign_in("sk_admin_unknown").await,
        Err(Error::Unauthorized(Unauthorized::UnknownToken))
    ));
    assert!(matches!(
        f.service
            .sign_in("operator-token-for-tests-but-wrong")
            .await,
        Err(Error::Unauthorized(Unauthorized::UnknownToken))
    ));
    assert!(matches!(
        f.service.sign_in("  ").await,
        Err(Error::Unauthorized(Unauthorized::EmptySignIn))
    ));
}

/// A session ends at sign-out, 12 hours after sign-in, and at once when its admin token is
/// revoked; expired sessions are forgotten when a new session is stored.
pub async fn admin_sessions_end_at_sign_out_after_12_hours_and_at_revocation(
    store: Arc<dyn Store>,
) {
    let f = Fixture::new(store, None).await;
    let ended = |r: crate::Result<crate::service::SignedIn>| {
        matches!(r, Err(Error::Unauthorized(Unauthorized::SessionEnded)))
    };

    let signed_out = f.service.sign_in(&f.admin_token).await.unwrap();
    f.service
        .sign_out(signed_out.id.expose_secret())
        .await
        .unwrap();
    assert!(ended(
        f.service.admin_session(signed_out.id.expose_secret()).await
    ));
    f.service
        .sign_out(signed_out.id.expose_secret())
        .await
        .expect("signing out twice is a success");

    let old = f
        .service
        .sign_in(crate::testing::OPERATOR_TOKEN)
        .await
        .unwrap();
    f.clock.advance(12 * 3600 - 1);
    f.service
        .admin_session(old.id.expose_secret())
        .await
        .expect("a second before its end");
    f.clock.advance(1);
    let kept = f
        .service
        .sign_in(crate::testing::OPERATOR_TOKEN)
        .await
        .unwrap();
    assert!(
        f.service
            .store()
            .admin_session(&old.id.hash())
            .await
            .unwrap()
            .is_none(),
        "storing a session forgets the expired ones"
    );
    assert!(ended(f.service.admin_session(old.id.expose_secret()).await));

    let issued = f
        .service
        .create_admin_token(&f.operator, f.project)
        .await
        .unwrap();
    let admin = f.service.sign_in(&issued.token).await.unwrap();
    f.service
        .admin_session(admin.id.expose_secret())
        .await
        .unwrap();
    f.service
        .delete_admin_token(&f.operator, f.project, issued.id)
        .await
        .unwrap();
    assert!(ended(
        f.service.admin_session(admin.id.expose_secret()).await
    ));
    assert!(
        f.service
            .store()
            .admin_session(&admin.id.hash())
            .await
            .unwrap()
            .is_none(),
        "revoking the token deletes its sessions"
    );
    f.service
        .admin_session(kept.id.expose_secret())
        .await
        .expect("other sessions go on");
    // A session for a token revoked meanwhile is not stored.
    let session = crate::domain::AdminSession {
        hash: SecretHash::of("ss_admin_late"),
        credential: crate::domain::SessionCredential::AdminToken {
            id: issued.id,
            project: f.project,
        },
        created_at: f.service.now(),
        expires_at: f.service.now(),
    };
    assert!(matches!(
        f.service.store().insert_admin_session(&session).await,
        Err(Error::NotFound(NotFound::AdminToken))
    ));
}

/// The operator lists a project's admin tokens, oldest first, without their secrets.
pub async fn admin_tokens_are_listed_oldest_first_without_secrets(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    f.clock.advance(1);
    let second = f
        .service
        .create_admin_token(&f.operator, f.project)
        .await
        .unwrap();
    let listed = f
        .service
        .admin_tokens(&f.operator, f.project)
        .await
        .unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[1].id, second.id);
    assert!(listed[0].created_at < listed[1].created_at);
    assert!(matches!(
        f.service.admin_tokens(&f.admin, f.project).await,
        Err(Error::Forbidden(_))
    ));
}

/// The preview of a draft resolves its internal links as the public API resolves them now:
/// the same text a published post with that body reads.
pub async fn preview_resolves_the_working_copy_links_as_the_public_api_would(
    store: Arc<dyn Store>,
) {
    let f = Fixture::new(store, Some("https://site.example")).await;
    f.published("target", "Target title", "<p>t</p>").await;
    let body = "<p>See [INTERNAL:target] and [INTERNAL:missing].</p>";
    let draft = f.draft("draft", "Draft", body).await;
    let preview = f
        .service
        .preview_blog(&f.admin, f.project, blog_id(&draft))
        .await
        .unwrap();
    let published = f.published("twin", "Twin", body).await;
    let public = fresh(
        f.service
            .get_blog(&f.key(), published.working.slug().as_str(), None)
            .await
            .unwrap(),
    );
    assert_eq!(preview, public.content);
    assert!(!preview.contains("[INTERNAL:target]"), "{preview}");
}

/// Expands to one `#[tokio::test]` per contract case, each on a fresh store built by the
/// given async expression (which may `return` early to skip, e.g. when no PostgreSQL is set).
///
/// `store_contract_tests!(make)` takes an `Option<Arc<dyn Store>>`;
/// `store_contract_tests!(guarded make)` takes an `Option<(Arc<dyn Store>, G)>` and keeps the
/// guard `G` (a temporary directory, a database to drop) alive until the case has finished.
#[macro_export]
macro_rules! store_contract_tests {
    (guarded $make:expr) => {
        $crate::store_contract_tests!(@cases $make;
            list_returns_only_published_newest_first,
            paging_under_equal_published_at_never_repeats_or_skips,
            deep_pages_under_ties_never_repeat_or_skip,
            limit_and_offset_echo_the_applied_values,
            category_filter_is_case_insensitive_with_filtered_total,
            include_content_adds_resolved_bodies,
            single_blog_has_content_updated_at_and_word_count,
            single_blog_is_404_unless_published_in_this_project,
            projects_are_isolated_even_with_the_same_slug,
            sitemap_caps_at_5000_newest_first,
            lifecycle_moves_report_their_events,
            edits_stay_private_until_resync,
            duplicate_slug_is_a_conflict_within_a_project_only,
            rotation_and_revocation_take_effect_at_once,
            agent_keys_and_admin_tokens_are_looked_up_by_hash,
            etag_changes_with_every_visible_change,
            bad_key_is_401_never_304,
            unicode_round_trips_in_every_text_field,
            largest_allowed_content_round_trips,
            delivery_log_keeps_newest_100,
            deploy_hook_is_saved_replaced_and_cleared,
            management_list_filters_by_status,
            delete_bumps_the_content_version_only_when_published,
            failed_changes_write_nothing,
            category_filter_follows_the_published_snapshot,
            slugs_are_freed_by_delete_and_by_resync,
            published_titles_answer_only_published_slugs_of_the_project,
            concurrent_creates_with_one_slug_let_exactly_one_win,
            management_list_is_newest_created_first,
            concurrent_updates_of_different_project_fields_both_apply,
            recorded_firings_are_claimed_once_and_only_with_a_hook,
            projects_are_listed_oldest_first_and_found_by_name,
            projects_are_paged_oldest_first_for_the_operator_only,
            scheduled_posts_are_public_from_their_time_on_every_read_path,
            a_go_live_is_applied_once_with_one_firing,
            a_projects_due_posts_go_live_together_in_one_write,
            concurrent_reads_at_a_go_live_record_it_once,
            unschedule_returns_to_draft_and_frees_the_scheduled_slug,
            renamed_posts_keep_their_old_slug_for_links_and_redirects,
            redirects_follow_their_post_and_list_newest_first,
            admin_sessions_act_as_the_credential_signed_in_with,
            sign_in_refuses_public_keys_agent_keys_and_unknown_tokens,
            admin_sessions_end_at_sign_out_after_12_hours_and_at_revocation,
            admin_tokens_are_listed_oldest_first_without_secrets,
            each_credential_kind_is_found_listed_and_deleted_on_its_own,
            preview_resolves_the_working_copy_links_as_the_public_api_would,
            compiled_bodies_link_like_the_full_resolver_at_every_read,
            every_store_reads_a_published_body_through_its_template,
            following_the_changes_feed_ends_equal_to_a_full_read,
            the_changes_feed_names_what_changed_and_only_that,
            changes_feed_cursors_are_checked_and_expire_with_the_retention,
            links_report_gives_each_placeholder_its_targets_state,
            links_report_follows_edits_and_target_changes,
            backlinks_name_the_posts_linking_by_slug_or_alias,
            publish_answers_carry_the_unresolved_links,
            reports_read_by_slug_agree_with_the_whole_report,
            links_judged_by_what_a_post_names_are_the_whole_projects,
            link_answers_are_pages_whatever_the_bodies_hold,
            answers_from_fragments_are_the_answers_from_rows,
            uploads_are_stored_listed_read_edited_and_deleted,
            identical_uploads_give_one_item_per_project,
            media_follow_the_blog_credential_rules,
            refused_uploads_store_nothing,
            served_files_are_found_by_their_exact_name_only,
            the_sweep_removes_only_old_files_without_a_row,
            media_usage_follows_featured_images_and_bodies_through_every_write,
            a_used_image_is_not_deleted_and_an_unused_one_is,
            featured_images_show_their_item_and_an_alt_edit_fires_once,
            featured_images_from_caches_are_the_answers_from_rows,
        );
    };
    ($make:expr) => {
        $crate::store_contract_tests!(guarded ($make).map(|store| (store, ())));
    };
    (@cases $make:expr; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let Some((store, _guard)) = $make else { return };
                $crate::testing::contract::$case(store).await;
            }
        )*
    };
}
