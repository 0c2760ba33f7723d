//! The SQL text of the store, one constant per statement, and the small helpers that bind
//! and read back its values.
//!
//! Every statement runs unchanged on both backends: SQLite accepts PostgreSQL's numbered
//! `$N` parameters (and reuses a number's value wherever it appears). Each constant's doc
//! lists its parameters; the code binds them in that order. The statements that differ
//! between the backends (the row lock of a write, the titles and sitemap look-ups, the key
//! check) live with their backend's [`SqlDialect`](super::dialect::SqlDialect).

/// The key of a published blog for public reads (`KeyRow`): its id and change number, which
/// the covering indexes of the public reads hold (no body is touched).
macro_rules! key_columns {
    () => {
        "b.id, b.change_no"
    };
}

/// The columns of a published blog for public reads (`PublishedRow`), without the body: the
/// held snapshot's field columns under the working copy's names.
macro_rules! published_columns {
    () => {
        $crate::store::sql::with_post_fields!({ $crate::store::sql::published_columns_of }())
    };
}

/// [`published_columns!`] of the fields `$name`.
macro_rules! published_columns_of {
    ($($name:ident),*) => {
        concat!(
            "b.id",
            $(", b.pub_", stringify!($name), " AS ", stringify!($name),)*
            ", b.published_at, b.published_updated_at AS updated_at"
        )
    };
}

/// The working copy's columns of a post's fields, with its body: `title, slug, ..., content`.
macro_rules! working_columns {
    () => {
        $crate::store::sql::with_post_fields!({ $crate::store::sql::working_columns_of }())
    };
}

/// [`working_columns!`] of the fields `$name`.
macro_rules! working_columns_of {
    ($($name:ident),*) => {
        concat!($(stringify!($name), ", ",)* "content")
    };
}

/// A published body for public reads: its link template when it has one (then the body itself
/// is not read), else the body. Needs [`template_join!`].
macro_rules! body_columns {
    () => {
        ", CASE WHEN t.template IS NULL OR t.template = '' THEN b.pub_content END AS content, \
         NULLIF(t.template, '') AS template"
    };
}

/// The join that [`body_columns!`] reads the link template through.
macro_rules! template_join {
    () => {
        " LEFT JOIN blog_templates t ON t.blog_id = b.id"
    };
}

/// A page of published blogs with the total: the `$columns` (see [`published_columns!`],
/// [`key_columns!`]), read through the `$join` if any.
macro_rules! page_query {
    ($columns:expr $(, $join:expr)?) => {
        concat!(
            "SELECT ", $columns,
            ", (SELECT published_count FROM projects p WHERE p.id = $1) AS total \
             FROM blogs b", $($join,)? " WHERE b.project_id = $1 AND b.status = 'published' \
             ORDER BY b.published_at DESC, b.id DESC LIMIT $2 OFFSET $3"
        )
    };
}

/// `page_query!` within one category; `@` first names the posts' table (`$blogs`, aliased
/// `b`) with a dialect's index hint.
macro_rules! category_page_query {
    ($columns:expr $(, $join:expr)?) => {
        category_page_query!(@ $columns, "blogs b" $(, $join)?)
    };
    (@ $columns:expr, $blogs:expr $(, $join:expr)?) => {
        concat!(
            "SELECT ", $columns,
            ", (SELECT COUNT(*) FROM blog_categories k WHERE k.project_id = $1 \
             AND k.category_key = $2) AS total \
             FROM blog_categories c JOIN ", $blogs, " ON b.id = c.blog_id", $($join,)? " \
             WHERE c.project_id = $1 AND c.category_key = $2 \
             ORDER BY c.published_at DESC, c.blog_id DESC LIMIT $3 OFFSET $4"
        )
    };
}

/// A page of published blogs after a key, for the page index: the `$columns` (as
/// `page_query!`), then the project's content version read in the same statement. `$1` project,
/// `$2` limit, `$3` offset after the key, `$4` the key's `published_at`, `$5` its id (the
/// key `(i64::MAX, any id)` starts at the top).
macro_rules! keyset_page_query {
    ($columns:expr $(, $join:expr)?) => {
        concat!(
            "SELECT ", $columns,
            ", (SELECT content_version FROM projects p WHERE p.id = $1) AS version \
             FROM blogs b", $($join,)? " WHERE b.project_id = $1 AND b.status = 'published' \
             AND b.published_at <= $4 AND (b.published_at < $4 OR b.id < $5) \
             ORDER BY b.published_at DESC, b.id DESC LIMIT $2 OFFSET $3"
        )
    };
}

/// `keyset_page_query!` within one category (with `@`, as `category_page_query!`): `$1` project, `$2` category key, `$3` limit,
/// `$4` offset after the key, `$5` and `$6` the key.
macro_rules! category_keyset_page_query {
    ($columns:expr $(, $join:expr)?) => {
        category_keyset_page_query!(@ $columns, "blogs b" $(, $join)?)
    };
    (@ $columns:expr, $blogs:expr $(, $join:expr)?) => {
        concat!(
            "SELECT ", $columns,
            ", (SELECT content_version FROM projects p WHERE p.id = $1) AS version \
             FROM blog_categories c JOIN ", $blogs, " ON b.id = c.blog_id", $($join,)? " \
             WHERE c.project_id = $1 AND c.category_key = $2 \
             AND c.published_at <= $5 AND (c.published_at < $5 OR c.blog_id < $6) \
             ORDER BY c.published_at DESC, c.blog_id DESC LIMIT $3 OFFSET $4"
        )
    };
}

// ---- the database ----

/// Whether the database answers.
pub(crate) const PING: &str = "SELECT 1";
/// The database's ETag epoch.
pub(crate) const ETAG_EPOCH: &str = "SELECT etag_epoch FROM blogread_meta WHERE id = 1";

// ---- projects ----

/// A new project: `$1` id, `$2` name, `$3` site URL, `$4` created at.
pub(crate) const INSERT_PROJECT: &str =
    "INSERT INTO projects (id, name, site_url, created_at) VALUES ($1, $2, $3, $4)";
/// Project `$1` (`ProjectRow`).
pub(crate) const PROJECT: &str =
    "SELECT id, name, site_url, created_at FROM projects WHERE id = $1";
/// Every project, oldest first (`ProjectRow`).
pub(crate) const PROJECTS: &str =
    "SELECT id, name, site_url, created_at FROM projects ORDER BY created_at, id";
/// A page of every project, oldest first (`ProjectRow`): `$1` limit, `$2` offset.
pub(crate) const PROJECT_PAGE: &str = "SELECT id, name, site_url, created_at FROM projects \
     ORDER BY created_at, id LIMIT $1 OFFSET $2";
/// How many projects there are.
pub(crate) const PROJECT_COUNT: &str = "SELECT COUNT(*) FROM projects";
/// Whether project `$1` exists.
pub(crate) const PROJECT_EXISTS: &str = "SELECT 1 FROM projects WHERE id = $1";
/// Changes project `$1` in one statement, returning it (`ProjectRow`): `$2` whether to set the
/// name, `$3` the name, `$4` whether to set the site URL, `$5` the site URL. Only the named
/// columns change, and the comparison reads the old site URL, so concurrent changes of
/// different fields both apply. A changed site URL bumps the content version.
pub(crate) const UPDATE_PROJECT: &str = "UPDATE projects SET \
     name = CASE WHEN $2 THEN $3 ELSE name END, \
     site_url = CASE WHEN $4 THEN $5 ELSE site_url END, \
     content_version = content_version + \
     CASE WHEN $4 AND site_url IS DISTINCT FROM $5 THEN 1 ELSE 0 END, \
     change_seq = change_seq + \
     CASE WHEN $4 AND site_url IS DISTINCT FROM $5 THEN 1 ELSE 0 END \
     WHERE id = $1 RETURNING id, name, site_url, created_at, change_seq";
/// Bumps the content version of project `$1`, moves its published count by `$2`, and takes
/// the next number of its change sequence (returned).
pub(crate) const BUMP_VERSION: &str = "UPDATE projects SET content_version = content_version + 1, \
     published_count = published_count + $2, change_seq = change_seq + 1 WHERE id = $1 \
     RETURNING change_seq";

// ---- the changes feed ----

/// Stamps change `$2` on the published blogs of project `$1` whose held bodies reference one
/// of the slugs `$texts` selects (the dialect's rows of the JSON array `$3`), or one of the
/// aliases of blog `$4` (NULL: none). One list of slugs (a `UNION`), so that the links are
/// sought by slug: with two lists joined by `OR`, SQLite read every link of the project, and
/// each publish cost time in proportion to the project's size.
macro_rules! stamp_linkers {
    ($texts:expr) => {
        concat!(
            "UPDATE blogs SET change_no = $2 WHERE project_id = $1 AND status = 'published' \
             AND id IN (SELECT l.blog_id FROM blog_links l WHERE l.project_id = $1 \
             AND l.slug IN (",
            $texts,
            " UNION SELECT a.slug FROM blog_aliases a WHERE a.blog_id = $4))"
        )
    };
}
pub(crate) use stamp_linkers;
/// Stamps change `$2` on blog `$1` when it is published.
pub(crate) const STAMP_BLOG: &str =
    "UPDATE blogs SET change_no = $2 WHERE id = $1 AND status = 'published'";
/// Stamps change `$3` on the published blog of project `$1` that holds alias `$2` (its
/// aliases change when the alias is freed).
pub(crate) const STAMP_ALIAS_OWNER: &str = "UPDATE blogs SET change_no = $3 \
     WHERE status = 'published' AND id IN \
     (SELECT blog_id FROM blog_aliases WHERE project_id = $1 AND slug = $2)";
/// Stamps change `$2` on every published blog of project `$1` with a link (a new site URL
/// changes every resolved link).
pub(crate) const STAMP_ALL_LINKERS: &str = "UPDATE blogs SET change_no = $2 \
     WHERE project_id = $1 AND status = 'published' \
     AND id IN (SELECT blog_id FROM blog_links WHERE project_id = $1)";
/// Keeps slug `$2` of project `$1` as lost by change `$3` at `$4`.
pub(crate) const PUT_TOMBSTONE: &str = "INSERT INTO blog_tombstones \
     (project_id, slug, change_no, lost_at) VALUES ($1, $2, $3, $4) \
     ON CONFLICT (project_id, slug) \
     DO UPDATE SET change_no = excluded.change_no, lost_at = excluded.lost_at";
/// The go-live of project `$1` at `$2` as change `$3`, before the due blogs are published:
/// stamps the published blogs whose aliases the due blogs' slugs free.
pub(crate) const STAMP_DUE_ALIAS_OWNERS: &str = "UPDATE blogs SET change_no = $3 \
     WHERE status = 'published' AND id IN (SELECT a.blog_id FROM blog_aliases a \
     JOIN blogs d ON d.project_id = a.project_id AND d.pub_slug = a.slug \
     WHERE a.project_id = $1 AND d.status = 'scheduled' AND d.published_at <= $2)";
/// The same go-live: stamps the published blogs whose bodies name a due blog's slug or one of
/// its aliases.
pub(crate) const STAMP_DUE_LINKERS: &str = "UPDATE blogs SET change_no = $3 \
     WHERE project_id = $1 AND status = 'published' AND id IN (SELECT l.blog_id FROM blog_links l \
     WHERE l.project_id = $1 AND l.slug IN ( \
     SELECT d.pub_slug FROM blogs d WHERE d.project_id = $1 AND d.status = 'scheduled' \
     AND d.published_at <= $2 \
     UNION SELECT a.slug FROM blog_aliases a JOIN blogs d ON d.id = a.blog_id \
     WHERE d.project_id = $1 AND d.status = 'scheduled' AND d.published_at <= $2))";
/// Forgets the links of blog `$1`.
pub(crate) const DELETE_LINKS: &str = "DELETE FROM blog_links WHERE blog_id = $1";
/// The head of a many-row insert of links (see [`values_rows`]): project, slug, blog.
pub(crate) const INSERT_LINKS: &str = "INSERT INTO blog_links (project_id, slug, blog_id) VALUES ";
/// The change sequence of project `$1` and its floor.
pub(crate) const CHANGE_HEAD: &str = "SELECT change_seq, changes_floor FROM projects WHERE id = $1";
/// The deletes of project `$1` after change `$2` up to change `$3`, in change order, at most
/// `$4`.
pub(crate) const CHANGE_DELETES: &str = "SELECT change_no, slug FROM blog_tombstones \
     WHERE project_id = $1 AND change_no > $2 AND change_no <= $3 \
     ORDER BY change_no, slug LIMIT $4";
/// The published blogs of project `$1` after position (`$2` change, `$3` id) up to change
/// `$4`, in change order, at most `$5`, with their bodies (`ChangeRow`).
pub(crate) const CHANGE_UPSERTS: &str = concat!(
    "SELECT ",
    published_columns!(),
    body_columns!(),
    ", b.change_no FROM blogs b",
    template_join!(),
    " WHERE b.project_id = $1 AND b.status = 'published' AND b.change_no <= $4 \
     AND (b.change_no > $2 OR (b.change_no = $2 AND b.id > $3)) \
     ORDER BY b.change_no, b.id LIMIT $5"
);
/// The aliases of the blogs `$texts` selects (the dialect's rows of the JSON array `$1` of
/// ids), newest rename first: `(blog, alias)`.
macro_rules! change_aliases {
    ($ids:expr) => {
        concat!(
            "SELECT blog_id, slug FROM blog_aliases WHERE blog_id IN (",
            $ids,
            ") ORDER BY created_at DESC, slug"
        )
    };
}
pub(crate) use change_aliases;
/// Raises the floor of every project with deletions lost before `$1` to the highest change
/// number among them (`$greatest` is the dialect's two-argument maximum).
macro_rules! raise_changes_floor {
    ($greatest:expr) => {
        concat!(
            "UPDATE projects SET changes_floor = ",
            $greatest,
            "(changes_floor, (SELECT MAX(t.change_no) FROM blog_tombstones t \
             WHERE t.project_id = projects.id AND t.lost_at < $1)) \
             WHERE id IN (SELECT project_id FROM blog_tombstones WHERE lost_at < $1)"
        )
    };
}
pub(crate) use raise_changes_floor;
/// Forgets the deletions lost before `$1`.
pub(crate) const PRUNE_TOMBSTONES: &str = "DELETE FROM blog_tombstones WHERE lost_at < $1";
/// Whether the links of the bodies stored before the changes feed are indexed (1) or not (0).
pub(crate) const LINKS_INDEXED: &str = "SELECT links_indexed FROM blogread_meta";
/// Records that they are.
pub(crate) const SET_LINKS_INDEXED: &str = "UPDATE blogread_meta SET links_indexed = 1";
/// Held bodies after id `$1`, at most `$2`, for indexing their links once: `(id, project,
/// body)`.
pub(crate) const BODIES_AFTER: &str = "SELECT b.id, b.project_id, b.pub_content FROM blogs b \
     WHERE b.pub_content IS NOT NULL AND b.id > $1 ORDER BY b.id LIMIT $2";

// ---- credentials ----

/// The public key of project `$1` (`PublicKeyRow`).
pub(crate) const PUBLIC_KEY: &str = "SELECT key, created_at FROM public_keys WHERE project_id = $1";
/// A project's first public key: `$1` project, `$2` key, `$3` key hash, `$4` created at. The
/// primary key on `project_id` allows one key per project.
pub(crate) const INSERT_PUBLIC_KEY: &str = "INSERT INTO public_keys (project_id, key, key_hash, created_at) \
     VALUES ($1, $2, $3, $4)";
/// Replaces the public key of project `$1` (parameters as [`INSERT_PUBLIC_KEY`]): one
/// statement, so the old hash stops matching in the same write.
pub(crate) const REPLACE_PUBLIC_KEY: &str = "UPDATE public_keys SET key = $2, key_hash = $3, created_at = $4 \
     WHERE project_id = $1";
/// Revokes the public key of project `$1`.
pub(crate) const DELETE_PUBLIC_KEY: &str = "DELETE FROM public_keys WHERE project_id = $1";

// ---- admin page sessions ----

/// Forgets the sessions that expired at or before `$1`.
pub(crate) const DELETE_EXPIRED_SESSIONS: &str =
    "DELETE FROM admin_sessions WHERE expires_at <= $1";
/// A new session, written only while its admin token (if any) still exists: `$1` id hash,
/// `$2` admin token id (or NULL), `$3` project (or NULL), `$4` operator token hash (or NULL),
/// `$5` created at, `$6` expires at.
pub(crate) const INSERT_SESSION: &str = "INSERT INTO admin_sessions \
     (id_hash, admin_token_id, project_id, operator_token_hash, created_at, expires_at) \
     SELECT $1, $2, $3, $4, $5, $6 \
     WHERE $4 IS NOT NULL \
     OR EXISTS (SELECT 1 FROM admin_tokens t WHERE t.id = $2 AND t.project_id = $3)";
/// The session with id hash `$1` (`SessionRow`).
pub(crate) const SESSION: &str = "SELECT id_hash, admin_token_id, project_id, operator_token_hash, \
     created_at, expires_at FROM admin_sessions WHERE id_hash = $1";
/// Deletes the session with id hash `$1`.
pub(crate) const DELETE_SESSION: &str = "DELETE FROM admin_sessions WHERE id_hash = $1";

// ---- blogs: management ----

/// Blog `$1` of project `$2` (a `BlogRow`), its published or scheduled snapshot's fields as
/// one JSON object built by `$object` (the dialect's JSON object function) and read as text
/// through `$cast`, with `$tail` after (a lock). The dialects' `SqlDialect::BLOG` and `LOCK_BLOG`.
macro_rules! blog_query {
    ($object:literal, $cast:literal, $tail:literal) => {
        concat!(
            "SELECT id, project_id, status, created_at, updated_at, published_at, \
             published_updated_at, ",
            $crate::store::sql::working_columns!(),
            ", CASE WHEN pub_slug IS NULL THEN NULL ELSE ",
            $object,
            "(",
            $crate::store::sql::with_post_fields!({ $crate::store::sql::snapshot_object_of }()),
            ")",
            $cast,
            " END AS snapshot, pub_content FROM blogs WHERE id = $1 AND project_id = $2",
            $tail
        )
    };
}

/// The arguments of a JSON object of the held snapshot's fields `$name` (each key the name,
/// each value its `pub_` column).
macro_rules! snapshot_object_of {
    ($first:ident $(, $name:ident)*) => {
        concat!(
            "'", stringify!($first), "', pub_", stringify!($first),
            $(", '", stringify!($name), "', pub_", stringify!($name),)*
        )
    };
}
pub(crate) use blog_query;
/// Sets the link template of blog `$1` to `$2`.
pub(crate) const PUT_TEMPLATE: &str = "INSERT INTO blog_templates (blog_id, template) \
     VALUES ($1, $2) ON CONFLICT (blog_id) DO UPDATE SET template = excluded.template";
/// Removes the link template of blog `$1` (its snapshot is gone).
pub(crate) const DELETE_TEMPLATE: &str = "DELETE FROM blog_templates WHERE blog_id = $1";
/// At most `$1` blogs holding a public body without a link template (`PendingTemplateRow`).
pub(crate) const PENDING_TEMPLATES: &str = "SELECT b.id, b.pub_content FROM blogs b \
     LEFT JOIN blog_templates t ON t.blog_id = b.id \
     WHERE b.pub_content IS NOT NULL AND t.blog_id IS NULL LIMIT $1";
/// Adds the link template `$2` of blog `$1` if it has none and still exists (start-up
/// compilation: a write since the read has written its own).
pub(crate) const ADD_TEMPLATE: &str = "INSERT INTO blog_templates (blog_id, template) \
     SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM blogs WHERE id = $1) \
     ON CONFLICT (blog_id) DO NOTHING";
/// The stored form version every template of the database has (see migration 0008).
pub(crate) const TEMPLATES_VERSION: &str = "SELECT templates_version FROM blogread_meta";
/// Records that every template is of stored form `$1`.
pub(crate) const SET_TEMPLATES_VERSION: &str = "UPDATE blogread_meta SET templates_version = $1";
/// At most `$2` stored templates of blogs whose id sorts after `$1`, in id order.
pub(crate) const STORED_TEMPLATES_AFTER: &str = "SELECT blog_id, template FROM blog_templates \
     WHERE blog_id > $1 ORDER BY blog_id LIMIT $2";
/// Replaces blog `$1`'s stored template `$2` (only if it is still that) with `$3`.
pub(crate) const REPLACE_TEMPLATE: &str =
    "UPDATE blog_templates SET template = $3 WHERE blog_id = $1 AND template = $2";
/// Deletes blog `$1`; its slugs and category rows go with it (ON DELETE CASCADE).
pub(crate) const DELETE_BLOG: &str = "DELETE FROM blogs WHERE id = $1";
/// Frees slug `$2` of project `$1` held by blog `$3`.
pub(crate) const DELETE_BLOG_SLUG: &str =
    "DELETE FROM blog_slugs WHERE project_id = $1 AND slug = $2 AND blog_id = $3";
/// Takes slug `$2` of project `$1` for blog `$3` (a unique violation when it is taken).
pub(crate) const INSERT_BLOG_SLUG: &str =
    "INSERT INTO blog_slugs (project_id, slug, blog_id) VALUES ($1, $2, $3)";
/// Deletes the category rows of blog `$1`.
pub(crate) const DELETE_BLOG_CATEGORIES: &str = "DELETE FROM blog_categories WHERE blog_id = $1";
/// A category row: `$1` blog, `$2` project, `$3` category key, `$4` published at.
pub(crate) const INSERT_BLOG_CATEGORY: &str = "INSERT INTO blog_categories (blog_id, project_id, category_key, published_at) \
     VALUES ($1, $2, $3, $4)";
/// A page of the management list (`ManagedRow`): `$1` project, `$2` status or NULL, `$3`
/// limit, `$4` offset. The working copy only: never the published body, which may be as
/// large.
pub(crate) const MANAGED_PAGE: &str = concat!(
    "SELECT id, status, created_at, updated_at, published_at, ",
    working_columns!(),
    " FROM blogs WHERE project_id = $1 AND ($2 IS NULL OR status = $2) \
     ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"
);
/// The total of [`MANAGED_PAGE`]: `$1` project, `$2` status or NULL.
pub(crate) const MANAGED_COUNT: &str =
    "SELECT COUNT(*) FROM blogs WHERE project_id = $1 AND ($2 IS NULL OR status = $2)";

/// The projects that have scheduled blogs due at `$1`.
pub(crate) const DUE_PROJECTS: &str =
    "SELECT DISTINCT project_id FROM blogs WHERE status = 'scheduled' AND published_at <= $1";
/// The scheduled blogs of project `$1` due at `$2`, oldest go-live first (`DueRow`): the
/// columns a go-live writes from, never the body. Each backend's dialect holds the rows for
/// the rest of the transaction its own way (`SqlDialect::LOCK_DUE`).
macro_rules! due_query {
    () => {
        "SELECT id, pub_slug, pub_categories, published_at FROM blogs \
         WHERE project_id = $1 AND status = 'scheduled' AND published_at <= $2 \
         ORDER BY published_at, id"
    };
}
pub(crate) use due_query;
/// Frees the aliases that the blogs of project `$1` due at `$2` publish as their slugs (an
/// alias is freed when any blog publishes that slug).
pub(crate) const FREE_DUE_ALIASES: &str = "DELETE FROM blog_aliases WHERE project_id = $1 \
     AND slug IN (SELECT pub_slug FROM blogs \
     WHERE project_id = $1 AND status = 'scheduled' AND published_at <= $2)";
/// Publishes every blog of project `$1` due at `$2`: one statement a project.
pub(crate) const PUBLISH_DUE: &str = "UPDATE blogs SET status = 'published' \
     WHERE project_id = $1 AND status = 'scheduled' AND published_at <= $2";
/// Whether project `$1` has a deploy hook (firings are recorded only then).
pub(crate) const HAS_HOOK: &str =
    "SELECT COUNT(*) FROM projects WHERE id = $1 AND deploy_hook_url IS NOT NULL";
/// The head of a many-row insert of category rows (see [`values_rows`]): blog, project,
/// category key, published at.
pub(crate) const INSERT_BLOG_CATEGORIES: &str =
    "INSERT INTO blog_categories (blog_id, project_id, category_key, published_at) VALUES ";
/// The head of a many-row insert of firings (see [`values_rows`]): id, project, trigger,
/// blog slug, created at.
pub(crate) const INSERT_FIRINGS: &str =
    "INSERT INTO pending_firings (id, project_id, kind, blog_slug, created_at) VALUES ";
/// Rows a many-row insert writes at most (5 columns: 500 parameters, far below either
/// backend's limit).
pub(crate) const ROWS_PER_INSERT: usize = 100;
/// The earliest go-live of every scheduled blog.
pub(crate) const NEXT_GO_LIVE: &str =
    "SELECT MIN(published_at) FROM blogs WHERE status = 'scheduled'";

/// Frees alias `$2` of project `$1`.
pub(crate) const DELETE_ALIAS: &str =
    "DELETE FROM blog_aliases WHERE project_id = $1 AND slug = $2";
/// Makes `$2` an alias of blog `$3` in project `$1`, created at `$4` (replacing an alias of
/// that slug, which cannot normally exist: publishing a slug frees its alias).
pub(crate) const PUT_ALIAS: &str = "INSERT INTO blog_aliases (project_id, slug, blog_id, created_at) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, slug) \
     DO UPDATE SET blog_id = excluded.blog_id, created_at = excluded.created_at";

// ---- blogs: public reads ----

/// A page of published blogs (`$1` project, `$2` limit, `$3` offset) with the total.
pub(crate) const PAGE: &str = page_query!(published_columns!());
/// [`PAGE`] with the bodies.
pub(crate) const PAGE_WITH_CONTENT: &str = page_query!(
    concat!(published_columns!(), body_columns!()),
    template_join!()
);
/// A page of published blogs in one category (`$1` project, `$2` category key, `$3` limit,
/// `$4` offset) with the total.
pub(crate) const CATEGORY_PAGE: &str = category_page_query!(published_columns!());
/// [`CATEGORY_PAGE`] with the bodies.
pub(crate) const CATEGORY_PAGE_WITH_CONTENT: &str = category_page_query!(
    concat!(published_columns!(), body_columns!()),
    template_join!()
);
/// [`PAGE`] after a key, with the content version (see `keyset_page_query!`).
pub(crate) const KEYSET_PAGE: &str = keyset_page_query!(published_columns!());
/// [`KEYSET_PAGE`] with the bodies.
pub(crate) const KEYSET_PAGE_WITH_CONTENT: &str = keyset_page_query!(
    concat!(published_columns!(), body_columns!()),
    template_join!()
);
/// [`CATEGORY_PAGE`] after a key, with the content version (see
/// `category_keyset_page_query!`).
pub(crate) const CATEGORY_KEYSET_PAGE: &str = category_keyset_page_query!(published_columns!());
/// [`CATEGORY_KEYSET_PAGE`] with the bodies.
pub(crate) const CATEGORY_KEYSET_PAGE_WITH_CONTENT: &str = category_keyset_page_query!(
    concat!(published_columns!(), body_columns!()),
    template_join!()
);
/// [`PAGE`]'s keys (`KeyRow`s), from the covering index alone.
pub(crate) const KEYS_PAGE: &str = page_query!(key_columns!());
/// [`KEYSET_PAGE`]'s keys.
pub(crate) const KEYSET_KEYS_PAGE: &str = keyset_page_query!(key_columns!());
/// The page index's marks of project `$1`'s public list, `$2` the stride: one row with the
/// content version and the total, joined with every `$2`-th key of the order and its
/// position `n` (NULL when the list is shorter than the stride). One statement, so the keys,
/// the total and the version are of one snapshot.
pub(crate) const PAGE_MARKS: &str = "SELECT p.content_version AS version, \
     p.published_count AS total, m.n, m.published_at, m.id FROM projects p LEFT JOIN (\
     SELECT w.n, w.published_at, w.id FROM (SELECT b.published_at, b.id, \
     ROW_NUMBER() OVER (ORDER BY b.published_at DESC, b.id DESC) AS n \
     FROM blogs b WHERE b.project_id = $1 AND b.status = 'published') w \
     WHERE w.n % $2 = 0) m ON TRUE WHERE p.id = $1";
/// [`PAGE_MARKS`] of category `$3`.
pub(crate) const CATEGORY_PAGE_MARKS: &str = "SELECT p.content_version AS version, \
     (SELECT COUNT(*) FROM blog_categories k WHERE k.project_id = $1 AND k.category_key = $3) \
     AS total, m.n, m.published_at, m.id FROM projects p LEFT JOIN (\
     SELECT w.n, w.published_at, w.id FROM (SELECT c.published_at, c.blog_id AS id, \
     ROW_NUMBER() OVER (ORDER BY c.published_at DESC, c.blog_id DESC) AS n \
     FROM blog_categories c WHERE c.project_id = $1 AND c.category_key = $3) w \
     WHERE w.n % $2 = 0) m ON TRUE WHERE p.id = $1";
/// The content version of project `$1`.
pub(crate) const CONTENT_VERSION: &str = "SELECT content_version FROM projects WHERE id = $1";
/// The number of published blogs of project `$1` (the total of an empty [`PAGE`]).
pub(crate) const PUBLISHED_COUNT: &str = "SELECT published_count FROM projects WHERE id = $1";
/// The number of published blogs of project `$1` in category `$2` (the total of an empty
/// [`CATEGORY_PAGE`]).
pub(crate) const CATEGORY_COUNT: &str = "SELECT COUNT(*) FROM blog_categories \
     WHERE project_id = $1 AND category_key = $2";
/// The published blog of project `$1` with published slug `$2`, with its body.
pub(crate) const PUBLISHED_BY_SLUG: &str = concat!(
    "SELECT ",
    published_columns!(),
    body_columns!(),
    " FROM blogs b",
    template_join!(),
    " WHERE b.project_id = $1 AND b.status = 'published' AND b.pub_slug = $2"
);

/// The key (`KeyRow`) of the published blog of project `$1` with published slug `$2`, read
/// from `$blogs` (the posts' table aliased `b`, with a dialect's index hint).
macro_rules! published_key_by_slug {
    ($blogs:expr) => {
        concat!(
            "SELECT b.id, b.change_no FROM ",
            $blogs,
            " WHERE b.project_id = $1 AND b.status = 'published' AND b.pub_slug = $2"
        )
    };
}
/// The published blogs of project `$1` among the ids `$ids` selects (the dialect's rows of
/// the JSON array `$2`), with their change numbers (`PublishedRow`s): the published columns,
/// then `$content` (the body columns and their join, or nothing). The change number is read
/// through the covering index of ids (`$keys`: the posts' table aliased `k`, with a
/// dialect's index hint), so that it is of the same statement as the fields without reading
/// past the bodies.
macro_rules! published_by_ids {
    ($ids:expr, $keys:expr $(, $content:expr, $join:expr)?) => {
        concat!(
            "SELECT ", $crate::store::sql::published_columns!(), $($content,)?
            ", (SELECT k.change_no FROM ", $keys, " WHERE k.id = b.id) AS change_no FROM blogs b",
            $($join,)? " WHERE b.project_id = $1 AND b.status = 'published' AND b.id IN (",
            $ids,
            ")"
        )
    };
}
pub(crate) use {
    body_columns, category_keyset_page_query, category_page_query, key_columns, published_by_ids,
    published_columns, published_columns_of, published_key_by_slug, snapshot_object_of,
    template_join, working_columns, working_columns_of,
};

/// The aliases of the published blogs of project `$1`, newest rename first, at most `$2`:
/// `(from, to)`.
pub(crate) const REDIRECTS: &str = "SELECT a.slug, b.pub_slug FROM blog_aliases a \
     JOIN blogs b ON b.id = a.blog_id \
     WHERE a.project_id = $1 AND b.status = 'published' \
     ORDER BY a.created_at DESC, a.slug LIMIT $2";

// ---- deploy hook ----

/// The deploy hook URL of project `$1`.
pub(crate) const DEPLOY_HOOK: &str = "SELECT deploy_hook_url FROM projects WHERE id = $1";
/// Sets the deploy hook URL of project `$1` to `$2` (NULL clears it).
pub(crate) const SET_DEPLOY_HOOK: &str = "UPDATE projects SET deploy_hook_url = $2 WHERE id = $1";
/// A delivery: `$1` id, `$2` project, `$3` trigger, `$4` blog slug, `$5` attempted at,
/// `$6` success, `$7` status code, `$8` message, `$9` duration in ms.
pub(crate) const INSERT_DELIVERY: &str = "INSERT INTO deliveries (id, project_id, kind, blog_slug, attempted_at, \
     success, status_code, message, duration_ms) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
/// Drops the deliveries of project `$1` older than the newest `$2 + 1` (no row when there are
/// fewer, and `seq < NULL` deletes nothing).
pub(crate) const TRIM_DELIVERIES: &str = "DELETE FROM deliveries WHERE project_id = $1 AND seq < (\
     SELECT seq FROM deliveries WHERE project_id = $1 \
     ORDER BY seq DESC LIMIT 1 OFFSET $2)";
/// The newest `$2` deliveries of project `$1`, newest first (`DeliveryRow`).
pub(crate) const DELIVERIES: &str = "SELECT id, kind, blog_slug, attempted_at, success, status_code, message, \
     duration_ms FROM deliveries WHERE project_id = $1 \
     ORDER BY seq DESC LIMIT $2";

// ---- firings ----

/// Records a firing when project `$2` has a deploy hook: `$1` id, `$3` trigger, `$4` blog
/// slug, `$5` created at.
pub(crate) const INSERT_FIRING: &str = "INSERT INTO pending_firings (id, project_id, kind, blog_slug, created_at) \
     SELECT $1, $2, $3, $4, $5 FROM projects \
     WHERE id = $2 AND deploy_hook_url IS NOT NULL";
/// Claims the unclaimed firings of project `$1` (NULL: of every project) at `$2`, returning
/// them (`FiringRow`). One statement: two claimers at once never both get a row.
pub(crate) const CLAIM_FIRINGS: &str = "UPDATE pending_firings SET claimed_at = $2 \
     WHERE claimed_at IS NULL AND ($1 IS NULL OR project_id = $1) \
     RETURNING id, project_id, kind, blog_slug";
/// The firings claimed before `$1` (`FiringRow`).
pub(crate) const STALE_FIRINGS: &str = "SELECT id, project_id, kind, blog_slug FROM pending_firings \
     WHERE claimed_at < $1";
/// Forgets firing `$1`.
pub(crate) const DELETE_FIRING: &str = "DELETE FROM pending_firings WHERE id = $1";

// ---- values ----

/// `head` followed by `rows` rows of `columns` numbered parameters, `($1, $2), ($3, $4)`:
/// the statement of a many-row insert. Only the placeholders are generated, from numbers;
/// every value is bound (which is why its callers may assert it safe to sqlx).
pub(crate) fn values_rows(head: &str, columns: usize, rows: usize) -> String {
    let mut sql = String::with_capacity(head.len() + rows * columns * 6);
    sql.push_str(head);
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        for column in 0..columns {
            if column > 0 {
                sql.push_str(", ");
            }
            sql.push('$');
            sql.push_str(&(row * columns + column + 1).to_string());
        }
        sql.push(')');
    }
    sql
}

/// An offset or limit as the SQL `bigint` both backends take.
pub(crate) fn sql_count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A `COUNT(*)` read back.
pub(crate) fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or_default()
}
