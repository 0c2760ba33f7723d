//! The rows of the SQL schema as Rust values: the id column type, one struct per row shape
//! that a query reads (each with its conversion to domain values, checking stored data again),
//! and the column values of a blog to write.

use serde::Deserialize;
use sqlx::FromRow;
use uuid::Uuid;

use super::errors::corrupt;
use super::post_columns::with_post_fields;
use super::values::DbId;
use crate::domain::{
    AdminSession, AdminTokenId, Blog, BlogFields, BlogId, BlogInput, BlogState, BlogStatus,
    CredentialId, CredentialKind, CredentialLabel, Delivery, DeliveryId, ManagedBlog, Project,
    ProjectId, ProjectName, PublicKey, PublicProject, PublishedBlog, PublishedSnapshot, SecretHash,
    SessionCredential, SiteUrl, StoredCredential, StoredPublicKey, Timestamp, Trigger,
};
use crate::error::Result;
use crate::links::LinkTemplate;
use crate::store::{PostKey, category_key};

/// A stored Unix time as a [`Timestamp`]; `what` names the column for the error.
pub(crate) fn timestamp(what: &'static str, seconds: i64) -> Result<Timestamp> {
    Timestamp::from_unix_seconds(seconds).ok_or_else(|| corrupt(what, seconds))
}

fn parse_list(what: &'static str, json: &str) -> Result<Vec<String>> {
    serde_json::from_str(json).map_err(|e| corrupt(what, e))
}

/// A scheduled blog due to go live: what its go-live writes (see `due_query!`).
#[derive(Debug, FromRow)]
pub(crate) struct DueRow {
    pub(crate) id: DbId,
    pub(crate) pub_slug: String,
    pub_categories: String,
    pub(crate) published_at: i64,
}

impl DueRow {
    /// The category keys of its snapshot, sorted and without duplicates (as `Derived`).
    pub(crate) fn category_keys(&self) -> Result<Vec<String>> {
        let mut keys: Vec<String> = parse_list("pub_categories", &self.pub_categories)?
            .iter()
            .map(|c| category_key(c))
            .collect();
        keys.sort();
        keys.dedup();
        Ok(keys)
    }
}

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

/// A stored column's value as the field of [`BlogInput`] it fills: text as it is (absent when
/// `NULL`), an optional text as present (with `None` for `NULL`), a list parsed from its JSON
/// array.
trait FromCell: Sized {
    /// The field's value from its column's (`what` names the column for the error).
    fn from_cell(cell: Option<String>, what: &'static str) -> Result<Self>;
}

impl FromCell for Option<String> {
    fn from_cell(cell: Option<String>, _: &'static str) -> Result<Self> {
        Ok(cell)
    }
}

impl FromCell for Option<Option<String>> {
    fn from_cell(cell: Option<String>, _: &'static str) -> Result<Self> {
        Ok(Some(cell))
    }
}

impl FromCell for Option<Vec<String>> {
    fn from_cell(cell: Option<String>, what: &'static str) -> Result<Self> {
        cell.map(|json| parse_list(what, &json)).transpose()
    }
}

/// Declares [`FieldsRow`] with a column for each field `with_post_fields!` names.
macro_rules! fields_row {
    ($($name:ident),*) => {
        /// A post's fields as the columns of the working copy are named: the working copy's
        /// own columns, a published snapshot's read under the same names (`pub_title AS
        /// title`...), or a snapshot's as one JSON object with those keys
        /// (`SqlDialect::BLOG`). The one row shape of a post's fields; the body is read apart.
        #[derive(Debug, FromRow, Deserialize)]
        pub(crate) struct FieldsRow {
            $($name: Option<String>,)*
        }

        impl FieldsRow {
            /// The names of its columns, in order.
            const NAMES: [&'static str; [$(stringify!($name)),*].len()] =
                [$(stringify!($name)),*];

            /// The fields with `content` as their body (`""` when `None`), as an input.
            fn into_input(self, content: Option<String>) -> Result<BlogInput> {
                Ok(BlogInput {
                    $($name: FromCell::from_cell(self.$name, stringify!($name))?,)*
                    content,
                })
            }

            /// The fields read by rusqlite from the columns at `at`, in the order of
            /// [`FieldsRow::NAMES`].
            #[cfg(feature = "sqlite")]
            fn from_rusqlite(row: &rusqlite::Row<'_>, at: &[usize]) -> rusqlite::Result<Self> {
                let mut at = at.iter();
                Ok(FieldsRow {
                    $($name: row.get(*at.next().expect("a position for each column"))?,)*
                })
            }
        }
    };
}
with_post_fields!({ fields_row }());

impl FieldsRow {
    /// The domain fields, checked again by every rule (`what` names the row for the error).
    fn into_fields(self, content: Option<String>, what: &'static str) -> Result<BlogFields> {
        BlogFields::from_stored(self.into_input(content)?).map_err(|e| corrupt(what, e))
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
    #[sqlx(flatten)]
    working: FieldsRow,
    content: String,
}

impl ManagedRow {
    /// The management view of the row.
    pub(crate) fn into_managed(self) -> Result<ManagedBlog> {
        Ok(ManagedBlog {
            id: BlogId::from_uuid(self.id.0),
            working: self.working.into_fields(Some(self.content), "blog")?,
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

/// A row of `blogs`, as `SqlDialect::BLOG` reads it.
#[derive(Debug, FromRow)]
pub(crate) struct BlogRow {
    id: DbId,
    project_id: DbId,
    status: String,
    created_at: i64,
    updated_at: i64,
    published_at: Option<i64>,
    published_updated_at: Option<i64>,
    #[sqlx(flatten)]
    working: FieldsRow,
    content: String,
    /// The published or scheduled snapshot's fields as one JSON object ([`FieldsRow`]),
    /// `NULL` when the blog holds none.
    snapshot: Option<String>,
    pub_content: Option<String>,
}

fn required<T>(value: Option<T>, column: &'static str) -> Result<T> {
    value.ok_or_else(|| corrupt("published blog", format!("{column} is NULL")))
}

impl BlogRow {
    /// The domain blog, its fields checked again.
    pub(crate) fn into_blog(self) -> Result<Blog> {
        let working = self.working.into_fields(Some(self.content), "blog")?;
        let status: BlogStatus = self
            .status
            .parse()
            .map_err(|_| corrupt("blog status", &self.status))?;
        let state = match status {
            BlogStatus::Draft => BlogState::Draft,
            BlogStatus::Unpublished => BlogState::Unpublished {
                published_at: timestamp(
                    "published_at",
                    required(self.published_at, "published_at")?,
                )?,
            },
            BlogStatus::Published | BlogStatus::Scheduled => {
                let snapshot: FieldsRow =
                    serde_json::from_str(&required(self.snapshot, "pub_slug")?)
                        .map_err(|e| corrupt("published snapshot", e))?;
                let fields = snapshot.into_fields(
                    Some(required(self.pub_content, "pub_content")?),
                    "published snapshot",
                )?;
                let snapshot = Box::new(PublishedSnapshot {
                    fields,
                    published_at: timestamp(
                        "published_at",
                        required(self.published_at, "published_at")?,
                    )?,
                    updated_at: timestamp(
                        "published_updated_at",
                        required(self.published_updated_at, "published_updated_at")?,
                    )?,
                });
                if status == BlogStatus::Published {
                    BlogState::Published(snapshot)
                } else {
                    BlogState::Scheduled(snapshot)
                }
            }
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

/// The derived rows a blog has besides its own: the slugs it holds, while published the
/// category keys of its snapshot (with the snapshot's `published_at`), and the link template
/// of the body it holds for the public (compiled when that body changes).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Derived {
    pub(crate) slugs: Vec<String>,
    pub(crate) categories: Vec<String>,
    pub(crate) published_at: i64,
    /// The published or scheduled snapshot's body.
    pub(crate) body: Option<String>,
}

impl Derived {
    /// The derived rows of `blog` as it is.
    pub(crate) fn of(blog: &Blog) -> Self {
        let slugs = blog.slugs().map(|s| s.as_str().to_owned()).collect();
        let (mut categories, published_at) = match blog.state.snapshot() {
            Some(s) => (
                s.fields
                    .categories()
                    .iter()
                    .map(|c| category_key(c))
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
            body: blog
                .state
                .held_snapshot()
                .map(|s| s.fields.content().to_owned()),
        }
    }
}

/// The stored form of a body's link template: `''` when it has no placeholder or is not
/// compiled (see `links::compile`).
pub(crate) fn stored_template(compiled: crate::links::Compiled) -> String {
    compiled
        .into_template()
        .map(|template| template.to_stored())
        .unwrap_or_default()
}

/// A blog whose published body has no stored template yet (start-up compilation).
#[derive(Debug, FromRow)]
pub(crate) struct PendingTemplateRow {
    pub(crate) id: DbId,
    pub(crate) pub_content: String,
}

/// The id in column `at` of a row read by rusqlite (stored as text).
#[cfg(feature = "sqlite")]
fn rusqlite_id(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<DbId> {
    let id: String = row.get(at)?;
    Uuid::parse_str(&id).map(DbId).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(at, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// A published blog for public reads; `content` and `total` are present only when selected.
#[derive(Debug, FromRow)]
pub(crate) struct PublishedRow {
    id: DbId,
    #[sqlx(flatten)]
    fields: FieldsRow,
    published_at: i64,
    updated_at: i64,
    #[sqlx(default)]
    content: Option<String>,
    /// The stored link template (`LinkTemplate::to_stored`), when there is one.
    #[sqlx(default)]
    template: Option<String>,
    #[sqlx(default)]
    pub(crate) total: Option<i64>,
    /// The project's content version, read by the page index's queries.
    #[sqlx(default)]
    pub(crate) version: Option<i64>,
    /// The blog's change number, read by the changes feed.
    #[sqlx(default)]
    pub(crate) change_no: Option<i64>,
}

/// How many columns [`PublishedRow`] always reads: the id, the fields, the two times.
const PUBLISHED_REQUIRED: usize = FieldsRow::NAMES.len() + 3;

impl super::quick::QuickRow for PublishedRow {
    /// Column positions: those always there (the id, the fields, the two times), then
    /// content, template, total, version, change number when the statement selects them.
    type Layout = ([usize; PUBLISHED_REQUIRED], [Option<usize>; 5]);

    #[cfg(feature = "sqlite")]
    fn layout(stmt: &rusqlite::Statement<'_>) -> rusqlite::Result<Self::Layout> {
        let mut required = [0; PUBLISHED_REQUIRED];
        let names = std::iter::once("id")
            .chain(FieldsRow::NAMES)
            .chain(["published_at", "updated_at"]);
        for (at, name) in required.iter_mut().zip(names) {
            *at = stmt.column_index(name)?;
        }
        // Absent optional columns read as `None`, as `#[sqlx(default)]` does.
        let optional = ["content", "template", "total", "version", "change_no"]
            .map(|name| stmt.column_index(name).ok());
        Ok((required, optional))
    }

    #[cfg(feature = "sqlite")]
    fn from_rusqlite(
        row: &rusqlite::Row<'_>,
        (at, optional): &Self::Layout,
    ) -> rusqlite::Result<Self> {
        fn maybe<T: rusqlite::types::FromSql>(
            row: &rusqlite::Row<'_>,
            at: Option<usize>,
        ) -> rusqlite::Result<Option<T>> {
            at.map_or(Ok(None), |at| row.get(at))
        }
        let fields_end = PUBLISHED_REQUIRED - 2;
        Ok(PublishedRow {
            id: rusqlite_id(row, at[0])?,
            fields: FieldsRow::from_rusqlite(row, &at[1..fields_end])?,
            published_at: row.get(at[fields_end])?,
            updated_at: row.get(at[fields_end + 1])?,
            content: maybe(row, optional[0])?,
            template: maybe(row, optional[1])?,
            total: maybe(row, optional[2])?,
            version: maybe(row, optional[3])?,
            change_no: maybe(row, optional[4])?,
        })
    }
}

/// A row of a public page read (`PublishedRow`, `KeyRow`): what the page reads need of it
/// besides its own columns.
pub(crate) trait PageRow: super::quick::QuickRow + Send + Unpin {
    /// The total after the filter, read by the plain page queries.
    fn total(&self) -> Option<i64>;
    /// The project's content version, read by the page index's queries.
    fn version(&self) -> Option<i64>;
}

impl PageRow for PublishedRow {
    fn total(&self) -> Option<i64> {
        self.total
    }
    fn version(&self) -> Option<i64> {
        self.version
    }
}

impl PageRow for KeyRow {
    fn total(&self) -> Option<i64> {
        self.total
    }
    fn version(&self) -> Option<i64> {
        self.version
    }
}

/// A published blog's key for public reads (`queries::key_columns!`); `total` and `version`
/// as in [`PublishedRow`].
#[derive(Debug, FromRow)]
pub(crate) struct KeyRow {
    id: DbId,
    change_no: i64,
    #[sqlx(default)]
    pub(crate) total: Option<i64>,
    #[sqlx(default)]
    pub(crate) version: Option<i64>,
}

impl KeyRow {
    pub(crate) fn into_key(self) -> PostKey {
        PostKey {
            id: BlogId::from_uuid(self.id.0),
            change: super::queries::count(self.change_no),
        }
    }
}

impl super::quick::QuickRow for KeyRow {
    /// Column positions: the id and change number, then total and version when selected.
    type Layout = ([usize; 2], [Option<usize>; 2]);

    #[cfg(feature = "sqlite")]
    fn layout(stmt: &rusqlite::Statement<'_>) -> rusqlite::Result<Self::Layout> {
        Ok((
            [stmt.column_index("id")?, stmt.column_index("change_no")?],
            ["total", "version"].map(|name| stmt.column_index(name).ok()),
        ))
    }

    #[cfg(feature = "sqlite")]
    fn from_rusqlite(
        row: &rusqlite::Row<'_>,
        (at, optional): &Self::Layout,
    ) -> rusqlite::Result<Self> {
        let id = rusqlite_id(row, at[0])?;
        let maybe = |at: Option<usize>| at.map_or(Ok(None), |at| row.get(at));
        Ok(KeyRow {
            id,
            change_no: row.get(at[1])?,
            total: maybe(optional[0])?,
            version: maybe(optional[1])?,
        })
    }
}

/// A row of the page index's marks: the version and total, and one mark (absent when the
/// list is shorter than a stride).
#[derive(Debug, FromRow)]
pub(crate) struct MarkRow {
    pub(crate) version: i64,
    pub(crate) total: i64,
    pub(crate) n: Option<i64>,
    pub(crate) published_at: Option<i64>,
    pub(crate) id: Option<DbId>,
}

impl PublishedRow {
    pub(crate) fn into_published(self) -> Result<PublishedBlog> {
        // Public reads trust what the writes checked: the hot path does not check every
        // field's rules again (`BlogFields::from_published`).
        let fields = BlogFields::from_published(self.fields.into_input(None)?)
            .map_err(|e| corrupt("published snapshot", e))?;
        Ok(PublishedBlog {
            id: BlogId::from_uuid(self.id.0),
            fields,
            published_at: timestamp("published_at", self.published_at)?,
            updated_at: timestamp("published_updated_at", self.updated_at)?,
            template: self
                .template
                .as_deref()
                .map(|stored| {
                    LinkTemplate::from_stored(stored)
                        .ok_or_else(|| corrupt("blog_templates.template", self.id.0))
                })
                .transpose()?,
            content: self.content,
        })
    }
}

impl PublishedRow {
    /// The bytes of its body as read (template or body).
    pub(crate) fn body_len(&self) -> usize {
        self.content.as_ref().map_or(0, String::len) + self.template.as_ref().map_or(0, String::len)
    }
}

/// A project as a change of its fields returns it, with its change sequence after the change.
#[derive(Debug, FromRow)]
pub(crate) struct ProjectChangeRow {
    #[sqlx(flatten)]
    pub(crate) project: ProjectRow,
    pub(crate) change_seq: i64,
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
    next_go_live: Option<i64>,
}

impl PublicProjectRow {
    /// The row as read by a binding other than sqlx (SQLite's key check reads it with
    /// rusqlite).
    #[cfg(feature = "sqlite")]
    pub(crate) fn new(
        id: uuid::Uuid,
        site_url: Option<String>,
        content_version: i64,
        next_go_live: Option<i64>,
    ) -> Self {
        Self {
            id: DbId(id),
            site_url,
            content_version,
            next_go_live,
        }
    }

    pub(crate) fn into_public(self) -> PublicProject {
        PublicProject {
            id: ProjectId::from_uuid(self.id.0),
            site_url: self.site_url,
            // Only ever incremented from 0.
            content_version: u64::try_from(self.content_version).unwrap_or_default(),
            // Written from a Timestamp, so always one (a corrupt value is left to the
            // scheduler's full read, which reports it).
            next_go_live: self.next_go_live.and_then(Timestamp::from_unix_seconds),
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

/// A row of `agent_keys` or `admin_tokens`, read under the same column names (an admin
/// token's `prefix` is NULL).
#[derive(Debug, FromRow)]
pub(crate) struct CredentialRow {
    id: DbId,
    project_id: DbId,
    hash: String,
    prefix: Option<String>,
    created_at: i64,
}

impl CredentialRow {
    pub(crate) fn into_credential(self, kind: CredentialKind) -> Result<StoredCredential> {
        let label = match (kind, self.prefix) {
            (CredentialKind::AgentKey, Some(prefix)) => CredentialLabel::AgentKey { prefix },
            (CredentialKind::AgentKey, None) => return Err(corrupt("agent key prefix", "NULL")),
            (CredentialKind::AdminToken, _) => CredentialLabel::AdminToken,
        };
        Ok(StoredCredential {
            id: CredentialId::from_uuid(self.id.0),
            project_id: ProjectId::from_uuid(self.project_id.0),
            hash: SecretHash::from_hex(&self.hash)
                .ok_or_else(|| corrupt("credential hash", "not 64 hex digits"))?,
            label,
            created_at: timestamp("created_at", self.created_at)?,
        })
    }
}

/// A row of `admin_sessions`.
#[derive(Debug, FromRow)]
pub(crate) struct SessionRow {
    id_hash: String,
    admin_token_id: Option<DbId>,
    project_id: Option<DbId>,
    operator_token_hash: Option<String>,
    created_at: i64,
    expires_at: i64,
}

impl SessionRow {
    pub(crate) fn into_session(self) -> Result<AdminSession> {
        let hash = |what: &'static str, hex: &str| {
            SecretHash::from_hex(hex).ok_or_else(|| corrupt(what, "not 64 hex digits"))
        };
        let credential = match (
            self.admin_token_id,
            self.project_id,
            self.operator_token_hash,
        ) {
            (Some(id), Some(project), None) => SessionCredential::AdminToken {
                id: AdminTokenId::from_uuid(id.0),
                project: ProjectId::from_uuid(project.0),
            },
            (None, None, Some(token_hash)) => SessionCredential::Operator {
                token_hash: hash("session operator token hash", &token_hash)?,
            },
            _ => {
                return Err(corrupt(
                    "admin session",
                    "neither an operator nor an admin token session",
                ));
            }
        };
        Ok(AdminSession {
            hash: hash("session id hash", &self.id_hash)?,
            credential,
            created_at: timestamp("created_at", self.created_at)?,
            expires_at: timestamp("expires_at", self.expires_at)?,
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
