//! The links report's part of the SQL stores: the statements of the placeholder index
//! (`blog_placeholders`) and what a write keeps of a post's bodies. The steps that use them are
//! `SqlStore`'s (`store.rs`), where the database bounds are written once.

use crate::domain::Blog;
use crate::store::link_sources::{BodyCopy, bodies_of};

/// Every post of project `$1` as a link target: id, status, working slug and title, public
/// slug and title, first publication (go-live) time. From the covering index
/// `blogs_link_targets`: no table row is read.
pub(super) const LINK_TARGETS: &str = "SELECT id, status, slug, title, pub_slug, pub_title, \
     published_at FROM blogs WHERE project_id = $1 ORDER BY id";
/// A row of [`LINK_TARGETS`].
pub(crate) type TargetRow = (
    super::DbId,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
    Option<i64>,
);
/// The indexed placeholders of project `$1`'s bodies: post, copy, stored list. One range of
/// `blog_placeholders_by_project` (covering, on SQLite).
pub(super) const PLACEHOLDERS: &str = "SELECT blog_id, copy, placeholders FROM blog_placeholders \
     WHERE project_id = $1 ORDER BY project_id, blog_id, copy";
/// A row of [`PLACEHOLDERS`].
pub(crate) type PlaceholdersRow = (super::DbId, String, String);
/// Every alias of project `$1`: alias, post.
pub(super) const LINK_ALIASES: &str =
    "SELECT slug, blog_id FROM blog_aliases WHERE project_id = $1 ORDER BY slug";
/// Forgets body `$2` of post `$1`.
pub(super) const DELETE_PLACEHOLDERS: &str =
    "DELETE FROM blog_placeholders WHERE blog_id = $1 AND copy = $2";
/// Indexes body `$3` of post `$1` (project `$2`): its stored list `$4`.
pub(super) const PUT_PLACEHOLDERS: &str = "INSERT INTO blog_placeholders (blog_id, project_id, copy, \
     placeholders) VALUES ($1, $2, $3, $4) ON CONFLICT (blog_id, copy) DO UPDATE \
     SET placeholders = excluded.placeholders";
/// Whether the bodies stored before the index existed are indexed.
pub(super) const PLACEHOLDERS_INDEXED: &str = "SELECT placeholders_indexed FROM blogread_meta";
/// Records that they are.
pub(super) const SET_PLACEHOLDERS_INDEXED: &str =
    "UPDATE blogread_meta SET placeholders_indexed = 1";
/// Posts after id `$1`, at most `$2`, with their bodies: id, project, working body, held body.
pub(super) const ALL_BODIES_AFTER: &str = "SELECT id, project_id, content, pub_content FROM blogs \
     WHERE id > $1 ORDER BY id LIMIT $2";

/// The bodies a post holds before a write, to tell which ones the write changed.
pub(crate) struct HeldBodies {
    working: String,
    published: Option<String>,
}

impl HeldBodies {
    /// The bodies of `blog` as it is.
    pub(crate) fn of(blog: &Blog) -> Self {
        let [(_, working), (_, published)] = bodies_of(blog);
        Self {
            working: working.unwrap_or_default().to_owned(),
            published: published.map(str::to_owned),
        }
    }

    pub(super) fn get(&self, copy: BodyCopy) -> Option<&str> {
        match copy {
            BodyCopy::Working => Some(&self.working),
            BodyCopy::Published => self.published.as_deref(),
        }
    }
}
