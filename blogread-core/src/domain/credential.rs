//! The credentials a project issues and keeps only the hash of (agent keys and project admin
//! tokens): one kind type and one record type for both, so that every store and the service
//! handle them with one piece of code.

use super::ids::{AdminTokenId, AgentKeyId, CredentialId, ProjectId};
use super::keys::{AdminToken, AgentKey, SecretHash};
use super::time::Timestamp;

/// The kinds of credential a project issues, shows once and keeps only the hash of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CredentialKind {
    /// An agent key (`sk_agent_`): content writes of one project.
    AgentKey,
    /// A project admin token (`sk_admin_`): everything under one project.
    AdminToken,
}

impl CredentialKind {
    /// A new secret of this kind: the secret itself (to show once) and what is stored of it,
    /// its hash and its label.
    pub fn generate(self) -> (String, SecretHash, CredentialLabel) {
        match self {
            CredentialKind::AgentKey => {
                let key = AgentKey::generate();
                let prefix = key.display_prefix().to_owned();
                let label = CredentialLabel::AgentKey { prefix };
                (key.expose_secret().to_owned(), key.hash(), label)
            }
            CredentialKind::AdminToken => {
                let token = AdminToken::generate();
                let label = CredentialLabel::AdminToken;
                (token.expose_secret().to_owned(), token.hash(), label)
            }
        }
    }
}

/// What a stored credential keeps that depends on its kind: an agent key keeps its first 12
/// characters for lists; an admin token keeps nothing more. The label names the kind, so that
/// no record can be of one kind and hold another kind's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialLabel {
    /// An agent key.
    AgentKey {
        /// Its first 12 characters, for lists.
        prefix: String,
    },
    /// A project admin token.
    AdminToken,
}

impl CredentialLabel {
    /// The kind of credential this is the label of.
    pub fn kind(&self) -> CredentialKind {
        match self {
            CredentialLabel::AgentKey { .. } => CredentialKind::AgentKey,
            CredentialLabel::AdminToken => CredentialKind::AdminToken,
        }
    }
}

/// A stored agent key or project admin token: only its hash is kept (and, for an agent key,
/// its display prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCredential {
    /// Id (an [`AgentKeyId`] or an [`AdminTokenId`], by kind).
    pub id: CredentialId,
    /// The project it belongs to.
    pub project_id: ProjectId,
    /// SHA-256 of the secret.
    pub hash: SecretHash,
    /// Its kind, and what it keeps by kind.
    pub label: CredentialLabel,
    /// Creation time.
    pub created_at: Timestamp,
}

impl StoredCredential {
    /// Its kind.
    pub fn kind(&self) -> CredentialKind {
        self.label.kind()
    }
}

// The service names each kind's ids with a type of their own; a store keeps them as one.
macro_rules! credential_id_conversions {
    ($($kind:ident),*) => {$(
        impl From<$kind> for CredentialId {
            fn from(id: $kind) -> Self {
                CredentialId::from_uuid(id.as_uuid())
            }
        }

        impl From<CredentialId> for $kind {
            fn from(id: CredentialId) -> Self {
                $kind::from_uuid(id.as_uuid())
            }
        }
    )*};
}

credential_id_conversions!(AgentKeyId, AdminTokenId);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_credential_is_stored_by_the_hash_of_its_secret_under_its_kind() {
        for kind in [CredentialKind::AgentKey, CredentialKind::AdminToken] {
            let (secret, hash, label) = kind.generate();
            assert_eq!(hash, SecretHash::of(&secret));
            assert_eq!(label.kind(), kind);
        }
    }

    #[test]
    fn an_agent_key_keeps_its_first_12_characters_for_lists() {
        let (secret, _, label) = CredentialKind::AgentKey.generate();
        assert!(secret.starts_with(AgentKey::PREFIX));
        assert_eq!(
            label,
            CredentialLabel::AgentKey {
                prefix: secret[..12].to_owned()
            }
        );
        let (token, _, label) = CredentialKind::AdminToken.generate();
        assert!(token.starts_with(AdminToken::PREFIX));
        assert_eq!(label, CredentialLabel::AdminToken);
    }

    #[test]
    fn a_kind_id_survives_the_store_id() {
        let id = AgentKeyId::generate();
        assert_eq!(AgentKeyId::from(CredentialId::from(id)), id);
        let id = AdminTokenId::generate();
        assert_eq!(AdminTokenId::from(CredentialId::from(id)), id);
    }
}
