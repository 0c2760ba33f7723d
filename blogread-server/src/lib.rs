//! # blogread-server
//!
//! The reference server of blogread: it turns [`blogread_core`] into a running service that
//! answers the public read API (`/blog/api/v1/public`), the deploy hook endpoints and the
//! management API (`/api/v1`) over poem and poem-openapi, and serves the admin pages
//! (`/admin/`, see [`admin`]). Handlers are HTTP in, one core call,
//! HTTP out; every rule lives in the core.
//!
//! [`app`] builds the endpoint, [`run`] serves it on a listener until a shutdown future
//! resolves (tests bind `127.0.0.1:0` first, so they need no sleep), [`serve_metrics`] serves
//! `/metrics` alone on a second listener, and [`spec`] renders the OpenAPI document.
#![forbid(unsafe_code)]

pub mod admin;
pub mod api;
pub mod build_info;
pub mod config;
pub mod demo;
pub mod error;
pub mod metrics;
pub mod middleware;
pub mod request_id;
pub mod routes;
pub mod serve;
pub mod telemetry;

use std::future::Future;

use blogread_core::Service;
use poem::middleware::CatchPanic;
use poem::{Endpoint, EndpointExt, IntoResponse, Route};

pub use blogread_core as core;

pub use serve::{BODY_LIMIT, Limits, SHUTDOWN_GRACE};

/// The OpenAPI document as the server serves it at `/openapi.json`.
pub fn spec() -> String {
    let service = Service::new(std::sync::Arc::new(blogread_core::store::MemoryStore::new()));
    api::openapi_service(service).spec()
}

/// The whole HTTP application over `service`, the admin pages with default options;
/// `GET /metrics` (outside the API document) for the operator.
pub fn app(service: Service) -> impl Endpoint<Output = poem::Response> + 'static {
    app_with(service, admin::AdminOptions::default())
}

/// The whole HTTP application over `service`, the admin pages with `admin`'s options.
pub fn app_with(
    service: Service,
    admin: admin::AdminOptions,
) -> impl Endpoint<Output = poem::Response> + 'static {
    metrics::handle();
    let metrics = metrics::guarded_endpoint(service.clone());
    let api = api::openapi_service(service.clone());
    let spec = api.spec_endpoint();
    let docs = api.swagger_ui();
    // The API answers every error as JSON; the admin pages answer HTML of their own.
    let json_api = Route::new()
        .at("/openapi.json", spec)
        .at("/metrics", poem::get(metrics))
        .nest("/docs", docs)
        .nest("/", api)
        .with(middleware::ErrorShape::new(api::route_table()));
    Route::new()
        .nest("/admin", admin::routes(service, admin))
        .nest("/", json_api)
        .with(middleware::BodyLimit)
        .with(
            CatchPanic::new()
                .with_handler(|_| error::ApiError::internal(&Panicked).into_response()),
        )
        .with(telemetry::RequestLog::new(api::route_table()))
        .map_to_response()
}

#[derive(Debug)]
struct Panicked;

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a handler panicked")
    }
}

impl std::error::Error for Panicked {}

/// Serves [`app`] on `listener` within the default [`Limits`] until `shutdown` resolves: see
/// [`run_with_limits`].
pub async fn run(
    listener: tokio::net::TcpListener,
    service: Service,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    run_with_limits(listener, service, Limits::default(), shutdown).await
}

/// Serves [`app`] on `listener` within `limits` until `shutdown` resolves; then stops
/// accepting, lets in-flight requests finish (up to [`Limits::shutdown_grace`]), waits for
/// deploy hook firings in flight (at least the notifier's time-out plus 2 s), closes the store
/// and returns. At start it attempts the firings that writes recorded before the last stop and
/// nobody attempted. While it serves, the scheduler publishes scheduled blogs at their time
/// (at once for those whose time passed while no server ran) and fires the deploy hook.
pub async fn run_with_limits(
    listener: tokio::net::TcpListener,
    service: Service,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    run_with(
        listener,
        service,
        limits,
        admin::AdminOptions::default(),
        shutdown,
    )
    .await
}

/// [`run_with_limits`], with the admin pages' options (the server's public URL).
pub async fn run_with(
    listener: tokio::net::TcpListener,
    service: Service,
    limits: Limits,
    admin: admin::AdminOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    // Firings that writes recorded before the last stop and no process attempted.
    let resuming = service.clone();
    tokio::spawn(async move {
        if let Err(err) = resuming.resume_firings().await {
            tracing::error!(error = %crate::error::error_chain(&err), "could not resume recorded deploy hook firings");
        }
    });
    let scheduling = service.clone();
    let scheduler = tokio::spawn(async move { scheduling.run_scheduler().await });
    let upkeep = tokio::spawn(metrics::upkeep());
    let served = serve::serve(listener, app_with(service.clone(), admin), limits, shutdown).await;
    scheduler.abort();
    upkeep.abort();
    service.stop().await;
    served
}

/// Serves `GET /metrics` without authentication, and nothing else, on `listener` (the address
/// of `--metrics-listen`: keep it private) until `shutdown` resolves.
pub async fn serve_metrics(
    listener: tokio::net::TcpListener,
    service: Service,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    serve::serve(listener, metrics::metrics_app(service), limits, shutdown).await
}
