//! The links report's part of the store contract (see [`super::contract`]): every store
//! lists each placeholder with its target's state, keeps the list as bodies and targets
//! change, answers backlinks, and publish answers carry what will not resolve.

use std::sync::Arc;

use crate::clock::Clock;
use crate::domain::{BlogInput, ManagedBlog, Timestamp};
use crate::links::report::{LinkState, LinkTargets, Place};
use crate::read::ListParams;
use crate::service::{BacklinkFilter, LinkEntry, LinkFilter};
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

/// One page holding everything of a small fixture.
fn every() -> ListParams {
    ListParams {
        limit: 100,
        ..Default::default()
    }
}

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
        .links_lost_without(&f.admin, f.project, pub_t.id, ListParams::default())
        .await
        .unwrap()
        .backlinks;
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
        .backlinks(
            &f.admin,
            f.project,
            renamed.id,
            BacklinkFilter::All,
            ListParams::default(),
        )
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
        .backlinks(
            &f.admin,
            f.project,
            crate::domain::BlogId::generate(),
            BacklinkFilter::All,
            ListParams::default(),
        )
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

/// The report as read through the slug index (the broken list, the summary, backlinks, each
/// reading only the bodies naming the slugs they need) and a post's own links (read from its
/// bodies alone) agree with the whole report judged body by body, after every step of a sequence that edits bodies, renames, schedules,
/// unpublishes and deletes targets and linkers.
pub async fn reports_read_by_slug_agree_with_the_whole_report(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let renamed = targets(&f).await;
    let a = f.published("a", "A", LINKER).await;
    // A placeholder inside a link whose target does not resolve takes its state, so its
    // body is read for the broken list although its own slug resolves.
    let b = f
        .published(
            "b",
            "B",
            r#"<a href="[INTERNAL:draft-t]">[INTERNAL:pub-t]</a> <a href="[INTERNAL:a]">[INTERNAL:b]</a>"#,
        )
        .await;
    let c = f
        .draft("c", "C", "<p>[INTERNAL:new-name] [INTERNAL: A ]</p>")
        .await;
    // Broken by a malformed placeholder alone.
    f.published("d", "D", "<p>[INTERNAL:a] [INTERNAL:Bad_Slug]</p>")
        .await;
    check_against_whole_report(&f, "at first").await;

    edit(
        &f,
        &a,
        BlogInput {
            content: Some("<p>[INTERNAL:c] [INTERNAL:typo]</p>".into()),
            ..Default::default()
        },
    )
    .await;
    check_against_whole_report(&f, "a's working copy edited").await;
    f.publish(&a, None).await;
    check_against_whole_report(&f, "a re-synced").await;
    f.publish(&c, None).await;
    check_against_whole_report(&f, "c published").await;
    edit(
        &f,
        &renamed,
        BlogInput {
            slug: Some("newer-name".into()),
            ..Default::default()
        },
    )
    .await;
    f.publish(&renamed, None).await;
    check_against_whole_report(&f, "a target renamed again").await;
    f.clock
        .set(Timestamp::parse("2026-06-01T00:00:01Z").unwrap());
    check_against_whole_report(&f, "the scheduled target went live").await;
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&c))
        .await
        .expect("unpublish");
    check_against_whole_report(&f, "c unpublished").await;
    f.service
        .delete_blog(&f.admin, f.project, blog_id(&b))
        .await
        .expect("delete");
    check_against_whole_report(&f, "the linker b deleted").await;
    edit(
        &f,
        &a,
        BlogInput {
            content: Some("<p>no links</p>".into()),
            ..Default::default()
        },
    )
    .await;
    f.publish(&a, None).await;
    check_against_whole_report(&f, "a's links removed").await;
}

/// Every entry of the project's report with `filter`, read a page of `limit` at a time.
async fn paged_report(f: &Fixture, filter: LinkFilter, limit: u32) -> Vec<LinkEntry> {
    let mut out = Vec::new();
    loop {
        let (page, total) = report(f, filter, limit, out.len() as u64).await;
        assert!(page.len() <= limit as usize);
        out.extend(page);
        if out.len() as u64 >= total {
            return out;
        }
    }
}

/// Checks the broken list, the summary, every post's own links and backlinks, and what a
/// publish of it would answer, against the whole report (judged against every post of the
/// project), and the report's pages against the report in one page.
async fn check_against_whole_report(f: &Fixture, step: &str) {
    let (all, _) = report(f, LinkFilter::All, 100, 0).await;
    let (broken, total) = report(f, LinkFilter::Broken, 100, 0).await;
    let expected: Vec<LinkEntry> = all.iter().filter(|e| e.is_broken()).cloned().collect();
    assert_eq!(broken, expected, "{step}: the broken list");
    assert_eq!(total, expected.len() as u64, "{step}: its total");
    assert_eq!(
        paged_report(f, LinkFilter::All, 3).await,
        all,
        "{step}: pages of 3"
    );
    assert_eq!(
        paged_report(f, LinkFilter::Broken, 2).await,
        expected,
        "{step}: broken pages of 2"
    );

    let summary = f.service.link_summary(&f.admin, f.project).await.unwrap();
    let posts = f
        .service
        .blogs(&f.admin, f.project, None, ListParams::default())
        .await
        .unwrap()
        .blogs;
    let live = |id| {
        posts
            .iter()
            .any(|p| p.id == id && p.status == crate::domain::BlogStatus::Published)
    };
    let public_broken: Vec<&LinkEntry> = expected
        .iter()
        .filter(|e| e.copy == BodyCopy::Published && live(e.blog_id))
        .collect();
    let mut holders: Vec<_> = public_broken.iter().map(|e| e.blog_id).collect();
    holders.dedup();
    assert_eq!(
        (summary.posts_with_broken_links, summary.broken_links),
        (holders.len() as u64, public_broken.len() as u64),
        "{step}: the summary"
    );

    let sources = f.service.store().link_targets(f.project).await.unwrap();
    let targets = LinkTargets::new(sources.posts, sources.aliases, f.clock.now());
    for post in targets.posts() {
        let list = f
            .service
            .backlinks(&f.admin, f.project, post.id, BacklinkFilter::All, every())
            .await
            .expect("backlinks");
        let mut names: Vec<String> = vec![post.slug.clone()];
        names.extend(post.public.as_ref().map(|(slug, _)| slug.clone()));
        names.extend(targets.aliases_of(post.id).into_iter().map(str::to_owned));
        let mut expected: Vec<(crate::domain::BlogId, BodyCopy, Vec<String>, u32)> = Vec::new();
        for e in all
            .iter()
            .filter(|e| e.slug.as_ref().is_some_and(|s| names.contains(s)))
        {
            match expected.last_mut() {
                Some((id, copy, written, resolved)) if *id == e.blog_id && *copy == e.copy => {
                    written.push(e.placeholder.clone());
                    *resolved += u32::from(!e.is_broken());
                }
                _ => expected.push((
                    e.blog_id,
                    e.copy,
                    vec![e.placeholder.clone()],
                    u32::from(!e.is_broken()),
                )),
            }
        }
        let seen: Vec<_> = list
            .backlinks
            .iter()
            .map(|b| (b.blog_id, b.copy, b.placeholders.clone(), b.resolved))
            .collect();
        assert_eq!(seen, expected, "{step}: the backlinks of {}", post.slug);

        // A post's own links are read from its bodies alone, judged against what they name.
        let expected: Vec<LinkEntry> = all
            .iter()
            .filter(|e| e.blog_id == post.id)
            .cloned()
            .collect();
        for (filter, copy) in [
            (LinkFilter::All, None),
            (LinkFilter::Broken, None),
            (LinkFilter::Broken, Some(BodyCopy::Published)),
        ] {
            let own = f
                .service
                .blog_links(&f.admin, f.project, post.id, filter, copy, every())
                .await
                .expect("blog links");
            let wanted: Vec<LinkEntry> = expected
                .iter()
                .filter(|e| filter == LinkFilter::All || e.is_broken())
                .filter(|e| copy.is_none_or(|c| c == e.copy))
                .cloned()
                .collect();
            assert_eq!(own.total, wanted.len() as u64, "{step}: {}", post.slug);
            assert_eq!(own.links, wanted, "{step}: the links of {}", post.slug);
        }
        // What a publish of it answers, judged the same way.
        let unresolved = f
            .service
            .unresolved_links_of(f.project, post.id)
            .await
            .expect("unresolved links");
        let wanted: Vec<LinkEntry> = expected
            .iter()
            .filter(|e| e.is_broken() && e.copy == BodyCopy::Published)
            .cloned()
            .collect();
        assert_eq!(
            unresolved.links, wanted,
            "{step}: unresolved of {}",
            post.slug
        );
    }
}

/// What a store's slug index answers for `project`: the distinct slugs, sorted, and for
/// each, the bodies naming it, sorted.
async fn slug_index(
    store: &dyn Store,
    project: crate::domain::ProjectId,
) -> Vec<(Option<String>, Vec<(crate::domain::BlogId, BodyCopy)>)> {
    let mut slugs = store.linked_slugs(project).await.expect("slugs");
    slugs.sort();
    let mut out = Vec::new();
    for slug in slugs {
        let mut bodies: Vec<_> = store
            .link_body_keys(project, Some(std::slice::from_ref(&slug)))
            .await
            .expect("bodies")
            .into_iter()
            .map(|b| (b.blog_id, b.copy))
            .collect();
        bodies.sort();
        out.push((slug, bodies));
    }
    out
}

/// Takes a database back to before the slug index: its table and its migration's record go,
/// the stored lists stay.
pub const BEFORE_THE_SLUG_INDEX: &str =
    "DROP TABLE blog_placeholder_slugs; DELETE FROM _sqlx_migrations WHERE version = 12;";

/// A database upgraded to the slug index (its migration run on the lists stored before it)
/// answers as one written with it: `downgrade` runs [`BEFORE_THE_SLUG_INDEX`] on the
/// database, and `reopen` opens the store again, running the migration.
pub async fn the_slug_index_migration_indexes_the_stored_lists<D, DF, R, RF>(
    store: Arc<dyn Store>,
    downgrade: D,
    reopen: R,
) where
    D: FnOnce() -> DF,
    DF: std::future::Future<Output = ()>,
    R: FnOnce() -> RF,
    RF: std::future::Future<Output = Arc<dyn Store>>,
{
    let f = Fixture::new(store.clone(), None).await;
    targets(&f).await;
    f.published("a", "A", LINKER).await;
    f.published("d", "D", "<p>[INTERNAL:a] [INTERNAL:Bad_Slug]</p>")
        .await;
    let c = f
        .draft(
            "c",
            "C",
            r#"<a href="[INTERNAL:nothing]">[INTERNAL: A ]</a>"#,
        )
        .await;
    f.publish(&c, None).await;
    let before = slug_index(store.as_ref(), f.project).await;
    assert!(before.len() >= 8, "{before:?}");
    assert!(before.iter().any(|(slug, _)| slug.is_none()), "malformed");
    downgrade().await;
    let upgraded = reopen().await;
    assert_eq!(slug_index(upgraded.as_ref(), f.project).await, before);
}

/// A post's own links, what its publish answers and its backlinks, judged against only the
/// posts its placeholders name (read through the slug index), are the whole-project
/// judgement's, after every step of random sequences of publishes, re-syncs with new titles,
/// slugs and bodies, draft edits, unpublishes, deletes, schedules and go-lives.
pub async fn links_judged_by_what_a_post_names_are_the_whole_projects(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    for seed in [0x5eed_u64, 0xb10c, 0x1f2e3d] {
        let mut dice = crate::testing::Dice(seed);
        let mut posts = Vec::new();
        for step in 0..25 {
            if dice.roll(5) == 0 && !posts.is_empty() {
                // A draft edit: the working copy moves away from the published one.
                let post: &ManagedBlog = &posts[dice.roll(posts.len())];
                let slug = crate::testing::random_writes::SLUGS[dice.roll(8)];
                let _ = f
                    .service
                    .edit_blog(
                        &f.admin,
                        f.project,
                        post.id,
                        BlogInput {
                            content: Some(format!("<p>[INTERNAL:{slug}] [INTERNAL:nope]</p>")),
                            ..Default::default()
                        },
                    )
                    .await;
            } else {
                crate::testing::random_writes::random_write(&f, &mut dice, &mut posts).await;
            }
            check_against_whole_report(&f, &format!("seed {seed:#x}, step {step}")).await;
        }
    }
}

/// Every answer about links is a page, whatever the bodies hold: a publish answer shows the
/// first hundred of its unresolved links and how many there are (the rest are read by
/// offset), a post's links and the project's report page across bodies, and a backlink shows
/// at most twenty placeholders with their count.
pub async fn link_answers_are_pages_whatever_the_bodies_hold(store: Arc<dyn Store>) {
    use crate::service::{BACKLINK_PLACEHOLDERS_SHOWN, UNRESOLVED_SHOWN};

    let f = Fixture::new(store, None).await;
    let body: String = (0..250)
        .map(|i| format!("<p>[INTERNAL:missing-{i:03}]</p>"))
        .collect();
    let post = f.draft("many", "Many", &body).await;
    let written = f
        .service
        .publish_blog(&f.admin, f.project, blog_id(&post), None)
        .await
        .expect("publish");
    assert_eq!(written.unresolved_links.len(), UNRESOLVED_SHOWN as usize);
    assert_eq!(written.unresolved_total, 250);
    assert_eq!(
        written.unresolved_links[0].placeholder,
        "[INTERNAL:missing-000]"
    );
    let rest = f
        .service
        .blog_links(
            &f.admin,
            f.project,
            blog_id(&post),
            LinkFilter::Broken,
            Some(BodyCopy::Published),
            ListParams {
                limit: 100,
                offset: 200,
                ..Default::default()
            },
        )
        .await
        .expect("the rest");
    assert_eq!((rest.links.len(), rest.total), (50, 250));
    assert_eq!(rest.links[0].placeholder, "[INTERNAL:missing-200]");
    // Both copies, in the project's report: a page across the two bodies.
    let (page, total) = report(&f, LinkFilter::Broken, 100, 200).await;
    assert_eq!(total, 500);
    let copies: Vec<(BodyCopy, &str)> = [&page[0], &page[49], &page[50], &page[99]]
        .iter()
        .map(|e| (e.copy, e.placeholder.as_str()))
        .collect();
    assert_eq!(
        copies,
        vec![
            (BodyCopy::Working, "[INTERNAL:missing-200]"),
            (BodyCopy::Working, "[INTERNAL:missing-249]"),
            (BodyCopy::Published, "[INTERNAL:missing-000]"),
            (BodyCopy::Published, "[INTERNAL:missing-049]"),
        ]
    );

    let target = f.published("target", "Target", "").await;
    let naming: String = "<p>[INTERNAL:target]</p>".repeat(30);
    for slug in ["l-a", "l-b", "l-c"] {
        f.published(slug, slug, &naming).await;
    }
    let page = |limit: u32, offset: u64| ListParams {
        limit,
        offset,
        ..Default::default()
    };
    let first = f
        .service
        .backlinks(
            &f.admin,
            f.project,
            blog_id(&target),
            BacklinkFilter::All,
            page(2, 0),
        )
        .await
        .expect("backlinks");
    assert_eq!((first.total, first.backlinks.len()), (6, 2));
    for b in &first.backlinks {
        assert_eq!(b.placeholders.len(), BACKLINK_PLACEHOLDERS_SHOWN);
        assert_eq!((b.count, b.resolved), (30, 30));
    }
    let last = f
        .service
        .backlinks(
            &f.admin,
            f.project,
            blog_id(&target),
            BacklinkFilter::All,
            page(2, 4),
        )
        .await
        .expect("backlinks");
    assert_eq!(
        last.backlinks
            .iter()
            .map(|b| (b.slug.as_str(), b.copy))
            .collect::<Vec<_>>(),
        vec![("l-c", BodyCopy::Working), ("l-c", BodyCopy::Published)]
    );
    let lost = f
        .service
        .links_lost_without(&f.admin, f.project, blog_id(&target), page(2, 0))
        .await
        .expect("lost");
    assert_eq!((lost.total, lost.backlinks.len()), (3, 2));
    assert!(lost.backlinks.iter().all(|b| b.copy == BodyCopy::Published));
}
