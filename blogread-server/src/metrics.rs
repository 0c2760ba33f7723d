//! `GET /metrics`: the Prometheus text format, from the `metrics` facade that the server and
//! blogread-core record through, rendered by `metrics-exporter-prometheus` (no listener of its
//! own: the server's routes serve it).
//!
//! What it exports:
//!
//! - `blogread_http_requests_total{route, method, status}` and
//!   `blogread_http_request_duration_seconds{route, method, status}` (a histogram): every
//!   request, named by its route template (`/blog/api/v1/public/blogs/{slug}`), never by the
//!   concrete path; a path that matches no route is `route="unmatched"`.
//! - `blogread_response_cache_requests_total{result="hit"|"miss"}` (recorded by the core),
//!   `blogread_response_cache_bytes`, `blogread_response_cache_entries` and
//!   `blogread_response_cache_capacity_bytes`.
//! - `blogread_fragment_cache_fragments_total{result="hit"|"miss"}` (recorded by the core),
//!   `blogread_fragment_cache_bytes`, `blogread_fragment_cache_entries` and
//!   `blogread_fragment_cache_capacity_bytes`.
//! - `blogread_deploy_hook_firings_total{outcome, trigger}` (`success`, `failure`, or `unknown`
//!   for a firing a stopped server left in flight, found at the next start) and
//!   `blogread_deploy_hook_duration_seconds{outcome}` (recorded by the core).
//! - `blogread_store_errors_total{kind}` (recorded by the core's SQL stores; every kind of
//!   [`blogread_core::store::STORE_ERROR_KINDS`] is there from the start, at zero).
//! - `blogread_build_info{version, commit} 1`.
//!
//! Who may read it: the operator (`Authorization: Bearer <operator token>`, decided by the
//! core like every operator operation), or anyone who reaches the separate address of
//! `--metrics-listen` ([`metrics_app`]), which serves nothing else.
//!
//! The recorder is process-wide (the facade has one global recorder): installed by the first
//! [`handle`] call; every server of the process exports into it.

use std::sync::OnceLock;
use std::time::Duration;

use blogread_core::Service;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use poem::http::{StatusCode, header};
use poem::{Endpoint, EndpointExt, IntoResponse, Request, Response, Route};

use crate::build_info;
use crate::error::ApiError;

/// The content type of the Prometheus text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Histogram buckets of request latencies, in seconds (0.5 ms to 10 s).
const REQUEST_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Histogram buckets of deploy hook latencies, in seconds (up to the notifier's time-out).
const HOOK_BUCKETS: &[f64] = &[0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// How often histogram samples are folded into their buckets when nobody scrapes (so that
/// they never pile up in memory).
pub const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// The handle that renders what the process recorded, installing the recorder on first use.
/// When another global recorder was installed first (an embedding program's), the handle
/// renders only the build info.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new()
            .set_buckets(REQUEST_BUCKETS)
            .and_then(|b| {
                b.set_buckets_for_metric(
                    Matcher::Full("blogread_deploy_hook_duration_seconds".to_owned()),
                    HOOK_BUCKETS,
                )
            })
            .expect("the bucket lists are not empty");
        let handle = match builder.install_recorder() {
            Ok(handle) => handle,
            Err(err) => {
                tracing::warn!(error = %err, "/metrics cannot install its recorder; it exports the build info only");
                PrometheusBuilder::new().build_recorder().handle()
            }
        };
        describe();
        // Counters the core records only when something goes wrong: present at zero from the
        // start, so a healthy server shows the series (with HELP and TYPE) and a rate over it
        // works from the first scrape.
        for kind in blogread_core::store::STORE_ERROR_KINDS {
            metrics::counter!("blogread_store_errors_total", "kind" => kind).increment(0);
        }
        metrics::gauge!(
            "blogread_build_info",
            "version" => build_info::VERSION,
            "commit" => build_info::COMMIT
        )
        .set(1.0);
        handle
    })
}

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "blogread_http_requests_total",
        "HTTP requests answered, by route template, method and status."
    );
    describe_histogram!(
        "blogread_http_request_duration_seconds",
        Unit::Seconds,
        "Time to answer an HTTP request, by route template, method and status."
    );
    describe_counter!(
        "blogread_response_cache_requests_total",
        "Public reads answered from the response cache (hit) or computed (miss)."
    );
    describe_gauge!(
        "blogread_response_cache_bytes",
        Unit::Bytes,
        "Bytes held by the response cache (bodies, keys and bookkeeping)."
    );
    describe_gauge!(
        "blogread_response_cache_entries",
        "Responses held by the response cache."
    );
    describe_gauge!(
        "blogread_response_cache_capacity_bytes",
        Unit::Bytes,
        "The byte bound of the response cache (0 when it is off)."
    );
    describe_counter!(
        "blogread_fragment_cache_fragments_total",
        "Posts of public reads answered from the fragment cache (hit) or read and serialised (miss)."
    );
    describe_gauge!(
        "blogread_fragment_cache_bytes",
        Unit::Bytes,
        "Bytes held by the fragment cache (serialised posts and bookkeeping)."
    );
    describe_gauge!(
        "blogread_fragment_cache_entries",
        "Serialised posts held by the fragment cache."
    );
    describe_gauge!(
        "blogread_fragment_cache_capacity_bytes",
        Unit::Bytes,
        "The byte bound of the fragment cache (0 when it is off)."
    );
    describe_counter!(
        "blogread_deploy_hook_firings_total",
        "Deploy hook firings, by outcome (success, failure; unknown: the server stopped while one was in flight) and trigger."
    );
    describe_histogram!(
        "blogread_deploy_hook_duration_seconds",
        Unit::Seconds,
        "Time a deploy hook firing took, by outcome."
    );
    describe_counter!(
        "blogread_store_errors_total",
        "Database errors, by kind (disk_full, busy, unreachable, failure, corrupt)."
    );
    describe_gauge!(
        "blogread_build_info",
        "Always 1; the labels say the version and the git commit of the server."
    );
}

/// Folds histogram samples into their buckets every [`UPKEEP_INTERVAL`], forever (the server
/// runs it beside itself and aborts it at the end).
pub async fn upkeep() {
    let handle = handle();
    let mut tick = tokio::time::interval(UPKEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        handle.run_upkeep();
    }
}

/// Records one answered request (the request log calls it for every request).
pub fn record_request(
    route: &'static str,
    method: &poem::http::Method,
    status: StatusCode,
    seconds: f64,
) {
    let method = method_label(method);
    let status = status.as_u16();
    REQUEST_HANDLES.with_borrow_mut(|handles| {
        let (counter, histogram) = handles.entry((route, method, status)).or_insert_with(|| {
            let status = status.to_string();
            (
                metrics::counter!(
                    "blogread_http_requests_total",
                    "route" => route,
                    "method" => method,
                    "status" => status.clone()
                ),
                metrics::histogram!(
                    "blogread_http_request_duration_seconds",
                    "route" => route,
                    "method" => method,
                    "status" => status
                ),
            )
        });
        counter.increment(1);
        histogram.record(seconds);
    });
}

/// The request metrics' handles by route, method and status.
type RequestHandles = std::collections::HashMap<
    (&'static str, &'static str, u16),
    (metrics::Counter, metrics::Histogram),
>;

thread_local! {
    /// Each thread's handles of the request metrics, registered once per route, method and
    /// status (each a label set the server bounds: the route table's templates, eight
    /// methods, the statuses it answers), rather than looked up by their labels on every
    /// request: the look-up (a key of three labels made, hashed and found) was a visible part
    /// of a served image's cost.
    static REQUEST_HANDLES: std::cell::RefCell<RequestHandles> = Default::default();
}

/// The method as a label: the standard ones by name, anything else as `other` (a client
/// cannot grow the label set).
fn method_label(method: &poem::http::Method) -> &'static str {
    use poem::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// The Prometheus text of everything recorded, with the gauges of `service`'s response and
/// fragment caches read now.
pub fn render(service: &Service) -> String {
    let handle = handle();
    let cache = service.responses();
    metrics::gauge!("blogread_response_cache_bytes").set(cache.bytes() as f64);
    metrics::gauge!("blogread_response_cache_entries").set(cache.len() as f64);
    metrics::gauge!("blogread_response_cache_capacity_bytes").set(cache.capacity_bytes() as f64);
    let fragments = service.fragments();
    metrics::gauge!("blogread_fragment_cache_bytes").set(fragments.bytes() as f64);
    metrics::gauge!("blogread_fragment_cache_entries").set(fragments.len() as f64);
    metrics::gauge!("blogread_fragment_cache_capacity_bytes")
        .set(fragments.capacity_bytes() as f64);
    handle.render()
}

fn text_response(service: &Service) -> Response {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, CONTENT_TYPE)
        .body(render(service))
}

/// `GET /metrics` on the API's address: for the operator only.
pub(crate) fn guarded_endpoint(service: Service) -> impl Endpoint<Output = Response> + 'static {
    poem::endpoint::make(move |req: Request| {
        let service = service.clone();
        async move {
            let caller = blogread_core::auth::Caller::from_authorization(
                req.headers()
                    .get(header::AUTHORIZATION)
                    .map(|v| v.as_bytes()),
            );
            match service.authorize_operator(&caller).await {
                Ok(()) => text_response(&service),
                Err(err) => ApiError::from(err).into_response(),
            }
        }
    })
}

/// The application of `--metrics-listen`: `GET /metrics` for anyone who reaches the address
/// (keep it private: a loopback or internal address), and nothing else.
pub fn metrics_app(service: Service) -> impl Endpoint<Output = Response> + 'static {
    let metrics = poem::endpoint::make_sync(move |_req: Request| text_response(&service));
    Route::new()
        .at("/metrics", poem::get(metrics))
        .map_to_response()
        .with(crate::middleware::ErrorShape::new(
            crate::routes::RouteTable::default(),
        ))
        .map_to_response()
}
