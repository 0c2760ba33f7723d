//! An exact cache of each published post's serialised public answer, keyed by the post's
//! change number, so that a publish recomputes only the answers it changed.
//!
//! The response cache ([`crate::response_cache`]) is keyed by the project's content version,
//! which every publish bumps: one publish throws away every cached page of the project,
//! although nearly every post on those pages answers byte for byte as before. This cache sits
//! behind it and keeps each post's part of an answer instead, in three forms: the post as a
//! list item, as a list item with its body, and as the single-blog object, each already
//! serialised. A list page is then the page's keys (read from a covering index, no body
//! touched), the fragments held for them, the missing posts read in one statement, and the
//! fragments written one after the other (see `service/public.rs`).
//!
//! Why it is exact:
//!
//! - **The key.** Every write that changes a post's public answer (its own snapshot, or the
//!   state, title or slug of a post it links to) stamps a new number of the project's change
//!   sequence on the post, in the same transaction (the changes feed's numbers). So
//!   `(post, change number)` names one answer of the post, in each form. What the number does
//!   not cover is in the key too: the project's site URL (which every resolved link is
//!   made from) as a SHA-256 fingerprint, and the project (ids are unique, but it costs
//!   nothing).
//! - **What is kept under it.** A fragment is kept under the change number read in the same
//!   statement as the fields and body it is made from; its links are resolved by a look-up
//!   made after that statement, so it is never older than its key. A fragment newer than its
//!   key can only be served to a read that began before the newer write committed, for which
//!   either answer is correct (as with the response cache).
//! - **Several server instances.** The keys come from the database in each read, so an
//!   instance never serves a fragment of an answer another instance's write replaced.
//!
//! Entries are bounded by total bytes (body, key and bookkeeping).

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::byte_cache::{ByteCache, HeldBytes, Sizing};
use crate::domain::ProjectId;
use crate::store::PostKey;

/// The byte bound of [`FragmentCache::default`]: 32 MiB.
pub const DEFAULT_CAPACITY_BYTES: u64 = 32 * 1024 * 1024;

/// How the cache is sized: an entry costs its body and 160 bytes (the key, map slot, `Bytes`
/// header, allocator slack); a typical fragment is 4 KB (a list item is ~0.5 KB, a body
/// ~9 KB).
const SIZING: Sizing = Sizing {
    entry_overhead: 160,
    typical_entry_bytes: 4 * 1024,
    max_entries: 1 << 22,
};

/// Which of a post's answers a fragment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Form {
    /// A list item without the body.
    Item,
    /// A list item with the body, links resolved.
    ItemWithContent,
    /// The single-blog object.
    Detail,
}

/// The project's site URL as a fingerprint (SHA-256, first 16 bytes): every resolved link
/// is made from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SiteFingerprint([u8; 16]);

impl SiteFingerprint {
    /// The fingerprint of `site_url` (none and every URL differ).
    pub(crate) fn of(site_url: Option<&str>) -> Self {
        let mut h = Sha256::new();
        match site_url {
            None => h.update([0]),
            Some(url) => {
                h.update([1]);
                h.update(url.as_bytes());
            }
        }
        let digest = h.finalize();
        let mut out = [0; 16];
        out.copy_from_slice(&digest[..16]);
        Self(out)
    }
}

/// What names one fragment: see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FragmentKey {
    project: ProjectId,
    post: PostKey,
    form: Form,
    site: SiteFingerprint,
}

impl FragmentKey {
    /// The key of `post`'s answer in `form` in `project`, whose site URL has fingerprint
    /// `site`.
    pub(crate) fn new(
        project: ProjectId,
        post: PostKey,
        form: Form,
        site: SiteFingerprint,
    ) -> Self {
        Self {
            project,
            post,
            form,
            site,
        }
    }
}

impl HeldBytes for FragmentKey {
    fn held_bytes(&self) -> u64 {
        0
    }
}

/// Each published post's serialised answers by (post, change number, form, site URL),
/// bounded by total bytes; cloning shares the cache. See the module documentation for why it
/// is exact.
#[derive(Clone)]
pub struct FragmentCache {
    inner: ByteCache<FragmentKey>,
}

impl std::fmt::Debug for FragmentCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt_as("FragmentCache", f)
    }
}

impl Default for FragmentCache {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY_BYTES)
    }
}

impl FragmentCache {
    /// A cache holding at most `capacity_bytes` (bodies and bookkeeping); `0` disables it. A
    /// fragment larger than a shard of the cache (capacity / shards) is not kept.
    pub fn new(capacity_bytes: u64) -> Self {
        Self {
            inner: ByteCache::new(capacity_bytes, SIZING),
        }
    }

    /// No cache: every public answer is made from the store's rows as a whole.
    pub fn disabled() -> Self {
        Self {
            inner: ByteCache::disabled(),
        }
    }

    /// Whether the cache is on.
    pub fn is_enabled(&self) -> bool {
        self.inner.is_enabled()
    }

    /// The byte bound (0 when disabled).
    pub fn capacity_bytes(&self) -> u64 {
        self.inner.capacity_bytes()
    }

    /// Bytes held now (bodies and bookkeeping).
    pub fn bytes(&self) -> u64 {
        self.inner.bytes()
    }

    /// Fragments held now.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The fragment under `key`, if held.
    pub(crate) fn get(&self, key: &FragmentKey) -> Option<Bytes> {
        self.inner.get(key)
    }

    /// Keeps `body` under `key`.
    pub(crate) fn insert(&self, key: FragmentKey, body: Bytes) {
        self.inner.insert(key, body);
    }

    /// Counts one read's fragments found and made, in
    /// `blogread_fragment_cache_fragments_total{result="hit"|"miss"}` (through the `metrics`
    /// facade).
    pub(crate) fn count(&self, hits: usize, misses: usize) {
        if hits > 0 {
            metrics::counter!("blogread_fragment_cache_fragments_total", "result" => "hit")
                .increment(hits as u64);
        }
        if misses > 0 {
            metrics::counter!("blogread_fragment_cache_fragments_total", "result" => "miss")
                .increment(misses as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::BlogId;

    fn key(change: u64, form: Form, site: Option<&str>) -> FragmentKey {
        static PROJECT: std::sync::OnceLock<ProjectId> = std::sync::OnceLock::new();
        static POST: std::sync::OnceLock<BlogId> = std::sync::OnceLock::new();
        FragmentKey::new(
            *PROJECT.get_or_init(ProjectId::generate),
            PostKey {
                id: *POST.get_or_init(BlogId::generate),
                change,
            },
            form,
            SiteFingerprint::of(site),
        )
    }

    #[test]
    fn a_new_change_number_form_or_site_url_is_another_fragment() {
        let cache = FragmentCache::new(1024 * 1024);
        let site = Some("https://a.example");
        cache.insert(key(1, Form::Item, site), Bytes::from_static(b"one"));
        assert_eq!(
            cache.get(&key(1, Form::Item, site)).as_deref(),
            Some(&b"one"[..])
        );
        for other in [
            key(2, Form::Item, site),
            key(1, Form::ItemWithContent, site),
            key(1, Form::Detail, site),
            key(1, Form::Item, Some("https://b.example")),
            key(1, Form::Item, None),
        ] {
            assert_eq!(cache.get(&other), None, "{other:?}");
        }
    }

    #[test]
    fn stays_within_its_byte_bound() {
        let cache = FragmentCache::new(64 * 1024);
        for change in 0..100 {
            cache.insert(
                key(change, Form::Detail, None),
                Bytes::from(vec![b'x'; 4000]),
            );
        }
        assert!(cache.bytes() <= 64 * 1024, "{}", cache.bytes());
        assert!(!cache.is_empty());
    }

    #[test]
    fn a_disabled_cache_holds_nothing() {
        let cache = FragmentCache::disabled();
        cache.insert(key(1, Form::Item, None), Bytes::from_static(b"x"));
        assert!(!cache.is_enabled());
        assert_eq!(cache.get(&key(1, Form::Item, None)), None);
        assert_eq!(cache.capacity_bytes(), 0);
    }
}
