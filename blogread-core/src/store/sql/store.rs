//! The [`Store`](crate::store::Store) of the SQL backends, written once as generic code over
//! their [`SqlDialect`]: each backend's store is a [`SqlStore`] of its dialect (`SqliteStore`,
//! `PostgresStore`).
//!
//! Every lifecycle write is one transaction ([`WriteTx`]): it locks the blog the dialect's
//! way, applies the change the lifecycle rules computed, writes the blog and its derived rows
//! (slugs, categories), bumps the content version by the rule of
//! [`VisibleChange`], and records the firing, so no crash can leave a half-published blog.

// `SqlStore` is public, so that `SqliteStore` and `PostgresStore` can be its two public
// aliases with no wrapper forwarding every call; its dialect bound stays crate-private: no one
// outside the crate names a dialect, and the only two are the backends'.
#![allow(private_bounds)]

use std::sync::Arc;

use super::dialect::SqlDialect;
use super::errors::storage;
use super::page_index::PageIndex;
use super::queries::{self, count};
use super::quick::QuickRow;
use super::values::{Bind, DbId, SqlRow, bind_all};
use crate::domain::ProjectId;
use crate::error::Result;
use crate::store::DatabaseStore;
use crate::store::connection::{ClosingPool, Run, WriteTx};

/// Writes `impl` blocks of [`SqlStore`] (its own methods, or a topic trait's:
/// `impl ProjectStore for SqlStore { ... }`) with the one statement
/// of what the SQL code needs of a database, which both sqlx databases have: it reads
/// columns by name or position, its statements take their arguments, and it binds and reads
/// back these [`Value`]s. Queries run on a connection through [`Run`](crate::store::connection::Run)
/// (the dialect's database promises it). Rust neither lets a trait carry bounds on other
/// types for its users nor lets a `where` clause be named, so the rooms of the store (one
/// module per topic, each an `impl` block) share them through this macro instead of
/// repeating the list.
macro_rules! sql_impl {
    (impl $topic:ident for SqlStore { $($body:tt)* }) => {
        sql_impl!(@bounds [#[async_trait::async_trait] impl<D> $topic for SqlStore<D>] $($body)*);
    };
    (impl SqlStore { $($body:tt)* }) => {
        sql_impl!(@bounds [impl<D> SqlStore<D>] $($body)*);
    };
    (@bounds [$($head:tt)*] $($body:tt)*) => {
        // Public type, crate-private bounds: see the allowance at the top of `store.rs`.
        #[allow(private_bounds)]
        $($head)*
        where
            D: crate::store::sql::SqlDialect,
            for<'r> &'r str: sqlx::ColumnIndex<<D::Db as sqlx::Database>::Row>,
            usize: sqlx::ColumnIndex<<D::Db as sqlx::Database>::Row>,
            <D::Db as sqlx::Database>::Arguments: sqlx::IntoArguments<D::Db>,
            crate::store::sql::DbId: crate::store::sql::values::Value<D::Db>,
            Option<crate::store::sql::DbId>: crate::store::sql::values::Value<D::Db>,
            i64: crate::store::sql::values::Value<D::Db>,
            Option<i64>: crate::store::sql::values::Value<D::Db>,
            i32: crate::store::sql::values::Value<D::Db>,
            bool: crate::store::sql::values::Value<D::Db>,
            String: crate::store::sql::values::Value<D::Db>,
            Option<String>: crate::store::sql::values::Value<D::Db>,
        {
            $($body)*
        }
    };
}
pub(super) use sql_impl;

/// A SQL store: its read and write pools (the same pool on PostgreSQL; on SQLite the one
/// writer connection and the readers) and its dialect. Single-statement writes go to the
/// write pool, write transactions to its connection.
pub struct SqlStore<D: SqlDialect> {
    /// The pool of reads.
    pub(super) read: ClosingPool<D::Db>,
    /// The pool of single-statement writes and write transactions.
    pub(super) write: ClosingPool<D::Db>,
    /// The dialect, with the backend's own state.
    pub(super) dialect: D,
    /// Marks of the public order, so a deep page seeks instead of stepping over its offset.
    pub(super) pages: Arc<PageIndex>,
}

// By hand: a derive would ask the database marker type itself to be `Clone` and `Debug`.
impl<D: SqlDialect> Clone for SqlStore<D> {
    fn clone(&self) -> Self {
        Self {
            read: self.read.clone(),
            write: self.write.clone(),
            dialect: self.dialect.clone(),
            pages: Arc::clone(&self.pages),
        }
    }
}

impl<D: SqlDialect> std::fmt::Debug for SqlStore<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore")
            .field("read", &self.read)
            .field("write", &self.write)
            .field("dialect", &self.dialect)
            .finish()
    }
}

impl<D: SqlDialect> SqlStore<D> {
    /// A store reading through `read` and writing through `write`.
    pub(crate) fn new(read: ClosingPool<D::Db>, write: ClosingPool<D::Db>, dialect: D) -> Self {
        Self {
            read,
            write,
            dialect,
            pages: Arc::default(),
        }
    }

    /// The pool of reads (SQLite's tests reach past the store).
    #[cfg(test)]
    pub(crate) fn read_pool(&self) -> &ClosingPool<D::Db> {
        &self.read
    }

    /// The pool of writes (SQLite's tests reach past the store).
    #[cfg(test)]
    pub(crate) fn write_pool(&self) -> &ClosingPool<D::Db> {
        &self.write
    }

    /// The dialect, with the backend's own state.
    pub(crate) fn dialect(&self) -> &D {
        &self.dialect
    }
}

sql_impl! {
    impl SqlStore {
        /// Holds project `project`'s row for the rest of `tx` (PostgreSQL; SQLite's write lock
        /// holds everything already), before any blog's: every write that may stamp other
        /// posts takes it first, so two writes never wait on each other's rows.
        pub(super) async fn lock_project(tx: &mut WriteTx<D::Db>, project: ProjectId) -> Result<Option<u64>> {
            let seq: Option<i64> = sqlx::query_scalar(D::LOCK_PROJECT)
                .bind(DbId::from(project))
                .fetch_optional(tx.run())
                .await
                .map_err(storage)?;
            Ok(seq.map(count))
        }

        /// The rows of the public read `sql`: on the calling thread when the dialect can answer
        /// at once, through the read pool otherwise.
        pub(super) async fn public_rows<R>(&self, sql: &'static str, binds: &[Bind<'_>]) -> Result<Vec<R>>
        where
            R: QuickRow + SqlRow<D::Db>,
        {
            if let Some(rows) = self.dialect.quick_rows(sql, binds) {
                return Ok(rows);
            }
            bind_all(sqlx::query_as(sql), binds)
                .fetch_all(&self.read)
                .await
                .map_err(storage)
        }

        /// The rows of a management report's read `sql` of project `$1`, which reads every post
        /// of the project: through the dialect's own driver on a blocking thread when it can
        /// answer (SQLite: sqlx's hand-off of each row between threads was most of the links
        /// report's cost on 10,000 posts), through the read pool otherwise.
        pub(super) async fn report_rows<R>(&self, sql: &'static str, project: DbId) -> Result<Vec<R>>
        where
            R: QuickRow + SqlRow<D::Db> + 'static,
        {
            self.report_rows_with(sql, project, Vec::new()).await
        }

        /// [`SqlStore::report_rows`] with more parameters, the texts `$2`, `$3`...
        pub(super) async fn report_rows_with<R>(
            &self,
            sql: &'static str,
            project: DbId,
            texts: Vec<String>,
        ) -> Result<Vec<R>>
        where
            R: QuickRow + SqlRow<D::Db> + 'static,
        {
            let dialect = self.dialect.clone();
            let owned = texts.clone();
            let quick = tokio::task::spawn_blocking(move || {
                let mut binds = vec![Bind::Id(project)];
                binds.extend(owned.iter().map(|t| Bind::Text(t)));
                dialect.quick_rows::<R>(sql, &binds)
            })
            .await
            .ok()
            .flatten();
            if let Some(rows) = quick {
                return Ok(rows);
            }
            let mut binds = vec![Bind::Id(project)];
            binds.extend(texts.iter().map(|t| Bind::Text(t)));
            bind_all(sqlx::query_as(sql), &binds)
                .fetch_all(&self.read)
                .await
                .map_err(storage)
        }

        /// A write transaction, started the dialect's way.
        pub(super) async fn begin_write(&self) -> Result<WriteTx<D::Db>> {
            WriteTx::begin(self.write.pool(), D::TRANSACTIONS).await
        }
    }
}

// The database as a whole; every other topic is implemented in its room.
sql_impl! {
    impl DatabaseStore for SqlStore {
        async fn ping(&self) -> Result<()> {
            sqlx::query(queries::PING)
                .execute(&self.read)
                .await
                .map_err(storage)?;
            Ok(())
        }

        async fn close(&self) {
            self.dialect.close();
            // On PostgreSQL both are the one pool; closing it again returns at once.
            self.read.pool().close().await;
            self.write.pool().close().await;
        }

        async fn etag_epoch(&self) -> Result<String> {
            sqlx::query_scalar(queries::ETAG_EPOCH)
                .fetch_one(&self.read)
                .await
                .map_err(storage)
        }
    }
}
