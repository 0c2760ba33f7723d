//! Credentials: project admin tokens, the public key, agent keys.

use serde::{Deserialize, Serialize};

use crate::auth::{Access, Caller};
use crate::domain::{
    AdminTokenId, AgentKeyId, CredentialId, CredentialKind, CredentialLabel, ProjectId, PublicKey,
    StoredCredential, StoredPublicKey, Timestamp,
};
use crate::error::{Error, NotFound, Result};
use crate::store::KeyWrite;

use super::Service;

/// A public key as Generate, Reveal and Rotate show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PublicKeyView {
    /// The key.
    pub key: String,
    /// When it was generated.
    pub created_at: Timestamp,
}

/// A new agent key, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IssuedAgentKey {
    /// Id (for deleting it).
    pub id: AgentKeyId,
    /// The key: shown this once only.
    pub key: String,
    /// Creation time.
    pub created_at: Timestamp,
}

/// An agent key as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentKeyView {
    /// Id.
    pub id: AgentKeyId,
    /// The first 12 characters.
    pub prefix: String,
    /// Creation time.
    pub created_at: Timestamp,
}

/// A project admin token as lists show it (the token itself is never kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AdminTokenView {
    /// Id (for deleting it).
    pub id: AdminTokenId,
    /// Creation time.
    pub created_at: Timestamp,
}

/// A new project admin token, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IssuedAdminToken {
    /// Id (for deleting it).
    pub id: AdminTokenId,
    /// The token: shown this once only.
    pub token: String,
    /// Creation time.
    pub created_at: Timestamp,
}

impl AgentKeyView {
    /// How a list shows `record`, when it is an agent key.
    fn of(record: StoredCredential) -> Option<Self> {
        match record.label {
            CredentialLabel::AgentKey { prefix } => Some(Self {
                id: record.id.into(),
                prefix,
                created_at: record.created_at,
            }),
            CredentialLabel::AdminToken => None,
        }
    }
}

impl AdminTokenView {
    /// How a list shows `record`, when it is an admin token.
    fn of(record: StoredCredential) -> Option<Self> {
        (record.kind() == CredentialKind::AdminToken).then(|| Self {
            id: record.id.into(),
            created_at: record.created_at,
        })
    }
}

/// Who manages the credentials of `kind` (issues, lists and deletes them): a project admin
/// its agent keys; the operator alone its admin tokens.
fn manager(kind: CredentialKind) -> Access {
    match kind {
        CredentialKind::AgentKey => Access::ProjectAdmin,
        CredentialKind::AdminToken => Access::Operator,
    }
}

impl Service {
    // ---- credentials ----

    /// Issues a project admin token (operator only); shown once.
    pub async fn create_admin_token(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<IssuedAdminToken> {
        let (record, token) = self
            .issue_credential(caller, project, CredentialKind::AdminToken)
            .await?;
        Ok(IssuedAdminToken {
            id: record.id.into(),
            token,
            created_at: record.created_at,
        })
    }

    /// Revokes a project admin token (operator only). Deleting one that is not there is a
    /// success.
    pub async fn delete_admin_token(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: AdminTokenId,
    ) -> Result<()> {
        self.revoke_credential(caller, project, CredentialKind::AdminToken, id.into())
            .await
    }

    /// The project's admin tokens, without the secrets (operator only), oldest first.
    pub async fn admin_tokens(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<Vec<AdminTokenView>> {
        self.credential_views(
            caller,
            project,
            CredentialKind::AdminToken,
            AdminTokenView::of,
        )
        .await
    }

    /// Generate API Key (project admin): 409 when the project has one.
    pub async fn generate_public_key(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.write_public_key(project, KeyWrite::Create).await
    }

    /// Rotate Key (project admin): a new key; the old one fails from the next request on.
    pub async fn rotate_public_key(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.write_public_key(project, KeyWrite::Replace).await
    }

    async fn write_public_key(&self, project: ProjectId, mode: KeyWrite) -> Result<PublicKeyView> {
        self.existing_project(project).await?;
        let stored = StoredPublicKey {
            key: PublicKey::generate(),
            created_at: self.now(),
        };
        self.store.put_public_key(project, &stored, mode).await?;
        Ok(PublicKeyView {
            key: stored.key.expose_secret().to_owned(),
            created_at: stored.created_at,
        })
    }

    /// Reveal (project admin): 404 when the project has no key.
    pub async fn reveal_public_key(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        let stored = self
            .store
            .public_key(project)
            .await?
            .ok_or(Error::NotFound(NotFound::PublicKey))?;
        Ok(PublicKeyView {
            key: stored.key.expose_secret().to_owned(),
            created_at: stored.created_at,
        })
    }

    /// Revoke (project admin): public access stops until a key is generated again. Revoking
    /// when there is no key is a success.
    pub async fn revoke_public_key(&self, caller: &Caller, project: ProjectId) -> Result<()> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        self.store.delete_public_key(project).await?;
        Ok(())
    }

    /// Issues an agent key (project admin); shown once.
    pub async fn create_agent_key(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<IssuedAgentKey> {
        let (record, key) = self
            .issue_credential(caller, project, CredentialKind::AgentKey)
            .await?;
        Ok(IssuedAgentKey {
            id: record.id.into(),
            key,
            created_at: record.created_at,
        })
    }

    /// The project's agent keys, without the secrets (project admin).
    pub async fn agent_keys(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<Vec<AgentKeyView>> {
        self.credential_views(caller, project, CredentialKind::AgentKey, AgentKeyView::of)
            .await
    }

    /// Deletes an agent key (project admin); deleting one that is not there is a success.
    pub async fn delete_agent_key(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: AgentKeyId,
    ) -> Result<()> {
        self.revoke_credential(caller, project, CredentialKind::AgentKey, id.into())
            .await
    }

    // ---- one path for every kind of credential ----

    /// Issues a credential of `kind` for `project`, when `caller` manages that kind: the
    /// record as stored, and the secret to show once.
    async fn issue_credential(
        &self,
        caller: &Caller,
        project: ProjectId,
        kind: CredentialKind,
    ) -> Result<(StoredCredential, String)> {
        self.authorize(caller, Some(project), manager(kind)).await?;
        self.existing_project(project).await?;
        let (secret, hash, label) = kind.generate();
        let record = StoredCredential {
            id: CredentialId::generate(),
            project_id: project,
            hash,
            label,
            created_at: self.now(),
        };
        self.store.insert_credential(&record).await?;
        Ok((record, secret))
    }

    /// The project's credentials of `kind`, oldest first, as `view` shows each one, when
    /// `caller` manages that kind.
    async fn credential_views<V>(
        &self,
        caller: &Caller,
        project: ProjectId,
        kind: CredentialKind,
        view: fn(StoredCredential) -> Option<V>,
    ) -> Result<Vec<V>> {
        self.authorize(caller, Some(project), manager(kind)).await?;
        self.existing_project(project).await?;
        let stored = self.store.credentials(kind, project).await?;
        Ok(stored.into_iter().filter_map(view).collect())
    }

    /// Deletes credential `id` of `kind`, when `caller` manages that kind; deleting one that
    /// is not there is a success.
    async fn revoke_credential(
        &self,
        caller: &Caller,
        project: ProjectId,
        kind: CredentialKind,
        id: CredentialId,
    ) -> Result<()> {
        self.authorize(caller, Some(project), manager(kind)).await?;
        self.store.delete_credential(kind, project, id).await?;
        Ok(())
    }
}
