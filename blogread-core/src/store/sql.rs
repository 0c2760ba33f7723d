//! What the SQL backends share: the id column type, the row types and their conversion to
//! domain values, error mapping, and the [`Store`](super::Store) implementation itself, which
//! is written once (the `sql_store!` macro) and expanded for each backend with its dialect
//! hooks.
//!
//! The SQL text is the same on both backends (SQLite accepts PostgreSQL's `$N` parameters);
//! what differs lives in each backend module: how a write transaction starts (SQLite:
//! `BEGIN IMMEDIATE` on the one writer connection; PostgreSQL: `BEGIN` plus
//! `SELECT … FOR UPDATE`), the look-up of titles by a list of slugs, and the id column type.

use sqlx::FromRow;
use uuid::Uuid;

use crate::domain::{
    AdminTokenId, AdminTokenRecord, AgentKeyId, AgentKeyRecord, Blog, BlogFields, BlogId,
    BlogState, Delivery, DeliveryId, ManagedBlog, Project, ProjectId, ProjectName, PublicKey,
    PublicProject, PublishedBlog, PublishedSnapshot, SecretHash, SiteUrl, StoredPublicKey,
    Timestamp, Trigger,
};
use crate::error::{Error, NotFound, Result};

/// An id column: UUID text (lower-case, hyphenated) on SQLite, `uuid` on PostgreSQL. Both
/// order like the UUID's bytes, which is the id tie-break of every backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DbId(pub(crate) Uuid);

#[cfg(feature = "sqlite")]
mod sqlite_id {
    use sqlx::encode::IsNull;
    use sqlx::error::BoxDynError;
    use sqlx::sqlite::{SqliteArgumentsBuffer, SqliteTypeInfo, SqliteValueRef};
    use sqlx::{Decode, Encode, Sqlite, Type};

    use super::DbId;

    impl Type<Sqlite> for DbId {
        fn type_info() -> SqliteTypeInfo {
            <String as Type<Sqlite>>::type_info()
        }
        fn compatible(ty: &SqliteTypeInfo) -> bool {
            <String as Type<Sqlite>>::compatible(ty)
        }
    }

    impl Encode<'_, Sqlite> for DbId {
        fn encode_by_ref(&self, buf: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
            <String as Encode<Sqlite>>::encode(self.0.hyphenated().to_string(), buf)
        }
    }

    impl<'r> Decode<'r, Sqlite> for DbId {
        fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
            let text = <&str as Decode<Sqlite>>::decode(value)?;
            Ok(DbId(uuid::Uuid::parse_str(text)?))
        }
    }
}

#[cfg(feature = "postgres")]
mod postgres_id {
    use sqlx::encode::IsNull;
    use sqlx::error::BoxDynError;
    use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef};
    use sqlx::{Decode, Encode, Postgres, Type};

    use super::DbId;

    impl Type<Postgres> for DbId {
        fn type_info() -> PgTypeInfo {
            <uuid::Uuid as Type<Postgres>>::type_info()
        }
    }

    impl Encode<'_, Postgres> for DbId {
        fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
            <uuid::Uuid as Encode<Postgres>>::encode_by_ref(&self.0, buf)
        }
    }

    impl<'r> Decode<'r, Postgres> for DbId {
        fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
            Ok(DbId(<uuid::Uuid as Decode<Postgres>>::decode(value)?))
        }
    }
}

macro_rules! db_id_from {
    ($($t:ty),*) => {$(
        impl From<$t> for DbId {
            fn from(id: $t) -> Self {
                DbId(id.as_uuid())
            }
        }
    )*};
}
db_id_from!(
    ProjectId,
    BlogId,
    AgentKeyId,
    AdminTokenId,
    DeliveryId,
    crate::domain::FiringId
);

/// Stored data that no longer passes the domain checks: a storage failure, never a 4xx.
#[derive(Debug, thiserror::Error)]
#[error("stored {what} is invalid: {detail}")]
pub(crate) struct CorruptRow {
    what: &'static str,
    detail: String,
}

pub(crate) fn corrupt(what: &'static str, detail: impl ToString) -> Error {
    Error::storage(CorruptRow {
        what,
        detail: detail.to_string(),
    })
}

/// Any sqlx error that the caller does not expect: the database's own condition (disk full,
/// locked, not answering) or a 500.
pub(crate) fn storage(e: sqlx::Error) -> Error {
    super::faults::classify(e)
}

/// A write's error: a unique violation is a conflict with `detail`; a foreign key violation
/// means the project is gone; anything else is a storage failure.
pub(crate) fn write_error(e: sqlx::Error, detail: impl FnOnce() -> String) -> Error {
    match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => Error::Conflict(detail()),
        sqlx::Error::Database(d) if d.is_foreign_key_violation() => {
            Error::NotFound(NotFound::Project)
        }
        _ => storage(e),
    }
}

pub(crate) fn slug_conflict(blog: &Blog) -> String {
    format!(
        "slug `{}` is already used by another blog of this project; choose another slug",
        blog.working.slug()
    )
}

pub(crate) fn timestamp(what: &'static str, seconds: i64) -> Result<Timestamp> {
    Timestamp::from_unix_seconds(seconds).ok_or_else(|| corrupt(what, seconds))
}

fn json_list(list: &[String]) -> String {
    serde_json::to_string(list).expect("a list of strings serialises")
}

fn parse_list(what: &'static str, json: &str) -> Result<Vec<String>> {
    serde_json::from_str(json).map_err(|e| corrupt(what, e))
}

/// The columns of `blogs`, in table order (keep in step with [`BlogRow`] and [`BlogValues`]).
macro_rules! blog_columns {
    () => {
        "id, project_id, status, created_at, updated_at, published_at, published_updated_at, \
         pub_title, pub_slug, pub_excerpt, pub_meta_title, pub_meta_description, \
         pub_featured_image_url, pub_categories, pub_tags, title, slug, excerpt, meta_title, \
         meta_description, featured_image_url, categories, tags, pub_content, content"
    };
}
pub(crate) use blog_columns;

/// A row of `pending_firings`.
#[derive(Debug, FromRow)]
pub(crate) struct FiringRow {
    id: DbId,
    project_id: DbId,
    kind: String,
    blog_slug: String,
}

impl FiringRow {
    /// The recorded firing.
    pub(crate) fn into_firing(self) -> Result<crate::domain::PendingFiring> {
        Ok(crate::domain::PendingFiring {
            id: crate::domain::FiringId::from_uuid(self.id.0),
            project: ProjectId::from_uuid(self.project_id.0),
            trigger: Trigger::parse(&self.kind)
                .ok_or_else(|| corrupt("firing kind", &self.kind))?,
            slug: self.blog_slug,
        })
    }
}

/// A row of the management list: the working copy and the lifecycle data, no published
/// snapshot.
#[derive(Debug, FromRow)]
pub(crate) struct ManagedRow {
    id: DbId,
    status: String,
    created_at: i64,
    updated_at: i64,
    published_at: Option<i64>,
    title: String,
    slug: String,
    excerpt: String,
    meta_title: String,
    meta_description: String,
    featured_image_url: Option<String>,
    categories: String,
    tags: String,
    content: String,
}

impl ManagedRow {
    /// The management view of the row.
    pub(crate) fn into_managed(self) -> Result<ManagedBlog> {
        Ok(ManagedBlog {
            id: BlogId::from_uuid(self.id.0),
            title: self.title,
            slug: self.slug,
            content: self.content,
            excerpt: self.excerpt,
            meta_title: self.meta_title,
            meta_description: self.meta_description,
            featured_image_url: self.featured_image_url,
            categories: parse_list("categories", &self.categories)?,
            tags: parse_list("tags", &self.tags)?,
            status: self
                .status
                .parse()
                .map_err(|e| corrupt("blog status", format!("{e:?}")))?,
            published_at: self
                .published_at
                .map(|t| timestamp("published_at", t))
                .transpose()?,
            updated_at: timestamp("updated_at", self.updated_at)?,
            created_at: timestamp("created_at", self.created_at)?,
        })
    }
}

/// The columns of a published blog for public reads, without the body.
macro_rules! published_columns {
    () => {
        "b.id, b.pub_title AS title, b.pub_slug AS slug, b.pub_excerpt AS excerpt, \
         b.pub_meta_title AS meta_title, b.pub_meta_description AS meta_description, \
         b.pub_featured_image_url AS featured_image_url, b.pub_categories AS categories, \
         b.pub_tags AS tags, b.published_at, b.published_updated_at AS updated_at"
    };
}
pub(crate) use published_columns;

/// A row of `blogs`.
#[derive(Debug, FromRow)]
pub(crate) struct BlogRow {
    id: DbId,
    project_id: DbId,
    status: String,
    created_at: i64,
    updated_at: i64,
    published_at: Option<i64>,
    published_updated_at: Option<i64>,
    pub_title: Option<String>,
    pub_slug: Option<String>,
    pub_excerpt: Option<String>,
    pub_meta_title: Option<String>,
    pub_meta_description: Option<String>,
    pub_featured_image_url: Option<String>,
    pub_categories: Option<String>,
    pub_tags: Option<String>,
    title: String,
    slug: String,
    excerpt: String,
    meta_title: String,
    meta_description: String,
    featured_image_url: Option<String>,
    categories: String,
    tags: String,
    pub_content: Option<String>,
    content: String,
}

fn required<T>(value: Option<T>, column: &'static str) -> Result<T> {
    value.ok_or_else(|| corrupt("published blog", format!("{column} is NULL")))
}

impl BlogRow {
    /// The domain blog, its fields checked again.
    pub(crate) fn into_blog(self) -> Result<Blog> {
        let working = BlogFields::from_stored(
            self.title,
            self.slug,
            self.content,
            self.excerpt,
            self.meta_title,
            self.meta_description,
            self.featured_image_url,
            parse_list("categories", &self.categories)?,
            parse_list("tags", &self.tags)?,
        )
        .map_err(|e| corrupt("blog", e))?;
        let state = match self.status.as_str() {
            "draft" => BlogState::Draft,
            "unpublished" => BlogState::Unpublished {
                published_at: timestamp(
                    "published_at",
                    required(self.published_at, "published_at")?,
                )?,
            },
            "published" => {
                let fields = BlogFields::from_stored(
                    required(self.pub_title, "pub_title")?,
                    required(self.pub_slug, "pub_slug")?,
                    required(self.pub_content, "pub_content")?,
                    required(self.pub_excerpt, "pub_excerpt")?,
                    required(self.pub_meta_title, "pub_meta_title")?,
                    required(self.pub_meta_description, "pub_meta_description")?,
                    self.pub_featured_image_url,
                    parse_list(
                        "pub_categories",
                        &required(self.pub_categories, "pub_categories")?,
                    )?,
                    parse_list("pub_tags", &required(self.pub_tags, "pub_tags")?)?,
                )
                .map_err(|e| corrupt("published snapshot", e))?;
                BlogState::Published(Box::new(PublishedSnapshot {
                    fields,
                    published_at: timestamp(
                        "published_at",
                        required(self.published_at, "published_at")?,
                    )?,
                    updated_at: timestamp(
                        "published_updated_at",
                        required(self.published_updated_at, "published_updated_at")?,
                    )?,
                }))
            }
            other => return Err(corrupt("blog status", other)),
        };
        Ok(Blog {
            id: BlogId::from_uuid(self.id.0),
            project_id: ProjectId::from_uuid(self.project_id.0),
            working,
            state,
            created_at: timestamp("created_at", self.created_at)?,
            updated_at: timestamp("updated_at", self.updated_at)?,
        })
    }
}

/// The column values of a blog to write, in [`blog_columns!`] order.
pub(crate) struct BlogValues<'a> {
    pub(crate) id: DbId,
    pub(crate) project_id: DbId,
    pub(crate) status: &'static str,
    pub(crate) created_at: i64,
    pub(crate) updated_at: i64,
    pub(crate) published_at: Option<i64>,
    pub(crate) published_updated_at: Option<i64>,
    pub(crate) pub_title: Option<&'a str>,
    pub(crate) pub_slug: Option<&'a str>,
    pub(crate) pub_excerpt: Option<&'a str>,
    pub(crate) pub_meta_title: Option<&'a str>,
    pub(crate) pub_meta_description: Option<&'a str>,
    pub(crate) pub_featured_image_url: Option<&'a str>,
    pub(crate) pub_categories: Option<String>,
    pub(crate) pub_tags: Option<String>,
    pub(crate) title: &'a str,
    pub(crate) slug: &'a str,
    pub(crate) excerpt: &'a str,
    pub(crate) meta_title: &'a str,
    pub(crate) meta_description: &'a str,
    pub(crate) featured_image_url: Option<&'a str>,
    pub(crate) categories: String,
    pub(crate) tags: String,
    pub(crate) pub_content: Option<&'a str>,
    pub(crate) content: &'a str,
}

impl<'a> BlogValues<'a> {
    pub(crate) fn of(blog: &'a Blog) -> Self {
        let w = &blog.working;
        let s = blog.state.snapshot().map(|s| &s.fields);
        BlogValues {
            id: blog.id.into(),
            project_id: blog.project_id.into(),
            status: blog.state.status().as_str(),
            created_at: blog.created_at.unix_seconds(),
            updated_at: blog.updated_at.unix_seconds(),
            published_at: blog.state.published_at().map(|t| t.unix_seconds()),
            published_updated_at: blog.state.snapshot().map(|s| s.updated_at.unix_seconds()),
            pub_title: s.map(BlogFields::title),
            pub_slug: s.map(|f| f.slug().as_str()),
            pub_excerpt: s.map(BlogFields::excerpt),
            pub_meta_title: s.map(BlogFields::meta_title),
            pub_meta_description: s.map(BlogFields::meta_description),
            pub_featured_image_url: s.and_then(BlogFields::featured_image_url),
            pub_categories: s.map(|f| json_list(f.categories())),
            pub_tags: s.map(|f| json_list(f.tags())),
            title: w.title(),
            slug: w.slug().as_str(),
            excerpt: w.excerpt(),
            meta_title: w.meta_title(),
            meta_description: w.meta_description(),
            featured_image_url: w.featured_image_url(),
            categories: json_list(w.categories()),
            tags: json_list(w.tags()),
            pub_content: s.map(BlogFields::content),
            content: w.content(),
        }
    }
}

/// Binds a [`BlogValues`] to a query whose parameters `$1..=$25` follow [`blog_columns!`].
macro_rules! bind_blog {
    ($query:expr, $v:expr) => {{
        let v = $v;
        $query
            .bind(v.id)
            .bind(v.project_id)
            .bind(v.status)
            .bind(v.created_at)
            .bind(v.updated_at)
            .bind(v.published_at)
            .bind(v.published_updated_at)
            .bind(v.pub_title)
            .bind(v.pub_slug)
            .bind(v.pub_excerpt)
            .bind(v.pub_meta_title)
            .bind(v.pub_meta_description)
            .bind(v.pub_featured_image_url)
            .bind(v.pub_categories.as_deref())
            .bind(v.pub_tags.as_deref())
            .bind(v.title)
            .bind(v.slug)
            .bind(v.excerpt)
            .bind(v.meta_title)
            .bind(v.meta_description)
            .bind(v.featured_image_url)
            .bind(v.categories.as_str())
            .bind(v.tags.as_str())
            .bind(v.pub_content)
            .bind(v.content)
    }};
}
pub(crate) use bind_blog;

/// The derived rows a blog has besides its own: the slugs it holds and, while published, the
/// category keys of its snapshot (with the snapshot's `published_at`).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Derived {
    pub(crate) slugs: Vec<String>,
    pub(crate) categories: Vec<String>,
    pub(crate) published_at: i64,
}

impl Derived {
    pub(crate) fn of(blog: &Blog) -> Self {
        let slugs = blog.slugs().map(|s| s.as_str().to_owned()).collect();
        let (mut categories, published_at) = match blog.state.snapshot() {
            Some(s) => (
                s.fields
                    .categories()
                    .iter()
                    .map(|c| super::category_key(c))
                    .collect::<Vec<_>>(),
                s.published_at.unix_seconds(),
            ),
            None => (Vec::new(), 0),
        };
        categories.sort();
        categories.dedup();
        Derived {
            slugs,
            categories,
            published_at,
        }
    }
}

/// A published blog for public reads; `content` and `total` are present only when selected.
#[derive(Debug, FromRow)]
pub(crate) struct PublishedRow {
    id: DbId,
    title: String,
    slug: String,
    excerpt: String,
    meta_title: String,
    meta_description: String,
    featured_image_url: Option<String>,
    categories: String,
    tags: String,
    published_at: i64,
    updated_at: i64,
    #[sqlx(default)]
    content: Option<String>,
    #[sqlx(default)]
    pub(crate) total: Option<i64>,
}

impl PublishedRow {
    pub(crate) fn into_published(self) -> Result<PublishedBlog> {
        Ok(PublishedBlog {
            id: BlogId::from_uuid(self.id.0),
            title: self.title,
            slug: self.slug,
            excerpt: self.excerpt,
            meta_title: self.meta_title,
            meta_description: self.meta_description,
            featured_image_url: self.featured_image_url,
            categories: parse_list("pub_categories", &self.categories)?,
            tags: parse_list("pub_tags", &self.tags)?,
            published_at: timestamp("published_at", self.published_at)?,
            updated_at: timestamp("published_updated_at", self.updated_at)?,
            content: self.content,
        })
    }
}

/// A sitemap row (SQLite reads the sitemap as one JSON value instead).
#[cfg(feature = "postgres")]
#[derive(Debug, FromRow)]
pub(crate) struct SitemapRow {
    slug: String,
    published_at: i64,
    updated_at: i64,
}

#[cfg(feature = "postgres")]
impl SitemapRow {
    pub(crate) fn into_entry(self) -> Result<crate::domain::SitemapEntry> {
        Ok(crate::domain::SitemapEntry::new(
            self.slug,
            timestamp("published_at", self.published_at)?,
            timestamp("published_updated_at", self.updated_at)?,
        ))
    }
}

/// A row of `projects`.
#[derive(Debug, FromRow)]
pub(crate) struct ProjectRow {
    id: DbId,
    name: String,
    site_url: Option<String>,
    created_at: i64,
}

impl ProjectRow {
    pub(crate) fn into_project(self) -> Result<Project> {
        Ok(Project::from_stored(
            ProjectId::from_uuid(self.id.0),
            ProjectName::parse(self.name).map_err(|e| corrupt("project name", e))?,
            self.site_url
                .map(SiteUrl::parse)
                .transpose()
                .map_err(|e| corrupt("project site_url", e))?,
            timestamp("created_at", self.created_at)?,
        ))
    }
}

/// What a public read needs of the project a key belongs to.
#[derive(Debug, FromRow)]
pub(crate) struct PublicProjectRow {
    id: DbId,
    site_url: Option<String>,
    content_version: i64,
}

impl PublicProjectRow {
    /// The row as read by a binding other than sqlx (SQLite's key check reads it with
    /// rusqlite).
    #[cfg(feature = "sqlite")]
    pub(crate) fn new(id: uuid::Uuid, site_url: Option<String>, content_version: i64) -> Self {
        Self {
            id: DbId(id),
            site_url,
            content_version,
        }
    }

    pub(crate) fn into_public(self) -> PublicProject {
        PublicProject {
            id: ProjectId::from_uuid(self.id.0),
            site_url: self.site_url,
            // Only ever incremented from 0.
            content_version: u64::try_from(self.content_version).unwrap_or_default(),
        }
    }
}

/// A row of `public_keys`.
#[derive(Debug, FromRow)]
pub(crate) struct PublicKeyRow {
    key: String,
    created_at: i64,
}

impl PublicKeyRow {
    pub(crate) fn into_key(self) -> Result<StoredPublicKey> {
        Ok(StoredPublicKey {
            key: PublicKey::parse(&self.key).map_err(|e| corrupt("public key", e))?,
            created_at: timestamp("created_at", self.created_at)?,
        })
    }
}

/// A row of `agent_keys`.
#[derive(Debug, FromRow)]
pub(crate) struct AgentKeyRow {
    id: DbId,
    project_id: DbId,
    key_hash: String,
    prefix: String,
    created_at: i64,
}

impl AgentKeyRow {
    pub(crate) fn into_record(self) -> Result<AgentKeyRecord> {
        Ok(AgentKeyRecord {
            id: AgentKeyId::from_uuid(self.id.0),
            project_id: ProjectId::from_uuid(self.project_id.0),
            hash: SecretHash::from_hex(&self.key_hash)
                .ok_or_else(|| corrupt("agent key hash", "not 64 hex digits"))?,
            prefix: self.prefix,
            created_at: timestamp("created_at", self.created_at)?,
        })
    }
}

/// A row of `admin_tokens`.
#[derive(Debug, FromRow)]
pub(crate) struct AdminTokenRow {
    id: DbId,
    project_id: DbId,
    token_hash: String,
    created_at: i64,
}

impl AdminTokenRow {
    pub(crate) fn into_record(self) -> Result<AdminTokenRecord> {
        Ok(AdminTokenRecord {
            id: AdminTokenId::from_uuid(self.id.0),
            project_id: ProjectId::from_uuid(self.project_id.0),
            hash: SecretHash::from_hex(&self.token_hash)
                .ok_or_else(|| corrupt("admin token hash", "not 64 hex digits"))?,
            created_at: timestamp("created_at", self.created_at)?,
        })
    }
}

/// A row of `deliveries`.
#[derive(Debug, FromRow)]
pub(crate) struct DeliveryRow {
    id: DbId,
    kind: String,
    blog_slug: Option<String>,
    attempted_at: i64,
    success: bool,
    status_code: i32,
    message: String,
    duration_ms: i64,
}

impl DeliveryRow {
    pub(crate) fn into_delivery(self) -> Result<Delivery> {
        Ok(Delivery::new(
            DeliveryId::from_uuid(self.id.0),
            Trigger::parse(&self.kind).ok_or_else(|| corrupt("delivery trigger", &self.kind))?,
            self.blog_slug,
            timestamp("attempted_at", self.attempted_at)?,
            self.success,
            u16::try_from(self.status_code).map_err(|e| corrupt("delivery status_code", e))?,
            self.message,
            u64::try_from(self.duration_ms).map_err(|e| corrupt("delivery duration_ms", e))?,
        ))
    }
}

/// An offset or limit as the SQL `bigint` both backends take.
pub(crate) fn sql_count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A `COUNT(*)` read back.
pub(crate) fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or_default()
}

macro_rules! page_query {
    ($($content:literal)?) => {
        concat!(
            "SELECT ", published_columns!(), $($content,)?
            ", (SELECT published_count FROM projects p WHERE p.id = $1) AS total \
             FROM blogs b WHERE b.project_id = $1 AND b.status = 'published' \
             ORDER BY b.published_at DESC, b.id DESC LIMIT $2 OFFSET $3"
        )
    };
}

macro_rules! category_page_query {
    ($($content:literal)?) => {
        concat!(
            "SELECT ", published_columns!(), $($content,)?
            ", (SELECT COUNT(*) FROM blog_categories k WHERE k.project_id = $1 \
             AND k.category_key = $2) AS total \
             FROM blog_categories c JOIN blogs b ON b.id = c.blog_id \
             WHERE c.project_id = $1 AND c.category_key = $2 \
             ORDER BY c.published_at DESC, c.blog_id DESC LIMIT $3 OFFSET $4"
        )
    };
}

/// A page of published blogs (`$1` project, `$2` limit, `$3` offset) with the total.
pub(crate) const PAGE: &str = page_query!();
/// [`PAGE`] with the bodies.
pub(crate) const PAGE_WITH_CONTENT: &str = page_query!(", b.pub_content AS content");
/// A page of published blogs in one category (`$1` project, `$2` category key, `$3` limit,
/// `$4` offset) with the total.
pub(crate) const CATEGORY_PAGE: &str = category_page_query!();
/// [`CATEGORY_PAGE`] with the bodies.
pub(crate) const CATEGORY_PAGE_WITH_CONTENT: &str =
    category_page_query!(", b.pub_content AS content");

/// Implements [`Store`](crate::store::Store) for a SQL backend `$store` over database `$db`.
///
/// The backend provides, as inherent items:
/// - `fn read_pool(&self) -> &ClosingPool<$db>` and `fn write_pool(&self) -> &ClosingPool<$db>`
///   (single-statement writes go to the write pool);
/// - `async fn begin_write(&self) -> Result<WriteTx<$db>>`, a transaction that holds the write
///   lock of whatever it reads next with `LOCK_BLOG` (end it with `finish`, which commits or
///   rolls back and never returns a connection in an unknown state to its pool);
/// - `const LOCK_BLOG: &str`, selecting [`blog_columns!`] of blog `$1` in project `$2`, locked
///   for the rest of the transaction;
/// - `async fn titles(&self, project: ProjectId, slugs: &[String]) -> Result<HashMap<String,
///   String>>`, the one query behind `published_titles` (called with at least one slug);
/// - `async fn sitemap_entries(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>>`,
///   the one query behind `sitemap`.
macro_rules! sql_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use std::collections::HashMap;

            use async_trait::async_trait;
            use $crate::store::connection::WriteTx;

            use $crate::domain::delivery::DELIVERY_LOG_LEN;
            use $crate::domain::{
                AdminTokenId, AdminTokenRecord, AgentKeyId, AgentKeyRecord, Blog, BlogId,
                BlogStatus, Delivery, FiringId, PendingFiring, Project, ProjectId, PublicProject,
                PublishedBlog, SecretHash, SiteUrl, SitemapEntry, StoredPublicKey, Timestamp,
                Trigger,
            };
            use $crate::error::{Error, NotFound, Result};
            use $crate::store::sql::{
                AdminTokenRow, AgentKeyRow, BlogRow, BlogValues, FiringRow, ManagedRow, CATEGORY_PAGE,
                CATEGORY_PAGE_WITH_CONTENT, DbId, DeliveryRow, Derived, PAGE, PAGE_WITH_CONTENT,
                ProjectRow, PublicKeyRow, PublishedRow, bind_blog,
                blog_columns, count, published_columns, slug_conflict, sql_count, storage,
                write_error,
            };
            use $crate::store::{
                BlogChange, BlogPage, KeyWrite, PageQuery, ProjectChange, PublishedPage, Store,
            };

            const BUMP_VERSION: &str = "UPDATE projects SET content_version = content_version + 1, \
                 published_count = published_count + $2 WHERE id = $1";

            impl $store {
                /// Brings the slugs and category rows of `blog` from `old` to `new`.
                async fn write_derived(
                    tx: &mut WriteTx<$db>,
                    blog: &Blog,
                    old: &Derived,
                    new: &Derived,
                ) -> Result<()> {
                    let project = DbId::from(blog.project_id);
                    let id = DbId::from(blog.id);
                    for slug in old.slugs.iter().filter(|s| !new.slugs.contains(s)) {
                        sqlx::query(
                            "DELETE FROM blog_slugs WHERE project_id = $1 AND slug = $2 AND blog_id = $3",
                        )
                        .bind(project)
                        .bind(slug.as_str())
                        .bind(id)
                        .execute(&mut **tx)
                        .await
                        .map_err(storage)?;
                    }
                    for slug in new.slugs.iter().filter(|s| !old.slugs.contains(s)) {
                        sqlx::query(
                            "INSERT INTO blog_slugs (project_id, slug, blog_id) VALUES ($1, $2, $3)",
                        )
                        .bind(project)
                        .bind(slug.as_str())
                        .bind(id)
                        .execute(&mut **tx)
                        .await
                        .map_err(|e| write_error(e, || slug_conflict(blog)))?;
                    }
                    if (&old.categories, old.published_at) != (&new.categories, new.published_at) {
                        if !old.categories.is_empty() {
                            sqlx::query("DELETE FROM blog_categories WHERE blog_id = $1")
                                .bind(id)
                                .execute(&mut **tx)
                                .await
                                .map_err(storage)?;
                        }
                        for key in &new.categories {
                            sqlx::query(
                                "INSERT INTO blog_categories (blog_id, project_id, category_key, published_at) \
                                 VALUES ($1, $2, $3, $4)",
                            )
                            .bind(id)
                            .bind(project)
                            .bind(key.as_str())
                            .bind(new.published_at)
                            .execute(&mut **tx)
                            .await
                            .map_err(storage)?;
                        }
                    }
                    Ok(())
                }

                /// Records a change of what the public API shows: bumps the content version
                /// and moves the published count by `published_delta` (-1, 0 or 1).
                async fn bump_version(
                    tx: &mut WriteTx<$db>,
                    project: ProjectId,
                    published_delta: i64,
                ) -> Result<()> {
                    sqlx::query(BUMP_VERSION)
                        .bind(DbId::from(project))
                        .bind(published_delta)
                        .execute(&mut **tx)
                        .await
                        .map_err(storage)?;
                    Ok(())
                }

                /// Records the firing of `event` on `blog` (named by `slug`) in the write's own
                /// transaction, when the project has a deploy hook.
                async fn record_firing(
                    tx: &mut WriteTx<$db>,
                    blog: &Blog,
                    event: Option<Trigger>,
                    slug: String,
                ) -> Result<()> {
                    let Some(trigger) = event else { return Ok(()) };
                    sqlx::query(
                        "INSERT INTO pending_firings (id, project_id, kind, blog_slug, created_at) \
                         SELECT $1, $2, $3, $4, $5 FROM projects \
                         WHERE id = $2 AND deploy_hook_url IS NOT NULL",
                    )
                    .bind(DbId::from(FiringId::generate()))
                    .bind(DbId::from(blog.project_id))
                    .bind(trigger.as_str())
                    .bind(slug)
                    .bind(Timestamp::now().unix_seconds())
                    .execute(&mut **tx)
                    .await
                    .map_err(storage)?;
                    Ok(())
                }

                /// Appends `delivery` to the project's log, keeping the newest
                /// DELIVERY_LOG_LEN.
                async fn insert_delivery(
                    tx: &mut WriteTx<$db>,
                    project: ProjectId,
                    delivery: &Delivery,
                ) -> Result<()> {
                    sqlx::query(
                        "INSERT INTO deliveries (id, project_id, kind, blog_slug, attempted_at, \
                         success, status_code, message, duration_ms) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    )
                    .bind(DbId::from(delivery.id))
                    .bind(DbId::from(project))
                    .bind(delivery.trigger.as_str())
                    .bind(delivery.blog_slug.as_deref())
                    .bind(delivery.attempted_at.unix_seconds())
                    .bind(delivery.success)
                    .bind(i32::from(delivery.status_code))
                    .bind(delivery.message.as_str())
                    .bind(sql_count(delivery.duration_ms))
                    .execute(&mut **tx)
                    .await
                    .map_err(|e| write_error(e, || "a delivery with this id exists".into()))?;
                    // Keep the newest DELIVERY_LOG_LEN: drop everything older than the last one
                    // kept (no row when there are fewer, and `seq < NULL` deletes nothing).
                    sqlx::query(
                        "DELETE FROM deliveries WHERE project_id = $1 AND seq < (\
                         SELECT seq FROM deliveries WHERE project_id = $1 \
                         ORDER BY seq DESC LIMIT 1 OFFSET $2)",
                    )
                    .bind(DbId::from(project))
                    .bind(sql_count(DELIVERY_LOG_LEN as u64 - 1))
                    .execute(&mut **tx)
                    .await
                    .map_err(storage)?;
                    Ok(())
                }

                async fn locked_blog(
                    tx: &mut WriteTx<$db>,
                    project: ProjectId,
                    id: BlogId,
                ) -> Result<Blog> {
                    let row: Option<BlogRow> = sqlx::query_as(Self::LOCK_BLOG)
                        .bind(DbId::from(id))
                        .bind(DbId::from(project))
                        .fetch_optional(&mut **tx)
                        .await
                        .map_err(storage)?;
                    row.ok_or(Error::NotFound(NotFound::Blog))?.into_blog()
                }

                async fn project_exists(&self, project: ProjectId) -> Result<bool> {
                    let found: Option<i32> =
                        sqlx::query_scalar("SELECT 1 FROM projects WHERE id = $1")
                            .bind(DbId::from(project))
                            .fetch_optional(self.read_pool())
                            .await
                            .map_err(storage)?;
                    Ok(found.is_some())
                }
            }

            #[async_trait]
            impl Store for $store {
                async fn ping(&self) -> Result<()> {
                    sqlx::query("SELECT 1")
                        .execute(self.read_pool())
                        .await
                        .map_err(storage)?;
                    Ok(())
                }

                async fn close(&self) {
                    Self::close(self).await
                }

                async fn etag_epoch(&self) -> Result<String> {
                    sqlx::query_scalar("SELECT etag_epoch FROM blogread_meta WHERE id = 1")
                        .fetch_one(self.read_pool())
                        .await
                        .map_err(storage)
                }

                async fn insert_project(&self, project: &Project) -> Result<()> {
                    sqlx::query(
                        "INSERT INTO projects (id, name, site_url, created_at) VALUES ($1, $2, $3, $4)",
                    )
                    .bind(DbId::from(project.id))
                    .bind(project.name.as_str())
                    .bind(project.site_url.as_ref().map(SiteUrl::as_str))
                    .bind(project.created_at.unix_seconds())
                    .execute(self.write_pool())
                    .await
                    .map_err(|e| write_error(e, || "a project with this id exists".into()))?;
                    Ok(())
                }

                async fn project(&self, id: ProjectId) -> Result<Option<Project>> {
                    let row: Option<ProjectRow> = sqlx::query_as(
                        "SELECT id, name, site_url, created_at FROM projects WHERE id = $1",
                    )
                    .bind(DbId::from(id))
                    .fetch_optional(self.read_pool())
                    .await
                    .map_err(storage)?;
                    row.map(ProjectRow::into_project).transpose()
                }

                async fn projects(&self) -> Result<Vec<Project>> {
                    let rows: Vec<ProjectRow> = sqlx::query_as(
                        "SELECT id, name, site_url, created_at FROM projects \
                         ORDER BY created_at, id",
                    )
                    .fetch_all(self.read_pool())
                    .await
                    .map_err(storage)?;
                    rows.into_iter().map(ProjectRow::into_project).collect()
                }

                async fn update_project(
                    &self,
                    id: ProjectId,
                    change: &ProjectChange,
                ) -> Result<Project> {
                    // One statement: only the named columns change, and the comparison reads
                    // the old site URL, so concurrent changes of different fields both apply.
                    let row: Option<ProjectRow> = sqlx::query_as(
                        "UPDATE projects SET \
                         name = CASE WHEN $2 THEN $3 ELSE name END, \
                         site_url = CASE WHEN $4 THEN $5 ELSE site_url END, \
                         content_version = content_version + \
                         CASE WHEN $4 AND site_url IS DISTINCT FROM $5 THEN 1 ELSE 0 END \
                         WHERE id = $1 RETURNING id, name, site_url, created_at",
                    )
                    .bind(DbId::from(id))
                    .bind(change.name.is_some())
                    .bind(change.name.as_ref().map(|n| n.as_str().to_owned()))
                    .bind(change.site_url.is_some())
                    .bind(change.site_url.clone().flatten().map(|u| u.as_str().to_owned()))
                    .fetch_optional(self.write_pool())
                    .await
                    .map_err(storage)?;
                    row.ok_or(Error::NotFound(NotFound::Project))?.into_project()
                }

                async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
                    let row: Option<PublicKeyRow> = sqlx::query_as(
                        "SELECT key, created_at FROM public_keys WHERE project_id = $1",
                    )
                    .bind(DbId::from(project))
                    .fetch_optional(self.read_pool())
                    .await
                    .map_err(storage)?;
                    row.map(PublicKeyRow::into_key).transpose()
                }

                async fn put_public_key(
                    &self,
                    project: ProjectId,
                    key: &StoredPublicKey,
                    mode: KeyWrite,
                ) -> Result<()> {
                    let hash = key.key.hash().to_hex();
                    match mode {
                        KeyWrite::Create => {
                            // The primary key on project_id allows one key per project.
                            sqlx::query(
                                "INSERT INTO public_keys (project_id, key, key_hash, created_at) \
                                 VALUES ($1, $2, $3, $4)",
                            )
                            .bind(DbId::from(project))
                            .bind(key.key.expose_secret())
                            .bind(hash.as_str())
                            .bind(key.created_at.unix_seconds())
                            .execute(self.write_pool())
                            .await
                            .map_err(|e| {
                                write_error(e, || {
                                    "this project already has a public key; rotate or revoke it instead"
                                        .into()
                                })
                            })?;
                            Ok(())
                        }
                        KeyWrite::Replace => {
                            // One statement: the old hash stops matching in the same write.
                            let done = sqlx::query(
                                "UPDATE public_keys SET key = $2, key_hash = $3, created_at = $4 \
                                 WHERE project_id = $1",
                            )
                            .bind(DbId::from(project))
                            .bind(key.key.expose_secret())
                            .bind(hash.as_str())
                            .bind(key.created_at.unix_seconds())
                            .execute(self.write_pool())
                            .await
                            .map_err(|e| write_error(e, || "this public key is in use".into()))?;
                            if done.rows_affected() == 0 {
                                return Err(if self.project_exists(project).await? {
                                    Error::NotFound(NotFound::PublicKey)
                                } else {
                                    Error::NotFound(NotFound::Project)
                                });
                            }
                            Ok(())
                        }
                    }
                }

                async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
                    let done = sqlx::query("DELETE FROM public_keys WHERE project_id = $1")
                        .bind(DbId::from(project))
                        .execute(self.write_pool())
                        .await
                        .map_err(storage)?;
                    Ok(done.rows_affected() > 0)
                }

                async fn project_by_public_key(
                    &self,
                    hash: &SecretHash,
                ) -> Result<Option<PublicProject>> {
                    self.key_check(hash.to_hex()).await
                }

                async fn insert_agent_key(&self, record: &AgentKeyRecord) -> Result<()> {
                    sqlx::query(
                        "INSERT INTO agent_keys (id, project_id, key_hash, prefix, created_at) \
                         VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(DbId::from(record.id))
                    .bind(DbId::from(record.project_id))
                    .bind(record.hash.to_hex())
                    .bind(record.prefix.as_str())
                    .bind(record.created_at.unix_seconds())
                    .execute(self.write_pool())
                    .await
                    .map_err(|e| write_error(e, || "this agent key exists".into()))?;
                    Ok(())
                }

                async fn agent_keys(&self, project: ProjectId) -> Result<Vec<AgentKeyRecord>> {
                    let rows: Vec<AgentKeyRow> = sqlx::query_as(
                        "SELECT id, project_id, key_hash, prefix, created_at FROM agent_keys \
                         WHERE project_id = $1 ORDER BY created_at, id",
                    )
                    .bind(DbId::from(project))
                    .fetch_all(self.read_pool())
                    .await
                    .map_err(storage)?;
                    rows.into_iter().map(AgentKeyRow::into_record).collect()
                }

                async fn delete_agent_key(&self, project: ProjectId, id: AgentKeyId) -> Result<bool> {
                    let done =
                        sqlx::query("DELETE FROM agent_keys WHERE project_id = $1 AND id = $2")
                            .bind(DbId::from(project))
                            .bind(DbId::from(id))
                            .execute(self.write_pool())
                            .await
                            .map_err(storage)?;
                    Ok(done.rows_affected() > 0)
                }

                async fn agent_key_by_hash(&self, hash: &SecretHash) -> Result<Option<AgentKeyRecord>> {
                    let row: Option<AgentKeyRow> = sqlx::query_as(
                        "SELECT id, project_id, key_hash, prefix, created_at FROM agent_keys \
                         WHERE key_hash = $1",
                    )
                    .bind(hash.to_hex())
                    .fetch_optional(self.read_pool())
                    .await
                    .map_err(storage)?;
                    row.map(AgentKeyRow::into_record).transpose()
                }

                async fn insert_admin_token(&self, record: &AdminTokenRecord) -> Result<()> {
                    sqlx::query(
                        "INSERT INTO admin_tokens (id, project_id, token_hash, created_at) \
                         VALUES ($1, $2, $3, $4)",
                    )
                    .bind(DbId::from(record.id))
                    .bind(DbId::from(record.project_id))
                    .bind(record.hash.to_hex())
                    .bind(record.created_at.unix_seconds())
                    .execute(self.write_pool())
                    .await
                    .map_err(|e| write_error(e, || "this admin token exists".into()))?;
                    Ok(())
                }

                async fn delete_admin_token(&self, project: ProjectId, id: AdminTokenId) -> Result<bool> {
                    let done =
                        sqlx::query("DELETE FROM admin_tokens WHERE project_id = $1 AND id = $2")
                            .bind(DbId::from(project))
                            .bind(DbId::from(id))
                            .execute(self.write_pool())
                            .await
                            .map_err(storage)?;
                    Ok(done.rows_affected() > 0)
                }

                async fn admin_token_by_hash(
                    &self,
                    hash: &SecretHash,
                ) -> Result<Option<AdminTokenRecord>> {
                    let row: Option<AdminTokenRow> = sqlx::query_as(
                        "SELECT id, project_id, token_hash, created_at FROM admin_tokens \
                         WHERE token_hash = $1",
                    )
                    .bind(hash.to_hex())
                    .fetch_optional(self.read_pool())
                    .await
                    .map_err(storage)?;
                    row.map(AdminTokenRow::into_record).transpose()
                }

                async fn insert_blog(&self, blog: &Blog) -> Result<()> {
                    let mut tx = self.begin_write().await?;
                    let result: Result<()> = async {
                    bind_blog!(
                        sqlx::query(concat!(
                            "INSERT INTO blogs (",
                            blog_columns!(),
                            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, \
                             $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)"
                        )),
                        BlogValues::of(blog)
                    )
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| write_error(e, || "a blog with this id exists".into()))?;
                    Self::write_derived(&mut tx, blog, &Derived::default(), &Derived::of(blog))
                        .await?;
                    if blog.state.snapshot().is_some() {
                        Self::bump_version(&mut tx, blog.project_id, 1).await?;
                    }
                    Ok(())
                    }
                    .await;
                    tx.finish(result).await
                }

                async fn blog(&self, project: ProjectId, id: BlogId) -> Result<Option<Blog>> {
                    let row: Option<BlogRow> = sqlx::query_as(concat!(
                        "SELECT ",
                        blog_columns!(),
                        " FROM blogs WHERE id = $1 AND project_id = $2"
                    ))
                    .bind(DbId::from(id))
                    .bind(DbId::from(project))
                    .fetch_optional(self.read_pool())
                    .await
                    .map_err(storage)?;
                    row.map(BlogRow::into_blog).transpose()
                }

                async fn blogs(
                    &self,
                    project: ProjectId,
                    status: Option<BlogStatus>,
                    limit: u32,
                    offset: u64,
                ) -> Result<BlogPage> {
                    let status = status.map(|s| s.as_str());
                    // The working copy only: never the published body, which may be as large.
                    let rows: Vec<ManagedRow> = sqlx::query_as(
                        "SELECT id, status, created_at, updated_at, published_at, title, slug, \
                         excerpt, meta_title, meta_description, featured_image_url, categories, \
                         tags, content FROM blogs \
                         WHERE project_id = $1 AND ($2 IS NULL OR status = $2) \
                         ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4",
                    )
                    .bind(DbId::from(project))
                    .bind(status)
                    .bind(i64::from(limit))
                    .bind(sql_count(offset))
                    .fetch_all(self.read_pool())
                    .await
                    .map_err(storage)?;
                    let total: i64 = sqlx::query_scalar(
                        "SELECT COUNT(*) FROM blogs WHERE project_id = $1 AND ($2 IS NULL OR status = $2)",
                    )
                    .bind(DbId::from(project))
                    .bind(status)
                    .fetch_one(self.read_pool())
                    .await
                    .map_err(storage)?;
                    Ok(BlogPage {
                        blogs: rows
                            .into_iter()
                            .map(ManagedRow::into_managed)
                            .collect::<Result<_>>()?,
                        total: count(total),
                    })
                }

                async fn update_blog(
                    &self,
                    project: ProjectId,
                    id: BlogId,
                    change: BlogChange,
                ) -> Result<(Blog, Option<Trigger>)> {
                    let mut tx = self.begin_write().await?;
                    let result: Result<(Blog, Option<Trigger>)> = async {
                    let mut blog = Self::locked_blog(&mut tx, project, id).await?;
                    let before = Derived::of(&blog);
                    let before_slug = blog.state.snapshot().map(|s| s.fields.slug().to_string());
                    let was_published = i64::from(blog.state.snapshot().is_some());
                    // On error `finish` rolls the transaction back.
                    let event = change(&mut blog)?;
                    let published_delta = i64::from(blog.state.snapshot().is_some()) - was_published;
                    debug_assert_eq!((blog.id, blog.project_id), (id, project));
                    bind_blog!(
                        sqlx::query(
                            "UPDATE blogs SET status = $3, created_at = $4, updated_at = $5, \
                             published_at = $6, published_updated_at = $7, pub_title = $8, \
                             pub_slug = $9, pub_excerpt = $10, pub_meta_title = $11, \
                             pub_meta_description = $12, pub_featured_image_url = $13, \
                             pub_categories = $14, pub_tags = $15, title = $16, slug = $17, \
                             excerpt = $18, meta_title = $19, meta_description = $20, \
                             featured_image_url = $21, categories = $22, tags = $23, \
                             pub_content = $24, content = $25 \
                             WHERE id = $1 AND project_id = $2"
                        ),
                        BlogValues::of(&blog)
                    )
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| write_error(e, || slug_conflict(&blog)))?;
                    Self::write_derived(&mut tx, &blog, &before, &Derived::of(&blog)).await?;
                    if event.is_some() || published_delta != 0 {
                        Self::bump_version(&mut tx, project, published_delta).await?;
                    }
                    let slug = $crate::lifecycle::firing_slug(before_slug, &blog);
                    Self::record_firing(&mut tx, &blog, event, slug).await?;
                    Ok((blog, event))
                    }
                    .await;
                    tx.finish(result).await
                }

                async fn delete_blog(&self, project: ProjectId, id: BlogId) -> Result<Blog> {
                    let mut tx = self.begin_write().await?;
                    let result: Result<Blog> = async {
                    let blog = Self::locked_blog(&mut tx, project, id).await?;
                    // Its slugs and category rows go with it (ON DELETE CASCADE).
                    sqlx::query("DELETE FROM blogs WHERE id = $1")
                        .bind(DbId::from(id))
                        .execute(&mut *tx)
                        .await
                        .map_err(storage)?;
                    if blog.state.snapshot().is_some() {
                        Self::bump_version(&mut tx, project, -1).await?;
                    }
                    let slug = $crate::lifecycle::firing_slug(None, &blog);
                    let event = $crate::lifecycle::deletion_event(&blog);
                    Self::record_firing(&mut tx, &blog, event, slug).await?;
                    Ok(blog)
                    }
                    .await;
                    tx.finish(result).await
                }

                async fn published_page(
                    &self,
                    project: ProjectId,
                    query: &PageQuery,
                ) -> Result<PublishedPage> {
                    // One query: the page in index order and, as a scalar subquery read from
                    // the same snapshot, the total. Only an empty page needs a second query.
                    let project_id = DbId::from(project);
                    let limit = i64::from(query.limit);
                    let offset = sql_count(query.offset);
                    let rows: Vec<PublishedRow> = match (&query.category, query.include_content) {
                        (None, include) => {
                            let sql = if include {
                                PAGE_WITH_CONTENT
                            } else {
                                PAGE
                            };
                            sqlx::query_as(sql)
                                .bind(project_id)
                                .bind(limit)
                                .bind(offset)
                                .fetch_all(self.read_pool())
                                .await
                        }
                        (Some(category), include) => {
                            let sql = if include {
                                CATEGORY_PAGE_WITH_CONTENT
                            } else {
                                CATEGORY_PAGE
                            };
                            sqlx::query_as(sql)
                                .bind(project_id)
                                .bind(category.as_str())
                                .bind(limit)
                                .bind(offset)
                                .fetch_all(self.read_pool())
                                .await
                        }
                    }
                    .map_err(storage)?;
                    let total = match rows.first() {
                        Some(first) => first.total.unwrap_or_default(),
                        None => match &query.category {
                            None => sqlx::query_scalar(
                                "SELECT published_count FROM projects WHERE id = $1",
                            )
                            .bind(project_id)
                            .fetch_optional(self.read_pool())
                            .await
                            .map(Option::unwrap_or_default),
                            Some(category) => sqlx::query_scalar(
                                "SELECT COUNT(*) FROM blog_categories \
                                 WHERE project_id = $1 AND category_key = $2",
                            )
                            .bind(project_id)
                            .bind(category.as_str())
                            .fetch_one(self.read_pool())
                            .await,
                        }
                        .map_err(storage)?,
                    };
                    Ok(PublishedPage {
                        blogs: rows
                            .into_iter()
                            .map(PublishedRow::into_published)
                            .collect::<Result<_>>()?,
                        total: count(total),
                    })
                }

                async fn published_by_slug(
                    &self,
                    project: ProjectId,
                    slug: &str,
                ) -> Result<Option<PublishedBlog>> {
                    let row: Option<PublishedRow> = sqlx::query_as(concat!(
                        "SELECT ",
                        published_columns!(),
                        ", b.pub_content AS content FROM blogs b \
                         WHERE b.project_id = $1 AND b.status = 'published' AND b.pub_slug = $2"
                    ))
                    .bind(DbId::from(project))
                    .bind(slug)
                    .fetch_optional(self.read_pool())
                    .await
                    .map_err(storage)?;
                    row.map(PublishedRow::into_published).transpose()
                }

                async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>> {
                    self.sitemap_entries(project, cap).await
                }

                async fn published_titles(
                    &self,
                    project: ProjectId,
                    slugs: &[String],
                ) -> Result<HashMap<String, String>> {
                    if slugs.is_empty() {
                        return Ok(HashMap::new());
                    }
                    self.titles(project, slugs).await
                }

                async fn deploy_hook(&self, project: ProjectId) -> Result<Option<String>> {
                    let url: Option<Option<String>> =
                        sqlx::query_scalar("SELECT deploy_hook_url FROM projects WHERE id = $1")
                            .bind(DbId::from(project))
                            .fetch_optional(self.read_pool())
                            .await
                            .map_err(storage)?;
                    Ok(url.flatten())
                }

                async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()> {
                    let done = sqlx::query("UPDATE projects SET deploy_hook_url = $2 WHERE id = $1")
                        .bind(DbId::from(project))
                        .bind(url)
                        .execute(self.write_pool())
                        .await
                        .map_err(storage)?;
                    if done.rows_affected() == 0 {
                        return Err(Error::NotFound(NotFound::Project));
                    }
                    Ok(())
                }

                async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()> {
                    let mut tx = self.begin_write().await?;
                    let result = Self::insert_delivery(&mut tx, project, delivery).await;
                    tx.finish(result).await
                }

                async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>> {
                    let rows: Vec<DeliveryRow> = sqlx::query_as(
                        "SELECT id, kind, blog_slug, attempted_at, success, status_code, message, \
                         duration_ms FROM deliveries WHERE project_id = $1 \
                         ORDER BY seq DESC LIMIT $2",
                    )
                    .bind(DbId::from(project))
                    .bind(sql_count(DELIVERY_LOG_LEN as u64))
                    .fetch_all(self.read_pool())
                    .await
                    .map_err(storage)?;
                    rows.into_iter().map(DeliveryRow::into_delivery).collect()
                }

                async fn claim_firings(
                    &self,
                    project: Option<ProjectId>,
                    now: Timestamp,
                ) -> Result<Vec<PendingFiring>> {
                    // One statement: two claimers at once never both get a row.
                    let rows: Vec<FiringRow> = sqlx::query_as(
                        "UPDATE pending_firings SET claimed_at = $2 \
                         WHERE claimed_at IS NULL AND ($1 IS NULL OR project_id = $1) \
                         RETURNING id, project_id, kind, blog_slug",
                    )
                    .bind(project.map(DbId::from))
                    .bind(now.unix_seconds())
                    .fetch_all(self.write_pool())
                    .await
                    .map_err(storage)?;
                    rows.into_iter().map(FiringRow::into_firing).collect()
                }

                async fn stale_firings(
                    &self,
                    claimed_before: Timestamp,
                ) -> Result<Vec<PendingFiring>> {
                    let rows: Vec<FiringRow> = sqlx::query_as(
                        "SELECT id, project_id, kind, blog_slug FROM pending_firings \
                         WHERE claimed_at < $1",
                    )
                    .bind(claimed_before.unix_seconds())
                    .fetch_all(self.read_pool())
                    .await
                    .map_err(storage)?;
                    rows.into_iter().map(FiringRow::into_firing).collect()
                }

                async fn complete_firing(
                    &self,
                    firing: &PendingFiring,
                    delivery: Option<&Delivery>,
                ) -> Result<bool> {
                    let mut tx = self.begin_write().await?;
                    let result: Result<bool> = async {
                        let done = sqlx::query("DELETE FROM pending_firings WHERE id = $1")
                            .bind(DbId::from(firing.id))
                            .execute(&mut *tx)
                            .await
                            .map_err(storage)?;
                        let was_recorded = done.rows_affected() == 1;
                        if let (true, Some(delivery)) = (was_recorded, delivery) {
                            Self::insert_delivery(&mut tx, firing.project, delivery).await?;
                        }
                        Ok(was_recorded)
                    }
                    .await;
                    tx.finish(result).await
                }
            }
        };
    };
}
pub(crate) use sql_store;
