//! The credentials a project holds (its public key, agent keys and admin tokens) and the
//! admin page sessions signed in with them.

use super::errors::{storage, write_error};
use super::queries::{self};
use super::rows::{AdminTokenRow, AgentKeyRow, PublicKeyRow, SessionRow};
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::{
    AdminSession, AdminTokenId, AdminTokenRecord, AgentKeyId, AgentKeyRecord, ProjectId,
    SecretHash, SessionCredential, StoredPublicKey,
};
use crate::error::{Error, NotFound, Result};
use crate::store::KeyWrite;
use crate::store::connection::Run;
use crate::store::rules::Conflict;

sql_impl! {
    impl SqlStore {
        /// See [`Store::public_key`].
        pub(super) async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
            let row: Option<PublicKeyRow> = sqlx::query_as(queries::PUBLIC_KEY)
                .bind(DbId::from(project))
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            row.map(PublicKeyRow::into_key).transpose()
        }

        /// See [`Store::put_public_key`].
        pub(super) async fn put_public_key(
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

        /// See [`Store::delete_public_key`].
        pub(super) async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
            let done = sqlx::query(queries::DELETE_PUBLIC_KEY)
                .bind(DbId::from(project))
                .execute(&self.write)
                .await
                .map_err(storage)?;
            Ok(D::rows_affected(&done) > 0)
        }

        /// See [`Store::insert_agent_key`].
        pub(super) async fn insert_agent_key(&self, record: &AgentKeyRecord) -> Result<()> {
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

        /// See [`Store::agent_keys`].
        pub(super) async fn agent_keys(&self, project: ProjectId) -> Result<Vec<AgentKeyRecord>> {
            let rows: Vec<AgentKeyRow> = sqlx::query_as(queries::AGENT_KEYS)
                .bind(DbId::from(project))
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            rows.into_iter().map(AgentKeyRow::into_record).collect()
        }

        /// See [`Store::delete_agent_key`].
        pub(super) async fn delete_agent_key(&self, project: ProjectId, id: AgentKeyId) -> Result<bool> {
            let done = sqlx::query(queries::DELETE_AGENT_KEY)
                .bind(DbId::from(project))
                .bind(DbId::from(id))
                .execute(&self.write)
                .await
                .map_err(storage)?;
            Ok(D::rows_affected(&done) > 0)
        }

        /// See [`Store::agent_key_by_hash`].
        pub(super) async fn agent_key_by_hash(&self, hash: &SecretHash) -> Result<Option<AgentKeyRecord>> {
            let row: Option<AgentKeyRow> = sqlx::query_as(queries::AGENT_KEY_BY_HASH)
                .bind(hash.to_hex())
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            row.map(AgentKeyRow::into_record).transpose()
        }

        /// See [`Store::insert_admin_token`].
        pub(super) async fn insert_admin_token(&self, record: &AdminTokenRecord) -> Result<()> {
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

        /// See [`Store::delete_admin_token`].
        pub(super) async fn delete_admin_token(&self, project: ProjectId, id: AdminTokenId) -> Result<bool> {
            let done = sqlx::query(queries::DELETE_ADMIN_TOKEN)
                .bind(DbId::from(project))
                .bind(DbId::from(id))
                .execute(&self.write)
                .await
                .map_err(storage)?;
            Ok(D::rows_affected(&done) > 0)
        }

        /// See [`Store::admin_token_by_hash`].
        pub(super) async fn admin_token_by_hash(&self, hash: &SecretHash) -> Result<Option<AdminTokenRecord>> {
            let row: Option<AdminTokenRow> = sqlx::query_as(queries::ADMIN_TOKEN_BY_HASH)
                .bind(hash.to_hex())
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            row.map(AdminTokenRow::into_record).transpose()
        }

        /// See [`Store::admin_tokens`].
        pub(super) async fn admin_tokens(&self, project: ProjectId) -> Result<Vec<AdminTokenRecord>> {
            let rows: Vec<AdminTokenRow> = sqlx::query_as(queries::ADMIN_TOKENS)
                .bind(DbId::from(project))
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            rows.into_iter().map(AdminTokenRow::into_record).collect()
        }

        /// See [`Store::insert_admin_session`].
        pub(super) async fn insert_admin_session(&self, session: &AdminSession) -> Result<()> {
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
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
                let done = sqlx::query(queries::INSERT_SESSION)
                    .bind(session.hash.to_hex())
                    .bind(token)
                    .bind(project)
                    .bind(operator)
                    .bind(session.created_at.unix_seconds())
                    .bind(session.expires_at.unix_seconds())
                    .execute(tx.run())
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

        /// See [`Store::admin_session`].
        pub(super) async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>> {
            let row: Option<SessionRow> = sqlx::query_as(queries::SESSION)
                .bind(hash.to_hex())
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            row.map(SessionRow::into_session).transpose()
        }

        /// See [`Store::delete_admin_session`].
        pub(super) async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool> {
            let done = sqlx::query(queries::DELETE_SESSION)
                .bind(hash.to_hex())
                .execute(&self.write)
                .await
                .map_err(storage)?;
            Ok(D::rows_affected(&done) > 0)
        }
    }
}
