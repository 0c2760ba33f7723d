//! Credentials: project admin tokens, the public key, agent keys.

use serde::{Deserialize, Serialize};

use crate::auth::{Access, Caller};
use crate::domain::{
    AdminToken, AdminTokenId, AdminTokenRecord, AgentKey, AgentKeyId, AgentKeyRecord, ProjectId,
    PublicKey, StoredPublicKey, Timestamp,
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

impl Service {
    // ---- credentials ----

    /// Issues a project admin token (operator only); shown once.
    pub async fn create_admin_token(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<IssuedAdminToken> {
        self.authorize(caller, Some(project), Access::Operator)
            .await?;
        self.existing_project(project).await?;
        let token = AdminToken::generate();
        let record = AdminTokenRecord {
            id: AdminTokenId::generate(),
            project_id: project,
            hash: token.hash(),
            created_at: self.now(),
        };
        self.store.insert_admin_token(&record).await?;
        Ok(IssuedAdminToken {
            id: record.id,
            token: token.expose_secret().to_owned(),
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
        self.authorize(caller, Some(project), Access::Operator)
            .await?;
        self.store.delete_admin_token(project, id).await?;
        Ok(())
    }

    /// The project's admin tokens, without the secrets (operator only), oldest first.
    pub async fn admin_tokens(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<Vec<AdminTokenView>> {
        self.authorize(caller, Some(project), Access::Operator)
            .await?;
        self.existing_project(project).await?;
        Ok(self
            .store
            .admin_tokens(project)
            .await?
            .into_iter()
            .map(|r| AdminTokenView {
                id: r.id,
                created_at: r.created_at,
            })
            .collect())
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
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        let key = AgentKey::generate();
        let record = AgentKeyRecord {
            id: AgentKeyId::generate(),
            project_id: project,
            hash: key.hash(),
            prefix: key.display_prefix().to_owned(),
            created_at: self.now(),
        };
        self.store.insert_agent_key(&record).await?;
        Ok(IssuedAgentKey {
            id: record.id,
            key: key.expose_secret().to_owned(),
            created_at: record.created_at,
        })
    }

    /// The project's agent keys, without the secrets (project admin).
    pub async fn agent_keys(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<Vec<AgentKeyView>> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        Ok(self
            .store
            .agent_keys(project)
            .await?
            .into_iter()
            .map(|r| AgentKeyView {
                id: r.id,
                prefix: r.prefix,
                created_at: r.created_at,
            })
            .collect())
    }

    /// Deletes an agent key (project admin); deleting one that is not there is a success.
    pub async fn delete_agent_key(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: AgentKeyId,
    ) -> Result<()> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.store.delete_agent_key(project, id).await?;
        Ok(())
    }
}
