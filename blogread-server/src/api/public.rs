//! The public read API (`docs/public-api.md`): list, single blog by slug, sitemap, redirects,
//! changes feed.
//! Each answer carries a strong `ETag`; a matching `If-None-Match` gets 304 with no body.

use blogread_core::Service;
use blogread_core::domain;
use blogread_core::read::{Answer, Conditional, RawChangeParams, RawListParams};
use std::marker::PhantomData;

use bytes::Bytes;
use poem::IntoResponse;
use poem_openapi::param::{Header, Path, Query};
use poem_openapi::payload::{Json, Payload};
use poem_openapi::registry::{MetaSchemaRef, Registry};
use poem_openapi::types::{Example, Type};
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::auth::PublicAuth;
pub use super::blog_shapes::PublicBlogFields;
use super::common::ApiTags;
use super::schema::{BoolDoc, ChangeLimitDoc, DateTime, LimitDoc, Nullable, OffsetDoc, Raw, raw};
use crate::error::{self, Reply, reply};

/// A post's featured image when it is one of the project's stored images: the master's URL
/// and size (so a site can lay it out before it loads), the alt text, and the smaller copies.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct FeaturedImage {
    /// The master's absolute URL (`{public_url}/media/{project_id}/{sha256}.{ext}`), named by
    /// the SHA-256 of its bytes; served with `Cache-Control: immutable`.
    pub url: String,
    /// The master's width in pixels (at most 2400).
    pub width: u32,
    /// The master's height in pixels (at most 2400).
    pub height: u32,
    /// The image's alt text; `""` when none.
    pub alt: String,
    /// The smaller copies (widths 480, 960 and 1600, each only when narrower than the
    /// master), narrowest first.
    pub variants: Vec<FeaturedImageVariant>,
}

/// One smaller copy of a featured image.
#[derive(Debug, Clone, Object)]
pub struct FeaturedImageVariant {
    /// Its width in pixels; its height keeps the master's proportions.
    pub width: u32,
    /// Its absolute URL (`{public_url}/media/{project_id}/{sha256}/w{width}.{ext}`).
    pub url: String,
}

impl From<domain::FeaturedImage> for FeaturedImage {
    fn from(i: domain::FeaturedImage) -> Self {
        Self {
            url: i.url,
            width: i.width,
            height: i.height,
            alt: i.alt,
            variants: i
                .variants
                .into_iter()
                .map(|v| FeaturedImageVariant {
                    width: v.width,
                    url: v.url,
                })
                .collect(),
        }
    }
}

impl Example for FeaturedImage {
    fn example() -> Self {
        let base = super::blog_shapes::EXAMPLE_IMAGE;
        Self {
            url: format!("{base}.jpg"),
            width: 2400,
            height: 1600,
            alt: "A red kite over the ridge".into(),
            variants: [480, 960, 1600]
                .into_iter()
                .map(|width| FeaturedImageVariant {
                    width,
                    url: format!("{base}/w{width}.jpg"),
                })
                .collect(),
        }
    }
}

/// One published blog of the list. `content` is present only with `include_content=true`.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct BlogListItem {
    /// Identifier of the blog (a UUID).
    pub id: String,
    /// The fields: title, slug, excerpt, meta title and description, image, terms.
    #[oai(flatten)]
    pub fields: PublicBlogFields,
    /// The featured image with its size, alt text and smaller copies when
    /// `featured_image_url` names one of the project's stored images; `null` otherwise
    /// (no featured image, or one hosted elsewhere).
    pub featured_image: Nullable<FeaturedImage>,
    /// First publication time (UTC); the sort key, newest first.
    pub published_at: DateTime,
    /// HTML body with internal links resolved. Present only when `include_content=true`;
    /// absent (not `null`) otherwise.
    #[oai(skip_serializing_if_is_none)]
    pub content: Option<String>,
}

impl From<domain::BlogListItem> for BlogListItem {
    fn from(b: domain::BlogListItem) -> Self {
        Self {
            id: b.id.to_string(),
            fields: b.fields.into(),
            featured_image: b.featured_image.map(Into::into).into(),
            published_at: b.published_at.into(),
            content: b.content,
        }
    }
}

impl Example for BlogListItem {
    fn example() -> Self {
        Self {
            id: "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f".into(),
            fields: PublicBlogFields::example(),
            featured_image: Some(FeaturedImage::example()).into(),
            published_at: DateTime(
                domain::Timestamp::parse("2026-11-21T09:30:00Z").expect("valid"),
            ),
            content: None,
        }
    }
}

/// A single published blog: every list field, `content` always present, plus `updated_at`
/// and `word_count`.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct BlogDetail {
    /// Identifier of the blog (a UUID).
    pub id: String,
    /// The fields of the list item.
    #[oai(flatten)]
    pub fields: PublicBlogFields,
    /// The featured image as in the list item.
    pub featured_image: Nullable<FeaturedImage>,
    /// First publication time (UTC).
    pub published_at: DateTime,
    /// HTML body with internal links (`[INTERNAL:slug]`) resolved.
    pub content: String,
    /// Last publish time (UTC).
    pub updated_at: DateTime,
    /// Words of the resolved body, HTML tags stripped.
    pub word_count: u64,
}

impl From<domain::BlogDetail> for BlogDetail {
    fn from(b: domain::BlogDetail) -> Self {
        Self {
            id: b.id.to_string(),
            fields: b.fields.into(),
            featured_image: b.featured_image.map(Into::into).into(),
            published_at: b.published_at.into(),
            content: b.content,
            updated_at: b.updated_at.into(),
            word_count: b.word_count,
        }
    }
}

impl Example for BlogDetail {
    fn example() -> Self {
        let item = BlogListItem::example();
        Self {
            id: item.id,
            fields: item.fields,
            featured_image: item.featured_image,
            published_at: item.published_at,
            content: "<h2>Start with your content</h2><p>See <a href=\"https://www.example.com/blog/markdown-vs-html/\">Markdown or HTML?</a> first.</p>".into(),
            updated_at: DateTime(domain::Timestamp::parse("2026-11-22T08:00:00Z").expect("valid")),
            word_count: 8,
        }
    }
}

/// The list endpoint's response: one page, newest first, and the total after the category
/// filter.
#[derive(Debug, Clone, Object)]
pub struct BlogList {
    /// The page, newest first.
    pub blogs: Vec<BlogListItem>,
    /// Count of all published blogs after the category filter, independent of limit and offset.
    pub total: u64,
    /// The limit applied (after clamping to 1..=100).
    pub limit: u32,
    /// The offset applied (after clamping to >= 0).
    pub offset: u64,
}

impl From<domain::BlogList> for BlogList {
    fn from(l: domain::BlogList) -> Self {
        Self {
            blogs: l.blogs.into_iter().map(Into::into).collect(),
            total: l.total,
            limit: l.limit,
            offset: l.offset,
        }
    }
}

/// One sitemap entry: a published blog's slug and timestamps.
#[derive(Debug, Clone, Object)]
pub struct SitemapEntry {
    /// Slug.
    pub slug: String,
    /// First publication time (UTC).
    pub published_at: DateTime,
    /// Last publish time (UTC).
    pub updated_at: DateTime,
}

/// The sitemap endpoint's response: the newest 5000 published blogs at most, without paging.
#[derive(Debug, Clone, Object)]
pub struct Sitemap {
    /// At most 5000 entries, newest first.
    pub blogs: Vec<SitemapEntry>,
    /// The number of entries returned.
    pub total: u64,
}

impl From<domain::Sitemap> for Sitemap {
    fn from(s: domain::Sitemap) -> Self {
        Self {
            blogs: s
                .blogs
                .into_iter()
                .map(|e| SitemapEntry {
                    slug: e.slug,
                    published_at: e.published_at.into(),
                    updated_at: e.updated_at.into(),
                })
                .collect(),
            total: s.total,
        }
    }
}

/// An old slug of a published post and the post's current slug.
#[derive(Debug, Clone, Object)]
pub struct Redirect {
    /// The old slug: answer its address with a redirect.
    pub from: String,
    /// The post's current slug.
    pub to: String,
}

/// The redirects endpoint's response.
#[derive(Debug, Clone, Object)]
pub struct Redirects {
    /// At most 5000 redirects, newest rename first.
    pub redirects: Vec<Redirect>,
    /// The number of redirects returned.
    pub total: u64,
}

/// A published post whose single-blog answer or aliases changed since the cursor: `blog` is
/// exactly what `GET /blogs/{slug}` returns for it now.
#[derive(Debug, Clone, Object)]
pub struct ChangeUpsert {
    // No doc comment: poem-openapi would wrap the reference in an `allOf` with the
    // description, which client generators refuse (the struct's description says it).
    #[allow(missing_docs)]
    pub blog: BlogDetail,
    /// Its old slugs (they resolve to it; redirect them), newest rename first.
    pub aliases: Vec<String>,
}

/// A slug that was a published post's at the cursor and is not now (unpublished, deleted,
/// or renamed away from: the renamed post comes as an upsert listing it in `aliases`).
#[derive(Debug, Clone, Object)]
pub struct ChangeDelete {
    /// The slug to remove.
    pub slug: String,
}

/// One entry of the changes feed, told apart by `change`.
// A schema type: the document is built from it, answers never (they are the core's bytes).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, poem_openapi::Union)]
#[oai(discriminator_name = "change")]
pub enum ChangeEntry {
    /// `"change": "upsert"`.
    #[oai(mapping = "upsert")]
    Upsert(ChangeUpsert),
    /// `"change": "delete"`.
    #[oai(mapping = "delete")]
    Delete(ChangeDelete),
}

impl From<domain::ChangeEntry> for ChangeEntry {
    fn from(c: domain::ChangeEntry) -> Self {
        match c {
            domain::ChangeEntry::Upsert { blog, aliases } => ChangeEntry::Upsert(ChangeUpsert {
                blog: (*blog).into(),
                aliases,
            }),
            domain::ChangeEntry::Delete { slug } => ChangeEntry::Delete(ChangeDelete { slug }),
        }
    }
}

/// One page of the changes feed.
#[derive(Debug, Clone, Object)]
pub struct ChangeFeed {
    /// The entries, in the order to apply them.
    pub changes: Vec<ChangeEntry>,
    /// Where the next request starts: pass it as `since`. Opaque; store it as it is.
    pub cursor: String,
    /// Whether to ask again at once with `cursor`.
    pub has_more: bool,
}

impl From<domain::ChangeFeed> for ChangeFeed {
    fn from(f: domain::ChangeFeed) -> Self {
        Self {
            changes: f.changes.into_iter().map(Into::into).collect(),
            cursor: f.cursor,
            has_more: f.has_more,
        }
    }
}

/// A JSON body serialised ahead of time (by the core, possibly from its response cache) that
/// the OpenAPI document describes as `T`: the same content type and schema as `Json<T>`, and
/// the same bytes (the core serialises its wire types with serde, which writes the fields in
/// the order and with the escaping poem-openapi uses for `T`).
pub struct JsonBytes<T> {
    body: Bytes,
    schema: PhantomData<fn() -> T>,
}

impl<T> JsonBytes<T> {
    /// A body already serialised as the JSON of a `T`.
    pub fn new(body: Bytes) -> Self {
        Self {
            body,
            schema: PhantomData,
        }
    }

    /// The bytes that will be sent.
    pub fn bytes(&self) -> &Bytes {
        &self.body
    }
}

impl<T: Type> Payload for JsonBytes<T> {
    const CONTENT_TYPE: &'static str = Json::<T>::CONTENT_TYPE;

    fn check_content_type(content_type: &str) -> bool {
        Json::<T>::check_content_type(content_type)
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T: Type + Send> IntoResponse for JsonBytes<T> {
    fn into_response(self) -> poem::Response {
        poem::Response::builder()
            .header(poem::http::header::CONTENT_TYPE, Self::CONTENT_TYPE)
            .body(self.body)
    }
}

/// A conditional success: 200 with the body and its `ETag`, or 304 when `If-None-Match`
/// matches.
#[derive(ApiResponse)]
pub enum Fresh<T: Type + Send + Sync> {
    /// The response.
    #[oai(status = 200)]
    Ok(
        JsonBytes<T>,
        /// Strong entity tag of this response; send it back in `If-None-Match`.
        #[oai(header = "ETag")]
        String,
        /// `private, no-cache`: a shared cache must not keep an answer that a key opened,
        /// and every reuse is revalidated with `If-None-Match`.
        #[oai(header = "Cache-Control")]
        String,
    ),
    /// Not modified: the copy whose tag was sent in `If-None-Match` is current. No body.
    #[oai(status = 304)]
    NotModified(
        /// The current entity tag.
        #[oai(header = "ETag")]
        String,
        /// `private, no-cache`, as on the 200.
        #[oai(header = "Cache-Control")]
        String,
    ),
}

/// The caching rule of every public answer: for the key holder only, revalidated each time.
use blogread_core::read::CACHE_CONTROL;

/// The HTTP answer of a public read: its JSON body as the core made it (the schema type `T`
/// only describes it), or a 304.
fn fresh<T: Type + Send + Sync, C>(c: Conditional<Answer<C>>) -> Fresh<T> {
    match c {
        Conditional::NotModified { etag } => Fresh::NotModified(etag, CACHE_CONTROL.into()),
        Conditional::Fresh { etag, value } => Fresh::Ok(
            JsonBytes::new(value.into_body()),
            etag,
            CACHE_CONTROL.into(),
        ),
    }
}

/// The public read API.
pub struct PublicApi {
    pub(crate) service: Service,
}

#[OpenApi(prefix_path = "/blog/api/v1/public", tag = "ApiTags::Public")]
impl PublicApi {
    /// List published blogs
    ///
    /// The published blogs of the key's project, newest first (`published_at` descending,
    /// ties by id). Out-of-range `limit` and `offset` are clamped and the applied values echoed;
    /// a value that is not an integer is 400. To read more than 100, page with `limit` and
    /// `offset` and use `total`.
    #[oai(path = "/blogs", method = "get", operation_id = "list_blogs")]
    async fn list_blogs(
        &self,
        auth: PublicAuth,
        /// Page size: integer 1 to 100, default 50; out-of-range values are clamped.
        limit: Query<Option<Raw<LimitDoc>>>,
        /// Blogs to skip: integer >= 0, default 0; negative values are clamped to 0.
        offset: Query<Option<Raw<OffsetDoc>>>,
        /// Only blogs that have this category (compared case-insensitively); empty means no
        /// filter.
        category: Query<Option<String>>,
        /// `true` adds the `content` field to every blog (`true`/`false`/`1`/`0`,
        /// case-insensitive; default false).
        include_content: Query<Option<Raw<BoolDoc>>>,
        /// An `ETag` from an earlier answer: 304 when it is still current.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
    ) -> Reply<Fresh<BlogList>, error::PublicList> {
        reply(async {
            let params = RawListParams {
                limit: raw(&limit).map(str::to_owned),
                offset: raw(&offset).map(str::to_owned),
                category: category.0.clone(),
                include_content: raw(&include_content).map(str::to_owned),
            };
            let c = self
                .service
                .list_blogs(auth.caller(), params, if_none_match.as_deref())
                .await?;
            Ok(fresh(c))
        })
        .await
    }

    /// Get sitemap data
    ///
    /// Slug and timestamps of the newest 5000 published blogs, newest first, without
    /// pagination. This path addresses the sitemap, never a blog.
    #[oai(path = "/blogs/sitemap", method = "get", operation_id = "get_sitemap")]
    async fn sitemap(
        &self,
        auth: PublicAuth,
        /// An `ETag` from an earlier answer: 304 when it is still current.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
    ) -> Reply<Fresh<Sitemap>, error::PublicSitemap> {
        reply(async {
            let c = self
                .service
                .sitemap(auth.caller(), if_none_match.as_deref())
                .await?;
            Ok(fresh(c))
        })
        .await
    }

    /// Get redirects from old slugs
    ///
    /// When a re-sync publishes a new slug for a post, its previous slug becomes an alias of
    /// the post: `[INTERNAL:old]` placeholders keep resolving to the post, and this list says
    /// which old addresses a site should redirect where. Only published posts' aliases,
    /// newest rename first, at most 5000. An alias is freed when another post publishes that
    /// slug or when its post is deleted. This path addresses the redirects, never a blog.
    #[oai(
        path = "/blogs/redirects",
        method = "get",
        operation_id = "get_redirects"
    )]
    async fn redirects(
        &self,
        auth: PublicAuth,
        /// An `ETag` from an earlier answer: 304 when it is still current.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
    ) -> Reply<Fresh<Redirects>, error::PublicSitemap> {
        reply(async {
            let c = self
                .service
                .redirects(auth.caller(), if_none_match.as_deref())
                .await?;
            Ok(fresh(c))
        })
        .await
    }

    /// List changes since a cursor
    ///
    /// What changed in the key's project since `since`, so that a site rebuilds only that
    /// (`docs/public-api.md#changes-feed`). Without `since`: every published post once, as
    /// upserts (the initial sync). With it: an `upsert` for every post whose single-blog
    /// answer or aliases changed since, in its state now (a post whose body links to a post
    /// that was published, unpublished, deleted, retitled or renamed included), and a
    /// `delete` for every slug that was a published post's and is not now. Apply the entries
    /// in order; while `has_more` is true, ask again at once with `cursor`. A page stops
    /// early once its bodies pass about 8 MiB. Following cursors until `has_more` is false
    /// gives exactly what a full read returns at that moment. The cursor is bound to the
    /// project and the database and accepted by every instance; one that does not parse or
    /// belongs elsewhere is 400, one older than the deletions kept (90 days by default) is
    /// 410: omit `since` to sync from the start.
    #[oai(path = "/changes", method = "get", operation_id = "list_changes")]
    async fn changes(
        &self,
        auth: PublicAuth,
        /// The `cursor` of an earlier answer; omit it for the initial sync.
        since: Query<Option<String>>,
        /// Entries a page: integer 1 to 100, default 100; out-of-range values are clamped.
        limit: Query<Option<Raw<ChangeLimitDoc>>>,
        /// An `ETag` from an earlier answer: 304 when it is still current.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
    ) -> Reply<Fresh<ChangeFeed>, error::PublicChanges> {
        reply(async {
            let params = RawChangeParams {
                since: since.0.clone(),
                limit: raw(&limit).map(str::to_owned),
            };
            let c = self
                .service
                .changes(auth.caller(), params, if_none_match.as_deref())
                .await?;
            Ok(fresh(c))
        })
        .await
    }

    /// Get a blog by slug
    ///
    /// One published blog with its content (internal links resolved), `updated_at` and
    /// `word_count`. 404 when the slug is not a published blog of the key's project (for an
    /// old slug of a renamed post, the detail names the current slug).
    #[oai(path = "/blogs/:slug", method = "get", operation_id = "get_blog")]
    async fn get_blog(
        &self,
        auth: PublicAuth,
        /// The blog's slug.
        slug: Path<String>,
        /// An `ETag` from an earlier answer: 304 when it is still current.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
    ) -> Reply<Fresh<BlogDetail>, error::PublicGet> {
        reply(async {
            let c = self
                .service
                .get_blog(auth.caller(), &slug, if_none_match.as_deref())
                .await?;
            Ok(fresh(c))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use poem_openapi::types::ToJSON;
    use serde_json::json;

    use super::*;

    /// What poem-openapi would send for the wire type `W` built from the core value `C`.
    fn poem_openapi_bytes<C, W>(core: C) -> Vec<u8>
    where
        W: From<C> + ToJSON,
    {
        serde_json::to_vec(&W::from(core).to_json()).expect("serialises")
    }

    fn core<C: serde::de::DeserializeOwned>(value: serde_json::Value) -> C {
        serde_json::from_value(value).expect("a core value")
    }

    fn item(content: Option<&str>, image: Option<&str>) -> serde_json::Value {
        let mut v = json!({
            "id": "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f",
            "title": "Quotes \" and \\ backslashes, <tags> & ünïcödé \u{2028} \u{1F600}",
            "slug": "a-slug",
            "excerpt": "",
            "meta_title": "",
            "meta_description": "tab\there\nnewline \u{0001}",
            "featured_image_url": image,
            "categories": ["Engineering", "Ops"],
            "tags": [],
            "featured_image": image.map(|url| json!({
                "url": url,
                "width": 2400,
                "height": 1600,
                "alt": "A \"kite\" & \u{2028} \u{1F600}",
                "variants": [{"width": 480, "url": format!("{url}/w480")}],
            })),
            "published_at": "2026-11-21T09:30:00Z",
        });
        if let Some(c) = content {
            v["content"] = json!(c);
        }
        v
    }

    const CONTENT: &str = "<h2 id=\"x\">Hi</h2>\n<p>See <a href=\"https://www.example.com/blog/b/?a=1&amp;b=2\">B</a> &mdash; \u{00a0}</p>";

    #[test]
    fn core_json_is_the_bytes_poem_openapi_sends_for_a_list() {
        for content in [None, Some(CONTENT)] {
            let value = json!({
                "blogs": [item(content, Some("https://cdn.example.com/a.jpg")), item(content, None)],
                "total": 12345,
                "limit": 2,
                "offset": 40,
            });
            let c: domain::BlogList = core(value.clone());
            assert_eq!(
                serde_json::to_vec(&c).unwrap(),
                poem_openapi_bytes::<_, BlogList>(core::<domain::BlogList>(value))
            );
        }
    }

    #[test]
    fn core_json_is_the_bytes_poem_openapi_sends_for_a_blog_and_the_sitemap() {
        let mut blog = item(Some(CONTENT), Some("https://b.example/media/a.jpg"));
        blog["updated_at"] = json!("2026-11-22T08:00:00Z");
        blog["word_count"] = json!(7);
        let c: domain::BlogDetail = core(blog.clone());
        assert_eq!(
            serde_json::to_vec(&c).unwrap(),
            poem_openapi_bytes::<_, BlogDetail>(core::<domain::BlogDetail>(blog))
        );
        let sitemap = json!({
            "blogs": [
                {"slug": "a", "published_at": "2026-11-21T09:30:00Z", "updated_at": "2026-11-22T08:00:00Z"},
                {"slug": "b", "published_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"},
            ],
            "total": 2,
        });
        let c: domain::Sitemap = core(sitemap.clone());
        assert_eq!(
            serde_json::to_vec(&c).unwrap(),
            poem_openapi_bytes::<_, Sitemap>(core::<domain::Sitemap>(sitemap))
        );
    }
}
