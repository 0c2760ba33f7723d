//! Admin page sessions: what signing in to the admin pages leaves in the store.

use std::time::Duration;

use super::{AdminTokenId, ProjectId, SecretHash, Timestamp};

/// How long an admin session lasts after signing in: 12 hours.
pub const ADMIN_SESSION_LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);

/// The credential a session was signed in with, and so stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionCredential {
    /// The operator token, by its SHA-256: the session ends when the server's operator token
    /// is no longer this one.
    Operator {
        /// SHA-256 of the operator token signed in with.
        token_hash: SecretHash,
    },
    /// A project admin token: the session ends when the token is revoked.
    AdminToken {
        /// The token's id.
        id: AdminTokenId,
        /// The project it administers.
        project: ProjectId,
    },
}

/// A stored admin session. The session id itself is never stored, only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminSession {
    /// SHA-256 of the session id.
    pub hash: SecretHash,
    /// What the session stands for.
    pub credential: SessionCredential,
    /// When it was signed in.
    pub created_at: Timestamp,
    /// When it ends unless signed out or revoked before.
    pub expires_at: Timestamp,
}
