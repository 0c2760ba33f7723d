//! A blocking [`Client`] with the same surface as the async one, for generators that are not
//! async (feature `blocking`).
//!
//! It wraps the async [`crate::Client`] rather than using reqwest's own `blocking` client, so
//! retries, back-off, deadlines, conditional requests and the restart logic of
//! [`Client::all_blogs`] are one implementation, not two that could drift apart, and the crate
//! pulls in no second HTTP stack.
//!
//! Each client (and its clones) has one thread of its own running a small tokio runtime, where
//! every HTTP exchange runs and every pooled connection lives. A call runs on the calling
//! thread and waits for that thread's work, so:
//!
//! - calls work from anywhere, inside an async runtime too (they block that thread, as any
//!   blocking call does: from async code prefer [`as_async`](Client::as_async));
//! - the async view [`as_async`](Client::as_async) shares the connection pool and the ETag
//!   cache, and works on any runtime before or after blocking calls (a pooled connection never
//!   waits for a runtime that is not running);
//! - dropping the client anywhere, inside an async context too, is fine: the runtime is shut
//!   down on its own thread when the last clone (the async view's included) is gone;
//! - callbacks (`progress`) need not be `Send`: they are called on the calling thread.
//!
//! ```no_run
//! # fn main() -> Result<(), blogread_client::Error> {
//! let client = blogread_client::blocking::Client::builder("https://blog.example.com", "pk_live_...")
//!     .etag_cache_file(".blogread/cache.json")
//!     .build()?;
//! let published = client.published(true)?;
//! for post in &published.blogs {
//!     println!("{} ({})", post.blog.title, post.blog.slug);
//! }
//! client.save_etag_cache()?;
//! # Ok(()) }
//! ```
//!
//! The `blocking_cache` example runs the whole cycle: load the cache, read, write only when
//! something changed, save the cache.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use crate::cache::{CacheStats, EtagCache};
use crate::changes::{ChangeCursor, ChangePage, Changes};
use crate::error::Result;
use crate::media::MediaFile;
use crate::retry::{RetryEvent, RetryPolicy};
use crate::runtime::IoRuntime;
use crate::types::{BlogDetail, BlogList, BlogListItem, ListParams, Published, Redirects, Sitemap};

/// The blocking client. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Client {
    inner: crate::Client,
}

/// Builds a blocking [`Client`]; the same options as [`crate::ClientBuilder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ClientBuilder {
    inner: crate::ClientBuilder,
}

impl ClientBuilder {
    fn map(self, f: impl FnOnce(crate::ClientBuilder) -> crate::ClientBuilder) -> Self {
        Self {
            inner: f(self.inner),
        }
    }

    /// See [`crate::ClientBuilder::timeout`].
    pub fn timeout(self, timeout: impl Into<Option<Duration>>) -> Self {
        self.map(|b| b.timeout(timeout))
    }

    /// See [`crate::ClientBuilder::connect_timeout`].
    pub fn connect_timeout(self, timeout: Duration) -> Self {
        self.map(|b| b.connect_timeout(timeout))
    }

    /// See [`crate::ClientBuilder::deadline`].
    pub fn deadline(self, deadline: impl Into<Option<Duration>>) -> Self {
        self.map(|b| b.deadline(deadline))
    }

    /// See [`crate::ClientBuilder::retry_policy`].
    pub fn retry_policy(self, policy: RetryPolicy) -> Self {
        self.map(|b| b.retry_policy(policy))
    }

    /// See [`crate::ClientBuilder::on_retry`].
    pub fn on_retry(self, callback: impl Fn(&RetryEvent<'_>) + Send + Sync + 'static) -> Self {
        self.map(|b| b.on_retry(callback))
    }

    /// See [`crate::ClientBuilder::user_agent`].
    pub fn user_agent(self, user_agent: impl Into<String>) -> Self {
        self.map(|b| b.user_agent(user_agent))
    }

    /// See [`crate::ClientBuilder::http_client`]. The client's exchanges run on this client's
    /// runtime thread; do not also use the same reqwest client (its connection pool) on
    /// another runtime.
    pub fn http_client(self, client: reqwest::Client) -> Self {
        self.map(|b| b.http_client(client))
    }

    /// See [`crate::ClientBuilder::etag_cache`].
    pub fn etag_cache(self, enabled: bool) -> Self {
        self.map(|b| b.etag_cache(enabled))
    }

    /// See [`crate::ClientBuilder::with_etag_cache`].
    pub fn with_etag_cache(self, cache: EtagCache) -> Self {
        self.map(|b| b.with_etag_cache(cache))
    }

    /// See [`crate::ClientBuilder::etag_cache_file`].
    pub fn etag_cache_file(self, path: impl Into<PathBuf>) -> Self {
        self.map(|b| b.etag_cache_file(path))
    }

    /// See [`crate::ClientBuilder::max_restarts`].
    pub fn max_restarts(self, restarts: u32) -> Self {
        self.map(|b| b.max_restarts(restarts))
    }

    /// See [`crate::ClientBuilder::max_answer_bytes`].
    pub fn max_answer_bytes(self, bytes: u64) -> Self {
        self.map(|b| b.max_answer_bytes(bytes))
    }

    /// See [`crate::ClientBuilder::max_pages`].
    pub fn max_pages(self, pages: u32) -> Self {
        self.map(|b| b.max_pages(pages))
    }

    /// See [`crate::ClientBuilder::max_entries`].
    pub fn max_entries(self, entries: u64) -> Self {
        self.map(|b| b.max_entries(entries))
    }

    /// Builds the client and starts its runtime thread.
    pub fn build(self) -> Result<Client> {
        let io = IoRuntime::start().map_err(crate::Error::Runtime)?;
        // reqwest's client is created where the runtime is current.
        let _context = io.handle().enter();
        Ok(Client {
            inner: self.inner.io_runtime(io.clone()).build()?,
        })
    }
}

impl Client {
    /// See [`crate::Client::builder`].
    pub fn builder(base_url: impl Into<String>, key: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            inner: crate::Client::builder(base_url, key),
        }
    }

    /// A client with every default.
    pub fn new(base_url: impl Into<String>, key: impl Into<String>) -> Result<Self> {
        Self::builder(base_url, key).build()
    }

    /// See [`crate::Client::list`].
    pub fn list(&self, params: &ListParams) -> Result<BlogList> {
        self.block_on(self.inner.list(params))
    }

    /// See [`crate::Client::get`].
    pub fn get(&self, slug: &str) -> Result<BlogDetail> {
        self.block_on(self.inner.get(slug))
    }

    /// See [`crate::Client::redirects`].
    pub fn redirects(&self) -> Result<Redirects> {
        self.block_on(self.inner.redirects())
    }

    /// See [`crate::Client::sitemap`].
    pub fn sitemap(&self) -> Result<Sitemap> {
        self.block_on(self.inner.sitemap())
    }

    /// See [`crate::Client::all_blogs`].
    pub fn all_blogs(&self) -> Result<Vec<BlogListItem>> {
        self.block_on(self.inner.all_blogs())
    }

    /// See [`crate::Client::all_blogs_with_content`].
    pub fn all_blogs_with_content(&self) -> Result<Vec<BlogListItem>> {
        self.block_on(self.inner.all_blogs_with_content())
    }

    /// See [`crate::Client::all_blogs_with_progress`]; `progress` is called on this thread.
    pub fn all_blogs_with_progress(
        &self,
        include_content: bool,
        progress: impl FnMut(u64, u64),
    ) -> Result<Vec<BlogListItem>> {
        self.block_on(
            self.inner
                .all_blogs_with_progress(include_content, progress),
        )
    }

    /// See [`crate::Client::published`].
    pub fn published(&self, include_content: bool) -> Result<Published> {
        self.block_on(self.inner.published(include_content))
    }

    /// See [`crate::Client::published_with_progress`]; `progress` is called on this thread.
    pub fn published_with_progress(
        &self,
        include_content: bool,
        progress: impl FnMut(u64, u64),
    ) -> Result<Published> {
        self.block_on(
            self.inner
                .published_with_progress(include_content, progress),
        )
    }

    /// See [`crate::Client::changes`].
    pub fn changes(&self, since: Option<&ChangeCursor>, limit: Option<u32>) -> Result<ChangePage> {
        self.block_on(self.inner.changes(since, limit))
    }

    /// See [`crate::Client::changes_since`].
    pub fn changes_since(&self, since: Option<&ChangeCursor>) -> Result<Changes> {
        self.block_on(self.inner.changes_since(since))
    }

    /// See [`crate::Client::changes_since_with_progress`]; `progress` is called on this thread.
    pub fn changes_since_with_progress(
        &self,
        since: Option<&ChangeCursor>,
        progress: impl FnMut(u64),
    ) -> Result<Changes> {
        self.block_on(self.inner.changes_since_with_progress(since, progress))
    }

    /// See [`crate::Client::download_media`].
    pub fn download_media(&self, url: &str) -> Result<MediaFile> {
        self.block_on(self.inner.download_media(url))
    }

    /// See [`crate::Client::media_prefix`].
    pub fn media_prefix(&self) -> String {
        self.inner.media_prefix()
    }

    /// See [`crate::Client::etag_cache`].
    pub fn etag_cache(&self) -> Option<&EtagCache> {
        self.inner.etag_cache()
    }

    /// See [`crate::Client::save_etag_cache`].
    pub fn save_etag_cache(&self) -> Result<()> {
        self.inner.save_etag_cache()
    }

    /// See [`crate::Client::cache_stats`].
    pub fn cache_stats(&self) -> CacheStats {
        self.inner.cache_stats()
    }

    /// The async client underneath, sharing the connection pool, the cache and the runtime
    /// thread: usable on any runtime, before or after blocking calls. A clone of it keeps the
    /// runtime thread alive after this client is dropped.
    pub fn as_async(&self) -> &crate::Client {
        &self.inner
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.inner
            .inner
            .io
            .as_ref()
            .expect("a blocking client is built with its runtime thread")
            .block_on(future)
    }
}
