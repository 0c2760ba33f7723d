//! [`ClientBuilder`]: base URL, key, time-outs, retry policy, user agent, HTTP client, cache.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::HeaderValue;

use crate::cache::EtagCache;
use crate::client::{Client, Inner, OnRetry};
use crate::error::{Error, Result};
use crate::retry::{RetryEvent, RetryPolicy};
use crate::runtime::IoRuntime;

/// The user agent sent unless [`ClientBuilder::user_agent`] says otherwise.
pub const DEFAULT_USER_AGENT: &str = concat!("blogread-client/", env!("CARGO_PKG_VERSION"));

/// The most bytes of one answer the client reads unless
/// [`ClientBuilder::max_answer_bytes`] says otherwise: 64 MiB.
///
/// The largest answer the server gives to what the export asks is a page of the changes feed,
/// which stops once its bodies pass about 8 MiB and holds at least one more entry (a body is at
/// most 2 MiB): about 10 MiB of bodies, which JSON's escaping (`\n`, `\"`) makes at most twice
/// as long in practice. 64 MiB is three times that, and still a bound on what one hostile
/// answer can make the client hold. A page of the list with `include_content=true` can be
/// larger (100 bodies of up to 2 MiB): raise the cap for
/// [`Client::all_blogs_with_content`](crate::Client::all_blogs_with_content) on a project of
/// very long posts.
pub const DEFAULT_MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// The most pages one call reads unless [`ClientBuilder::max_pages`] says otherwise: 100,000.
///
/// A full read of a project of 100,000 posts through the changes feed takes 1,000 pages of 100
/// entries, or up to 25,000 when every post is near the 2 MiB a body may hold (a page stops
/// after about 8 MiB of bodies); the list takes 1,001 requests.
pub const DEFAULT_MAX_PAGES: u32 = 100_000;

/// The most entries one call collects unless [`ClientBuilder::max_entries`] says otherwise:
/// 1,000,000 (ten times a project of 100,000 posts, whose changes feed also tells the slugs it
/// no longer has, and repeats a post changed while it is read).
pub const DEFAULT_MAX_ENTRIES: u64 = 1_000_000;

/// Builds a [`Client`]. Made by [`Client::builder`].
///
/// # How long a call can take
///
/// With the defaults, one request makes up to 4 attempts of at most 30 s each (connecting
/// included, at most 10 s of it), with waits of at most 0.5, 1 and 2 s between them: about
/// 2 minutes (123.5 s) on a server that accepts connections and never answers, or up to
/// 144 s when it answers 503 with a `Retry-After` of 8 s or more after 30 s each time.
/// [`Client::all_blogs`] makes one request per 100 blogs plus one, and may start again
/// ([`max_restarts`](Self::max_restarts)), so its worst case is a multiple of that. There is
/// no overall deadline unless [`deadline`](Self::deadline) sets one; a build that must end in
/// bounded time should set it.
///
/// ```no_run
/// use std::time::Duration;
/// use blogread_client::{Client, RetryPolicy};
/// # fn main() -> Result<(), blogread_client::Error> {
/// let client = Client::builder("https://blog.example.com", "pk_live_...")
///     .timeout(Duration::from_secs(20))
///     .retry_policy(RetryPolicy::new().max_attempts(6))
///     .user_agent("my-site-build/1.0")
///     .etag_cache(true)
///     .build()?;
/// # Ok(()) }
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct ClientBuilder {
    base_url: String,
    key: String,
    timeout: Option<Duration>,
    connect_timeout: Duration,
    deadline: Option<Duration>,
    retry: RetryPolicy,
    on_retry: Option<Arc<OnRetry>>,
    user_agent: String,
    http: Option<reqwest::Client>,
    cache: CacheSetting,
    max_restarts: u32,
    max_answer_bytes: u64,
    max_pages: u32,
    max_entries: u64,
    io: Option<Arc<IoRuntime>>,
}

/// Which ETag cache the client gets.
enum CacheSetting {
    None,
    Memory(EtagCache),
    File(PathBuf),
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("key", &"<redacted>")
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("deadline", &self.deadline)
            .field("retry", &self.retry)
            .field("on_retry", &self.on_retry.is_some())
            .field("user_agent", &self.user_agent)
            .field(
                "etag_cache",
                &match &self.cache {
                    CacheSetting::None => "none".to_owned(),
                    CacheSetting::Memory(_) => "in memory".to_owned(),
                    CacheSetting::File(path) => path.display().to_string(),
                },
            )
            .field("max_restarts", &self.max_restarts)
            .field("max_answer_bytes", &self.max_answer_bytes)
            .field("max_pages", &self.max_pages)
            .field("max_entries", &self.max_entries)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts building a client for the server at `base_url` (its root, for example
    /// `https://blog.example.com`; the client appends `/blog/api/v1/public/...`) with the
    /// project's public key (`pk_live_...`).
    pub fn builder(base_url: impl Into<String>, key: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(base_url, key)
    }
}

impl ClientBuilder {
    pub(crate) fn new(base_url: impl Into<String>, key: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            key: key.into(),
            timeout: Some(Duration::from_secs(30)),
            connect_timeout: Duration::from_secs(10),
            deadline: None,
            retry: RetryPolicy::default(),
            on_retry: None,
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            http: None,
            cache: CacheSetting::None,
            max_restarts: 3,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
            max_pages: DEFAULT_MAX_PAGES,
            max_entries: DEFAULT_MAX_ENTRIES,
            io: None,
        }
    }

    /// The time-out of each attempt, from sending the request to reading the whole body
    /// (default 30 s). `None` waits for ever (not recommended for a build).
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.timeout = timeout.into();
        self
    }

    /// The longest one method call may take, every attempt, wait between attempts and (for
    /// [`Client::all_blogs`] and the like) every page and restart included (default none: see
    /// [how long a call can take](Self#how-long-a-call-can-take)). An attempt in flight is cut
    /// short when it passes, and no retry is started whose wait would pass it; the call then
    /// fails with [`Error::Deadline`] (whose [`is_timeout`](Error::is_timeout) is true), which
    /// says why the last attempt failed.
    pub fn deadline(mut self, deadline: impl Into<Option<Duration>>) -> Self {
        self.deadline = deadline.into();
        self
    }

    /// Calls `callback` before each retry, with the URL, the attempt that failed, why, and the
    /// wait before the next one: to log retries, or count them.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), blogread_client::Error> {
    /// let client = blogread_client::Client::builder("https://blog.example.com", "pk_live_...")
    ///     .on_retry(|e| {
    ///         eprintln!(
    ///             "attempt {}/{} failed ({}); retrying in {:?}",
    ///             e.attempt, e.max_attempts, e.error, e.delay
    ///         )
    ///     })
    ///     .build()?;
    /// # Ok(()) }
    /// ```
    pub fn on_retry(mut self, callback: impl Fn(&RetryEvent<'_>) + Send + Sync + 'static) -> Self {
        self.on_retry = Some(Arc::new(callback));
        self
    }

    /// The time-out of establishing a connection (default 10 s). Ignored when a custom HTTP
    /// client is given with [`http_client`](Self::http_client): configure it there.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How 500, 502, 503, 504 and network errors are retried (default: [`RetryPolicy::default`]).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The `User-Agent` header (default `blogread-client/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// Uses this reqwest client (for proxies, custom TLS roots, a shared connection pool).
    /// The key, user agent and per-attempt time-out are still set on every request.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Keeps the last `ETag` and body per URL in memory and sends `If-None-Match`, so unchanged
    /// answers come back as 304 with no body (default off). See [`EtagCache`].
    pub fn etag_cache(mut self, enabled: bool) -> Self {
        self.cache = if enabled {
            CacheSetting::Memory(EtagCache::new())
        } else {
            CacheSetting::None
        };
        self
    }

    /// Uses this ETag cache (one loaded from a file, or one shared with other clients).
    pub fn with_etag_cache(mut self, cache: EtagCache) -> Self {
        self.cache = CacheSetting::Memory(cache);
        self
    }

    /// Keeps the ETag cache in `path` across builds: [`build`](Self::build) loads it (a
    /// missing file or one that does not parse gives an empty cache), and
    /// [`Client::save_etag_cache`] saves it there after the build, keeping only the entries
    /// the build used. An unchanged rebuild then transfers no bodies, and
    /// [`Client::published`] says nothing changed.
    pub fn etag_cache_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.cache = CacheSetting::File(path.into());
        self
    }

    /// How many times [`Client::all_blogs`] starts again when the list changes while it reads
    /// (default 3) before it returns [`Error::Changed`].
    pub fn max_restarts(mut self, restarts: u32) -> Self {
        self.max_restarts = restarts;
        self
    }

    /// The most bytes of one answer the client reads (default [`DEFAULT_MAX_ANSWER_BYTES`],
    /// 64 MiB), whatever the endpoint and the status. The body is read in chunks and the
    /// client stops reading once it passes the cap, whether or not the answer declares its
    /// length; an answer that declares a `Content-Length` above the cap is refused before its
    /// body is read. Either way the call fails with [`Error::AnswerTooLarge`], which is not
    /// retried (the server would send the same). The body of an error answer (a status other
    /// than 200 and 304) is read only up to its first 64 KiB, which is all its `detail` needs.
    pub fn max_answer_bytes(mut self, bytes: u64) -> Self {
        self.max_answer_bytes = bytes;
        self
    }

    /// The most pages one call reads (default [`DEFAULT_MAX_PAGES`], 100,000): the pages of
    /// [`Client::changes_since`] (a feed whose `has_more` never ends), and those of
    /// [`Client::all_blogs`] and the like, restarts included. Past it the call fails with
    /// [`Error::TooManyPages`].
    pub fn max_pages(mut self, pages: u32) -> Self {
        self.max_pages = pages.max(1);
        self
    }

    /// The most entries one call collects (default [`DEFAULT_MAX_ENTRIES`], 1,000,000): the
    /// entries of [`Client::changes_since`], the blogs of one pass of [`Client::all_blogs`]
    /// and the like. Past it the call fails with [`Error::TooManyEntries`], before the page
    /// that passes it is kept.
    pub fn max_entries(mut self, entries: u64) -> Self {
        self.max_entries = entries;
        self
    }

    /// Runs every HTTP exchange on the blocking client's runtime thread.
    #[cfg_attr(not(feature = "blocking"), allow(dead_code))]
    pub(crate) fn io_runtime(mut self, io: Arc<IoRuntime>) -> Self {
        self.io = Some(io);
        self
    }

    /// Checks the base URL, key and user agent, loads the ETag cache file if one was given,
    /// and builds the client. Fails with [`Error::CacheFile`] when the cache file exists but
    /// cannot be read.
    pub fn build(self) -> Result<Client> {
        let blogs_url = blogs_url(&self.base_url)?;
        let mut auth = HeaderValue::try_from(format!("Bearer {}", self.key))
            .map_err(|_| Error::InvalidHeader("Authorization"))?;
        auth.set_sensitive(true);
        let user_agent = HeaderValue::try_from(self.user_agent)
            .map_err(|_| Error::InvalidHeader("User-Agent"))?;
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .connect_timeout(self.connect_timeout)
                .build()
                .map_err(Error::Build)?,
        };
        let (cache, cache_file) = match self.cache {
            CacheSetting::None => (None, None),
            CacheSetting::Memory(cache) => (Some(cache), None),
            CacheSetting::File(path) => match EtagCache::load(&path) {
                Ok(cache) => (Some(cache), Some(path)),
                Err(error) => return Err(Error::CacheFile { path, error }),
            },
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                blogs_url,
                auth,
                user_agent,
                timeout: self.timeout,
                deadline: self.deadline,
                retry: self.retry,
                on_retry: self.on_retry,
                cache,
                cache_file,
                max_restarts: self.max_restarts,
                max_answer_bytes: self.max_answer_bytes,
                max_pages: self.max_pages,
                max_entries: self.max_entries,
                key_stamp: crate::key_stamp::KeyStamp::of(&self.key),
                io: self.io,
                answers: Default::default(),
            }),
        })
    }
}

/// `{base_url}/blog/api/v1/public/blogs`, keeping any path the base URL has.
fn blogs_url(base: &str) -> Result<Url> {
    let invalid = |reason: &str| Error::InvalidBaseUrl {
        url: base.to_owned(),
        reason: reason.to_owned(),
    };
    let mut url = Url::parse(base).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("the scheme must be http or https"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("the base URL must have no query or fragment"));
    }
    url.path_segments_mut()
        .map_err(|_| invalid("not a base URL"))?
        .pop_if_empty()
        .extend(["blog", "api", "v1", "public", "blogs"]);
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_path_is_appended_to_any_base() {
        for (base, want) in [
            (
                "http://127.0.0.1:8080",
                "http://127.0.0.1:8080/blog/api/v1/public/blogs",
            ),
            (
                "http://127.0.0.1:8080/",
                "http://127.0.0.1:8080/blog/api/v1/public/blogs",
            ),
            (
                "https://x.example/prefix/",
                "https://x.example/prefix/blog/api/v1/public/blogs",
            ),
            (
                "https://x.example/prefix",
                "https://x.example/prefix/blog/api/v1/public/blogs",
            ),
        ] {
            assert_eq!(blogs_url(base).unwrap().as_str(), want, "{base}");
        }
    }

    #[test]
    fn bad_bases_are_refused() {
        for base in [
            "",
            "127.0.0.1:8080",
            "ftp://x.example",
            "http://x/?a=b",
            "mailto:a@b",
        ] {
            assert!(
                matches!(blogs_url(base), Err(Error::InvalidBaseUrl { .. })),
                "{base}"
            );
        }
    }

    #[test]
    fn debug_never_shows_the_key() {
        let b = ClientBuilder::new("http://x", "pk_live_secret");
        assert!(!format!("{b:?}").contains("secret"));
        let c = b.build().unwrap();
        assert!(!format!("{c:?}").contains("secret"));
    }

    #[test]
    fn a_key_with_a_newline_is_refused() {
        assert!(matches!(
            ClientBuilder::new("http://x", "pk\nx").build(),
            Err(Error::InvalidHeader("Authorization"))
        ));
    }
}
