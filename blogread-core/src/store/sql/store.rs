//! The [`Store`] of the SQL backends, written once as generic code over their [`SqlDialect`]:
//! each backend's store is a [`SqlStore`] of its dialect (`SqliteStore`, `PostgresStore`).
//!
//! Every lifecycle write is one transaction ([`WriteTx`]): it locks the blog the dialect's
//! way, applies the change the lifecycle rules computed, writes the blog and its derived rows
//! (slugs, categories), bumps the content version by the rule of
//! [`VisibleChange`], and records the firing, so no crash can leave a half-published blog.

// `SqlStore` is public, so that `SqliteStore` and `PostgresStore` can be its two public
// aliases with no wrapper forwarding every call; its dialect bound stays crate-private: no one
// outside the crate names a dialect, and the only two are the backends'.
#![allow(private_bounds)]

use std::collections::HashMap;
use std::sync::Arc;

use super::dialect::SqlDialect;
use super::errors::storage;
use super::page_index::PageIndex;
use super::queries::{self, count};
use super::quick::QuickRow;
use super::values::{Bind, DbId, SqlRow, bind_all};
use crate::domain::{
    AdminSession, Blog, BlogId, BlogStatus, CredentialId, CredentialKind, Delivery, PendingFiring,
    Project, ProjectId, PublicProject, PublishedBlog, Redirect, SecretHash, SitemapEntry,
    StoredCredential, StoredPublicKey, Timestamp, Trigger,
};
use crate::error::Result;
use crate::store::connection::{ClosingPool, Run, WriteTx};
use crate::store::link_sources::{BodyKey, BodyPlaceholders};
use crate::store::{
    BlogUpdate, ChangeQuery, ChangeRead, KeyWrite, LinkTargetSources, ManagedPage, PageKeys,
    PageQuery, PostKey, ProjectChange, ProjectPage, PublishedPage, Store,
};

/// Writes `impl` blocks of [`SqlStore`] (its own methods, or a trait's) with the one statement
/// of what the SQL code needs of a database, which both sqlx databases have: it reads
/// columns by name or position, its statements take their arguments, and it binds and reads
/// back these [`Value`]s. Queries run on a connection through [`Run`](crate::store::connection::Run)
/// (the dialect's database promises it). Rust neither lets a trait carry bounds on other
/// types for its users nor lets a `where` clause be named, so the rooms of the store (one
/// module per topic, each an `impl` block) share them through this macro instead of
/// repeating the list.
macro_rules! sql_impl {
    (impl Store for SqlStore { $($body:tt)* }) => {
        sql_impl!(@bounds [#[async_trait::async_trait] impl<D> Store for SqlStore<D>] $($body)*);
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

// Every operation, for both backends: the table of contents of the rooms, each line calling
// the room's method of the same name (an inherent method comes before a trait's), or the few
// one-line answers.
sql_impl! {
    impl Store for SqlStore {
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
        async fn insert_project(&self, project: &Project) -> Result<()> {
            self.insert_project(project).await
        }
        async fn project(&self, id: ProjectId) -> Result<Option<Project>> {
            self.project(id).await
        }
        async fn projects(&self) -> Result<Vec<Project>> {
            self.projects().await
        }
        async fn project_page(&self, limit: u32, offset: u64) -> Result<ProjectPage> {
            self.project_page(limit, offset).await
        }
        async fn update_project(&self, id: ProjectId, change: &ProjectChange) -> Result<Project> {
            self.update_project(id, change).await
        }
        async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
            self.public_key(project).await
        }
        async fn put_public_key(
            &self,
            project: ProjectId,
            key: &StoredPublicKey,
            mode: KeyWrite,
        ) -> Result<()> {
            self.put_public_key(project, key, mode).await
        }
        async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
            self.delete_public_key(project).await
        }
        async fn project_by_public_key(&self, hash: &SecretHash) -> Result<Option<PublicProject>> {
            self.dialect.key_check(&self.read, hash.to_hex()).await
        }
        async fn insert_credential(&self, record: &StoredCredential) -> Result<()> {
            self.insert_credential(record).await
        }
        async fn credentials(&self, kind: CredentialKind, project: ProjectId) -> Result<Vec<StoredCredential>> {
            self.credentials(kind, project).await
        }
        async fn delete_credential(&self, kind: CredentialKind, project: ProjectId, id: CredentialId) -> Result<bool> {
            self.delete_credential(kind, project, id).await
        }
        async fn credential_by_hash(&self, kind: CredentialKind, hash: &SecretHash) -> Result<Option<StoredCredential>> {
            self.credential_by_hash(kind, hash).await
        }
        async fn insert_admin_session(&self, session: &AdminSession) -> Result<()> {
            self.insert_admin_session(session).await
        }
        async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>> {
            self.admin_session(hash).await
        }
        async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool> {
            self.delete_admin_session(hash).await
        }
        async fn insert_blog(&self, blog: &Blog) -> Result<()> {
            self.insert_blog(blog).await
        }
        async fn blog(&self, project: ProjectId, id: BlogId) -> Result<Option<Blog>> {
            self.blog(project, id).await
        }
        async fn blogs(
            &self,
            project: ProjectId,
            status: Option<BlogStatus>,
            limit: u32,
            offset: u64,
        ) -> Result<ManagedPage> {
            self.blogs(project, status, limit, offset).await
        }
        async fn update_blog(
            &self,
            project: ProjectId,
            id: BlogId,
            update: BlogUpdate,
        ) -> Result<(Blog, Option<Trigger>)> {
            self.update_blog(project, id, update).await
        }
        async fn projects_due(&self, now: Timestamp) -> Result<Vec<ProjectId>> {
            self.projects_due(now).await
        }
        async fn go_live(&self, project: ProjectId, now: Timestamp) -> Result<u64> {
            self.go_live(project, now).await
        }
        async fn next_go_live(&self) -> Result<Option<Timestamp>> {
            self.next_go_live().await
        }
        async fn delete_blog(&self, project: ProjectId, id: BlogId, at: Timestamp) -> Result<Blog> {
            self.delete_blog(project, id, at).await
        }
        async fn changes(&self, project: ProjectId, query: &ChangeQuery) -> Result<ChangeRead> {
            self.changes(project, query).await
        }
        async fn prune_changes(&self, before: Timestamp) -> Result<u64> {
            self.prune_changes(before).await
        }
        async fn published_page(&self, project: ProjectId, query: &PageQuery) -> Result<PublishedPage> {
            self.published_page(project, query).await
        }
        async fn published_page_keys(&self, project: ProjectId, query: &PageQuery) -> Result<PageKeys> {
            self.published_page_keys(project, query).await
        }
        async fn published_key_by_slug(
            &self,
            project: ProjectId,
            slug: &str,
        ) -> Result<Option<PostKey>> {
            self.published_key_by_slug(project, slug).await
        }
        async fn published_by_ids(
            &self,
            project: ProjectId,
            ids: &[BlogId],
            include_content: bool,
        ) -> Result<Vec<(PostKey, PublishedBlog)>> {
            self.published_by_ids(project, ids, include_content).await
        }
        async fn published_by_slug(
            &self,
            project: ProjectId,
            slug: &str,
        ) -> Result<Option<PublishedBlog>> {
            self.published_by_slug(project, slug).await
        }
        async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>> {
            self.dialect.sitemap(&self.read, project, cap).await
        }
        async fn redirects(&self, project: ProjectId, cap: u32) -> Result<Vec<Redirect>> {
            self.redirects(project, cap).await
        }
        async fn published_aliases(
            &self,
            project: ProjectId,
            slugs: &[String],
        ) -> Result<HashMap<String, (String, String)>> {
            self.published_aliases(project, slugs).await
        }
        async fn published_titles(
            &self,
            project: ProjectId,
            slugs: &[String],
        ) -> Result<HashMap<String, String>> {
            if slugs.is_empty() {
                return Ok(HashMap::new());
            }
            self.dialect
                .published_titles(&self.read, project, slugs)
                .await
        }
        async fn deploy_hook(&self, project: ProjectId) -> Result<Option<String>> {
            self.deploy_hook(project).await
        }
        async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()> {
            self.set_deploy_hook(project, url).await
        }
        async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()> {
            self.record_delivery(project, delivery).await
        }
        async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>> {
            self.deliveries(project).await
        }
        async fn claim_firings(
            &self,
            project: Option<ProjectId>,
            now: Timestamp,
        ) -> Result<Vec<PendingFiring>> {
            self.claim_firings(project, now).await
        }
        async fn stale_firings(&self, claimed_before: Timestamp) -> Result<Vec<PendingFiring>> {
            self.stale_firings(claimed_before).await
        }
        async fn complete_firing(
            &self,
            firing: &PendingFiring,
            delivery: Option<&Delivery>,
        ) -> Result<bool> {
            self.complete_firing(firing, delivery).await
        }
        async fn link_targets(&self, project: ProjectId) -> Result<LinkTargetSources> {
            self.read_link_targets(project).await
        }
        async fn linked_slugs(&self, project: ProjectId) -> Result<Vec<Option<String>>> {
            self.read_linked_slugs(project).await
        }
        async fn link_targets_named(
            &self,
            project: ProjectId,
            slugs: &[String],
            ids: &[BlogId],
        ) -> Result<LinkTargetSources> {
            self.read_link_targets_named(project, slugs, ids).await
        }
        async fn link_body_keys(
            &self,
            project: ProjectId,
            naming: Option<&[Option<String>]>,
        ) -> Result<Vec<BodyKey>> {
            self.read_link_body_keys(project, naming).await
        }
        async fn link_bodies(
            &self,
            project: ProjectId,
            keys: &[BodyKey],
        ) -> Result<Vec<BodyPlaceholders>> {
            self.read_link_bodies(project, keys).await
        }
    }
}
