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

/// The token every admin form carries, bound to the session that rendered it: HMAC-SHA-256 of
/// a fixed label keyed by the session id, as unpadded URL-safe base64. Markup that did not
/// come from a page of this session cannot know it (the session id is in an `HttpOnly`
/// cookie, and the token reveals nothing of it), so a form an author planted on the admin
/// origin cannot carry it; nothing is stored, so every instance checks it alike.
#[derive(Clone, PartialEq, Eq)]
pub struct FormToken(String);

impl FormToken {
    /// The label the token authenticates; a new label would change every token.
    const LABEL: &'static [u8] = b"blogread admin form token v1";

    /// The form token of the session with id `session_id` (the cookie's value).
    pub fn of_session(session_id: &str) -> Self {
        use base64::Engine as _;
        use hmac::Mac as _;
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(session_id.trim().as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(Self::LABEL);
        let tag = mac.finalize().into_bytes();
        Self(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(tag))
    }

    /// Whether `presented` (a form's `form_token`) is this token, compared in constant time.
    pub fn matches(&self, presented: &str) -> bool {
        use subtle::ConstantTimeEq as _;
        // Digests of equal length, so that the comparison reveals no length either.
        SecretHash::of(presented)
            .as_bytes()
            .ct_eq(SecretHash::of(&self.0).as_bytes())
            .into()
    }

    /// The token, for the hidden field of a form the session's pages render.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for FormToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FormToken(…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_token_is_bound_to_its_session_and_compared_exactly() {
        let token = FormToken::of_session("ss_admin_one");
        assert_eq!(token, FormToken::of_session("ss_admin_one"));
        assert_ne!(token, FormToken::of_session("ss_admin_two"));
        assert!(token.matches(token.as_str()));
        assert!(!token.matches(""));
        assert!(!token.matches(&token.as_str()[1..]));
        assert!(!token.matches(FormToken::of_session("ss_admin_two").as_str()));
        assert!(
            !token.as_str().contains("ss_admin_one"),
            "the token does not show the session id"
        );
        assert_eq!(token.as_str().len(), 43, "32 bytes as unpadded base64");
    }
}
