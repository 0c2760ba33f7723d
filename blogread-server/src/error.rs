//! The one error shape of the server: every non-2xx answer is `application/json`
//! `{"detail": "..."}`.
//!
//! [`ApiError`] maps each [`blogread_core::Error`] variant to a status in one place, and turns
//! poem's own errors (unparsable parameters or bodies, wrong content type) into the same shape.
//! [`Reply`] is the response type of every operation: the operation's success responses plus
//! the error statuses it documents. [`crate::middleware::ErrorShape`] wraps the whole app so
//! that what poem answers by itself (unknown route, wrong method, body too large) has the same
//! shape too.

use std::fmt;
use std::marker::PhantomData;

use blogread_core::Error as CoreError;
pub(crate) use blogread_core::error::error_chain;
use poem::http::{HeaderValue, Method, StatusCode, header};
use poem::{IntoResponse, Response};
use poem_openapi::error::{ContentTypeError, ParseParamError, ParseRequestPayloadError};
use poem_openapi::registry::{MetaHeader, MetaMediaType, MetaResponse, MetaResponses, Registry};
use poem_openapi::types::Type;
use poem_openapi::{ApiResponse, Object};

use crate::request_id::current_request_id;
use crate::serve::BODY_LIMIT;

/// The body of every error answer.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct ErrorBody {
    /// A human-readable explanation of what went wrong and, where it helps, what to do.
    pub detail: String,
}

impl poem_openapi::types::Example for ErrorBody {
    fn example() -> Self {
        Self {
            detail: "API key matches no project (it may have been rotated or revoked)".into(),
        }
    }
}

/// An error answer: a status and a detail.
#[derive(Debug, Clone)]
pub struct ApiError {
    status: StatusCode,
    detail: String,
    allow: Option<String>,
    retry_after: Option<u32>,
}

impl ApiError {
    /// An error with this status and detail.
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Self {
        Self {
            status,
            detail: detail.into(),
            allow: None,
            retry_after: None,
        }
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The detail.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// A 500: the cause chain is logged with the request id; the answer carries only the id.
    pub fn internal(cause: &(dyn std::error::Error + 'static)) -> Self {
        let request_id = current_request_id();
        let chain = error_chain(cause);
        tracing::error!(request_id = %request_id, error = %chain, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("internal error (request id {request_id}); retry in a few seconds"),
        )
    }

    /// A 500 for a handler that panicked (logged as [`ApiError::internal`] logs).
    pub fn panicked() -> Self {
        Self::internal(&Panicked)
    }

    /// Turns an error poem or poem-openapi produced into this shape, with a detail that says
    /// what to change.
    pub fn from_poem(err: &poem::Error) -> Self {
        if let Some(e) = err.downcast_ref::<ApiErrorCarrier>() {
            return e.0.clone();
        }
        if let Some(e) = err.downcast_ref::<ParseParamError>() {
            return Self::new(
                StatusCode::BAD_REQUEST,
                format!("parameter `{}` is invalid: {}", e.name, e.reason),
            );
        }
        if let Some(e) = err.downcast_ref::<ParseRequestPayloadError>() {
            return Self::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "the request body is not valid JSON for this endpoint: {}",
                    e.reason
                ),
            );
        }
        if let Some(e) = err.downcast_ref::<ContentTypeError>() {
            let detail = match e {
                ContentTypeError::NotSupported { content_type } => format!(
                    "send the request body as JSON with `Content-Type: application/json` (got `{content_type}`)"
                ),
                _ => "send the request body as JSON with `Content-Type: application/json`".into(),
            };
            return Self::new(StatusCode::BAD_REQUEST, detail);
        }
        if let Some(poem::error::ReadBodyError::PayloadTooLarge) =
            err.downcast_ref::<poem::error::ReadBodyError>()
        {
            return Self::payload_too_large();
        }
        let status = err.status();
        if status.is_server_error() {
            return Self::internal(err);
        }
        Self::new(status, describe_status(status, &err.to_string()))
    }

    /// 413 for a body over [`BODY_LIMIT`].
    pub fn payload_too_large() -> Self {
        Self::body_over(BODY_LIMIT)
    }

    /// 413 for a body over `limit` bytes.
    pub fn body_over(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request body is larger than {} MiB",
                limit / (1024 * 1024)
            ),
        )
    }

    /// 408: the request body stopped arriving, or arrived too slowly
    /// ([`crate::body_pace`]).
    pub fn body_too_slow(pace: &crate::body_pace::BodyPace) -> Self {
        Self::new(StatusCode::REQUEST_TIMEOUT, pace.detail())
    }

    /// 503 with `Retry-After`: the server is too busy for this request now.
    pub fn busy(detail: impl Into<String>, retry_after: u32) -> Self {
        let mut err = Self::new(StatusCode::SERVICE_UNAVAILABLE, detail);
        err.retry_after = Some(retry_after);
        err
    }

    /// 405 with the `Allow` header.
    pub fn method_not_allowed(method: &Method, path: &str, allowed: &[Method]) -> Self {
        let list = allowed
            .iter()
            .map(Method::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        let detail = if list.is_empty() {
            format!("method {method} is not allowed on {path}")
        } else {
            format!("method {method} is not allowed on {path}; allowed: {list}")
        };
        Self {
            status: StatusCode::METHOD_NOT_ALLOWED,
            detail,
            allow: (!list.is_empty()).then_some(list),
            retry_after: None,
        }
    }

    /// 404 for a path that no endpoint serves.
    pub fn no_route(method: &Method, path: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            format!(
                "no endpoint at {method} {path}; the API is described at /openapi.json and /docs"
            ),
        )
    }
}

/// The detail of an error with no better one: `message`, or the status's reason when empty.
pub(crate) fn describe_status(status: StatusCode, message: &str) -> String {
    let message = message.trim();
    if message.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("request failed")
            .to_lowercase()
    } else {
        message.to_owned()
    }
}

impl From<CoreError> for ApiError {
    fn from(err: CoreError) -> Self {
        let status =
            StatusCode::from_u16(err.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // A 500's cause goes to the log with the request id, never to the client. (An
        // unavailable database is logged by the store, once per episode.)
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            return Self::internal(&err);
        }
        let mut api = Self::new(status, err.public_detail());
        api.retry_after = err.retry_after_seconds();
        api
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status, self.detail)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "detail": self.detail }).to_string();
        let mut resp = Response::builder()
            .status(self.status)
            .content_type("application/json; charset=utf-8")
            .body(body);
        if self.status == StatusCode::UNAUTHORIZED {
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(allow) = self.allow.and_then(|a| HeaderValue::from_str(&a).ok()) {
            resp.headers_mut().insert(header::ALLOW, allow);
        }
        if let Some(seconds) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        resp
    }
}

/// Carries an [`ApiError`] through a `poem::Error` (for middleware that must fail).
#[derive(Debug)]
struct ApiErrorCarrier(ApiError);

impl fmt::Display for ApiErrorCarrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for ApiErrorCarrier {}

impl poem::error::ResponseError for ApiErrorCarrier {
    fn status(&self) -> StatusCode {
        self.0.status
    }

    fn as_response(&self) -> Response {
        self.0.clone().into_response()
    }
}

impl From<ApiError> for poem::Error {
    fn from(err: ApiError) -> Self {
        poem::Error::from(ApiErrorCarrier(err))
    }
}

/// The error statuses one operation documents (each with the [`ErrorBody`] schema).
pub trait ErrorSet: Send + Sync + 'static {
    /// The statuses, ascending.
    const STATUSES: &'static [u16];
}

macro_rules! error_sets {
    ($($(#[$meta:meta])* $name:ident: [$($status:literal),*];)*) => {
        $(
            $(#[$meta])*
            #[derive(Debug)]
            pub struct $name;
            impl ErrorSet for $name {
                const STATUSES: &'static [u16] = &[$($status),*];
            }
        )*
    };
}

error_sets! {
    /// Public list: garbage parameters, key rules, server errors.
    PublicList: [400, 401, 500, 503];
    /// Public single blog.
    PublicGet: [401, 404, 500, 503];
    /// Public sitemap.
    PublicSitemap: [401, 500, 503];
    /// Public changes feed: a cursor that does not parse or is not this project's, one
    /// older than the deletions kept.
    PublicChanges: [400, 401, 410, 500, 503];
    /// Operator-only creation with a JSON body.
    OperatorCreate: [400, 401, 403, 408, 413, 422, 500, 503, 507];
    /// Operator-only list with query parameters.
    OperatorList: [400, 401, 403, 500, 503];
    /// Operator-only action on a project (no body).
    OperatorAction: [401, 403, 404, 500, 503, 507];
    /// A read or bodiless action under a project.
    ProjectRead: [401, 403, 404, 500, 503, 507];
    /// A bodiless action that may conflict with the current state.
    ProjectConflict: [401, 403, 404, 409, 500, 503, 507];
    /// A list with query parameters.
    ProjectList: [400, 401, 403, 404, 500, 503];
    /// A write with a JSON body.
    ProjectWrite: [400, 401, 403, 404, 408, 409, 413, 422, 500, 503, 507];
    /// A save with a JSON body, no state conflict.
    ProjectSave: [400, 401, 403, 404, 408, 413, 422, 500, 503, 507];
    /// An image upload: a multipart body (400), too slow to arrive (408), over its cap
    /// (413), of a type not taken (415), a picture that cannot be taken (422), too many
    /// uploads at once (503).
    MediaUpload: [400, 401, 403, 404, 408, 413, 415, 422, 500, 503, 507];
    /// Health check.
    Health: [503];
}

fn status_description(status: u16) -> &'static str {
    match status {
        400 => {
            "Malformed request: a parameter or body that does not parse, a missing required field, a wrong type."
        }
        401 => {
            "No credential, an unknown one (rotated, revoked), or one of the wrong kind for this endpoint."
        }
        403 => {
            "A valid credential that may not do this (another project's, or not the operator's)."
        }
        404 => "The resource does not exist (a malformed id in the path included).",
        408 => {
            "The request body stopped arriving (no byte for 30 s by default) or arrived too slowly (under 4 KiB a second on average); nothing was written. Send the body without pausing."
        }
        409 => "The request conflicts with the current state.",
        410 => {
            "The cursor is older than the deletions the server keeps (or ahead of this database): omit `since` to sync from the start."
        }
        413 => {
            "The request body is larger than the endpoint's cap: 20 MiB for an image upload, 4 MiB everywhere else."
        }
        415 => {
            "The upload is not multipart/form-data, or its file is not a JPEG, PNG, GIF or WebP image (told by its bytes), or its declared type disagrees with its bytes."
        }
        422 => "A well-formed value that breaks a rule; the detail names the rule.",
        500 => {
            "Server error; transient, retry after a few seconds. The detail carries a request id for the logs."
        }
        503 => {
            "The database is locked by another process or does not answer, or too many image uploads are in progress; nothing was written. Retry after the `Retry-After` seconds."
        }
        507 => {
            "The database's disk is full; nothing was written. Writes succeed again once space is freed; reads keep working."
        }
        _ => "Error.",
    }
}

/// The answer of an operation: one of its success responses `S`, or an error with one of the
/// statuses `E` documents.
pub enum Reply<S, E: ErrorSet> {
    /// A success response.
    Ok(S),
    /// An error.
    Err(ApiError, PhantomData<E>),
}

impl<S, E: ErrorSet> From<ApiError> for Reply<S, E> {
    fn from(err: ApiError) -> Self {
        debug_assert!(
            E::STATUSES.contains(&err.status.as_u16()) || err.status.is_server_error(),
            "undocumented status {}",
            err.status
        );
        Reply::Err(err, PhantomData)
    }
}

impl<S, E: ErrorSet> From<CoreError> for Reply<S, E> {
    fn from(err: CoreError) -> Self {
        ApiError::from(err).into()
    }
}

impl<S, E: ErrorSet> From<Result<S, ApiError>> for Reply<S, E> {
    fn from(res: Result<S, ApiError>) -> Self {
        match res {
            Ok(s) => Reply::Ok(s),
            Err(e) => e.into(),
        }
    }
}

/// Runs a handler body written with `?` (on core errors and [`ApiError`]s alike) and converts
/// its outcome to the operation's [`Reply`], once.
pub(crate) async fn reply<S, E: ErrorSet>(
    body: impl Future<Output = Result<S, ApiError>>,
) -> Reply<S, E> {
    body.await.into()
}

impl<S: IntoResponse, E: ErrorSet> IntoResponse for Reply<S, E> {
    fn into_response(self) -> Response {
        match self {
            Reply::Ok(s) => s.into_response(),
            Reply::Err(e, _) => e.into_response(),
        }
    }
}

// Written by hand, not derived: a `#[derive(ApiResponse)]` enum documents every one of its
// variants, while each operation documents its own set of error statuses (an enum per set,
// each repeating the descriptions); and the derive writes a response header's name
// upper-cased in the document (`RETRY-AFTER`), where the document says `Retry-After`. What
// the derive's `bad_request_handler` would generate is the two items below it: an argument
// that does not parse answers through `ApiError::from_poem`, the same `{"detail"}` shape.
impl<S: ApiResponse, E: ErrorSet> ApiResponse for Reply<S, E> {
    const BAD_REQUEST_HANDLER: bool = true;

    fn meta() -> MetaResponses {
        let mut meta = S::meta();
        meta.responses
            .extend(E::STATUSES.iter().map(|&status| MetaResponse {
                description: status_description(status),
                status: Some(status),
                status_range: None,
                content: vec![MetaMediaType {
                    content_type: "application/json; charset=utf-8",
                    schema: ErrorBody::schema_ref(),
                }],
                headers: if status == 503 {
                    vec![MetaHeader {
                        name: "Retry-After".into(),
                        description: Some("Seconds to wait before trying again.".into()),
                        required: false,
                        deprecated: false,
                        schema: u32::schema_ref(),
                    }]
                } else {
                    vec![]
                },
            }));
        meta
    }

    fn register(registry: &mut Registry) {
        S::register(registry);
        ErrorBody::register(registry);
    }

    fn from_parse_request_error(err: poem::Error) -> Self {
        ApiError::from_poem(&err).into()
    }
}

/// The cause of [`ApiError::panicked`].
#[derive(Debug)]
struct Panicked;

impl fmt::Display for Panicked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a handler panicked")
    }
}

impl std::error::Error for Panicked {}
