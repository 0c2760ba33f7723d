//! What the SQL backends share: the [`Store`](super::Store) operations written once as
//! generic code ([`SqlStore`]) over what differs between the backends ([`SqlDialect`]).
//!
//! - `dialect.rs`: the [`SqlDialect`] trait: how a write transaction starts and locks a blog
//!   (SQLite: `BEGIN IMMEDIATE` on the one writer connection; PostgreSQL: `BEGIN` plus
//!   `SELECT … FOR UPDATE`), the public key check, and the titles and sitemap look-ups.
//! - `store.rs`: [`SqlStore`], its shared helpers, the `sql_impl!` statement of what the
//!   code needs of a database (with a form for each topic trait), and `DatabaseStore` (ping,
//!   close, the ETag epoch); each backend's store is a `SqlStore` of its dialect
//!   (`SqliteStore`, `PostgresStore`).
//! - the rooms, one topic each, each implementing its topic's trait of the store (`Store` is
//!   all of them): `projects.rs`, `credentials.rs` (public key, agent keys and admin tokens,
//!   and admin sessions), `posts.rs` (writes, management reads, go-live),
//!   `public.rs` (public reads and paging), `changes.rs` (changes feed, stamps, prune),
//!   `firings.rs` (deploy hook, deliveries, firings), `links.rs` (links report, placeholder
//!   index), `media.rs` (stored images' rows), `media_uses.rs` (the images each post uses), `startup.rs` (data upgrades and the restored epoch).
//! - `post_columns.rs`: a post's columns described once, and the writes built from them.
//! - `queries.rs`: the SQL text, the same on both backends (SQLite accepts PostgreSQL's `$N`
//!   parameters), and the helpers that bind values.
//! - `values.rs`: the id column type ([`DbId`]), the one bound a bound or read value needs
//!   (`Value`), and plain statement parameters (`Bind`).
//! - `rows.rs`: the row types with their conversion to domain values, and the reading of each
//!   by a backend's own driver (`QuickRow`, declared in `quick.rs`).
//! - `page_index.rs`: marks of the public order per project, category and content version,
//!   so that a deep page seeks instead of stepping over its offset.
//! - `errors.rs`: sqlx errors and unreadable rows as [`crate::Error`]s.
//!
//! The conflict messages and the content-version rule are not here: they live in
//! [`crate::store::rules`], for every backend.

mod changes;
mod credentials;
mod dialect;
mod errors;
mod firings;
mod links;
mod links_report;
mod media;
mod media_uses;
mod page_index;
mod post_columns;
mod posts;
mod projects;
mod public;
mod queries;
mod quick;
mod rows;
mod startup;
mod store;
mod values;

pub(crate) use dialect::{SqlDialect, list_statements};
pub(crate) use errors::storage;
pub(crate) use links_report::{
    body_keys_naming, link_aliases_named, link_targets_named, placeholders_of,
    put_placeholder_slugs,
};
pub(crate) use media::{media_by_digests, media_columns};
pub(crate) use media_uses::media_users;
#[doc(hidden)]
pub use page_index::PageIndexBench;
pub(crate) use post_columns::with_post_fields;
pub(crate) use queries::{
    blog_query, body_columns, category_keyset_page_query, category_page_query, change_aliases,
    due_query, key_columns, published_by_ids, published_columns, published_columns_of,
    published_key_by_slug, raise_changes_floor, snapshot_object_of, stamp_linkers, template_join,
    working_columns, working_columns_of,
};
pub(crate) use rows::PublicProjectRow;
pub use store::SqlStore;
pub(crate) use values::DbId;

#[cfg(feature = "sqlite")]
pub(crate) use errors::corrupt;
#[cfg(feature = "sqlite")]
pub(crate) use quick::QuickRow;
#[cfg(feature = "sqlite")]
pub(crate) use rows::timestamp;
#[cfg(feature = "sqlite")]
pub(crate) use values::{Bind, bind_all};
#[cfg(all(test, feature = "sqlite"))]
pub(crate) use {queries::*, rows::PublishedRow};

#[cfg(feature = "postgres")]
pub(crate) use rows::SitemapRow;
