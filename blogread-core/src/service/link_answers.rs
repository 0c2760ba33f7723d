//! The answers of the links operations: which placeholders a report lists, a post's
//! placeholders with their states, backlinks, and a post's link summary.

use crate::domain::{BlogId, BlogStatus, Timestamp};
use crate::links::report::{Judgement, LinkState, Place};
use crate::store::BodyCopy;

/// Which placeholders a report lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkFilter {
    /// Every placeholder.
    #[default]
    All,
    /// Only those the public answer drops (every state but `resolved` and `alias`).
    Broken,
    /// Only those the public answer shows (`resolved` and `alias`): with [`LinkFilter::Broken`],
    /// a page can list the broken ones first.
    NotBroken,
}

impl LinkFilter {
    /// Reads `broken` or `all`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "all" => Some(LinkFilter::All),
            "broken" => Some(LinkFilter::Broken),
            _ => None,
        }
    }

    pub(super) fn keeps(self, judgement: &Judgement) -> bool {
        match self {
            LinkFilter::All => true,
            LinkFilter::Broken => judgement.state.is_broken(),
            LinkFilter::NotBroken => !judgement.state.is_broken(),
        }
    }
}

/// Which backlinks a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BacklinkFilter {
    /// Every body naming the post.
    #[default]
    All,
    /// The public snapshots of other published posts with a link to the post that resolves
    /// now: what unpublishing or deleting it would take from the public answers.
    WouldLose,
}

/// The post a placeholder names, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTargetView {
    /// Its id.
    pub id: BlogId,
    /// The slug the link goes to, or would (for `alias`, the current one).
    pub slug: String,
    /// Its title (the published one when it has a public snapshot).
    pub title: String,
}

/// One placeholder of one body, with its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkEntry {
    /// The post holding the placeholder.
    pub blog_id: BlogId,
    /// That post's working slug.
    pub blog_slug: String,
    /// That post's working title.
    pub blog_title: String,
    /// Which of its bodies holds the placeholder.
    pub copy: BodyCopy,
    /// The placeholder as written.
    pub placeholder: String,
    /// The slug it names (trimmed, lower-cased); `None` when malformed.
    pub slug: Option<String>,
    /// Where it stands.
    pub place: Place,
    /// Its state now.
    pub state: LinkState,
    /// The post it names, if any.
    pub target: Option<LinkTargetView>,
    /// For `scheduled`: when the target goes live.
    pub go_live_at: Option<Timestamp>,
    /// For a placeholder inside a link whose whole `href` is a placeholder: that one, as
    /// written. While that link's target does not resolve, this one takes its state (it is
    /// removed with the link).
    pub within_link: Option<String>,
}

impl LinkEntry {
    /// Whether the public answer drops it.
    pub fn is_broken(&self) -> bool {
        self.state.is_broken()
    }
}

/// One page of a links report (of a project, or of one post).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LinkReport {
    /// The page: by post (working slug), the working copy before the published one, then in
    /// body order.
    pub links: Vec<LinkEntry>,
    /// All placeholders matching the filter.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

/// A post that links to another, with the placeholders that do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backlink {
    /// The linking post.
    pub blog_id: BlogId,
    /// Its working slug.
    pub slug: String,
    /// Its working title.
    pub title: String,
    /// Its status.
    pub status: BlogStatus,
    /// Which of its bodies links.
    pub copy: BodyCopy,
    /// The placeholders of that body that name the post (its slug or an alias), as written,
    /// in body order: the first [`BACKLINK_PLACEHOLDERS_SHOWN`](super::links::BACKLINK_PLACEHOLDERS_SHOWN).
    pub placeholders: Vec<String>,
    /// How many placeholders of that body name the post.
    pub count: u32,
    /// How many of those the public answer shows now (for the published copy: the links
    /// readers follow).
    pub resolved: u32,
}

/// A page of the posts that link to one post.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BacklinkList {
    /// By linking post (working slug), the working copy before the published one.
    pub backlinks: Vec<Backlink>,
    /// How many entries in all.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

/// How a project's published posts stand with their links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkSummary {
    /// Published posts whose public body has at least one placeholder the public answer
    /// drops.
    pub posts_with_broken_links: u64,
    /// Those placeholders, in all.
    pub broken_links: u64,
}
