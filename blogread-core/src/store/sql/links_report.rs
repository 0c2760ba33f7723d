//! The links report's part of the SQL stores: the statements of the placeholder index
//! (`blog_placeholders`) and what a write keeps of a post's bodies. The steps that use them are
//! `SqlStore`'s (`store.rs`), where the database bounds are written once.

use crate::domain::Blog;
use crate::links::report::Found;
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
/// The bodies of project `$1` holding placeholders: post, copy, size of the stored list, how
/// many placeholders. From the index `blog_placeholders_by_project`: no list is read.
pub(super) const BODY_KEYS: &str = "SELECT blog_id, copy, bytes, placeholder_count \
     FROM blog_placeholders WHERE project_id = $1";
/// A row of [`BODY_KEYS`].
pub(crate) type BodyKeyRow = (super::DbId, String, i64, i64);
/// A stored list: post, copy, list.
pub(crate) type PlaceholdersRow = (super::DbId, String, String);
/// Every alias of project `$1`: alias, post.
pub(super) const LINK_ALIASES: &str =
    "SELECT slug, blog_id FROM blog_aliases WHERE project_id = $1 ORDER BY slug";
/// [`LINK_TARGETS`]'s rows of the posts of project `$1` that judging the slugs `$2` needs
/// (their working or public slug is one of them, or they hold an alias that is), and of the
/// posts `$3`: `$2` a JSON array of texts and `$3` one of ids, given as `$texts` and `$ids`
/// (the dialect's rows of each, one column).
macro_rules! link_targets_named {
    ($texts:expr, $ids:expr) => {
        concat!(
            "SELECT id, status, slug, title, pub_slug, pub_title, published_at FROM blogs \
             WHERE project_id = $1 AND id IN (\
             SELECT blog_id FROM blog_slugs WHERE project_id = $1 AND slug IN (",
            $texts,
            ") UNION SELECT blog_id FROM blog_aliases WHERE project_id = $1 AND slug IN (",
            $texts,
            ") UNION ",
            $ids,
            ") ORDER BY id"
        )
    };
}
pub(crate) use link_targets_named;
/// The aliases of project `$1` among the slugs `$2`, and every alias of the posts `$3`
/// (given as in [`link_targets_named`]): alias, post.
macro_rules! link_aliases_named {
    ($texts:expr, $ids:expr) => {
        concat!(
            "SELECT slug, blog_id FROM blog_aliases WHERE project_id = $1 AND slug IN (",
            $texts,
            ") UNION SELECT slug, blog_id FROM blog_aliases WHERE project_id = $1 \
             AND blog_id IN (",
            $ids,
            ") ORDER BY 1"
        )
    };
}
pub(crate) use link_aliases_named;
/// Forgets the slugs of body `$2` of post `$1` (before [`DELETE_PLACEHOLDERS`]: the slug rows
/// refer to the post, not to the list's row, so that indexing them never looks the whole list
/// up once per slug).
pub(super) const DELETE_PLACEHOLDER_SLUGS: &str =
    "DELETE FROM blog_placeholder_slugs WHERE blog_id = $1 AND copy = $2";
/// Forgets body `$2` of post `$1` (its slugs first, with [`DELETE_PLACEHOLDER_SLUGS`]).
pub(super) const DELETE_PLACEHOLDERS: &str =
    "DELETE FROM blog_placeholders WHERE blog_id = $1 AND copy = $2";
/// Indexes body `$3` of post `$1` (project `$2`): its stored list `$6` of `$4` bytes and `$5`
/// placeholders (its old row gone first, with [`DELETE_PLACEHOLDERS`]).
pub(super) const PUT_PLACEHOLDERS: &str = "INSERT INTO blog_placeholders (blog_id, project_id, copy, \
     bytes, placeholder_count, placeholders) VALUES ($1, $2, $3, $4, $5, $6)";
/// The distinct slugs named by the placeholders of project `$1`'s bodies ('' for a
/// malformed placeholder). One range of `blog_placeholder_slugs`' key.
pub(super) const LINKED_SLUGS: &str =
    "SELECT DISTINCT slug FROM blog_placeholder_slugs WHERE project_id = $1";
/// Indexes the slugs of body `$4` of post `$3` (project `$1`): `$2`, a JSON array of
/// distinct texts, given as `$texts` (the dialect's rows of it, one column `value`).
macro_rules! put_placeholder_slugs {
    ($texts:expr) => {
        concat!(
            "INSERT INTO blog_placeholder_slugs (project_id, slug, blog_id, copy) \
             SELECT $1, value, $3, $4 FROM ",
            $texts
        )
    };
}
pub(crate) use put_placeholder_slugs;
/// The keys (`BodyKeyRow`s) of project `$1`'s bodies that name a slug of `$2`, a JSON array
/// of texts given as `$texts` (the dialect's rows of it, one column `value`): found by slug
/// in `blog_placeholder_slugs`, then each key read from its index (no list is read).
macro_rules! body_keys_naming {
    ($texts:expr) => {
        concat!(
            "SELECT p.blog_id, p.copy, p.bytes, p.placeholder_count FROM \
             (SELECT DISTINCT blog_id, copy FROM blog_placeholder_slugs \
             WHERE project_id = $1 AND slug IN (SELECT value FROM ",
            $texts,
            ")) s JOIN blog_placeholders p ON p.blog_id = s.blog_id AND p.copy = s.copy"
        )
    };
}
pub(crate) use body_keys_naming;
/// The stored lists (`PlaceholdersRow`s) of project `$1`'s bodies named by `$2`, a JSON array
/// of `[post, copy]` pairs, given as `$pairs` (the dialect's rows of it, columns `blog_id`
/// and `copy`): each found by its key.
macro_rules! placeholders_of {
    ($pairs:expr) => {
        concat!(
            "SELECT p.blog_id, p.copy, p.placeholders FROM ",
            $pairs,
            " JOIN blog_placeholders p ON p.blog_id = k.blog_id AND p.copy = k.copy \
             WHERE p.project_id = $1"
        )
    };
}
pub(crate) use placeholders_of;

/// `keys` as the JSON array of `[post, copy]` pairs that [`placeholders_of`] binds.
pub(super) fn keys_json(keys: &[crate::store::BodyKey]) -> String {
    let pairs: Vec<(String, &str)> = keys
        .iter()
        .map(|k| (k.blog_id.to_string(), k.copy.as_str()))
        .collect();
    serde_json::to_string(&pairs).unwrap_or_else(|_| "[]".to_owned())
}

/// `texts` as a JSON array of texts.
pub(super) fn texts_json(texts: &[String]) -> String {
    serde_json::to_string(texts).unwrap_or_else(|_| "[]".to_owned())
}

/// `ids` as a JSON array of texts.
pub(super) fn ids_json(ids: &[crate::domain::BlogId]) -> String {
    let ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    serde_json::to_string(&ids).unwrap_or_else(|_| "[]".to_owned())
}

/// The distinct slugs that `found` names, as `blog_placeholder_slugs` holds them ('' for a
/// malformed placeholder), as a JSON array.
pub(super) fn slugs_json(found: &[Found]) -> String {
    let mut slugs: Vec<&str> = found
        .iter()
        .map(|f| f.slug.as_deref().unwrap_or(""))
        .collect();
    slugs.sort_unstable();
    slugs.dedup();
    serde_json::to_string(&slugs).unwrap_or_else(|_| "[]".to_owned())
}

/// `names` as the JSON array of texts that [`placeholders_naming`] binds ('' for `None`).
pub(super) fn names_json(names: &[Option<String>]) -> String {
    let names: Vec<&str> = names.iter().map(|n| n.as_deref().unwrap_or("")).collect();
    serde_json::to_string(&names).unwrap_or_else(|_| "[]".to_owned())
}

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
