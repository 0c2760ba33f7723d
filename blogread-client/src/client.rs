//! The async [`Client`].

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::Url;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderValue, IF_NONE_MATCH, USER_AGENT};
use serde::de::DeserializeOwned;

use crate::cache::{CacheStats, EtagCache};
use crate::changes::{ChangeCursor, ChangePage, Changes};
use crate::error::{Error, Result, UrlKind};
use crate::exchange::{AbortOnDrop, Answer, Failed, exchange};
use crate::key_stamp::KeyStamp;
use crate::retry::{self, RetryEvent, RetryPolicy};
use crate::runtime::IoRuntime;
use crate::types::{
    BlogDetail, BlogList, BlogListItem, ListParams, MAX_PAGE_SIZE, Published, PublishedBlog,
    Redirects, SITEMAP_MAX_ENTRIES, Sitemap,
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

/// What [`crate::ClientBuilder::on_retry`] calls.
pub(crate) type OnRetry = dyn Fn(&RetryEvent<'_>) + Send + Sync;

pub(crate) struct Inner {
    pub(crate) http: reqwest::Client,
    /// `{base}/blog/api/v1/public/blogs`.
    pub(crate) blogs_url: Url,
    pub(crate) auth: HeaderValue,
    pub(crate) user_agent: HeaderValue,
    pub(crate) timeout: Option<Duration>,
    pub(crate) deadline: Option<Duration>,
    pub(crate) retry: RetryPolicy,
    pub(crate) on_retry: Option<Arc<OnRetry>>,
    pub(crate) cache: Option<EtagCache>,
    /// Where [`Client::save_etag_cache`] saves the cache.
    pub(crate) cache_file: Option<PathBuf>,
    pub(crate) max_restarts: u32,
    /// The most bytes of one answer read ([`crate::ClientBuilder::max_answer_bytes`]).
    pub(crate) max_answer_bytes: u64,
    /// The most pages one call reads ([`crate::ClientBuilder::max_pages`]).
    pub(crate) max_pages: u32,
    /// The most entries one call collects ([`crate::ClientBuilder::max_entries`]).
    pub(crate) max_entries: u64,
    /// What the export records of the key, to tell another project's state folder.
    #[cfg_attr(not(feature = "export"), allow(dead_code))]
    pub(crate) key_stamp: KeyStamp,
    /// The blocking client's runtime thread: every HTTP exchange runs there when set.
    pub(crate) io: Option<Arc<IoRuntime>>,
    /// What [`Client::cache_stats`] reports, counted with or without a cache.
    pub(crate) answers: AnswerCounts,
}

/// The answers a client got: 304s and answers with a body.
#[derive(Default)]
pub(crate) struct AnswerCounts {
    not_modified: AtomicU64,
    fetched: AtomicU64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("blogs_url", &self.inner.blogs_url.as_str())
            .field("timeout", &self.inner.timeout)
            .field("deadline", &self.inner.deadline)
            .field("retry", &self.inner.retry)
            .field("etag_cache", &self.inner.cache.is_some())
            .field("etag_cache_file", &self.inner.cache_file)
            .finish_non_exhaustive()
    }
}

/// One call of a public method: its deadline, and whether any answer differed from the cache.
pub(crate) struct Call {
    /// When the call must end, and the deadline as set (for the message).
    deadline: Option<(Instant, Duration)>,
    changed: AtomicBool,
}

impl Call {
    /// Time left before the deadline, if there is one.
    fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|(at, _)| at.saturating_duration_since(Instant::now()))
    }
}

impl Client {
    /// A client with every default.
    pub fn new(base_url: impl Into<String>, key: impl Into<String>) -> Result<Self> {
        Self::builder(base_url, key).build()
    }

    /// One page of published blogs, newest first (`docs/public-api.md#list-published-blogs`).
    pub async fn list(&self, params: &ListParams) -> Result<BlogList> {
        self.list_in(&self.call(), params, true).await
    }

    /// One published blog by slug, content always present
    /// (`docs/public-api.md#get-one-blog`).
    ///
    /// [`Error::NotFound`] when the API says no published blog has this slug;
    /// [`Error::InvalidSlug`], before any request, for a slug no blog can have (outside the
    /// slug grammar, or `sitemap` or `redirects`, which name endpoints).
    pub async fn get(&self, slug: &str) -> Result<BlogDetail> {
        if let Some(reason) = crate::slug::refusal(slug) {
            return Err(Error::InvalidSlug {
                slug: slug.to_owned(),
                reason,
            });
        }
        let mut url = self.inner.blogs_url.clone();
        // `push` percent-encodes the segment (a valid slug needs none).
        url.path_segments_mut()
            .expect("the blogs URL is a base")
            .push(slug);
        self.get_json(&self.call(), url, true, UrlKind::Blog).await
    }

    /// The sitemap data: slug and dates of at most 5000 blogs, newest first
    /// (`docs/public-api.md#sitemap`).
    pub async fn sitemap(&self) -> Result<Sitemap> {
        self.sitemap_in(&self.call(), true).await
    }

    /// Every published blog, newest first, each exactly once, without bodies.
    ///
    /// Reads pages of 100 until `total` is reached, then checks the result against the sitemap.
    /// If `total` changes between pages, a page repeats a blog, a page comes back short, or the
    /// sitemap disagrees (a blog was published or unpublished mid-read), it starts again from
    /// the first page, without conditional requests, up to [`crate::ClientBuilder::max_restarts`]
    /// times, and then returns [`Error::Changed`]. It never returns duplicates or gaps.
    ///
    /// [`published`](Self::published) returns the same blogs with each one's `updated_at`, and
    /// whether anything changed since the cached run.
    pub async fn all_blogs(&self) -> Result<Vec<BlogListItem>> {
        self.all_blogs_with_progress(false, |_, _| {}).await
    }

    /// As [`all_blogs`](Self::all_blogs), with every blog's `content`.
    pub async fn all_blogs_with_content(&self) -> Result<Vec<BlogListItem>> {
        self.all_blogs_with_progress(true, |_, _| {}).await
    }

    /// As [`all_blogs`](Self::all_blogs) (with `content` when `include_content`), calling
    /// `progress(read, total)` after each page. The future is `Send` when `progress` is.
    pub async fn all_blogs_with_progress(
        &self,
        include_content: bool,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<Vec<BlogListItem>> {
        let call = self.call();
        let (blogs, _) = self.read_all(&call, include_content, &mut progress).await?;
        Ok(blogs)
    }

    /// Every published blog, newest first, each exactly once (as [`all_blogs`](Self::all_blogs),
    /// with `content` when `include_content`), with each one's last publish time
    /// (`updated_at`, from the sitemap the read checks itself against), and whether any answer
    /// differed from the ETag cache's ([`Published::changed`]): everything a generator needs
    /// from one call.
    ///
    /// ```no_run
    /// # async fn build() -> Result<(), blogread_client::Error> {
    /// let client = blogread_client::Client::builder("https://blog.example.com", "pk_live_...")
    ///     .etag_cache_file(".blogread/cache.json")
    ///     .build()?;
    /// let published = client.published(true).await?;
    /// if published.changed {
    ///     for post in &published.blogs {
    ///         println!("{} (updated {:?})", post.blog.slug, post.updated_at);
    ///     }
    /// }
    /// client.save_etag_cache()?;
    /// # Ok(()) }
    /// ```
    pub async fn published(&self, include_content: bool) -> Result<Published> {
        self.published_with_progress(include_content, |_, _| {})
            .await
    }

    /// As [`published`](Self::published), calling `progress(read, total)` after each page.
    /// The future is `Send` when `progress` is.
    pub async fn published_with_progress(
        &self,
        include_content: bool,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<Published> {
        let call = self.call();
        let (blogs, sitemap) = self.read_all(&call, include_content, &mut progress).await?;
        let updated: HashMap<String, _> = sitemap
            .blogs
            .into_iter()
            .map(|e| (e.slug, e.updated_at))
            .collect();
        let blogs = blogs
            .into_iter()
            .map(|blog| PublishedBlog {
                updated_at: updated.get(&blog.slug).copied(),
                blog,
            })
            .collect();
        Ok(Published {
            blogs,
            changed: call.changed.load(Ordering::Relaxed),
        })
    }

    /// The ETag cache, if the client has one: read its [`stats`](EtagCache::stats), or save
    /// it with [`EtagCache::save`] (or [`save_etag_cache`](Self::save_etag_cache) with a
    /// cache file).
    pub fn etag_cache(&self) -> Option<&EtagCache> {
        self.inner.cache.as_ref()
    }

    /// Saves the ETag cache to the file given to [`crate::ClientBuilder::etag_cache_file`], keeping
    /// only the entries this client used (read or refreshed), so the file holds what this
    /// build read and nothing older. Call it after a successful build. Does nothing when the
    /// client has no cache file. Written atomically (a temporary file renamed over the old).
    pub fn save_etag_cache(&self) -> Result<()> {
        let (Some(cache), Some(path)) = (&self.inner.cache, &self.inner.cache_file) else {
            return Ok(());
        };
        cache.retain_used();
        cache.save(path).map_err(|error| Error::CacheFile {
            path: path.clone(),
            error,
        })
    }

    /// The answers this client got: `not_modified`, 304s answered from the ETag cache (no
    /// body transferred), and `fetched`, answers that carried a body (every answer, without a
    /// cache).
    pub fn cache_stats(&self) -> CacheStats {
        CacheStats {
            not_modified: self.inner.answers.not_modified.load(Ordering::Relaxed),
            fetched: self.inner.answers.fetched.load(Ordering::Relaxed),
        }
    }

    /// The public blogs URL (`{base}/blog/api/v1/public/blogs`), the start of every other.
    pub(crate) fn blogs_url(&self) -> &Url {
        &self.inner.blogs_url
    }

    /// What the export records of this client's key.
    #[cfg_attr(not(feature = "export"), allow(dead_code))]
    pub(crate) fn key_stamp(&self) -> &KeyStamp {
        &self.inner.key_stamp
    }

    pub(crate) fn call(&self) -> Call {
        Call {
            deadline: self
                .inner
                .deadline
                .and_then(|d| Some((Instant::now().checked_add(d)?, d))),
            changed: AtomicBool::new(false),
        }
    }

    async fn list_in(
        &self,
        call: &Call,
        params: &ListParams,
        conditional: bool,
    ) -> Result<BlogList> {
        self.get_json(call, self.list_url(params), conditional, UrlKind::Other)
            .await
    }

    /// The URL of the list page `params` asks for.
    fn list_url(&self, params: &ListParams) -> Url {
        let mut url = self.inner.blogs_url.clone();
        let pairs = params.query_pairs();
        if !pairs.is_empty() {
            url.query_pairs_mut().extend_pairs(pairs);
        }
        url
    }

    /// The redirects of renamed posts: each old slug (an alias the post keeps) and the post's
    /// current slug, newest rename first, at most 5000. A site answers each old address with
    /// a redirect to the new one (`blogread export` writes them as `aliases`, or as redirect
    /// pages for plain HTML).
    pub async fn redirects(&self) -> Result<Redirects> {
        let mut url = self.inner.blogs_url.clone();
        url.path_segments_mut()
            .expect("the blogs URL is a base")
            .push("redirects");
        self.get_json(&self.call(), url, true, UrlKind::Other).await
    }

    /// One page of the changes feed (`docs/public-api.md#changes-feed`): what changed in the
    /// project's public answers after the cursor `since`, or, without one, every published
    /// post as an upsert (the initial sync). At most `limit` entries (clamped into 1..=100;
    /// `None` leaves it to the server, whose default is 100); a page of large bodies holds
    /// fewer. Ask again with the page's `cursor` at once while `has_more` is true.
    ///
    /// Most callers want [`changes_since`](Self::changes_since), which follows the pages to
    /// the end. Errors of the feed's own: [`Error::CursorExpired`] (410) and
    /// [`Error::InvalidCursor`] (400) mean the feed must be read again without a cursor
    /// ([`Error::is_cursor_unusable`]); [`Error::NoChangesFeed`] (404) that the server has no
    /// feed. Retries, time-outs and the ETag cache work as for every other call.
    pub async fn changes(
        &self,
        since: Option<&ChangeCursor>,
        limit: Option<u32>,
    ) -> Result<ChangePage> {
        let (_, page) = self.changes_in(&self.call(), since, limit).await?;
        Ok(page)
    }

    /// Every entry of the changes feed after the cursor `since` (every published post, as
    /// upserts, without one), reading pages until `has_more` is false, and the cursor to keep
    /// for the next call. Applying the entries in order to what was read up to `since` gives
    /// exactly what a full read returns now.
    ///
    /// ```no_run
    /// # async fn build(saved: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
    /// use blogread_client::{Change, ChangeCursor, Client};
    /// let client = Client::new("https://blog.example.com", "pk_live_...")?;
    /// let since: Option<ChangeCursor> = saved.map(|s| s.parse()).transpose()?;
    /// let read = match client.changes_since(since.as_ref()).await {
    ///     // Too old, or of another database: start again from nothing.
    ///     Err(e) if e.is_cursor_unusable() => client.changes_since(None).await?,
    ///     other => other?,
    /// };
    /// for change in &read.changes {
    ///     match change {
    ///         Change::Upsert { blog, aliases } => println!("write {} ({aliases:?})", blog.slug),
    ///         Change::Delete { slug } => println!("remove {slug}"),
    ///         _ => unreachable!("the two kinds of entry"),
    ///     }
    /// }
    /// let keep: String = read.cursor.to_string(); // store it once the entries are applied
    /// # Ok(()) }
    /// ```
    ///
    /// Errors as for [`changes`](Self::changes), and [`Error::FeedStalled`] if the server says
    /// more entries follow but neither gives any nor moves its cursor.
    pub async fn changes_since(&self, since: Option<&ChangeCursor>) -> Result<Changes> {
        self.changes_since_with_progress(since, |_| {}).await
    }

    /// As [`changes_since`](Self::changes_since), calling `progress(entries)` with the
    /// number of entries read so far after each page (the feed does not say how many
    /// follow). The future is `Send` when `progress` is.
    pub async fn changes_since_with_progress(
        &self,
        since: Option<&ChangeCursor>,
        mut progress: impl FnMut(u64),
    ) -> Result<Changes> {
        let call = self.call();
        let mut cursor = since.cloned();
        let mut changes = Vec::new();
        let mut pages = 0u32;
        loop {
            let (url, page) = self.changes_in(&call, cursor.as_ref(), None).await?;
            pages = pages.saturating_add(1);
            let stalled =
                page.has_more && (page.changes.is_empty() || cursor.as_ref() == Some(&page.cursor));
            if stalled {
                return Err(Error::FeedStalled {
                    url: url.to_string(),
                });
            }
            self.check_entries(&url, changes.len(), page.changes.len())?;
            if page.has_more {
                self.check_pages(&url, pages)?;
            }
            changes.extend(page.changes);
            progress(changes.len() as u64);
            if !page.has_more {
                return Ok(Changes {
                    changes,
                    cursor: page.cursor,
                    pages,
                });
            }
            cursor = Some(page.cursor);
        }
    }

    /// One page of the feed, and the URL it was read from.
    async fn changes_in(
        &self,
        call: &Call,
        since: Option<&ChangeCursor>,
        limit: Option<u32>,
    ) -> Result<(Url, ChangePage)> {
        let mut url = self.inner.blogs_url.clone();
        url.path_segments_mut()
            .expect("the blogs URL is a base")
            .pop()
            .push("changes");
        {
            let mut query = url.query_pairs_mut();
            if let Some(since) = since {
                query.append_pair("since", since.as_str());
            }
            if let Some(limit) = limit {
                query.append_pair("limit", &limit.clamp(1, MAX_PAGE_SIZE).to_string());
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        let kind = UrlKind::Changes {
            cursor: since.is_some(),
        };
        let page = self.get_json(call, url.clone(), true, kind).await?;
        Ok((url, page))
    }

    async fn sitemap_in(&self, call: &Call, conditional: bool) -> Result<Sitemap> {
        let mut url = self.inner.blogs_url.clone();
        url.path_segments_mut()
            .expect("the blogs URL is a base")
            .push("sitemap");
        self.get_json(call, url, conditional, UrlKind::Other).await
    }

    /// Fails with [`Error::TooManyEntries`] when `held` entries and `more` of a new page pass
    /// [`Inner::max_entries`].
    fn check_entries(&self, url: &Url, held: usize, more: usize) -> Result<()> {
        let limit = self.inner.max_entries;
        let total = (held as u64).saturating_add(more as u64);
        if total > limit {
            return Err(Error::TooManyEntries {
                url: url.to_string(),
                limit,
            });
        }
        Ok(())
    }

    /// Fails with [`Error::TooManyPages`] when `pages` pages were read and another is due.
    fn check_pages(&self, url: &Url, pages: u32) -> Result<()> {
        let limit = self.inner.max_pages;
        if pages >= limit {
            return Err(Error::TooManyPages {
                url: url.to_string(),
                limit,
            });
        }
        Ok(())
    }

    /// Every blog and the sitemap that agrees with them.
    async fn read_all<P: FnMut(u64, u64)>(
        &self,
        call: &Call,
        include_content: bool,
        progress: &mut P,
    ) -> Result<(Vec<BlogListItem>, Sitemap)> {
        let attempts = self.inner.max_restarts.saturating_add(1);
        // Pages read by every pass of this call.
        let mut pages = 0u32;
        for pass in 0..attempts {
            // Later passes ask without If-None-Match: kept answers that disagree with each
            // other (a hand-edited cache) would otherwise make every pass fail the same way.
            let conditional = pass == 0;
            if let Some(read) = self
                .read_all_once(call, include_content, conditional, &mut pages, progress)
                .await?
            {
                return Ok(read);
            }
        }
        Err(Error::Changed { attempts })
    }

    /// One pass over every page; `None` when the list changed under it. `pages` counts the
    /// pages of the whole call.
    async fn read_all_once<P: FnMut(u64, u64)>(
        &self,
        call: &Call,
        include_content: bool,
        conditional: bool,
        pages: &mut u32,
        progress: &mut P,
    ) -> Result<Option<(Vec<BlogListItem>, Sitemap)>> {
        let mut blogs: Vec<BlogListItem> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut total: Option<u64> = None;
        loop {
            let params = ListParams::new()
                .limit(MAX_PAGE_SIZE)
                .offset(blogs.len() as u64)
                .include_content(include_content);
            if *pages > 0 {
                self.check_pages(&self.list_url(&params), *pages)?;
            }
            let page = self.list_in(call, &params, conditional).await?;
            *pages = pages.saturating_add(1);
            self.check_entries(&self.list_url(&params), blogs.len(), page.blogs.len())?;
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
        let sitemap = self.sitemap_in(call, conditional).await?;
        let n = blogs.len().min(SITEMAP_MAX_ENTRIES);
        let ours: HashSet<&str> = blogs[..n].iter().map(|b| b.slug.as_str()).collect();
        let theirs: HashSet<&str> = sitemap.blogs.iter().map(|e| e.slug.as_str()).collect();
        if sitemap.blogs.len() != n || ours != theirs {
            return Ok(None);
        }
        Ok(Some((blogs, sitemap)))
    }

    /// GETs `url` and decodes the answer: with a cache and `conditional`, sends the kept
    /// `ETag` and decodes the kept body on 304; a kept body that no longer decodes is dropped
    /// and the URL asked for again without `If-None-Match`. `kind` says what `url` is, for
    /// what its error answers mean.
    async fn get_json<T: DeserializeOwned>(
        &self,
        call: &Call,
        url: Url,
        conditional: bool,
        kind: UrlKind,
    ) -> Result<T> {
        if let Some(cache) = self.inner.cache.as_ref().filter(|_| conditional)
            && let Some(etag) = cache.etag_for(url.as_str())
        {
            match self
                .fetch(call, &url, Some(&etag), kind, self.json())
                .await?
            {
                Exchange::Body { body, etag, .. } => {
                    return self.decode_fresh(call, &url, body, etag);
                }
                Exchange::NotModified => {
                    let kept = cache.not_modified(url.as_str(), &etag);
                    if kept.is_some() {
                        self.inner
                            .answers
                            .not_modified
                            .fetch_add(1, Ordering::Relaxed);
                    }
                    if let Some(value) = kept.and_then(|body| serde_json::from_str(&body).ok()) {
                        return Ok(value);
                    }
                    cache.forget(url.as_str());
                }
            }
        }
        match self.fetch(call, &url, None, kind, self.json()).await? {
            Exchange::Body { body, etag, .. } => self.decode_fresh(call, &url, body, etag),
            // `fetch` gives NotModified only to a conditional request.
            Exchange::NotModified => Err(Error::Api {
                status: 304,
                detail: "not modified, to a request that was not conditional".to_owned(),
            }),
        }
    }

    /// Decodes a body that came with a 200, and records it in the cache.
    fn decode_fresh<T: DeserializeOwned>(
        &self,
        call: &Call,
        url: &Url,
        body: Vec<u8>,
        etag: Option<String>,
    ) -> Result<T> {
        let value = serde_json::from_slice(&body).map_err(|error| Error::Decode {
            url: url.to_string(),
            error,
        })?;
        self.inner.answers.fetched.fetch_add(1, Ordering::Relaxed);
        let changed = match &self.inner.cache {
            Some(cache) => cache.fetched(url.as_str(), etag, &body),
            None => true,
        };
        if changed {
            call.changed.store(true, Ordering::Relaxed);
        }
        Ok(value)
    }

    /// What the JSON answers of the API are asked for with: `Accept: application/json`, at
    /// most [`crate::ClientBuilder::max_answer_bytes`].
    fn json(&self) -> Wanted {
        Wanted {
            accept: "application/json",
            max: self.inner.max_answer_bytes,
        }
    }

    /// One GET with retries, within the call's deadline: a 200 body, or `NotModified` for a
    /// 304 to a conditional request.
    pub(crate) async fn fetch(
        &self,
        call: &Call,
        url: &Url,
        etag: Option<&str>,
        kind: UrlKind,
        wanted: Wanted,
    ) -> Result<Exchange> {
        let inner = &self.inner;
        let max_attempts = inner.retry.attempts();
        let mut last: Option<Error> = None;
        let mut attempt = 0u32;
        let deadline_error = |attempts: u32, last: Option<Error>| Error::Deadline {
            url: url.to_string(),
            attempts,
            deadline: call.deadline.map(|(_, d)| d).unwrap_or_default(),
            last: last.map(Box::new),
        };
        loop {
            // Each attempt's time-out, shortened to what is left of the call's deadline.
            let remaining = call.remaining();
            if remaining == Some(Duration::ZERO) {
                return Err(deadline_error(attempt, last));
            }
            attempt += 1;
            let (timeout, cut_by_deadline) = match (inner.timeout, remaining) {
                (Some(t), Some(r)) if r < t => (Some(r), true),
                (None, Some(r)) => (Some(r), true),
                (t, _) => (t, false),
            };
            let (err, retry_after) = match self.attempt(url, etag, timeout, wanted).await? {
                // Not retried: the server would send the same.
                Err(Failed::TooLarge { declared }) => {
                    return Err(Error::AnswerTooLarge {
                        url: url.to_string(),
                        limit: wanted.max,
                        declared,
                    });
                }
                Ok(Answer {
                    status: 200,
                    etag,
                    content_type,
                    body,
                    ..
                }) => {
                    return Ok(Exchange::Body {
                        body,
                        etag,
                        content_type,
                    });
                }
                Ok(Answer { status: 304, .. }) if etag.is_some() => {
                    return Ok(Exchange::NotModified);
                }
                Ok(answer) => {
                    let err = Error::from_response(answer.status, &answer.body, url.as_str(), kind);
                    if !retry::is_retryable_status(answer.status) {
                        return Err(err);
                    }
                    (err, answer.retry_after)
                }
                Err(Failed::Http(e)) if e.is_timeout() && cut_by_deadline => {
                    return Err(deadline_error(attempt, last));
                }
                Err(Failed::Http(e)) => {
                    let retryable = retry::is_retryable_transport(&e);
                    let err = Error::Transport {
                        url: url.to_string(),
                        attempts: attempt,
                        error: e,
                    };
                    if !retryable {
                        return Err(err);
                    }
                    (err, None)
                }
            };
            if attempt >= max_attempts {
                return Err(err);
            }
            let delay = inner.retry.delay(attempt, retry_after, &mut rand::rng());
            if call.remaining().is_some_and(|left| delay >= left) {
                return Err(deadline_error(attempt, Some(err)));
            }
            if let Some(on_retry) = &inner.on_retry {
                on_retry(&RetryEvent {
                    url: url.as_str(),
                    attempt,
                    max_attempts,
                    delay,
                    error: &err,
                });
            }
            last = Some(err);
            tokio::time::sleep(delay).await;
        }
    }

    /// One attempt. The outer error is the blocking client's runtime failing, the inner one
    /// the exchange's.
    async fn attempt(
        &self,
        url: &Url,
        etag: Option<&str>,
        timeout: Option<Duration>,
        wanted: Wanted,
    ) -> Result<Result<Answer, Failed>> {
        let inner = &self.inner;
        let mut request = inner
            .http
            .get(url.clone())
            .header(AUTHORIZATION, inner.auth.clone())
            .header(USER_AGENT, inner.user_agent.clone())
            .header(ACCEPT, wanted.accept);
        if let Some(timeout) = timeout {
            request = request.timeout(timeout);
        }
        if let Some(etag) = etag {
            request = request.header(IF_NONE_MATCH, etag);
        }
        let max = wanted.max;
        let Some(io) = &inner.io else {
            return Ok(exchange(request, max).await);
        };
        // On the blocking client's runtime thread, whichever runtime (or none) polls us, so
        // every pooled connection lives where a runtime always runs.
        let mut task = AbortOnDrop(io.handle().spawn(exchange(request, max)));
        match (&mut task.0).await {
            Ok(result) => Ok(result),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => Err(Error::Runtime(std::io::Error::other(
                "the client's runtime thread stopped during a request",
            ))),
        }
    }
}

/// What a GET asks for: the type of answer it accepts and the most bytes read of one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wanted {
    /// The `Accept` header.
    pub(crate) accept: &'static str,
    /// The most bytes of the answer read ([`Error::AnswerTooLarge`] past it).
    pub(crate) max: u64,
}

/// The outcome of [`Client::fetch`].
pub(crate) enum Exchange {
    /// A 200 and its body.
    Body {
        body: Vec<u8>,
        etag: Option<String>,
        content_type: Option<String>,
    },
    /// A 304 to a conditional request.
    NotModified,
}
