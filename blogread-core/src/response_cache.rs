//! An exact cache of serialised public responses, keyed by their ETag.
//!
//! A public response is a function of the project, the project's content version, the endpoint
//! and its parameters (and of the crate version, which may render differently). The ETag of
//! [`crate::read`] hashes exactly these, and the content version is bumped, in the same
//! transaction, by every write that can change what the public API shows: a publish, re-sync,
//! unpublish or delete (which also changes resolved links elsewhere in the project), and a
//! site URL change (which changes every resolved link). So the ETag names one response body and
//! the body can be kept under it:
//!
//! - **Writes.** A write bumps the version, so every later read computes a new ETag and misses
//!   the entries of the old version (which age out of the cache by its byte bound).
//! - **Several server instances.** Each request reads the content version from the database
//!   with the same indexed query that checks the key, so an instance whose cache holds old
//!   entries never serves them once another instance's write has committed.
//! - **Keys.** The key is checked by that query before the cache is consulted, so a rotated or
//!   revoked key fails on the very next request: the cache holds bodies, never credentials.
//!
//! A read that checked the key at version `v` while a write to `v + 1` committed may store the
//! newer body under `v`'s tag; only requests concurrent with that write can still present `v`,
//! and for them either body is a correct answer. Entries are bounded by total bytes (body plus
//! key and bookkeeping), and concurrent misses of one tag compute the body once.

use bytes::Bytes;

use crate::byte_cache::{ByteCache, Sizing};

/// The byte bound of [`ResponseCache::default`]: 64 MiB.
pub const DEFAULT_CAPACITY_BYTES: u64 = 64 * 1024 * 1024;

/// How the cache is sized: an entry costs its tag, its body and 128 bytes (map slot, `Bytes`
/// header, allocator slack); a typical body is 16 KB (list pages are tens of KB).
const SIZING: Sizing = Sizing {
    entry_overhead: 128,
    typical_entry_bytes: 16 * 1024,
    max_entries: 1 << 20,
};

/// Serialised public response bodies by ETag, bounded by total bytes; cloning shares the
/// cache. See the module documentation for why it is exact.
#[derive(Clone)]
pub struct ResponseCache {
    inner: ByteCache<String>,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt_as("ResponseCache", f)
    }
}

impl Default for ResponseCache {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY_BYTES)
    }
}

impl ResponseCache {
    /// A cache holding at most `capacity_bytes` (bodies, keys and bookkeeping); `0` disables
    /// it. A body larger than a shard of the cache (capacity / shards) is not kept.
    pub fn new(capacity_bytes: u64) -> Self {
        Self {
            inner: ByteCache::new(capacity_bytes, SIZING),
        }
    }

    /// No cache: every response is computed.
    pub fn disabled() -> Self {
        Self {
            inner: ByteCache::disabled(),
        }
    }

    /// The byte bound (0 when disabled).
    pub fn capacity_bytes(&self) -> u64 {
        self.inner.capacity_bytes()
    }

    /// Bytes held now (bodies, keys and bookkeeping).
    pub fn bytes(&self) -> u64 {
        self.inner.bytes()
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the body of `etag` is held.
    pub fn contains(&self, etag: &str) -> bool {
        self.inner.contains(etag)
    }

    /// The body of `etag`: the cached one, or the one `fill` computes (then kept). Concurrent
    /// callers with the same tag wait for one fill; a failed fill stores nothing. Counted in
    /// `blogread_response_cache_requests_total{result="hit"|"miss"}` (through the `metrics`
    /// facade; nothing when the cache is off).
    pub(crate) async fn get_or_fill<E>(
        &self,
        etag: &str,
        fill: impl Future<Output = Result<Bytes, E>>,
    ) -> Result<Bytes, E> {
        let (result, filled) = self.inner.get_or_fill(etag, fill).await;
        if self.inner.is_enabled() {
            let outcome = if filled { "miss" } else { "hit" };
            metrics::counter!("blogread_response_cache_requests_total", "result" => outcome)
                .increment(1);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fills_once_and_serves_the_kept_body() {
        let cache = ResponseCache::new(1024 * 1024);
        let a = cache
            .get_or_fill::<()>("\"a\"", async { Ok(Bytes::from_static(b"first")) })
            .await
            .unwrap();
        let again = cache
            .get_or_fill::<()>("\"a\"", async { Ok(Bytes::from_static(b"second")) })
            .await
            .unwrap();
        assert_eq!((a.as_ref(), again.as_ref()), (&b"first"[..], &b"first"[..]));
        assert!(cache.contains("\"a\""));
        assert!(!cache.contains("\"b\""));
    }

    #[tokio::test]
    async fn a_failed_fill_stores_nothing() {
        let cache = ResponseCache::new(1024 * 1024);
        let err = cache.get_or_fill("\"a\"", async { Err("boom") }).await;
        assert_eq!(err, Err("boom"));
        assert!(cache.is_empty());
    }

    #[tokio::test]
    async fn stays_within_its_byte_bound() {
        let cache = ResponseCache::new(64 * 1024);
        for i in 0..100 {
            let body = Bytes::from(vec![b'x'; 4000]);
            cache
                .get_or_fill::<()>(&format!("\"{i}\""), async { Ok(body) })
                .await
                .unwrap();
        }
        assert!(cache.bytes() <= 64 * 1024, "{}", cache.bytes());
        assert!(!cache.is_empty());
    }

    #[tokio::test]
    async fn disabled_cache_always_fills() {
        let cache = ResponseCache::disabled();
        let b = cache
            .get_or_fill::<()>("\"a\"", async { Ok(Bytes::from_static(b"x")) })
            .await
            .unwrap();
        assert_eq!(b.as_ref(), b"x");
        assert!(!cache.contains("\"a\""));
        assert_eq!(cache.capacity_bytes(), 0);
    }
}
