//! The read models of the public API (`docs/public-api.md#what-a-blog-looks-like`), with the JSON
//! field names exactly.

use serde::{Deserialize, Serialize};

use super::blog::BlogFields;
use super::ids::BlogId;
use super::media::MediaItem;
use super::time::Timestamp;

/// A published blog as a store returns it for public reads: the published snapshot's fields
/// (their `content` is empty: the body is apart). `content` and `template` are `None` when the
/// caller did not ask for bodies (so stores need not load them); when asked for, one of them
/// is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedBlog {
    /// Id.
    pub id: BlogId,
    /// The published fields, without the body.
    pub fields: BlogFields,
    /// First publication time (the sort key).
    pub published_at: Timestamp,
    /// Last publish time.
    pub updated_at: Timestamp,
    /// Body as written (placeholders unresolved), when asked for and not compiled.
    pub content: Option<String>,
    /// The body compiled into a link template at publish, when asked for and the store keeps
    /// one (then `content` may be `None`: filling the template gives the resolved body).
    pub template: Option<crate::links::LinkTemplate>,
}

/// A post's featured image when it is one of the project's own stored images
/// (`docs/public-api.md#featured-image`): the master's URL and size, the item's alt text, and
/// its smaller copies, so that a site can lay the image out before it loads and offer the
/// right size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FeaturedImage {
    /// The master's public URL.
    pub url: String,
    /// The master's width in pixels.
    pub width: u32,
    /// The master's height in pixels.
    pub height: u32,
    /// The item's alt text (`""` when none).
    pub alt: String,
    /// The smaller copies, narrowest first.
    pub variants: Vec<FeaturedImageVariant>,
}

/// One smaller copy of a featured image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FeaturedImageVariant {
    /// Its width in pixels.
    pub width: u32,
    /// Its public URL.
    pub url: String,
}

impl FeaturedImage {
    /// The featured image of `item`, whose files are served under `public_url` (the
    /// service's public base URL, without a trailing `/`).
    pub fn of(item: &MediaItem, public_url: &str) -> Self {
        Self {
            url: format!("{public_url}{}", item.path(None)),
            width: item.width,
            height: item.height,
            alt: item.alt.as_str().to_owned(),
            variants: item
                .variants
                .iter()
                .map(|v| FeaturedImageVariant {
                    width: v.width,
                    url: format!("{public_url}{}", item.path(Some(v.width))),
                })
                .collect(),
        }
    }
}

/// One blog of the list endpoint (`docs/public-api.md#list-item`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlogListItem {
    /// Identifier of the blog.
    pub id: BlogId,
    /// Title, slug, excerpt, meta title and description, featured image, categories and tags
    /// (`""`, `null` or `[]` when none).
    #[serde(flatten)]
    pub fields: BlogFields,
    /// The featured image when it is one of the project's stored images, else `None`
    /// (`null`).
    #[serde(default)]
    pub featured_image: Option<FeaturedImage>,
    /// First publication time; the sort key.
    pub published_at: Timestamp,
    /// HTML body with internal links resolved; present only with `include_content=true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// A single blog (`docs/public-api.md#single-blog`): every list field, content always
/// present, `updated_at` and `word_count`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlogDetail {
    /// Identifier of the blog.
    pub id: BlogId,
    /// The fields of the list item.
    #[serde(flatten)]
    pub fields: BlogFields,
    /// The featured image when it is one of the project's stored images, else `None`
    /// (`null`).
    #[serde(default)]
    pub featured_image: Option<FeaturedImage>,
    /// First publication time.
    pub published_at: Timestamp,
    /// HTML body with internal links resolved.
    pub content: String,
    /// Last publish time.
    pub updated_at: Timestamp,
    /// Words of the resolved body, tags stripped.
    pub word_count: u64,
}

/// The list endpoint's response (`docs/public-api.md#list-published-blogs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlogList {
    /// The page.
    pub blogs: Vec<BlogListItem>,
    /// All published blogs after the category filter, independent of limit and offset.
    pub total: u64,
    /// The limit applied.
    pub limit: u32,
    /// The offset applied.
    pub offset: u64,
}

/// One sitemap entry (`docs/public-api.md#sitemap`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SitemapEntry {
    /// Slug.
    pub slug: String,
    /// First publication time.
    pub published_at: Timestamp,
    /// Last publish time.
    pub updated_at: Timestamp,
}

impl SitemapEntry {
    /// A sitemap entry.
    pub fn new(slug: String, published_at: Timestamp, updated_at: Timestamp) -> Self {
        Self {
            slug,
            published_at,
            updated_at,
        }
    }
}

/// An old public slug of a published post and the post's current slug: a site answers the old
/// address with a redirect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Redirect {
    /// The old slug (an alias of the post).
    pub from: String,
    /// The post's current published slug.
    pub to: String,
}

impl Redirect {
    /// A redirect from `from` to `to`.
    pub fn new(from: impl Into<String>, to: impl Into<String>) -> Self {
        Self {
            from: from.into(),
            to: to.into(),
        }
    }
}

/// The redirects endpoint's response: the aliases of published posts, newest rename first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Redirects {
    /// At most 5000 redirects, newest rename first.
    pub redirects: Vec<Redirect>,
    /// The number of redirects returned.
    pub total: u64,
}

/// The sitemap endpoint's response (`docs/public-api.md#sitemap`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Sitemap {
    /// At most 5000 entries, newest first.
    pub blogs: Vec<SitemapEntry>,
    /// The number of entries returned.
    pub total: u64,
}
