//! Logs: a `tracing` subscriber set up once (human-readable or JSON), a request id per request,
//! and one log line per request named by its route template
//! (`GET /blog/api/v1/public/blogs/{slug} -> 200`), with the request target as a field (every
//! credential in it cut to its first 12 characters), the status and the duration; the same
//! request is counted in the metrics under the same template (see [`crate::metrics`]).

use std::io::IsTerminal;
use std::time::Instant;

use poem::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};
use tracing_subscriber::EnvFilter;

use crate::log_writer::Batched;
pub use crate::log_writer::LOG_FLUSH_INTERVAL;
use crate::request_id::{REQUEST_ID, X_REQUEST_ID, new_request_id};
use crate::routes::RouteTable;

/// The default filter when `RUST_LOG` is not set.
pub const DEFAULT_FILTER: &str = "info";

/// Lines the log buffer holds before a request thread waits for the writer: what a crash
/// (SIGKILL, a power cut) can lose at most, with the batch being gathered (at most
/// [`LOG_WRITE_BUFFER_BYTES`]). A clean exit loses none.
pub const LOG_BUFFER_LINES: usize = 8192;

/// The bytes the writer gathers from the queue before writing them to stderr (it also writes
/// when the queue is empty, at most every [`LOG_FLUSH_INTERVAL`]).
pub const LOG_WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// Keeps the log writer running: drop it at exit (after the last line), which writes every
/// buffered line out before it returns.
#[must_use = "the log writer stops, losing buffered lines, when this is dropped"]
pub struct LogGuard {
    /// Flushes the queue when dropped.
    _writer: Option<tracing_appender::non_blocking::WorkerGuard>,
}

/// Installs the global subscriber: `RUST_LOG` (default `info`), human output or JSON lines,
/// written to stderr by a worker thread through a buffer of [`LOG_BUFFER_LINES`] lines (a
/// request thread formats its line and queues it; it waits only when the buffer is full, so no
/// line is dropped), in batches of what is queued (one write per batch, at most one every
/// [`LOG_FLUSH_INTERVAL`]: a line reaches stderr within two of them). Calling it twice is
/// harmless (the second call does nothing).
pub fn init(json: bool) -> LogGuard {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_BUFFER_LINES)
        .lossy(false)
        .thread_name("blogread-log")
        // Batched: the writer empties the queue into this buffer and writes it out at most
        // every LOG_FLUSH_INTERVAL (or when full), so a busy server makes one write per batch
        // of lines instead of one per line.
        .finish(Batched::new(
            std::io::stderr(),
            LOG_WRITE_BUFFER_BYTES,
            LOG_FLUSH_INTERVAL,
        ));
    // Colours only for a person at a terminal: escape codes in a log file or pipe are noise,
    // and writing them cost about 5% of the server's CPU per request under load.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(writer);
    let installed = if json {
        builder.json().flatten_event(true).try_init()
    } else {
        builder.try_init()
    };
    LogGuard {
        _writer: installed.is_ok().then_some(guard),
    }
}

pub use crate::request_id::current_request_id;

/// The prefixes of the credentials that a request target may carry.
const CREDENTIAL_PREFIXES: [&[u8]; 3] = [b"pk_live_", b"sk_agent_", b"sk_admin_"];

/// The request target (path and query) as logs may show it: every `pk_live_`, `sk_agent_` or
/// `sk_admin_` value anywhere in it (under any parameter name, or in the path; percent-encoded
/// or not) is cut to its first 12 characters, followed by `…`. Everything else is kept as sent.
/// Linear in the target's length.
pub fn redacted_target(path: &str, query: Option<&str>) -> String {
    let target = match query {
        Some(query) => format!("{path}?{query}"),
        None => path.to_owned(),
    };
    // Nearly every target has no escape and no credential: then nothing is cut, and the
    // decoding walk below (two buffers as long as the target) would find nothing.
    if !target.contains('%') && !CREDENTIAL_PREFIXES.iter().any(|p| contains(&target, p)) {
        return target;
    }
    redacted_escaped(target)
}

/// Whether `text` holds `bytes`.
fn contains(text: &str, bytes: &[u8]) -> bool {
    text.as_bytes().windows(bytes.len()).any(|w| w == bytes)
}

/// [`redacted_target`] of a target that may hold escapes or credentials: the whole walk.
fn redacted_escaped(target: String) -> String {
    // The target decoded (`%XX` escapes), each decoded byte with the raw offset where it starts,
    // so that an encoded credential (`pk%5Flive_...`) is found and cut in the raw text too.
    let raw = target.as_bytes();
    let mut decoded = Vec::with_capacity(raw.len());
    let mut starts = Vec::with_capacity(raw.len() + 1);
    let mut i = 0;
    while i < raw.len() {
        starts.push(i);
        match (raw[i], hex_value(raw.get(i + 1)), hex_value(raw.get(i + 2))) {
            (b'%', Some(hi), Some(lo)) => {
                decoded.push(hi << 4 | lo);
                i += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    starts.push(raw.len());

    // Raw byte ranges to replace with `…`.
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut d = 0;
    while d < decoded.len() {
        let Some(prefix) = CREDENTIAL_PREFIXES
            .iter()
            .find(|prefix| decoded[d..].starts_with(prefix))
        else {
            d += 1;
            continue;
        };
        let mut end = d + prefix.len();
        while end < decoded.len() && is_credential_byte(decoded[end]) {
            end += 1;
        }
        let kept = d + LOGGED_CREDENTIAL_CHARS;
        if end > kept {
            cuts.push((starts[kept], starts[end]));
        }
        d = end;
    }
    if cuts.is_empty() {
        return target;
    }
    let mut out = String::with_capacity(target.len());
    let mut from = 0;
    for (cut_start, cut_end) in cuts {
        out.push_str(&target[from..cut_start]);
        out.push('…');
        from = cut_end;
    }
    out.push_str(&target[from..]);
    out
}

/// How many characters of a credential logs may show (the prefix and a few more).
const LOGGED_CREDENTIAL_CHARS: usize = 12;

/// A character of a credential: the prefix's and URL-safe base64's.
fn is_credential_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn hex_value(b: Option<&u8>) -> Option<u8> {
    match b? {
        b @ b'0'..=b'9' => Some(b - b'0'),
        b @ b'a'..=b'f' => Some(b - b'a' + 10),
        b @ b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Gives each request an id (answered as `X-Request-Id`), logs one line per request and
/// records it in the metrics, both under its route template in the given table.
pub struct RequestLog {
    routes: RouteTable,
}

impl RequestLog {
    /// Names requests by the templates of `routes`.
    pub fn new(routes: RouteTable) -> Self {
        Self { routes }
    }
}

impl<E: Endpoint> Middleware<E> for RequestLog {
    type Output = RequestLogEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        RequestLogEndpoint {
            inner: ep,
            routes: self.routes,
        }
    }
}

/// The endpoint of [`RequestLog`].
pub struct RequestLogEndpoint<E> {
    inner: E,
    routes: RouteTable,
}

impl<E: Endpoint> Endpoint for RequestLogEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let route = self.routes.template(req.uri().path());
        let logged = LoggedRequest::begin(req.method(), req.uri(), route);
        let result = REQUEST_ID
            .scope(logged.id.clone(), self.inner.call(req))
            .await;
        let mut resp = match result {
            Ok(resp) => resp.into_response(),
            Err(err) => err.into_response(),
        };
        logged.end(resp.status(), resp.headers_mut());
        Ok(resp)
    }
}

/// One request as the request log and the metrics see it, from its head to its answer: what
/// [`RequestLog`] does around every request of the application, and the direct path of the
/// stored images (`media_files`) around its own.
pub(crate) struct LoggedRequest {
    start: Instant,
    /// The request's id, answered as `X-Request-Id`.
    pub(crate) id: String,
    method: Method,
    route: &'static str,
    /// The redacted target, when the log line will be written.
    target: Option<String>,
}

impl LoggedRequest {
    /// A request with this method and target, named by `route` (its template), arriving now.
    pub(crate) fn begin(method: &Method, uri: &Uri, route: &'static str) -> Self {
        Self {
            start: Instant::now(),
            id: new_request_id(),
            method: method.clone(),
            route,
            target: tracing::enabled!(target: "blogread::http", tracing::Level::INFO)
                .then(|| redacted_target(uri.path(), uri.query())),
        }
    }

    /// The request was answered `status`: its id goes into the answer's `headers`, its line
    /// into the log, its count and duration into the metrics.
    pub(crate) fn end(self, status: StatusCode, headers: &mut HeaderMap) {
        if let Ok(v) = HeaderValue::from_str(&self.id) {
            headers.insert(X_REQUEST_ID, v);
        }
        let seconds = self.start.elapsed().as_secs_f64();
        crate::metrics::record_request(self.route, &self.method, status, seconds);
        let status = status.as_u16();
        let duration_ms = (seconds * 100_000.0).round() / 100.0;
        if let Some(target) = self.target {
            let (id, route, method) = (self.id, self.route, self.method);
            tracing::info!(
                target: "blogread::http",
                request_id = %id,
                route,
                uri = %target,
                status,
                duration_ms,
                "{method} {route} -> {status}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "pk_live_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";

    proptest::proptest! {
        /// The shortcut for targets without an escape or a credential gives what the whole
        /// walk gives, for any target.
        #[test]
        fn the_shortcut_redacts_as_the_whole_walk_does(
            path in "(/|[a-z_%0-9A-F]|pk_live_|sk_agent_|sk_admin_|%5F)*",
            query in proptest::option::of("([a-z=&_%0-9]|pk_live_|sk_admin_)*"),
        ) {
            let target = match &query {
                Some(q) => format!("{path}?{q}"),
                None => path.clone(),
            };
            proptest::prop_assert_eq!(
                redacted_target(&path, query.as_deref()),
                redacted_escaped(target)
            );
        }
    }

    #[test]
    fn api_key_is_cut_to_12_characters() {
        let p = redacted_target(
            "/blog/api/v1/public/blogs",
            Some(&format!("limit=5&api_key={KEY}&offset=1")),
        );
        assert_eq!(
            p,
            "/blog/api/v1/public/blogs?limit=5&api_key=pk_live_abcd…&offset=1"
        );
    }

    #[test]
    fn a_credential_under_any_parameter_name_is_cut() {
        for name in ["key", "API_KEY", "token", "x"] {
            let p = redacted_target("/x", Some(&format!("{name}={KEY}")));
            assert_eq!(p, format!("/x?{name}=pk_live_abcd…"));
        }
        let agent = "sk_agent_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
        let admin = "sk_admin_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
        assert_eq!(
            redacted_target("/x", Some(&format!("a={agent}&b={admin}"))),
            "/x?a=sk_agent_AAA…&b=sk_admin_BBB…"
        );
    }

    #[test]
    fn a_credential_in_the_path_is_cut() {
        let p = redacted_target(&format!("/blog/api/v1/public/blogs/{KEY}"), None);
        assert_eq!(p, "/blog/api/v1/public/blogs/pk_live_abcd…");
        let p = redacted_target(&format!("/a/{KEY}/b"), Some("c=1"));
        assert_eq!(p, "/a/pk_live_abcd…/b?c=1");
    }

    #[test]
    fn a_percent_encoded_credential_is_cut_in_the_raw_text() {
        let encoded = KEY.replace('_', "%5F");
        let p = redacted_target("/x", Some(&format!("key={encoded}")));
        assert_eq!(p, "/x?key=pk%5Flive%5Fabcd…");
    }

    #[test]
    fn short_values_and_ordinary_targets_are_kept() {
        assert_eq!(redacted_target("/healthz", None), "/healthz");
        assert_eq!(redacted_target("/x", Some("a=1&b")), "/x?a=1&b");
        assert_eq!(
            redacted_target("/x", Some("key=pk_live_ab")),
            "/x?key=pk_live_ab"
        );
        assert_eq!(redacted_target("/%zz%", Some("%")), "/%zz%?%");
    }
}
