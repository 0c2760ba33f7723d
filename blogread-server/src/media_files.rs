//! The public serving of stored images (`docs/media.md#urls-and-caching`):
//! `GET`/`HEAD /media/{project_id}/{sha256}.{ext}` and `/media/{project_id}/{sha256}/w{width}.{ext}`,
//! without a key (an image on a site is public; its address is unguessable).
//!
//! The name is judged from the request's path as sent, before any percent-decoding, by
//! [`blogread_core::media::MediaPath::parse`]: one spelling per file, nothing else (no `..`,
//! no encoded character, no upper-case digest, no width the pipeline does not make), so any
//! other name is a 404 without the storage being asked, and no image work is ever done here.
//! Files are immutable (named by content), so an answer may be kept for a year; its ETag is
//! the item's digest. A file is sent as it is read, a chunk at a time, never held whole.

use blogread_core::Service;
use poem::http::{HeaderValue, Method, StatusCode, header};
use poem::{Endpoint, IntoResponse, Request, Response};

use crate::error::ApiError;

/// Where the files are served, under the server's root.
pub const MEDIA_PREFIX: &str = "/media/";

/// `Cache-Control` of a served file: named by its content, it never changes.
pub const CACHE_CONTROL: &str = "public, max-age=31536000, immutable";

/// `Content-Security-Policy` of a served file: opened on its own, it runs nothing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; sandbox";

/// The endpoint serving the files.
pub struct MediaFiles {
    service: Service,
}

impl MediaFiles {
    /// Serves the files of `service`'s media store.
    pub fn new(service: Service) -> Self {
        Self { service }
    }
}

fn not_found() -> Response {
    let mut resp = ApiError::new(
        StatusCode::NOT_FOUND,
        "no image at this address: image addresses are given by the media API's `url` fields",
    )
    .into_response();
    resp.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    resp
}

/// Whether `If-None-Match` names the tag `"sha256"` (strong or weak, or `*`).
fn matches_etag(req: &Request, sha256: &str) -> bool {
    let Some(value) = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    value.split(',').map(str::trim).any(|tag| {
        tag == "*"
            || tag
                .strip_prefix("W/")
                .unwrap_or(tag)
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                == Some(sha256)
    })
}

impl Endpoint for MediaFiles {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            let allowed = [Method::GET, Method::HEAD];
            return Ok(
                ApiError::method_not_allowed(req.method(), req.uri().path(), &allowed)
                    .into_response(),
            );
        }
        // The path as sent (not as nested routing left it): an encoded character is no name
        // of any file.
        let path = req.original_uri().path();
        let Some((project, rest)) = path
            .strip_prefix(MEDIA_PREFIX)
            .and_then(|tail| tail.split_once('/'))
        else {
            return Ok(not_found());
        };
        let file = match self.service.media_file(project, rest).await {
            Ok(Some(file)) => file,
            Ok(None) => return Ok(not_found()),
            Err(err) => return Ok(ApiError::from(err).into_response()),
        };
        let etag = format!("\"{}\"", file.sha256);
        let mut resp = if matches_etag(&req, &file.sha256) {
            Response::builder()
                .status(StatusCode::NOT_MODIFIED)
                .finish()
        } else {
            let length = file.file.length;
            let mut resp = Response::builder()
                .status(StatusCode::OK)
                .content_type(file.content_type.media_type())
                .body(poem::Body::from_bytes_stream(file.file.chunks));
            resp.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            resp
        };
        let headers = resp.headers_mut();
        if let Ok(etag) = HeaderValue::from_str(&etag) {
            headers.insert(header::ETAG, etag);
        }
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_CONTROL),
        );
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        Ok(resp)
    }
}
