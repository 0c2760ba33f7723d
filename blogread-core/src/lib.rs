//! # blogread-core
//!
//! The framework-agnostic heart of blogread: it stores the blog posts of many projects and
//! serves each project's *published* posts, read-only, to static-site generators at build
//! time. This crate holds everything but HTTP:
//!
//! - [`domain`]: types that cannot hold invalid values (slugs, keys, ids, blog fields,
//!   timestamps) and the read models of the public API;
//! - [`store`]: the storage seam ([`store::Store`]), the in-memory backend
//!   ([`store::MemoryStore`]) and, behind the cargo features `sqlite` and `postgres`, the
//!   SQL backends `SqliteStore` and `PostgresStore` and `open_store(url)`, which picks one
//!   from a database URL;
//! - [`read`]: the public read rules (paging, clamping, category filter, sitemap, ETags);
//! - [`links`]: resolution of `[INTERNAL:slug]` placeholders at read time;
//! - [`word_count`]: the `word_count` of a resolved body;
//! - [`lifecycle`]: create, edit, publish, re-sync, unpublish, delete, and the visible-content
//!   event each one is;
//! - [`hook`]: deploy hook URL rules, the address policy and the notifier that POSTs to it;
//! - [`auth`]: who may do what, decided here and not in a server's handlers;
//! - [`Service`]: every operation, authorisation first, over any store.
//!
//! A server (see `blogread-server`) is HTTP in, one [`Service`] call, HTTP out.
//!
//! ## Deploy hooks: the threat model
//!
//! A saved deploy hook URL makes the server open connections, and it is a credential. It is
//! checked when saved (https, at least 20 characters, no whitespace, no local names, no
//! non-global IP literal in any encoding, and a host that resolves only to globally reachable
//! addresses) and again before every firing, when the notifier resolves the host itself and
//! connects only to the addresses it has just vetted, so DNS rebinding cannot steer it inside;
//! redirects are not followed. The URL is never logged, nor shown in errors or `Debug` output:
//! logs name the host only. Details in [`hook`].
//!
//! ## Resolving a post body
//!
//! ```
//! use std::collections::HashMap;
//! use blogread_core::links::{resolve, LinkContext};
//!
//! // The published blogs the body refers to: slug -> published title.
//! let published = HashMap::from([("hello-world".to_string(), "Hello, world".to_string())]);
//! let ctx = LinkContext::new(Some("https://example.com"), published);
//!
//! let body = r#"<p>Read <a href="[INTERNAL:hello-world]">my first post</a>, not [INTERNAL:draft-post].</p>"#;
//! assert_eq!(
//!     resolve(body, &ctx),
//!     r#"<p>Read <a href="https://example.com/blog/hello-world/">my first post</a>, not .</p>"#
//! );
//! ```
//!
//! ## Reading a list through the in-memory store
//!
//! ```
//! use std::sync::Arc;
//! use blogread_core::auth::Caller;
//! use blogread_core::domain::BlogInput;
//! use blogread_core::read::RawListParams;
//! use blogread_core::store::MemoryStore;
//! use blogread_core::Service;
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let service = Service::new(Arc::new(MemoryStore::new()));
//! // This program manages its own store: it acts as the operator, with no token.
//! let me = Caller::operator();
//!
//! let project = service.create_project(&me, "My blog".into(), None).await?;
//! let public_key = service.generate_public_key(&me, project.id).await?.key;
//!
//! let draft = BlogInput {
//!     title: Some("Hello, world".into()),
//!     slug: Some("hello-world".into()),
//!     content: Some("<p>First words.</p>".into()),
//!     ..Default::default()
//! };
//! let blog = service.create_blog(&me, project.id, draft).await?;
//! service.publish_blog(&me, project.id, blog.id, None).await?;
//!
//! // What a static site fetches at build time, with the project's public key:
//! let list = service
//!     .list_blogs(&Caller::public(public_key), RawListParams::default(), None)
//!     .await?
//!     .into_value()
//!     .expect("no If-None-Match was sent, so the response is fresh")
//!     .value();
//! assert_eq!(list.total, 1);
//! assert_eq!(list.blogs[0].fields.slug(), "hello-world");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
#![forbid(unsafe_code)]

pub mod auth;
mod byte_cache;
pub mod clock;
pub mod domain;
pub mod error;
mod firing;
pub mod fragment_cache;
pub mod hook;
mod image_sources;
pub mod lifecycle;
pub mod links;
#[cfg(feature = "media")]
pub mod media;
pub mod read;
pub mod response_cache;
pub mod sanitise;
pub mod service;
pub mod store;
pub mod word_count;

/// The byte buffer of a public answer's body ([`read::Answer`]; shared, cheaply cloned), re-exported so that an
/// embedding program needs no `bytes` dependency of its own.
pub use bytes::Bytes;
pub use error::{Error, Result};
pub use service::Service;

#[cfg(any(test, feature = "test-util"))]
pub mod testing;
