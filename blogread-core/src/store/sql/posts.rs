//! The writes of posts (insert, update, delete, go-live) and the management reads: each
//! write is one transaction that locks the post, writes it and its derived rows, and records
//! what the public sees change.

use super::errors::{storage, write_error};
use super::links_report::HeldBodies;
use super::post_columns::{INSERT_BLOG, UPDATE_BLOG, bind_blog};
use super::queries::{self, count, sql_count};
use super::rows::{BlogRow, Derived, DueRow, ManagedRow, stored_template, timestamp};
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::{Blog, BlogId, BlogStatus, FiringId, ProjectId, Timestamp, Trigger};
use crate::error::{Error, NotFound, Result};
use crate::lifecycle::{deletion_event, firing_slug};
use crate::links::CompiledBody;
use crate::store::PostStore;
use crate::store::connection::{Run, WriteTx};
use crate::store::media_uses::HeldImageFields;
use crate::store::rules::{ChangeStamp, Conflict, SlugHistory, VisibleChange};
use crate::store::{BlogUpdate, ManagedPage};

sql_impl! {
    impl PostStore for SqlStore {
        async fn insert_blog(&self, blog: &Blog) -> Result<()> {
            // A blog inserted with a body to publish (an import) has it compiled before the
            // transaction, like every write that publishes one.
            let derived = Derived::of(blog);
            let compiled = derived.body.clone().map(CompiledBody::of);
            let mut tx = self.begin_write().await?;
            let result = async {
                Self::lock_project(&mut tx, blog.project_id).await?;
                bind_blog(sqlx::query(INSERT_BLOG.as_str()), blog)
                    .execute(tx.run())
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
                Self::write_media_uses(&mut tx, blog, None).await?;
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
                let before_images = HeldImageFields::of(&blog);
                let before_snapshot = blog.state.snapshot().cloned();
                let before_slug = blog.state.snapshot().map(|s| s.fields.slug().to_string());
                let was_published = blog.state.snapshot().is_some();
                // On error `finish` rolls the transaction back.
                let event = change(&mut blog)?;
                let visible =
                    VisibleChange::of_blog_write(was_published, blog.state.snapshot().is_some(), event);
                debug_assert_eq!((blog.id, blog.project_id), (id, project));
                bind_blog(sqlx::query(UPDATE_BLOG.as_str()), &blog)
                    .execute(tx.run())
                    .await
                    .map_err(|e| write_error(e, Conflict::slug_taken(&blog)))?;
                let after = Derived::of(&blog);
                Self::write_derived(&mut tx, &blog, &before, &after, compiled.as_ref()).await?;
                Self::write_placeholders(&mut tx, &blog, Some(&before_bodies)).await?;
                Self::write_media_uses(&mut tx, &blog, Some(&before_images)).await?;
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
                            .execute(tx.run())
                            .await
                            .map_err(storage)?;
                    }
                    sqlx::query(queries::DELETE_ALIAS)
                        .bind(DbId::from(project))
                        .bind(free.as_str().to_owned())
                        .execute(tx.run())
                        .await
                        .map_err(storage)?;
                }
                if let Some(old) = &history.add {
                    sqlx::query(queries::PUT_ALIAS)
                        .bind(DbId::from(project))
                        .bind(old.as_str().to_owned())
                        .bind(DbId::from(id))
                        .bind(blog.updated_at.unix_seconds())
                        .execute(tx.run())
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
                    .fetch_all(tx.run())
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
                        .execute(tx.run())
                        .await
                        .map_err(storage)?;
                }
                // The slugs they publish are freed as aliases, then they are published: both
                // by the same predicate, over rows held since the select.
                for statement in [queries::FREE_DUE_ALIASES, queries::PUBLISH_DUE] {
                    sqlx::query(statement)
                        .bind(project_id)
                        .bind(now.unix_seconds())
                        .execute(tx.run())
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
                    insert.execute(tx.run()).await.map_err(storage)?;
                }
                let has_hook: i64 = sqlx::query_scalar(queries::HAS_HOOK)
                    .bind(project_id)
                    .fetch_one(tx.run())
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
                        insert.execute(tx.run()).await.map_err(storage)?;
                    }
                }
                for row in &due {
                    sqlx::query(queries::STAMP_BLOG)
                        .bind(row.id)
                        .bind(change_no)
                        .execute(tx.run())
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
                // Its rows of `media_uses` go with it (the foreign key cascades).
                sqlx::query(queries::DELETE_BLOG)
                    .bind(DbId::from(id))
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
                let slug = firing_slug(None, &blog);
                Self::record_firing(&mut tx, &blog, event, slug, at).await?;
                Ok(blog)
            }
            .await;
            tx.finish(result).await
        }
    }
}

sql_impl! {
    impl SqlStore {
        /// Blog `id` of `project`, locked for the rest of `tx` (`NotFound` when absent).
        pub(super) async fn locked_blog(tx: &mut WriteTx<D::Db>, project: ProjectId, id: BlogId) -> Result<Blog> {
            let row: Option<BlogRow> = sqlx::query_as(D::LOCK_BLOG)
                .bind(DbId::from(id))
                .bind(DbId::from(project))
                .fetch_optional(tx.run())
                .await
                .map_err(storage)?;
            row.ok_or(Error::NotFound(NotFound::Blog))?.into_blog()
        }

        /// Brings the slugs, category rows and link template of `blog` from `old` to `new`; a
        /// new body's template is `compiled` when that is the body's, else compiled here.
        pub(super) async fn write_derived(
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
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
            }
            for slug in new.slugs.iter().filter(|s| !old.slugs.contains(s)) {
                sqlx::query(queries::INSERT_BLOG_SLUG)
                    .bind(project)
                    .bind(slug.as_str().to_owned())
                    .bind(id)
                    .execute(tx.run())
                    .await
                    .map_err(|e| write_error(e, Conflict::slug_taken(blog)))?;
            }
            if old.body != new.body {
                if old.body.is_some() {
                    sqlx::query(queries::DELETE_LINKS)
                        .bind(id)
                        .execute(tx.run())
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
                            .execute(tx.run())
                            .await
                            .map_err(storage)?
                    }
                    None => sqlx::query(queries::DELETE_TEMPLATE)
                        .bind(id)
                        .execute(tx.run())
                        .await
                        .map_err(storage)?,
                };
            }
            if (&old.categories, old.published_at) != (&new.categories, new.published_at) {
                if !old.categories.is_empty() {
                    sqlx::query(queries::DELETE_BLOG_CATEGORIES)
                        .bind(id)
                        .execute(tx.run())
                        .await
                        .map_err(storage)?;
                }
                for key in &new.categories {
                    sqlx::query(queries::INSERT_BLOG_CATEGORY)
                        .bind(id)
                        .bind(project)
                        .bind(key.as_str().to_owned())
                        .bind(new.published_at)
                        .execute(tx.run())
                        .await
                        .map_err(storage)?;
                }
            }
            Ok(())
        }

        /// Inserts `links` (project, slug, blog) into the link index, many rows a statement;
        /// `or_ignore` skips rows already there.
        pub(super) async fn insert_links(
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
                insert.execute(tx.run()).await.map_err(storage)?;
            }
            Ok(())
        }
    }
}
