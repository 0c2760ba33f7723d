//! The deploy hook: its URL, the firings recorded with the writes, and the delivery log.

use super::errors::{storage, write_error};
use super::queries::{self, sql_count};
use super::rows::{DeliveryRow, FiringRow};
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::delivery::DELIVERY_LOG_LEN;
use crate::domain::{Blog, Delivery, FiringId, PendingFiring, ProjectId, Timestamp, Trigger};
use crate::error::{Error, NotFound, Result};
use crate::store::FiringStore;
use crate::store::connection::{Run, WriteTx};
use crate::store::rules::Conflict;

sql_impl! {
    impl FiringStore for SqlStore {
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
                    .execute(tx.run())
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
    }
}

sql_impl! {
    impl SqlStore {
        /// Records the firing of `event` on `blog` (named by `slug`) in the write's own
        /// transaction, when the project has a deploy hook.
        pub(super) async fn record_firing(
            tx: &mut WriteTx<D::Db>,
            blog: &Blog,
            event: Option<Trigger>,
            slug: String,
            at: Timestamp,
        ) -> Result<()> {
            Self::record_project_firing(tx, blog.project_id, event, slug, at).await
        }

        /// Records the firing of `event` in `project` (naming `slug`) in the write's own
        /// transaction, when the project has a deploy hook.
        pub(super) async fn record_project_firing(
            tx: &mut WriteTx<D::Db>,
            project: ProjectId,
            event: Option<Trigger>,
            slug: String,
            at: Timestamp,
        ) -> Result<()> {
            let Some(trigger) = event else { return Ok(()) };
            sqlx::query(queries::INSERT_FIRING)
                .bind(DbId::from(FiringId::generate()))
                .bind(DbId::from(project))
                .bind(trigger.as_str().to_owned())
                .bind(slug)
                .bind(at.unix_seconds())
                .execute(tx.run())
                .await
                .map_err(storage)?;
            Ok(())
        }

        /// Appends `delivery` to the project's log, keeping the newest `DELIVERY_LOG_LEN`.
        pub(super) async fn insert_delivery(
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
                .execute(tx.run())
                .await
                .map_err(|e| write_error(e, Conflict::DeliveryExists))?;
            sqlx::query(queries::TRIM_DELIVERIES)
                .bind(DbId::from(project))
                .bind(sql_count(DELIVERY_LOG_LEN as u64 - 1))
                .execute(tx.run())
                .await
                .map_err(storage)?;
            Ok(())
        }
    }
}
