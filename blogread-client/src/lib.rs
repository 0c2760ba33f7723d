//! # blogread-client
//!
//! A typed client for the blogread public read API (`docs/public-api.md` in the repository),
//! for Rust static-site generators, and (feature `cli`) the `blogread` command that exports
//! published posts as content files for Zola, Hugo or plain HTML.
//!
//! ## Read every published post
//!
//! ```no_run
//! # async fn build() -> Result<(), blogread_client::Error> {
//! let key = std::env::var("BLOGREAD_API_KEY").expect("set BLOGREAD_API_KEY");
//! let client = blogread_client::Client::new("https://blog.example.com", key)?;
//! for blog in client.all_blogs_with_content().await? {
//!     let bytes = blog.content.as_deref().map_or(0, str::len);
//!     println!("{} -> /blog/{}/ ({bytes} bytes)", blog.title, blog.slug);
//! }
//! # Ok(()) }
//! ```
//!
//! [`Client::all_blogs`] pages with `limit=100` until `total` is read, and starts again when a
//! blog is published or unpublished while it reads, so a build never sees a post twice or
//! misses one. Without async, the `blocking` feature gives [`blocking::Client`] with the same
//! methods.
//!
//! ## A build that skips work when nothing changed
//!
//! [`Client::published`] returns every post (with or without content), each with its
//! `updated_at`, and whether any answer differed from the ETag cache's. With the cache kept in
//! a file ([`ClientBuilder::etag_cache_file`], saved with [`Client::save_etag_cache`]) an
//! unchanged rebuild gets only 304 answers, transfers no bodies and learns `changed == false`:
//!
//! ```no_run
//! # async fn build() -> Result<(), blogread_client::Error> {
//! # let key = "pk_live_...";
//! let client = blogread_client::Client::builder("https://blog.example.com", key)
//!     .etag_cache_file(".blogread/cache.json")
//!     .build()?;
//! let published = client.published(true).await?;
//! if published.changed {
//!     // write the pages
//! }
//! client.save_etag_cache()?; // keeps only what this build used
//! # Ok(()) }
//! ```
//!
//! The `blocking_cache` example does the same without async.
//!
//! ## A build that reads only what changed
//!
//! [`Client::changes_since`] reads the changes feed: with no cursor every published post (the
//! initial sync), with the [`ChangeCursor`] of the last read only the posts whose answer
//! changed since (links to posts that changed included) and the slugs that no longer name a
//! published post. Applying the [`Change`]s in order to what was read before gives exactly a
//! full read; keep the new cursor (it serialises to a string) for the next build. A cursor
//! the server no longer takes ([`Error::is_cursor_unusable`]) means reading from the start;
//! a server without the feed answers [`Error::NoChangesFeed`]. `blogread export` works this
//! way (`docs/client.md#incremental-export`).
//!
//! ## What the client does for you
//!
//! - Sends the key as `Authorization: Bearer <key>` (never in the URL, so it stays out of
//!   access logs). Keep it in an environment variable of the build, not in the repository.
//! - Retries 500, 502, 503, 504 and network errors with bounded exponential back-off and
//!   jitter ([`RetryPolicy`]); never retries 401, 404 or another 4xx
//!   (`docs/public-api.md#client-guidance`).
//!   [`ClientBuilder::on_retry`] sees each retry; [`ClientBuilder::deadline`] bounds a whole
//!   call (the worst case of the defaults is about 2 minutes per request on a hung server:
//!   see [`ClientBuilder`]).
//! - Returns [`Error::Unauthorized`] and [`Error::NotFound`] as their own variants, a 404 that
//!   is not the API's answer as [`Error::EndpointNotFound`] naming the URL, and [`Error::Api`]
//!   with the status and the server's `detail` for anything else.
//! - With [`ClientBuilder::etag_cache`] or [`ClientBuilder::etag_cache_file`] sends
//!   `If-None-Match`, so answers that did not change come back as 304 with no body.
//! - Trusts no server: reads at most [`ClientBuilder::max_answer_bytes`] of one answer (chunk
//!   by chunk), and at most [`ClientBuilder::max_pages`] pages and
//!   [`ClientBuilder::max_entries`] entries in one call; no answer makes it panic.
//! - Refuses, before any request, a slug no blog can have ([`Error::InvalidSlug`]); and every
//!   `slug` it returns matches the slug grammar ([`is_valid_slug`]: lower-case letters, digits,
//!   single hyphens), so it is safe as a file name or path segment as is.
//!
//! ## What each fault gives
//!
//! With the default [`RetryPolicy`] (4 attempts) and time-outs (30 s per attempt, 10 s to
//! connect):
//!
//! | Fault | What the client does | What the call returns |
//! |---|---|---|
//! | Connection refused, DNS or TLS failure | retries | [`Error::Transport`] with [`is_connect`](Error::is_connect): "could not reach the blogread server at `<url>` after 4 attempts: connection refused (os error 111)" |
//! | Server stopped, then back within the retries | retries with back-off | the answer |
//! | Server accepts and never answers (frozen) | each attempt times out after 30 s; retries | [`Error::Transport`] with [`is_timeout`](Error::is_timeout), after about 2 minutes |
//! | Connection closed before the whole answer (half a body) | retries | the answer, or [`Error::Transport`] naming the cause |
//! | 500, 502, 503, 504 | retries; a `Retry-After` in seconds is honoured up to the policy's `max_delay` | the answer, or [`Error::Api`] with the status and `detail` |
//! | 429, 400, 403 or another 4xx | no retry | [`Error::Api`] |
//! | 401 | no retry | [`Error::Unauthorized`] |
//! | 404 to [`Client::get`] with the API's "no published blog" answer | no retry | [`Error::NotFound`] |
//! | Any other 404 (a wrong base URL, a proxy's page), any 404 on the list or sitemap | no retry | [`Error::EndpointNotFound`] naming the URL |
//! | 404 from the changes feed (a server older than the feed, or a wrong base URL) | no retry | [`Error::NoChangesFeed`] naming the URL |
//! | 410 from the changes feed (a cursor older than the deletions the server keeps) | no retry | [`Error::CursorExpired`]: read the feed from the start |
//! | 400 from the changes feed to a cursor (another project's or database's, or damaged) | no retry | [`Error::InvalidCursor`]: read the feed from the start |
//! | The feed says more follow but gives no entry, or its cursor back | stops | [`Error::FeedStalled`] naming the URL |
//! | An answer longer than [`max_answer_bytes`](ClientBuilder::max_answer_bytes) (64 MiB), declared or not | stops reading it there (or before, when declared); no retry | [`Error::AnswerTooLarge`] naming the URL and the cap |
//! | A feed whose `has_more` never ends, a list that never reaches its `total` | stops after [`max_pages`](ClientBuilder::max_pages) pages (100,000) or [`max_entries`](ClientBuilder::max_entries) entries (1,000,000) | [`Error::TooManyPages`], [`Error::TooManyEntries`] |
//! | 200 whose body is not the documented JSON, or names a slug outside the grammar | no retry | [`Error::Decode`] naming the URL |
//! | `get("sitemap")`, `get("redirects")`, a slug outside the grammar | sends nothing | [`Error::InvalidSlug`] |
//! | The call's [`deadline`](ClientBuilder::deadline) passes | cuts the attempt short, starts no retry that would pass it | [`Error::Deadline`] (a timeout), with the last failure |
//! | Blogs published or unpublished during [`Client::all_blogs`] | starts again, up to [`max_restarts`](ClientBuilder::max_restarts) | every blog once, or [`Error::Changed`] |
//! | Cache file missing or unparsable | starts with an empty cache | the answers, downloaded |
//! | A kept body that no longer decodes (hand-edited cache) | drops it, asks again without `If-None-Match` | the answer |
//! | Kept answers that decode but disagree (an edited sitemap) | [`Client::all_blogs`] starts again without conditional requests | every blog once |
//! | [`blocking::Client`] dropped inside an async runtime | shuts its runtime down on the runtime's own thread | (no panic) |
//! | [`blocking::Client::as_async`] used on another runtime after blocking calls | the pooled connections live on the client's runtime thread, which always runs | the answer |
//!
//! ## Internal links
//!
//! The server resolves `[INTERNAL:slug]` placeholders to `{site_url}/blog/<slug>/` where
//! `site_url` is the project's site URL, or to `/blog/<slug>/` when the project has none. Put
//! each post at `blog/<slug>/` on your site (as `blogread export` and the `static_site`
//! example do) and set the project's site URL to the site's address, and links just work.
//!
//! ## Features
//!
//! - `blocking`: [`blocking::Client`].
//!
//! [`chrono`] and [`reqwest`] are re-exported, since their types appear in this crate's API
//! (`DateTime<Utc>` fields, [`ClientBuilder::http_client`]).
//! - `export`: [`export`], writing Zola, Hugo or HTML content files, with a manifest kept in a
//!   state folder outside the output folder.
//! - `cli`: the `blogread` binary (`list`, `get`, `sitemap`, `export`).
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod builder;
mod cache;
mod changes;
mod client;
mod error;
mod exchange;
mod key_stamp;
mod media;
mod retry;
mod runtime;
mod slug;
mod types;

#[cfg(feature = "blocking")]
pub mod blocking;
#[cfg(feature = "export")]
pub mod export;

pub use builder::{
    ClientBuilder, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_PAGES,
    DEFAULT_USER_AGENT,
};
pub use cache::{CacheStats, EtagCache};
pub use changes::{Change, ChangeCursor, ChangePage, Changes, CursorError, MAX_CURSOR_LEN};
pub use client::Client;
pub use error::{Error, Result};
pub use media::{MAX_MEDIA_BYTES, MediaFile, MediaFormat, MediaUrl, VARIANT_WIDTHS};
pub use retry::{RetryEvent, RetryPolicy, is_retryable_status};
pub use slug::{MAX_SLUG_LEN, RESERVED_SLUGS, is_valid_slug};
pub use types::{
    BlogDetail, BlogFields, BlogList, BlogListItem, FeaturedImage, FeaturedImageVariant,
    ListParams, MAX_PAGE_SIZE, Published, PublishedBlog, Redirect, Redirects, SITEMAP_MAX_ENTRIES,
    Sitemap, SitemapEntry,
};

/// The date and time types of the wire types' fields (`DateTime<Utc>`).
pub use chrono;
/// The HTTP client underneath ([`ClientBuilder::http_client`] takes a `reqwest::Client`).
pub use reqwest;
