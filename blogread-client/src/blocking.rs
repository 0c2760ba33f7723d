//! A blocking [`Client`] with the same surface as the async one, for generators that are not
//! async (feature `blocking`).
//!
//! It wraps the async [`crate::Client`] and drives it on a private current-thread tokio
//! runtime, rather than using reqwest's own `blocking` client: that way retries, back-off,
//! conditional requests and the restart logic of [`Client::all_blogs`] are one implementation,
//! not two that could drift apart, and the crate pulls in no second HTTP stack. The cost is one
//! small runtime per client (no threads of its own). Called from inside an async runtime (where
//! `block_on` would panic), a call runs on a scoped helper thread instead.
//!
//! ```no_run
//! # fn main() -> Result<(), blogread_client::Error> {
//! let client = blogread_client::blocking::Client::new("https://blog.example.com", "pk_live_...")?;
//! for blog in client.all_blogs_with_content()? {
//!     println!("{} ({})", blog.title, blog.slug);
//! }
//! # Ok(()) }
//! ```

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::cache::{CacheStats, EtagCache};
use crate::error::Result;
use crate::retry::RetryPolicy;
use crate::types::{BlogDetail, BlogList, BlogListItem, ListParams, Sitemap};

/// The blocking client. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Client {
    inner: crate::Client,
    runtime: Arc<tokio::runtime::Runtime>,
}

/// Builds a blocking [`Client`]; the same options as [`crate::ClientBuilder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ClientBuilder {
    inner: crate::ClientBuilder,
}

impl ClientBuilder {
    /// See [`crate::ClientBuilder::timeout`].
    pub fn timeout(self, timeout: impl Into<Option<Duration>>) -> Self {
        Self {
            inner: self.inner.timeout(timeout),
        }
    }

    /// See [`crate::ClientBuilder::connect_timeout`].
    pub fn connect_timeout(self, timeout: Duration) -> Self {
        Self {
            inner: self.inner.connect_timeout(timeout),
        }
    }

    /// See [`crate::ClientBuilder::retry_policy`].
    pub fn retry_policy(self, policy: RetryPolicy) -> Self {
        Self {
            inner: self.inner.retry_policy(policy),
        }
    }

    /// See [`crate::ClientBuilder::user_agent`].
    pub fn user_agent(self, user_agent: impl Into<String>) -> Self {
        Self {
            inner: self.inner.user_agent(user_agent),
        }
    }

    /// See [`crate::ClientBuilder::http_client`] (an async reqwest client: this one runs it).
    pub fn http_client(self, client: reqwest::Client) -> Self {
        Self {
            inner: self.inner.http_client(client),
        }
    }

    /// See [`crate::ClientBuilder::etag_cache`].
    pub fn etag_cache(self, enabled: bool) -> Self {
        Self {
            inner: self.inner.etag_cache(enabled),
        }
    }

    /// See [`crate::ClientBuilder::with_etag_cache`].
    pub fn with_etag_cache(self, cache: EtagCache) -> Self {
        Self {
            inner: self.inner.with_etag_cache(cache),
        }
    }

    /// See [`crate::ClientBuilder::max_restarts`].
    pub fn max_restarts(self, restarts: u32) -> Self {
        Self {
            inner: self.inner.max_restarts(restarts),
        }
    }

    /// Builds the client and its runtime.
    pub fn build(self) -> Result<Client> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(crate::Error::Runtime)?;
        // reqwest's client must be created where a runtime is current.
        let _guard = runtime.enter();
        Ok(Client {
            inner: self.inner.build()?,
            runtime: Arc::new(runtime),
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

    /// See [`crate::Client::all_blogs_with_progress`].
    pub fn all_blogs_with_progress(
        &self,
        include_content: bool,
        progress: crate::Progress<'_>,
    ) -> Result<Vec<BlogListItem>> {
        self.block_on(
            self.inner
                .all_blogs_with_progress(include_content, progress),
        )
    }

    /// See [`crate::Client::etag_cache`].
    pub fn etag_cache(&self) -> Option<&EtagCache> {
        self.inner.etag_cache()
    }

    /// See [`crate::Client::cache_stats`].
    pub fn cache_stats(&self) -> CacheStats {
        self.inner.cache_stats()
    }

    /// The async client underneath (sharing pool and cache).
    pub fn as_async(&self) -> &crate::Client {
        &self.inner
    }

    fn block_on<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        if tokio::runtime::Handle::try_current().is_ok() {
            // Inside someone's runtime `block_on` would panic; run on a helper thread.
            std::thread::scope(|s| {
                s.spawn(|| self.runtime.block_on(future))
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        } else {
            self.runtime.block_on(future)
        }
    }
}
