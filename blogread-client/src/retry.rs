//! The retry policy of `docs/public-api.md#client-guidance`: retry 500, 502, 503, 504 and
//! network errors with bounded exponential back-off and jitter; never retry 401, 404 or any
//! other 4xx.

use std::time::Duration;

use rand::Rng;

/// How often and how patiently a request is retried.
///
/// Attempt `n` (the first retry is `n = 1`) waits a random time in
/// `[ceiling(n) / 2, ceiling(n)]`, where `ceiling(n) = min(max_delay, base_delay * 2^(n-1))`
/// ("equal jitter": the wait grows like plain exponential back-off, but builds that fail
/// together do not retry in step). A `Retry-After` in seconds from the server is honoured up
/// to `max_delay`. No wait ever exceeds `max_delay`.
///
/// ```
/// use std::time::Duration;
/// use blogread_client::RetryPolicy;
/// let policy = RetryPolicy::new()
///     .max_attempts(5)
///     .base_delay(Duration::from_millis(250))
///     .max_delay(Duration::from_secs(4));
/// assert_eq!(policy.ceiling(1), Duration::from_millis(250));
/// assert_eq!(policy.ceiling(3), Duration::from_secs(1));
/// assert_eq!(policy.ceiling(10), Duration::from_secs(4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
}

impl Default for RetryPolicy {
    /// Four attempts in all, waits starting at 500 ms and never above 8 s ("retry after a few
    /// seconds", `docs/public-api.md#client-guidance`): the waits before retries 1, 2 and 3
    /// are at most 0.5, 1 and 2 s (3.5 s in all), or up to 8 s each when the server sends
    /// `Retry-After`.
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    /// The default policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// One attempt, no retry.
    pub fn none() -> Self {
        Self::default().max_attempts(1)
    }

    /// Attempts in all, the first included (at least 1).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The ceiling of the first retry's wait; each later ceiling doubles.
    pub fn base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// The bound no wait exceeds.
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// Attempts in all.
    pub fn attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The bound no wait exceeds.
    pub fn delay_bound(&self) -> Duration {
        self.max_delay
    }

    /// The longest wait before retry `n` (1-based): `min(max_delay, base_delay * 2^(n-1))`.
    pub fn ceiling(&self, retry: u32) -> Duration {
        let shift = retry.saturating_sub(1).min(31);
        self.base_delay
            .checked_mul(1u32 << shift)
            .unwrap_or(self.max_delay)
            .min(self.max_delay)
    }

    /// The wait before retry `n` (1-based), drawn from `rng`; `retry_after` is what the server
    /// asked for, if anything. Always at most [`delay_bound`](Self::delay_bound).
    pub fn delay<R: Rng + ?Sized>(
        &self,
        retry: u32,
        retry_after: Option<Duration>,
        rng: &mut R,
    ) -> Duration {
        if let Some(asked) = retry_after {
            return asked.min(self.max_delay);
        }
        let ceiling = self.ceiling(retry);
        let half = ceiling / 2;
        let spread = (ceiling - half).as_nanos().min(u64::MAX as u128) as u64;
        half + Duration::from_nanos(rng.random_range(0..=spread))
    }
}

/// One retry, as [`ClientBuilder::on_retry`](crate::ClientBuilder::on_retry) sees it: called
/// after an attempt failed with a retried error and before the client waits `delay`.
#[derive(Debug)]
#[non_exhaustive]
pub struct RetryEvent<'a> {
    /// The URL asked.
    pub url: &'a str,
    /// The attempt that failed (1 for the first).
    pub attempt: u32,
    /// Attempts allowed in all ([`RetryPolicy::attempts`]).
    pub max_attempts: u32,
    /// The wait before the next attempt.
    pub delay: Duration,
    /// Why the attempt failed (a 500, 502, 503 or 504 answer, or a transport error).
    pub error: &'a crate::Error,
}

/// Whether an answer with this status is retried: 500, 502, 503 and 504 only.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 500 | 502 | 503 | 504)
}

/// Whether a transport error is retried: connection failures, time-outs and broken bodies
/// are; a request that could not even be built (a bad URL, say) is not.
pub(crate) fn is_retryable_transport(err: &reqwest::Error) -> bool {
    !err.is_builder() && !err.is_redirect()
}

/// How long the server asked us to wait (`Retry-After` in whole seconds), if it said.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn only_500_502_503_504_are_retried() {
        for s in [500, 502, 503, 504] {
            assert!(is_retryable_status(s), "{s}");
        }
        for s in [200, 304, 400, 401, 403, 404, 409, 413, 422, 429, 501, 505] {
            assert!(!is_retryable_status(s), "{s}");
        }
    }

    #[test]
    fn ceiling_doubles_then_stays_at_the_bound() {
        let p = RetryPolicy::new()
            .base_delay(Duration::from_millis(100))
            .max_delay(Duration::from_millis(1000));
        let ceilings: Vec<u128> = (1..=7).map(|n| p.ceiling(n).as_millis()).collect();
        assert_eq!(ceilings, vec![100, 200, 400, 800, 1000, 1000, 1000]);
        // No overflow for absurd retry numbers or delays.
        assert_eq!(p.ceiling(u32::MAX), Duration::from_millis(1000));
        let huge = RetryPolicy::new()
            .base_delay(Duration::MAX)
            .max_delay(Duration::from_secs(3));
        assert_eq!(huge.ceiling(40), Duration::from_secs(3));
    }

    #[test]
    fn every_delay_is_within_half_ceiling_and_the_bound() {
        let p = RetryPolicy::new()
            .base_delay(Duration::from_millis(300))
            .max_delay(Duration::from_secs(5));
        let mut rng = StdRng::seed_from_u64(7);
        for n in 1..=40 {
            for _ in 0..200 {
                let d = p.delay(n, None, &mut rng);
                assert!(d <= p.delay_bound(), "retry {n}: {d:?}");
                assert!(d <= p.ceiling(n), "retry {n}: {d:?}");
                assert!(d >= p.ceiling(n) / 2, "retry {n}: {d:?}");
            }
        }
    }

    #[test]
    fn jitter_actually_varies() {
        let p = RetryPolicy::new();
        let mut rng = StdRng::seed_from_u64(1);
        let draws: std::collections::HashSet<Duration> =
            (0..20).map(|_| p.delay(3, None, &mut rng)).collect();
        assert!(draws.len() > 10);
    }

    #[test]
    fn retry_after_is_honoured_but_bounded() {
        let p = RetryPolicy::new().max_delay(Duration::from_secs(8));
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(2)), &mut rng),
            Duration::from_secs(2)
        );
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(3600)), &mut rng),
            Duration::from_secs(8)
        );
    }

    #[test]
    fn at_least_one_attempt() {
        assert_eq!(RetryPolicy::new().max_attempts(0).attempts(), 1);
        assert_eq!(RetryPolicy::none().attempts(), 1);
    }
}
