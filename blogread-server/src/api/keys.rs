//! The public key (Generate, Reveal, Rotate, Revoke) and agent keys
//! (`docs/management-api.md#public-key` and `#agent-keys`).

use blogread_core::Service;
use blogread_core::error::NotFound;
use blogread_core::service::{
    AgentKeyView as CoreAgentKeyView, IssuedAgentKey as CoreIssuedAgentKey,
    PublicKeyView as CorePublicKeyView,
};
use poem_openapi::param::Path;
use poem_openapi::types::Example;
use poem_openapi::{Object, OpenApi};

use super::auth::ManagementAuth;
use super::common::{ApiTags, Created201, NoContent204, Ok200, created, ok, path_id};
use super::schema::{DateTime, PathId};
use crate::error::{self, Reply, reply};

/// The project's public key.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct PublicKey {
    /// The key (`pk_live_...`): read-only access to the project's published blogs. Keep it in
    /// a build-environment variable; never in browser code or a repository.
    pub key: String,
    /// When it was generated (UTC).
    pub created_at: DateTime,
}

impl From<CorePublicKeyView> for PublicKey {
    fn from(k: CorePublicKeyView) -> Self {
        Self {
            key: k.key,
            created_at: k.created_at.into(),
        }
    }
}

impl Example for PublicKey {
    fn example() -> Self {
        Self {
            key: "pk_live_Jx1N1c8Qb3cTn0mB7lYwq3Qm6e2zK9dR4sV5uW8xY0a".into(),
            created_at: DateTime(
                blogread_core::domain::Timestamp::parse("2026-11-21T09:30:00Z").expect("valid"),
            ),
        }
    }
}

/// A new agent key: shown this once only.
#[derive(Debug, Clone, Object)]
pub struct IssuedAgentKey {
    /// Id, for deleting it.
    pub id: String,
    /// The key (`sk_agent_...`): content writes for this project. Stored hashed.
    pub key: String,
    /// Creation time (UTC).
    pub created_at: DateTime,
}

impl From<CoreIssuedAgentKey> for IssuedAgentKey {
    fn from(k: CoreIssuedAgentKey) -> Self {
        Self {
            id: k.id.to_string(),
            key: k.key,
            created_at: k.created_at.into(),
        }
    }
}

/// An agent key, without its secret.
#[derive(Debug, Clone, Object)]
pub struct AgentKey {
    /// Id.
    pub id: String,
    /// The key's first 12 characters, to recognise it.
    pub prefix: String,
    /// Creation time (UTC).
    pub created_at: DateTime,
}

/// The project's agent keys.
#[derive(Debug, Clone, Object)]
pub struct AgentKeyList {
    /// The keys, without secrets.
    pub agent_keys: Vec<AgentKey>,
}

impl From<Vec<CoreAgentKeyView>> for AgentKeyList {
    fn from(keys: Vec<CoreAgentKeyView>) -> Self {
        Self {
            agent_keys: keys
                .into_iter()
                .map(|k| AgentKey {
                    id: k.id.to_string(),
                    prefix: k.prefix,
                    created_at: k.created_at.into(),
                })
                .collect(),
        }
    }
}

/// Keys.
pub struct KeysApi {
    pub(crate) service: Service,
}

#[OpenApi(prefix_path = "/api/v1/projects", tag = "ApiTags::Keys")]
impl KeysApi {
    /// Generate the public key
    ///
    /// 409 when the project already has one (rotate it instead).
    #[oai(
        path = "/:project_id/public-key",
        method = "post",
        operation_id = "generate_public_key"
    )]
    async fn generate_public_key(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Created201<PublicKey>, error::ProjectConflict> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let k = self.service.generate_public_key(auth.caller(), id).await?;
            Ok(created(k))
        })
        .await
    }

    /// Reveal the public key
    ///
    /// 404 when the project has none.
    #[oai(
        path = "/:project_id/public-key",
        method = "get",
        operation_id = "reveal_public_key"
    )]
    async fn reveal_public_key(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Ok200<PublicKey>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let k = self.service.reveal_public_key(auth.caller(), id).await?;
            Ok(ok(k))
        })
        .await
    }

    /// Rotate the public key
    ///
    /// Issues a new key; the old one fails from the next request on. 404 when the project has
    /// no key.
    #[oai(
        path = "/:project_id/public-key/rotate",
        method = "post",
        operation_id = "rotate_public_key"
    )]
    async fn rotate_public_key(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Created201<PublicKey>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let k = self.service.rotate_public_key(auth.caller(), id).await?;
            Ok(created(k))
        })
        .await
    }

    /// Revoke the public key
    ///
    /// Public access stops until a key is generated again. Revoking when there is no key is
    /// a success.
    #[oai(
        path = "/:project_id/public-key",
        method = "delete",
        operation_id = "revoke_public_key"
    )]
    async fn revoke_public_key(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<NoContent204, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            self.service.revoke_public_key(auth.caller(), id).await?;
            Ok(NoContent204::NoContent)
        })
        .await
    }

    /// Create an agent key
    ///
    /// The key is shown in this answer only.
    #[oai(
        path = "/:project_id/agent-keys",
        method = "post",
        operation_id = "create_agent_key"
    )]
    async fn create_agent_key(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Created201<IssuedAgentKey>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let k = self.service.create_agent_key(auth.caller(), id).await?;
            Ok(created(k))
        })
        .await
    }

    /// List agent keys
    #[oai(
        path = "/:project_id/agent-keys",
        method = "get",
        operation_id = "list_agent_keys"
    )]
    async fn list_agent_keys(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Ok200<AgentKeyList>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let k = self.service.agent_keys(auth.caller(), id).await?;
            Ok(ok(k))
        })
        .await
    }

    /// Delete an agent key
    ///
    /// Deleting one that is not there is a success.
    #[oai(
        path = "/:project_id/agent-keys/:key_id",
        method = "delete",
        operation_id = "delete_agent_key"
    )]
    async fn delete_agent_key(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Agent key id (a UUID).
        key_id: Path<PathId>,
    ) -> Reply<NoContent204, error::ProjectRead> {
        reply(async {
            let project = path_id(&project_id, NotFound::Project)?;
            let key = path_id(&key_id, NotFound::AgentKey)?;
            self.service
                .delete_agent_key(auth.caller(), project, key)
                .await?;
            Ok(NoContent204::NoContent)
        })
        .await
    }
}
