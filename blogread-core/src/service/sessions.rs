//! Admin page sessions: signing in with the operator token or a project admin token, finding
//! the caller behind a session, signing out.

use crate::auth::{Caller, Principal};
use crate::domain::{
    ADMIN_SESSION_LIFETIME, AdminSession, AdminToken, AgentKey, CredentialKind, FormToken,
    PublicKey, SecretHash, SessionCredential, SessionId, Timestamp,
};
use crate::error::{Error, Forbidden, Result, Unauthorized};

use super::Service;

/// What signing in may be done with, for the message that refuses anything else.
const SIGN_IN_WITH: &str = "the operator token or a project admin token (sk_admin_...)";

/// A new admin session: its id, to hand to the browser once (only its hash is stored).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct IssuedSession {
    /// The session id: the cookie's value.
    pub id: SessionId,
    /// Who the session acts as.
    pub principal: Principal,
    /// When it ends unless signed out or revoked before.
    pub expires_at: Timestamp,
}

/// A live admin session: the caller to pass to every operation made through it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SignedIn {
    /// The caller, acting as the credential the session was signed in with.
    pub caller: Caller,
    /// Who that is: the operator or a project's admin.
    pub principal: Principal,
    /// When the session ends unless signed out or revoked before.
    pub expires_at: Timestamp,
    /// The token every form of the session's pages carries (see [`FormToken`]).
    pub form_token: FormToken,
}

impl Service {
    /// Signs in to the admin pages with the operator token or a project admin token: a new
    /// session of 12 hours standing for that credential. A public key or an agent key is
    /// refused saying what to sign in with; an unknown token is refused.
    pub async fn sign_in(&self, token: &str) -> Result<IssuedSession> {
        let token = token.trim();
        if token.is_empty() {
            return Err(Unauthorized::EmptySignIn.into());
        }
        let refuse = |got| Unauthorized::WrongKind {
            expected: SIGN_IN_WITH,
            got,
        };
        let (credential, principal) = if self.operator.as_ref().is_some_and(|op| op.matches(token))
        {
            let token_hash = SecretHash::of(token);
            (
                SessionCredential::Operator { token_hash },
                Principal::Operator,
            )
        } else if token.starts_with(PublicKey::PREFIX) {
            return Err(refuse(PublicKey::KIND).into());
        } else if token.starts_with(AgentKey::PREFIX) {
            return Err(refuse(AgentKey::KIND).into());
        } else if token.starts_with(AdminToken::PREFIX) {
            let record = self
                .store
                .credential_by_hash(CredentialKind::AdminToken, &SecretHash::of(token))
                .await?
                .ok_or(Unauthorized::UnknownToken)?;
            (
                SessionCredential::AdminToken {
                    id: record.id.into(),
                    project: record.project_id,
                },
                Principal::ProjectAdmin(record.project_id),
            )
        } else {
            return Err(Unauthorized::UnknownToken.into());
        };
        let id = SessionId::generate();
        let created_at = self.now();
        let expires_at = later(created_at, ADMIN_SESSION_LIFETIME.as_secs());
        let session = AdminSession {
            hash: id.hash(),
            credential,
            created_at,
            expires_at,
        };
        match self.store.insert_admin_session(&session).await {
            // The token was revoked between the look-up and the write.
            Err(Error::NotFound(_)) => return Err(Unauthorized::UnknownToken.into()),
            other => other?,
        }
        Ok(IssuedSession {
            id,
            principal,
            expires_at,
        })
    }

    /// The caller behind the session with this id (the cookie's value). A session that was
    /// signed out, is 12 hours old, or whose credential was revoked (the admin token deleted,
    /// the operator token changed) is refused: sign in again.
    pub async fn admin_session(&self, session_id: &str) -> Result<SignedIn> {
        let ended = || Error::from(Unauthorized::SessionEnded);
        let hash = SecretHash::of(session_id.trim());
        let session = self.store.admin_session(&hash).await?.ok_or_else(ended)?;
        if session.expires_at <= self.now() {
            self.store.delete_admin_session(&hash).await?;
            return Err(ended());
        }
        let principal = match session.credential {
            SessionCredential::Operator { token_hash } => {
                let current = self
                    .operator
                    .as_ref()
                    .map(|op| SecretHash::of(op.expose_secret()));
                if current != Some(token_hash) {
                    return Err(ended());
                }
                Principal::Operator
            }
            SessionCredential::AdminToken { project, .. } => Principal::ProjectAdmin(project),
        };
        Ok(SignedIn {
            caller: Caller::signed_in(principal),
            principal,
            expires_at: session.expires_at,
            form_token: FormToken::of_session(session_id),
        })
    }

    /// The caller behind the session with this id, for a change sent from a form: the form's
    /// `form_token` is checked first, in constant time, against the session's
    /// ([`Forbidden::FormToken`] when it is not the session's own), then the session as in
    /// [`Service::admin_session`]. Every state-changing admin request goes through this, so
    /// a form the session's pages did not render changes nothing.
    pub async fn admin_session_for_change(
        &self,
        session_id: &str,
        form_token: &str,
    ) -> Result<SignedIn> {
        if !FormToken::of_session(session_id).matches(form_token) {
            return Err(Forbidden::FormToken.into());
        }
        self.admin_session(session_id).await
    }

    /// Signs out: the session with this id ends (signing out of an ended session is a
    /// success).
    pub async fn sign_out(&self, session_id: &str) -> Result<()> {
        self.store
            .delete_admin_session(&SecretHash::of(session_id.trim()))
            .await?;
        Ok(())
    }
}

/// `at` plus `seconds`.
fn later(at: Timestamp, seconds: u64) -> Timestamp {
    let seconds = i64::try_from(seconds).unwrap_or(i64::MAX);
    Timestamp::from_unix_seconds(at.unix_seconds().saturating_add(seconds)).unwrap_or(at)
}
