//! The HTTP server: hyper (through hyper-util, HTTP/1.1 and HTTP/2 on one port) serving the
//! poem application, with the limits that keep a hostile client from holding the server.
//!
//! poem's own server hides the knobs these limits need, so connections are served here with
//! poem as the service, not by a server written anew:
//!
//! - **Request head time-out** ([`Limits::header_timeout`], 10 s): from the first byte a client
//!   sends while no request of its connection is in progress, a whole request head must arrive
//!   within the time-out, or the connection is closed. A client that trickles a head one byte a
//!   second is cut off; a keep-alive connection waiting quietly between requests is not.
//! - **Idle time-out** ([`Limits::idle_timeout`], 60 s): a connection with no request in
//!   progress and no bytes in either direction for this long is closed (HTTP/2: with GOAWAY).
//! - **Request head size** ([`Limits::max_head_bytes`], 16 KiB): a larger HTTP/1.1 head is
//!   answered 431 by the protocol layer and the connection closed; HTTP/2 advertises the same
//!   header list size and answers 431.
//! - **HTTP/2 streams** ([`Limits::http2_max_streams`], 128): advertised as
//!   `SETTINGS_MAX_CONCURRENT_STREAMS`.
//! - **Connections** ([`Limits::max_connections`], 10,000): past the cap, new connections are
//!   not accepted and wait in the kernel's backlog until one closes.
//! - **Request body pace** ([`Limits::body_pace`]: no pause over 30 s, at least 4 KiB/s on
//!   average): a body that stops or trickles is cut off, its request answered 408
//!   ([`crate::body_pace`]).
//!
//! A [`Shortcut`] answers some requests before they become poem requests (the served images),
//! and an HTTP/1 answer whose body is a file read whole is sent from that file (`send_file`).
//!
//! Request bodies are capped by the application ([`BODY_LIMIT`], enforced by
//! [`crate::middleware::BodyLimit`]), for every protocol and framing.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use blogread_core::media::SameFile;
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use poem::http::uri::Scheme;
use poem::web::{LocalAddr, RemoteAddr};
use poem::{Addr, Endpoint, Response};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::body_pace::{BodyPace, PacedBody, SlowBody};
use crate::send_file::SendSlot;

/// Default for [`Limits::header_timeout`]: 10 s.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default for [`Limits::idle_timeout`]: 60 s.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default for [`Limits::max_head_bytes`]: 16 KiB.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Default for [`Limits::http2_max_streams`]: 128.
pub const HTTP2_MAX_STREAMS: u32 = 128;
/// Default for [`Limits::max_connections`]: 10,000.
pub const MAX_CONNECTIONS: usize = 10_000;
const _: () = assert!(MAX_CONNECTIONS <= u32::MAX as usize);
/// Default for [`Limits::shutdown_grace`]: 10 s.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Largest request body accepted, whatever the protocol or framing: 4 MiB (but for image
/// uploads: [`MEDIA_BODY_LIMIT`]).
pub const BODY_LIMIT: usize = 4 * 1024 * 1024;
/// Largest body of an image upload, whatever the protocol or framing: 20 MiB.
pub const MEDIA_BODY_LIMIT: usize = blogread_core::media::MAX_UPLOAD_BYTES;

/// The body cap [`crate::middleware::BodyLimit`] gave a request, in its extensions: a handler
/// or middleware that reads the body itself (the admin pages' form guard) reads no further
/// than this. (Here, beside the caps, so that readers of the body need not depend on the
/// middleware, which depends on the admin pages.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyCap(pub usize);

/// The smallest head cap hyper accepts (its minimum read buffer).
const MIN_HEAD_BYTES: usize = 8 * 1024;

/// What one server allows its clients; [`Limits::default`] holds the documented defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// How long a request head may take to arrive, from its first byte.
    pub header_timeout: Duration,
    /// How long a connection may sit with no request in progress and no traffic.
    pub idle_timeout: Duration,
    /// The largest request head, in bytes (HTTP/1.1 head; HTTP/2 header list). At least 8 KiB:
    /// smaller values are raised to that.
    pub max_head_bytes: usize,
    /// HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`.
    pub http2_max_streams: u32,
    /// Connections served at once; more wait in the kernel's backlog. At least 1.
    pub max_connections: usize,
    /// How long requests in progress may take to finish once shutdown starts.
    pub shutdown_grace: Duration,
    /// Image uploads in progress at once (reading their body, waiting for or taking their
    /// turn at processing), at most half of them (rounded up) for one project; past it an
    /// upload is answered 503 with `Retry-After`. At least 1.
    /// Each holds at most [`MEDIA_BODY_LIMIT`] of body, so this bounds uploads' memory.
    pub max_uploads: usize,
    /// The pace every request body must keep, or be cut off (408).
    pub body_pace: BodyPace,
}

/// Default for [`Limits::max_uploads`]: two per core (one processing, one waiting).
pub fn default_max_uploads() -> usize {
    2 * std::thread::available_parallelism().map_or(1, usize::from)
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: HEADER_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            max_head_bytes: MAX_HEAD_BYTES,
            http2_max_streams: HTTP2_MAX_STREAMS,
            max_connections: MAX_CONNECTIONS,
            shutdown_grace: SHUTDOWN_GRACE,
            max_uploads: default_max_uploads(),
            body_pace: BodyPace::default(),
        }
    }
}

/// A way around the application for some requests, taken before a request becomes a poem
/// request (the server's is the served images' direct path,
/// `media_files::MediaFiles`): what it takes skips poem's request conversion, routing and
/// middleware, so it must give its answers what that middleware would.
pub trait Shortcut: Send + Sync + 'static {
    /// Whether this answers `req` rather than the application.
    fn takes(&self, req: &hyper::Request<Incoming>) -> bool;

    /// The answer to `req`, one [`Shortcut::takes`], and when its body is a file's bytes
    /// read whole, that file (an HTTP/1 answer is then sent from it: see `send_file`).
    fn answer(
        &self,
        req: &hyper::Request<Incoming>,
    ) -> impl Future<Output = (Response, Option<SameFile>)> + Send;
}

/// Serves `app` on `listener` within `limits` until `shutdown` resolves; then stops accepting,
/// asks every connection to close once its requests are answered (HTTP/2: GOAWAY), waits for
/// them up to [`Limits::shutdown_grace`] and returns. With a `shortcut`, the requests it takes
/// are answered by it rather than by `app`.
pub async fn serve<E, S>(
    listener: TcpListener,
    app: E,
    shortcut: Option<S>,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()>
where
    E: Endpoint<Output = Response> + 'static,
    S: Shortcut,
{
    let local = listener.local_addr()?;
    let app = Arc::new(app);
    let shortcut = shortcut.map(Arc::new);
    let limits = Arc::new(limits);
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let (stop, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        // Reap finished connections so the set holds only live ones.
        while connections.try_join_next().is_some() {}
        let permit = tokio::select! {
            biased;
            () = &mut shutdown => break,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_closed) => break,
            },
        };
        let (stream, remote) = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    accept_failed(&err).await;
                    continue;
                }
            },
        };
        connections.spawn(serve_connection(Connection {
            stream,
            local,
            remote,
            app: app.clone(),
            shortcut: shortcut.clone(),
            limits: limits.clone(),
            stopping: stopping.clone(),
            _permit: permit,
        }));
    }
    drop(listener);
    let _ = stop.send(true);
    let drained = tokio::time::timeout(limits.shutdown_grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            open = connections.len(),
            "connections still busy after the shutdown grace period: closing them"
        );
        connections.abort_all();
    }
    Ok(())
}

/// Holds `req`'s body to `pace`, with its [`SlowBody`] in the request's extensions.
fn paced(req: &mut poem::Request, pace: BodyPace) {
    let slow = SlowBody::new(pace);
    let body = PacedBody::new(req.take_body().into(), slow.clone());
    req.set_body(poem::Body::from(BoxBody::new(body)));
    req.extensions_mut().insert(slow);
}

/// An accept that failed: out of file descriptors (wait a little, other connections will
/// close) or a connection reset before it was accepted (go on).
async fn accept_failed(err: &io::Error) {
    let out_of_descriptors = matches!(err.raw_os_error(), Some(23 | 24)); // ENFILE, EMFILE
    if out_of_descriptors {
        tracing::warn!(error = %err, "cannot accept connections: out of file descriptors; retrying in 100 ms");
        tokio::time::sleep(Duration::from_millis(100)).await;
    } else {
        tracing::debug!(error = %err, "accepting a connection failed");
    }
}

/// What one connection's task holds.
struct Connection<E, S> {
    stream: TcpStream,
    local: SocketAddr,
    remote: SocketAddr,
    app: Arc<E>,
    /// The way around `app`, if the server has one.
    shortcut: Option<Arc<S>>,
    limits: Arc<Limits>,
    stopping: watch::Receiver<bool>,
    /// Returned to the connection cap when the task ends.
    _permit: OwnedSemaphorePermit,
}

/// Why a connection's watch closes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expiry {
    /// A request head did not arrive in time.
    Head,
    /// Nothing happened for the idle time-out.
    Idle,
}

async fn serve_connection<E, S>(connection: Connection<E, S>)
where
    E: Endpoint<Output = Response> + 'static,
    S: Shortcut,
{
    let Connection {
        stream,
        local,
        remote,
        app,
        shortcut,
        limits,
        mut stopping,
        _permit,
    } = connection;
    let activity = Arc::new(Activity::new(limits.header_timeout));
    let send_slot = Arc::new(SendSlot::default());
    let local_addr = LocalAddr(Addr::SocketAddr(local));
    let remote_addr = RemoteAddr(Addr::SocketAddr(remote));
    let pace = limits.body_pace;
    let service = hyper::service::service_fn({
        let activity = activity.clone();
        let send_slot = send_slot.clone();
        move |req: hyper::Request<Incoming>| {
            let request = activity.begin_request();
            let app = app.clone();
            let shortcut = shortcut.clone().filter(|s| s.takes(&req));
            let local_addr = local_addr.clone();
            let remote_addr = remote_addr.clone();
            let send_slot = send_slot.clone();
            async move {
                let resp: hyper::Response<BoxBody<Bytes, io::Error>> = match shortcut {
                    Some(shortcut) => {
                        let (resp, same_file) = shortcut.answer(&req).await;
                        if let Some(same_file) = same_file
                            && req.version() <= hyper::Version::HTTP_11
                        {
                            send_slot.set(same_file);
                        }
                        resp.into()
                    }
                    None => {
                        let has_body = !hyper::body::Body::is_end_stream(req.body());
                        let mut req: poem::Request =
                            (req, local_addr, remote_addr, Scheme::HTTP).into();
                        if has_body {
                            paced(&mut req, pace);
                        }
                        app.get_response(req).await.into()
                    }
                };
                // The request stays in progress until its answer is sent or dropped.
                Ok::<_, Infallible>(resp.map(|body| InProgress {
                    body,
                    _request: request,
                }))
            }
        }
    });

    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .max_buf_size(limits.max_head_bytes.max(MIN_HEAD_BYTES));
    builder
        .http2()
        .max_concurrent_streams(limits.http2_max_streams)
        .max_header_list_size(u32::try_from(limits.max_head_bytes).unwrap_or(u32::MAX));
    // As nginx's `tcp_nodelay`: an answer's last segment leaves at once, without waiting for
    // the acknowledgement of the one before (which a client may delay by 40 ms).
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%remote, error = %e, "TCP_NODELAY not set");
    }
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
        send_slot,
    });
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);

    let mut closing = false;
    let mut hard_deadline: Option<Instant> = None;
    // One timer for the connection, moved only when its deadline changes.
    let sleep = tokio::time::sleep_until(activity.arm(&limits));
    tokio::pin!(sleep);
    loop {
        // Closing after the idle time-out, only the hard deadline is left to watch.
        let deadline = hard_deadline.unwrap_or_else(|| activity.arm(&limits));
        if sleep.deadline() != deadline {
            sleep.as_mut().reset(deadline);
        }
        tokio::select! {
            served = conn.as_mut() => {
                if let Err(err) = served {
                    tracing::debug!(%remote, error = %err, "connection ended with an error");
                }
                return;
            }
            changed = stopping.changed(), if !closing => {
                if changed.is_ok() {
                    closing = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
            () = activity.changed() => {}
            () = sleep.as_mut() => {
                let now = Instant::now();
                if hard_deadline.is_some_and(|hard| hard <= now) {
                    tracing::debug!(%remote, "closing a connection that did not close after GOAWAY");
                    return;
                }
                match activity.expired(&limits, now) {
                    Some(Expiry::Head) => {
                        tracing::debug!(%remote, "closing a connection: no request head within the header time-out");
                        return;
                    }
                    Some(Expiry::Idle) if !closing => {
                        closing = true;
                        hard_deadline = Some(now + limits.header_timeout);
                        conn.as_mut().graceful_shutdown();
                    }
                    _ => {}
                }
            }
        }
    }
}

/// What a connection's watch knows: requests in progress, when the bytes of a head started,
/// the last traffic.
///
/// The watch sleeps until the deadline it last set ([`Activity::arm`]), then looks again: a
/// deadline that moved later since costs nothing but that look (it sets the new one), so the
/// watch is woken only when a deadline moves earlier than the one set: a head starting while
/// the watch sleeps until the idle time-out. On a busy keep-alive connection that is at most
/// once per header time-out, not twice per request (each wake re-polled the connection).
struct Activity {
    state: Mutex<ActivityState>,
    /// Wakes the watch when a deadline moved earlier than the one it set.
    wake: Notify,
    /// The header time-out (a head's deadline).
    header_timeout: Duration,
}

struct ActivityState {
    in_progress: usize,
    head_since: Option<Instant>,
    last_traffic: Instant,
    /// The deadline the watch sleeps until, once it has set one.
    armed: Option<Instant>,
}

impl Activity {
    fn new(header_timeout: Duration) -> Self {
        Activity {
            state: Mutex::new(ActivityState {
                in_progress: 0,
                head_since: None,
                last_traffic: Instant::now(),
                armed: None,
            }),
            wake: Notify::new(),
            header_timeout,
        }
    }

    fn state(&self) -> MutexGuard<'_, ActivityState> {
        // The state stays consistent even if a holder panicked: every update is one field.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `n` bytes arrived: traffic; with no request in progress they start a head's clock.
    fn received(&self, n: usize) {
        if n == 0 {
            return;
        }
        let now = Instant::now();
        let mut state = self.state();
        state.last_traffic = now;
        if state.in_progress == 0 && state.head_since.is_none() {
            state.head_since = Some(now);
            let earlier = state
                .armed
                .is_none_or(|armed| now + self.header_timeout < armed);
            drop(state);
            if earlier {
                self.wake.notify_one();
            }
        }
    }

    /// Bytes were sent.
    fn sent(&self) {
        self.state().last_traffic = Instant::now();
    }

    /// A request head arrived whole: its clock stops and the request is in progress until
    /// the returned guard drops.
    fn begin_request(self: &Arc<Self>) -> RequestInProgress {
        let mut state = self.state();
        state.in_progress += 1;
        state.head_since = None;
        RequestInProgress {
            activity: self.clone(),
        }
    }

    /// A request was answered (or dropped). The idle deadline it may start is later than any
    /// the watch has set, so the watch is not woken.
    fn end_request(&self) {
        let mut state = self.state();
        state.in_progress = state.in_progress.saturating_sub(1);
        state.last_traffic = Instant::now();
    }

    /// When the watch should look again, set as the deadline it sleeps until.
    fn arm(&self, limits: &Limits) -> Instant {
        let deadline = self.deadline(limits);
        self.state().armed = Some(deadline);
        deadline
    }

    /// When the watch should look again.
    fn deadline(&self, limits: &Limits) -> Instant {
        let state = self.state();
        match state.head_since {
            Some(since) => since + limits.header_timeout,
            None if state.in_progress == 0 => state.last_traffic + limits.idle_timeout,
            // Requests in progress: nothing can expire; look again after a while.
            None => Instant::now() + limits.idle_timeout,
        }
    }

    /// What has expired at `now`, if anything.
    fn expired(&self, limits: &Limits, now: Instant) -> Option<Expiry> {
        let state = self.state();
        if state
            .head_since
            .is_some_and(|since| since + limits.header_timeout <= now)
        {
            return Some(Expiry::Head);
        }
        if state.in_progress == 0 && state.last_traffic + limits.idle_timeout <= now {
            return Some(Expiry::Idle);
        }
        None
    }

    async fn changed(&self) {
        self.wake.notified().await;
    }
}

/// Marks one request in progress while alive.
struct RequestInProgress {
    activity: Arc<Activity>,
}

impl Drop for RequestInProgress {
    fn drop(&mut self) {
        self.activity.end_request();
    }
}

/// A response body that keeps its request in progress until the body is sent or dropped.
struct InProgress {
    body: BoxBody<Bytes, io::Error>,
    _request: RequestInProgress,
}

impl hyper::body::Body for InProgress {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A socket that tells its connection's [`Activity`] about traffic.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
    /// The file the answer being written can be sent from.
    send_slot: Arc<SendSlot>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.activity.received(buf.filled().len() - before);
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled
            && n > 0
        {
            self.activity.sent();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = match self.send_slot.poll_write(&self.inner, cx, bufs) {
            Some(polled) => polled,
            None => Pin::new(&mut self.inner).poll_write_vectored(cx, bufs),
        };
        if let Poll::Ready(Ok(n)) = polled
            && n > 0
        {
            self.activity.sent();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            ..Limits::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_head_must_arrive_within_the_header_timeout_of_its_first_byte() {
        let activity = Activity::new(HEADER_TIMEOUT);
        activity.received(1);
        let start = Instant::now();
        assert_eq!(activity.deadline(&limits()), start + HEADER_TIMEOUT);
        tokio::time::advance(Duration::from_secs(9)).await;
        activity.received(1);
        assert_eq!(activity.expired(&limits(), Instant::now()), None);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(
            activity.expired(&limits(), Instant::now()),
            Some(Expiry::Head),
            "later bytes do not restart the clock"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_connection_between_requests_waits_for_the_idle_timeout_not_the_header_timeout()
    {
        let activity = Arc::new(Activity::new(HEADER_TIMEOUT));
        activity.received(100);
        drop(activity.begin_request());
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(activity.expired(&limits(), Instant::now()), None);
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(
            activity.expired(&limits(), Instant::now()),
            Some(Expiry::Idle)
        );
    }

    /// Whether the watch was woken since it last looked.
    fn woken(activity: &Activity) -> bool {
        use futures_util::FutureExt;
        activity.changed().now_or_never().is_some()
    }

    #[tokio::test(start_paused = true)]
    async fn the_watch_is_woken_only_when_a_deadline_moves_earlier_than_the_one_it_set() {
        let activity = Arc::new(Activity::new(HEADER_TIMEOUT));
        // Asleep until the idle time-out: a head starting needs it sooner.
        assert_eq!(activity.arm(&limits()), Instant::now() + IDLE_TIMEOUT);
        activity.received(1);
        assert!(woken(&activity));
        let head_deadline = activity.arm(&limits());
        assert_eq!(head_deadline, Instant::now() + HEADER_TIMEOUT);
        // Requests answered and heads started later, while the watch sleeps until the first
        // head's deadline: nothing to wake it for.
        for _ in 0..3 {
            drop(activity.begin_request());
            tokio::time::advance(Duration::from_secs(1)).await;
            activity.received(1);
            assert!(!woken(&activity));
        }
        // When it looks, nothing has expired, and it sets the deadline of the latest head.
        tokio::time::advance(Duration::from_secs(7)).await;
        assert_eq!(Instant::now(), head_deadline);
        assert_eq!(activity.expired(&limits(), Instant::now()), None);
        assert_eq!(
            activity.arm(&limits()),
            head_deadline + Duration::from_secs(3)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn nothing_expires_while_a_request_is_in_progress() {
        let activity = Arc::new(Activity::new(HEADER_TIMEOUT));
        activity.received(100);
        let request = activity.begin_request();
        activity.received(100); // its body
        tokio::time::advance(Duration::from_secs(600)).await;
        assert_eq!(activity.expired(&limits(), Instant::now()), None);
        drop(request);
        activity.received(1); // the next head starts its clock
        assert_eq!(
            activity.deadline(&limits()),
            Instant::now() + HEADER_TIMEOUT
        );
    }
}
