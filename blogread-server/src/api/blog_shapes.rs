//! A post's shapes on the wire, in one room so that a new field is added in one file: the
//! fields the public API shows (`docs/public-api.md`), the blog as the management API shows
//! it (`docs/management-api.md#blogs`), a page of them, and the bodies of create, edit and
//! publish, each with the one conversion from or to the core's values.

use blogread_core::domain::{self, BlogInput};
use blogread_core::service::ManagedBlogList as CoreManagedBlogList;
use poem_openapi::types::{Example, MaybeUndefined};
use poem_openapi::{Enum, Object};
use serde::Deserialize;

use super::schema::{DateTime, DateTimeText, Nullable};

/// A blog's lifecycle status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum BlogStatus {
    /// Created, never published.
    Draft,
    /// Visible through the public API.
    Published,
    /// Was published, then taken down.
    Unpublished,
    /// Published with a future `published_at`: public from that time on, when the deploy
    /// hook fires.
    Scheduled,
}

impl From<domain::BlogStatus> for BlogStatus {
    fn from(s: domain::BlogStatus) -> Self {
        match s {
            domain::BlogStatus::Draft => Self::Draft,
            domain::BlogStatus::Published => Self::Published,
            domain::BlogStatus::Unpublished => Self::Unpublished,
            domain::BlogStatus::Scheduled => Self::Scheduled,
        }
    }
}

/// A blog as the management API shows it: the working copy (placeholders as written) and its
/// lifecycle data.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct ManagedBlog {
    /// Id (a UUID).
    pub id: String,
    /// Title (working copy).
    pub title: String,
    /// Slug (working copy); a change on a published blog shows publicly at the next publish.
    pub slug: String,
    /// HTML body as written, `[INTERNAL:slug]` placeholders unresolved.
    pub content: String,
    /// Excerpt; `""` when none.
    pub excerpt: String,
    /// Meta title; `""` when none.
    pub meta_title: String,
    /// Meta description; `""` when none.
    pub meta_description: String,
    /// Featured image URL; `null` when none.
    pub featured_image_url: Nullable<String>,
    /// Category names, in order.
    pub categories: Vec<String>,
    /// Tags, in order.
    pub tags: Vec<String>,
    // Described by its enum, `BlogStatus`: a doc comment here would make the document wrap
    // the reference in `allOf` with a description, which client generators refuse.
    #[allow(missing_docs)]
    pub status: BlogStatus,
    /// First publication time (UTC); `null` if never published.
    pub published_at: Nullable<DateTime>,
    /// Last change (UTC).
    pub updated_at: DateTime,
    /// Creation time (UTC).
    pub created_at: DateTime,
}

impl From<domain::ManagedBlog> for ManagedBlog {
    fn from(b: domain::ManagedBlog) -> Self {
        let w = b.working;
        Self {
            id: b.id.to_string(),
            title: w.title().to_owned(),
            slug: w.slug().to_string(),
            excerpt: w.excerpt().to_owned(),
            meta_title: w.meta_title().to_owned(),
            meta_description: w.meta_description().to_owned(),
            featured_image_url: w.featured_image_url().map(str::to_owned).into(),
            categories: w.categories().to_vec(),
            tags: w.tags().to_vec(),
            status: b.status.into(),
            published_at: b.published_at.map(DateTime).into(),
            updated_at: b.updated_at.into(),
            created_at: b.created_at.into(),
            // Last: the body is moved out of the fields, not copied.
            content: w.into_content(),
        }
    }
}

impl From<blogread_core::service::BlogWrite> for ManagedBlog {
    fn from(w: blogread_core::service::BlogWrite) -> Self {
        w.blog.into()
    }
}

impl Example for ManagedBlog {
    fn example() -> Self {
        let t = DateTime(domain::Timestamp::parse("2026-11-21T09:30:00Z").expect("valid"));
        Self {
            id: "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f".into(),
            title: "Choosing a static site generator".into(),
            slug: "choosing-a-static-site-generator".into(),
            content:
                "<p>Read <a href=\"[INTERNAL:markdown-vs-html]\">Markdown or HTML?</a> first.</p>"
                    .into(),
            excerpt: "What to weigh before you pick one.".into(),
            meta_title: "".into(),
            meta_description: "".into(),
            featured_image_url: None.into(),
            categories: vec!["Engineering".into()],
            tags: vec!["static-sites".into()],
            status: BlogStatus::Published,
            published_at: Some(t).into(),
            updated_at: t,
            created_at: t,
        }
    }
}

/// The examples' featured image: a stored image's URL without its extension.
pub(super) const EXAMPLE_IMAGE: &str = "https://blog.example.com/media/0192d1a4-0000-7000-8000-00000000000a/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

/// The fields a published blog shows in the list and on its own (flattened into both).
#[derive(Debug, Clone, Object)]
pub struct PublicBlogFields {
    /// Title.
    pub title: String,
    /// Slug, unique within the project; used in the single-blog path.
    pub slug: String,
    /// Excerpt; `""` when none.
    pub excerpt: String,
    /// Meta title; `""` when none (not replaced by the title).
    pub meta_title: String,
    /// Meta description; `""` when none.
    pub meta_description: String,
    /// Featured image URL, not repeated inside `content`; `null` when the post has none.
    /// Usually one of the project's stored images (then `featured_image` describes it), or
    /// any absolute http(s) URL (imported posts).
    pub featured_image_url: Nullable<String>,
    /// Category names, in the author's order.
    pub categories: Vec<String>,
    /// Tags, in the author's order.
    pub tags: Vec<String>,
}

impl From<domain::BlogFields> for PublicBlogFields {
    fn from(f: domain::BlogFields) -> Self {
        Self {
            title: f.title().to_owned(),
            slug: f.slug().to_string(),
            excerpt: f.excerpt().to_owned(),
            meta_title: f.meta_title().to_owned(),
            meta_description: f.meta_description().to_owned(),
            featured_image_url: f.featured_image_url().map(str::to_owned).into(),
            categories: f.categories().to_vec(),
            tags: f.tags().to_vec(),
        }
    }
}

/// The fields of the list item's example.
impl Example for PublicBlogFields {
    fn example() -> Self {
        Self {
            title: "Choosing a static site generator".into(),
            slug: "choosing-a-static-site-generator".into(),
            excerpt: "What to weigh before you pick one.".into(),
            meta_title: "Choosing a static site generator in 2026".into(),
            meta_description: "Build speed, templating and content sources compared.".into(),
            featured_image_url: Some(format!("{EXAMPLE_IMAGE}.jpg")).into(),
            categories: vec!["Engineering".into()],
            tags: vec!["static-sites".into(), "tooling".into()],
        }
    }
}

/// A page of the project's blogs.
#[derive(Debug, Clone, Object)]
pub struct ManagedBlogList {
    /// The page, newest created first.
    pub blogs: Vec<ManagedBlog>,
    /// All blogs matching the status filter.
    pub total: u64,
    /// The limit applied (1..=100).
    pub limit: u32,
    /// The offset applied.
    pub offset: u64,
}

impl From<CoreManagedBlogList> for ManagedBlogList {
    fn from(l: CoreManagedBlogList) -> Self {
        Self {
            blogs: l.blogs.into_iter().map(Into::into).collect(),
            total: l.total,
            limit: l.limit,
            offset: l.offset,
        }
    }
}

/// A new draft. Rules (422 when broken, naming the rule): title 1 to 300 characters; slug
/// `^[a-z0-9]+(-[a-z0-9]+)*$`, 1 to 200 characters, unique in the project, not `sitemap`;
/// excerpt up to 1000; meta_title up to 300; meta_description up to 1000; content up to 2 MiB;
/// categories and tags up to 50 entries of 1 to 100 characters; featured_image_url an
/// absolute http(s) URL up to 2048 characters; `[INTERNAL:` only in content.
#[derive(Debug, Clone, Object, Deserialize)]
pub struct CreateBlog {
    /// Title.
    pub title: String,
    /// Slug.
    pub slug: String,
    /// HTML body; link to other posts of the project with `[INTERNAL:slug]`.
    #[serde(default)]
    pub content: Option<String>,
    /// Excerpt.
    #[serde(default)]
    pub excerpt: Option<String>,
    /// Meta title.
    #[serde(default)]
    pub meta_title: Option<String>,
    /// Meta description.
    #[serde(default)]
    pub meta_description: Option<String>,
    /// Featured image URL.
    #[serde(default)]
    pub featured_image_url: Option<String>,
    /// Category names, in order.
    #[serde(default)]
    pub categories: Option<Vec<String>>,
    /// Tags, in order.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
}

/// An edit of the working copy: each field present replaces that field (same rules as on
/// create); absent or `null` leaves it unchanged, except `featured_image_url: null`, which
/// removes the image. The public output changes only at the next publish.
#[derive(Debug, Clone, Object, Deserialize)]
pub struct UpdateBlog {
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// Slug.
    #[serde(default)]
    pub slug: Option<String>,
    /// HTML body.
    #[serde(default)]
    pub content: Option<String>,
    /// Excerpt.
    #[serde(default)]
    pub excerpt: Option<String>,
    /// Meta title.
    #[serde(default)]
    pub meta_title: Option<String>,
    /// Meta description.
    #[serde(default)]
    pub meta_description: Option<String>,
    /// Featured image URL, or `null` to remove it.
    #[serde(default)]
    pub featured_image_url: MaybeUndefined<String>,
    /// Category names, in order.
    #[serde(default)]
    pub categories: Option<Vec<String>>,
    /// Tags, in order.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
}

/// Options of a publish. The body may be left out.
#[derive(Debug, Clone, Object, Deserialize)]
pub struct PublishBlog {
    /// RFC 3339 (an offset is converted to UTC, fractions of a second are dropped). A time
    /// in the past imports the original publication time (first publish only). A time in the
    /// future schedules the blog (from draft, unpublished or scheduled): the snapshot is
    /// taken now and becomes public at that time, when the deploy hook fires. A re-sync of a
    /// published blog ignores it.
    #[serde(default)]
    pub published_at: Option<DateTimeText>,
}

/// A create's body as the core's input: every field given, title and slug required.
impl From<CreateBlog> for BlogInput {
    fn from(b: CreateBlog) -> Self {
        BlogInput {
            title: Some(b.title),
            slug: Some(b.slug),
            content: b.content,
            excerpt: b.excerpt,
            meta_title: b.meta_title,
            meta_description: b.meta_description,
            featured_image_url: b.featured_image_url.map(Some),
            categories: b.categories,
            tags: b.tags,
        }
    }
}

/// An edit's body as the core's patch: absent fields stay as they are; a `null` featured
/// image removes it.
impl From<UpdateBlog> for BlogInput {
    fn from(b: UpdateBlog) -> Self {
        BlogInput {
            title: b.title,
            slug: b.slug,
            content: b.content,
            excerpt: b.excerpt,
            meta_title: b.meta_title,
            meta_description: b.meta_description,
            featured_image_url: match b.featured_image_url {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(v) => Some(Some(v)),
            },
            categories: b.categories,
            tags: b.tags,
        }
    }
}
