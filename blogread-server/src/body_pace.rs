//! The pace a request body must keep: a body that stops, or trickles, is cut off.
//!
//! Without it a client could start a request body and then send a byte a minute: the request
//! stays in progress (so neither the head nor the idle time-out applies), holding its
//! connection, and for an image upload one of the few upload places, for as long as it likes.
//! A few hundred such connections, costing the client almost nothing, would hold every
//! connection; four would hold every upload place of every project.
//!
//! The rule, checked by [`PacedBody`] on every body of every protocol and framing:
//!
//! - **No pause longer than [`BodyPace::timeout`]** (30 s by default) while the server waits
//!   for more of the body.
//! - **An average of at least [`BodyPace::min_rate`] bytes a second** (4 KiB/s by default, a
//!   tenth of a slow mobile uplink): the time spent waiting for the body may not exceed the
//!   time-out plus a second for every `min_rate` bytes received. A 20 MiB upload may thus take
//!   up to about 85 minutes, a trickle of a byte a second is cut off after about 30 seconds.
//!
//! Only time the server spends waiting for the client counts: a body the application reads
//! late (after a database look-up, say) is not charged for the delay, since its bytes wait in
//! buffers meanwhile.
//!
//! A body cut off answers its reader an error, and marks its request's [`SlowBody`] (in the
//! request's extensions), so that the answer can be 408 whatever the reader made of the error
//! ([`crate::middleware::BodyLimit`] does it).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

/// Default for [`BodyPace::timeout`]: 30 s.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default for [`BodyPace::min_rate`]: 4 KiB a second.
pub const MIN_BODY_RATE: u32 = 4 * 1024;

/// The pace a request body must keep (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyPace {
    /// The longest the server waits for more of a body, and the start of every body's
    /// allowance of waiting time.
    pub timeout: Duration,
    /// Bytes a second a body must average: each `min_rate` bytes received add a second to the
    /// waiting time allowed. 0: no average is required, only [`BodyPace::timeout`] between
    /// bytes.
    pub min_rate: u32,
}

impl Default for BodyPace {
    fn default() -> Self {
        BodyPace {
            timeout: BODY_TIMEOUT,
            min_rate: MIN_BODY_RATE,
        }
    }
}

impl BodyPace {
    /// The waiting time allowed a body that has delivered `received` bytes.
    fn allowance(&self, received: u64) -> Duration {
        if self.min_rate == 0 {
            return Duration::MAX;
        }
        let rate = u64::from(self.min_rate);
        let earned = Duration::from_secs(received / rate).saturating_add(Duration::from_nanos(
            (received % rate) * 1_000_000_000 / rate,
        ));
        self.timeout.saturating_add(earned)
    }

    /// What the client is told when its body is cut off.
    pub fn detail(&self) -> String {
        let seconds = self.timeout.as_secs_f64();
        if self.min_rate == 0 {
            format!(
                "the request body stopped arriving: more than {seconds} s passed without a byte; \
                 send the body without pausing (nothing was stored)"
            )
        } else {
            format!(
                "the request body arrived too slowly: more than {seconds} s without a byte, or \
                 under {} bytes a second on average; send the body without pausing, or over a \
                 faster connection (nothing was stored)",
                self.min_rate
            )
        }
    }
}

/// Whether a request's body was cut off for its pace: in the request's extensions when the
/// body is paced, set when it is cut off.
#[derive(Debug, Clone)]
pub struct SlowBody {
    cut: Arc<AtomicBool>,
    pace: BodyPace,
}

impl SlowBody {
    /// A body held to `pace`, not cut off (yet).
    pub fn new(pace: BodyPace) -> Self {
        SlowBody {
            cut: Arc::default(),
            pace,
        }
    }

    /// Whether the body was cut off.
    pub fn cut_off(&self) -> bool {
        self.cut.load(Ordering::Relaxed)
    }

    /// The pace the body was held to.
    pub fn pace(&self) -> BodyPace {
        self.pace
    }
}

/// A request body that fails (and marks its [`SlowBody`]) when it breaks its [`BodyPace`].
pub struct PacedBody {
    inner: BoxBody<Bytes, io::Error>,
    /// The pace, and the mark set when the body is cut off.
    slow: SlowBody,
    /// Bytes received so far.
    received: u64,
    /// Time spent waiting for the body before the current wait.
    waited: Duration,
    /// When the current wait began (the last poll that found nothing).
    waiting_since: Option<Instant>,
    /// The timer of the current wait, made at the first wait and moved after.
    timer: Option<Pin<Box<Sleep>>>,
    /// Cut off: every later poll answers the end.
    done: bool,
}

impl PacedBody {
    /// `inner` held to the pace of `slow`, which is marked when it is cut off.
    pub fn new(inner: BoxBody<Bytes, io::Error>, slow: SlowBody) -> Self {
        PacedBody {
            inner,
            slow,
            received: 0,
            waited: Duration::ZERO,
            waiting_since: None,
            timer: None,
            done: false,
        }
    }

    /// The end of the current wait that the pace allows.
    fn deadline(&self, since: Instant) -> Instant {
        let pace = self.slow.pace;
        let left = pace.allowance(self.received).saturating_sub(self.waited);
        since + pace.timeout.min(left)
    }
}

impl Body for PacedBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            if let Some(since) = this.waiting_since.take() {
                this.waited += since.elapsed();
            }
            if let Some(Ok(data)) = frame.as_ref().map(|f| f.as_ref().map(Frame::data_ref)) {
                this.received += data.map_or(0, |d| d.len() as u64);
            }
            return Poll::Ready(frame);
        }
        let since = *this.waiting_since.get_or_insert_with(Instant::now);
        let deadline = this.deadline(since);
        let timer = match &mut this.timer {
            Some(timer) => {
                if timer.deadline() != deadline {
                    timer.as_mut().reset(deadline);
                }
                timer
            }
            None => this
                .timer
                .insert(Box::pin(tokio::time::sleep_until(deadline))),
        };
        ready!(timer.as_mut().poll(cx));
        this.done = true;
        this.slow.cut.store(true, Ordering::Relaxed);
        Poll::Ready(Some(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            this.slow.pace.detail(),
        ))))
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::{BodyExt, StreamBody};
    use tokio::sync::mpsc;

    use super::*;

    const PACE: BodyPace = BodyPace {
        timeout: Duration::from_secs(30),
        min_rate: 1000,
    };

    /// A body fed through the returned sender, held to [`PACE`].
    fn paced() -> (mpsc::Sender<Bytes>, PacedBody, SlowBody) {
        let (tx, rx) = mpsc::channel::<Bytes>(16);
        let stream = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv()
                .await
                .map(|bytes| (Ok::<_, io::Error>(Frame::data(bytes)), rx))
        });
        let slow = SlowBody::new(PACE);
        let body = PacedBody::new(StreamBody::new(stream).boxed(), slow.clone());
        (tx, body, slow)
    }

    /// Reads `body` to its end, answering the bytes read and whether it failed.
    async fn read_all(mut body: PacedBody) -> (u64, Option<io::Error>) {
        let mut read = 0;
        while let Some(frame) = body.frame().await {
            match frame {
                Ok(frame) => read += frame.data_ref().map_or(0, |d| d.len() as u64),
                Err(e) => return (read, Some(e)),
            }
        }
        (read, None)
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stops_is_cut_off_after_the_timeout() {
        let (tx, body, slow) = paced();
        tx.send(Bytes::from_static(b"some")).await.unwrap();
        let start = Instant::now();
        let (read, err) = read_all(body).await;
        assert_eq!(read, 4);
        let err = err.expect("the body is cut off");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(err.to_string().contains("too slowly"), "{err}");
        assert_eq!(start.elapsed(), PACE.timeout);
        assert!(slow.cut_off());
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_trickles_under_the_rate_is_cut_off_when_its_allowance_is_spent() {
        let (tx, body, slow) = paced();
        let start = Instant::now();
        let reader = tokio::spawn(async move { (read_all(body).await, Instant::now()) });
        // 10 bytes every 20 s: never a pause as long as the time-out, but half a byte a
        // second. Each byte earns 1 ms: with 20 bytes in (at 20 s), the allowance is 30.02 s
        // of waiting, all spent 30.02 s after the start, before the third send.
        for _ in 0..10 {
            if tx.send(Bytes::from_static(b"0123456789")).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(20)).await;
        }
        let ((read, err), cut) = reader.await.unwrap();
        assert!(err.is_some(), "the trickle is cut off");
        assert!(slow.cut_off());
        assert_eq!(read, 20);
        assert_eq!(cut - start, Duration::from_millis(30_020));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_at_the_rate_with_pauses_under_the_timeout_arrives_whole() {
        let (tx, body, slow) = paced();
        let reader = tokio::spawn(read_all(body));
        // 20,000 bytes every 10 s: 2,000 bytes a second, twice the rate, for 100 s.
        for _ in 0..10 {
            tx.send(Bytes::from(vec![b'x'; 20_000])).await.unwrap();
            tokio::time::sleep(Duration::from_secs(10)).await;
        }
        drop(tx);
        let (read, err) = reader.await.unwrap();
        assert!(err.is_none(), "{err:?}");
        assert_eq!(read, 200_000);
        assert!(!slow.cut_off());
    }

    #[tokio::test(start_paused = true)]
    async fn time_the_reader_spends_elsewhere_is_not_charged_to_the_body() {
        let (tx, mut body, slow) = paced();
        // The whole body is sent at once, then read an hour later: no waiting was charged.
        tx.send(Bytes::from_static(b"head")).await.unwrap();
        tx.send(Bytes::from_static(b"tail")).await.unwrap();
        drop(tx);
        tokio::time::sleep(Duration::from_secs(3600)).await;
        let first = body.frame().await.unwrap().unwrap();
        assert_eq!(first.data_ref().unwrap().as_ref(), b"head");
        tokio::time::sleep(Duration::from_secs(3600)).await;
        let (read, err) = read_all(body).await;
        assert!(err.is_none(), "{err:?}");
        assert_eq!(read, 4);
        assert!(!slow.cut_off());
    }

    #[tokio::test(start_paused = true)]
    async fn a_cut_off_body_ends_after_its_error() {
        let (tx, mut body, _slow) = paced();
        let err = body.frame().await.unwrap().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(body.is_end_stream());
        assert!(body.frame().await.is_none());
        drop(tx);
    }

    #[test]
    fn without_a_rate_only_pauses_count() {
        let pace = BodyPace {
            timeout: Duration::from_secs(5),
            min_rate: 0,
        };
        assert_eq!(pace.allowance(0), Duration::MAX);
        assert_eq!(pace.allowance(u64::MAX), Duration::MAX);
        assert!(pace.detail().contains("without a byte"));
    }
}
