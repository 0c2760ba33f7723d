//! The wire types of the public API (`docs/public-api.md#what-a-blog-looks-like`), field for
//! field.
//!
//! These are the crate's own types: they match the JSON the server sends exactly (the same field
//! names, `featured_image_url` as `null` when a post has none, `content` on list items only with
//! `include_content=true`) and serialise back to the same JSON, so `blogread list` prints what
//! the server sent. Unknown fields are ignored, so a server that adds a field does not break an
//! older client.
//!
//! They carry the names the server's core gives the same answers ([`BlogListItem`],
//! [`BlogDetail`], [`BlogList`], [`SitemapEntry`], [`Sitemap`]), so one vocabulary holds on
//! both sides; this crate still depends on neither the core nor the server.

use std::ops::{Deref, DerefMut};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The fields of a published blog as the list and the single-blog endpoints show them, in
/// both answers (flattened: the JSON has them at the top level of each blog).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlogFields {
    /// Title.
    pub title: String,
    /// Slug, unique within the project; the path segment of [`Client::get`](crate::Client::get).
    ///
    /// Always matches the slug grammar (1 to 200 lower-case letters, digits and single
    /// hyphens; an answer with any other slug does not decode), so it is safe as a file name
    /// or path segment as is.
    #[serde(deserialize_with = "crate::slug::deserialize")]
    pub slug: String,
    /// Excerpt (`""` when none).
    pub excerpt: String,
    /// Meta title (`""` when none; not defaulted to the title).
    pub meta_title: String,
    /// Meta description (`""` when none).
    pub meta_description: String,
    /// Featured image URL; `None` when the post has none. Not repeated inside `content`.
    pub featured_image_url: Option<String>,
    /// Category names, in the author's order.
    pub categories: Vec<String>,
    /// Tags, in the author's order.
    pub tags: Vec<String>,
    /// The featured image when it is one of the project's own media items (its master's
    /// address and size, its alt text and its narrower variants); `None` when the post has
    /// no featured image, names an image elsewhere (then only
    /// [`featured_image_url`](Self::featured_image_url) says which), or the server predates
    /// the field. Always written back (as `null` when `None`), in the server's field order.
    #[serde(default)]
    pub featured_image: Option<FeaturedImage>,
}

/// A featured image stored by the service (`docs/media.md`): the master and its variants.
///
/// The URLs are as the server sent them; [`Client::download_media`](crate::Client::download_media)
/// checks that one is a media URL before it asks for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FeaturedImage {
    /// The master's URL: `{public url}/media/{project id}/{sha256}.{jpg|png}`, named by the
    /// SHA-256 of its bytes.
    pub url: String,
    /// The master's width in pixels (at most 2,400).
    pub width: u32,
    /// The master's height in pixels (at most 2,400).
    pub height: u32,
    /// The image's alt text (`""` when none).
    pub alt: String,
    /// The variants narrower than the master (480, 960 and 1,600 px wide), narrowest first.
    pub variants: Vec<FeaturedImageVariant>,
}

/// One narrower copy of a [`FeaturedImage`], in the master's format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FeaturedImageVariant {
    /// Its width in pixels (its height keeps the master's proportions).
    pub width: u32,
    /// Its URL: `{public url}/media/{project id}/{master's sha256}/w{width}.{jpg|png}`.
    pub url: String,
}

/// One published blog as the list endpoint returns it (`docs/public-api.md#list-item`).
///
/// The shared fields read as the item's own: `item.title`, `item.slug` (through [`Deref`] to
/// [`BlogFields`], as the JSON has them at the top level of the blog).
///
/// `content` is `Some` only when the page was read with
/// [`ListParams::include_content`] (or through [`Client::all_blogs_with_content`]).
///
/// [`Client::all_blogs_with_content`]: crate::Client::all_blogs_with_content
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlogListItem {
    /// Identifier of the blog (a UUID string).
    pub id: String,
    /// Title, slug, excerpt, meta title and description, featured image, categories, tags.
    #[serde(flatten)]
    pub fields: BlogFields,
    /// First publication time; the list is sorted by it, newest first.
    pub published_at: DateTime<Utc>,
    /// HTML body with internal links resolved; present only with `include_content=true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// A single published blog (`docs/public-api.md#single-blog`): every list field, the body
/// always, plus `updated_at` and `word_count`. The list fields read as its own: `blog.title`,
/// `blog.slug` (through [`Deref`] to [`BlogFields`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlogDetail {
    /// Identifier of the blog (a UUID string).
    pub id: String,
    /// The fields of the list item.
    #[serde(flatten)]
    pub fields: BlogFields,
    /// First publication time.
    pub published_at: DateTime<Utc>,
    /// HTML body with internal links resolved (`docs/content.md#internal-links`).
    pub content: String,
    /// Last publish time.
    pub updated_at: DateTime<Utc>,
    /// Words of the resolved body with tags stripped, counted by the server.
    pub word_count: u64,
}

/// `item.title`, `item.slug`...: the fields the JSON holds at the top level of the blog.
impl Deref for BlogListItem {
    type Target = BlogFields;

    fn deref(&self) -> &BlogFields {
        &self.fields
    }
}

impl DerefMut for BlogListItem {
    fn deref_mut(&mut self) -> &mut BlogFields {
        &mut self.fields
    }
}

/// `blog.title`, `blog.slug`...: the fields the JSON holds at the top level of the blog.
impl Deref for BlogDetail {
    type Target = BlogFields;

    fn deref(&self) -> &BlogFields {
        &self.fields
    }
}

impl DerefMut for BlogDetail {
    fn deref_mut(&mut self) -> &mut BlogFields {
        &mut self.fields
    }
}

/// One page of the list endpoint (`docs/public-api.md#list-published-blogs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlogList {
    /// The blogs of this page, newest first.
    pub blogs: Vec<BlogListItem>,
    /// The number of all published blogs after the category filter, whatever the page.
    pub total: u64,
    /// The limit the server applied (requests are clamped to 1..=100).
    pub limit: u32,
    /// The offset the server applied.
    pub offset: u64,
}

/// One entry of the sitemap (`docs/public-api.md#sitemap`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SitemapEntry {
    /// Slug. Always matches the slug grammar, so it is safe as a file name or path segment
    /// (see [`BlogFields::slug`]).
    #[serde(deserialize_with = "crate::slug::deserialize")]
    pub slug: String,
    /// First publication time.
    pub published_at: DateTime<Utc>,
    /// Last publish time.
    pub updated_at: DateTime<Utc>,
}

/// The sitemap endpoint's answer (`docs/public-api.md#sitemap`): at most 5000 entries, newest
/// first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Sitemap {
    /// The entries.
    pub blogs: Vec<SitemapEntry>,
    /// The number of entries returned.
    pub total: u64,
}

/// An old slug of a published post and the post's current slug (slug history): a site
/// answers the old address with a redirect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Redirect {
    /// The old slug.
    pub from: String,
    /// The post's current slug.
    pub to: String,
}

/// The redirects endpoint's answer: at most 5000, newest rename first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Redirects {
    /// The redirects.
    pub redirects: Vec<Redirect>,
    /// The number returned.
    pub total: u64,
}

/// Every published blog from one consistent read, with each one's last publish time and
/// whether anything changed since the answers the ETag cache kept. Made by
/// [`Client::published`](crate::Client::published).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Published {
    /// Every published blog, newest first, each exactly once.
    pub blogs: Vec<PublishedBlog>,
    /// Whether any answer of this read differs from the one the ETag cache kept for its URL
    /// (from an earlier call or, with [`ClientBuilder::etag_cache_file`], an earlier run).
    /// `false` means the blogs (their content too when it was asked for) and their
    /// `updated_at` are exactly those of the cached run, so a generator may skip the build.
    /// Always `true` without a cache.
    ///
    /// [`ClientBuilder::etag_cache_file`]: crate::ClientBuilder::etag_cache_file
    pub changed: bool,
}

/// One published blog of [`Published`]: the list item and its last publish time.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PublishedBlog {
    /// The blog as the list endpoint gives it (with `content` when it was asked for).
    pub blog: BlogListItem,
    /// The last publish time, from the sitemap. The sitemap names the newest 5000 blogs
    /// ([`SITEMAP_MAX_ENTRIES`]), so this is `None` only for blogs older than those; read them
    /// with [`Client::get`](crate::Client::get) if you need it.
    pub updated_at: Option<DateTime<Utc>>,
}

/// The most entries the sitemap endpoint returns (`docs/public-api.md#sitemap`).
pub const SITEMAP_MAX_ENTRIES: usize = 5000;

/// The largest page the list endpoint serves (`docs/public-api.md#paging`).
pub const MAX_PAGE_SIZE: u32 = 100;

/// Query parameters of [`Client::list`](crate::Client::list)
/// (`docs/public-api.md#list-published-blogs`).
///
/// Unset values are left to the server (limit 50, offset 0, no category filter, no content).
///
/// ```
/// use blogread_client::ListParams;
/// let params = ListParams::new().limit(20).offset(40).category("Rust").include_content(true);
/// assert_eq!(params.get_limit(), Some(20));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListParams {
    limit: Option<u32>,
    offset: Option<u64>,
    category: Option<String>,
    include_content: bool,
}

impl ListParams {
    /// No parameters: the server's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Page size; the server clamps it into 1..=100.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Number of blogs to skip.
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Only blogs with this category (compared case-insensitively by the server).
    pub fn category(mut self, category: impl Into<String>) -> Self {
        self.category = Some(category.into());
        self
    }

    /// Whether list items carry their `content`.
    pub fn include_content(mut self, include: bool) -> Self {
        self.include_content = include;
        self
    }

    /// The page size asked for, if any.
    pub fn get_limit(&self) -> Option<u32> {
        self.limit
    }

    /// The offset asked for, if any.
    pub fn get_offset(&self) -> Option<u64> {
        self.offset
    }

    /// The category filter, if any.
    pub fn get_category(&self) -> Option<&str> {
        self.category.as_deref()
    }

    /// Whether content is asked for.
    pub fn get_include_content(&self) -> bool {
        self.include_content
    }

    /// The query pairs, in a fixed order (so equal parameters give equal URLs and cache keys).
    pub(crate) fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        if let Some(limit) = self.limit {
            pairs.push(("limit", limit.to_string()));
        }
        if let Some(offset) = self.offset {
            pairs.push(("offset", offset.to_string()));
        }
        if let Some(category) = &self.category {
            pairs.push(("category", category.clone()));
        }
        if self.include_content {
            pairs.push(("include_content", "true".to_owned()));
        }
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"{"blogs":[{"id":"0190a1b2-0000-7000-8000-000000000001","title":"Hello","slug":"hello","excerpt":"","meta_title":"","meta_description":"","featured_image_url":null,"categories":["News"],"tags":[],"featured_image":null,"published_at":"2026-11-21T09:30:00Z"}],"total":1,"limit":50,"offset":0}"#;

    const DETAIL: &str = r#"{"id":"0190a1b2-0000-7000-8000-000000000001","title":"Hello","slug":"hello","excerpt":"x","meta_title":"m","meta_description":"d","featured_image_url":"https://img.example/media/0190a1b2-0000-7000-8000-00000000000a/3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b.png","categories":[],"tags":["t"],"featured_image":{"url":"https://img.example/media/0190a1b2-0000-7000-8000-00000000000a/3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b.png","width":1200,"height":800,"alt":"A red kite","variants":[{"width":480,"url":"https://img.example/media/0190a1b2-0000-7000-8000-00000000000a/3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b/w480.png"}]},"published_at":"2026-11-21T09:30:00Z","content":"<p>Hi</p>","updated_at":"2026-11-22T10:00:00Z","word_count":1}"#;

    #[test]
    fn list_round_trips_byte_for_byte() {
        let page: BlogList = serde_json::from_str(LIST).unwrap();
        assert_eq!(page.blogs[0].fields.featured_image_url, None);
        assert_eq!(page.blogs[0].content, None);
        assert_eq!(serde_json::to_string(&page).unwrap(), LIST);
    }

    #[test]
    fn a_blogs_fields_read_as_its_own_as_in_the_json() {
        let page: BlogList = serde_json::from_str(LIST).unwrap();
        let item = &page.blogs[0];
        assert_eq!(
            (item.title.as_str(), item.slug.as_str()),
            ("Hello", "hello")
        );
        assert_eq!(item.categories, ["News"]);
        let mut blog: BlogDetail = serde_json::from_str(DETAIL).unwrap();
        assert_eq!(blog.meta_title, "m");
        assert!(
            blog.featured_image_url
                .as_deref()
                .is_some_and(|url| url.ends_with("4f1b.png"))
        );
        let image = blog.featured_image.as_ref().expect("own media");
        assert_eq!(
            (image.width, image.height, image.alt.as_str()),
            (1200, 800, "A red kite")
        );
        assert_eq!(image.variants[0].width, 480);
        blog.title = "Renamed".to_owned();
        assert_eq!(blog.fields.title, "Renamed");
    }

    #[test]
    fn detail_round_trips_byte_for_byte() {
        let blog: BlogDetail = serde_json::from_str(DETAIL).unwrap();
        assert_eq!(blog.word_count, 1);
        assert_eq!(
            blog.updated_at.to_rfc3339(),
            "2026-11-22T10:00:00+00:00".to_owned()
        );
        assert_eq!(serde_json::to_string(&blog).unwrap(), DETAIL);
    }

    #[test]
    fn a_slug_outside_the_grammar_does_not_decode() {
        for bad in ["../x", "A", "a/b", ""] {
            let list = LIST.replace(r#""slug":"hello""#, &format!(r#""slug":{bad:?}"#));
            assert!(serde_json::from_str::<BlogList>(&list).is_err(), "{bad}");
            let detail = DETAIL.replace(r#""slug":"hello""#, &format!(r#""slug":{bad:?}"#));
            assert!(
                serde_json::from_str::<BlogDetail>(&detail).is_err(),
                "{bad}"
            );
        }
        let entry = r#"{"slug":"../../etc","published_at":"2026-11-21T09:30:00Z","updated_at":"2026-11-21T09:30:00Z"}"#;
        assert!(serde_json::from_str::<SitemapEntry>(entry).is_err());
    }

    #[test]
    fn an_older_servers_answer_without_featured_image_still_decodes() {
        let older = LIST.replace(r#""featured_image":null,"#, "");
        let page: BlogList = serde_json::from_str(&older).unwrap();
        assert_eq!(page.blogs[0].featured_image, None);
        // Written back as the current server writes it.
        assert_eq!(serde_json::to_string(&page).unwrap(), LIST);
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let with_extra = LIST.replace(r#""total":1"#, r#""total":1,"next":null"#);
        let page: BlogList = serde_json::from_str(&with_extra).unwrap();
        assert_eq!(page.total, 1);
    }

    #[test]
    fn query_pairs_in_fixed_order() {
        let p = ListParams::new()
            .include_content(true)
            .category("A b")
            .offset(3)
            .limit(7);
        assert_eq!(
            p.query_pairs(),
            vec![
                ("limit", "7".to_owned()),
                ("offset", "3".to_owned()),
                ("category", "A b".to_owned()),
                ("include_content", "true".to_owned()),
            ]
        );
        assert!(ListParams::new().query_pairs().is_empty());
    }
}
