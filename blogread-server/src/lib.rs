//! # blogread-server
//!
//! The reference server of blogread: it turns [`blogread_core`] into a running service that
//! answers the public read API (`/blog/api/v1/public`), the deploy hook endpoints and the
//! management API (`/api/v1`) over poem and poem-openapi. Handlers are HTTP in, one core call,
//! HTTP out; every rule lives in the core.
//!
//! [`app`] builds the endpoint, [`run`] serves it on a listener until a shutdown future
//! resolves (tests bind `127.0.0.1:0` first, so they need no sleep), and [`spec`] renders the
//! OpenAPI document.
#![forbid(unsafe_code)]

pub mod api;
pub mod config;
pub mod demo;
pub mod error;
pub mod telemetry;

use std::future::Future;
use std::time::Duration;

use blogread_core::Service;
use poem::listener::TcpAcceptor;
use poem::middleware::CatchPanic;
use poem::{Endpoint, EndpointExt, IntoResponse, Route, Server};

pub use blogread_core as core;

/// Largest request body accepted (DECISIONS.md 1): 4 MiB.
pub const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// How long in-flight requests may take to finish once shutdown starts.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The OpenAPI document as the server serves it at `/openapi.json`.
pub fn spec() -> String {
    let service = Service::new(std::sync::Arc::new(blogread_core::store::MemoryStore::new()));
    api::openapi_service(service).spec()
}

/// The whole HTTP application over `service`.
pub fn app(service: Service) -> impl Endpoint<Output = poem::Response> + 'static {
    let api = api::openapi_service(service);
    let spec = api.spec_endpoint();
    let docs = api.swagger_ui();
    Route::new()
        .at("/openapi.json", spec)
        .nest("/docs", docs)
        .nest("/", api)
        .with(error::BodyLimit)
        .with(
            CatchPanic::new()
                .with_handler(|_| error::ApiError::internal(&Panicked).into_response()),
        )
        .with(error::ErrorShape::new(api::RouteTable::from_apis()))
        .with(telemetry::RequestLog)
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

/// Serves [`app`] on `listener` until `shutdown` resolves; then stops accepting, lets
/// in-flight requests finish (up to [`SHUTDOWN_GRACE`]), waits for deploy hook firings in
/// flight (at least the notifier's time-out plus 2 s), closes the store and returns. At start
/// it attempts the firings that writes recorded before the last stop and nobody attempted.
pub async fn run(
    listener: tokio::net::TcpListener,
    service: Service,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    // Firings that writes recorded before the last stop and no process attempted.
    let resuming = service.clone();
    tokio::spawn(async move {
        if let Err(err) = resuming.resume_firings().await {
            tracing::error!(error = %crate::error::error_chain(&err), "could not resume recorded deploy hook firings");
        }
    });
    let acceptor = TcpAcceptor::from_tokio(listener)?;
    let served = Server::new_with_acceptor(acceptor)
        .run_with_graceful_shutdown(app(service.clone()), shutdown, Some(SHUTDOWN_GRACE))
        .await;
    service.stop().await;
    served
}
