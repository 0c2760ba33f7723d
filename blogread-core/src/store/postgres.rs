//! The PostgreSQL backend (feature `postgres`): for several server instances or more data
//! than one machine should hold.
//!
//! Lifecycle writes lock the blog's row with `SELECT … FOR UPDATE` inside the transaction, so
//! concurrent writes to one blog apply one after the other; slug uniqueness is a primary key,
//! so concurrent writes to different blogs cannot both take a slug.
//!
//! The public key checks that start every public read are batched: the checks that arrive
//! while one query runs are answered together by the next (see `keys.rs`).

mod keys;

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

use sqlx::Postgres;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use super::DatabaseStore;
use super::connection::{ClosingPool, Transactions};
use super::faults;
use super::sql::{self, DbId, SitemapRow, SqlDialect, SqlStore, storage};
use crate::domain::{ProjectId, PublicProject, SitemapEntry};
use crate::error::{Error, Result};

/// How long a query waits for a connection (a free one, or a new one while the server does
/// not answer) before it fails with "the database does not answer".
const ACQUIRE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// A pooled connection idle for this long is pinged before its next query.
const PING_WHEN_IDLE_FOR: std::time::Duration = std::time::Duration::from_secs(10);

/// A [`Store`](super::Store) in a PostgreSQL database: the SQL store over one pool (for reads and writes
/// alike), with PostgreSQL's dialect.
pub type PostgresStore = SqlStore<PostgresDialect>;

/// What the PostgreSQL backend does its own way (see [`SqlDialect`]).
#[derive(Debug, Clone)]
pub struct PostgresDialect {
    /// Public key checks, batched.
    keys: Arc<keys::KeyBatcher>,
}

/// The PostgreSQL migrations, embedded at build time.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`, or `postgresql://`)
    /// and brings the schema up to date (under PostgreSQL's advisory lock, so several
    /// instances may start at once).
    pub async fn connect(url: &str) -> Result<Self> {
        let options = Self::connect_options(url)?;
        let connections = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
            .saturating_mul(4)
            .clamp(4, 32) as u32;
        // sqlx pings a connection before every acquire by default: a second network round
        // trip for every query, which halved the throughput of cached public reads (each of
        // them is one key-check query). A connection that was busy a moment ago is alive; one
        // that sat idle (a PostgreSQL restart, a proxy's idle cut) is still pinged, and so is
        // every connection that went idle before the last failed one: after a restart the
        // whole pool is broken, and each broken connection is replaced before its next query
        // instead of failing it. A failed ping swaps the connection for a new one.
        //
        // While the server is down, a query waits at most ACQUIRE_TIMEOUT (then 503) and sqlx
        // retries connecting with a back-off capped at a fifth of it, so a server that comes
        // back is reached within that cap.
        let pool = PgPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .test_before_acquire(false)
            .before_acquire(|conn, meta| {
                Box::pin(async move {
                    if meta.idle_for < PING_WHEN_IDLE_FOR
                        && !faults::idle_since_last_failure(meta.idle_for)
                    {
                        return Ok(true);
                    }
                    Ok(sqlx::Connection::ping(conn).await.is_ok())
                })
            })
            .connect_with(options)
            .await
            .map_err(storage)?;
        MIGRATOR.run(&pool).await.map_err(Error::storage)?;
        let pool = ClosingPool::new(pool);
        let dialect = PostgresDialect {
            keys: keys::KeyBatcher::new(pool.clone()),
        };
        let store = SqlStore::new(pool.clone(), pool, dialect);
        store.start_up().await?;
        Ok(store)
    }

    /// The options [`PostgresStore::connect`] opens each connection of `url` with: the URL's
    /// own, and PostgreSQL told to plan each prepared statement once (`plan_cache_mode =
    /// force_generic_plan`) unless the URL's `options` set `plan_cache_mode` themselves.
    ///
    /// Every statement of this store reads by indexed keys, a plan that does not depend on
    /// the values bound; but a page's `LIMIT $n` makes PostgreSQL cost the generic plan above
    /// a custom one (an unknown limit is taken as a tenth of the rows), so by default it kept
    /// planning the public reads anew at every execution, which was most of its CPU for a
    /// list page whose posts' answers were held (`benches/README.md`, "Fragment cache").
    pub fn connect_options(url: &str) -> Result<PgConnectOptions> {
        let options = PgConnectOptions::from_str(url).map_err(storage)?;
        let set_in_url = options
            .get_options()
            .is_some_and(|given| given.contains("plan_cache_mode"));
        Ok(if set_in_url {
            options
        } else {
            options.options([("plan_cache_mode", "force_generic_plan")])
        })
    }

    /// Closes every connection.
    pub async fn close(&self) {
        DatabaseStore::close(self).await
    }
}

impl SqlDialect for PostgresDialect {
    const PUBLISHED_ALIASES: &'static str = "SELECT a.slug, b.pub_slug, b.pub_title \
         FROM blog_aliases a JOIN blogs b ON b.id = a.blog_id \
         WHERE a.project_id = $1 AND b.status = 'published' \
         AND a.slug IN (SELECT jsonb_array_elements_text($2::jsonb))";

    type Db = Postgres;

    const LOCK_PROJECT: &'static str =
        "SELECT change_seq FROM projects WHERE id = $1 FOR NO KEY UPDATE";
    const RENEW_RESTORED_EPOCH: &'static [&'static str] = &[
        "UPDATE blogread_meta SET etag_epoch = md5(random()::text || clock_timestamp()::text \
         || pg_backend_pid()::text), meta_oid = 'blogread_meta'::regclass \
         WHERE meta_oid IS DISTINCT FROM 'blogread_meta'::regclass::oid",
    ];
    const STAMP_LINKERS: &'static str =
        sql::stamp_linkers!("SELECT jsonb_array_elements_text($3::jsonb)");
    const CHANGE_ALIASES: &'static str =
        sql::change_aliases!("SELECT (jsonb_array_elements_text($1::jsonb))::uuid");
    const PUT_PLACEHOLDER_SLUGS: &'static str =
        sql::put_placeholder_slugs!("jsonb_array_elements_text($2::jsonb) AS t(value)");
    const MEDIA_USERS: &'static str =
        sql::media_users!("SELECT jsonb_array_elements_text($3::jsonb)");
    const BODY_KEYS_NAMING: &'static str =
        sql::body_keys_naming!("jsonb_array_elements_text($2::jsonb) AS t(value)");
    const PLACEHOLDERS_OF: &'static str = sql::placeholders_of!(
        "(SELECT (e ->> 0)::uuid AS blog_id, e ->> 1 AS copy \
         FROM jsonb_array_elements($2::jsonb) AS t(e)) k"
    );
    sql::list_statements! {
        texts_2: "SELECT jsonb_array_elements_text($2::jsonb)",
        ids_2: "SELECT (jsonb_array_elements_text($2::jsonb))::uuid",
        ids_3: "SELECT (jsonb_array_elements_text($3::jsonb))::uuid",
        keys: "blogs k",
    }
    const PUBLISHED_KEY_BY_SLUG: &'static str = sql::published_key_by_slug!("blogs b");
    const CATEGORY_KEYS_PAGE: &'static str =
        sql::category_page_query!(@ sql::key_columns!(), "blogs b");
    const CATEGORY_KEYSET_KEYS_PAGE: &'static str =
        sql::category_keyset_page_query!(@ sql::key_columns!(), "blogs b");
    const RAISE_CHANGES_FLOOR: &'static str = sql::raise_changes_floor!("GREATEST");

    /// A plain `BEGIN`. PostgreSQL accepts `ROLLBACK` in any state of a live connection, so a
    /// connection whose `ROLLBACK` failed is broken and closed.
    const TRANSACTIONS: &'static Transactions = &Transactions {
        begin: "BEGIN",
        probe: None,
    };

    /// The blog's row stays locked until the transaction ends, so concurrent writes to one
    /// blog apply one after the other.
    const BLOG: &'static str = sql::blog_query!("json_build_object", "::text", "");
    const LOCK_BLOG: &'static str = sql::blog_query!("json_build_object", "::text", " FOR UPDATE");
    const LOCK_DUE: &'static str = concat!(sql::due_query!(), " FOR UPDATE");

    fn rows_affected(result: &sqlx::postgres::PgQueryResult) -> u64 {
        result.rows_affected()
    }

    /// From a query shared with the checks waiting at the same moment (see [`keys`]); the
    /// batcher has its own handle on the pool.
    async fn key_check(
        &self,
        _read: &ClosingPool<Postgres>,
        key_hash: String,
    ) -> Result<Option<PublicProject>> {
        self.keys.check(key_hash).await
    }

    async fn published_titles(
        &self,
        read: &ClosingPool<Postgres>,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, String>> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT pub_slug, pub_title FROM blogs WHERE project_id = $1 \
             AND status = 'published' AND pub_slug = ANY($2)",
        )
        .bind(DbId::from(project))
        .bind(slugs)
        .fetch_all(read)
        .await
        .map_err(storage)?;
        Ok(rows.into_iter().collect())
    }

    async fn sitemap(
        &self,
        read: &ClosingPool<Postgres>,
        project: ProjectId,
        cap: u32,
    ) -> Result<Vec<SitemapEntry>> {
        let rows: Vec<SitemapRow> = sqlx::query_as(
            "SELECT pub_slug AS slug, published_at, published_updated_at AS updated_at \
             FROM blogs WHERE project_id = $1 AND status = 'published' \
             ORDER BY published_at DESC, id DESC LIMIT $2",
        )
        .bind(DbId::from(project))
        .bind(i64::from(cap))
        .fetch_all(read)
        .await
        .map_err(storage)?;
        rows.into_iter().map(SitemapRow::into_entry).collect()
    }
}
