//! The storage seam: [`Store`], the traits of its topics that every backend implements
//! ([`DatabaseStore`], [`ProjectStore`], [`CredentialStore`], [`SessionStore`], [`PostStore`],
//! [`PublicStore`], [`ChangeStore`], [`FiringStore`], [`LinkStore`], [`MediaStore`]; all in
//! the [`prelude`]),
//! and the in-memory backend.
//!
//! The traits are shaped so that each read the public API needs is one call that a SQL backend
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
pub(crate) mod media_uses;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod rules;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
#[cfg(feature = "sqlite")]
mod sqlite;
mod topics;

use std::path::{Path, PathBuf};
use std::sync::Arc;

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
pub use topics::{
    ChangeStore, CredentialStore, DatabaseStore, FiringStore, LinkStore, MediaStore, PostStore,
    ProjectStore, PublicStore, SessionStore,
};

use crate::domain::{
    Blog, BlogId, ChangePosition, ManagedBlog, Project, ProjectName, PublishedBlog, SiteUrl,
    Timestamp, Trigger,
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
/// what [`PublicStore::published_page_keys`] reads without touching a body.
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

/// One write of a blog, as [`PostStore::update_blog`] applies it in one transaction.
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

/// One page of a project's changes feed to read (see [`ChangeStore::changes`]).
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

/// Storage for projects, credentials, blogs and deploy hooks: every topic trait of the seam,
/// and implemented for every type that implements them all, so that a backend implements
/// the topics (each in its room of that topic) and is a `Store` without a line of its own. The
/// service and the server hold it as `Arc<dyn Store>`; its methods are called on a
/// `dyn Store` as they are, on a concrete store with the [`prelude`] in scope.
///
/// Every method is one atomic operation. Backends map a missing row to the `Ok(None)` /
/// `NotFound` the method documents and a uniqueness violation to [`crate::Error::Conflict`].
pub trait Store:
    DatabaseStore
    + ProjectStore
    + CredentialStore
    + SessionStore
    + PostStore
    + PublicStore
    + ChangeStore
    + FiringStore
    + LinkStore
    + MediaStore
    + 'static
{
}

impl<T> Store for T where
    T: DatabaseStore
        + ProjectStore
        + CredentialStore
        + SessionStore
        + PostStore
        + PublicStore
        + ChangeStore
        + FiringStore
        + LinkStore
        + MediaStore
        + 'static
{
}

/// The store's traits, to bring into scope at once (`use blogread_core::store::prelude::*;`):
/// what calling a store's methods on a concrete store (a `SqliteStore`, say) needs.
pub mod prelude {
    pub use super::{
        ChangeStore, CredentialStore, DatabaseStore, FiringStore, LinkStore, MediaStore, PostStore,
        ProjectStore, PublicStore, SessionStore, Store,
    };
}
