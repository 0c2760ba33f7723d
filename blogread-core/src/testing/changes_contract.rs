//! The changes feed's part of the store contract (see [`super::contract`]): a reader that
//! follows the feed from its cursor ends equal to a full read, whatever the writes between
//! and during its reads, on every store.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::domain::{BlogDetail, BlogInput, ChangeEntry, ChangeFeed};
use crate::error::Error;
use crate::read::{ChangeParams, Conditional};
use crate::store::Store;
use crate::testing::random_writes::{Dice, random_write};
use crate::testing::{Fixture, blog_id};

/// What a site holds: each published post by slug, with its aliases.
type Site = BTreeMap<String, (BlogDetail, Vec<String>)>;

/// A reader of the feed: its copy of the site and its cursor.
#[derive(Default)]
struct Reader {
    site: Site,
    cursor: Option<String>,
}

impl Reader {
    fn apply(&mut self, page: ChangeFeed) {
        for change in page.changes {
            match change {
                ChangeEntry::Upsert { blog, aliases } => {
                    // By slug alone, as a site does: a moved post's old slug goes by its
                    // own delete.
                    self.site
                        .insert(blog.fields.slug().as_str().to_owned(), (*blog, aliases));
                }
                ChangeEntry::Delete { slug } => {
                    self.site.remove(&slug);
                }
            }
        }
        self.cursor = Some(page.cursor);
    }

    /// Reads one page; returns whether more follow.
    async fn step(&mut self, f: &Fixture, limit: u32) -> bool {
        let page = feed(f, self.cursor.clone(), limit).await.expect("feed");
        let more = page.has_more;
        self.apply(page);
        more
    }

    async fn follow(&mut self, f: &Fixture, limit: u32) {
        while self.step(f, limit).await {}
    }
}

async fn feed(f: &Fixture, since: Option<String>, limit: u32) -> crate::error::Result<ChangeFeed> {
    let answer = f
        .service
        .changes(&f.key(), ChangeParams { since, limit }, None)
        .await?;
    Ok(answer.into_value().expect("fresh").value())
}

/// The site as a full read gives it: every published post's single-blog answer, and the
/// aliases the redirects list for it (newest rename first).
async fn full_read(f: &Fixture) -> Site {
    let sitemap = f
        .service
        .sitemap(&f.key(), None)
        .await
        .unwrap()
        .into_value()
        .unwrap()
        .value();
    let redirects = f
        .service
        .redirects(&f.key(), None)
        .await
        .unwrap()
        .into_value()
        .unwrap()
        .value();
    let mut site = Site::new();
    for entry in sitemap.blogs {
        let blog = f
            .service
            .get_blog(&f.key(), &entry.slug, None)
            .await
            .unwrap()
            .into_value()
            .unwrap()
            .value();
        let aliases = redirects
            .redirects
            .iter()
            .filter(|r| r.to == entry.slug)
            .map(|r| r.from.clone())
            .collect();
        site.insert(entry.slug, (blog, aliases));
    }
    site
}

/// Following the feed after any sequence of publishes, re-syncs (new titles, slugs, bodies
/// with links), unpublishes, deletes, schedules and site URL changes gives exactly the full
/// read: every post's answer (links included: a post whose target changed comes again) and
/// its aliases; and a reader that pages (two entries a page) while the writes go on ends
/// equal too.
pub async fn following_the_changes_feed_ends_equal_to_a_full_read(store: Arc<dyn Store>) {
    let f = Fixture::new(store, Some("https://www.example.com")).await;
    for seed in [
        0x9e37_79b9_7f4a_7c15,
        0x2545_f491_4f6c_dd1d,
        0x0123_4567_89ab_cdef,
    ] {
        // Each seed in a project of its own.
        let project = f.another(Some("https://www.example.com")).await;
        follow_random_writes(&project, seed).await;
    }
}

async fn follow_random_writes(f: &Fixture, seed: u64) {
    let mut dice = Dice(seed);
    let mut posts = Vec::new();
    let mut each_write = Reader::default();
    let mut pager = Reader::default();
    for round in 0..120 {
        random_write(f, &mut dice, &mut posts).await;
        // The pager reads one page between writes; it finishes only now and then.
        if !pager.step(f, 2).await && round % 7 == 0 {
            pager.follow(f, 2).await;
        }
        each_write.follow(f, 3).await;
        let full = full_read(f).await;
        assert_eq!(each_write.site, full, "after write {round}");
    }
    f.clock.advance(10);
    pager.follow(f, 2).await;
    each_write.follow(f, 100).await;
    let full = full_read(f).await;
    assert_eq!(pager.site, full, "the paging reader");
    assert_eq!(each_write.site, full);
    let mut fresh = Reader::default();
    fresh.follow(f, 100).await;
    assert_eq!(fresh.site, full, "an initial sync");
}

/// Without `since` the feed gives every published post once, as upserts; a post that links to
/// a post whose title changes comes again, and so does a post whose alias another post
/// takes; a rename deletes the old slug and lists it in the new upsert's aliases.
pub async fn the_changes_feed_names_what_changed_and_only_that(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let target = f.published("target", "Target", "<p>t</p>").await;
    f.published("linker", "Linker", "<p>[INTERNAL:target]</p>")
        .await;
    f.published("loner", "Loner", "<p>alone</p>").await;
    let first = feed(&f, None, 100).await.unwrap();
    assert!(!first.has_more);
    let upserts: Vec<&str> = first
        .changes
        .iter()
        .map(|c| match c {
            ChangeEntry::Upsert { blog, .. } => blog.fields.slug().as_str(),
            ChangeEntry::Delete { .. } => panic!("no deletes in an initial sync"),
        })
        .collect();
    assert_eq!(upserts.len(), 3);
    let cursor = first.cursor.clone();
    let quiet = feed(&f, Some(cursor.clone()), 100).await.unwrap();
    assert!(quiet.changes.is_empty() && !quiet.has_more);
    assert_eq!(quiet.cursor, cursor, "nothing changed, the cursor stays");

    // A new title: the post and the post that links to it, not the other one.
    f.clock.advance(1);
    f.service
        .edit_blog(
            &f.admin,
            f.project,
            blog_id(&target),
            BlogInput {
                title: Some("Target, retitled".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    f.publish(&target, None).await;
    let page = feed(&f, Some(cursor), 100).await.unwrap();
    let mut slugs: Vec<String> = page
        .changes
        .iter()
        .map(|c| match c {
            ChangeEntry::Upsert { blog, .. } => blog.fields.slug().as_str().to_owned(),
            ChangeEntry::Delete { slug } => format!("-{slug}"),
        })
        .collect();
    slugs.sort();
    assert_eq!(slugs, ["linker", "target"]);

    // A rename: the old slug is deleted, the post comes with it as an alias.
    f.clock.advance(1);
    f.rename(&target, "moved").await;
    f.publish(&target, None).await;
    let renamed = feed(&f, Some(page.cursor), 100).await.unwrap();
    let first = &renamed.changes[0];
    assert_eq!(
        first,
        &ChangeEntry::Delete {
            slug: "target".into()
        },
        "the delete comes first"
    );
    let moved = renamed
        .changes
        .iter()
        .find_map(|c| match c {
            ChangeEntry::Upsert { blog, aliases } if blog.fields.slug() == "moved" => {
                Some(aliases.clone())
            }
            _ => None,
        })
        .expect("the renamed post");
    assert_eq!(moved, ["target"]);

    // Another post takes the alias: the renamed post loses it.
    f.published("target", "Newcomer", "").await;
    let taken = feed(&f, Some(renamed.cursor), 100).await.unwrap();
    let moved = taken
        .changes
        .iter()
        .find_map(|c| match c {
            ChangeEntry::Upsert { blog, aliases } if blog.fields.slug() == "moved" => {
                Some(aliases.clone())
            }
            _ => None,
        })
        .expect("the post whose alias was taken");
    assert!(moved.is_empty());
}

/// A cursor that does not parse, or of another project, is 400; a cursor older than the
/// deletions kept is 410 once they are forgotten; the ETag answers 304 as on every public
/// endpoint.
pub async fn changes_feed_cursors_are_checked_and_expire_with_the_retention(store: Arc<dyn Store>) {
    let f = Fixture::new(store, None).await;
    let post = f.published("one", "One", "").await;
    let start = feed(&f, None, 100).await.unwrap().cursor;
    for junk in ["nope", "%%%", "YzF8eHwx"] {
        let err = feed(&f, Some(junk.into()), 100).await.unwrap_err();
        assert!(matches!(err, Error::BadRequest(_)), "{junk}: {err:?}");
        assert!(err.to_string().contains("omit `since`"), "{err}");
    }
    let other = f.another(None).await;
    other.published("elsewhere", "Elsewhere", "").await;
    let err = feed(&other, Some(start.clone()), 100).await.unwrap_err();
    assert!(matches!(err, Error::BadRequest(_)), "{err:?}");

    // 304 for the same question at the same content version.
    let first = f
        .service
        .changes(&f.key(), ChangeParams::default(), None)
        .await
        .unwrap();
    let again = f
        .service
        .changes(&f.key(), ChangeParams::default(), Some(first.etag()))
        .await
        .unwrap();
    assert!(matches!(again, Conditional::NotModified { .. }));

    // A deletion 91 days ago is forgotten; the cursor from before it is gone.
    f.clock.advance(1);
    f.service
        .delete_blog(&f.admin, f.project, blog_id(&post))
        .await
        .unwrap();
    let before_prune = feed(&f, Some(start.clone()), 100).await.unwrap();
    assert_eq!(
        before_prune.changes,
        [ChangeEntry::Delete { slug: "one".into() }]
    );
    f.clock.advance(91 * 86_400);
    assert_eq!(f.service.prune_changes().await.unwrap(), 1);
    // (The answer to the very question asked before the pruning may still be served from
    // the response cache: it was right, and still is. Another question is not.)
    let err = feed(&f, Some(start), 99).await.unwrap_err();
    assert!(matches!(err, Error::Gone(_)), "{err:?}");
    assert!(err.to_string().contains("90 days"), "{err}");
    // A cursor taken after the deletion still works.
    let later = feed(&f, Some(before_prune.cursor), 100).await.unwrap();
    assert!(later.changes.is_empty());
}
