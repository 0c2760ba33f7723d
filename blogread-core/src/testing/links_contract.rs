//! The links report's part of the store contract (see [`super::contract`]): every store
//! lists each placeholder with its target's state, keeps the list as bodies and targets
//! change, answers backlinks, and publish answers carry what will not resolve.

use std::sync::Arc;

use crate::domain::{BlogInput, ManagedBlog, Timestamp};
use crate::links::report::{LinkState, Place};
use crate::read::ListParams;
use crate::service::{LinkEntry, LinkFilter};
use crate::store::{BodyCopy, Store};
use crate::testing::{Fixture, blog_id};

/// Every link target state at once: a published post, a renamed one (whose old slug is an
/// alias), a draft, a scheduled one, an unpublished one.
async fn targets(f: &Fixture) -> ManagedBlog {
    f.published("pub-t", "Published target", "<p>t</p>").await;
    let renamed = f.published("old-name", "Renamed target", "<p>r</p>").await;
    edit(
        f,
        &renamed,
        BlogInput {
            slug: Some("new-name".into()),
            ..Default::default()
        },
    )
    .await;
    f.publish(&renamed, None).await;
    f.draft("draft-t", "Draft target", "").await;
    let later = f.draft("later-t", "Later target", "").await;
    f.publish(&later, Some("2026-06-01T00:00:00Z")).await;
    let gone = f.published("gone-t", "Gone target", "").await;
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&gone))
        .await
        .expect("unpublish");
    renamed
}

async fn edit(f: &Fixture, blog: &ManagedBlog, patch: BlogInput) {
    f.service
        .edit_blog(&f.admin, f.project, blog_id(blog), patch)
        .await
        .expect("edit");
}

/// The linking body: one placeholder per state, in that order.
const LINKER: &str = r#"<p>[INTERNAL:pub-t] <a href="[INTERNAL:old-name]">old</a> [INTERNAL:draft-t] [INTERNAL:later-t]</p><img alt="[INTERNAL:gone-t]"><!-- [INTERNAL:nothing] --> [INTERNAL:Bad_Slug]"#;

async fn report(f: &Fixture, filter: LinkFilter, limit: u32, offset: u64) -> (Vec<LinkEntry>, u64) {
    let page = f
        .service
        .links(
            &f.admin,
            f.project,
            filter,
            ListParams {
                limit,
                offset,
                ..Default::default()
            },
        )
        .await
        .expect("links");
    (page.links, page.total)
}

fn states(entries: &[LinkEntry]) -> Vec<(BodyCopy, &str, LinkState)> {
    entries
        .iter()
        .map(|e| (e.copy, e.placeholder.as_str(), e.state))
        .collect()
}

/// Each placeholder of both bodies of a post is listed with its place and its target's state;
/// `broken` lists the states the public answer drops; the list pages.
pub async fn links_report_gives_each_placeholder_its_targets_state(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some("https://example.com")).await;
    targets(&f).await;
    let linker = f.published("linker", "Linker", LINKER).await;
    edit(
        &f,
        &linker,
        BlogInput {
            content: Some("<p>[INTERNAL:PUB-T]</p>".into()),
            ..Default::default()
        },
    )
    .await;
    let (all, total) = report(&f, LinkFilter::All, 100, 0).await;
    use BodyCopy::{Published, Working};
    use LinkState::*;
    assert_eq!(
        states(&all),
        vec![
            (Working, "[INTERNAL:PUB-T]", Resolved),
            (Published, "[INTERNAL:pub-t]", Resolved),
            (Published, "[INTERNAL:old-name]", Alias),
            (Published, "[INTERNAL:draft-t]", Draft),
            (Published, "[INTERNAL:later-t]", Scheduled),
            (Published, "[INTERNAL:gone-t]", Unpublished),
            (Published, "[INTERNAL:nothing]", Missing),
            (Published, "[INTERNAL:Bad_Slug]", Malformed),
        ]
    );
    assert_eq!(total, 8);
    let places: Vec<Place> = all.iter().map(|e| e.place).collect();
    assert_eq!(places[2], Place::Href);
    assert_eq!(places[5], Place::Attribute);
    assert_eq!(places[6], Place::Comment);
    let alias = all[2].target.as_ref().expect("alias target");
    assert_eq!(alias.slug, "new-name");
    assert_eq!(
        all[4].go_live_at,
        Some(Timestamp::parse("2026-06-01T00:00:00Z").unwrap())
    );
    assert!(all.iter().all(|e| e.blog_slug == "linker"));

    let (broken, total) = report(&f, LinkFilter::Broken, 2, 1).await;
    assert_eq!(
        total, 5,
        "draft, scheduled, unpublished, missing, malformed"
    );
    assert_eq!(
        states(&broken),
        vec![
            (Published, "[INTERNAL:later-t]", Scheduled),
            (Published, "[INTERNAL:gone-t]", Unpublished),
        ]
    );
}

/// The report follows the bodies as they are edited and the targets as they change: a
/// go-live resolves, an unpublish breaks, a delete makes a target missing.
pub async fn links_report_follows_edits_and_target_changes(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    targets(&f).await;
    let linker = f
        .published(
            "linker",
            "Linker",
            "<p>[INTERNAL:pub-t] [INTERNAL:later-t]</p>",
        )
        .await;
    let summary = f.service.link_summary(&f.admin, f.project).await.unwrap();
    assert_eq!(
        (summary.posts_with_broken_links, summary.broken_links),
        (1, 1)
    );

    // Unpublishing pub-t would take one link from the linker.
    let pub_t = f
        .service
        .blogs(&f.admin, f.project, None, ListParams::default())
        .await
        .unwrap()
        .blogs
        .into_iter()
        .find(|b| b.working.slug().as_str() == "pub-t")
        .unwrap();
    let lost = f
        .service
        .links_lost_without(&f.admin, f.project, pub_t.id)
        .await
        .unwrap();
    assert_eq!(lost.len(), 1);
    assert_eq!((lost[0].slug.as_str(), lost[0].resolved), ("linker", 1));

    f.clock
        .set(Timestamp::parse("2026-06-01T00:00:01Z").unwrap());
    f.service
        .unpublish_blog(&f.admin, f.project, pub_t.id)
        .await
        .unwrap();
    let (all, _) = report(&f, LinkFilter::All, 100, 0).await;
    let published: Vec<_> = states(&all)
        .into_iter()
        .filter(|(copy, _, _)| *copy == BodyCopy::Published)
        .collect();
    assert_eq!(
        published,
        vec![
            (
                BodyCopy::Published,
                "[INTERNAL:pub-t]",
                LinkState::Unpublished
            ),
            (
                BodyCopy::Published,
                "[INTERNAL:later-t]",
                LinkState::Resolved
            ),
        ]
    );
    f.service
        .delete_blog(&f.admin, f.project, pub_t.id)
        .await
        .unwrap();
    edit(
        &f,
        &linker,
        BlogInput {
            content: Some("<p>none</p>".into()),
            ..Default::default()
        },
    )
    .await;
    let (all, _) = report(&f, LinkFilter::All, 100, 0).await;
    assert_eq!(
        states(&all),
        vec![
            (BodyCopy::Published, "[INTERNAL:pub-t]", LinkState::Missing),
            (
                BodyCopy::Published,
                "[INTERNAL:later-t]",
                LinkState::Resolved
            ),
        ],
        "the working copy holds no placeholder any more"
    );
    // Re-sync: the published copy is the working copy's, with nothing to list.
    f.publish(&linker, None).await;
    assert_eq!(report(&f, LinkFilter::All, 100, 0).await.1, 0);
}

/// Backlinks list the posts whose working copy or public snapshot names the post by its slug
/// or an alias.
pub async fn backlinks_name_the_posts_linking_by_slug_or_alias(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let renamed = targets(&f).await;
    f.published(
        "by-alias",
        "By alias",
        "<p>[INTERNAL:old-name] [INTERNAL:pub-t]</p>",
    )
    .await;
    f.draft(
        "by-slug",
        "By slug",
        r#"<a href="[INTERNAL:new-name]#x">x</a>"#,
    )
    .await;
    f.published("other", "Other", "<p>[INTERNAL:pub-t]</p>")
        .await;
    let list = f
        .service
        .backlinks(&f.admin, f.project, renamed.id)
        .await
        .expect("backlinks");
    let seen: Vec<(&str, BodyCopy, usize, u32)> = list
        .backlinks
        .iter()
        .map(|b| (b.slug.as_str(), b.copy, b.placeholders.len(), b.resolved))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("by-alias", BodyCopy::Working, 1, 1),
            ("by-alias", BodyCopy::Published, 1, 1),
            ("by-slug", BodyCopy::Working, 1, 1),
        ]
    );
    assert_eq!(list.total, 3);
    let missing = f
        .service
        .backlinks(&f.admin, f.project, crate::domain::BlogId::generate())
        .await;
    assert!(matches!(missing, Err(crate::Error::NotFound(_))));
}

/// A publish or re-sync answer lists the placeholders of the new snapshot that will not
/// resolve, and the publish is done all the same.
pub async fn publish_answers_carry_the_unresolved_links(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    f.published("pub-t", "Published target", "").await;
    let post = f
        .draft(
            "post",
            "Post",
            "<p>[INTERNAL:pub-t] [INTERNAL:typo] [INTERNAL:post]</p>",
        )
        .await;
    let written = f
        .service
        .publish_blog(&f.admin, f.project, post.id, None)
        .await
        .expect("publish");
    assert_eq!(written.blog.status, crate::domain::BlogStatus::Published);
    let unresolved: Vec<(&str, LinkState)> = written
        .unresolved_links
        .iter()
        .map(|e| (e.placeholder.as_str(), e.state))
        .collect();
    assert_eq!(unresolved, vec![("[INTERNAL:typo]", LinkState::Missing)]);
    let edited = f
        .service
        .edit_blog(
            &f.admin,
            f.project,
            post.id,
            BlogInput {
                content: Some("<p>[INTERNAL:pub-t]</p>".into()),
                ..Default::default()
            },
        )
        .await
        .expect("edit");
    assert!(
        edited.unresolved_links.is_empty(),
        "only publishes list them"
    );
    let resync = f
        .service
        .publish_blog(&f.admin, f.project, post.id, None)
        .await
        .expect("re-sync");
    assert!(resync.unresolved_links.is_empty());
}
