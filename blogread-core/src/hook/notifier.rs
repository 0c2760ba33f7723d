//! The [`Notifier`] seam: what fires a deploy hook, and what a firing reports.

use std::time::Duration;

use async_trait::async_trait;

use super::url::DeployHookUrl;

/// How long one firing may take in all (DNS, connect, TLS, request, answer) unless configured
/// otherwise: 10 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The `User-Agent` of every deploy hook POST: `blogread/<version>`.
pub const USER_AGENT: &str = concat!("blogread/", env!("CARGO_PKG_VERSION"));

/// The outcome of one deploy hook firing: what the delivery log records, plus how long it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookOutcome {
    /// True when the target answered with a 2xx status.
    pub success: bool,
    /// The HTTP status the target answered, or 0 when no HTTP answer came (unreachable, refused
    /// by the address rules, timed out).
    pub status_code: u16,
    /// What happened, for a person: which failure, or the status answered. Names the host at
    /// most, never the whole URL.
    pub message: String,
    /// How long the firing took, from start to outcome.
    pub duration: Duration,
}

/// Sends one deploy hook POST and reports the outcome. Never retries, never panics on failure:
/// every failure is an outcome with `success: false`.
#[async_trait]
pub trait Notifier: Send + Sync {
    /// POSTs to `url` (after vetting its addresses) and returns what happened.
    async fn notify(&self, url: &DeployHookUrl) -> HookOutcome;

    /// The longest one [`Notifier::notify`] call takes: a server waits this long (and a
    /// little more) for firings in flight when it stops.
    fn timeout(&self) -> Duration {
        DEFAULT_TIMEOUT
    }
}
