//! The middleware around the whole application: [`BodyLimit`] caps request bodies before any
//! handler reads them, and [`ErrorShape`] gives what poem answers by itself (unknown route,
//! wrong method, body too large, a plain-text error of a nested service) the one error shape
//! of [`crate::error`].

use std::fmt;
use std::sync::Arc;

use poem::http::{Method, StatusCode, header};
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};

use crate::error::{ApiError, describe_status};
use crate::routes::RouteTable;
use crate::serve::{BODY_LIMIT, MEDIA_BODY_LIMIT};
use tokio::sync::Semaphore;

/// Wraps the whole app: every error poem produces, and every error response that is not
/// already JSON, becomes `{"detail": "..."}`; unknown routes and wrong methods get a detail
/// that says where to look.
pub struct ErrorShape {
    routes: RouteTable,
}

impl ErrorShape {
    /// The middleware, knowing which methods each documented path accepts.
    pub fn new(routes: RouteTable) -> Self {
        Self { routes }
    }
}

impl<E: Endpoint> Middleware<E> for ErrorShape {
    type Output = ErrorShapeEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        ErrorShapeEndpoint {
            inner: ep,
            routes: self.routes,
        }
    }
}

/// The endpoint of [`ErrorShape`].
pub struct ErrorShapeEndpoint<E> {
    inner: E,
    routes: RouteTable,
}

impl<E: Endpoint> Endpoint for ErrorShapeEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let method = req.method().clone();
        let path = req.uri().path().to_owned();
        let resp = match self.inner.call(req).await {
            Ok(resp) => resp.into_response(),
            Err(err) => {
                return Ok(self.shape(&method, &path, err.status(), Some(&err)));
            }
        };
        let status = resp.status();
        if !(status.is_client_error() || status.is_server_error()) || is_json(&resp) {
            return Ok(resp);
        }
        // A plain-text error that poem produced inside a nested service.
        Ok(self.shape(&method, &path, status, None))
    }
}

impl<E> ErrorShapeEndpoint<E> {
    fn shape(
        &self,
        method: &Method,
        path: &str,
        status: StatusCode,
        err: Option<&poem::Error>,
    ) -> Response {
        let api_error = match status {
            StatusCode::NOT_FOUND => match self.routes.allowed(path) {
                Some(allowed) if !allowed.contains(method) => {
                    ApiError::method_not_allowed(method, path, &allowed)
                }
                _ if err.is_some_and(|e| !e.is::<poem::error::NotFoundError>()) => {
                    ApiError::from_poem(err.expect("checked"))
                }
                _ => ApiError::no_route(method, path),
            },
            StatusCode::METHOD_NOT_ALLOWED => {
                let allowed = self.routes.allowed(path).unwrap_or_default();
                ApiError::method_not_allowed(method, path, &allowed)
            }
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::payload_too_large(),
            _ => match err {
                Some(err) => ApiError::from_poem(err),
                None if status.is_server_error() => ApiError::internal(&PlainError(status)),
                None => ApiError::new(status, describe_status(status, "")),
            },
        };
        api_error.into_response()
    }
}

#[derive(Debug)]
struct PlainError(StatusCode);

impl fmt::Display for PlainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an inner endpoint answered {}", self.0)
    }
}

impl std::error::Error for PlainError {}

fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// Limits request bodies whatever the protocol or framing: [`MEDIA_BODY_LIMIT`] on an image
/// upload (`POST /api/v1/projects/{project_id}/media`), [`BODY_LIMIT`] everywhere else. A
/// larger declared `Content-Length` is refused at once; a body without one (HTTP/1.1
/// chunked, HTTP/2 with no `content-length`) is read here, never past the limit, before any
/// handler sees it. (A declared length is enforced by the protocol layer: no more bytes than
/// declared are read.)
///
/// Uploads also take a place among the uploads in progress before their body is read: at
/// most [`Limits::max_uploads`](crate::Limits::max_uploads) at once, each holding at most
/// its cap, so that a flood of uploads cannot hold more memory than that; past it an upload
/// is answered 503 with `Retry-After` without its body being read.
pub struct BodyLimit {
    uploads: Arc<Semaphore>,
}

impl BodyLimit {
    /// The limit, with `max_uploads` uploads in progress at once (at least 1).
    pub fn new(max_uploads: usize) -> Self {
        Self {
            uploads: Arc::new(Semaphore::new(max_uploads.max(1))),
        }
    }
}

impl<E: Endpoint> Middleware<E> for BodyLimit {
    type Output = BodyLimitEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        BodyLimitEndpoint {
            inner: ep,
            uploads: Arc::clone(&self.uploads),
        }
    }
}

/// The endpoint of [`BodyLimit`].
pub struct BodyLimitEndpoint<E> {
    inner: E,
    uploads: Arc<Semaphore>,
}

/// Whether the request is an image upload: `POST /api/v1/projects/{project_id}/media`.
fn is_upload(req: &Request) -> bool {
    req.method() == Method::POST && {
        let mut parts = req.uri().path().split('/').filter(|s| !s.is_empty());
        matches!(
            (
                parts.next(),
                parts.next(),
                parts.next(),
                parts.next(),
                parts.next(),
                parts.next()
            ),
            (
                Some("api"),
                Some("v1"),
                Some("projects"),
                Some(_),
                Some("media"),
                None
            )
        )
    }
}

impl<E: Endpoint> Endpoint for BodyLimitEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let (limit, _place) = if is_upload(&req) {
            match Arc::clone(&self.uploads).try_acquire_owned() {
                Ok(place) => (MEDIA_BODY_LIMIT, Some(place)),
                Err(_) => {
                    metrics::counter!("blogread_media_uploads_refused_total", "reason" => "busy")
                        .increment(1);
                    return Ok(ApiError::busy(
                        "too many image uploads are in progress; nothing was stored: retry in a moment",
                        1,
                    )
                    .into_response());
                }
            }
        } else {
            (BODY_LIMIT, None)
        };
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .map(|v| v.to_str().ok().and_then(|v| v.trim().parse::<u64>().ok()));
        match declared {
            Some(Some(n)) if n > limit as u64 => {
                return Ok(too_large(limit));
            }
            Some(Some(_)) => {}
            Some(None) => {
                return Ok(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "the Content-Length header is not a number: send the body's length in bytes, or no Content-Length",
                )
                .into_response());
            }
            None => match req.take_body().into_bytes_limit(limit).await {
                Ok(bytes) => req.set_body(bytes),
                Err(poem::error::ReadBodyError::PayloadTooLarge) => {
                    return Ok(too_large(limit));
                }
                Err(e) => {
                    return Ok(ApiError::new(
                        StatusCode::BAD_REQUEST,
                        format!("the request body could not be read: {e}"),
                    )
                    .into_response());
                }
            },
        }
        self.inner.call(req).await.map(IntoResponse::into_response)
    }
}

/// 413 for a body over `limit`, counted as a refused upload when it is the upload's.
fn too_large(limit: usize) -> Response {
    if limit == MEDIA_BODY_LIMIT {
        metrics::counter!("blogread_media_uploads_refused_total", "reason" => "body_too_large")
            .increment(1);
    }
    ApiError::body_over(limit).into_response()
}
