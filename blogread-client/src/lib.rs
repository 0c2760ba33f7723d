//! # blogread-client
//!
//! A typed client for the blogread public read API (SPEC.md section 4), for Rust static-site
//! generators, and (feature `cli`) the `blogread` command that exports published posts as
//! content files for Zola, Hugo or plain HTML.
//!
//! ## Read every published post
//!
//! ```no_run
//! # async fn build() -> Result<(), blogread_client::Error> {
//! let key = std::env::var("BLOGREAD_API_KEY").expect("set BLOGREAD_API_KEY");
//! let client = blogread_client::Client::new("https://blog.example.com", key)?;
//! for blog in client.all_blogs_with_content().await? {
//!     println!("{} -> /blog/{}/ ({} bytes)", blog.title, blog.slug, blog.content.unwrap_or_default().len());
//! }
//! # Ok(()) }
//! ```
//!
//! [`Client::all_blogs`] pages with `limit=100` until `total` is read, and starts again when a
//! blog is published or unpublished while it reads, so a build never sees a post twice or
//! misses one. Without async, the `blocking` feature gives [`blocking::Client`] with the same
//! methods.
//!
//! ## What the client does for you
//!
//! - Sends the key as `Authorization: Bearer <key>` (never in the URL, so it stays out of
//!   access logs). Keep it in an environment variable of the build, not in the repository.
//! - Retries 500, 502, 503, 504 and network errors with bounded exponential back-off and
//!   jitter ([`RetryPolicy`]); never retries 401, 404 or another 4xx (SPEC.md 7).
//! - Returns [`Error::Unauthorized`] and [`Error::NotFound`] as their own variants, and
//!   [`Error::Api`] with the status and the server's `detail` for anything else.
//! - With [`ClientBuilder::etag_cache`] (or an [`EtagCache`] loaded from a file) sends
//!   `If-None-Match`, so answers that did not change come back as 304 with no body.
//! - Percent-encodes slugs in paths.
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
//! - `export`: [`export`], writing Zola, Hugo or HTML content files, with a manifest kept in a
//!   state folder outside the output folder.
//! - `cli`: the `blogread` binary (`list`, `get`, `sitemap`, `export`).
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod builder;
mod cache;
mod client;
mod error;
mod retry;
mod types;

#[cfg(feature = "blocking")]
pub mod blocking;
#[cfg(feature = "export")]
pub mod export;

pub use builder::{ClientBuilder, DEFAULT_USER_AGENT};
pub use cache::{CacheStats, EtagCache};
pub use client::{Client, Progress};
pub use error::{Error, Result};
pub use retry::{RetryPolicy, is_retryable_status};
pub use types::{
    BlogDetail, BlogList, BlogListItem, ListParams, MAX_PAGE_SIZE, SITEMAP_MAX_ENTRIES, Sitemap,
    SitemapEntry,
};
