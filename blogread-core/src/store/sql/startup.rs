//! What every SQL store does once its migrations ran, before it serves: a restored copy
//! becomes another database, and the data kept beside the posts is brought up to what this
//! version keeps (link templates, their word counts, the link and placeholder indexes).

use super::errors::storage;
use super::links_report::{ALL_BODIES_AFTER, PLACEHOLDERS_INDEXED, SET_PLACEHOLDERS_INDEXED};
use super::queries::{self};
use super::rows::{PendingTemplateRow, stored_template};
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::BlogId;
use crate::error::{Error, Result};
use crate::links::LinkTemplate;
use crate::store::connection::Run;
use crate::store::link_sources::BodyCopy;

sql_impl! {
    impl SqlStore {
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
        pub(super) async fn renew_restored_epoch(&self) -> Result<()> {
            let mut tx = self.begin_write().await?;
            let result = async {
                let mut renewed = 0;
                for (at, sql) in D::RENEW_RESTORED_EPOCH.iter().enumerate() {
                    let done = sqlx::query(*sql).execute(tx.run()).await.map_err(storage)?;
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
                                .execute(tx.run())
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
                                .execute(tx.run())
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
    }
}
