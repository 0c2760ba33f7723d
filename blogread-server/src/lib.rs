//! # blogread-server
//!
//! The reference server of blogread: it turns [`blogread_core`] into a running service that
//! answers the public read API (`/blog/api/v1/public`), the deploy hook endpoints and the
//! management API (`/api/v1`) over poem and poem-openapi, and serves the admin pages
//! (`/admin/`, see [`admin`]). Handlers are HTTP in, one core call,
//! HTTP out; every rule lives in the core.
//!
//! [`Server`] is the one entry point: [`Server::app`] builds the endpoint, [`Server::serve`]
//! serves it on a listener until a shutdown future resolves (tests bind `127.0.0.1:0` first,
//! so they need no sleep), [`Server::serve_metrics`] serves `/metrics` alone on a second
//! listener; [`spec`] renders the OpenAPI document.
#![forbid(unsafe_code)]

pub mod admin;
pub mod api;
pub mod body_pace;
pub mod build_info;
pub mod config;
pub mod demo;
pub mod error;
pub mod log_writer;
pub mod media_files;
pub mod metrics;
pub mod middleware;
pub mod open_files;
pub mod request_id;
pub mod routes;
mod send_file;
pub mod serve;
pub mod telemetry;
pub mod upload_places;

use std::future::Future;

use blogread_core::Service;
use poem::middleware::CatchPanic;
use poem::{Endpoint, EndpointExt, IntoResponse, Route};

pub use blogread_core as core;

pub use serve::{BODY_LIMIT, Limits, MEDIA_BODY_LIMIT, SHUTDOWN_GRACE};

/// The OpenAPI document as the server serves it at `/openapi.json`.
pub fn spec() -> String {
    let service = Service::new(std::sync::Arc::new(blogread_core::store::MemoryStore::new()));
    api::openapi_service(service).spec()
}

/// The server: the HTTP application over a [`Service`], with the admin pages' options and the
/// connection [`Limits`] (both default until set).
///
/// ```no_run
/// # async fn example(service: blogread_server::core::Service) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// blogread_server::Server::new(service)
///     .serve(listener, async { let _ = tokio::signal::ctrl_c().await; })
///     .await
/// # }
/// ```
#[derive(Clone)]
pub struct Server {
    service: Service,
    admin: admin::AdminOptions,
    limits: Limits,
}

impl Server {
    /// The server over `service`, with the default admin options and [`Limits`].
    pub fn new(service: Service) -> Self {
        Self {
            service,
            admin: admin::AdminOptions::default(),
            limits: Limits::default(),
        }
    }

    /// With the admin pages' options (the server's public URL).
    #[must_use]
    pub fn admin(mut self, options: admin::AdminOptions) -> Self {
        self.admin = options;
        self
    }

    /// With these connection limits.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The whole HTTP application: the API, its document (`/openapi.json`, `/docs`), the admin
    /// pages, and `GET /metrics` (outside the document) for the operator.
    pub fn app(&self) -> impl Endpoint<Output = poem::Response> + 'static {
        let service = self.service.clone();
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
            .nest("/admin", admin::routes(service.clone(), self.admin.clone()))
            .nest(
                media_files::MEDIA_PREFIX.trim_end_matches('/'),
                media_files::MediaFiles::new(service),
            )
            .nest("/", json_api)
            .with(middleware::BodyLimit::new(
                self.limits.max_uploads,
                self.service.clone(),
            ))
            .with(CatchPanic::new().with_handler(|_| error::ApiError::panicked().into_response()))
            .with(telemetry::RequestLog::new(api::route_table()))
            .map_to_response()
    }

    /// Serves [`Server::app`] on `listener` within the limits until `shutdown` resolves; then
    /// stops accepting, lets in-flight requests finish (up to [`Limits::shutdown_grace`]),
    /// waits for deploy hook firings in flight (at least the notifier's time-out plus 2 s),
    /// closes the store and returns. At start it attempts the firings that writes recorded
    /// before the last stop and nobody attempted. While it serves, the scheduler publishes
    /// scheduled blogs at their time (at once for those whose time passed while no server
    /// ran) and fires the deploy hook.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> std::io::Result<()> {
        let service = self.service.clone();
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
        let sweeping = service.clone();
        let sweep = tokio::spawn(async move { sweeping.run_media_sweep().await });
        let media = media_files::MediaFiles::new(service.clone());
        let served = serve::serve(listener, self.app(), Some(media), self.limits, shutdown).await;
        scheduler.abort();
        upkeep.abort();
        sweep.abort();
        service.stop().await;
        served
    }

    /// Serves `GET /metrics` without authentication, and nothing else, on `listener` (the
    /// address of `--metrics-listen`: keep it private) within the limits until `shutdown`
    /// resolves.
    pub async fn serve_metrics(
        &self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> std::io::Result<()> {
        let app = metrics::metrics_app(self.service.clone());
        serve::serve(
            listener,
            app,
            None::<media_files::MediaFiles>,
            self.limits.clone(),
            shutdown,
        )
        .await
    }
}
