//! The links report for admins and agents (`docs/management-api.md#links`): every
//! placeholder of a project's posts with its target's state, those of one post, and the posts
//! that link to one. Every answer is a page of at most 100 entries with the total.

use blogread_core::Service;
use blogread_core::error::NotFound;
use blogread_core::links::report::{LinkState as CoreLinkState, Place as CorePlace};
use blogread_core::read::RawListParams;
use blogread_core::service::{self as core, BacklinkFilter, LinkFilter};
use blogread_core::store::BodyCopy as CoreBodyCopy;
use poem::http::StatusCode;
use poem_openapi::param::{Path, Query};
use poem_openapi::registry::MetaSchema;
use poem_openapi::{Enum, Object, OpenApi};

use super::auth::ManagementAuth;
use super::blog_shapes::{BlogStatus, ManagedBlog};
use super::common::{ApiTags, Ok200, ok, path_id};
use super::schema::{DateTime, LimitDoc, Nullable, OffsetDoc, ParamDoc, PathId, Raw, raw};
use crate::error::{self, ApiError, Reply, reply};

/// Which body of a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum BodyCopy {
    /// The working copy, as the management API returns it.
    Working,
    /// The snapshot the post holds for the public (published, or scheduled to go live).
    Published,
}

impl From<CoreBodyCopy> for BodyCopy {
    fn from(c: CoreBodyCopy) -> Self {
        match c {
            CoreBodyCopy::Working => Self::Working,
            CoreBodyCopy::Published => Self::Published,
        }
    }
}

/// Where a placeholder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum Place {
    /// The whole `href` of an `<a>`: the link stays only while the target resolves.
    Href,
    /// Text content (of `<script>`, `<title>` and other raw-text elements too).
    Text,
    /// Another attribute value, or an `href` holding more than the placeholder.
    Attribute,
    /// A comment.
    Comment,
    /// Where no placeholder is recognised (a tag name, a duplicate attribute...): always
    /// removed.
    Markup,
}

impl From<CorePlace> for Place {
    fn from(p: CorePlace) -> Self {
        match p {
            CorePlace::Href => Self::Href,
            CorePlace::Text => Self::Text,
            CorePlace::Attribute => Self::Attribute,
            CorePlace::Comment => Self::Comment,
            CorePlace::Markup => Self::Markup,
        }
    }
}

/// The state of a placeholder's target, as the public API would resolve it now. `broken`
/// means every state but `resolved` and `alias`: the public answer drops those placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum LinkState {
    /// A published post has the slug: the link is written.
    Resolved,
    /// An old slug of a published post: the link goes to its current slug (`target.slug`).
    Alias,
    /// The slug is only in a working copy (a draft, or an edited slug not yet published).
    Draft,
    /// The post goes live at `go_live_at`; the link appears then.
    Scheduled,
    /// The post was unpublished.
    Unpublished,
    /// No post has the slug.
    Missing,
    /// Not a valid placeholder, or written where none is recognised.
    Malformed,
}

impl From<CoreLinkState> for LinkState {
    fn from(s: CoreLinkState) -> Self {
        match s {
            CoreLinkState::Resolved => Self::Resolved,
            CoreLinkState::Alias => Self::Alias,
            CoreLinkState::Draft => Self::Draft,
            CoreLinkState::Scheduled => Self::Scheduled,
            CoreLinkState::Unpublished => Self::Unpublished,
            CoreLinkState::Missing => Self::Missing,
            CoreLinkState::Malformed => Self::Malformed,
        }
    }
}

/// The post a placeholder names.
#[derive(Debug, Clone, Object)]
pub struct LinkTarget {
    /// Its id (a UUID).
    pub id: String,
    /// The slug the link goes to, or would (for `alias`, the current one).
    pub slug: String,
    /// Its title (the published one when it has a public snapshot).
    pub title: String,
}

/// One placeholder of one body, with the state of its target.
#[derive(Debug, Clone, Object)]
pub struct Link {
    /// The post holding it (a UUID).
    pub blog_id: String,
    /// That post's slug (working copy).
    pub blog_slug: String,
    /// That post's title (working copy).
    pub blog_title: String,
    // Described by its enum: a doc comment here would wrap the reference in `allOf`.
    #[allow(missing_docs)]
    pub copy: BodyCopy,
    /// The placeholder as written (at most 240 characters, then `…`).
    pub placeholder: String,
    /// The slug it names (whitespace trimmed, lower-cased); `null` when malformed.
    pub slug: Nullable<String>,
    // Described by its enum: a doc comment here would wrap the reference in `allOf`.
    #[allow(missing_docs)]
    pub place: Place,
    // Described by its enum: a doc comment here would wrap the reference in `allOf`.
    #[allow(missing_docs)]
    pub state: LinkState,
    /// Whether the public answer drops it (every state but `resolved` and `alias`).
    pub broken: bool,
    /// The post it names, if one does.
    pub target: Nullable<LinkTarget>,
    /// For `scheduled`: when the target goes live (UTC).
    pub go_live_at: Nullable<DateTime>,
    /// For a placeholder inside a link whose whole `href` is a placeholder: that one. While
    /// it does not resolve, this one is removed with the link and takes its state.
    pub within_link: Nullable<String>,
}

impl From<core::LinkEntry> for Link {
    fn from(e: core::LinkEntry) -> Self {
        Self {
            blog_id: e.blog_id.to_string(),
            blog_slug: e.blog_slug,
            blog_title: e.blog_title,
            copy: e.copy.into(),
            broken: e.state.is_broken(),
            placeholder: e.placeholder,
            slug: e.slug.into(),
            place: e.place.into(),
            state: e.state.into(),
            target: e
                .target
                .map(|t| LinkTarget {
                    id: t.id.to_string(),
                    slug: t.slug,
                    title: t.title,
                })
                .into(),
            go_live_at: e.go_live_at.map(DateTime).into(),
            within_link: e.within_link.into(),
        }
    }
}

/// A page of the links report.
#[derive(Debug, Clone, Object)]
pub struct LinkList {
    /// By post (slug), the working copy before the published one, then in body order.
    pub links: Vec<Link>,
    /// All placeholders matching `state`.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

impl From<core::LinkReport> for LinkList {
    fn from(r: core::LinkReport) -> Self {
        Self {
            links: r.links.into_iter().map(Link::from).collect(),
            total: r.total,
            limit: r.limit,
            offset: r.offset,
        }
    }
}

/// A post whose body references another post by its slug or an alias.
#[derive(Debug, Clone, Object)]
pub struct Backlink {
    /// The linking post (a UUID).
    pub blog_id: String,
    /// Its slug (working copy).
    pub slug: String,
    /// Its title (working copy).
    pub title: String,
    // Described by its enum: a doc comment here would wrap the reference in `allOf`.
    #[allow(missing_docs)]
    pub status: BlogStatus,
    // Described by its enum: a doc comment here would wrap the reference in `allOf`.
    #[allow(missing_docs)]
    pub copy: BodyCopy,
    /// The placeholders of that body naming the post, as written, in body order: the first
    /// 20 (`count` says how many there are).
    pub placeholders: Vec<String>,
    /// How many placeholders of that body name the post.
    pub count: u32,
    /// How many of them the public answer would show now.
    pub resolved: u32,
}

/// A page of the posts that link to a post.
#[derive(Debug, Clone, Object)]
pub struct BacklinkList {
    /// By linking post (slug), the working copy before the published one.
    pub backlinks: Vec<Backlink>,
    /// How many entries in all.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

impl From<core::BacklinkList> for BacklinkList {
    fn from(l: core::BacklinkList) -> Self {
        Self {
            backlinks: l
                .backlinks
                .into_iter()
                .map(|b| Backlink {
                    blog_id: b.blog_id.to_string(),
                    slug: b.slug,
                    title: b.title,
                    status: b.status.into(),
                    copy: b.copy.into(),
                    placeholders: b.placeholders,
                    count: b.count,
                    resolved: b.resolved,
                })
                .collect(),
            total: l.total,
            limit: l.limit,
            offset: l.offset,
        }
    }
}

/// A publish or re-sync answer: the blog, and the placeholders of the new snapshot that
/// the public answer drops now (the publish is done all the same).
#[derive(Debug, Clone, Object)]
pub struct PublishedManagedBlog {
    /// The blog as the management API shows it.
    #[oai(flatten)]
    pub blog: ManagedBlog,
    /// The placeholders of the snapshot just taken that will not resolve (for a scheduled
    /// post: as things stand now), in body order: the first 100. The rest are read with
    /// `GET .../blogs/{blog_id}/links?state=broken&copy=published`.
    pub unresolved_links: Vec<Link>,
    /// How many placeholders of the snapshot will not resolve, in all.
    pub unresolved_links_total: u64,
}

impl From<blogread_core::service::BlogWrite> for PublishedManagedBlog {
    fn from(mut w: blogread_core::service::BlogWrite) -> Self {
        let unresolved = std::mem::take(&mut w.unresolved_links);
        let total = w.unresolved_total;
        Self {
            blog: w.into(),
            unresolved_links: unresolved.into_iter().map(Link::from).collect(),
            unresolved_links_total: total,
        }
    }
}

/// `copy` of a post's links.
#[derive(Debug, Clone)]
pub struct CopyDoc;
impl ParamDoc for CopyDoc {
    const NAME: &'static str = "body_copy_filter";
    fn schema() -> MetaSchema {
        MetaSchema {
            enum_items: vec!["working".into(), "published".into()],
            ..MetaSchema::new("string")
        }
    }
}

fn copy_filter(raw: Option<&str>) -> Result<Option<CoreBodyCopy>, ApiError> {
    match raw.filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => CoreBodyCopy::parse(s).map(Some).ok_or_else(|| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "copy must be working or published (got `{}`)",
                    s.chars().take(40).collect::<String>()
                ),
            )
        }),
    }
}

/// `which` of a post's backlinks.
#[derive(Debug, Clone)]
pub struct BacklinkFilterDoc;
impl ParamDoc for BacklinkFilterDoc {
    const NAME: &'static str = "backlink_filter";
    fn schema() -> MetaSchema {
        MetaSchema {
            enum_items: vec!["all".into(), "would_lose".into()],
            default: Some("all".into()),
            ..MetaSchema::new("string")
        }
    }
}

fn backlink_filter(raw: Option<&str>) -> Result<BacklinkFilter, ApiError> {
    match raw.filter(|s| !s.is_empty()) {
        None | Some("all") => Ok(BacklinkFilter::All),
        Some("would_lose") => Ok(BacklinkFilter::WouldLose),
        Some(s) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!(
                "which must be all or would_lose (got `{}`)",
                s.chars().take(40).collect::<String>()
            ),
        )),
    }
}

/// `state` of the links report.
#[derive(Debug, Clone)]
pub struct LinkStateDoc;
impl ParamDoc for LinkStateDoc {
    const NAME: &'static str = "link_state_filter";
    fn schema() -> MetaSchema {
        MetaSchema {
            enum_items: vec!["all".into(), "broken".into()],
            default: Some("all".into()),
            ..MetaSchema::new("string")
        }
    }
}

fn link_filter(raw: Option<&str>) -> Result<LinkFilter, ApiError> {
    match raw.filter(|s| !s.is_empty()) {
        None => Ok(LinkFilter::All),
        Some(s) => LinkFilter::parse(s).ok_or_else(|| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "state must be broken or all (got `{}`)",
                    s.chars().take(40).collect::<String>()
                ),
            )
        }),
    }
}

/// The links report's endpoints.
pub struct LinksApi {
    /// The core service.
    pub service: Service,
}

#[OpenApi(prefix_path = "/api/v1/projects", tag = "ApiTags::Blogs")]
impl LinksApi {
    /// List the placeholders of the project's posts and their states
    ///
    /// Every `[INTERNAL:slug]` placeholder of every post's working copy and public snapshot
    /// (told apart by `copy`), where it stands, and the state of its target as the public API
    /// would resolve it now. `state=broken` lists only those the public answer drops.
    #[oai(
        path = "/:project_id/links",
        method = "get",
        operation_id = "list_links"
    )]
    async fn list_links(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// `broken` (the placeholders the public answer drops) or `all` (the default).
        state: Query<Option<Raw<LinkStateDoc>>>,
        /// Page size: integer 1 to 100, default 50; out-of-range values are clamped.
        limit: Query<Option<Raw<LimitDoc>>>,
        /// Placeholders to skip: integer >= 0, default 0; negative values are clamped to 0.
        offset: Query<Option<Raw<OffsetDoc>>>,
    ) -> Reply<Ok200<LinkList>, error::ProjectList> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let filter = link_filter(raw(&state))?;
            let params = RawListParams {
                limit: raw(&limit).map(str::to_owned),
                offset: raw(&offset).map(str::to_owned),
                ..Default::default()
            };
            let report = self
                .service
                .links(auth.caller(), id, filter, params)
                .await?;
            Ok(ok(report))
        })
        .await
    }

    /// List the placeholders of one post and their states
    ///
    /// The placeholders of the post's working copy, then of its public snapshot (or only
    /// `copy`'s), in body order, with the state of each target as the public API would
    /// resolve it now; `state=broken` keeps only those the public answer drops. Paged: at
    /// most 100 a page, with the total.
    #[oai(
        path = "/:project_id/blogs/:blog_id/links",
        method = "get",
        operation_id = "list_blog_links"
    )]
    #[allow(clippy::too_many_arguments)]
    async fn list_blog_links(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
        /// `broken` (the placeholders the public answer drops) or `all` (the default).
        state: Query<Option<Raw<LinkStateDoc>>>,
        /// `working` or `published`: that body only (default: both, the working copy first).
        copy: Query<Option<Raw<CopyDoc>>>,
        /// Page size: integer 1 to 100, default 50; out-of-range values are clamped.
        limit: Query<Option<Raw<LimitDoc>>>,
        /// Placeholders to skip: integer >= 0, default 0; negative values are clamped to 0.
        offset: Query<Option<Raw<OffsetDoc>>>,
    ) -> Reply<Ok200<LinkList>, error::ProjectList> {
        reply(async {
            let project = path_id(&project_id, NotFound::Project)?;
            let blog = path_id(&blog_id, NotFound::Blog)?;
            let filter = link_filter(raw(&state))?;
            let copy = copy_filter(raw(&copy))?;
            let params = RawListParams {
                limit: raw(&limit).map(str::to_owned),
                offset: raw(&offset).map(str::to_owned),
                ..Default::default()
            };
            let report = self
                .service
                .blog_links(auth.caller(), project, blog, filter, copy, params)
                .await?;
            Ok(ok(report))
        })
        .await
    }

    /// List the posts that link to a post
    ///
    /// The posts whose working copy or public snapshot references this post by its slug
    /// (working or public) or one of its aliases, one entry per body, paged (at most 100 a
    /// page, with the total). `which=would_lose` keeps the public snapshots of other
    /// published posts with a link to this post that resolves now: what unpublishing or
    /// deleting it would take from the public answers.
    #[oai(
        path = "/:project_id/blogs/:blog_id/backlinks",
        method = "get",
        operation_id = "list_backlinks"
    )]
    async fn list_backlinks(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
        /// `all` (the default) or `would_lose`.
        which: Query<Option<Raw<BacklinkFilterDoc>>>,
        /// Page size: integer 1 to 100, default 50; out-of-range values are clamped.
        limit: Query<Option<Raw<LimitDoc>>>,
        /// Entries to skip: integer >= 0, default 0; negative values are clamped to 0.
        offset: Query<Option<Raw<OffsetDoc>>>,
    ) -> Reply<Ok200<BacklinkList>, error::ProjectList> {
        reply(async {
            let project = path_id(&project_id, NotFound::Project)?;
            let blog = path_id(&blog_id, NotFound::Blog)?;
            let filter = backlink_filter(raw(&which))?;
            let params = RawListParams {
                limit: raw(&limit).map(str::to_owned),
                offset: raw(&offset).map(str::to_owned),
                ..Default::default()
            };
            let list = self
                .service
                .backlinks(auth.caller(), project, blog, filter, params)
                .await?;
            Ok(ok(list))
        })
        .await
    }
}
