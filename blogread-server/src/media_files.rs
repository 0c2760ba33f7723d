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

use std::panic::AssertUnwindSafe;

use blogread_core::Service;
use futures_util::FutureExt;
use hyper::body::Incoming;
use poem::http::{self, HeaderMap, HeaderValue, Method, StatusCode, header};
use poem::{Endpoint, IntoResponse, Request, Response};

use crate::error::ApiError;
use crate::request_id::REQUEST_ID;
use crate::routes::MEDIA_ROUTE;
use crate::serve::Shortcut;
use crate::telemetry::LoggedRequest;
use blogread_core::media::SameFile;

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
fn matches_etag(headers: &HeaderMap, sha256: &str) -> bool {
    let Some(value) = headers
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

impl MediaFiles {
    /// The answer to `method` on `path` (the request's path as sent) with `headers`.
    pub async fn answer(&self, method: &Method, path: &str, headers: &HeaderMap) -> Response {
        self.answer_with_file(method, path, headers).await.0
    }

    /// [`MediaFiles::answer`], and when it is a `GET` answered with a file read whole from
    /// the disk, that file (see [`SameFile`]).
    async fn answer_with_file(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
    ) -> (Response, Option<SameFile>) {
        if method != Method::GET && method != Method::HEAD {
            let allowed = [Method::GET, Method::HEAD];
            let refused = ApiError::method_not_allowed(method, path, &allowed);
            return (refused.into_response(), None);
        }
        let Some((project, rest)) = path
            .strip_prefix(MEDIA_PREFIX)
            .and_then(|tail| tail.split_once('/'))
        else {
            return (not_found(), None);
        };
        let file = match self.service.media_file(project, rest).await {
            Ok(Some(file)) => file,
            Ok(None) => return (not_found(), None),
            Err(err) => return (ApiError::from(err).into_response(), None),
        };
        // The answer's headers, in a map made large enough for them and the request id at
        // once (growing it was a visible part of a served image's cost).
        let mut answer = HeaderMap::with_capacity(ANSWER_HEADERS);
        if let Some(etag) = etag(&file.sha256) {
            answer.insert(header::ETAG, etag);
        }
        answer.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_CONTROL),
        );
        answer.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        answer.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        let mut same_file = None;
        let mut resp = if matches_etag(headers, &file.sha256) {
            Response::builder()
                .status(StatusCode::NOT_MODIFIED)
                .finish()
        } else {
            if method == Method::GET {
                same_file = file.file.same_file;
            }
            answer.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(file.content_type.media_type()),
            );
            answer.insert(header::CONTENT_LENGTH, HeaderValue::from(file.file.length));
            Response::builder()
                .status(StatusCode::OK)
                .body(poem::Body::from_bytes_stream(file.file.chunks))
        };
        *resp.headers_mut() = answer;
        (resp, same_file)
    }
}

/// How many headers an answer holds at most: `ETag`, `Cache-Control`,
/// `X-Content-Type-Options`, `Content-Security-Policy`, `Content-Type`, `Content-Length`,
/// and the request id added by the request log.
const ANSWER_HEADERS: usize = 7;

/// The `ETag` of the item with digest `sha256`: the digest, quoted.
fn etag(sha256: &str) -> Option<HeaderValue> {
    let mut tag = String::with_capacity(sha256.len() + 2);
    tag.push('"');
    tag.push_str(sha256);
    tag.push('"');
    HeaderValue::try_from(tag).ok()
}

/// The direct path: reads under [`MEDIA_PREFIX`], answered straight from the protocol layer's
/// request, without the application's request conversion, routing and middleware, with what
/// that middleware adds (the request id, the request log's line, the metrics, a 500 for a
/// panic). Served images are the most frequent requests of a server without a CDN in front of
/// it, and their answers are small: the per-request cost of the general path was most of
/// their cost.
impl Shortcut for MediaFiles {
    /// A `GET` or `HEAD` under [`MEDIA_PREFIX`].
    fn takes(&self, req: &http::Request<Incoming>) -> bool {
        takes(req)
    }

    /// [`MediaFiles::answer`], with what the application's middleware would add, and the
    /// file a `GET`'s body is.
    async fn answer(&self, req: &http::Request<Incoming>) -> (Response, Option<SameFile>) {
        self.answer_direct(req).await
    }
}

/// Whether the direct path takes `req`: a `GET` or `HEAD` under [`MEDIA_PREFIX`].
fn takes<B>(req: &http::Request<B>) -> bool {
    (req.method() == Method::GET || req.method() == Method::HEAD)
        && req.uri().path().starts_with(MEDIA_PREFIX)
}

impl MediaFiles {
    /// The direct path's answer to `req` (see the [`Shortcut`] implementation).
    async fn answer_direct<B>(&self, req: &http::Request<B>) -> (Response, Option<SameFile>) {
        let logged = LoggedRequest::begin(req.method(), req.uri(), MEDIA_ROUTE);
        let answer =
            AssertUnwindSafe(self.answer_with_file(req.method(), req.uri().path(), req.headers()))
                .catch_unwind();
        let (mut resp, same_file) = REQUEST_ID
            .scope(logged.id.clone(), async {
                answer
                    .await
                    .unwrap_or_else(|_| (ApiError::panicked().into_response(), None))
            })
            .await;
        let status = resp.status();
        logged.end(status, resp.headers_mut());
        (resp, same_file)
    }
}

impl Endpoint for MediaFiles {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        // The path as sent (not as nested routing left it): an encoded character is no name
        // of any file.
        Ok(self
            .answer(req.method(), req.original_uri().path(), req.headers())
            .await)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use blogread_core::auth::Caller;
    use blogread_core::media::{ImagePool, LocalFolder};
    use blogread_core::service::{MediaSetup, MediaUpload, Uploaded};
    use blogread_core::store::MemoryStore;
    use poem::http::Uri;

    use super::*;

    const BASE: &str = "https://images.example";

    /// A service keeping images in `dir`, with one project holding one uploaded photo: the
    /// service, the project's id, and the paths of the photo's master and first variant.
    async fn service_with_a_photo(dir: &std::path::Path) -> (Service, String, String, String) {
        let files = Arc::new(LocalFolder::open(dir).expect("open the folder"));
        let service = Service::new(Arc::new(MemoryStore::new())).with_media(MediaSetup::new(
            files,
            ImagePool::new(1, std::time::Duration::from_secs(30)),
            BASE,
        ));
        let operator = Caller::operator();
        let project = service
            .create_project(&operator, "Photos".into(), None)
            .await
            .expect("a project")
            .id;
        let upload = MediaUpload {
            bytes: blogread_media::samples::jpeg(1000, 600, 7).into(),
            declared_type: None,
            alt: Some("a photo".into()),
        };
        let view = match service
            .upload_media(&operator, project, upload)
            .await
            .expect("stored")
        {
            Uploaded::Created(view) | Uploaded::Existing(view) => view,
        };
        let path = |url: &str| url.strip_prefix(BASE).expect("under the base").to_owned();
        let master = path(&view.url);
        let variant = path(&view.variants.first().expect("a variant").url);
        (service, project.to_string(), master, variant)
    }

    /// Status, headers but the request id, and the body's length and SHA-256; and whether a
    /// request id was there.
    async fn parts(resp: Response) -> (StatusCode, Vec<(String, String)>, (usize, String), bool) {
        let status = resp.status();
        let mut headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .filter(|(name, _)| name.as_str() != "x-request-id")
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("?").to_owned()))
            .collect();
        headers.sort();
        let has_id = resp.headers().contains_key("x-request-id");
        let body = resp.into_body().into_vec().await.expect("the body");
        let digest = blogread_core::domain::Sha256Hex::of(&body)
            .as_str()
            .to_owned();
        (status, headers, (body.len(), digest), has_id)
    }

    #[test]
    fn only_reads_under_the_media_prefix_take_the_direct_path() {
        let takes = |method: Method, uri: &str| {
            super::takes(
                &http::Request::builder()
                    .method(method)
                    .uri(uri)
                    .body(())
                    .unwrap(),
            )
        };
        assert!(takes(Method::GET, "/media/p/x.jpg"));
        assert!(takes(Method::HEAD, "/media/p/x.jpg"));
        assert!(takes(Method::GET, "http://host/media/p/x.jpg"));
        assert!(!takes(Method::POST, "/media/p/x.jpg"));
        assert!(!takes(Method::DELETE, "/media/p/x.jpg"));
        assert!(!takes(Method::GET, "/media"));
        assert!(!takes(Method::GET, "/api/v1/media/p/x.jpg"));
        assert!(!takes(Method::GET, "/mediax/p/x.jpg"));
    }

    /// The direct path is a shortcut around the application: for every request it takes, its
    /// answer must be the application's, byte for byte (but for the request id, new each time).
    #[tokio::test]
    async fn the_direct_path_answers_what_the_application_answers() {
        let dir = tempfile::tempdir().expect("a folder");
        let (service, project, master, variant) = service_with_a_photo(dir.path()).await;
        let other = "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f";
        let digest = master
            .rsplit('/')
            .next()
            .and_then(|name| name.split('.').next())
            .expect("a digest")
            .to_owned();
        let app = crate::Server::new(service.clone()).app();
        let direct = MediaFiles::new(service);
        let mut sent_from_file = 0;
        let cases: Vec<(Method, String, Option<String>, u16)> = vec![
            (Method::GET, master.clone(), None, 200),
            (Method::HEAD, master.clone(), None, 200),
            (Method::GET, variant.clone(), None, 200),
            (Method::HEAD, variant.clone(), None, 200),
            (
                Method::GET,
                master.clone(),
                Some(format!("\"{digest}\"")),
                304,
            ),
            (
                Method::GET,
                variant.clone(),
                Some(format!("W/\"{digest}\"")),
                304,
            ),
            (Method::GET, master.clone(), Some("*".into()), 304),
            (
                Method::GET,
                master.clone(),
                Some("\"other\", \"tags\"".into()),
                200,
            ),
            (Method::GET, format!("{master}?v=2"), None, 200),
            (
                Method::GET,
                master.replace(&digest, &digest.to_uppercase()),
                None,
                404,
            ),
            (Method::GET, master.replace(&project, other), None, 404),
            (Method::GET, master.replace(".jpg", ".png"), None, 404),
            (Method::GET, variant.replace("/w", "/w7"), None, 404),
            (
                Method::GET,
                format!("/media/%2e%2e/{project}/{digest}.jpg"),
                None,
                404,
            ),
            (Method::GET, master.replace(&digest, "%2e%2e"), None, 404),
            (
                Method::GET,
                format!("/media/{project}/../{project}/x.jpg"),
                None,
                404,
            ),
            (
                Method::GET,
                format!("/media/{project}%2f{digest}.jpg"),
                None,
                404,
            ),
            (Method::GET, format!("/media/{project}/"), None, 404),
            (Method::GET, "/media/".into(), None, 404),
            (Method::GET, "/media/x".into(), None, 404),
        ];
        for (method, target, tag, status) in cases {
            let build = || {
                let mut req = http::Request::builder()
                    .method(method.clone())
                    .uri(target.parse::<Uri>().expect("a target"));
                if let Some(tag) = &tag {
                    req = req.header(header::IF_NONE_MATCH, tag);
                }
                req.body(()).unwrap()
            };
            assert!(takes(&build()), "{method} {target}");
            // As the server makes a poem request of what hyper parsed.
            let (head, ()) = build().into_parts();
            let addr = poem::Addr::SocketAddr(([127, 0, 0, 1], 80).into());
            let head = poem::RequestParts::from((
                head,
                poem::web::LocalAddr(addr.clone()),
                poem::web::RemoteAddr(addr),
                http::uri::Scheme::HTTP,
            ));
            let req = Request::from_parts(head, poem::Body::empty());
            let through_app = parts(app.get_response(req).await).await;
            let (resp, same_file) = direct.answer_direct(&build()).await;
            let direct = parts(resp).await;
            assert_eq!(direct, through_app, "{method} {target} {tag:?}");
            assert_eq!(direct.0, status, "{method} {target} {tag:?}");
            assert!(direct.3, "{method} {target}: a request id");
            // The file a body is sent from: given with every GET of a large file read whole,
            // and holding exactly the body's bytes.
            let (length, digest) = &direct.2;
            let large = *length as u64 >= blogread_core::media::SEND_FROM_FILE;
            let expected = method == Method::GET && status == 200 && large;
            assert_eq!(same_file.is_some(), expected, "{method} {target} {tag:?}");
            if let Some(same) = same_file {
                assert_eq!(
                    blogread_core::domain::Sha256Hex::of(&same.bytes).as_str(),
                    digest
                );
                sent_from_file += 1;
            }
        }
        assert!(
            sent_from_file > 0,
            "the photo's master is sent from its file"
        );
    }
}
