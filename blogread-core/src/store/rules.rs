//! What every backend decides the same way, written once: the message of each conflict a
//! write can meet, and when a write changes what the public API shows (the content version,
//! which every ETag and cached response depends on, and the count of published blogs).
//!
//! The SQL store and the memory store both apply these; no backend words a conflict or
//! decides a bump on its own. The same for the changes feed: which cursors read, how many
//! entries a page holds and where it is cut.

use super::ChangeQuery;
use crate::domain::{Blog, ChangePosition, PublishedSnapshot, Slug, Trigger};
use crate::error::Error;

/// A write refused because of something already stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// The memory store meets only some of these; the SQL store (a feature) meets every one.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) enum Conflict<'a> {
    /// The blog's slug is held by another blog of the project (as its working or its
    /// published slug).
    SlugTaken(&'a Slug),
    /// A project with the new project's id exists.
    ProjectExists,
    /// A blog with the new blog's id exists.
    BlogExists,
    /// The project already has a public key (generating one needs none).
    PublicKeyExists,
    /// The new public key is already some project's key.
    PublicKeyInUse,
    /// An agent key with the new key's id or hash exists.
    AgentKeyExists,
    /// An admin token with the new token's id or hash exists.
    AdminTokenExists,
    /// A delivery with the new delivery's id exists.
    DeliveryExists,
    /// A media item with the new item's id exists.
    MediaExists,
}

impl Conflict<'_> {
    /// The message the caller gets, saying what to change where the caller can change it.
    pub(crate) fn message(self) -> String {
        match self {
            Conflict::SlugTaken(slug) => format!(
                "slug `{slug}` is already used by another blog of this project; choose another slug"
            ),
            Conflict::ProjectExists => "a project with this id exists".into(),
            Conflict::BlogExists => "a blog with this id exists".into(),
            Conflict::PublicKeyExists => {
                "this project already has a public key; rotate or revoke it instead".into()
            }
            Conflict::PublicKeyInUse => "this public key is in use".into(),
            Conflict::AgentKeyExists => "this agent key exists".into(),
            Conflict::AdminTokenExists => "this admin token exists".into(),
            Conflict::DeliveryExists => "a delivery with this id exists".into(),
            Conflict::MediaExists => "a media item with this id exists".into(),
        }
    }

    /// The conflict of writing `blog` when one of its slugs is taken.
    pub(crate) fn slug_taken(blog: &'_ Blog) -> Conflict<'_> {
        Conflict::SlugTaken(blog.working.slug())
    }
}

impl From<Conflict<'_>> for Error {
    fn from(conflict: Conflict<'_>) -> Self {
        Error::Conflict(conflict.message())
    }
}

/// What a write of one blog does to the project's public counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VisibleChange {
    /// Whether the project's content version goes up.
    pub(crate) bumps_version: bool,
    /// How the number of published blogs moves: -1, 0 or 1.
    pub(crate) published_delta: i64,
}

impl VisibleChange {
    /// The rule: a blog write bumps the content version when it is a visible-content event
    /// (publish, re-sync, unpublish, deletion of a published blog) or when it changes whether
    /// the blog is published (inserting or deleting a published blog). Edits of the working
    /// copy change nothing the public API shows, so they bump nothing.
    pub(crate) fn of_blog_write(
        was_published: bool,
        is_published: bool,
        event: Option<Trigger>,
    ) -> Self {
        let published_delta = i64::from(is_published) - i64::from(was_published);
        VisibleChange {
            bumps_version: event.is_some() || published_delta != 0,
            published_delta,
        }
    }

    /// Inserting `blog`.
    pub(crate) fn of_insert(blog: &Blog) -> Self {
        Self::of_blog_write(false, blog.state.snapshot().is_some(), None)
    }

    /// Deleting `blog`, which is the event `event` (see [`crate::lifecycle::deletion_event`]).
    pub(crate) fn of_delete(blog: &Blog, event: Option<Trigger>) -> Self {
        Self::of_blog_write(blog.state.snapshot().is_some(), false, event)
    }
}

/// What a write of one blog does to the project's slug history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SlugHistory {
    /// The alias to free: the slug the blog publishes now, which no alias may keep (whoever
    /// held it).
    pub(crate) free: Option<String>,
    /// The alias to add for the blog: its previous public slug, when a re-sync changed it.
    pub(crate) add: Option<String>,
}

impl SlugHistory {
    /// The rule, from the published slug before and after the write (`None` when not
    /// published).
    pub(crate) fn of_blog_write(before: Option<&str>, after: Option<&str>) -> Self {
        SlugHistory {
            free: after.map(str::to_owned),
            add: match (before, after) {
                (Some(old), Some(new)) if old != new => Some(old.to_owned()),
                _ => None,
            },
        }
    }
}

/// What a write of one blog changes in the changes feed, when it takes a change number:
/// whose answers it changed and which public slug it lost.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ChangeStamp {
    /// Whether the blog written is published after the write, with an answer (or aliases)
    /// the write changed: it is stamped.
    pub(crate) own: bool,
    /// The slugs whose resolution the write changed (the blog's published slug before and
    /// after, when its publication, slug or title changed): the published posts whose bodies
    /// name one of them are stamped, and so are those that name one of the blog's aliases
    /// (`aliases`).
    pub(crate) touched: Vec<String>,
    /// Whether links through the blog's aliases resolve differently after the write.
    pub(crate) aliases: bool,
    /// The public slug the write took from the published posts (unpublished, deleted or
    /// renamed away from): kept as a deletion.
    pub(crate) lost: Option<String>,
}

impl ChangeStamp {
    /// The rule, from the blog's published snapshot before and after the write (`None`
    /// when not published).
    pub(crate) fn of_blog_write(
        before: Option<&PublishedSnapshot>,
        after: Option<&PublishedSnapshot>,
    ) -> Self {
        if before == after {
            return Self::default();
        }
        fn target(s: Option<&PublishedSnapshot>) -> Option<(&str, &str)> {
            s.map(|s| (s.fields.slug().as_str(), s.fields.title()))
        }
        let mut touched = Vec::new();
        let retargeted = target(before) != target(after);
        if retargeted {
            touched.extend(before.map(|s| s.fields.slug().as_str().to_owned()));
            touched.extend(after.map(|s| s.fields.slug().as_str().to_owned()));
            touched.dedup();
        }
        let before_slug = before.map(|s| s.fields.slug().as_str());
        let after_slug = after.map(|s| s.fields.slug().as_str());
        ChangeStamp {
            own: after.is_some(),
            touched,
            aliases: retargeted,
            lost: before_slug
                .filter(|slug| after_slug != Some(*slug))
                .map(str::to_owned),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resync_to_a_new_slug_keeps_the_old_one_and_publishing_a_slug_frees_it() {
        let renamed = SlugHistory::of_blog_write(Some("old"), Some("new"));
        assert_eq!(
            (renamed.free.as_deref(), renamed.add.as_deref()),
            (Some("new"), Some("old"))
        );
        let same = SlugHistory::of_blog_write(Some("a"), Some("a"));
        assert_eq!((same.free.as_deref(), same.add), (Some("a"), None));
        let first = SlugHistory::of_blog_write(None, Some("a"));
        assert_eq!((first.free.as_deref(), first.add), (Some("a"), None));
        let down = SlugHistory::of_blog_write(Some("a"), None);
        assert_eq!(
            (down.free, down.add),
            (None, None),
            "an unpublish keeps aliases"
        );
    }

    #[test]
    fn only_events_and_publication_changes_bump_the_content_version() {
        let edit = VisibleChange::of_blog_write(true, true, None);
        assert!(
            !edit.bumps_version,
            "an edit of the working copy is invisible"
        );
        assert_eq!(edit.published_delta, 0);

        let resync = VisibleChange::of_blog_write(true, true, Some(Trigger::Updated));
        assert!(resync.bumps_version);
        assert_eq!(resync.published_delta, 0);

        let publish = VisibleChange::of_blog_write(false, true, Some(Trigger::Published));
        assert_eq!((publish.bumps_version, publish.published_delta), (true, 1));

        let unpublish = VisibleChange::of_blog_write(true, false, Some(Trigger::Unpublished));
        assert_eq!(
            (unpublish.bumps_version, unpublish.published_delta),
            (true, -1)
        );

        let quiet_flip = VisibleChange::of_blog_write(false, true, None);
        assert!(
            quiet_flip.bumps_version,
            "a change of publication bumps even without an event"
        );
    }
}

/// One entry of a page of the changes feed as the page is cut, before the store reads the
/// rest of it (an upsert's aliases).
#[derive(Debug)]
pub(crate) enum FeedItem<U> {
    /// A slug lost by change `change`.
    Delete {
        /// The change that lost it.
        change: u64,
        /// The slug.
        slug: String,
    },
    /// A published post, as the store read it.
    Upsert(U),
}

/// Whether a read after `after` answers from a feed of changes `floor..=head`: a cursor
/// below the floor (its deletions are forgotten) or past the head (another database's)
/// reads nothing, and the caller answers as its rules say.
pub(crate) fn feed_reads(after: &ChangePosition, floor: u64, head: u64) -> bool {
    *after == ChangePosition::Start || (floor..=head).contains(&after.change())
}

/// The entries a page of the feed holds at most: the query's limit, within 1 to 100.
pub(crate) fn feed_limit(query: &ChangeQuery) -> usize {
    query.limit.clamp(1, 100) as usize
}

/// A page of the feed from the deletes (in change order) and the upserts (in change order,
/// then by id) after the cursor: merged in feed order (a delete before the upserts of its
/// change), cut after `feed_limit` entries or after the entry whose bodies bring the page
/// past the query's byte budget (always at least one entry); `true` with the page when an
/// entry is left after it.
pub(crate) fn feed_page<U>(
    query: &ChangeQuery,
    deletes: impl IntoIterator<Item = (u64, String)>,
    upserts: impl IntoIterator<Item = U>,
    change_of: impl Fn(&U) -> u64,
    body_len: impl Fn(&U) -> usize,
) -> (Vec<FeedItem<U>>, bool) {
    let limit = feed_limit(query);
    let mut deletes = deletes.into_iter().peekable();
    let mut upserts = upserts.into_iter().peekable();
    let mut page = Vec::new();
    let mut bytes = 0usize;
    loop {
        let more = upserts.peek().is_some() || deletes.peek().is_some();
        if page.len() == limit || (bytes > query.body_budget && more) {
            return (page, more);
        }
        let take_delete = match (deletes.peek(), upserts.peek()) {
            (None, None) => return (page, false),
            (Some((deleted, _)), Some(upsert)) => *deleted <= change_of(upsert),
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        if take_delete {
            let (change, slug) = deletes.next().expect("peeked");
            page.push(FeedItem::Delete { change, slug });
        } else {
            let upsert = upserts.next().expect("peeked");
            bytes += body_len(&upsert);
            page.push(FeedItem::Upsert(upsert));
        }
    }
}
