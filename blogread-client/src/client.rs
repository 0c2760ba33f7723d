//! The async [`Client`].

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{ACCEPT, AUTHORIZATION, ETAG, HeaderValue, IF_NONE_MATCH, USER_AGENT};
use serde::de::DeserializeOwned;

use crate::builder::ClientBuilder;
use crate::cache::{CacheStats, EtagCache};
use crate::error::{Error, Result};
use crate::retry::{self, RetryPolicy};
use crate::types::{
    BlogDetail, BlogList, BlogListItem, ListParams, MAX_PAGE_SIZE, SITEMAP_MAX_ENTRIES, Sitemap,
};

/// A client of one project's public read API. Cheap to clone (the connection pool and cache
/// are shared).
///
/// Every request sends the key as `Authorization: Bearer <key>`, is retried according to the
/// [`RetryPolicy`], and (with an [`EtagCache`]) is conditional.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) http: reqwest::Client,
    /// `{base}/blog/api/v1/public/blogs`.
    pub(crate) blogs_url: Url,
    pub(crate) auth: HeaderValue,
    pub(crate) user_agent: HeaderValue,
    pub(crate) timeout: Option<Duration>,
    pub(crate) retry: RetryPolicy,
    pub(crate) cache: Option<EtagCache>,
    pub(crate) max_restarts: u32,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("blogs_url", &self.inner.blogs_url.as_str())
            .field("retry", &self.inner.retry)
            .field("etag_cache", &self.inner.cache.is_some())
            .finish_non_exhaustive()
    }
}

/// Progress of a whole read: `(blogs read so far, total)`.
pub type Progress<'a> = &'a mut (dyn FnMut(u64, u64) + Send);

impl Client {
    /// Starts building a client for the server at `base_url` (its root, for example
    /// `https://blog.example.com`; the client appends `/blog/api/v1/public/...`) with the
    /// project's public key (`pk_live_...`).
    pub fn builder(base_url: impl Into<String>, key: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(base_url, key)
    }

    /// A client with every default.
    pub fn new(base_url: impl Into<String>, key: impl Into<String>) -> Result<Self> {
        Self::builder(base_url, key).build()
    }

    /// One page of published blogs, newest first (SPEC.md 4.1).
    pub async fn list(&self, params: &ListParams) -> Result<BlogList> {
        let mut url = self.inner.blogs_url.clone();
        let pairs = params.query_pairs();
        if !pairs.is_empty() {
            url.query_pairs_mut().extend_pairs(pairs);
        }
        self.get_json(url).await
    }

    /// One published blog by slug, content always present (SPEC.md 4.2).
    /// [`Error::NotFound`] when no published blog has this slug.
    pub async fn get(&self, slug: &str) -> Result<BlogDetail> {
        let mut url = self.inner.blogs_url.clone();
        // `push` percent-encodes the segment, so a slug can never reach another path.
        url.path_segments_mut()
            .expect("the blogs URL is a base")
            .push(slug);
        self.get_json(url).await
    }

    /// The sitemap data: slug and dates of at most 5000 blogs, newest first (SPEC.md 4.3).
    pub async fn sitemap(&self) -> Result<Sitemap> {
        let mut url = self.inner.blogs_url.clone();
        url.path_segments_mut()
            .expect("the blogs URL is a base")
            .push("sitemap");
        self.get_json(url).await
    }

    /// Every published blog, newest first, each exactly once, without bodies.
    ///
    /// Reads pages of 100 until `total` is reached, then checks the result against the sitemap.
    /// If `total` changes between pages, a page repeats a blog, a page comes back short, or the
    /// sitemap disagrees (a blog was published or unpublished mid-read), it starts again from
    /// the first page, up to [`ClientBuilder::max_restarts`] times, and then returns
    /// [`Error::Changed`]. It never returns duplicates or gaps.
    pub async fn all_blogs(&self) -> Result<Vec<BlogListItem>> {
        self.read_all(false, &mut |_, _| {}).await
    }

    /// As [`all_blogs`](Self::all_blogs), with every blog's `content`.
    pub async fn all_blogs_with_content(&self) -> Result<Vec<BlogListItem>> {
        self.read_all(true, &mut |_, _| {}).await
    }

    /// As [`all_blogs`](Self::all_blogs) (with `content` when `include_content`), calling
    /// `progress(read, total)` after each page.
    pub async fn all_blogs_with_progress(
        &self,
        include_content: bool,
        progress: Progress<'_>,
    ) -> Result<Vec<BlogListItem>> {
        self.read_all(include_content, progress).await
    }

    /// The ETag cache, if the client has one: save it after a build with
    /// [`EtagCache::save`], or read its [`stats`](EtagCache::stats).
    pub fn etag_cache(&self) -> Option<&EtagCache> {
        self.inner.cache.as_ref()
    }

    /// The cache's counters, or zeros without a cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.inner
            .cache
            .as_ref()
            .map(EtagCache::stats)
            .unwrap_or_default()
    }

    async fn read_all(
        &self,
        include_content: bool,
        progress: Progress<'_>,
    ) -> Result<Vec<BlogListItem>> {
        let attempts = self.inner.max_restarts.saturating_add(1);
        for _ in 0..attempts {
            if let Some(blogs) = self.read_all_once(include_content, progress).await? {
                return Ok(blogs);
            }
        }
        Err(Error::Changed { attempts })
    }

    /// One pass over every page; `None` when the list changed under it.
    async fn read_all_once(
        &self,
        include_content: bool,
        progress: Progress<'_>,
    ) -> Result<Option<Vec<BlogListItem>>> {
        let mut blogs: Vec<BlogListItem> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut total: Option<u64> = None;
        loop {
            let params = ListParams::new()
                .limit(MAX_PAGE_SIZE)
                .offset(blogs.len() as u64)
                .include_content(include_content);
            let page = self.list(&params).await?;
            let expected = *total.get_or_insert(page.total);
            if page.total != expected {
                return Ok(None);
            }
            let short = page.blogs.is_empty();
            for blog in page.blogs {
                if !seen.insert(blog.id.clone()) {
                    return Ok(None);
                }
                blogs.push(blog);
            }
            let read = blogs.len() as u64;
            if read > expected || (short && read < expected) {
                return Ok(None);
            }
            progress(read, expected);
            if read == expected {
                break;
            }
        }
        // Paging by offset cannot see a publish and an unpublish that cancel out between two
        // pages (one blog skipped, a gone one kept); the sitemap, read after the last page,
        // names the newest 5000 in one answer and catches that.
        let sitemap = self.sitemap().await?;
        let n = blogs.len().min(SITEMAP_MAX_ENTRIES);
        let ours: HashSet<&str> = blogs[..n].iter().map(|b| b.slug.as_str()).collect();
        let theirs: HashSet<&str> = sitemap.blogs.iter().map(|e| e.slug.as_str()).collect();
        if sitemap.blogs.len() != n || ours != theirs {
            return Ok(None);
        }
        Ok(Some(blogs))
    }

    async fn get_json<T: DeserializeOwned>(&self, url: Url) -> Result<T> {
        let cache = self.inner.cache.as_ref();
        let etag = cache.and_then(|c| c.etag_for(url.as_str()));
        match self.fetch(&url, etag.as_deref()).await? {
            Fetched::NotModified(body) => serde_json::from_str(&body).map_err(Error::Decode),
            Fetched::Body { body, etag } => {
                let value = serde_json::from_slice(&body).map_err(Error::Decode)?;
                if let Some(cache) = cache {
                    cache.fetched(url.as_str(), etag, &body);
                }
                Ok(value)
            }
        }
    }

    /// One GET with retries; a 200 body, or the cached body on 304.
    async fn fetch(&self, url: &Url, etag: Option<&str>) -> Result<Fetched> {
        let inner = &self.inner;
        let mut retry = 0u32;
        loop {
            let outcome = self.attempt(url, etag).await;
            let (err, retry_after) = match outcome {
                Ok(Answer {
                    status: 200,
                    etag,
                    body,
                    ..
                }) => {
                    return Ok(Fetched::Body { body, etag });
                }
                Ok(Answer { status: 304, .. }) if etag.is_some() => {
                    let kept = inner
                        .cache
                        .as_ref()
                        .and_then(|c| c.not_modified(url.as_str(), etag.unwrap_or_default()));
                    return match kept {
                        Some(body) => Ok(Fetched::NotModified(body)),
                        None => Err(Error::Api {
                            status: 304,
                            detail: "not modified, but the cached body is gone".to_owned(),
                        }),
                    };
                }
                Ok(answer) => {
                    let err = Error::from_response(answer.status, &answer.body);
                    if !retry::is_retryable_status(answer.status) {
                        return Err(err);
                    }
                    (err, answer.retry_after)
                }
                Err(e) => {
                    if !retry::is_retryable_transport(&e) {
                        return Err(Error::Transport(e));
                    }
                    (Error::Transport(e), None)
                }
            };
            retry += 1;
            if retry >= inner.retry.attempts() {
                return Err(err);
            }
            let delay = inner.retry.delay(retry, retry_after, &mut rand::rng());
            tokio::time::sleep(delay).await;
        }
    }

    async fn attempt(&self, url: &Url, etag: Option<&str>) -> reqwest::Result<Answer> {
        let inner = &self.inner;
        let mut request = inner
            .http
            .get(url.clone())
            .header(AUTHORIZATION, inner.auth.clone())
            .header(USER_AGENT, inner.user_agent.clone())
            .header(ACCEPT, "application/json");
        if let Some(timeout) = inner.timeout {
            request = request.timeout(timeout);
        }
        if let Some(etag) = etag {
            request = request.header(IF_NONE_MATCH, etag);
        }
        let response = request.send().await?;
        let status = response.status().as_u16();
        let retry_after = retry::retry_after(response.headers());
        let etag = response
            .headers()
            .get(ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.bytes().await?.to_vec();
        Ok(Answer {
            status,
            etag,
            retry_after,
            body,
        })
    }
}

struct Answer {
    status: u16,
    etag: Option<String>,
    retry_after: Option<Duration>,
    body: Vec<u8>,
}

enum Fetched {
    Body { body: Vec<u8>, etag: Option<String> },
    NotModified(String),
}
