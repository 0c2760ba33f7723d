//! blogread's public read API served by axum instead of the reference server's poem: the
//! list, a single post and the sitemap, with ETag/304, over a SQLite file.
//!
//! ```sh
//! cargo run -p blogread-core --features sqlite --example axum -- sqlite://example-blog.db
//! ```
//!
//! The first run creates a project named "Example blog" with a public key and one published
//! post; later runs find it again by name. The program prints the key and curl commands.
//! Everything HTTP lives here, in a few lines per route; every rule (who may read, paging,
//! links, ETags, which error is which status) stays in the core.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use blogread_core::auth::Caller;
use blogread_core::domain::BlogInput;
use blogread_core::error::error_chain;
use blogread_core::read::{Answer, CACHE_CONTROL, Conditional, RawListParams};
use blogread_core::{Bytes, Error, Service};
use serde::Deserialize;

/// The project this example serves.
pub const PROJECT_NAME: &str = "Example blog";

/// The routes of the public read API over `service`.
pub fn app(service: Service) -> Router {
    Router::new()
        .route("/blog/api/v1/public/blogs", get(list))
        .route("/blog/api/v1/public/blogs/sitemap", get(sitemap))
        .route("/blog/api/v1/public/blogs/{slug}", get(single))
        .with_state(service)
}

/// The `api_key` query parameter, the other way to send the public key.
#[derive(Debug, Default, Deserialize)]
struct ApiKey {
    api_key: Option<String>,
}

/// Who is calling: the `Authorization` header's bytes, else the `api_key` query value (the
/// core applies the rule that the header, when sent, is the only key considered).
fn caller(headers: &HeaderMap, query: &ApiKey) -> Caller {
    Caller::from_authorization(
        headers
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes),
    )
    .with_api_key(query.api_key.as_deref())
}

fn if_none_match(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
}

async fn list(
    State(service): State<Service>,
    headers: HeaderMap,
    Query(key): Query<ApiKey>,
    Query(params): Query<RawListParams>,
) -> Result<Response, ApiError> {
    let answer = service
        .list_blogs(&caller(&headers, &key), params, if_none_match(&headers))
        .await?;
    Ok(conditional(answer))
}

async fn single(
    State(service): State<Service>,
    headers: HeaderMap,
    Query(key): Query<ApiKey>,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let answer = service
        .get_blog(&caller(&headers, &key), &slug, if_none_match(&headers))
        .await?;
    Ok(conditional(answer))
}

async fn sitemap(
    State(service): State<Service>,
    headers: HeaderMap,
    Query(key): Query<ApiKey>,
) -> Result<Response, ApiError> {
    let answer = service
        .sitemap(&caller(&headers, &key), if_none_match(&headers))
        .await?;
    Ok(conditional(answer))
}

/// A 200 with the JSON body, or a 304; both with the ETag and the caching rule.
fn conditional<T>(answer: Conditional<Answer<T>>) -> Response {
    let (status, etag, body) = match answer {
        Conditional::NotModified { etag } => (StatusCode::NOT_MODIFIED, etag, Bytes::new()),
        Conditional::Fresh { etag, value } => (StatusCode::OK, etag, value.into_body()),
    };
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    if status == StatusCode::OK {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    response
}

/// The core's errors as HTTP answers: `{"detail": "..."}` with the status the core names.
pub struct ApiError(Error);

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        ApiError(err)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.0.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            eprintln!("error: {}", error_chain(&self.0));
        }
        let body = serde_json::json!({ "detail": self.0.public_detail() }).to_string();
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        if status == StatusCode::UNAUTHORIZED {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(seconds) = self.0.retry_after_seconds() {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// Finds [`PROJECT_NAME`] or creates it with one published post; returns its public key.
pub async fn prepare(service: &Service) -> Result<String, Error> {
    let me = Caller::operator();
    if let Some(project) = service.project_by_name(&me, PROJECT_NAME).await? {
        return Ok(service.reveal_public_key(&me, project.id).await?.key);
    }
    let project = service
        .create_project(
            &me,
            PROJECT_NAME.into(),
            Some("https://blog.example".into()),
        )
        .await?;
    let key = service.generate_public_key(&me, project.id).await?.key;
    let post = service
        .create_blog(
            &me,
            project.id,
            BlogInput {
                title: Some("Hello from axum".into()),
                slug: Some("hello".into()),
                content: Some("<p>Served by axum, read rules from blogread-core.</p>".into()),
                ..Default::default()
            },
        )
        .await?;
    service.publish_blog(&me, project.id, post.id, None).await?;
    Ok(key)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "sqlite://example-blog.db".to_owned());
    let service = Service::new(blogread_core::store::open_store(&url).await?);
    let key = prepare(&service).await?;
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 3000))).await?;
    let base = format!("http://{}", listener.local_addr()?);
    println!("serving {PROJECT_NAME} from {url} on {base}");
    println!("curl -s '{base}/blog/api/v1/public/blogs' -H 'Authorization: Bearer {key}'");
    println!("curl -s '{base}/blog/api/v1/public/blogs/hello?api_key={key}'");
    println!("curl -s '{base}/blog/api/v1/public/blogs/sitemap?api_key={key}'");
    axum::serve(listener, app(service.clone()))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    service.stop().await;
    Ok(())
}
