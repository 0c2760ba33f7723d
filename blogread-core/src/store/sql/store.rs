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

use async_trait::async_trait;
use sqlx::{ColumnIndex, Database, Executor, IntoArguments};

use super::dialect::SqlDialect;
use super::errors::{corrupt, storage, write_error};
use super::links_report::{
    ALL_BODIES_AFTER, BODY_KEYS, BodyKeyRow, DELETE_PLACEHOLDER_SLUGS, DELETE_PLACEHOLDERS,
    HeldBodies, LINK_ALIASES, LINK_TARGETS, LINKED_SLUGS, PLACEHOLDERS_INDEXED, PUT_PLACEHOLDERS,
    PlaceholdersRow, SET_PLACEHOLDERS_INDEXED, TargetRow, ids_json, keys_json, names_json,
    slugs_json, texts_json,
};
use super::page_index::{Key, Marks, PageIndex, STRIDE, Seek};
use super::queries::{self, count, sql_count};
use super::quick::QuickRow;
use super::rows::{
    AdminTokenRow, AgentKeyRow, BlogRow, DeliveryRow, Derived, DueRow, FiringRow, KeyRow,
    ManagedRow, MarkRow, PageRow, PendingTemplateRow, ProjectChangeRow, ProjectRow, PublicKeyRow,
    PublishedRow, SessionRow, bind_blog, stored_template, timestamp,
};
use super::values::{Bind, DbId, Value, bind_all};
use crate::domain::delivery::DELIVERY_LOG_LEN;
use crate::domain::{
    AdminSession, AdminTokenId, AdminTokenRecord, AgentKeyId, AgentKeyRecord, Blog, BlogId,
    BlogStatus, ChangePosition, Delivery, FiringId, PendingFiring, Project, ProjectId,
    PublicProject, PublishedBlog, Redirect, SecretHash, SessionCredential, SitemapEntry,
    StoredPublicKey, Timestamp, Trigger,
};
use crate::error::{Error, NotFound, Result};
use crate::lifecycle::{deletion_event, firing_slug};
use crate::links::report::{self, LinkTarget};
use crate::links::{CompiledBody, LinkTemplate};
use crate::store::connection::{ClosingPool, WriteTx};
use crate::store::link_sources::{BodyCopy, BodyKey, BodyPlaceholders, bodies_of};
use crate::store::rules::{ChangeStamp, Conflict, SlugHistory, VisibleChange};
use crate::store::{
    BlogUpdate, ChangeQuery, ChangeRead, KeyWrite, LinkTargetSources, ManagedPage, PageKeys,
    PageQuery, PostKey, ProjectChange, ProjectPage, PublishedPage, Store, StoredChange,
};

/// A SQL store: its read and write pools (the same pool on PostgreSQL; on SQLite the one
/// writer connection and the readers) and its dialect. Single-statement writes go to the
/// write pool, write transactions to its connection.
pub struct SqlStore<D: SqlDialect> {
    read: ClosingPool<D::Db>,
    write: ClosingPool<D::Db>,
    dialect: D,
    /// Marks of the public order, so a deep page seeks instead of stepping over its offset.
    pages: Arc<PageIndex>,
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

/// The steps of a write. The bounds say what the code needs of the database, and both sqlx
/// databases have it: queries run on a connection (a transaction's, or one of a
/// [`ClosingPool`]), read columns by name or position, and bind and read back these
/// [`Value`]s. (Rust does not let a trait carry bounds on other types for its users, so the
/// `Store` implementation below repeats these few lines.)
/// What a public page read selects of each post: its key alone (from the covering index),
/// its fields, or its fields and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Columns {
    Keys,
    Fields,
    Content,
}

impl<D> SqlStore<D>
where
    D: SqlDialect,
    for<'c> &'c mut <D::Db as Database>::Connection: Executor<'c, Database = D::Db>,
    <D::Db as Database>::Arguments: IntoArguments<D::Db>,
    for<'r> &'r str: ColumnIndex<<D::Db as Database>::Row>,
    usize: ColumnIndex<<D::Db as Database>::Row>,
    DbId: Value<D::Db>,
    Option<DbId>: Value<D::Db>,
    i64: Value<D::Db>,
    Option<i64>: Value<D::Db>,
    i32: Value<D::Db>,
    bool: Value<D::Db>,
    String: Value<D::Db>,
    Option<String>: Value<D::Db>,
{
    /// What every SQL store does once its migrations ran, before it serves: a restored copy
    /// becomes another database (a new ETag epoch), then the data kept beside the posts is
    /// brought up to what this version keeps (link templates, their word counts, the link
    /// and placeholder indexes).
    pub(crate) async fn start_up(&self) -> Result<()> {
        self.renew_restored_epoch().await?;
        self.upgrade_stored_templates().await;
        self.compile_pending_templates().await;
        self.index_stored_links().await?;
        self.index_stored_placeholders().await?;
        Ok(())
    }

    /// Draws a new ETag epoch when the database is a restored copy (see
    /// [`SqlDialect::RENEW_RESTORED_EPOCH`]): every ETag and feed cursor issued before the
    /// restore, however many writes follow it, is then another database's.
    async fn renew_restored_epoch(&self) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let result = async {
            let mut renewed = 0;
            for (at, sql) in D::RENEW_RESTORED_EPOCH.iter().enumerate() {
                let done = sqlx::query(*sql).execute(&mut *tx).await.map_err(storage)?;
                if at == 0 {
                    renewed = D::rows_affected(&done);
                }
            }
            Ok(renewed)
        }
        .await;
        if tx.finish(result).await? > 0 {
            tracing::info!(
                "this database is a restored copy: it has a new ETag epoch, so clients' ETags \
                 and changes-feed cursors from before the restore are refused or miss"
            );
        }
        Ok(())
    }

    /// Compiles the link template of every public body that has none: the bodies published
    /// before templates existed (the first start after an upgrade) or by a writer that failed
    /// half-way. Reads are exact without them (such a body is resolved in full), so a failure
    /// here is logged, not fatal. Returns how many were compiled.
    pub(crate) async fn compile_pending_templates(&self) -> u64 {
        // Bodies go up to 2 MiB: a batch holds at most 64 MiB of them (twice, old and new).
        const BATCH: i64 = 32;
        let mut compiled = 0u64;
        loop {
            let batch = async {
                let rows: Vec<PendingTemplateRow> = sqlx::query_as(queries::PENDING_TEMPLATES)
                    .bind(BATCH)
                    .fetch_all(&self.read)
                    .await
                    .map_err(storage)?;
                if rows.is_empty() {
                    return Ok(0);
                }
                let templates: Vec<(DbId, String)> = rows
                    .into_iter()
                    .map(|row| {
                        (
                            row.id,
                            stored_template(crate::links::compile(&row.pub_content)),
                        )
                    })
                    .collect();
                let mut tx = self.begin_write().await?;
                let result = async {
                    for (id, template) in &templates {
                        sqlx::query(queries::ADD_TEMPLATE)
                            .bind(*id)
                            .bind(template.as_str().to_owned())
                            .execute(&mut *tx)
                            .await
                            .map_err(storage)?;
                    }
                    Ok(templates.len() as u64)
                }
                .await;
                tx.finish(result).await
            };
            match batch.await {
                Ok(0) => break,
                Ok(n) => {
                    compiled += n;
                    tracing::info!(compiled, "compiling link templates of published posts");
                }
                Err(error) => {
                    tracing::warn!(%error, "could not compile link templates; those posts are resolved in full on each read");
                    break;
                }
            }
        }
        compiled
    }

    /// Gives the templates stored without a word count (by a version before counts were
    /// kept) their count, once per database: a pass over every stored template (in id order,
    /// a batch at a time), then the database is marked as holding none
    /// (`blogread_meta.templates_version`). Reads are exact meanwhile (such a template's
    /// fills are counted in full), so a failure is logged, not fatal, and the next start
    /// tries again. Returns how many were upgraded.
    pub(crate) async fn upgrade_stored_templates(&self) -> u64 {
        // Bodies go up to 2 MiB: a batch holds at most 64 MiB of them (twice, old and new).
        const BATCH: i64 = 32;
        const CURRENT: i32 = 2;
        let pass = async {
            let version: i32 = sqlx::query_scalar(queries::TEMPLATES_VERSION)
                .fetch_one(&self.read)
                .await
                .map_err(storage)?;
            if version >= CURRENT {
                return Ok(0);
            }
            let mut upgraded = 0u64;
            let mut after = DbId(uuid::Uuid::nil());
            loop {
                let rows: Vec<(DbId, String)> = sqlx::query_as(queries::STORED_TEMPLATES_AFTER)
                    .bind(after)
                    .bind(BATCH)
                    .fetch_all(&self.read)
                    .await
                    .map_err(storage)?;
                let Some(&(last, _)) = rows.last() else {
                    break;
                };
                after = last;
                let changes: Vec<(DbId, String, String)> = rows
                    .into_iter()
                    .filter_map(|(id, stored)| {
                        LinkTemplate::upgraded_stored(&stored).map(|new| (id, stored, new))
                    })
                    .collect();
                if changes.is_empty() {
                    continue;
                }
                let mut tx = self.begin_write().await?;
                let result = async {
                    for (id, old, new) in &changes {
                        // A write since the read has stored its own (current) form.
                        sqlx::query(queries::REPLACE_TEMPLATE)
                            .bind(*id)
                            .bind(old.as_str().to_owned())
                            .bind(new.as_str().to_owned())
                            .execute(&mut *tx)
                            .await
                            .map_err(storage)?;
                    }
                    Ok(changes.len() as u64)
                }
                .await;
                upgraded += tx.finish(result).await?;
                tracing::info!(upgraded, "adding word counts to stored link templates");
            }
            sqlx::query(queries::SET_TEMPLATES_VERSION)
                .bind(CURRENT)
                .execute(&self.write)
                .await
                .map_err(storage)?;
            Ok::<_, Error>(upgraded)
        };
        match pass.await {
            Ok(upgraded) => upgraded,
            Err(error) => {
                tracing::warn!(%error, "could not add word counts to stored link templates; those posts' words are counted in full on each read");
                0
            }
        }
    }

    /// Indexes the links of the bodies stored before the changes feed existed (the first
    /// start after the upgrade), once per database (`blogread_meta.links_indexed`): the feed
    /// finds the posts a write changes through this index, so a failure stops the start.
    /// Returns how many bodies were indexed.
    pub(crate) async fn index_stored_links(&self) -> Result<u64> {
        // Bodies go up to 2 MiB: a batch holds at most 64 MiB of them.
        const BATCH: i64 = 32;
        let indexed: i32 = sqlx::query_scalar(queries::LINKS_INDEXED)
            .fetch_one(&self.read)
            .await
            .map_err(storage)?;
        if indexed != 0 {
            return Ok(0);
        }
        let mut done = 0u64;
        let mut after = DbId(uuid::Uuid::nil());
        loop {
            let rows: Vec<(DbId, DbId, String)> = sqlx::query_as(queries::BODIES_AFTER)
                .bind(after)
                .bind(BATCH)
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            let Some(&(last, _, _)) = rows.last() else {
                break;
            };
            after = last;
            let mut links = Vec::new();
            for (id, project, body) in &rows {
                let mut slugs = std::collections::BTreeSet::new();
                crate::links::referenced_slugs(body, &mut slugs);
                links.extend(slugs.into_iter().map(|slug| (*project, slug, *id)));
            }
            let mut tx = self.begin_write().await?;
            let result = Self::insert_links(&mut tx, &links, true).await;
            tx.finish(result).await?;
            done += rows.len() as u64;
            tracing::info!(done, "indexing the internal links of stored posts");
        }
        sqlx::query(queries::SET_LINKS_INDEXED)
            .execute(&self.write)
            .await
            .map_err(storage)?;
        Ok(done)
    }

    /// Inserts `links` (project, slug, blog) into the link index, many rows a statement;
    /// `or_ignore` skips rows already there.
    async fn insert_links(
        tx: &mut WriteTx<D::Db>,
        links: &[(DbId, String, DbId)],
        or_ignore: bool,
    ) -> Result<()> {
        for chunk in links.chunks(queries::ROWS_PER_INSERT) {
            let mut sql = queries::values_rows(queries::INSERT_LINKS, 3, chunk.len());
            if or_ignore {
                sql.push_str(" ON CONFLICT DO NOTHING");
            }
            let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (project, slug, id) in chunk {
                insert = insert.bind(*project).bind(slug.clone()).bind(*id);
            }
            insert.execute(&mut **tx).await.map_err(storage)?;
        }
        Ok(())
    }

    /// Holds project `project`'s row for the rest of `tx` (PostgreSQL; SQLite's write lock
    /// holds everything already), before any blog's: every write that may stamp other
    /// posts takes it first, so two writes never wait on each other's rows.
    async fn lock_project(tx: &mut WriteTx<D::Db>, project: ProjectId) -> Result<Option<u64>> {
        let seq: Option<i64> = sqlx::query_scalar(D::LOCK_PROJECT)
            .bind(DbId::from(project))
            .fetch_optional(&mut **tx)
            .await
            .map_err(storage)?;
        Ok(seq.map(count))
    }

    /// Stamps change `change_no` where `stamp` says a write of blog `id` changed the feed,
    /// and keeps its lost slug as a deletion lost at `at`.
    async fn stamp(
        tx: &mut WriteTx<D::Db>,
        project: ProjectId,
        id: BlogId,
        stamp: &ChangeStamp,
        change_no: u64,
        at: Timestamp,
    ) -> Result<()> {
        let n = sql_count(change_no);
        if stamp.own {
            sqlx::query(queries::STAMP_BLOG)
                .bind(DbId::from(id))
                .bind(n)
                .execute(&mut **tx)
                .await
                .map_err(storage)?;
        }
        if !stamp.touched.is_empty() || stamp.aliases {
            let slugs =
                serde_json::to_string(&stamp.touched).expect("a list of strings serialises");
            sqlx::query(D::STAMP_LINKERS)
                .bind(DbId::from(project))
                .bind(n)
                .bind(slugs)
                .bind(stamp.aliases.then_some(DbId::from(id)))
                .execute(&mut **tx)
                .await
                .map_err(storage)?;
        }
        if let Some(slug) = &stamp.lost {
            sqlx::query(queries::PUT_TOMBSTONE)
                .bind(DbId::from(project))
                .bind(slug.clone())
                .bind(n)
                .bind(at.unix_seconds())
                .execute(&mut **tx)
                .await
                .map_err(storage)?;
        }
        Ok(())
    }

    /// A page read with `OFFSET`, as the database steps over it: its rows of `columns` and
    /// the total.
    async fn plain_page<R>(
        &self,
        project: ProjectId,
        query: &PageQuery,
        columns: Columns,
    ) -> Result<(Vec<R>, u64)>
    where
        R: PageRow + for<'r> sqlx::FromRow<'r, <D::Db as Database>::Row>,
    {
        // One query: the page in index order and, as a scalar subquery read from the same
        // snapshot, the total. Only an empty page needs a second query.
        let project_id = DbId::from(project);
        let offset = sql_count(query.offset);
        let rows: Vec<R> = self
            .page_rows(project, query, columns, offset, None)
            .await?;
        let total = match rows.first() {
            Some(first) => first.total().unwrap_or_default(),
            None => match &query.category {
                None => sqlx::query_scalar(queries::PUBLISHED_COUNT)
                    .bind(project_id)
                    .fetch_optional(&self.read)
                    .await
                    .map(Option::unwrap_or_default),
                Some(category) => {
                    sqlx::query_scalar(queries::CATEGORY_COUNT)
                        .bind(project_id)
                        .bind(category.as_str().to_owned())
                        .fetch_one(&self.read)
                        .await
                }
            }
            .map_err(storage)?,
        };
        Ok((rows, count(total)))
    }

    /// The rows of a page of `query`'s list, of `columns`: `offset` rows stepped over from
    /// the top, or from just after `key` (with the content version read beside them). One
    /// statement; the SQL differs only in the filter, the columns and the key, and takes its
    /// parameters in the order bound here.
    async fn page_rows<R>(
        &self,
        project: ProjectId,
        query: &PageQuery,
        columns: Columns,
        offset: i64,
        key: Option<(i64, DbId)>,
    ) -> Result<Vec<R>>
    where
        R: PageRow + for<'r> sqlx::FromRow<'r, <D::Db as Database>::Row>,
    {
        use queries as q;
        let category = query.category.as_deref();
        let sql = match (category.is_some(), key.is_some(), columns) {
            (false, false, Columns::Keys) => q::KEYS_PAGE,
            (false, false, Columns::Fields) => q::PAGE,
            (false, false, Columns::Content) => q::PAGE_WITH_CONTENT,
            (false, true, Columns::Keys) => q::KEYSET_KEYS_PAGE,
            (false, true, Columns::Fields) => q::KEYSET_PAGE,
            (false, true, Columns::Content) => q::KEYSET_PAGE_WITH_CONTENT,
            (true, false, Columns::Keys) => D::CATEGORY_KEYS_PAGE,
            (true, false, Columns::Fields) => q::CATEGORY_PAGE,
            (true, false, Columns::Content) => q::CATEGORY_PAGE_WITH_CONTENT,
            (true, true, Columns::Keys) => D::CATEGORY_KEYSET_KEYS_PAGE,
            (true, true, Columns::Fields) => q::CATEGORY_KEYSET_PAGE,
            (true, true, Columns::Content) => q::CATEGORY_KEYSET_PAGE_WITH_CONTENT,
        };
        let mut binds = vec![Bind::Id(DbId::from(project))];
        if let Some(category) = category {
            binds.push(Bind::Text(category));
        }
        binds.extend([Bind::Int(i64::from(query.limit)), Bind::Int(offset)]);
        if let Some((at, id)) = key {
            binds.extend([Bind::Int(at), Bind::Id(id)]);
        }
        self.public_rows(sql, &binds).await
    }

    /// One page of `query`'s list, of `columns`, with the total. The first pages of the whole
    /// list are cheapest the plain way (their total is a column). A filter the index does not
    /// hold is read the plain way near its top too, and its marks are read (and held) only
    /// when it is long enough to need them, so a made-up category costs one statement and no
    /// memory. Deeper pages, and every page of a held filter, go through the index, and fall
    /// back to the plain way while writes race them.
    async fn page<R>(
        &self,
        project: ProjectId,
        query: &PageQuery,
        columns: Columns,
    ) -> Result<(Vec<R>, u64)>
    where
        R: PageRow + for<'r> sqlx::FromRow<'r, <D::Db as Database>::Row>,
    {
        if query.category.is_none() && query.offset < STRIDE {
            return self.plain_page(project, query, columns).await;
        }
        let category = query.category.as_deref();
        let held = self.pages.get(project, category);
        if held.is_none() && query.offset < STRIDE {
            let page = self.plain_page(project, query, columns).await?;
            if page.1 >= STRIDE
                && let Some(marks) = self.read_marks(project, category).await?
            {
                self.pages.put(project, category, Arc::new(marks));
            }
            return Ok(page);
        }
        let mut held = held;
        for _ in 0..2 {
            if let Some(page) = self
                .indexed_page(project, query, columns, held.take())
                .await?
            {
                return Ok(page);
            }
        }
        self.plain_page(project, query, columns).await
    }

    /// The rows of the public read `sql`: on the calling thread when the dialect can answer
    /// at once, through the read pool otherwise.
    async fn public_rows<R>(&self, sql: &'static str, binds: &[Bind<'_>]) -> Result<Vec<R>>
    where
        R: QuickRow + for<'r> sqlx::FromRow<'r, <D::Db as Database>::Row> + Send + Unpin,
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
    async fn report_rows<R>(&self, sql: &'static str, project: DbId) -> Result<Vec<R>>
    where
        R: QuickRow + for<'r> sqlx::FromRow<'r, <D::Db as Database>::Row> + Send + Unpin + 'static,
    {
        self.report_rows_with(sql, project, Vec::new()).await
    }

    /// [`SqlStore::report_rows`] with more parameters, the texts `$2`, `$3`...
    async fn report_rows_with<R>(
        &self,
        sql: &'static str,
        project: DbId,
        texts: Vec<String>,
    ) -> Result<Vec<R>>
    where
        R: QuickRow + for<'r> sqlx::FromRow<'r, <D::Db as Database>::Row> + Send + Unpin + 'static,
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

    /// A page read through the page index with the `held` marks (read first when none are
    /// given), or `None` when the marks turn out older than the page's snapshot (they are
    /// forgotten then).
    async fn indexed_page<R>(
        &self,
        project: ProjectId,
        query: &PageQuery,
        columns: Columns,
        held: Option<Arc<Marks>>,
    ) -> Result<Option<(Vec<R>, u64)>>
    where
        R: PageRow + for<'r> sqlx::FromRow<'r, <D::Db as Database>::Row>,
    {
        let category = query.category.as_deref();
        let marks = match held {
            Some(marks) => marks,
            None => match self.read_marks(project, category).await? {
                Some(marks) => {
                    let marks = Arc::new(marks);
                    self.pages.put(project, category, Arc::clone(&marks));
                    marks
                }
                None => return Ok(None),
            },
        };
        let Some(Seek { after, skip }) = marks.seek(query.offset) else {
            // Past the end: empty, if nothing was published since the marks were read.
            let version: Option<i64> = sqlx::query_scalar(queries::CONTENT_VERSION)
                .bind(DbId::from(project))
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            if version == Some(marks.version) {
                return Ok(Some((Vec::new(), marks.total)));
            }
            self.pages.forget(project, category, &marks);
            return Ok(None);
        };
        let (at, id) = match after {
            Some(Key { published_at, id }) => (published_at, id),
            // Above every key: the page starts at the top.
            None => (i64::MAX, DbId(uuid::Uuid::nil())),
        };
        let rows: Vec<R> = self
            .page_rows(project, query, columns, sql_count(skip), Some((at, id)))
            .await?;
        // Inside the list by the marks, so a current snapshot has rows: no rows, or rows of
        // another version, mean the list changed since the marks were read.
        if rows.first().and_then(PageRow::version) != Some(marks.version) {
            self.pages.forget(project, category, &marks);
            return Ok(None);
        }
        Ok(Some((rows, marks.total)))
    }

    /// The marks of a filter, read in one statement (`None` if the project is gone).
    async fn read_marks(
        &self,
        project: ProjectId,
        category: Option<&str>,
    ) -> Result<Option<Marks>> {
        let project_id = DbId::from(project);
        let stride = sql_count(STRIDE);
        let rows: Vec<MarkRow> = match category {
            None => {
                sqlx::query_as(queries::PAGE_MARKS)
                    .bind(project_id)
                    .bind(stride)
                    .fetch_all(&self.read)
                    .await
            }
            Some(category) => {
                sqlx::query_as(queries::CATEGORY_PAGE_MARKS)
                    .bind(project_id)
                    .bind(stride)
                    .bind(category.to_owned())
                    .fetch_all(&self.read)
                    .await
            }
        }
        .map_err(storage)?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let (version, total) = (first.version, count(first.total));
        let mut marks: Vec<(i64, Key)> = rows
            .iter()
            .filter_map(|r| match (r.n, r.published_at, r.id) {
                (Some(n), Some(published_at), Some(id)) => Some((n, Key { published_at, id })),
                _ => None,
            })
            .collect();
        marks.sort_unstable_by_key(|(n, _)| *n);
        Ok(Some(Marks::new(
            version,
            total,
            marks.into_iter().map(|(_, key)| key).collect(),
        )))
    }

    /// A write transaction, started the dialect's way.
    async fn begin_write(&self) -> Result<WriteTx<D::Db>> {
        WriteTx::begin(self.write.pool(), D::TRANSACTIONS).await
    }

    /// Blog `id` of `project`, locked for the rest of `tx` (`NotFound` when absent).
    async fn locked_blog(tx: &mut WriteTx<D::Db>, project: ProjectId, id: BlogId) -> Result<Blog> {
        let row: Option<BlogRow> = sqlx::query_as(D::LOCK_BLOG)
            .bind(DbId::from(id))
            .bind(DbId::from(project))
            .fetch_optional(&mut **tx)
            .await
            .map_err(storage)?;
        row.ok_or(Error::NotFound(NotFound::Blog))?.into_blog()
    }

    /// Brings the slugs, category rows and link template of `blog` from `old` to `new`; a
    /// new body's template is `compiled` when that is the body's, else compiled here.
    async fn write_derived(
        tx: &mut WriteTx<D::Db>,
        blog: &Blog,
        old: &Derived,
        new: &Derived,
        compiled: Option<&CompiledBody>,
    ) -> Result<()> {
        let project = DbId::from(blog.project_id);
        let id = DbId::from(blog.id);
        for slug in old.slugs.iter().filter(|s| !new.slugs.contains(s)) {
            sqlx::query(queries::DELETE_BLOG_SLUG)
                .bind(project)
                .bind(slug.as_str().to_owned())
                .bind(id)
                .execute(&mut **tx)
                .await
                .map_err(storage)?;
        }
        for slug in new.slugs.iter().filter(|s| !old.slugs.contains(s)) {
            sqlx::query(queries::INSERT_BLOG_SLUG)
                .bind(project)
                .bind(slug.as_str().to_owned())
                .bind(id)
                .execute(&mut **tx)
                .await
                .map_err(|e| write_error(e, Conflict::slug_taken(blog)))?;
        }
        if old.body != new.body {
            if old.body.is_some() {
                sqlx::query(queries::DELETE_LINKS)
                    .bind(id)
                    .execute(&mut **tx)
                    .await
                    .map_err(storage)?;
            }
            match &new.body {
                Some(body) => {
                    let compiled = CompiledBody::for_body(compiled, body);
                    let links: Vec<_> = compiled
                        .referenced_slugs(body)
                        .into_iter()
                        .map(|slug| (project, slug, id))
                        .collect();
                    Self::insert_links(tx, &links, false).await?;
                    sqlx::query(queries::PUT_TEMPLATE)
                        .bind(id)
                        .bind(stored_template(compiled))
                        .execute(&mut **tx)
                        .await
                        .map_err(storage)?
                }
                None => sqlx::query(queries::DELETE_TEMPLATE)
                    .bind(id)
                    .execute(&mut **tx)
                    .await
                    .map_err(storage)?,
            };
        }
        if (&old.categories, old.published_at) != (&new.categories, new.published_at) {
            if !old.categories.is_empty() {
                sqlx::query(queries::DELETE_BLOG_CATEGORIES)
                    .bind(id)
                    .execute(&mut **tx)
                    .await
                    .map_err(storage)?;
            }
            for key in &new.categories {
                sqlx::query(queries::INSERT_BLOG_CATEGORY)
                    .bind(id)
                    .bind(project)
                    .bind(key.as_str().to_owned())
                    .bind(new.published_at)
                    .execute(&mut **tx)
                    .await
                    .map_err(storage)?;
            }
        }
        Ok(())
    }

    /// Applies `change` to the project's counters: bumps the content version and moves the
    /// published count, when the rule says so, and then takes the next number of the
    /// project's change sequence (returned).
    async fn apply_visible_change(
        tx: &mut WriteTx<D::Db>,
        project: ProjectId,
        change: VisibleChange,
    ) -> Result<Option<u64>> {
        if !change.bumps_version {
            return Ok(None);
        }
        let seq: i64 = sqlx::query_scalar(queries::BUMP_VERSION)
            .bind(DbId::from(project))
            .bind(change.published_delta)
            .fetch_one(&mut **tx)
            .await
            .map_err(storage)?;
        Ok(Some(count(seq)))
    }

    /// Records the firing of `event` on `blog` (named by `slug`) in the write's own
    /// transaction, when the project has a deploy hook.
    async fn record_firing(
        tx: &mut WriteTx<D::Db>,
        blog: &Blog,
        event: Option<Trigger>,
        slug: String,
        at: Timestamp,
    ) -> Result<()> {
        let Some(trigger) = event else { return Ok(()) };
        sqlx::query(queries::INSERT_FIRING)
            .bind(DbId::from(FiringId::generate()))
            .bind(DbId::from(blog.project_id))
            .bind(trigger.as_str().to_owned())
            .bind(slug)
            .bind(at.unix_seconds())
            .execute(&mut **tx)
            .await
            .map_err(storage)?;
        Ok(())
    }

    /// Appends `delivery` to the project's log, keeping the newest `DELIVERY_LOG_LEN`.
    async fn insert_delivery(
        tx: &mut WriteTx<D::Db>,
        project: ProjectId,
        delivery: &Delivery,
    ) -> Result<()> {
        sqlx::query(queries::INSERT_DELIVERY)
            .bind(DbId::from(delivery.id))
            .bind(DbId::from(project))
            .bind(delivery.trigger.as_str().to_owned())
            .bind(delivery.blog_slug.clone())
            .bind(delivery.attempted_at.unix_seconds())
            .bind(delivery.success)
            .bind(i32::from(delivery.status_code))
            .bind(delivery.message.as_str().to_owned())
            .bind(sql_count(delivery.duration_ms))
            .execute(&mut **tx)
            .await
            .map_err(|e| write_error(e, Conflict::DeliveryExists))?;
        sqlx::query(queries::TRIM_DELIVERIES)
            .bind(DbId::from(project))
            .bind(sql_count(DELIVERY_LOG_LEN as u64 - 1))
            .execute(&mut **tx)
            .await
            .map_err(storage)?;
        Ok(())
    }

    async fn project_exists(&self, project: ProjectId) -> Result<bool> {
        let found: Option<i32> = sqlx::query_scalar(queries::PROJECT_EXISTS)
            .bind(DbId::from(project))
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        Ok(found.is_some())
    }

    /// Brings the placeholder index of `blog` up to date in `tx`: each body the write changed
    /// (from `before`; `None` for a new post) is listed again.
    pub(crate) async fn write_placeholders(
        tx: &mut WriteTx<D::Db>,
        blog: &Blog,
        before: Option<&HeldBodies>,
    ) -> Result<()> {
        for (copy, body) in bodies_of(blog) {
            let old = before.and_then(|b| b.get(copy));
            if before.is_some() && old == body {
                continue;
            }
            Self::put_placeholders(tx, blog.id, blog.project_id.into(), copy, body).await?;
        }
        Ok(())
    }

    /// Replaces the index row of one body (`None`: the post holds no such body now).
    async fn put_placeholders(
        tx: &mut WriteTx<D::Db>,
        id: BlogId,
        project: DbId,
        copy: BodyCopy,
        body: Option<&str>,
    ) -> Result<()> {
        let found = body.map(report::placeholders).unwrap_or_default();
        // The old list and its slugs go; then the new ones come, if the body holds any
        // placeholder.
        for forget in [DELETE_PLACEHOLDER_SLUGS, DELETE_PLACEHOLDERS] {
            sqlx::query(forget)
                .bind(DbId::from(id))
                .bind(copy.as_str().to_owned())
                .execute(&mut **tx)
                .await
                .map_err(storage)?;
        }
        if found.is_empty() {
            return Ok(());
        }
        let stored = report::to_stored(&found);
        sqlx::query(PUT_PLACEHOLDERS)
            .bind(DbId::from(id))
            .bind(project)
            .bind(copy.as_str().to_owned())
            .bind(sql_count(stored.len() as u64))
            .bind(sql_count(found.len() as u64))
            .bind(stored)
            .execute(&mut **tx)
            .await
            .map_err(storage)?;
        sqlx::query(D::PUT_PLACEHOLDER_SLUGS)
            .bind(project)
            .bind(slugs_json(&found))
            .bind(DbId::from(id))
            .bind(copy.as_str().to_owned())
            .execute(&mut **tx)
            .await
            .map_err(storage)?;
        Ok(())
    }

    /// Indexes the placeholders of the bodies stored before the index existed (the first
    /// start after the upgrade), once per database (`blogread_meta.placeholders_indexed`).
    /// Returns how many posts were indexed.
    pub(crate) async fn index_stored_placeholders(&self) -> Result<u64> {
        // Bodies go up to 2 MiB, two a post: a batch holds at most 64 MiB of them.
        const BATCH: i64 = 16;
        let indexed: i32 = sqlx::query_scalar(PLACEHOLDERS_INDEXED)
            .fetch_one(&self.read)
            .await
            .map_err(storage)?;
        if indexed != 0 {
            return Ok(0);
        }
        let mut done = 0u64;
        let mut after = DbId(uuid::Uuid::nil());
        loop {
            let rows: Vec<(DbId, DbId, String, Option<String>)> = sqlx::query_as(ALL_BODIES_AFTER)
                .bind(after)
                .bind(BATCH)
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            let Some(&(last, _, _, _)) = rows.last() else {
                break;
            };
            after = last;
            let mut tx = self.begin_write().await?;
            let result = async {
                for (id, project, working, published) in &rows {
                    let id = BlogId::from_uuid(id.0);
                    let bodies = [
                        (BodyCopy::Working, Some(working.as_str())),
                        (BodyCopy::Published, published.as_deref()),
                    ];
                    for (copy, body) in bodies {
                        Self::put_placeholders(&mut tx, id, *project, copy, body).await?;
                    }
                }
                Ok(())
            }
            .await;
            tx.finish(result).await?;
            done += rows.len() as u64;
            tracing::info!(done, "indexing the placeholders of stored posts");
        }
        sqlx::query(SET_PLACEHOLDERS_INDEXED)
            .execute(&self.write)
            .await
            .map_err(storage)?;
        Ok(done)
    }

    /// Every post of `project` as a link target, and every alias.
    pub(crate) async fn read_link_targets(
        &self,
        project: crate::domain::ProjectId,
    ) -> Result<LinkTargetSources> {
        let project = DbId::from(project);
        let rows: Vec<TargetRow> = self.report_rows(LINK_TARGETS, project).await?;
        let posts = target_rows(rows)?;
        let aliases: Vec<(String, DbId)> = self.report_rows(LINK_ALIASES, project).await?;
        Ok(LinkTargetSources {
            posts,
            aliases: aliases
                .into_iter()
                .map(|(alias, id)| (alias, BlogId::from_uuid(id.0)))
                .collect(),
        })
    }

    /// The distinct slugs the placeholders of `project`'s bodies name.
    pub(crate) async fn read_linked_slugs(
        &self,
        project: crate::domain::ProjectId,
    ) -> Result<Vec<Option<String>>> {
        let rows: Vec<(String,)> = self.report_rows(LINKED_SLUGS, DbId::from(project)).await?;
        Ok(rows
            .into_iter()
            .map(|(slug,)| Some(slug).filter(|s| !s.is_empty()))
            .collect())
    }

    /// The posts and aliases that judging `slugs` needs, and the posts `ids`.
    pub(crate) async fn read_link_targets_named(
        &self,
        project: crate::domain::ProjectId,
        slugs: &[String],
        ids: &[BlogId],
    ) -> Result<LinkTargetSources> {
        let project = DbId::from(project);
        let named = vec![texts_json(slugs), ids_json(ids)];
        let rows: Vec<TargetRow> = self
            .report_rows_with(D::LINK_TARGETS_NAMED, project, named.clone())
            .await?;
        let aliases: Vec<(String, DbId)> = self
            .report_rows_with(D::LINK_ALIASES_NAMED, project, named)
            .await?;
        Ok(LinkTargetSources {
            posts: target_rows(rows)?,
            aliases: aliases
                .into_iter()
                .map(|(alias, id)| (alias, BlogId::from_uuid(id.0)))
                .collect(),
        })
    }

    /// The keys of `project`'s bodies holding placeholders: all, or those naming a slug of
    /// `naming`.
    pub(crate) async fn read_link_body_keys(
        &self,
        project: crate::domain::ProjectId,
        naming: Option<&[Option<String>]>,
    ) -> Result<Vec<BodyKey>> {
        let project = DbId::from(project);
        let rows: Vec<BodyKeyRow> = match naming {
            None => self.report_rows(BODY_KEYS, project).await?,
            Some([]) => Vec::new(),
            Some(names) => {
                self.report_rows_with(D::BODY_KEYS_NAMING, project, vec![names_json(names)])
                    .await?
            }
        };
        rows.into_iter()
            .map(|(id, copy, bytes, placeholders)| {
                Ok(BodyKey {
                    blog_id: BlogId::from_uuid(id.0),
                    copy: body_copy(&copy)?,
                    bytes: count(bytes),
                    placeholders: count(placeholders),
                })
            })
            .collect()
    }

    /// The placeholder lists of `project`'s bodies `keys` names.
    pub(crate) async fn read_link_bodies(
        &self,
        project: crate::domain::ProjectId,
        keys: &[BodyKey],
    ) -> Result<Vec<BodyPlaceholders>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let stored: Vec<PlaceholdersRow> = self
            .report_rows_with(
                D::PLACEHOLDERS_OF,
                DbId::from(project),
                vec![keys_json(keys)],
            )
            .await?;
        stored
            .into_iter()
            .map(|(id, copy, list)| {
                Ok(BodyPlaceholders {
                    blog_id: BlogId::from_uuid(id.0),
                    copy: body_copy(&copy)?,
                    stored: list,
                })
            })
            .collect()
    }
}

/// A stored copy name.
fn body_copy(name: &str) -> Result<BodyCopy> {
    BodyCopy::parse(name).ok_or_else(|| corrupt("blog_placeholders.copy", name))
}

/// Link targets as the rows of `LINK_TARGETS` hold them.
fn target_rows(rows: Vec<TargetRow>) -> Result<Vec<LinkTarget>> {
    let mut posts = Vec::with_capacity(rows.len());
    for (id, status, slug, title, pub_slug, pub_title, published_at) in rows {
        let status: BlogStatus = status
            .parse()
            .map_err(|_| corrupt("blogs.status", &status))?;
        let go_live = match (status, published_at) {
            (BlogStatus::Scheduled, Some(at)) => Some(timestamp("blogs.published_at", at)?),
            _ => None,
        };
        posts.push(LinkTarget {
            id: BlogId::from_uuid(id.0),
            status,
            slug,
            title,
            public: pub_slug.zip(pub_title),
            go_live,
        });
    }
    Ok(posts)
}

/// Every operation, for both backends (the bounds are those of the write steps above).
#[async_trait]
impl<D> Store for SqlStore<D>
where
    D: SqlDialect,
    for<'c> &'c mut <D::Db as Database>::Connection: Executor<'c, Database = D::Db>,
    <D::Db as Database>::Arguments: IntoArguments<D::Db>,
    for<'r> &'r str: ColumnIndex<<D::Db as Database>::Row>,
    usize: ColumnIndex<<D::Db as Database>::Row>,
    DbId: Value<D::Db>,
    Option<DbId>: Value<D::Db>,
    i64: Value<D::Db>,
    Option<i64>: Value<D::Db>,
    i32: Value<D::Db>,
    bool: Value<D::Db>,
    String: Value<D::Db>,
    Option<String>: Value<D::Db>,
{
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
        sqlx::query(queries::INSERT_PROJECT)
            .bind(DbId::from(project.id))
            .bind(project.name.as_str().to_owned())
            .bind(project.site_url.as_ref().map(|u| u.as_str().to_owned()))
            .bind(project.created_at.unix_seconds())
            .execute(&self.write)
            .await
            .map_err(|e| write_error(e, Conflict::ProjectExists))?;
        Ok(())
    }

    async fn project(&self, id: ProjectId) -> Result<Option<Project>> {
        let row: Option<ProjectRow> = sqlx::query_as(queries::PROJECT)
            .bind(DbId::from(id))
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        row.map(ProjectRow::into_project).transpose()
    }

    async fn projects(&self) -> Result<Vec<Project>> {
        let rows: Vec<ProjectRow> = sqlx::query_as(queries::PROJECTS)
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        rows.into_iter().map(ProjectRow::into_project).collect()
    }

    async fn project_page(&self, limit: u32, offset: u64) -> Result<ProjectPage> {
        let rows: Vec<ProjectRow> = sqlx::query_as(queries::PROJECT_PAGE)
            .bind(i64::from(limit))
            .bind(sql_count(offset))
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        let total: i64 = sqlx::query_scalar(queries::PROJECT_COUNT)
            .fetch_one(&self.read)
            .await
            .map_err(storage)?;
        Ok(ProjectPage {
            projects: rows
                .into_iter()
                .map(ProjectRow::into_project)
                .collect::<Result<_>>()?,
            total: count(total),
        })
    }

    async fn update_project(&self, id: ProjectId, change: &ProjectChange) -> Result<Project> {
        let mut tx = self.begin_write().await?;
        let result = async {
            let before = Self::lock_project(&mut tx, id)
                .await?
                .ok_or(Error::NotFound(NotFound::Project))?;
            let row: Option<ProjectChangeRow> = sqlx::query_as(queries::UPDATE_PROJECT)
                .bind(DbId::from(id))
                .bind(change.name.is_some())
                .bind(change.name.as_ref().map(|n| n.as_str().to_owned()))
                .bind(change.site_url.is_some())
                .bind(
                    change
                        .site_url
                        .clone()
                        .flatten()
                        .map(|u| u.as_str().to_owned()),
                )
                .fetch_optional(&mut *tx)
                .await
                .map_err(storage)?;
            let row = row.ok_or(Error::NotFound(NotFound::Project))?;
            if count(row.change_seq) > before {
                // A new site URL: every resolved link changes.
                sqlx::query(queries::STAMP_ALL_LINKERS)
                    .bind(DbId::from(id))
                    .bind(row.change_seq)
                    .execute(&mut *tx)
                    .await
                    .map_err(storage)?;
            }
            row.project.into_project()
        }
        .await;
        tx.finish(result).await
    }

    async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
        let row: Option<PublicKeyRow> = sqlx::query_as(queries::PUBLIC_KEY)
            .bind(DbId::from(project))
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        row.map(PublicKeyRow::into_key).transpose()
    }

    async fn put_public_key(
        &self,
        project: ProjectId,
        key: &StoredPublicKey,
        mode: KeyWrite,
    ) -> Result<()> {
        let hash = key.key.hash().to_hex();
        let (sql, conflict) = match mode {
            KeyWrite::Create => (queries::INSERT_PUBLIC_KEY, Conflict::PublicKeyExists),
            KeyWrite::Replace => (queries::REPLACE_PUBLIC_KEY, Conflict::PublicKeyInUse),
        };
        let done = sqlx::query(sql)
            .bind(DbId::from(project))
            .bind(key.key.expose_secret().to_owned())
            .bind(hash.as_str().to_owned())
            .bind(key.created_at.unix_seconds())
            .execute(&self.write)
            .await
            .map_err(|e| write_error(e, conflict))?;
        if mode == KeyWrite::Replace && D::rows_affected(&done) == 0 {
            return Err(if self.project_exists(project).await? {
                Error::NotFound(NotFound::PublicKey)
            } else {
                Error::NotFound(NotFound::Project)
            });
        }
        Ok(())
    }

    async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
        let done = sqlx::query(queries::DELETE_PUBLIC_KEY)
            .bind(DbId::from(project))
            .execute(&self.write)
            .await
            .map_err(storage)?;
        Ok(D::rows_affected(&done) > 0)
    }

    async fn project_by_public_key(&self, hash: &SecretHash) -> Result<Option<PublicProject>> {
        self.dialect.key_check(&self.read, hash.to_hex()).await
    }

    async fn insert_agent_key(&self, record: &AgentKeyRecord) -> Result<()> {
        sqlx::query(queries::INSERT_AGENT_KEY)
            .bind(DbId::from(record.id))
            .bind(DbId::from(record.project_id))
            .bind(record.hash.to_hex())
            .bind(record.prefix.as_str().to_owned())
            .bind(record.created_at.unix_seconds())
            .execute(&self.write)
            .await
            .map_err(|e| write_error(e, Conflict::AgentKeyExists))?;
        Ok(())
    }

    async fn agent_keys(&self, project: ProjectId) -> Result<Vec<AgentKeyRecord>> {
        let rows: Vec<AgentKeyRow> = sqlx::query_as(queries::AGENT_KEYS)
            .bind(DbId::from(project))
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        rows.into_iter().map(AgentKeyRow::into_record).collect()
    }

    async fn delete_agent_key(&self, project: ProjectId, id: AgentKeyId) -> Result<bool> {
        let done = sqlx::query(queries::DELETE_AGENT_KEY)
            .bind(DbId::from(project))
            .bind(DbId::from(id))
            .execute(&self.write)
            .await
            .map_err(storage)?;
        Ok(D::rows_affected(&done) > 0)
    }

    async fn agent_key_by_hash(&self, hash: &SecretHash) -> Result<Option<AgentKeyRecord>> {
        let row: Option<AgentKeyRow> = sqlx::query_as(queries::AGENT_KEY_BY_HASH)
            .bind(hash.to_hex())
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        row.map(AgentKeyRow::into_record).transpose()
    }

    async fn insert_admin_token(&self, record: &AdminTokenRecord) -> Result<()> {
        sqlx::query(queries::INSERT_ADMIN_TOKEN)
            .bind(DbId::from(record.id))
            .bind(DbId::from(record.project_id))
            .bind(record.hash.to_hex())
            .bind(record.created_at.unix_seconds())
            .execute(&self.write)
            .await
            .map_err(|e| write_error(e, Conflict::AdminTokenExists))?;
        Ok(())
    }

    async fn delete_admin_token(&self, project: ProjectId, id: AdminTokenId) -> Result<bool> {
        let done = sqlx::query(queries::DELETE_ADMIN_TOKEN)
            .bind(DbId::from(project))
            .bind(DbId::from(id))
            .execute(&self.write)
            .await
            .map_err(storage)?;
        Ok(D::rows_affected(&done) > 0)
    }

    async fn admin_token_by_hash(&self, hash: &SecretHash) -> Result<Option<AdminTokenRecord>> {
        let row: Option<AdminTokenRow> = sqlx::query_as(queries::ADMIN_TOKEN_BY_HASH)
            .bind(hash.to_hex())
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        row.map(AdminTokenRow::into_record).transpose()
    }

    async fn admin_tokens(&self, project: ProjectId) -> Result<Vec<AdminTokenRecord>> {
        let rows: Vec<AdminTokenRow> = sqlx::query_as(queries::ADMIN_TOKENS)
            .bind(DbId::from(project))
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        rows.into_iter().map(AdminTokenRow::into_record).collect()
    }

    async fn insert_admin_session(&self, session: &AdminSession) -> Result<()> {
        let (token, project, operator) = match session.credential {
            SessionCredential::Operator { token_hash } => (None, None, Some(token_hash.to_hex())),
            SessionCredential::AdminToken { id, project } => {
                (Some(DbId::from(id)), Some(DbId::from(project)), None)
            }
        };
        let mut tx = self.begin_write().await?;
        let result = async {
            sqlx::query(queries::DELETE_EXPIRED_SESSIONS)
                .bind(session.created_at.unix_seconds())
                .execute(&mut *tx)
                .await
                .map_err(storage)?;
            let done = sqlx::query(queries::INSERT_SESSION)
                .bind(session.hash.to_hex())
                .bind(token)
                .bind(project)
                .bind(operator)
                .bind(session.created_at.unix_seconds())
                .bind(session.expires_at.unix_seconds())
                .execute(&mut *tx)
                .await
                .map_err(storage)?;
            if D::rows_affected(&done) == 0 {
                return Err(Error::NotFound(NotFound::AdminToken));
            }
            Ok(())
        }
        .await;
        tx.finish(result).await
    }

    async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>> {
        let row: Option<SessionRow> = sqlx::query_as(queries::SESSION)
            .bind(hash.to_hex())
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        row.map(SessionRow::into_session).transpose()
    }

    async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool> {
        let done = sqlx::query(queries::DELETE_SESSION)
            .bind(hash.to_hex())
            .execute(&self.write)
            .await
            .map_err(storage)?;
        Ok(D::rows_affected(&done) > 0)
    }

    async fn insert_blog(&self, blog: &Blog) -> Result<()> {
        // A blog inserted with a body to publish (an import) has it compiled before the
        // transaction, like every write that publishes one.
        let derived = Derived::of(blog);
        let compiled = derived.body.clone().map(CompiledBody::of);
        let mut tx = self.begin_write().await?;
        let result = async {
            Self::lock_project(&mut tx, blog.project_id).await?;
            bind_blog(sqlx::query(queries::INSERT_BLOG), blog)
                .execute(&mut *tx)
                .await
                .map_err(|e| write_error(e, Conflict::BlogExists))?;
            Self::write_derived(
                &mut tx,
                blog,
                &Derived::default(),
                &derived,
                compiled.as_ref(),
            )
            .await?;
            Self::write_placeholders(&mut tx, blog, None).await?;
            let change_no = Self::apply_visible_change(
                &mut tx,
                blog.project_id,
                VisibleChange::of_insert(blog),
            )
            .await?;
            if let Some(n) = change_no {
                let stamp = ChangeStamp::of_blog_write(None, blog.state.snapshot());
                Self::stamp(
                    &mut tx,
                    blog.project_id,
                    blog.id,
                    &stamp,
                    n,
                    blog.updated_at,
                )
                .await?;
            }
            Ok(())
        }
        .await;
        tx.finish(result).await
    }

    async fn blog(&self, project: ProjectId, id: BlogId) -> Result<Option<Blog>> {
        let row: Option<BlogRow> = sqlx::query_as(D::BLOG)
            .bind(DbId::from(id))
            .bind(DbId::from(project))
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        row.map(BlogRow::into_blog).transpose()
    }

    async fn blogs(
        &self,
        project: ProjectId,
        status: Option<BlogStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<ManagedPage> {
        let status = status.map(|s| s.as_str());
        let rows: Vec<ManagedRow> = sqlx::query_as(queries::MANAGED_PAGE)
            .bind(DbId::from(project))
            .bind(status.map(str::to_owned))
            .bind(i64::from(limit))
            .bind(sql_count(offset))
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        let total: i64 = sqlx::query_scalar(queries::MANAGED_COUNT)
            .bind(DbId::from(project))
            .bind(status.map(str::to_owned))
            .fetch_one(&self.read)
            .await
            .map_err(storage)?;
        Ok(ManagedPage {
            blogs: rows
                .into_iter()
                .map(ManagedRow::into_managed)
                .collect::<Result<_>>()?,
            total: count(total),
        })
    }

    async fn update_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        update: BlogUpdate,
    ) -> Result<(Blog, Option<Trigger>)> {
        let BlogUpdate {
            change,
            at,
            compiled,
        } = update;
        let mut tx = self.begin_write().await?;
        let result = async {
            Self::lock_project(&mut tx, project).await?;
            let mut blog = Self::locked_blog(&mut tx, project, id).await?;
            let before = Derived::of(&blog);
            let before_bodies = HeldBodies::of(&blog);
            let before_snapshot = blog.state.snapshot().cloned();
            let before_slug = blog.state.snapshot().map(|s| s.fields.slug().to_string());
            let was_published = blog.state.snapshot().is_some();
            // On error `finish` rolls the transaction back.
            let event = change(&mut blog)?;
            let visible =
                VisibleChange::of_blog_write(was_published, blog.state.snapshot().is_some(), event);
            debug_assert_eq!((blog.id, blog.project_id), (id, project));
            bind_blog(sqlx::query(queries::UPDATE_BLOG), &blog)
                .execute(&mut *tx)
                .await
                .map_err(|e| write_error(e, Conflict::slug_taken(&blog)))?;
            let after = Derived::of(&blog);
            Self::write_derived(&mut tx, &blog, &before, &after, compiled.as_ref()).await?;
            Self::write_placeholders(&mut tx, &blog, Some(&before_bodies)).await?;
            let after_slug = blog.state.snapshot().map(|s| s.fields.slug().as_str());
            let history = SlugHistory::of_blog_write(before_slug.as_deref(), after_slug);
            let change_no = Self::apply_visible_change(&mut tx, project, visible).await?;
            if let Some(free) = &history.free {
                if let Some(n) = change_no {
                    // Whoever held the alias shows one alias less.
                    sqlx::query(queries::STAMP_ALIAS_OWNER)
                        .bind(DbId::from(project))
                        .bind(free.as_str().to_owned())
                        .bind(sql_count(n))
                        .execute(&mut *tx)
                        .await
                        .map_err(storage)?;
                }
                sqlx::query(queries::DELETE_ALIAS)
                    .bind(DbId::from(project))
                    .bind(free.as_str().to_owned())
                    .execute(&mut *tx)
                    .await
                    .map_err(storage)?;
            }
            if let Some(old) = &history.add {
                sqlx::query(queries::PUT_ALIAS)
                    .bind(DbId::from(project))
                    .bind(old.as_str().to_owned())
                    .bind(DbId::from(id))
                    .bind(blog.updated_at.unix_seconds())
                    .execute(&mut *tx)
                    .await
                    .map_err(storage)?;
            }
            if let Some(n) = change_no {
                let stamp =
                    ChangeStamp::of_blog_write(before_snapshot.as_ref(), blog.state.snapshot());
                Self::stamp(&mut tx, project, id, &stamp, n, at).await?;
            }
            let slug = firing_slug(before_slug, &blog);
            Self::record_firing(&mut tx, &blog, event, slug, at).await?;
            Ok((blog, event))
        }
        .await;
        tx.finish(result).await
    }

    async fn projects_due(&self, now: Timestamp) -> Result<Vec<ProjectId>> {
        let ids: Vec<DbId> = sqlx::query_scalar(queries::DUE_PROJECTS)
            .bind(now.unix_seconds())
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        Ok(ids
            .into_iter()
            .map(|id| ProjectId::from_uuid(id.0))
            .collect())
    }

    async fn go_live(&self, project: ProjectId, now: Timestamp) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let result = async {
            let project_id = DbId::from(project);
            Self::lock_project(&mut tx, project).await?;
            let due: Vec<DueRow> = sqlx::query_as(D::LOCK_DUE)
                .bind(project_id)
                .bind(now.unix_seconds())
                .fetch_all(&mut *tx)
                .await
                .map_err(storage)?;
            if due.is_empty() {
                // Recorded by another writer, or unscheduled since.
                return Ok(0);
            }
            let went_live = due.len() as u64;
            let change_no = Self::apply_visible_change(
                &mut tx,
                project,
                VisibleChange {
                    bumps_version: true,
                    published_delta: i64::try_from(went_live).unwrap_or(i64::MAX),
                },
            )
            .await?
            .map_or(0, sql_count);
            // Before they are published: the posts that link to them and those whose aliases
            // their slugs free change too.
            for statement in [queries::STAMP_DUE_ALIAS_OWNERS, queries::STAMP_DUE_LINKERS] {
                sqlx::query(statement)
                    .bind(project_id)
                    .bind(now.unix_seconds())
                    .bind(change_no)
                    .execute(&mut *tx)
                    .await
                    .map_err(storage)?;
            }
            // The slugs they publish are freed as aliases, then they are published: both
            // by the same predicate, over rows held since the select.
            for statement in [queries::FREE_DUE_ALIASES, queries::PUBLISH_DUE] {
                sqlx::query(statement)
                    .bind(project_id)
                    .bind(now.unix_seconds())
                    .execute(&mut *tx)
                    .await
                    .map_err(storage)?;
            }
            let mut categories = Vec::new();
            for row in &due {
                for key in row.category_keys()? {
                    categories.push((row.id, key, row.published_at));
                }
            }
            for chunk in categories.chunks(queries::ROWS_PER_INSERT) {
                let sql = queries::values_rows(queries::INSERT_BLOG_CATEGORIES, 4, chunk.len());
                let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
                for (id, key, published_at) in chunk {
                    insert = insert
                        .bind(*id)
                        .bind(project_id)
                        .bind(key.as_str().to_owned())
                        .bind(*published_at);
                }
                insert.execute(&mut *tx).await.map_err(storage)?;
            }
            let has_hook: i64 = sqlx::query_scalar(queries::HAS_HOOK)
                .bind(project_id)
                .fetch_one(&mut *tx)
                .await
                .map_err(storage)?;
            if has_hook > 0 {
                for chunk in due.chunks(queries::ROWS_PER_INSERT) {
                    let sql = queries::values_rows(queries::INSERT_FIRINGS, 5, chunk.len());
                    let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for row in chunk {
                        insert = insert
                            .bind(DbId::from(FiringId::generate()))
                            .bind(project_id)
                            .bind(Trigger::Published.as_str().to_owned())
                            .bind(row.pub_slug.as_str().to_owned())
                            .bind(now.unix_seconds());
                    }
                    insert.execute(&mut *tx).await.map_err(storage)?;
                }
            }
            for row in &due {
                sqlx::query(queries::STAMP_BLOG)
                    .bind(row.id)
                    .bind(change_no)
                    .execute(&mut *tx)
                    .await
                    .map_err(storage)?;
            }
            Ok(went_live)
        }
        .await;
        tx.finish(result).await
    }

    async fn next_go_live(&self) -> Result<Option<Timestamp>> {
        let next: Option<i64> = sqlx::query_scalar(queries::NEXT_GO_LIVE)
            .fetch_one(&self.read)
            .await
            .map_err(storage)?;
        next.map(|t| timestamp("next go-live", t)).transpose()
    }

    async fn delete_blog(&self, project: ProjectId, id: BlogId, at: Timestamp) -> Result<Blog> {
        let mut tx = self.begin_write().await?;
        let result = async {
            Self::lock_project(&mut tx, project).await?;
            let blog = Self::locked_blog(&mut tx, project, id).await?;
            let event = deletion_event(&blog);
            let change_no = Self::apply_visible_change(
                &mut tx,
                project,
                VisibleChange::of_delete(&blog, event),
            )
            .await?;
            if let Some(n) = change_no {
                // Before the row goes: its links and aliases are found through it.
                let stamp = ChangeStamp::of_blog_write(blog.state.snapshot(), None);
                Self::stamp(&mut tx, project, id, &stamp, n, at).await?;
            }
            sqlx::query(queries::DELETE_BLOG)
                .bind(DbId::from(id))
                .execute(&mut *tx)
                .await
                .map_err(storage)?;
            let slug = firing_slug(None, &blog);
            Self::record_firing(&mut tx, &blog, event, slug, at).await?;
            Ok(blog)
        }
        .await;
        tx.finish(result).await
    }

    async fn changes(&self, project: ProjectId, query: &ChangeQuery) -> Result<ChangeRead> {
        let head: Option<(i64, i64)> = sqlx::query_as(queries::CHANGE_HEAD)
            .bind(DbId::from(project))
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        let (head, floor) = head.ok_or(Error::NotFound(NotFound::Project))?;
        let mut read = ChangeRead {
            head: count(head),
            floor: count(floor),
            entries: Vec::new(),
            has_more: false,
        };
        let after = &query.after;
        let initial = *after == ChangePosition::Start;
        if !initial && (after.change() < read.floor || after.change() > read.head) {
            return Ok(read);
        }
        let limit = query.limit.clamp(1, 100) as usize;
        // A change loses at most one slug (a write takes one post's), so a delete's position
        // is its change alone.
        let deletes: Vec<(i64, String)> = if initial {
            Vec::new()
        } else {
            sqlx::query_as(queries::CHANGE_DELETES)
                .bind(DbId::from(project))
                .bind(sql_count(after.change()))
                .bind(head)
                .bind(sql_count(limit as u64 + 1))
                .fetch_all(&self.read)
                .await
                .map_err(storage)?
        };
        let mut deletes = deletes.into_iter().peekable();
        let last_id = DbId(uuid::Uuid::max());
        let (change, id) = match after {
            ChangePosition::Start => (-1, last_id),
            ChangePosition::Delete { change, .. } => (sql_count(*change) - 1, last_id),
            ChangePosition::Upsert { change, id } => (sql_count(*change), DbId::from(*id)),
            ChangePosition::End { change } => (sql_count(*change), last_id),
        };
        // Through the public reads' path (on SQLite at once on the calling thread, as the
        // list pages), at most one row more than a page: then cut at the budget.
        let binds = [
            Bind::Id(DbId::from(project)),
            Bind::Int(change),
            Bind::Id(id),
            Bind::Int(head),
            Bind::Int(sql_count(limit as u64 + 1)),
        ];
        let rows: Vec<PublishedRow> = self.public_rows(queries::CHANGE_UPSERTS, &binds).await?;
        let mut upserts = rows.into_iter();
        let mut next = upserts.next();
        let mut bytes = 0usize;
        let mut blogs = Vec::new();
        loop {
            let more = next.is_some() || deletes.peek().is_some();
            if read.entries.len() == limit || (bytes > query.body_budget && more) {
                read.has_more = more;
                break;
            }
            let take_delete = match (deletes.peek(), &next) {
                (None, None) => break,
                (Some((deleted, _)), Some(row)) => Some(*deleted) <= row.change_no,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            if take_delete {
                let (change, slug) = deletes.next().expect("peeked");
                read.entries.push((
                    ChangePosition::Delete {
                        change: count(change),
                        slug: slug.clone(),
                    },
                    StoredChange::Delete(slug),
                ));
                continue;
            }
            let row = next.take().expect("matched");
            bytes += row.body_len();
            let change = count(row.change_no.unwrap_or_default());
            let blog = row.into_published()?;
            read.entries.push((
                ChangePosition::Upsert {
                    change,
                    id: blog.id,
                },
                StoredChange::Delete(String::new()),
            ));
            blogs.push((read.entries.len() - 1, blog));
            next = upserts.next();
        }
        if blogs.is_empty() {
            return Ok(read);
        }
        // Their aliases, in one statement.
        let ids: Vec<String> = blogs.iter().map(|(_, b)| b.id.to_string()).collect();
        let ids = serde_json::to_string(&ids).expect("a list of strings serialises");
        let rows: Vec<(DbId, String)> = sqlx::query_as(D::CHANGE_ALIASES)
            .bind(ids)
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        let mut aliases: HashMap<BlogId, Vec<String>> = HashMap::new();
        for (id, alias) in rows {
            aliases
                .entry(BlogId::from_uuid(id.0))
                .or_default()
                .push(alias);
        }
        for (at, blog) in blogs {
            let own = aliases.remove(&blog.id).unwrap_or_default();
            read.entries[at].1 = StoredChange::Upsert(Box::new(blog), own);
        }
        Ok(read)
    }

    async fn prune_changes(&self, before: Timestamp) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let result = async {
            sqlx::query(D::RAISE_CHANGES_FLOOR)
                .bind(before.unix_seconds())
                .execute(&mut *tx)
                .await
                .map_err(storage)?;
            let pruned = sqlx::query(queries::PRUNE_TOMBSTONES)
                .bind(before.unix_seconds())
                .execute(&mut *tx)
                .await
                .map_err(storage)?;
            Ok(D::rows_affected(&pruned))
        }
        .await;
        tx.finish(result).await
    }

    async fn published_page(&self, project: ProjectId, query: &PageQuery) -> Result<PublishedPage> {
        let columns = if query.include_content {
            Columns::Content
        } else {
            Columns::Fields
        };
        let (rows, total) = self.page::<PublishedRow>(project, query, columns).await?;
        Ok(PublishedPage {
            blogs: rows
                .into_iter()
                .map(PublishedRow::into_published)
                .collect::<Result<_>>()?,
            total,
        })
    }

    async fn published_page_keys(&self, project: ProjectId, query: &PageQuery) -> Result<PageKeys> {
        let (rows, total) = self.page::<KeyRow>(project, query, Columns::Keys).await?;
        Ok(PageKeys {
            keys: rows.into_iter().map(KeyRow::into_key).collect(),
            total,
        })
    }

    async fn published_key_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PostKey>> {
        let binds = [Bind::Id(DbId::from(project)), Bind::Text(slug)];
        let rows: Vec<KeyRow> = self.public_rows(D::PUBLISHED_KEY_BY_SLUG, &binds).await?;
        Ok(rows.into_iter().next().map(KeyRow::into_key))
    }

    async fn published_by_ids(
        &self,
        project: ProjectId,
        ids: &[BlogId],
        include_content: bool,
    ) -> Result<Vec<(PostKey, PublishedBlog)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = if include_content {
            D::PUBLISHED_BY_IDS_WITH_CONTENT
        } else {
            D::PUBLISHED_BY_IDS
        };
        let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
        let ids = serde_json::to_string(&ids).expect("a list of strings serialises");
        let binds = [Bind::Id(DbId::from(project)), Bind::Text(&ids)];
        let rows: Vec<PublishedRow> = self.public_rows(sql, &binds).await?;
        rows.into_iter()
            .map(|row| {
                let change = count(row.change_no.unwrap_or_default());
                let blog = row.into_published()?;
                Ok((
                    PostKey {
                        id: blog.id,
                        change,
                    },
                    blog,
                ))
            })
            .collect()
    }

    async fn published_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PublishedBlog>> {
        let binds = [Bind::Id(DbId::from(project)), Bind::Text(slug)];
        let rows: Vec<PublishedRow> = self.public_rows(queries::PUBLISHED_BY_SLUG, &binds).await?;
        rows.into_iter()
            .next()
            .map(PublishedRow::into_published)
            .transpose()
    }

    async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>> {
        self.dialect.sitemap(&self.read, project, cap).await
    }

    async fn redirects(&self, project: ProjectId, cap: u32) -> Result<Vec<Redirect>> {
        let rows: Vec<(String, String)> = sqlx::query_as(queries::REDIRECTS)
            .bind(DbId::from(project))
            .bind(i64::from(cap))
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        Ok(rows
            .into_iter()
            .map(|(from, to)| Redirect::new(from, to))
            .collect())
    }

    async fn published_aliases(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, (String, String)>> {
        if slugs.is_empty() {
            return Ok(HashMap::new());
        }
        // The slugs travel as one JSON array parameter, so the statement text never varies.
        let slugs = serde_json::to_string(slugs).expect("a list of strings serialises");
        let binds = [Bind::Id(DbId::from(project)), Bind::Text(&slugs)];
        let rows: Vec<(String, String, String)> =
            self.public_rows(D::PUBLISHED_ALIASES, &binds).await?;
        Ok(rows
            .into_iter()
            .map(|(alias, slug, title)| (alias, (slug, title)))
            .collect())
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
        let url: Option<Option<String>> = sqlx::query_scalar(queries::DEPLOY_HOOK)
            .bind(DbId::from(project))
            .fetch_optional(&self.read)
            .await
            .map_err(storage)?;
        Ok(url.flatten())
    }

    async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()> {
        let done = sqlx::query(queries::SET_DEPLOY_HOOK)
            .bind(DbId::from(project))
            .bind(url.map(str::to_owned))
            .execute(&self.write)
            .await
            .map_err(storage)?;
        if D::rows_affected(&done) == 0 {
            return Err(Error::NotFound(NotFound::Project));
        }
        Ok(())
    }

    async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let result = Self::insert_delivery(&mut tx, project, delivery).await;
        tx.finish(result).await
    }

    async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>> {
        let rows: Vec<DeliveryRow> = sqlx::query_as(queries::DELIVERIES)
            .bind(DbId::from(project))
            .bind(sql_count(DELIVERY_LOG_LEN as u64))
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        rows.into_iter().map(DeliveryRow::into_delivery).collect()
    }

    async fn claim_firings(
        &self,
        project: Option<ProjectId>,
        now: Timestamp,
    ) -> Result<Vec<PendingFiring>> {
        let rows: Vec<FiringRow> = sqlx::query_as(queries::CLAIM_FIRINGS)
            .bind(project.map(DbId::from))
            .bind(now.unix_seconds())
            .fetch_all(&self.write)
            .await
            .map_err(storage)?;
        rows.into_iter().map(FiringRow::into_firing).collect()
    }

    async fn stale_firings(&self, claimed_before: Timestamp) -> Result<Vec<PendingFiring>> {
        let rows: Vec<FiringRow> = sqlx::query_as(queries::STALE_FIRINGS)
            .bind(claimed_before.unix_seconds())
            .fetch_all(&self.read)
            .await
            .map_err(storage)?;
        rows.into_iter().map(FiringRow::into_firing).collect()
    }

    async fn complete_firing(
        &self,
        firing: &PendingFiring,
        delivery: Option<&Delivery>,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let result = async {
            let done = sqlx::query(queries::DELETE_FIRING)
                .bind(DbId::from(firing.id))
                .execute(&mut *tx)
                .await
                .map_err(storage)?;
            let was_recorded = D::rows_affected(&done) == 1;
            if let (true, Some(delivery)) = (was_recorded, delivery) {
                Self::insert_delivery(&mut tx, firing.project, delivery).await?;
            }
            Ok(was_recorded)
        }
        .await;
        tx.finish(result).await
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
