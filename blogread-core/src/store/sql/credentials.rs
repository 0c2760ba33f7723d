//! The credentials a project holds (its public key, agent keys and admin tokens) and the
//! admin page sessions signed in with them.

use super::errors::{storage, write_error};
use super::queries::{self};
use super::rows::{CredentialRow, PublicKeyRow, SessionRow};
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::{
    AdminSession, CredentialId, CredentialKind, CredentialLabel, ProjectId, PublicProject,
    SecretHash, SessionCredential, StoredCredential, StoredPublicKey,
};
use crate::error::{Error, NotFound, Result};
use crate::store::KeyWrite;
use crate::store::connection::Run;
use crate::store::rules::Conflict;
use crate::store::{CredentialStore, SessionStore};

/// The statements of one kind of credential. Each kind keeps its own table (admin sessions
/// reference `admin_tokens`), read under the same column names (`CredentialRow`), so one
/// piece of code serves both, picking its statements here.
struct Statements {
    /// A new credential: `$1` id, `$2` project, `$3` hash, `$4` created at, and an agent
    /// key's display prefix as `$5`.
    insert: &'static str,
    /// The credentials of project `$1`, oldest first.
    list: &'static str,
    /// Deletes credential `$2` of project `$1`.
    delete: &'static str,
    /// The credential with hash `$1`.
    by_hash: &'static str,
    /// What a unique violation of the insert means.
    conflict: Conflict<'static>,
}

/// The statements of a credential table: its insert, and the `select` of its columns under
/// `CredentialRow`'s names that its list and its look-up by `hash` (the hash column) filter.
macro_rules! statements {
    (
        table: $table:literal,
        insert: $insert:literal,
        select: $select:literal,
        hash: $hash:literal,
        conflict: $conflict:expr $(,)?
    ) => {
        Statements {
            insert: $insert,
            list: concat!($select, " WHERE project_id = $1 ORDER BY created_at, id"),
            delete: concat!("DELETE FROM ", $table, " WHERE project_id = $1 AND id = $2"),
            by_hash: concat!($select, " WHERE ", $hash, " = $1"),
            conflict: $conflict,
        }
    };
}

/// Agent keys, with their display prefix.
const AGENT_KEYS: Statements = statements! {
    table: "agent_keys",
    insert: "INSERT INTO agent_keys (id, project_id, key_hash, created_at, prefix) \
             VALUES ($1, $2, $3, $4, $5)",
    select: "SELECT id, project_id, key_hash AS hash, prefix, created_at FROM agent_keys",
    hash: "key_hash",
    conflict: Conflict::AgentKeyExists,
};

/// Project admin tokens, which keep no display prefix.
const ADMIN_TOKENS: Statements = statements! {
    table: "admin_tokens",
    insert: "INSERT INTO admin_tokens (id, project_id, token_hash, created_at) \
             VALUES ($1, $2, $3, $4)",
    select: "SELECT id, project_id, token_hash AS hash, CAST(NULL AS TEXT) AS prefix, \
             created_at FROM admin_tokens",
    hash: "token_hash",
    conflict: Conflict::AdminTokenExists,
};

impl Statements {
    /// The statements of `kind`.
    fn of(kind: CredentialKind) -> &'static Statements {
        match kind {
            CredentialKind::AgentKey => &AGENT_KEYS,
            CredentialKind::AdminToken => &ADMIN_TOKENS,
        }
    }
}

sql_impl! {
    impl CredentialStore for SqlStore {
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

        async fn insert_credential(&self, record: &StoredCredential) -> Result<()> {
            let statements = Statements::of(record.kind());
            let insert = sqlx::query(statements.insert)
                .bind(DbId::from(record.id))
                .bind(DbId::from(record.project_id))
                .bind(record.hash.to_hex())
                .bind(record.created_at.unix_seconds());
            let insert = match &record.label {
                CredentialLabel::AgentKey { prefix } => insert.bind(prefix.clone()),
                CredentialLabel::AdminToken => insert,
            };
            insert
                .execute(&self.write)
                .await
                .map_err(|e| write_error(e, statements.conflict))?;
            Ok(())
        }

        async fn credentials(
            &self,
            kind: CredentialKind,
            project: ProjectId,
        ) -> Result<Vec<StoredCredential>> {
            let rows: Vec<CredentialRow> = sqlx::query_as(Statements::of(kind).list)
                .bind(DbId::from(project))
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            rows.into_iter().map(|row| row.into_credential(kind)).collect()
        }

        // An admin token's sessions go with it: the foreign key of `admin_sessions` deletes them in
        // the same statement.
        async fn delete_credential(
            &self,
            kind: CredentialKind,
            project: ProjectId,
            id: CredentialId,
        ) -> Result<bool> {
            let done = sqlx::query(Statements::of(kind).delete)
                .bind(DbId::from(project))
                .bind(DbId::from(id))
                .execute(&self.write)
                .await
                .map_err(storage)?;
            Ok(D::rows_affected(&done) > 0)
        }

        async fn credential_by_hash(
            &self,
            kind: CredentialKind,
            hash: &SecretHash,
        ) -> Result<Option<StoredCredential>> {
            let row: Option<CredentialRow> = sqlx::query_as(Statements::of(kind).by_hash)
                .bind(hash.to_hex())
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            row.map(|row| row.into_credential(kind)).transpose()
        }
    }
}

sql_impl! {
    impl SessionStore for SqlStore {
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
    }
}
