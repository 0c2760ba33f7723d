//! The links report's reads and the placeholder index the writes keep.

use super::errors::{corrupt, storage};
use super::links_report::{
    BODY_KEYS, BodyKeyRow, DELETE_PLACEHOLDER_SLUGS, DELETE_PLACEHOLDERS, HeldBodies, LINK_ALIASES,
    LINK_TARGETS, LINKED_SLUGS, PUT_PLACEHOLDERS, PlaceholdersRow, TargetRow, ids_json, keys_json,
    names_json, slugs_json, texts_json,
};
use super::queries::{count, sql_count};
use super::rows::timestamp;
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::{Blog, BlogId, BlogStatus};
use crate::error::Result;
use crate::links::report::{self, LinkTarget};
use crate::store::LinkStore;
use crate::store::LinkTargetSources;
use crate::store::connection::{Run, WriteTx};
use crate::store::link_sources::{BodyCopy, BodyKey, BodyPlaceholders, bodies_of};

sql_impl! {
    impl SqlStore {
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
        pub(super) async fn put_placeholders(
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
                    .execute(tx.run())
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
                .execute(tx.run())
                .await
                .map_err(storage)?;
            sqlx::query(D::PUT_PLACEHOLDER_SLUGS)
                .bind(project)
                .bind(slugs_json(&found))
                .bind(DbId::from(id))
                .bind(copy.as_str().to_owned())
                .execute(tx.run())
                .await
                .map_err(storage)?;
            Ok(())
        }
    }
}

sql_impl! {
    impl LinkStore for SqlStore {
        async fn link_targets(
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

        async fn linked_slugs(
            &self,
            project: crate::domain::ProjectId,
        ) -> Result<Vec<Option<String>>> {
            let rows: Vec<(String,)> = self.report_rows(LINKED_SLUGS, DbId::from(project)).await?;
            Ok(rows
                .into_iter()
                .map(|(slug,)| Some(slug).filter(|s| !s.is_empty()))
                .collect())
        }

        async fn link_targets_named(
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

        async fn link_body_keys(
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

        async fn link_bodies(
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
