//! The one error type of blogread-core. A server maps each variant to an HTTP status in one
//! place; no caller needs to match on strings.

use std::error::Error as StdError;

/// A field value that breaks a rule. Its message names the field first, then the rule,
/// separated by `": "`: `slug: must be lower-case letters a-z and digits, …`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {rule}")]
pub struct FieldError {
    /// The field (JSON name).
    pub field: &'static str,
    /// The rule it breaks, phrased to follow `field: ` (`must be 1 to 300 characters (got 0)`).
    pub rule: String,
}

impl FieldError {
    /// A field error.
    pub fn new(field: &'static str, rule: impl Into<String>) -> Self {
        Self {
            field,
            rule: rule.into(),
        }
    }
}

/// Why a request is not authenticated (401).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unauthorized {
    /// No key in the Authorization header nor in `api_key`.
    #[error(
        "missing API key: send the project's public key as `Authorization: Bearer pk_live_...` or as the api_key query parameter"
    )]
    MissingPublicKey,
    /// No credential on a management endpoint.
    #[error("missing credentials: send `Authorization: Bearer <token>`")]
    MissingToken,
    /// The Authorization header uses another scheme than Bearer.
    #[error("the Authorization header must use the Bearer scheme: `Authorization: Bearer <key>`")]
    NotBearer,
    /// `Authorization: Bearer` with nothing after it.
    #[error("the Authorization header has an empty Bearer token")]
    EmptyBearer,
    /// An agent key was sent to the public API.
    #[error(
        "agent keys (sk_agent_...) are not accepted on the public API; use the project's public key (pk_live_...)"
    )]
    AgentKeyOnPublicApi,
    /// A credential of the wrong kind for this endpoint.
    #[error("{} {got} is not accepted here; this endpoint needs {expected}", article(.got))]
    WrongKind {
        /// What was expected, e.g. "a project admin token (sk_admin_...) or the operator token".
        expected: &'static str,
        /// What was sent, e.g. "public key".
        got: &'static str,
    },
    /// The public key matches no project (never issued, rotated or revoked).
    #[error("API key matches no project (it may have been rotated or revoked)")]
    UnknownPublicKey,
    /// The token matches no credential.
    #[error("the token matches no credential (it may have been revoked)")]
    UnknownToken,
    /// Signing in to the admin pages with nothing in the token field.
    #[error("enter the operator token or a project admin token (sk_admin_...)")]
    EmptySignIn,
    /// The admin session is gone: signed out, older than 12 hours, or its credential revoked.
    #[error(
        "your session has ended (signed out, 12 hours old, or its token was revoked): sign in again"
    )]
    SessionEnded,
}

/// "an" before a vowel ("an agent key"), else "a" ("a public key").
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Why an authenticated request may not do what it asks (403).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Forbidden {
    /// The credential belongs to another project.
    #[error("this credential belongs to another project")]
    OtherProject,
    /// The operation is for the operator only.
    #[error("this operation needs the operator token")]
    OperatorOnly,
    /// An admin form came without the form token of the session it was sent in: a form
    /// these pages did not render for this session (another site's, or markup planted on
    /// the admin origin), or a page older than the session.
    #[error(
        "this form was not sent from a page of your admin session (its form token is missing or out of date): reload the page and try again"
    )]
    FormToken,
}

/// What was not found (404).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotFound {
    /// No published blog with that slug in the key's project.
    #[error("no published blog with this slug in this project")]
    PublishedBlog,
    /// The slug is an old slug of a published blog (slug history): the blog lives at
    /// `current` now. The single-blog endpoint answers only to current slugs.
    #[error(
        "no published blog with this slug in this project: the post it named was renamed to `{current}`"
    )]
    RenamedBlog {
        /// The blog's current published slug.
        current: String,
    },
    /// No blog with that id in the project.
    #[error("no blog with this id in this project")]
    Blog,
    /// No project with that id.
    #[error("no project with this id")]
    Project,
    /// The project has no public key.
    #[error("this project has no public key; generate one first")]
    PublicKey,
    /// No agent key with that id in the project.
    #[error("no agent key with this id in this project")]
    AgentKey,
    /// No admin token with that id in the project.
    #[error("no admin token with this id in this project")]
    AdminToken,
    /// The project has no deploy hook.
    #[error("this project has no deploy hook; save one with PUT first")]
    DeployHook,
    /// No media item with that id in the project.
    #[error("no media item with this id in this project")]
    Media,
}

/// Why the database cannot serve a request right now. The request changed nothing; the
/// condition is the database's, not the request's, so the same request may succeed later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unavailable {
    /// The disk that holds the database is full. Writes fail until space is freed; reads go
    /// on working (507).
    #[error(
        "the database's disk is full: nothing was written; writes are refused until space is freed (reads still work)"
    )]
    DiskFull,
    /// Another process held the database's write lock longer than the busy time-out (503,
    /// with `Retry-After`).
    #[error("the database is locked by another process: nothing was written; retry in a moment")]
    Busy,
    /// The database server does not answer (stopped, restarting, unreachable) (503, with
    /// `Retry-After`).
    #[error("the database does not answer: retry in a few seconds")]
    Unreachable,
}

impl Unavailable {
    /// Seconds a client should wait before trying again, when that is worth saying.
    pub fn retry_after_seconds(self) -> Option<u32> {
        match self {
            Unavailable::DiskFull => None,
            Unavailable::Busy | Unavailable::Unreachable => Some(1),
        }
    }
}

/// Every error blogread-core reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A request parameter is malformed (400).
    #[error("{0}")]
    BadRequest(String),
    /// Not authenticated (401).
    #[error(transparent)]
    Unauthorized(#[from] Unauthorized),
    /// Authenticated, not allowed (403).
    #[error(transparent)]
    Forbidden(#[from] Forbidden),
    /// Not found (404).
    #[error(transparent)]
    NotFound(#[from] NotFound),
    /// A state conflict: a lifecycle move not allowed from the current status, a duplicate
    /// slug, a key that already exists (409).
    #[error("{0}")]
    Conflict(String),
    /// A well-formed value that broke no rule when it was issued but names what is gone: a
    /// changes-feed cursor older than the deletions kept (410).
    #[error("{0}")]
    Gone(String),
    /// A well-formed value that breaks a rule (422).
    #[error(transparent)]
    Invalid(#[from] FieldError),
    /// An upload of a type that is not taken, or whose declared type disagrees with its
    /// bytes (415).
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The database cannot serve the request now (disk full: 507; locked or not answering:
    /// 503). Nothing was written.
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    /// The storage backend failed (500). The cause is for logs, never for responses.
    #[error("storage failure")]
    Storage(#[source] Box<dyn StdError + Send + Sync>),
    /// The program is configured wrongly: an unsupported database URL, a backend this build
    /// lacks (500 if it ever reaches a request; normally it stops the program at start).
    #[error("{0}")]
    Config(String),
}

impl Error {
    /// Wraps a backend failure.
    pub fn storage(err: impl StdError + Send + Sync + 'static) -> Self {
        Error::Storage(Box::new(err))
    }

    /// The HTTP status this error answers with, so that any HTTP adapter maps errors in one
    /// line: 400, 401, 403, 404, 409, 410, 415, 422, 503 (the database is busy or unreachable), 507
    /// (the disk is full) or 500 (storage failure, configuration).
    pub fn http_status(&self) -> u16 {
        match self {
            Error::BadRequest(_) => 400,
            Error::Unauthorized(_) => 401,
            Error::Forbidden(_) => 403,
            Error::NotFound(_) => 404,
            Error::Conflict(_) => 409,
            Error::Gone(_) => 410,
            Error::Invalid(_) => 422,
            Error::UnsupportedMediaType(_) => 415,
            Error::Unavailable(Unavailable::DiskFull) => 507,
            Error::Unavailable(Unavailable::Busy | Unavailable::Unreachable) => 503,
            Error::Storage(_) | Error::Config(_) => 500,
        }
    }

    /// What a response may say about this error: its message, except for a 500, whose cause
    /// is for logs only (log it with [`error_chain`]) and whose detail is generic.
    pub fn public_detail(&self) -> String {
        match self {
            Error::Storage(_) | Error::Config(_) => {
                "internal error: the server could not complete the request".to_owned()
            }
            other => other.to_string(),
        }
    }

    /// Seconds a client should wait before trying again (`Retry-After`), when worth saying.
    pub fn retry_after_seconds(&self) -> Option<u32> {
        match self {
            Error::Unavailable(fault) => fault.retry_after_seconds(),
            _ => None,
        }
    }
}

/// An error and its causes on one line, `error: cause: cause…`: what a log should show (the
/// `Display` of [`Error::Storage`] alone says only "storage failure").
pub fn error_chain(err: &(dyn StdError + 'static)) -> String {
    let mut chain = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        chain.push_str(": ");
        chain.push_str(&cause.to_string());
        source = cause.source();
    }
    chain
}

/// Result with the core [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
