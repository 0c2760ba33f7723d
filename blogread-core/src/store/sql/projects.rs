//! Projects: their rows, pages and changes of their fields.

use super::errors::{storage, write_error};
use super::queries::{self, count, sql_count};
use super::rows::{ProjectChangeRow, ProjectRow};
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::{Project, ProjectId};
use crate::error::{Error, NotFound, Result};
use crate::store::ProjectStore;
use crate::store::connection::Run;
use crate::store::rules::Conflict;
use crate::store::{ProjectChange, ProjectPage};

sql_impl! {
    impl ProjectStore for SqlStore {
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
                    .fetch_optional(tx.run())
                    .await
                    .map_err(storage)?;
                let row = row.ok_or(Error::NotFound(NotFound::Project))?;
                if count(row.change_seq) > before {
                    // A new site URL: every resolved link changes.
                    sqlx::query(queries::STAMP_ALL_LINKERS)
                        .bind(DbId::from(id))
                        .bind(row.change_seq)
                        .execute(tx.run())
                        .await
                        .map_err(storage)?;
                }
                row.project.into_project()
            }
            .await;
            tx.finish(result).await
        }
    }
}

sql_impl! {
    impl SqlStore {
        pub(super) async fn project_exists(&self, project: ProjectId) -> Result<bool> {
            let found: Option<i32> = sqlx::query_scalar(queries::PROJECT_EXISTS)
                .bind(DbId::from(project))
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            Ok(found.is_some())
        }
    }
}
