//! Who may do what (`docs/management-api.md#who-may-call-what`), decided here and nowhere
//! else.
//!
//! The public API takes the project's public key from the `Authorization: Bearer` header or the
//! `api_key` query parameter; the header, when present, is the only key considered
//! (`docs/public-api.md#where-to-send-the-key`). Management endpoints take
//! `Authorization: Bearer <token>`: the operator token, a project admin token, or (for blog
//! writes) an agent key. A credential of the wrong kind is
//! 401 naming the kind expected; a valid credential of another project, or an admin token on an
//! operator-only endpoint, is 403 whether or not the project exists.
//!
//! The admin pages act through a session (see [`crate::Service::sign_in`]) signed in with the
//! operator token or a project admin token: the caller behind it is authorised exactly as
//! that credential would be, and never as an agent.

use crate::domain::{
    AdminToken, AgentKey, CredentialKind, OperatorToken, ProjectId, PublicKey, PublicProject,
    SecretHash,
};
use crate::error::{Error, Forbidden, Result, Unauthorized};
use crate::store::Store;

/// Who is calling: decided once by whoever receives the call (an HTTP adapter from the
/// request, the CLI as the operator, an embedding program from what it knows), and passed to
/// every operation, which decides what this caller may do.
///
/// ```
/// use blogread_core::auth::Caller;
/// // A program acting for itself: the operator, no token needed.
/// let me = Caller::operator();
/// // A credential the program was given.
/// let admin = Caller::admin("sk_admin_...");
/// // An HTTP adapter: the Authorization header's bytes, then the `api_key` query value
/// // (considered only when there is no header, as the public API's rules say).
/// let visitor = Caller::from_authorization(Some(b"Bearer pk_live_...")).with_api_key(Some("ignored"));
/// # let _ = (me, admin, visitor);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Caller {
    credential: Credential,
}

#[derive(Clone, PartialEq, Eq)]
enum Credential {
    /// The program itself, trusted as the operator.
    Operator,
    /// A bare token (no scheme), given by an embedding program.
    Token(String),
    /// An `Authorization` header value, as received.
    Header(String),
    /// An `api_key` query value, as received (public reads only).
    ApiKey(String),
    /// Nothing presented.
    Nothing,
    /// An admin page session, already checked by [`Service::admin_session`](crate::Service::admin_session):
    /// it acts as the operator or as a project admin, never as an agent.
    Session(Principal),
}

impl Caller {
    /// The program itself acting as the operator (the CLI, an embedding application): every
    /// operation is allowed, with no token to present.
    pub fn operator() -> Self {
        Self::with(Credential::Operator)
    }

    /// A caller presenting `token`: the operator token, a project admin token (`sk_admin_`),
    /// an agent key (`sk_agent_`) or a public key (`pk_live_`). Each operation checks that
    /// the kind fits (see [`Caller::admin`], [`Caller::agent`], [`Caller::public`]).
    pub fn token(token: impl Into<String>) -> Self {
        Self::with(Credential::Token(token.into()))
    }

    /// A caller presenting a project admin token (`sk_admin_...`).
    pub fn admin(token: impl Into<String>) -> Self {
        Self::token(token)
    }

    /// A caller presenting an agent key (`sk_agent_...`).
    pub fn agent(key: impl Into<String>) -> Self {
        Self::token(key)
    }

    /// A caller presenting a project's public key (`pk_live_...`), for public reads.
    pub fn public(key: impl Into<String>) -> Self {
        Self::token(key)
    }

    /// A caller presenting nothing.
    pub fn anonymous() -> Self {
        Self::with(Credential::Nothing)
    }

    /// For HTTP adapters: the caller of a request with this `Authorization` header value (its
    /// bytes, as received; `None` when the header was not sent). A header that is not
    /// `Bearer <token>` is refused by every operation with a 401 that says why.
    pub fn from_authorization(header: Option<&[u8]>) -> Self {
        match header {
            Some(bytes) => Self::with(Credential::Header(
                String::from_utf8_lossy(bytes).into_owned(),
            )),
            None => Self::anonymous(),
        }
    }

    /// For HTTP adapters of the public API: adds the `api_key` query value, which counts only
    /// when no `Authorization` header was sent (the header, when present, is the only key
    /// considered). Management operations never accept it.
    #[must_use]
    pub fn with_api_key(self, api_key: Option<&str>) -> Self {
        match (&self.credential, api_key) {
            (Credential::Nothing, Some(key)) => Self::with(Credential::ApiKey(key.to_owned())),
            _ => self,
        }
    }

    /// The caller behind a checked admin session (only the service makes one).
    pub(crate) fn signed_in(principal: Principal) -> Self {
        Self::with(Credential::Session(principal))
    }

    fn with(credential: Credential) -> Self {
        Caller { credential }
    }

    /// The bearer token of a management call: `Ok(None)` for the operator itself.
    fn management_token(&self) -> Result<Option<&str>, Unauthorized> {
        match &self.credential {
            Credential::Operator => Ok(None),
            Credential::Token(token) if token.trim().is_empty() => Err(Unauthorized::EmptyBearer),
            Credential::Token(token) => Ok(Some(token.trim())),
            Credential::Header(header) => bearer_token(header).map(Some),
            Credential::ApiKey(_) | Credential::Nothing => Err(Unauthorized::MissingToken),
            // Handled by `authorize` before it asks for a token.
            Credential::Session(_) => Err(Unauthorized::MissingToken),
        }
    }

    /// The key of a public read.
    fn public_key(&self) -> Result<&str, Unauthorized> {
        match &self.credential {
            Credential::Token(token) if token.trim().is_empty() => Err(Unauthorized::EmptyBearer),
            Credential::Token(token) => Ok(token.trim()),
            Credential::Header(header) => bearer_token(header),
            Credential::ApiKey(key) if !key.is_empty() => Ok(key),
            Credential::ApiKey(_)
            | Credential::Nothing
            | Credential::Operator
            | Credential::Session(_) => Err(Unauthorized::MissingPublicKey),
        }
    }
}

impl std::fmt::Debug for Caller {
    /// Shows at most the first 12 characters of a credential, as logs may.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = |value: &str| format!("{}…", loggable_prefix(value));
        match &self.credential {
            Credential::Operator => f.write_str("Caller::operator()"),
            Credential::Token(t) => write!(f, "Caller::token({})", shown(t)),
            Credential::Header(h) => write!(f, "Caller::from_authorization({})", shown(h)),
            Credential::ApiKey(k) => write!(f, "Caller::api_key({})", shown(k)),
            Credential::Nothing => f.write_str("Caller::anonymous()"),
            Credential::Session(principal) => write!(f, "Caller::session({principal:?})"),
        }
    }
}

/// What a management endpoint requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only the operator (creating projects, admin tokens).
    Operator,
    /// A project admin of the project, or the operator (settings, keys, deploy hook).
    ProjectAdmin,
    /// Content writes: an agent key or admin token of the project, or the operator.
    Content,
}

impl Access {
    fn expected(self) -> &'static str {
        match self {
            Access::Operator => "the operator token",
            Access::ProjectAdmin => "a project admin token (sk_admin_...) or the operator token",
            Access::Content => {
                "an agent key (sk_agent_...), a project admin token (sk_admin_...) or the operator token"
            }
        }
    }
}

/// Who an authorised management request acts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Principal {
    /// The operator.
    Operator,
    /// A project admin of this project.
    ProjectAdmin(ProjectId),
    /// An agent of this project.
    Agent(ProjectId),
}

/// Reads the token of an `Authorization: Bearer <token>` header value.
pub fn bearer_token(header: &str) -> Result<&str, Unauthorized> {
    let header = header.trim();
    let (scheme, rest) = match header.find(|c: char| c.is_ascii_whitespace()) {
        Some(i) => (&header[..i], header[i..].trim()),
        None => (header, ""),
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Unauthorized::NotBearer);
    }
    if rest.is_empty() {
        return Err(Unauthorized::EmptyBearer);
    }
    Ok(rest)
}

/// The first 12 characters of a presented key, the most that logs may show.
pub fn loggable_prefix(key: &str) -> &str {
    let end = key
        .char_indices()
        .nth(12)
        .map(|(i, _)| i)
        .unwrap_or(key.len());
    &key[..end]
}

/// Finds the project of a public request's key.
pub(crate) async fn authenticate_public(
    store: &dyn Store,
    caller: &Caller,
) -> Result<PublicProject> {
    let key = caller.public_key()?;
    if key.starts_with(AgentKey::PREFIX) {
        return Err(Unauthorized::AgentKeyOnPublicApi.into());
    }
    if key.starts_with(AdminToken::PREFIX) {
        return Err(Unauthorized::WrongKind {
            expected: "the project's public key (pk_live_...)",
            got: AdminToken::KIND,
        }
        .into());
    }
    let Ok(key) = PublicKey::parse(key) else {
        return Err(Unauthorized::UnknownPublicKey.into());
    };
    store
        .project_by_public_key(&key.hash())
        .await?
        .ok_or_else(|| Unauthorized::UnknownPublicKey.into())
}

/// Decides whether a management request may act on `project` (or, with `None`, on no project
/// in particular, as creating a project does).
pub(crate) async fn authorize(
    store: &dyn Store,
    operator: Option<&OperatorToken>,
    caller: &Caller,
    project: Option<ProjectId>,
    access: Access,
) -> Result<Principal> {
    if let Credential::Session(principal) = caller.credential {
        return authorize_session(principal, project, access);
    }
    let Some(token) = caller.management_token()? else {
        return Ok(Principal::Operator);
    };
    if operator.is_some_and(|op| op.matches(token)) {
        return Ok(Principal::Operator);
    }
    let same_project = |owner: ProjectId| project.is_none_or(|p| p == owner);
    if token.starts_with(PublicKey::PREFIX) {
        return Err(wrong_kind(access, PublicKey::KIND));
    }
    if token.starts_with(AgentKey::PREFIX) {
        if access != Access::Content {
            return Err(wrong_kind(access, AgentKey::KIND));
        }
        let record = store
            .credential_by_hash(CredentialKind::AgentKey, &SecretHash::of(token))
            .await?
            .ok_or(Unauthorized::UnknownToken)?;
        if !same_project(record.project_id) {
            return Err(Forbidden::OtherProject.into());
        }
        return Ok(Principal::Agent(record.project_id));
    }
    if token.starts_with(AdminToken::PREFIX) {
        let record = store
            .credential_by_hash(CredentialKind::AdminToken, &SecretHash::of(token))
            .await?
            .ok_or(Unauthorized::UnknownToken)?;
        if access == Access::Operator {
            return Err(Forbidden::OperatorOnly.into());
        }
        if !same_project(record.project_id) {
            return Err(Forbidden::OtherProject.into());
        }
        return Ok(Principal::ProjectAdmin(record.project_id));
    }
    Err(Unauthorized::UnknownToken.into())
}

/// What a signed-in admin session may do: the same as the credential it was signed in with.
fn authorize_session(
    principal: Principal,
    project: Option<ProjectId>,
    access: Access,
) -> Result<Principal> {
    match principal {
        Principal::Operator => Ok(principal),
        Principal::ProjectAdmin(owner) => {
            if access == Access::Operator {
                return Err(Forbidden::OperatorOnly.into());
            }
            if project.is_some_and(|p| p != owner) {
                return Err(Forbidden::OtherProject.into());
            }
            Ok(principal)
        }
        Principal::Agent(_) => Err(wrong_kind(access, AgentKey::KIND)),
    }
}

fn wrong_kind(access: Access, got: &'static str) -> Error {
    Unauthorized::WrongKind {
        expected: access.expected(),
        got,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_the_only_public_key_considered_when_present() {
        let caller = Caller::from_authorization(Some(b"Bearer pk_live_header"))
            .with_api_key(Some("pk_live_query"));
        assert_eq!(caller.public_key(), Ok("pk_live_header"));
        let caller = Caller::from_authorization(Some(b"Basic abc")).with_api_key(Some("pk_live_q"));
        assert_eq!(caller.public_key(), Err(Unauthorized::NotBearer));
        let caller = Caller::from_authorization(None).with_api_key(Some("pk_live_query"));
        assert_eq!(caller.public_key(), Ok("pk_live_query"));
        let caller = Caller::from_authorization(None).with_api_key(Some(""));
        assert_eq!(caller.public_key(), Err(Unauthorized::MissingPublicKey));
    }

    #[test]
    fn management_calls_take_a_bearer_token_never_the_api_key() {
        let caller = Caller::from_authorization(None).with_api_key(Some("sk_admin_x"));
        assert_eq!(caller.management_token(), Err(Unauthorized::MissingToken));
        assert_eq!(
            Caller::anonymous().management_token(),
            Err(Unauthorized::MissingToken)
        );
        assert_eq!(
            Caller::admin("sk_admin_x").management_token(),
            Ok(Some("sk_admin_x"))
        );
        assert_eq!(
            Caller::token("  ").management_token(),
            Err(Unauthorized::EmptyBearer)
        );
        assert_eq!(Caller::operator().management_token(), Ok(None));
    }

    #[tokio::test]
    async fn the_program_itself_is_the_operator_without_a_token() {
        let store = crate::store::MemoryStore::new();
        let principal = authorize(&store, None, &Caller::operator(), None, Access::Operator)
            .await
            .unwrap();
        assert_eq!(principal, Principal::Operator);
        let err = authorize(&store, None, &Caller::anonymous(), None, Access::Operator)
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            Error::Unauthorized(Unauthorized::MissingToken)
        ));
    }

    #[test]
    fn a_caller_shows_at_most_12_characters_of_its_credential() {
        let shown = format!("{:?}", Caller::public("pk_live_0123456789abcdefghij"));
        assert_eq!(shown, "Caller::token(pk_live_0123…)");
        let shown = format!(
            "{:?}",
            Caller::from_authorization(Some(b"Bearer sk_admin_0123456789"))
        );
        assert!(!shown.contains("0123456789"), "{shown}");
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_token("bearer abc"), Ok("abc"));
        assert_eq!(bearer_token("BEARER   abc "), Ok("abc"));
    }

    #[test]
    fn other_scheme_or_empty_token_is_unauthorised_with_reason() {
        assert_eq!(bearer_token("Basic abc"), Err(Unauthorized::NotBearer));
        assert_eq!(bearer_token("pk_live_abc"), Err(Unauthorized::NotBearer));
        assert_eq!(bearer_token("Bearer"), Err(Unauthorized::EmptyBearer));
        assert_eq!(bearer_token("Bearer   "), Err(Unauthorized::EmptyBearer));
    }

    #[test]
    fn loggable_prefix_is_at_most_12_characters() {
        assert_eq!(loggable_prefix("pk_live_abcdefghijk"), "pk_live_abcd");
        assert_eq!(loggable_prefix("short"), "short");
        assert_eq!(loggable_prefix("ééééééééééééééé").chars().count(), 12);
    }
}
