//! Conditional requests: an ETag cache so that a build that finds nothing changed transfers
//! no bodies.
//!
//! The server sends a strong `ETag` on every public answer and answers a matching
//! `If-None-Match` with 304 and no body (`docs/public-api.md#etags-and-304`). With a cache the
//! client remembers the last `ETag` and body per URL, sends `If-None-Match`, and on 304 decodes
//! the body it kept: the caller sees the same typed value either way. The cache lives in memory
//! and can be saved to a file and loaded by the next build ([`ClientBuilder::etag_cache_file`] and
//! [`Client::save_etag_cache`], or [`EtagCache::load`] and [`EtagCache::save`]), which is how
//! `blogread export` makes an unchanged rebuild cheap.
//!
//! A cache never fails a build: a file that is missing or does not parse gives an empty cache,
//! a kept body that no longer decodes is dropped and asked for again without `If-None-Match`,
//! and when kept answers disagree with each other (a hand-edited sitemap, say) the read that
//! noticed it starts again without conditional requests.
//!
//! [`ClientBuilder::etag_cache_file`]: crate::ClientBuilder::etag_cache_file
//! [`Client::save_etag_cache`]: crate::Client::save_etag_cache

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

/// A shared, thread-safe map from request URL to the last `ETag` and body seen for it.
///
/// Cloning gives another handle to the same cache. The API key is not part of the URL (it goes
/// in the `Authorization` header) and never reaches the cache or its file.
#[derive(Clone, Default)]
pub struct EtagCache {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    used: HashSet<String>,
    stats: CacheStats,
}

#[derive(Clone, Serialize, Deserialize)]
struct Entry {
    etag: String,
    body: String,
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    entries: HashMap<String, Entry>,
}

const FILE_VERSION: u32 = 1;

/// How many requests a cache saved and how many it did not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Answers that were 304 Not Modified: served from the cache, no body transferred.
    pub not_modified: u64,
    /// Answers that carried a body (a first read, or a change).
    pub fetched: u64,
}

impl std::fmt::Debug for EtagCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("EtagCache")
            .field("entries", &inner.entries.len())
            .field("stats", &inner.stats)
            .finish()
    }
}

impl EtagCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads a cache saved by [`save`](Self::save). A missing file gives an empty cache, and
    /// so does a file that does not parse (a cache is never worth failing a build for); other
    /// I/O errors are returned. An entry whose body no longer decodes as the answer of its URL
    /// is dropped when it is next used, and its URL asked for again without `If-None-Match`.
    pub fn load(path: impl AsRef<Path>) -> io::Result<Self> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Self::new()),
            Err(e) => return Err(e),
        };
        let entries = match serde_json::from_str::<CacheFile>(&text) {
            Ok(file) if file.version == FILE_VERSION => file.entries,
            _ => HashMap::new(),
        };
        let cache = Self::new();
        cache.lock().entries = entries;
        Ok(cache)
    }

    /// Saves the cache (atomically: a temporary file renamed over the old one).
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        let json = {
            let inner = self.lock();
            serde_json::to_vec(&CacheFile {
                version: FILE_VERSION,
                entries: inner.entries.clone(),
            })
            .map_err(io::Error::other)?
        };
        write_atomically(path, &json)
    }

    /// Forgets every entry not used since the cache was made or loaded, so a saved cache holds
    /// only what the last build read.
    pub fn retain_used(&self) {
        let mut inner = self.lock();
        let Inner { entries, used, .. } = &mut *inner;
        entries.retain(|url, _| used.contains(url));
    }

    /// The number of URLs cached.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets everything.
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.entries.clear();
        inner.used.clear();
    }

    /// How many answers were 304 and how many carried a body, since the cache was made.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats
    }

    /// The `ETag` to send for `url`, if one is cached.
    pub(crate) fn etag_for(&self, url: &str) -> Option<String> {
        self.lock().entries.get(url).map(|e| e.etag.clone())
    }

    /// The body kept for `url` when the server said 304 for `etag`.
    pub(crate) fn not_modified(&self, url: &str, etag: &str) -> Option<String> {
        let mut inner = self.lock();
        let body = inner
            .entries
            .get(url)
            .filter(|e| e.etag == etag)
            .map(|e| e.body.clone())?;
        inner.used.insert(url.to_owned());
        inner.stats.not_modified += 1;
        Some(body)
    }

    /// Records a body that decoded, with its `ETag` if the server sent one. Returns whether
    /// the body differs from the one kept for `url` (true when none was kept).
    pub(crate) fn fetched(&self, url: &str, etag: Option<String>, body: &[u8]) -> bool {
        let mut inner = self.lock();
        inner.stats.fetched += 1;
        let changed = inner
            .entries
            .get(url)
            .is_none_or(|e| e.body.as_bytes() != body);
        match (etag, std::str::from_utf8(body)) {
            (Some(etag), Ok(body)) => {
                inner.used.insert(url.to_owned());
                inner.entries.insert(
                    url.to_owned(),
                    Entry {
                        etag,
                        body: body.to_owned(),
                    },
                );
            }
            _ => {
                inner.entries.remove(url);
            }
        }
        changed
    }

    /// Drops the entry of `url` (its body no longer decodes, or no longer agrees with the
    /// server's other answers), so the next request for it is unconditional.
    pub(crate) fn forget(&self, url: &str) {
        let mut inner = self.lock();
        inner.entries.remove(url);
        inner.used.remove(url);
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (each change is one insert).
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// How many fresh temporary names [`write_atomically`] tries before it gives up.
pub(crate) const TEMP_ATTEMPTS: usize = 8;

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// a reader never sees half a file.
///
/// The temporary file, `.<name>.<16 random hex digits>.tmp`, is created exclusively (as with
/// `O_CREAT | O_EXCL`): whatever already has that name, a file or a symbolic link (dangling or
/// not), is neither followed nor overwritten, and another random name is tried, up to eight.
/// The rename then replaces `path` itself: a symbolic link there is replaced, never followed.
/// On failure the temporary file (which this call created) is removed.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let suffixes = std::iter::repeat_with(|| format!("{:016x}", rand::random::<u64>()));
    write_atomically_with(path, bytes, suffixes.take(TEMP_ATTEMPTS))
}

/// [`write_atomically`] with the temporary names' random parts given, for tests.
fn write_atomically_with(
    path: &Path,
    bytes: &[u8],
    suffixes: impl IntoIterator<Item = String>,
) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("path has no file name"))?;
    for suffix in suffixes {
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{suffix}.tmp"));
        let tmp = match dir {
            Some(d) => d.join(tmp_name),
            None => tmp_name.into(),
        };
        let mut file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        // The file is ours from here: remove it if anything fails.
        let written = file.write_all(bytes);
        drop(file);
        let result = written.and_then(|()| std::fs::rename(&tmp, path));
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return result;
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "could not create a temporary file next to {}: every name tried was taken; remove \
             leftover `.{}.*.tmp` files there",
            path.display(),
            name.to_string_lossy()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_304_for_the_kept_etag_returns_the_kept_body() {
        let c = EtagCache::new();
        c.fetched("u", Some("\"a\"".into()), b"{}");
        assert_eq!(c.etag_for("u").as_deref(), Some("\"a\""));
        assert_eq!(c.not_modified("u", "\"a\"").as_deref(), Some("{}"));
        assert_eq!(c.not_modified("u", "\"b\""), None);
        assert_eq!(
            c.stats(),
            CacheStats {
                not_modified: 1,
                fetched: 1
            }
        );
    }

    #[test]
    fn an_answer_without_etag_forgets_the_entry() {
        let c = EtagCache::new();
        assert!(c.fetched("u", Some("\"a\"".into()), b"{}"), "new: changed");
        assert!(!c.fetched("u", None, b"{}"), "same body: unchanged");
        assert_eq!(c.etag_for("u"), None);
    }

    #[test]
    fn saves_loads_and_prunes() {
        let dir = std::env::temp_dir().join(format!("blogread-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cache.json");
        let c = EtagCache::new();
        c.fetched("a", Some("\"1\"".into()), b"[1]");
        c.fetched("b", Some("\"2\"".into()), b"[2]");
        c.save(&path).unwrap();

        let loaded = EtagCache::load(&path).unwrap();
        assert_eq!(loaded.len(), 2);
        assert_eq!(loaded.not_modified("a", "\"1\"").as_deref(), Some("[1]"));
        loaded.retain_used();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded.etag_for("b"), None);

        std::fs::write(&path, b"not json").unwrap();
        assert!(EtagCache::load(&path).unwrap().is_empty());
        assert!(EtagCache::load(dir.join("missing")).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_planted_at_the_temporary_name_is_not_followed() {
        let site = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let dangling = outside.path().join("created-through-the-link");
        let path = site.path().join("post.md");
        // One link to an existing file, one dangling: each would be followed by a plain write.
        let planted_existing = site.path().join(".post.md.first.tmp");
        let planted_dangling = site.path().join(".post.md.second.tmp");
        std::os::unix::fs::symlink(&victim, &planted_existing).unwrap();
        std::os::unix::fs::symlink(&dangling, &planted_dangling).unwrap();

        let suffixes = ["first", "second", "third"].map(String::from);
        write_atomically_with(&path, b"new text", suffixes).unwrap();

        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new text");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        assert!(
            !dangling.exists(),
            "nothing created through the dangling link"
        );
        assert_eq!(std::fs::read_link(&planted_existing).unwrap(), victim);
        assert_eq!(std::fs::read_link(&planted_dangling).unwrap(), dangling);
        assert!(
            !site.path().join(".post.md.third.tmp").exists(),
            "renamed away"
        );
    }

    #[cfg(unix)]
    #[test]
    fn when_every_temporary_name_is_taken_the_write_fails_and_says_where() {
        let site = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let path = site.path().join("post.md");
        std::os::unix::fs::symlink(&victim, site.path().join(".post.md.only.tmp")).unwrap();

        let err = write_atomically_with(&path, b"new text", ["only".to_owned()]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        let message = err.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains("leftover"), "says what to do: {message}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        assert!(!path.exists());
    }
}
