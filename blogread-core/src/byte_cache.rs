//! What the response cache and the fragment cache share: serialised bodies under a key,
//! bounded by the bytes they hold (bodies, keys and bookkeeping), or no cache at all.

use std::hash::Hash;
use std::sync::Arc;

use bytes::Bytes;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

/// A key of a [`ByteCache`]: the bytes it holds outside its slot (a `String`'s text).
pub(crate) trait HeldBytes {
    /// Bytes held on the heap by this key.
    fn held_bytes(&self) -> u64;
}

impl HeldBytes for String {
    fn held_bytes(&self) -> u64 {
        self.len() as u64
    }
}

/// How an entry is weighed: its body, its key's bytes, and a fixed overhead.
#[derive(Debug, Clone, Copy)]
struct ByBytes {
    overhead: u64,
}

impl<K: HeldBytes> Weighter<K, Bytes> for ByBytes {
    fn weight(&self, key: &K, body: &Bytes) -> u64 {
        key.held_bytes() + body.len() as u64 + self.overhead
    }
}

/// Bodies by key, bounded by total bytes; cloning shares the cache.
#[derive(Clone)]
pub(crate) struct ByteCache<K> {
    inner: Option<Arc<Cache<K, Bytes, ByBytes>>>,
}

/// How a [`ByteCache`] is sized.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizing {
    /// What an entry costs beyond its key's bytes and its body (map slot, `Bytes` header,
    /// allocator slack).
    pub(crate) entry_overhead: u64,
    /// A typical body, for sizing the tables.
    pub(crate) typical_entry_bytes: u64,
    /// The most entries the tables are sized for.
    pub(crate) max_entries: u64,
}

impl<K: Eq + Hash + Clone + HeldBytes> ByteCache<K> {
    /// A cache holding at most `capacity_bytes`; `0` is no cache. An entry larger than a
    /// shard of the cache (capacity / shards) is not kept.
    pub(crate) fn new(capacity_bytes: u64, sizing: Sizing) -> Self {
        if capacity_bytes == 0 {
            return Self::disabled();
        }
        let items = (capacity_bytes / sizing.typical_entry_bytes).clamp(16, sizing.max_entries);
        let weigher = ByBytes {
            overhead: sizing.entry_overhead,
        };
        Self {
            inner: Some(Arc::new(Cache::with_weighter(
                items as usize,
                capacity_bytes,
                weigher,
            ))),
        }
    }

    /// No cache: nothing is kept.
    pub(crate) fn disabled() -> Self {
        Self { inner: None }
    }

    /// Whether the cache is on.
    pub(crate) fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// The byte bound (0 when disabled).
    pub(crate) fn capacity_bytes(&self) -> u64 {
        self.inner.as_ref().map_or(0, |c| c.capacity())
    }

    /// Bytes held now (bodies, keys and bookkeeping).
    pub(crate) fn bytes(&self) -> u64 {
        self.inner.as_ref().map_or(0, |c| c.weight())
    }

    /// Entries held now.
    pub(crate) fn len(&self) -> usize {
        self.inner.as_ref().map_or(0, |c| c.len())
    }

    /// The body under `key`, if held.
    pub(crate) fn get<Q>(&self, key: &Q) -> Option<Bytes>
    where
        Q: Hash + quick_cache::Equivalent<K> + ?Sized,
    {
        self.inner.as_ref().and_then(|c| c.get(key))
    }

    /// True when a body is held under `key`.
    pub(crate) fn contains<Q>(&self, key: &Q) -> bool
    where
        Q: Hash + quick_cache::Equivalent<K> + ?Sized,
    {
        self.inner.as_ref().is_some_and(|c| c.contains_key(key))
    }

    /// Keeps `body` under `key` (nothing when disabled).
    pub(crate) fn insert(&self, key: K, body: Bytes) {
        if let Some(cache) = &self.inner {
            cache.insert(key, body);
        }
    }

    /// The body under `key`: the held one, or the one `fill` makes (then kept), with whether
    /// `fill` ran. Concurrent callers with the same key wait for one fill; a failed fill
    /// keeps nothing. When disabled, `fill` always runs.
    pub(crate) async fn get_or_fill<Q, E>(
        &self,
        key: &Q,
        fill: impl Future<Output = Result<Bytes, E>>,
    ) -> (Result<Bytes, E>, bool)
    where
        Q: Hash + quick_cache::Equivalent<K> + ToOwned<Owned = K> + ?Sized,
    {
        let Some(cache) = &self.inner else {
            return (fill.await, true);
        };
        let mut filled = false;
        let result = cache
            .get_or_insert_async(key, async {
                filled = true;
                fill.await
            })
            .await;
        (result, filled)
    }

    /// Writes the cache's bound and contents as `Debug` of a struct named `name`.
    pub(crate) fn fmt_as(&self, name: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(name)
            .field("capacity_bytes", &self.capacity_bytes())
            .field("bytes", &self.bytes())
            .field("entries", &self.len())
            .finish()
    }
}
