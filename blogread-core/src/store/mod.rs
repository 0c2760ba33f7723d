//! The storage seam: one trait that every backend implements, and the in-memory backend.
//!
//! The trait is shaped so that each read the public API needs is one call that a SQL backend
//! can answer with one query: a list page together with its `total`, a single blog by slug,
//! the sitemap, and the titles of every slug that a response's placeholders reference (one
//! look-up per request, never one per placeholder). Lifecycle writes are a read-modify-write
//! of one blog that a backend runs in one transaction, applying a change computed by the
//! rules of [`crate::lifecycle`], so the rules live in one place and no crash can leave a
//! half-published blog.

#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod connection;
mod database_url;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod faults;
mod link_sources;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod rules;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;

pub use database_url::redact_database_url;
pub(crate) use link_sources::bodies_of;
pub use link_sources::{BodyCopy, BodyKey, BodyPlaceholders, LinkTargetSources, names_any};
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
/// The SQL stores' page index, driven from the benchmarks (not an interface to use).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
#[doc(hidden)]
pub use sql::PageIndexBench;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use crate::domain::{
    AdminSession, Blog, BlogId, BlogStatus, ChangePosition, CredentialId, CredentialKind, Delivery,
    ManagedBlog, PendingFiring, Project, ProjectId, ProjectName, PublicProject, PublishedBlog,
    Redirect, SecretHash, SiteUrl, SitemapEntry, StoredCredential, StoredPublicKey, Timestamp,
    Trigger,
};
use crate::error::Result;
use crate::links::CompiledBody;

/// Opens the store a database URL names, picking the backend from its scheme:
/// `sqlite://PATH` or `sqlite:PATH` (created if missing; `sqlite:///absolute/path`;
/// `sqlite::memory:` for a throw-away database) with the `sqlite` feature, `postgres://…` or
/// `postgresql://…` with the `postgres` feature, and `memory:` for the in-memory store (lost
/// at exit). Runs the backend's migrations before returning. A URL no backend of this build
/// takes is [`Error::Config`](crate::Error::Config).
pub async fn open_store(url: &str) -> Result<Arc<dyn Store>> {
    if url == "memory:" {
        return Ok(Arc::new(MemoryStore::new()));
    }
    let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        #[cfg(feature = "sqlite")]
        Some("sqlite") => Ok(Arc::new(SqliteStore::connect(url).await?)),
        #[cfg(feature = "postgres")]
        Some("postgres" | "postgresql") => Ok(Arc::new(PostgresStore::connect(url).await?)),
        #[cfg(not(feature = "sqlite"))]
        Some("sqlite") => Err(missing_feature("sqlite")),
        #[cfg(not(feature = "postgres"))]
        Some("postgres" | "postgresql") => Err(missing_feature("postgres")),
        _ => Err(crate::Error::Config(format!(
            "unsupported database URL `{}`: use sqlite://PATH, postgres://USER@HOST/DATABASE or memory:",
            redact_database_url(url)
        ))),
    }
}

/// What an online backup wrote (see [`backup_database`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupReport {
    /// The new file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Projects in the copy.
    pub projects: u64,
    /// Blogs in the copy (every status).
    pub blogs: u64,
}

/// Writes an online, consistent copy of the database `url` names to the new file `out`, while
/// servers go on using the database: for `sqlite://PATH`, the database as of one commit
/// (`VACUUM INTO`), checked with `PRAGMA integrity_check` and synced to the disk (see
/// `SqliteStore::backup_to`). Never overwrites a file ([`Error::Conflict`](crate::Error::Conflict)
/// when `out` exists). The database is not opened as a store: no migration runs.
///
/// PostgreSQL is backed up with its own tools: for a `postgres://` URL this is
/// [`Error::Config`](crate::Error::Config) saying to use `pg_dump`. `memory:` has nothing to
/// back up.
pub async fn backup_database(url: &str, out: &Path) -> Result<BackupReport> {
    let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        #[cfg(feature = "sqlite")]
        Some("sqlite") => sqlite::backup_url(url, out).await,
        #[cfg(not(feature = "sqlite"))]
        Some("sqlite") => Err(missing_feature("sqlite")),
        Some("postgres" | "postgresql") => Err(crate::Error::Config(format!(
            "PostgreSQL databases are backed up with PostgreSQL's own tools, not this command: \
             run `pg_dump --format=custom --file {} '{}'` (consistent while servers run; \
             restore with pg_restore)",
            out.display(),
            redact_database_url(url)
        ))),
        _ if url == "memory:" => Err(crate::Error::Config(
            "the memory: store is lost at exit and has nothing to back up".to_owned(),
        )),
        _ => Err(crate::Error::Config(format!(
            "unsupported database URL `{}`: backups are of sqlite://PATH databases",
            redact_database_url(url)
        ))),
    }
}

#[cfg(not(all(feature = "sqlite", feature = "postgres")))]
fn missing_feature(feature: &str) -> crate::Error {
    crate::Error::Config(format!(
        "this database URL needs blogread-core's `{feature}` feature, which this build lacks"
    ))
}

/// The `kind` labels of the `blogread_store_errors_total` counter the SQL stores record
/// through the `metrics` facade: a full disk, the write lock held past the busy time-out, an
/// unreachable database server, any other failure, and a corrupt row. An exporter registers
/// each at zero, so that a healthy server shows the series too.
pub const STORE_ERROR_KINDS: [&str; 5] = ["disk_full", "busy", "unreachable", "failure", "corrupt"];

/// The fields of a project to change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectChange {
    /// A new name.
    pub name: Option<ProjectName>,
    /// A new site URL, or `Some(None)` to clear it.
    pub site_url: Option<Option<SiteUrl>>,
}

/// One page of the projects, as the store reads it (the service returns it as a
/// [`ProjectList`](crate::service::ProjectList)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPage {
    /// The page, oldest first.
    pub projects: Vec<Project>,
    /// All projects.
    pub total: u64,
}

/// What names one public answer of a published post exactly: its id and its change number,
/// which every write that changes the post's public answer (its own snapshot, or the state,
/// title or URL of a post it links to) replaces with a new one (see the changes feed,
/// `docs/public-api.md#changes-feed`). The per-post fragment cache is keyed by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PostKey {
    /// The post.
    pub id: BlogId,
    /// Its change number, read in the same statement as whatever is read with it.
    pub change: u64,
}

/// The keys of one page of published blogs, in page order, with the total after the filter:
/// what [`Store::published_page_keys`] reads without touching a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageKeys {
    /// The page's posts, sorted as [`PublishedPage::blogs`] is.
    pub keys: Vec<PostKey>,
    /// All published blogs matching the filter, independent of limit and offset.
    pub total: u64,
}

/// The published blogs of a project to read: one page, after the category filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageQuery {
    /// Page size, already clamped to 1..=100.
    pub limit: u32,
    /// Blogs to skip.
    pub offset: u64,
    /// Category key (see [`category_key`]) to filter on, if any.
    pub category: Option<String>,
    /// Whether to load the bodies.
    pub include_content: bool,
}

/// One page of published blogs with the total after the filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedPage {
    /// The page, sorted by `published_at` descending, then id descending.
    pub blogs: Vec<PublishedBlog>,
    /// All published blogs matching the filter, independent of limit and offset.
    pub total: u64,
}

/// One page of the management list of a project's blogs, as the store reads it (the service
/// returns it as a [`ManagedBlogList`](crate::service::ManagedBlogList)): each blog's working
/// copy and lifecycle data, never its published snapshot (a page of 100 would otherwise carry
/// up to 200 bodies). Not the public list: that is [`PublishedPage`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedPage {
    /// The page, newest created first.
    pub blogs: Vec<ManagedBlog>,
    /// All blogs matching the status filter.
    pub total: u64,
}

/// The category filter compares case-insensitively; every backend compares this key, computed
/// in Rust so that all backends agree on Unicode case folding.
pub fn category_key(category: &str) -> String {
    category.to_lowercase()
}

/// How a public key is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyWrite {
    /// Generate: fails with a conflict if the project has a key.
    Create,
    /// Rotate: fails with not-found if the project has no key; the old key stops working in
    /// the same write.
    Replace,
}

/// A change to one blog, computed by the lifecycle rules from the blog as it is in the
/// transaction. It edits the blog in place and says which visible-content event (if any) the
/// change is, or fails, in which case nothing is written.
pub type BlogChange = Box<dyn FnOnce(&mut Blog) -> Result<Option<Trigger>> + Send>;

/// One write of a blog, as [`Store::update_blog`] applies it in one transaction.
pub struct BlogUpdate {
    /// The change, applied to the blog as it is in the transaction.
    pub change: BlogChange,
    /// When the write is made, by the service's clock: the time its firing is recorded at.
    pub at: Timestamp,
    /// The body the change may publish, compiled before the transaction (see
    /// [`CompiledBody`]); a body the change publishes that this is not is compiled by the
    /// store.
    pub compiled: Option<CompiledBody>,
}

impl BlogUpdate {
    /// A write of `change` at `at` that publishes no body compiled beforehand.
    pub fn new(change: BlogChange, at: Timestamp) -> Self {
        Self {
            change,
            at,
            compiled: None,
        }
    }

    /// The same write, publishing `compiled`'s body when the change publishes one.
    pub fn publishing(mut self, compiled: CompiledBody) -> Self {
        self.compiled = Some(compiled);
        self
    }
}

/// One page of a project's changes feed to read (see [`Store::changes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeQuery {
    /// Read the entries after this position. [`ChangePosition::Start`] is the initial sync:
    /// every published post, as upserts, and no deletes.
    pub after: ChangePosition,
    /// Entries at most (1..=100).
    pub limit: u32,
    /// Stop after the entry whose bodies bring the page past this many bytes (always at
    /// least one entry).
    pub body_budget: usize,
}

/// What a store holds for one entry of the feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredChange {
    /// A published post, with its body (`content` or `template`), and its aliases, newest
    /// rename first.
    Upsert(Box<PublishedBlog>, Vec<String>),
    /// A slug that was a published post's and is not now.
    Delete(String),
}

/// One page of a project's changes feed, as a store reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRead {
    /// The project's last change number when the read began: the page holds no entry of a
    /// later change, and a position of a later change is not this database's.
    pub head: u64,
    /// The highest change number whose deletes were pruned: a position below it can no
    /// longer be served.
    pub floor: u64,
    /// The entries after the query's position (none when it is below `floor` or above
    /// `head`), each with its own position, in order.
    pub entries: Vec<(ChangePosition, StoredChange)>,
    /// Whether entries of changes up to `head` follow the last one.
    pub has_more: bool,
}

/// Storage for projects, credentials, blogs and deploy hooks.
///
/// Every method is one atomic operation. Backends map a missing row to the `Ok(None)` /
/// `NotFound` the method documents and a uniqueness violation to [`crate::Error::Conflict`].
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Checks that the backend answers.
    async fn ping(&self) -> Result<()>;

    /// Closes the store's connections (SQLite: the last one checkpoints the WAL into the
    /// database file). Nothing may use the store afterwards. The default does nothing.
    async fn close(&self) {}

    /// A random value fixed when the database was created, mixed into every ETag so that a
    /// new database can never answer 304 to a tag an older one issued.
    async fn etag_epoch(&self) -> Result<String>;

    // ---- projects ----

    /// Inserts a new project.
    async fn insert_project(&self, project: &Project) -> Result<()>;
    /// A project by id.
    async fn project(&self, id: ProjectId) -> Result<Option<Project>>;
    /// Every project, oldest first.
    async fn projects(&self) -> Result<Vec<Project>>;
    /// One page of every project, oldest first (by creation time, then id), and how many
    /// projects there are.
    async fn project_page(&self, limit: u32, offset: u64) -> Result<ProjectPage>;
    /// Changes the fields `change` names, and only those, in one atomic step (two concurrent
    /// changes of different fields both apply); returns the project as changed (`NotFound`
    /// when absent). A site URL change bumps the content version, since it changes every
    /// resolved link.
    async fn update_project(&self, id: ProjectId, change: &ProjectChange) -> Result<Project>;

    // ---- credentials ----

    /// The project's public key, if any.
    async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>>;
    /// Generates or rotates the public key (see [`KeyWrite`]).
    async fn put_public_key(
        &self,
        project: ProjectId,
        key: &StoredPublicKey,
        mode: KeyWrite,
    ) -> Result<()>;
    /// Revokes the public key; true when there was one.
    async fn delete_public_key(&self, project: ProjectId) -> Result<bool>;
    /// The project a public key belongs to, by the key's hash: one indexed look-up that also
    /// returns what a read needs (site URL, content version). It runs before every public
    /// read, so it is the hot path of a backend; and it must see every change committed
    /// before it was called, by any process (a rotated or revoked key fails on the very next
    /// request), so its answer is never kept across calls. The SQLite backend answers it on
    /// the calling thread, the PostgreSQL backend batches the calls that arrive together.
    async fn project_by_public_key(&self, hash: &SecretHash) -> Result<Option<PublicProject>>;
    /// Stores a new agent key or admin token (`Conflict` when one of its kind has its id or
    /// hash; `NotFound` when its project is absent).
    async fn insert_credential(&self, record: &StoredCredential) -> Result<()>;
    /// The project's credentials of `kind`, oldest first.
    async fn credentials(
        &self,
        kind: CredentialKind,
        project: ProjectId,
    ) -> Result<Vec<StoredCredential>>;
    /// Deletes credential `id` of `kind`; true when it existed in that project. Deleting an
    /// admin token deletes the admin sessions signed in with it in the same step.
    async fn delete_credential(
        &self,
        kind: CredentialKind,
        project: ProjectId,
        id: CredentialId,
    ) -> Result<bool>;
    /// The credential of `kind` with this hash.
    async fn credential_by_hash(
        &self,
        kind: CredentialKind,
        hash: &SecretHash,
    ) -> Result<Option<StoredCredential>>;

    // ---- admin page sessions ----

    /// Stores a new admin session and, in the same step, forgets every session that expired
    /// at or before the new one's creation time. A session signed in with an admin token
    /// ends when that token is deleted ([`Store::delete_credential`] deletes its sessions).
    async fn insert_admin_session(&self, session: &AdminSession) -> Result<()>;
    /// A session by the hash of its id, expired or not (the caller compares the expiry).
    async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>>;
    /// Deletes a session; true when it existed.
    async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool>;

    // ---- blogs: management ----

    /// Inserts a new blog (`Conflict` when its slug is taken in the project).
    async fn insert_blog(&self, blog: &Blog) -> Result<()>;
    /// A blog by id within a project.
    async fn blog(&self, project: ProjectId, id: BlogId) -> Result<Option<Blog>>;
    /// One page of the project's management list, optionally of one status, newest created
    /// first.
    async fn blogs(
        &self,
        project: ProjectId,
        status: Option<BlogStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<ManagedPage>;
    /// Applies `change` to the blog in one transaction and returns the blog as written and
    /// the event. Slug history is kept in the same transaction: when a published blog's
    /// published slug changes, the old one becomes an alias of the blog (created now); an
    /// alias is freed when any blog publishes that slug, and when its blog is deleted. `NotFound` when absent; `Conflict` when the new slug is taken. When the
    /// change reports an event, the project's content version is bumped in the same
    /// transaction.
    async fn update_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        update: BlogUpdate,
    ) -> Result<(Blog, Option<Trigger>)>;
    /// The projects that have scheduled blogs whose go-live time is at or before `now`: the
    /// go-lives not recorded yet.
    async fn projects_due(&self, now: Timestamp) -> Result<Vec<ProjectId>>;
    /// Records the go-live of every scheduled blog of `project` whose time has come at `now`
    /// (see [`crate::lifecycle::go_live`]), all in one transaction, set-based (one statement
    /// publishes them all): each becomes published, frees the aliases its slug names, gets its
    /// category rows, and records one `published` firing when the project has a deploy hook;
    /// the content version is bumped once. Returns how many went live: 0 when none was due,
    /// or when another writer (another instance) recorded them first: a go-live is recorded
    /// once.
    async fn go_live(&self, project: ProjectId, now: Timestamp) -> Result<u64>;
    /// The earliest go-live time of every project's scheduled blogs, if any: when the
    /// scheduler wakes next.
    async fn next_go_live(&self) -> Result<Option<Timestamp>>;
    /// Deletes a blog and returns it as it was (`NotFound` when absent). Deleting a published
    /// blog bumps the content version in the same transaction and records its firing at
    /// `at`.
    async fn delete_blog(&self, project: ProjectId, id: BlogId, at: Timestamp) -> Result<Blog>;

    // ---- blogs: public reads ----

    /// One page of published blogs and the total after the filter.
    async fn published_page(&self, project: ProjectId, query: &PageQuery) -> Result<PublishedPage>;
    /// The keys of one page of published blogs (the page [`Store::published_page`] reads for
    /// the same query, whose `include_content` it ignores) and the total, without reading a
    /// body.
    async fn published_page_keys(&self, project: ProjectId, query: &PageQuery) -> Result<PageKeys>;
    /// The key of the published blog with this published slug, without reading its body.
    async fn published_key_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PostKey>>;
    /// Those of `ids` that are published blogs of the project, in no particular order, each
    /// with the key read in the same statement, with their bodies when `include_content`
    /// (as [`Store::published_page`] reads them).
    async fn published_by_ids(
        &self,
        project: ProjectId,
        ids: &[BlogId],
        include_content: bool,
    ) -> Result<Vec<(PostKey, PublishedBlog)>>;
    /// The published blog with this published slug, with its content.
    async fn published_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PublishedBlog>>;
    /// The aliases of the project's published blogs (old published slugs, see
    /// [`Store::update_blog`]), newest rename first (then by alias), at most `cap`.
    async fn redirects(&self, project: ProjectId, cap: u32) -> Result<Vec<Redirect>>;
    /// For those of `slugs` that are aliases of a published blog of the project: the alias ->
    /// (the blog's current published slug, its published title). Link resolution asks it for
    /// the placeholders [`Store::published_titles`] did not answer.
    async fn published_aliases(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, (String, String)>>;
    /// The newest `cap` published blogs' sitemap entries.
    async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>>;
    /// Published title by published slug, for those of `slugs` that name a published blog of
    /// the project: the one look-up link resolution makes per request.
    async fn published_titles(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, String>>;

    /// One page of the project's changes feed (`docs/public-api.md#changes-feed`): the
    /// published posts whose change number puts them after `query.after` (each in its state
    /// now) and the slugs lost by later changes, in change order, up to the project's last
    /// change when the read began. Every write that changes public answers takes the next
    /// number of its project's sequence in its own transaction and stamps it on every
    /// published post whose answer or aliases it changed: the post written, and every
    /// published post whose body names a slug whose resolution it changed (found through
    /// the slugs the post's link template references); a public slug it takes from the
    /// published posts is kept as a deletion with the number.
    async fn changes(&self, project: ProjectId, query: &ChangeQuery) -> Result<ChangeRead>;
    /// Forgets the deletions recorded before `before` (the feed's retention), raising each
    /// project's floor to the highest change number forgotten. Returns how many.
    async fn prune_changes(&self, before: Timestamp) -> Result<u64>;

    // ---- deploy hook ----

    /// The saved deploy hook URL, if any.
    async fn deploy_hook(&self, project: ProjectId) -> Result<Option<String>>;
    /// Saves, replaces (`Some`) or clears (`None`) the deploy hook URL.
    async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()>;
    /// Appends to the delivery log, keeping the newest [`crate::domain::delivery::DELIVERY_LOG_LEN`].
    async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()>;
    /// The delivery log, newest first.
    async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>>;

    // ---- firings recorded with their writes ----
    //
    // `update_blog` and `delete_blog` record a [`PendingFiring`] in their own transaction when
    // the write causes a visible-content event and the project has a deploy hook.

    /// Claims the recorded firings not yet attempted, of `project` or of every project,
    /// marking them claimed at `now` in the same step: each firing is claimed once, whoever
    /// asks at the same moment.
    async fn claim_firings(
        &self,
        project: Option<ProjectId>,
        now: Timestamp,
    ) -> Result<Vec<PendingFiring>>;
    /// Firings claimed before `claimed_before` and never completed: their process died while
    /// attempting them.
    async fn stale_firings(&self, claimed_before: Timestamp) -> Result<Vec<PendingFiring>>;
    /// Forgets a firing and, if it was still recorded, appends `delivery` to the log, in one
    /// transaction (so a delivery is recorded once even when two processes complete it).
    /// Returns whether the firing was still recorded.
    async fn complete_firing(
        &self,
        firing: &PendingFiring,
        delivery: Option<&Delivery>,
    ) -> Result<bool>;

    // ---- links report ----

    /// Every post of `project` as a link target, and every alias (old public slug) with its
    /// post: what the project-wide links report judges placeholders against.
    async fn link_targets(&self, project: ProjectId) -> Result<LinkTargetSources>;

    /// What judging placeholders naming `slugs` needs, and the posts `ids`: every post of
    /// `project` whose working or public slug is one of `slugs`, or that holds an alias in
    /// `slugs`, and the posts `ids`; every alias in `slugs`, and every alias of the posts
    /// `ids`. A post's judgement of its own links, and a post's backlinks, read through it:
    /// what they read grows with what the post names, never with the project.
    async fn link_targets_named(
        &self,
        project: ProjectId,
        slugs: &[String],
        ids: &[BlogId],
    ) -> Result<LinkTargetSources>;

    /// The distinct slugs named by the placeholders of the bodies of `project`'s posts, as
    /// `links::report::placeholders` reads them (`None` for a malformed placeholder), in no
    /// particular order.
    async fn linked_slugs(&self, project: ProjectId) -> Result<Vec<Option<String>>>;

    /// The bodies of `project`'s posts that hold placeholders (each post's working copy,
    /// and its published or scheduled snapshot), named with the size of their stored lists:
    /// every one (`naming` is `None`), or only those holding one that names a slug of
    /// `naming` (see [`names_any`]). In no particular order.
    async fn link_body_keys(
        &self,
        project: ProjectId,
        naming: Option<&[Option<String>]>,
    ) -> Result<Vec<BodyKey>>;

    /// The placeholders of the bodies `keys` names (those of `project` that still hold
    /// any), as `links::report::placeholders` lists them, in no particular order. A report
    /// reads the keys first, then their lists a batch at a time, so that what it holds stays
    /// bounded whatever the project holds.
    ///
    /// The report reads the targets, the keys and the bodies apart (the SQL stores read
    /// each with one statement): a write between them shows in the next report, and a body
    /// whose post is not among the targets is left out of it.
    async fn link_bodies(
        &self,
        project: ProjectId,
        keys: &[BodyKey],
    ) -> Result<Vec<BodyPlaceholders>>;
}
