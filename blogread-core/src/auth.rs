//! Who may do what (DECISIONS.md section 6), decided here and nowhere else.
//!
//! The public API takes the project's public key from the `Authorization: Bearer` header or the
//! `api_key` query parameter; the header, when present, is the only key considered (SPEC.md
//! 5.1.5). Management endpoints take `Authorization: Bearer <token>`: the operator token, a
//! project admin token, or (for blog writes) an agent key. A credential of the wrong kind is
//! 401 naming the kind expected; a valid credential of another project, or an admin token on an
//! operator-only endpoint, is 403 whether or not the project exists.

use crate::domain::{
    AdminToken, AgentKey, OperatorToken, ProjectId, PublicKey, PublicProject, SecretHash,
};
use crate::error::{Error, Forbidden, Result, Unauthorized};
use crate::store::Store;

/// The credentials a public request carries, as received.
#[derive(Debug, Clone, Copy, Default)]
pub struct PublicCredentials<'a> {
    /// The raw `Authorization` header value, if the header was sent.
    pub authorization: Option<&'a str>,
    /// The raw `api_key` query value, if given.
    pub api_key: Option<&'a str>,
}

impl<'a> PublicCredentials<'a> {
    /// Credentials from the header and query values.
    pub fn new(authorization: Option<&'a str>, api_key: Option<&'a str>) -> Self {
        Self {
            authorization,
            api_key,
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
    credentials: PublicCredentials<'_>,
) -> Result<PublicProject> {
    let key = match credentials.authorization {
        Some(header) => bearer_token(header)?,
        None => match credentials.api_key {
            Some(key) if !key.is_empty() => key,
            _ => return Err(Unauthorized::MissingPublicKey.into()),
        },
    };
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
    authorization: Option<&str>,
    project: Option<ProjectId>,
    access: Access,
) -> Result<Principal> {
    let Some(header) = authorization else {
        return Err(Unauthorized::MissingToken.into());
    };
    let token = bearer_token(header)?;
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
            .agent_key_by_hash(&SecretHash::of(token))
            .await?
            .ok_or(Unauthorized::UnknownToken)?;
        if !same_project(record.project_id) {
            return Err(Forbidden::OtherProject.into());
        }
        return Ok(Principal::Agent(record.project_id));
    }
    if token.starts_with(AdminToken::PREFIX) {
        let record = store
            .admin_token_by_hash(&SecretHash::of(token))
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
