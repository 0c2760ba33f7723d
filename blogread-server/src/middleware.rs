//! The middleware around the whole application: [`BodyLimit`] caps request bodies before any
//! handler reads them, and [`ErrorShape`] gives what poem answers by itself (unknown route,
//! wrong method, body too large, a plain-text error of a nested service) the one error shape
//! of [`crate::error`].

use std::fmt;

use poem::http::{HeaderValue, Method, StatusCode, Version, header};
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::ProjectId;
use blogread_core::error::{Error as CoreError, NotFound, Unauthorized};
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;

use crate::admin;
use crate::body_pace::SlowBody;
use crate::error::{ApiError, describe_status};
use crate::routes::RouteTable;
use crate::serve::{BODY_LIMIT, MEDIA_BODY_LIMIT};
use crate::upload_places::{NoPlace, UploadPlaces};

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
/// upload (`POST /api/v1/projects/{project_id}/media`, and the admin Media page's Upload form,
/// `POST /admin/projects/{project_id}/media`), [`BODY_LIMIT`] everywhere else. A larger
/// declared `Content-Length` is refused at once; a body without one (HTTP/1.1 chunked, HTTP/2
/// with no `content-length`) is read here, never past the limit, before any handler sees it.
/// (A declared length is enforced by the protocol layer: no more bytes than declared are
/// read.) The cap given goes on in the request's extensions ([`BodyCap`]), for whoever reads
/// the body further in.
///
/// Before an upload's body is read, its caller must be one who may upload to its project
/// ([`Service::may_upload_media`]: the `Authorization` header for the API, the session cookie
/// for the admin page), so that nobody else holds a place or any memory while sending a body;
/// a refused API upload gets the API's answer (401, 403, 404), an admin page's upload the Media
/// page, which says what to do (sign in, ...).
///
/// Uploads also take a place among the uploads in progress before their body is read: at
/// most [`Limits::max_uploads`](crate::Limits::max_uploads) at once, each holding at most
/// its cap, so that a flood of uploads cannot hold more memory than that, and at most half of
/// them (rounded up) for one project ([`crate::upload_places`]); past either an upload is
/// answered 503 with `Retry-After` without its body being read. The admin pages' upload
/// is refused the same way, but answered as a page is: a redirect to the Media page that
/// says what to do, once its body has been read and dropped ([`REFUSED_UPLOAD_DRAIN`]).
///
/// A body cut off for its pace ([`crate::body_pace`]) is answered 408 here, whatever its
/// reader made of the error, with `Connection: close` on HTTP/1 (the rest of the body may
/// still be on its way); an upload's place is given back before the answer is sent.
pub struct BodyLimit {
    places: UploadPlaces,
    service: Service,
}

impl BodyLimit {
    /// The limit, with `max_uploads` uploads in progress at once (at least 1), uploads'
    /// callers checked by `service`.
    pub fn new(max_uploads: usize, service: Service) -> Self {
        Self {
            places: UploadPlaces::new(max_uploads),
            service,
        }
    }
}

pub use crate::serve::BodyCap;

impl<E: Endpoint> Middleware<E> for BodyLimit {
    type Output = BodyLimitEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        BodyLimitEndpoint {
            inner: ep,
            places: self.places.clone(),
            service: self.service.clone(),
        }
    }
}

/// The endpoint of [`BodyLimit`].
pub struct BodyLimitEndpoint<E> {
    inner: E,
    places: UploadPlaces,
    service: Service,
}

/// Where an image upload is sent: the requests that get [`MEDIA_BODY_LIMIT`] and an upload
/// place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UploadRoute {
    /// `POST /api/v1/projects/{project_id}/media` (`None`: an id that does not read as one):
    /// refusals are the API's JSON errors.
    Api(Option<ProjectId>),
    /// `POST /admin/projects/{project_id}/media` (a project id that reads as one): the Media
    /// page's Upload form; refusals send the browser back to that page.
    Admin(ProjectId),
}

/// The upload route `req` is sent to, if it is one.
fn upload_route(req: &Request) -> Option<UploadRoute> {
    if req.method() != Method::POST {
        return None;
    }
    let mut parts = req.uri().path().split('/').filter(|s| !s.is_empty());
    let parts: [Option<&str>; 6] = std::array::from_fn(|_| parts.next());
    match parts {
        [
            Some("api"),
            Some("v1"),
            Some("projects"),
            Some(project),
            Some("media"),
            None,
        ] => Some(UploadRoute::Api(project.parse().ok())),
        [
            Some("admin"),
            Some("projects"),
            Some(project),
            Some("media"),
            None,
            None,
        ] => project.parse().ok().map(UploadRoute::Admin),
        _ => None,
    }
}

/// Why an upload was refused before its body was read.
#[derive(Debug)]
enum Refused {
    /// Its caller may not upload to its project (or the project does not exist).
    NotAllowed(CoreError),
    /// Every upload place is taken, or the project holds its share.
    Busy(NoPlace),
    /// The body is over the cap.
    TooLarge(usize),
}

/// The largest body of a refused admin upload that is read (and dropped) before the answer.
///
/// A browser still sending its body when the answer comes and the connection closes shows a
/// reset connection rather than the answer; so the Media page's upload, refused before its
/// body is read, has its body read to the end first, without keeping it, when it declares at
/// most this much (a larger one is answered at once). The API's refusals never read the body.
pub const REFUSED_UPLOAD_DRAIN: u64 = 100 * 1024 * 1024;

/// Reads and drops the body of `req`, a refused admin upload, when its declared length is at
/// most [`REFUSED_UPLOAD_DRAIN`] (see there why).
async fn drain(req: &mut Request, declared: Option<u64>) {
    if declared.is_none_or(|n| n > REFUSED_UPLOAD_DRAIN) {
        return;
    }
    let mut body: BoxBody<bytes::Bytes, std::io::Error> = req.take_body().into();
    let mut read = 0u64;
    while let Some(Ok(frame)) = body.frame().await {
        read += frame.data_ref().map_or(0, |d| d.len() as u64);
        if read > REFUSED_UPLOAD_DRAIN {
            return;
        }
    }
}

impl Refused {
    /// The answer to an upload sent to `route`, counted as a refused upload; an admin
    /// upload's body (of `declared` length) is drained first (see [`REFUSED_UPLOAD_DRAIN`]).
    async fn answer_after_drain(
        self,
        route: Option<UploadRoute>,
        req: &mut Request,
        declared: Option<u64>,
    ) -> Response {
        if matches!(route, Some(UploadRoute::Admin(_))) {
            drain(req, declared).await;
        }
        self.answer(route)
    }

    /// The answer to an upload sent to `route`, counted as a refused upload.
    fn answer(self, route: Option<UploadRoute>) -> Response {
        let reason = match self {
            Refused::NotAllowed(_) => None,
            Refused::Busy(NoPlace::Full) => Some("busy"),
            Refused::Busy(NoPlace::ProjectFull(_)) => Some("project_busy"),
            Refused::TooLarge(_) => Some("body_too_large"),
        };
        if let (Some(reason), Some(_)) = (reason, route) {
            metrics::counter!("blogread_media_uploads_refused_total", "reason" => reason)
                .increment(1);
        }
        match (self, route) {
            // The page shows what this session may see: the sign-in page, the project's
            // errors, or the page itself.
            (Refused::NotAllowed(_), Some(UploadRoute::Admin(project))) => {
                admin::upload_not_allowed(project)
            }
            (Refused::NotAllowed(err), _) => ApiError::from(err).into_response(),
            (Refused::Busy(_), Some(UploadRoute::Admin(project))) => {
                admin::upload_refused(project, admin::UploadRefusal::Busy)
            }
            (Refused::TooLarge(_), Some(UploadRoute::Admin(project))) => {
                admin::upload_refused(project, admin::UploadRefusal::TooLarge)
            }
            (Refused::Busy(NoPlace::Full), _) => ApiError::busy(
                "too many image uploads are in progress; nothing was stored: retry in a moment",
                1,
            )
            .into_response(),
            (Refused::Busy(NoPlace::ProjectFull(share)), _) => ApiError::busy(
                format!(
                    "this project has {share} image upload(s) in progress, the most one project may have at once; nothing was stored: retry when one is done"
                ),
                1,
            )
            .into_response(),
            (Refused::TooLarge(limit), _) => ApiError::body_over(limit).into_response(),
        }
    }
}

impl<E: Endpoint> Endpoint for BodyLimitEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let slow = req.extensions().get::<SlowBody>().cloned();
        let http1 = req.version() <= Version::HTTP_11;
        let route = upload_route(&req);
        let response = self.limited(req, route).await;
        match slow {
            // Whatever the reader made of the body's error (a multipart or JSON error, say),
            // the answer says why it really failed.
            Some(slow) if slow.cut_off() => {
                if route.is_some() {
                    metrics::counter!("blogread_media_uploads_refused_total", "reason" => "body_too_slow")
                        .increment(1);
                }
                let mut resp = ApiError::body_too_slow(&slow.pace()).into_response();
                // The rest of the body may still be on its way: the connection cannot be
                // used again (HTTP/2 resets the stream alone).
                if http1 {
                    resp.headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                Ok(resp)
            }
            _ => response,
        }
    }
}

impl<E: Endpoint> BodyLimitEndpoint<E> {
    /// Whether the caller of `req`, an upload sent to `route`, may upload there.
    async fn may_upload(&self, req: &Request, route: UploadRoute) -> Result<ProjectId, Refused> {
        let (caller, project) = match route {
            UploadRoute::Api(None) => {
                return Err(Refused::NotAllowed(CoreError::NotFound(NotFound::Project)));
            }
            UploadRoute::Api(Some(project)) => (
                Caller::from_authorization(
                    req.headers()
                        .get(header::AUTHORIZATION)
                        .map(|v| v.as_bytes()),
                ),
                project,
            ),
            UploadRoute::Admin(project) => {
                let Some(session) = admin::http::session_cookie(req.headers()) else {
                    return Err(Refused::NotAllowed(CoreError::Unauthorized(
                        Unauthorized::SessionEnded,
                    )));
                };
                let signed_in = self
                    .service
                    .admin_session(&session)
                    .await
                    .map_err(Refused::NotAllowed)?;
                (signed_in.caller, project)
            }
        };
        self.service
            .may_upload_media(&caller, project)
            .await
            .map_err(Refused::NotAllowed)?;
        Ok(project)
    }

    /// [`BodyLimit`]'s work on `req`, sent to `route`.
    async fn limited(
        &self,
        mut req: Request,
        route: Option<UploadRoute>,
    ) -> poem::Result<Response> {
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .map(|v| v.to_str().ok().and_then(|v| v.trim().parse::<u64>().ok()));
        let (limit, place) = if let Some(route) = route {
            let place = match self.may_upload(&req, route).await {
                Ok(project) => self.places.take(project).map_err(Refused::Busy),
                Err(refused) => Err(refused),
            };
            match place {
                Ok(place) => (MEDIA_BODY_LIMIT, Some(place)),
                Err(refused) => {
                    return Ok(refused
                        .answer_after_drain(Some(route), &mut req, declared.flatten())
                        .await);
                }
            }
        } else {
            (BODY_LIMIT, None)
        };
        req.extensions_mut().insert(BodyCap(limit));
        match declared {
            Some(Some(n)) if n > limit as u64 => {
                // A refused upload holds no place while its body is drained.
                drop(place);
                return Ok(Refused::TooLarge(limit)
                    .answer_after_drain(route, &mut req, Some(n))
                    .await);
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
                    return Ok(Refused::TooLarge(limit).answer(route));
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
        let response = self.inner.call(req).await.map(IntoResponse::into_response);
        drop(place);
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(method: Method, path: &str) -> Option<UploadRoute> {
        upload_route(&Request::builder().method(method).uri_str(path).finish())
    }

    const PROJECT: &str = "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f";

    #[test]
    fn the_api_upload_is_an_upload() {
        assert_eq!(
            route(Method::POST, &format!("/api/v1/projects/{PROJECT}/media")),
            Some(UploadRoute::Api(PROJECT.parse().ok()))
        );
    }

    #[test]
    fn the_admin_media_pages_upload_is_an_upload_of_its_project() {
        assert_eq!(
            route(Method::POST, &format!("/admin/projects/{PROJECT}/media")),
            Some(UploadRoute::Admin(PROJECT.parse().expect("a project id")))
        );
    }

    #[test]
    fn reads_and_other_changes_of_media_are_not_uploads() {
        for (method, path) in [
            (Method::GET, format!("/api/v1/projects/{PROJECT}/media")),
            (Method::GET, format!("/admin/projects/{PROJECT}/media")),
            (Method::PUT, format!("/admin/projects/{PROJECT}/media")),
            (
                Method::POST,
                format!("/admin/projects/{PROJECT}/media/x/alt"),
            ),
            (
                Method::POST,
                format!("/admin/projects/{PROJECT}/media/x/delete"),
            ),
            (Method::POST, format!("/api/v1/projects/{PROJECT}/media/x")),
            (Method::POST, format!("/admin/projects/{PROJECT}/posts")),
            (
                Method::POST,
                "/admin/projects/not-a-project/media".to_owned(),
            ),
            (Method::POST, format!("/x/admin/projects/{PROJECT}/media")),
        ] {
            assert_eq!(route(method.clone(), &path), None, "{method} {path}");
        }
    }
}
