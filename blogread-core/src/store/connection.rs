//! Connections that are either clean or closed.
//!
//! A pooled connection that goes back to its pool after an error may carry the error's
//! consequences to the next caller: a transaction left open (SQLite rolls a transaction back by
//! itself after some failures, such as a full disk during COMMIT, and not after others), or a
//! socket in an unknown state. The next `BEGIN` then fails, and with a one-connection writer
//! pool every write fails until the process restarts. So:
//!
//! - a write transaction is a [`WriteTx`], which issues `BEGIN`, `COMMIT` and `ROLLBACK` itself
//!   (sqlx's own transaction type keeps a depth counter that a failed COMMIT leaves wrong) and,
//!   after any error, rolls back and proves the connection clean or closes it;
//! - any other query runs through a [`ClosingPool`], which closes the connection a query failed
//!   on instead of returning it to the pool, since nothing cheap proves it clean;
//! - a transaction dropped half-way (the caller's future cancelled) closes its connection,
//!   which rolls the transaction back.

use std::ops::{Deref, DerefMut};

use futures_util::TryStreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::{self, BoxStream};
use sqlx::pool::PoolConnection;
use sqlx::{Database, Either, Execute, Executor, Pool, SqlStr};

use super::faults::{self, classify};
use crate::error::Result;

/// How a backend opens a write transaction and proves a connection clean after an error.
#[derive(Debug)]
pub(crate) struct Transactions {
    /// The statement that starts a write transaction.
    pub(crate) begin: &'static str,
    /// Statements that succeed only on a connection outside any transaction, run when a
    /// `ROLLBACK` fails (there may have been no transaction left to roll back). `None`: a
    /// failed `ROLLBACK` always closes the connection.
    pub(crate) probe: Option<&'static str>,
}

/// A connection that runs queries, as sqlx's executor: every sqlx database's connection is
/// one. Generic code asks `DB::Connection: Run` and runs a query on `conn.run()`, so that
/// sqlx's higher-ranked bound (a borrow of the connection, for any lifetime, is an executor)
/// is written here once instead of on every generic block of the stores.
pub(crate) trait Run: sqlx::Connection {
    /// The executor a borrow of the connection is.
    type On<'c>: Executor<'c, Database = Self::Database>
    where
        Self: 'c;

    /// The connection as an executor, for one query.
    fn run(&mut self) -> Self::On<'_>;
}

/// `Run` for each backend's connection type: a borrow of it is the executor.
macro_rules! runs_itself {
    ($connection:ty) => {
        impl Run for $connection {
            type On<'c> = &'c mut $connection;

            fn run(&mut self) -> &mut $connection {
                self
            }
        }
    };
}
#[cfg(feature = "sqlite")]
runs_itself!(sqlx::SqliteConnection);
#[cfg(feature = "postgres")]
runs_itself!(sqlx::PgConnection);

/// A pool whose connections are closed, not reused, after a query on them fails. Queries run
/// on `&ClosingPool` as on `&Pool` (it is a sqlx [`Executor`]); rows are read whole before
/// they are handed over (every caller collects them anyway), so the connection's fate is known
/// when the query ends.
#[derive(Debug)]
pub(crate) struct ClosingPool<DB: Database>(Pool<DB>);

impl<DB: Database> Clone for ClosingPool<DB> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<DB: Database> ClosingPool<DB> {
    /// Wraps `pool`.
    pub(crate) fn new(pool: Pool<DB>) -> Self {
        Self(pool)
    }

    /// The pool itself (for migrations, closing, and write transactions).
    pub(crate) fn pool(&self) -> &Pool<DB> {
        &self.0
    }
}

/// Closes `conn` (on drop) when `result` is an error.
fn or_close<DB: Database, T>(
    conn: &mut PoolConnection<DB>,
    result: std::result::Result<T, sqlx::Error>,
) -> std::result::Result<T, sqlx::Error> {
    if result.is_err() {
        conn.close_on_drop();
    } else {
        faults::reached();
    }
    result
}

impl<'p, DB> Executor<'p> for &'_ ClosingPool<DB>
where
    DB: Database,
    DB::Connection: Run,
{
    type Database = DB;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, std::result::Result<Either<DB::QueryResult, DB::Row>, sqlx::Error>>
    where
        E: 'q + Execute<'q, DB>,
    {
        let pool = self.0.clone();
        let all = async move {
            let mut conn = pool.acquire().await?;
            let result: std::result::Result<Vec<_>, _> =
                conn.run().fetch_many(query).try_collect().await;
            or_close(&mut conn, result)
        };
        Box::pin(
            stream::once(all)
                .map_ok(|items| stream::iter(items.into_iter().map(Ok)))
                .try_flatten(),
        )
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, std::result::Result<Option<DB::Row>, sqlx::Error>>
    where
        E: 'q + Execute<'q, DB>,
    {
        let pool = self.0.clone();
        Box::pin(async move {
            let mut conn = pool.acquire().await?;
            let result = conn.run().fetch_optional(query).await;
            or_close(&mut conn, result)
        })
    }

    fn prepare_with<'e>(
        self,
        sql: SqlStr,
        parameters: &'e [DB::TypeInfo],
    ) -> BoxFuture<'e, std::result::Result<DB::Statement, sqlx::Error>>
    where
        'p: 'e,
    {
        let pool = self.0.clone();
        Box::pin(async move {
            let mut conn = pool.acquire().await?;
            let result = conn.run().prepare_with(sql, parameters).await;
            or_close(&mut conn, result)
        })
    }

    fn describe<'e>(
        self,
        sql: SqlStr,
    ) -> BoxFuture<'e, std::result::Result<sqlx::Describe<DB>, sqlx::Error>> {
        let pool = self.0.clone();
        Box::pin(async move {
            let mut conn = pool.acquire().await?;
            let result = conn.run().describe(sql).await;
            or_close(&mut conn, result)
        })
    }
}

/// A write transaction on a connection of its own. End it with [`WriteTx::finish`]; dropped
/// unfinished, it closes its connection.
pub(crate) struct WriteTx<DB: Database> {
    conn: Option<PoolConnection<DB>>,
    transactions: &'static Transactions,
}

impl<DB> WriteTx<DB>
where
    DB: Database,
    DB::Connection: Run,
{
    /// Takes a connection from `pool` and starts a write transaction on it.
    pub(crate) async fn begin(
        pool: &Pool<DB>,
        transactions: &'static Transactions,
    ) -> Result<Self> {
        let mut conn = pool.acquire().await.map_err(classify)?;
        match sqlx::raw_sql(transactions.begin).execute(conn.run()).await {
            Ok(_) => Ok(Self {
                conn: Some(conn),
                transactions,
            }),
            Err(e) => {
                Self::recover(conn, transactions).await;
                Err(classify(e))
            }
        }
    }

    /// Commits when `result` is `Ok`, rolls back otherwise; returns `result`, or the error
    /// of a COMMIT that failed (then nothing was written). Either way the connection goes
    /// back to its pool clean, or is closed.
    pub(crate) async fn finish<T>(mut self, result: Result<T>) -> Result<T> {
        let mut conn = self.conn.take().expect("a transaction is finished once");
        match result {
            Ok(value) => match sqlx::raw_sql("COMMIT").execute(conn.run()).await {
                Ok(_) => {
                    faults::write_succeeded();
                    Ok(value)
                }
                Err(e) => {
                    Self::recover(conn, self.transactions).await;
                    Err(classify(e))
                }
            },
            Err(e) => {
                Self::recover(conn, self.transactions).await;
                Err(e)
            }
        }
    }

    /// Rolls back whatever is left of a transaction and returns the connection to its pool only
    /// if it is proven outside any transaction; closes it otherwise.
    async fn recover(mut conn: PoolConnection<DB>, transactions: &Transactions) {
        if sqlx::raw_sql("ROLLBACK").execute(conn.run()).await.is_ok() {
            return;
        }
        if let Some(probe) = transactions.probe
            && sqlx::raw_sql(probe).execute(conn.run()).await.is_ok()
        {
            return;
        }
        tracing::warn!("closing a database connection left in an unknown state by an error");
        conn.close_on_drop();
    }
}

impl<DB: Database> Drop for WriteTx<DB> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.as_mut() {
            // Cancelled half-way: closing the connection rolls the transaction back.
            conn.close_on_drop();
        }
    }
}

impl<DB: Database> Deref for WriteTx<DB> {
    type Target = DB::Connection;

    fn deref(&self) -> &DB::Connection {
        self.conn.as_ref().expect("an unfinished transaction")
    }
}

impl<DB: Database> DerefMut for WriteTx<DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        self.conn.as_mut().expect("an unfinished transaction")
    }
}

/// Cases both backends' tests run.
#[cfg(all(test, any(feature = "sqlite", feature = "postgres")))]
mod cases {
    use sqlx::{Database, Pool};

    use super::{Run, Transactions, WriteTx};

    /// A parent table and a child table whose foreign key is checked at COMMIT.
    pub(super) const SCHEMA: &str = "CREATE TABLE parent (id INTEGER PRIMARY KEY); \
        CREATE TABLE child (id INTEGER PRIMARY KEY, \
        parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);";

    /// A COMMIT refused by a deferred foreign key writes nothing, and the next write on the
    /// same (only) connection succeeds.
    pub(super) async fn deferred_key_commit<DB>(
        pool: &Pool<DB>,
        transactions: &'static Transactions,
    ) where
        DB: Database,
        DB::Connection: Run,
    {
        sqlx::raw_sql(SCHEMA)
            .execute(pool.acquire().await.expect("a connection").run())
            .await
            .expect("schema");
        let mut tx = WriteTx::begin(pool, transactions).await.expect("begins");
        sqlx::raw_sql("INSERT INTO child (id, parent) VALUES (1, 42)")
            .execute(tx.run())
            .await
            .expect("a deferred key is checked at COMMIT, not now");
        tx.finish(Ok(()))
            .await
            .expect_err("the COMMIT fails on the dangling key");

        let mut tx = WriteTx::begin(pool, transactions)
            .await
            .expect("the connection is clean: a new transaction starts");
        sqlx::raw_sql("INSERT INTO parent (id) VALUES (1)")
            .execute(tx.run())
            .await
            .expect("insert");
        tx.finish(Ok(())).await.expect("commits");
        let rows = |sql| async move {
            sqlx::raw_sql(sql)
                .fetch_all(pool.acquire().await.expect("a connection").run())
                .await
                .expect("select")
                .len()
        };
        assert_eq!(
            rows("SELECT id FROM child").await,
            0,
            "the failed write left nothing"
        );
        assert_eq!(rows("SELECT id FROM parent").await, 1);
    }
}

#[cfg(all(test, feature = "sqlite"))]
mod sqlite_tests {
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    use sqlx::{Pool, Sqlite};

    use super::{ClosingPool, Run, Transactions, WriteTx};

    static TRANSACTIONS: Transactions = Transactions {
        begin: "BEGIN IMMEDIATE",
        probe: Some("BEGIN DEFERRED; ROLLBACK"),
    };

    /// A one-connection pool on a file, like the store's writer, with a parent table and a
    /// child table whose foreign key is checked at COMMIT.
    async fn one_connection() -> (Pool<Sqlite>, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let options = SqliteConnectOptions::new()
            .filename(dir.path().join("t.db"))
            .create_if_missing(true)
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options)
            .await
            .expect("opens");
        sqlx::raw_sql(super::cases::SCHEMA)
            .execute(&pool)
            .await
            .expect("schema");
        (pool, dir)
    }

    async fn count(pool: &Pool<Sqlite>, table: &str) -> i64 {
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
            .fetch_one(pool)
            .await
            .expect("count")
    }

    #[tokio::test]
    async fn a_commit_refused_by_a_deferred_foreign_key_writes_nothing_and_the_next_write_succeeds()
    {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(
                SqliteConnectOptions::new()
                    .filename(dir.path().join("t.db"))
                    .create_if_missing(true)
                    .foreign_keys(true),
            )
            .await
            .expect("opens");
        super::cases::deferred_key_commit(&pool, &TRANSACTIONS).await;
    }

    #[tokio::test]
    async fn a_commit_that_sqlite_rolled_back_itself_leaves_the_connection_usable() {
        let (pool, _dir) = one_connection().await;
        {
            // A commit hook that refuses once: SQLite rolls the transaction back itself, as
            // it does when the disk fills during COMMIT, so the ROLLBACK that follows fails.
            let mut conn = pool.acquire().await.unwrap();
            let mut handle = conn.lock_handle().await.unwrap();
            let mut refuse = true;
            handle.set_commit_hook(move || !std::mem::replace(&mut refuse, false));
        }
        let mut tx = WriteTx::begin(&pool, &TRANSACTIONS).await.unwrap();
        sqlx::query("INSERT INTO parent (id) VALUES (1)")
            .execute(tx.run())
            .await
            .unwrap();
        tx.finish(Ok(()))
            .await
            .expect_err("the hook refuses the COMMIT");

        let mut tx = WriteTx::begin(&pool, &TRANSACTIONS)
            .await
            .expect("a new transaction starts");
        sqlx::query("INSERT INTO parent (id) VALUES (2)")
            .execute(tx.run())
            .await
            .unwrap();
        tx.finish(Ok(())).await.expect("commits");
        let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM parent")
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(ids, [2], "only the acknowledged write is there");
    }

    #[tokio::test]
    async fn a_transaction_dropped_half_way_is_rolled_back_and_the_next_write_succeeds() {
        let (pool, _dir) = one_connection().await;
        let mut tx = WriteTx::begin(&pool, &TRANSACTIONS).await.unwrap();
        sqlx::query("INSERT INTO parent (id) VALUES (1)")
            .execute(tx.run())
            .await
            .unwrap();
        drop(tx);
        let tx = WriteTx::begin(&pool, &TRANSACTIONS)
            .await
            .expect("the pool opened a fresh connection");
        tx.finish(Ok(())).await.unwrap();
        assert_eq!(count(&pool, "parent").await, 0);
    }

    #[tokio::test]
    async fn a_connection_whose_query_failed_is_closed_not_reused() {
        let (pool, _dir) = one_connection().await;
        let closing = ClosingPool::new(pool);
        // Connection state that only the same connection would show: a temporary table.
        sqlx::query("CREATE TEMP TABLE marker (x)")
            .execute(&closing)
            .await
            .unwrap();
        sqlx::query("SELECT * FROM marker")
            .execute(&closing)
            .await
            .expect("a successful query keeps its connection");
        sqlx::query("SELECT * FROM no_such_table")
            .execute(&closing)
            .await
            .expect_err("fails");
        let err = sqlx::query("SELECT * FROM marker")
            .execute(&closing)
            .await
            .expect_err("a new connection has no temporary table");
        assert!(err.to_string().contains("no such table"), "{err}");
    }
}

#[cfg(all(test, feature = "postgres"))]
mod postgres_tests {
    use sqlx::postgres::PgPoolOptions;

    use super::Transactions;
    use crate::testing::postgres_server::fresh_database;

    static TRANSACTIONS: Transactions = Transactions {
        begin: "BEGIN",
        probe: None,
    };

    #[tokio::test]
    async fn a_commit_refused_by_a_deferred_foreign_key_writes_nothing_and_the_next_write_succeeds()
    {
        let Some((url, _guard)) = fresh_database().await else {
            return;
        };
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .connect(&url)
            .await
            .unwrap();
        super::cases::deferred_key_commit(&pool, &TRANSACTIONS).await;
        pool.close().await;
    }
}
