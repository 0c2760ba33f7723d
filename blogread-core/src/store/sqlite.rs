//! The SQLite backend (feature `sqlite`): the default, a file next to the server.
//!
//! One writer connection and a few reader connections on the same file in WAL mode, so that
//! reads never wait for a write and writes queue in the process instead of spinning on
//! SQLite's busy handler. Every write transaction starts with `BEGIN IMMEDIATE`, taking the
//! write lock before it reads, so a read-modify-write can neither deadlock nor fail half-way
//! with `SQLITE_BUSY` when another process writes to the same file (the busy timeout covers
//! that case).
//!
//! The public key check that starts every public read does not go through sqlx: it is
//! answered on the calling thread by read-only rusqlite connections to the same file (see
//! `sqlite/quick.rs`), falling back to the reader pool whenever SQLite cannot answer at once.

mod backup;
mod files;
mod quick;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::Sqlite;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use super::connection::{ClosingPool, Transactions};
use super::sql::{
    self, Bind, DbId, PublicProjectRow, QuickRow, SqlDialect, SqlStore, bind_all, corrupt, storage,
    timestamp,
};
use super::{BackupReport, DatabaseStore};
use crate::domain::{ProjectId, PublicProject, SitemapEntry};
use crate::error::{Error, Result};

/// How long a connection waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A [`Store`](super::Store) in a SQLite database file: the SQL store over one writer connection and a few
/// reader connections, with SQLite's dialect.
pub type SqliteStore = SqlStore<SqliteDialect>;

/// What the SQLite backend does its own way (see [`SqlDialect`]), and the file it is in.
#[derive(Debug, Clone)]
pub struct SqliteDialect {
    /// Public reads without a thread hand-off (a file database only).
    quick: Option<Arc<quick::QuickReader>>,
    /// The database file (`None` for an in-memory database).
    path: Option<PathBuf>,
}

/// The page cache of the one writer connection, in SQLite's `cache_size` form (negative:
/// KiB): 32 MiB instead of SQLite's 2 MiB. A write walks the indexes of the post and of
/// what it names; past a few thousand posts that working set outgrows 2 MiB, and every write
/// read its pages again through the kernel (seeding 50,000 posts through the API, the last
/// tenth ran at two thirds of the first tenth's rate).
const WRITER_CACHE_PRAGMA: &str = "-32768";

/// The SQLite migrations, embedded at build time.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

impl SqliteStore {
    /// Opens (creating it if missing) the database at `url` (`sqlite://PATH`, `sqlite:PATH`,
    /// or `sqlite::memory:` for a private in-memory database) and brings its schema up to
    /// date. WAL mode, a 5 s busy timeout, foreign keys on, `synchronous=NORMAL` (durable
    /// across process crashes; a power loss may lose the last commits, never consistency).
    pub async fn connect(url: &str) -> Result<Self> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(storage)?
            .create_if_missing(true)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        if is_in_memory(url) {
            // Every connection of an in-memory database would see its own database unless
            // shared, and WAL does not apply: one connection serves reads and writes.
            let pool = SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .test_before_acquire(false)
                .idle_timeout(None)
                .max_lifetime(None)
                .connect_with(options)
                .await
                .map_err(storage)?;
            MIGRATOR.run(&pool).await.map_err(Error::storage)?;
            let pool = ClosingPool::new(pool);
            let dialect = SqliteDialect {
                quick: None,
                path: None,
            };
            let store = SqlStore::new(pool.clone(), pool, dialect);
            store.start_up().await?;
            return Ok(store);
        }
        let options = options
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal);
        // The file holds credentials: made private when this creates it (its -wal and -shm
        // files take its mode), reported when it exists and others may read it.
        if !files::create_private(options.get_filename())? {
            files::warn_if_exposed(options.get_filename());
        }
        // No `ping` before each acquire (sqlx's default): a connection to a local file cannot
        // go stale the way a network one can, and the ping is a second round trip to the
        // connection's worker thread on every query, which doubled the thread switches of
        // each public read under load.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options.clone().pragma("cache_size", WRITER_CACHE_PRAGMA))
            .await
            .map_err(storage)?;
        MIGRATOR.run(&writer).await.map_err(Error::storage)?;
        let readers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
            .clamp(2, 8) as u32;
        let path = options.get_filename().to_path_buf();
        let quick = Some(Arc::new(quick::QuickReader::new(path.clone())));
        let reader = SqlitePoolOptions::new()
            .max_connections(readers)
            .test_before_acquire(false)
            .connect_with(options)
            .await
            .map_err(storage)?;
        let dialect = SqliteDialect {
            quick,
            path: Some(path),
        };
        let store = SqlStore::new(ClosingPool::new(reader), ClosingPool::new(writer), dialect);
        store.start_up().await?;
        Ok(store)
    }

    /// Writes an online, consistent copy of the database to the new file `out` while the
    /// store goes on serving (`VACUUM INTO`: the database as of one commit, compacted), then
    /// checks the copy with `PRAGMA integrity_check` and syncs it to the disk. Refuses an
    /// `out` that exists ([`Error::Conflict`]): a backup never overwrites a file. A copy that
    /// fails its check is removed and reported as an error. An in-memory database cannot be
    /// backed up ([`Error::Config`]).
    pub async fn backup_to(&self, out: &Path) -> Result<BackupReport> {
        let Some(path) = self.dialect().path.clone() else {
            return Err(Error::Config(
                "an in-memory SQLite database has no file to back up".to_owned(),
            ));
        };
        backup_file(path, out.to_path_buf()).await
    }

    /// Closes every connection (checkpointing the WAL when the last one closes: the
    /// read-only key-check connections close first, since they cannot checkpoint).
    pub async fn close(&self) {
        DatabaseStore::close(self).await
    }
}

impl SqliteDialect {
    /// The key check on the calling thread, when the database answers at once; `None` sends
    /// the caller to the reader pool.
    fn quick_key_check(&self, key_hash: &str) -> Option<Option<PublicProject>> {
        self.quick.as_ref()?.lookup(key_hash)
    }
}

impl SqlDialect for SqliteDialect {
    type Db = Sqlite;

    /// `BEGIN IMMEDIATE` takes the write lock first. After an error, a connection whose
    /// `ROLLBACK` failed is clean only if a new transaction can start on it (SQLite refuses
    /// `BEGIN` inside one).
    const TRANSACTIONS: &'static Transactions = &Transactions {
        begin: "BEGIN IMMEDIATE",
        probe: Some("BEGIN DEFERRED; ROLLBACK"),
    };

    const PUBLISHED_ALIASES: &'static str = "SELECT a.slug, b.pub_slug, b.pub_title \
         FROM blog_aliases a JOIN blogs b ON b.id = a.blog_id \
         WHERE a.project_id = $1 AND b.status = 'published' \
         AND a.slug IN (SELECT value FROM json_each($2))";

    const LOCK_PROJECT: &'static str = "SELECT change_seq FROM projects WHERE id = $1";
    const RENEW_RESTORED_EPOCH: &'static [&'static str] = &[
        // (The mark's name: `backup::RESTORED_COPY_MARK`.)
        "UPDATE blogread_meta SET etag_epoch = lower(hex(randomblob(16))) WHERE EXISTS \
         (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'blogread_restored_copy')",
        "DROP TABLE IF EXISTS blogread_restored_copy",
    ];
    const STAMP_LINKERS: &'static str = sql::stamp_linkers!("SELECT value FROM json_each($3)");
    const CHANGE_ALIASES: &'static str = sql::change_aliases!("SELECT value FROM json_each($1)");
    const PUT_PLACEHOLDER_SLUGS: &'static str = sql::put_placeholder_slugs!("json_each($2)");
    const BODY_KEYS_NAMING: &'static str = sql::body_keys_naming!("json_each($2)");
    const MEDIA_USERS: &'static str = sql::media_users!("SELECT value FROM json_each($3)");
    const PLACEHOLDERS_OF: &'static str = sql::placeholders_of!(
        "(SELECT json_extract(value, '$[0]') AS blog_id, json_extract(value, '$[1]') AS copy \
         FROM json_each($2)) k"
    );
    sql::list_statements! {
        texts_2: "SELECT value FROM json_each($2)",
        ids_2: "SELECT value FROM json_each($2)",
        ids_3: "SELECT value FROM json_each($3)",
        keys: "blogs k INDEXED BY blogs_change_key",
    }
    const PUBLISHED_KEY_BY_SLUG: &'static str =
        sql::published_key_by_slug!("blogs b INDEXED BY blogs_published_slug_key");
    const CATEGORY_KEYS_PAGE: &'static str =
        sql::category_page_query!(@ sql::key_columns!(), "blogs b INDEXED BY blogs_change_key");
    const CATEGORY_KEYSET_KEYS_PAGE: &'static str = sql::category_keyset_page_query!(@ sql::key_columns!(), "blogs b INDEXED BY blogs_change_key");
    const RAISE_CHANGES_FLOOR: &'static str = sql::raise_changes_floor!("max");

    /// `BEGIN IMMEDIATE` already holds the write lock: a plain select is enough.
    const BLOG: &'static str = sql::blog_query!("json_object", "", "");
    const LOCK_BLOG: &'static str = Self::BLOG;
    const LOCK_DUE: &'static str = sql::due_query!();

    fn rows_affected(result: &sqlx::sqlite::SqliteQueryResult) -> u64 {
        result.rows_affected()
    }

    /// On the calling thread when the database answers at once, through the reader pool
    /// otherwise (see [`quick`]).
    async fn key_check(
        &self,
        read: &ClosingPool<Sqlite>,
        key_hash: String,
    ) -> Result<Option<PublicProject>> {
        if let Some(answer) = self.quick_key_check(&key_hash) {
            return Ok(answer);
        }
        let row: Option<PublicProjectRow> = sqlx::query_as(quick::QUERY)
            .bind(key_hash)
            .fetch_optional(read)
            .await
            .map_err(storage)?;
        Ok(row.map(PublicProjectRow::into_public))
    }

    async fn published_titles(
        &self,
        read: &ClosingPool<Sqlite>,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, String>> {
        const TITLES: &str = "SELECT pub_slug, pub_title FROM blogs WHERE project_id = $1 \
             AND status = 'published' AND pub_slug IN (SELECT value FROM json_each($2))";
        // The slugs travel as one JSON array parameter, so the statement text never varies.
        let slugs = serde_json::to_string(slugs).expect("a list of strings serialises");
        let binds = [Bind::Id(DbId::from(project)), Bind::Text(&slugs)];
        let rows: Vec<(String, String)> = match self.quick_rows(TITLES, &binds) {
            Some(rows) => rows,
            None => bind_all(sqlx::query_as(TITLES), &binds)
                .fetch_all(read)
                .await
                .map_err(storage)?,
        };
        Ok(rows.into_iter().collect())
    }

    /// On the calling thread when the database answers at once (see [`quick`]).
    fn quick_rows<R: QuickRow>(&self, sql: &'static str, binds: &[Bind<'_>]) -> Option<Vec<R>> {
        self.quick.as_ref()?.rows(sql, binds)
    }

    /// On the calling thread, row by row from the covering index (no JSON to build and
    /// parse: a quarter of the aggregate's cost); the JSON aggregate through the pool
    /// otherwise.
    async fn sitemap(
        &self,
        read: &ClosingPool<Sqlite>,
        project: ProjectId,
        cap: u32,
    ) -> Result<Vec<SitemapEntry>> {
        const SITEMAP: &str = "SELECT pub_slug, published_at, published_updated_at FROM blogs \
             WHERE project_id = $1 AND status = 'published' \
             ORDER BY published_at DESC, id DESC LIMIT $2";
        let binds = [Bind::Id(DbId::from(project)), Bind::Int(i64::from(cap))];
        match self.quick_rows(SITEMAP, &binds) {
            Some(rows) => sitemap_entries(rows),
            None => pooled_sitemap(read, project, cap).await,
        }
    }

    /// The read-only key-check connections close before the pools, since they cannot
    /// checkpoint the WAL.
    fn close(&self) {
        if let Some(quick) = &self.quick {
            quick.close();
        }
    }
}

/// The sitemap through the reader pool: one row holding it as a JSON array.
async fn pooled_sitemap(
    read: &ClosingPool<Sqlite>,
    project: ProjectId,
    cap: u32,
) -> Result<Vec<SitemapEntry>> {
    // One row holding the whole sitemap as a JSON array, read from the covering index:
    // the driver hands each row from SQLite's thread to the caller's task, which for 5000
    // small rows costs several times what the query itself does. The aggregate's own
    // ORDER BY (SQLite 3.44+; the bundled one is newer) keeps the order.
    let json: String = sqlx::query_scalar(
        "SELECT json_group_array(json_array(slug, published_at, updated_at) \
         ORDER BY published_at DESC, id DESC) FROM (\
         SELECT id, pub_slug AS slug, published_at, published_updated_at AS updated_at \
         FROM blogs WHERE project_id = $1 AND status = 'published' \
         ORDER BY published_at DESC, id DESC LIMIT $2)",
    )
    .bind(DbId::from(project))
    .bind(i64::from(cap))
    .fetch_one(read)
    .await
    .map_err(storage)?;
    let rows: Vec<(String, i64, i64)> =
        serde_json::from_str(&json).map_err(|e| corrupt("sitemap", e))?;
    sitemap_entries(rows)
}

/// Sitemap entries from `(slug, published_at, updated_at)` rows.
fn sitemap_entries(rows: Vec<(String, i64, i64)>) -> Result<Vec<SitemapEntry>> {
    rows.into_iter()
        .map(|(slug, published_at, updated_at)| {
            Ok(SitemapEntry::new(
                slug,
                timestamp("published_at", published_at)?,
                timestamp("published_updated_at", updated_at)?,
            ))
        })
        .collect()
}

/// [`backup::backup_file`] on a blocking thread.
async fn backup_file(source: PathBuf, out: PathBuf) -> Result<BackupReport> {
    tokio::task::spawn_blocking(move || backup::backup_file(&source, &out))
        .await
        .map_err(Error::storage)?
}

/// Backs up the SQLite database `url` names without opening it as a store (no migrations, no
/// connection pools): see [`SqliteStore::backup_to`].
pub(super) async fn backup_url(url: &str, out: &Path) -> Result<BackupReport> {
    if is_in_memory(url) {
        return Err(Error::Config(
            "an in-memory SQLite database has no file to back up".to_owned(),
        ));
    }
    let options = SqliteConnectOptions::from_str(url).map_err(storage)?;
    backup_file(options.get_filename().to_path_buf(), out.to_path_buf()).await
}

fn is_in_memory(url: &str) -> bool {
    url.contains(":memory:") || url.contains("mode=memory")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{SqliteDialect, SqliteStore};
    use crate::domain::{PublicProject, SecretHash};
    use crate::error::Result;
    use crate::store::prelude::*;
    use crate::store::sql::SqlDialect;
    use crate::testing::{Fixture, blog_id};

    impl SqliteStore {
        fn quick_key_check(&self, key_hash: &str) -> Option<Option<PublicProject>> {
            self.dialect().quick_key_check(key_hash)
        }

        async fn key_check(&self, key_hash: String) -> Result<Option<PublicProject>> {
            self.dialect().key_check(self.read_pool(), key_hash).await
        }

        fn writer(&self) -> &sqlx::SqlitePool {
            self.write_pool().pool()
        }
    }

    async fn file_store() -> (SqliteStore, String, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let url = format!("sqlite://{}", dir.path().join("keys.db").display());
        (SqliteStore::connect(&url).await.expect("opens"), url, dir)
    }

    #[tokio::test]
    async fn key_check_is_answered_without_sqlx_and_sees_every_commit_at_once() {
        let (store, url, _dir) = file_store().await;
        let f = Fixture::new(Arc::new(store.clone()), None).await;
        let hash = SecretHash::of(&f.public_key).to_hex();
        let before = store
            .quick_key_check(&hash)
            .expect("answered on the calling thread")
            .expect("the key opens its project");
        assert_eq!(before.id, f.project);

        f.published("a", "A", "").await;
        let after = store.quick_key_check(&hash).unwrap().unwrap();
        assert!(
            after.content_version > before.content_version,
            "a publish is seen by the very next check"
        );

        // Another instance on the same file rotates the key.
        let other = SqliteStore::connect(&url).await.unwrap();
        crate::Service::new(Arc::new(other))
            .rotate_public_key(&crate::auth::Caller::operator(), f.project)
            .await
            .unwrap();
        assert_eq!(
            store.quick_key_check(&hash),
            Some(None),
            "a key rotated by another instance fails on the very next check"
        );
    }

    /// The public rows (every page statement, the single blog, aliases, the sitemap) are answered on the
    /// calling thread, and exactly as the sqlx pool answers them.
    #[tokio::test]
    async fn public_rows_are_answered_without_sqlx_and_match_the_pool() {
        use crate::domain::BlogInput;
        use crate::store::sql::{self, Bind, DbId, PublishedRow, bind_all};

        let (store, _url, _dir) = file_store().await;
        let f = Fixture::new(Arc::new(store.clone()), Some("https://www.example.com")).await;
        for i in 0..5 {
            f.clock.advance(1);
            let draft = f
                .draft_with(BlogInput {
                    title: Some(format!("Post {i}")),
                    slug: Some(format!("post-{i}")),
                    content: Some(format!("<p>[INTERNAL:post-{}] é</p>", (i + 1) % 5)),
                    categories: Some(vec!["News".into()]),
                    ..Default::default()
                })
                .await;
            f.publish(&draft, None).await;
        }
        let renamed = f
            .published("old-name", "Renamed", "<!-- refused -->[INTERNAL:x]")
            .await;
        f.rename(&renamed, "new-name").await;
        f.publish(&renamed, None).await;

        // The rows of `$sql` as the quick path and the pool read them, each as `Debug` text.
        macro_rules! both {
            ($row:ty, $sql:expr, $binds:expr) => {{
                let quick: Vec<$row> = store
                    .dialect()
                    .quick_rows($sql, $binds)
                    .expect("answered on the calling thread");
                let pooled: Vec<$row> = bind_all(sqlx::query_as($sql), $binds)
                    .fetch_all(store.read_pool().pool())
                    .await
                    .unwrap();
                (format!("{quick:?}"), format!("{pooled:?}"))
            }};
        }
        let project = Bind::Id(DbId::from(f.project));
        let newest = store
            .published_by_slug(f.project, "post-4")
            .await
            .unwrap()
            .unwrap();
        let key = [
            Bind::Int(newest.published_at.unix_seconds()),
            Bind::Id(DbId::from(newest.id)),
        ];
        let page = [project, Bind::Int(3), Bind::Int(1)];
        let in_news = [project, Bind::Text("news"), Bind::Int(3), Bind::Int(1)];
        let after_key = [project, Bind::Int(3), Bind::Int(0), key[0], key[1]];
        let news_after_key = [
            project,
            Bind::Text("news"),
            Bind::Int(3),
            Bind::Int(0),
            key[0],
            key[1],
        ];
        let cases: [(&'static str, &[Bind<'_>]); 8] = [
            (sql::PAGE, &page),
            (sql::PAGE_WITH_CONTENT, &page),
            (sql::CATEGORY_PAGE_WITH_CONTENT, &in_news),
            (sql::KEYSET_PAGE_WITH_CONTENT, &after_key),
            (sql::CATEGORY_KEYSET_PAGE, &news_after_key),
            (sql::PUBLISHED_BY_SLUG, &[project, Bind::Text("post-2")]),
            (sql::PUBLISHED_BY_SLUG, &[project, Bind::Text("new-name")]),
            (sql::PUBLISHED_BY_SLUG, &[project, Bind::Text("nothing")]),
        ];
        for (statement, binds) in cases {
            let (quick, pooled) = both!(PublishedRow, statement, binds);
            assert_eq!(quick, pooled, "{statement}");
            assert!(
                quick.len() > 10 || statement == sql::PUBLISHED_BY_SLUG,
                "{quick}"
            );
        }
        let aliases = [project, Bind::Text(r#"["old-name","post-1"]"#)];
        let (quick, pooled) = both!(
            (String, String, String),
            SqliteDialect::PUBLISHED_ALIASES,
            &aliases
        );
        assert_eq!(quick, pooled);
        assert!(quick.contains("new-name"), "{quick}");

        let sitemap = store.sitemap(f.project, 5000).await.unwrap();
        let pooled = super::pooled_sitemap(store.read_pool(), f.project, 5000)
            .await
            .unwrap();
        assert_eq!(sitemap, pooled);
        assert_eq!(sitemap.len(), 6);
    }

    #[tokio::test]
    async fn a_publish_whose_commit_fails_changes_nothing_and_the_next_write_succeeds() {
        let (store, _url, _dir) = file_store().await;
        let f = Fixture::new(Arc::new(store.clone()), None).await;
        let draft = f.draft("a", "A", "body").await;
        let hash = SecretHash::of(&f.public_key).to_hex();
        let version = |s: &SqliteStore| s.quick_key_check(&hash).unwrap().unwrap().content_version;
        let before = version(&store);
        {
            // The writer's next COMMIT is refused, and SQLite rolls the transaction back by
            // itself, as when the disk fills during COMMIT.
            let mut conn = store.writer().acquire().await.unwrap();
            let mut handle = conn.lock_handle().await.unwrap();
            let mut refuse = true;
            handle.set_commit_hook(move || !std::mem::replace(&mut refuse, false));
        }
        f.service
            .publish_blog(&f.admin, f.project, blog_id(&draft), None)
            .await
            .expect_err("the COMMIT is refused");
        let stored = store
            .blog(f.project, blog_id(&draft))
            .await
            .unwrap()
            .unwrap();
        assert!(stored.state.snapshot().is_none(), "still a draft");
        assert_eq!(version(&store), before, "no content-version bump");

        let published = f.publish(&draft, None).await;
        assert_eq!(
            published.status,
            crate::domain::BlogStatus::Published,
            "the next write succeeds"
        );
        assert!(version(&store) > before);
        f.draft("b", "B", "").await;
    }

    #[tokio::test]
    async fn the_management_list_does_not_read_published_bodies() {
        let (store, _url, _dir) = file_store().await;
        let f = Fixture::new(Arc::new(store.clone()), None).await;
        f.published("a", "A", "<p>published body</p>").await;
        // A published row without its body cannot be read whole; the list must not need it.
        sqlx::raw_sql(
            "PRAGMA ignore_check_constraints = ON; UPDATE blogs SET pub_content = NULL; \
             PRAGMA ignore_check_constraints = OFF;",
        )
        .execute(store.writer())
        .await
        .unwrap();
        let list = f
            .service
            .blogs(&f.admin, f.project, None, crate::read::ListParams::new())
            .await
            .expect("the list reads the working copy only");
        assert_eq!(list.blogs.len(), 1);
        assert_eq!(list.blogs[0].working.content(), "<p>published body</p>");
    }

    #[tokio::test]
    async fn each_new_database_draws_its_own_etag_epoch_and_keeps_it() {
        let (a, url, _dir_a) = file_store().await;
        let (b, _, _dir_b) = file_store().await;
        let epoch = a.etag_epoch().await.unwrap();
        assert_eq!(epoch.len(), 32, "128 random bits: {epoch}");
        assert_ne!(epoch, b.etag_epoch().await.unwrap());
        a.close().await;
        let reopened = SqliteStore::connect(&url).await.unwrap();
        assert_eq!(reopened.etag_epoch().await.unwrap(), epoch);
    }

    #[tokio::test]
    async fn key_check_of_an_in_memory_database_goes_through_sqlx() {
        let store = SqliteStore::connect("sqlite::memory:").await.unwrap();
        assert_eq!(store.quick_key_check(&"0".repeat(64)), None);
        let f = Fixture::new(Arc::new(store.clone()), None).await;
        let found = store
            .key_check(SecretHash::of(&f.public_key).to_hex())
            .await
            .expect("the reader pool answers");
        assert_eq!(found.map(|p| p.id), Some(f.project));
    }
    #[tokio::test]
    async fn a_backup_is_a_checked_copy_that_opens_as_a_store_with_the_same_blogs() {
        let (store, _url, dir) = file_store().await;
        let f = Fixture::new(Arc::new(store.clone()), None).await;
        f.published("kept", "Kept", "<p>kept</p>").await;
        let out = dir.path().join("backup.db");
        let report = store.backup_to(&out).await.expect("backed up");
        assert_eq!((report.projects, report.blogs), (1, 1));
        assert_eq!(report.bytes, std::fs::metadata(&out).unwrap().len());
        let copy = SqliteStore::connect(&format!("sqlite://{}", out.display()))
            .await
            .unwrap();
        let titles = copy
            .published_titles(f.project, &["kept".to_owned()])
            .await
            .unwrap();
        assert_eq!(titles.get("kept").map(String::as_str), Some("Kept"));
        let restored = copy.etag_epoch().await.unwrap();
        assert_ne!(
            restored,
            store.etag_epoch().await.unwrap(),
            "a restored copy is another database"
        );
        copy.close().await;
        // Once opened, the copy is a database of its own: opening it again keeps its epoch.
        let again = SqliteStore::connect(&format!("sqlite://{}", out.display()))
            .await
            .unwrap();
        assert_eq!(again.etag_epoch().await.unwrap(), restored);
    }

    #[tokio::test]
    async fn each_restore_of_one_backup_is_another_database() {
        let (store, _url, dir) = file_store().await;
        Fixture::new(Arc::new(store.clone()), None).await;
        let out = dir.path().join("backup.db");
        store.backup_to(&out).await.expect("backed up");
        let mut epochs = vec![store.etag_epoch().await.unwrap()];
        for n in 0..2 {
            let restored = dir.path().join(format!("restored-{n}.db"));
            std::fs::copy(&out, &restored).unwrap();
            let copy = SqliteStore::connect(&format!("sqlite://{}", restored.display()))
                .await
                .unwrap();
            epochs.push(copy.etag_epoch().await.unwrap());
            copy.close().await;
        }
        epochs.sort();
        epochs.dedup();
        assert_eq!(
            epochs.len(),
            3,
            "the live database and two restores: {epochs:?}"
        );
    }

    #[tokio::test]
    async fn a_backup_never_overwrites_a_file() {
        let (store, url, dir) = file_store().await;
        let out = dir.path().join("old-backup.db");
        std::fs::write(&out, b"an older backup").unwrap();
        let err = store.backup_to(&out).await.unwrap_err();
        assert!(matches!(err, crate::Error::Conflict(_)), "{err:?}");
        assert!(err.to_string().contains("already exists"), "{err}");
        let err = crate::store::backup_database(&url, &out).await.unwrap_err();
        assert!(matches!(err, crate::Error::Conflict(_)), "{err:?}");
        assert_eq!(std::fs::read(&out).unwrap(), b"an older backup");
    }

    #[tokio::test]
    async fn a_backup_of_a_database_no_server_has_open_leaves_no_wal_files_behind() {
        let (store, url, dir) = file_store().await;
        Fixture::new(Arc::new(store.clone()), None).await;
        store.close().await;
        let beside = |suffix: &str| dir.path().join(format!("keys.db{suffix}"));
        assert!(!beside("-wal").exists() && !beside("-shm").exists());
        let report = crate::store::backup_database(&url, &dir.path().join("backup.db"))
            .await
            .expect("backed up");
        assert_eq!(report.projects, 1);
        assert!(!beside("-wal").exists(), "no -wal left behind");
        assert!(!beside("-shm").exists(), "no -shm left behind");
    }

    #[tokio::test]
    async fn a_backup_of_a_missing_or_foreign_database_is_refused_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("backup.db");
        let missing = format!("sqlite://{}", dir.path().join("missing.db").display());
        let err = crate::store::backup_database(&missing, &out)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("no SQLite database"), "{err}");
        assert!(!dir.path().join("missing.db").exists(), "not created");
        let foreign = dir.path().join("foreign.db");
        rusqlite::Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let url = format!("sqlite://{}", foreign.display());
        let err = crate::store::backup_database(&url, &out).await.unwrap_err();
        assert!(err.to_string().contains("not a blogread database"), "{err}");
        assert!(!out.exists());
    }

    #[tokio::test]
    async fn a_postgres_database_is_backed_up_with_pg_dump() {
        let err = crate::store::backup_database(
            "postgres://app:s3cret@db/blog",
            std::path::Path::new("/tmp/x.dump"),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("pg_dump"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
    }
}
