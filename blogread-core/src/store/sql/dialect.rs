//! What differs between the SQL backends, as one small trait that each backend implements
//! and the shared store ([`SqlStore`](super::store::SqlStore)) is generic over.

use std::collections::HashMap;
use std::fmt::Debug;
use std::future::Future;

use sqlx::Database;

use super::quick::QuickRow;
use super::values::Bind;
use crate::domain::{ProjectId, PublicProject, SitemapEntry};
use crate::error::Result;
use crate::store::connection::{ClosingPool, Run, Transactions};

/// The four statements of a [`SqlDialect`] that read lists bound as JSON arrays, written once
/// for every dialect from the dialect's own pieces: `texts_2`, its rows of the texts of `$2`;
/// `ids_2` and `ids_3`, its rows of the ids of `$2` and `$3` (each a one-column `SELECT`); and
/// `keys`, the posts' table aliased `k`, with the hint for its covering index of change
/// numbers where the dialect needs one. Used inside `impl SqlDialect`.
macro_rules! list_statements {
    (
        texts_2: $texts_2:literal,
        ids_2: $ids_2:literal,
        ids_3: $ids_3:literal,
        keys: $keys:literal $(,)?
    ) => {
        const LINK_TARGETS_NAMED: &'static str =
            $crate::store::sql::link_targets_named!($texts_2, $ids_3);
        const LINK_ALIASES_NAMED: &'static str =
            $crate::store::sql::link_aliases_named!($texts_2, $ids_3);
        const PUBLISHED_BY_IDS: &'static str = $crate::store::sql::published_by_ids!($ids_2, $keys);
        const MEDIA_BY_DIGESTS: &'static str = $crate::store::sql::media_by_digests!($texts_2);
        const PUBLISHED_BY_IDS_WITH_CONTENT: &'static str = $crate::store::sql::published_by_ids!(
            $ids_2,
            $keys,
            $crate::store::sql::body_columns!(),
            $crate::store::sql::template_join!()
        );
    };
}
pub(crate) use list_statements;

/// A SQL backend's dialect: its database, how its write transactions start and lock a blog,
/// and the reads it answers in its own way. Everything else (every other statement, the
/// order of a write's steps, the rules) is the same on every backend and lives in
/// [`SqlStore`](super::store::SqlStore).
///
/// An implementation holds the backend's own state for these reads (SQLite: the read-only
/// connections of the key check; PostgreSQL: the key check batcher).
pub(crate) trait SqlDialect: Debug + Clone + Send + Sync + 'static {
    /// The sqlx database, whose connections run queries (see [`Run`]).
    type Db: Database<Connection: Run>;

    /// How a write transaction starts (SQLite: `BEGIN IMMEDIATE`, taking the write lock
    /// first; PostgreSQL: `BEGIN`) and how a connection is proven clean after a failed one.
    const TRANSACTIONS: &'static Transactions;

    /// Selects blog `$1` in project `$2` (a `BlogRow`, its snapshot's fields as one JSON
    /// object: `queries::blog_query!` with the dialect's JSON function).
    const BLOG: &'static str;

    /// [`SqlDialect::BLOG`], holding the blog for the rest of the write transaction (SQLite:
    /// a plain select, since `BEGIN IMMEDIATE` holds the write lock already; PostgreSQL:
    /// `FOR UPDATE`).
    const LOCK_BLOG: &'static str;

    /// Selects the scheduled blogs of project `$1` due at `$2` (`DueRow`s, see
    /// `queries::due_query!`), holding them for the rest of the write transaction (SQLite: a
    /// plain select; PostgreSQL: `FOR UPDATE`), so that a go-live is recorded once.
    const LOCK_DUE: &'static str;

    /// Selects the change sequence of project `$1`, holding the project's row for the rest
    /// of the write transaction (SQLite: a plain select; PostgreSQL: `FOR NO KEY UPDATE`, the
    /// lock its later update takes anyway, taken before any blog's).
    const LOCK_PROJECT: &'static str;

    /// At start-up, in one write transaction: draws a new ETag epoch when the database is a
    /// restored copy, and forgets what told so; the first statement's changed rows say
    /// whether it was one. A restore is another database to every ETag and changes-feed
    /// cursor issued before it (SQLite: a copy `backup` marked; PostgreSQL: a
    /// `blogread_meta` table made anew by a restore, with another object id).
    const RENEW_RESTORED_EPOCH: &'static [&'static str];

    /// `queries::stamp_linkers!` with the dialect's rows of a JSON array of texts.
    const STAMP_LINKERS: &'static str;

    /// `links_report::put_placeholder_slugs!` with the dialect's rows of a JSON array of
    /// texts.
    const PUT_PLACEHOLDER_SLUGS: &'static str;

    /// `links_report::body_keys_naming!` with the dialect's rows of a JSON array of texts.
    const BODY_KEYS_NAMING: &'static str;

    /// `links_report::placeholders_of!` with the dialect's rows of a JSON array of
    /// `[post, copy]` pairs.
    const PLACEHOLDERS_OF: &'static str;

    /// `links_report::link_targets_named!` with the dialect's rows of a JSON array of texts
    /// and of one of ids (see [`list_statements!`]).
    const LINK_TARGETS_NAMED: &'static str;

    /// `links_report::link_aliases_named!`, likewise.
    const LINK_ALIASES_NAMED: &'static str;

    /// `media_uses::media_users!` with the dialect's rows of a JSON array of texts (`$3`).
    const MEDIA_USERS: &'static str;

    /// `media::media_by_digests!` with the dialect's rows of a JSON array of texts (`$2`).
    const MEDIA_BY_DIGESTS: &'static str;

    /// `queries::change_aliases!` with the dialect's rows of a JSON array of ids.
    const CHANGE_ALIASES: &'static str;

    /// `queries::published_by_ids!` with the dialect's rows of a JSON array of ids and its
    /// covering index of ids' change numbers.
    const PUBLISHED_BY_IDS: &'static str;

    /// [`SqlDialect::PUBLISHED_BY_IDS`] with the bodies.
    const PUBLISHED_BY_IDS_WITH_CONTENT: &'static str;

    /// `queries::published_key_by_slug!` through the covering index of slug keys (SQLite
    /// picks a unique index for an equality on all its columns, here the slug's, whatever
    /// covers the query: a dialect names the covering index where it must).
    const PUBLISHED_KEY_BY_SLUG: &'static str;

    /// A category page's keys (`queries::category_page_query!` of `queries::key_columns!`),
    /// the change numbers read through the covering index of ids.
    const CATEGORY_KEYS_PAGE: &'static str;

    /// [`SqlDialect::CATEGORY_KEYS_PAGE`] after a key (`queries::category_keyset_page_query!`).
    const CATEGORY_KEYSET_KEYS_PAGE: &'static str;

    /// `queries::raise_changes_floor!` with the dialect's two-argument maximum.
    const RAISE_CHANGES_FLOOR: &'static str;

    /// The number of rows a statement changed (sqlx has no trait for it).
    fn rows_affected(result: &<Self::Db as Database>::QueryResult) -> u64;

    /// The project the public key with this hash (lower-case hex) opens, with what a public
    /// read needs of it; `read` is the store's read pool. It runs before every public read
    /// and must see every change committed before it was called.
    fn key_check(
        &self,
        read: &ClosingPool<Self::Db>,
        key_hash: String,
    ) -> impl Future<Output = Result<Option<PublicProject>>> + Send;

    /// For the slugs of the JSON array `$2` that are aliases of a published blog of project
    /// `$1`: the alias, the blog's published slug and title (`(String, String, String)`).
    const PUBLISHED_ALIASES: &'static str;

    /// Published title by published slug for those of `slugs` (at least one) that name a
    /// published blog of `project`, in one query.
    fn published_titles(
        &self,
        read: &ClosingPool<Self::Db>,
        project: ProjectId,
        slugs: &[String],
    ) -> impl Future<Output = Result<HashMap<String, String>>> + Send;

    /// The sitemap entries of the newest `cap` published blogs of `project`, newest first,
    /// in one query.
    fn sitemap(
        &self,
        read: &ClosingPool<Self::Db>,
        project: ProjectId,
        cap: u32,
    ) -> impl Future<Output = Result<Vec<SitemapEntry>>> + Send;

    /// The rows of the public read `sql` with `binds` (in `$N` order), answered at once on
    /// the calling thread when the backend can (SQLite: see `store/sqlite/quick.rs`); `None`
    /// sends the caller through the read pool, which gives the same answer.
    fn quick_rows<R: QuickRow>(&self, sql: &'static str, binds: &[Bind<'_>]) -> Option<Vec<R>> {
        let _ = (sql, binds);
        None
    }

    /// Closes what the dialect holds besides the store's pools, before they close (SQLite:
    /// its read-only key-check connections, which cannot checkpoint the WAL).
    fn close(&self) {}
}
