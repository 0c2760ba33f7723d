//! Blog content for admins and agents (`docs/management-api.md#blogs` and `#lifecycle`):
//! drafts, edits, publishing, unpublishing, deleting. Publishing, re-syncing, unpublishing and
//! deleting a published blog fire the deploy hook; edits never do.

use blogread_core::Service;
use blogread_core::domain::{self, BlogInput};
use blogread_core::error::NotFound;
use blogread_core::read::RawListParams;
use poem::http::StatusCode;
use poem_openapi::OpenApi;
use poem_openapi::param::{Path, Query};

use super::auth::ManagementAuth;
pub use super::blog_shapes::{
    BlogStatus, CreateBlog, ManagedBlog, ManagedBlogList, PublishBlog, UpdateBlog,
};
use super::common::{ApiTags, Created201, NoContent204, Ok200, created, ok, path_id};
use super::links::PublishedManagedBlog;
use super::schema::{
    DateTimeText, JsonBody, LimitDoc, OffsetDoc, OptionalJsonBody, PathId, Raw, StatusDoc, raw,
};
use crate::error::{self, ApiError, Reply, reply};

fn status_filter(raw: Option<&str>) -> Result<Option<domain::BlogStatus>, ApiError> {
    match raw.filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => s.parse().map(Some).map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "status must be one of draft, published, unpublished, scheduled (got `{}`)",
                    s.chars().take(40).collect::<String>()
                ),
            )
        }),
    }
}

/// Blogs.
pub struct BlogsApi {
    pub(crate) service: Service,
}

#[OpenApi(prefix_path = "/api/v1/projects", tag = "ApiTags::Blogs")]
impl BlogsApi {
    /// Create a draft
    ///
    /// Creating never fires the deploy hook.
    #[oai(
        path = "/:project_id/blogs",
        method = "post",
        operation_id = "create_blog"
    )]
    async fn create_blog(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        body: JsonBody<CreateBlog>,
    ) -> Reply<Created201<ManagedBlog>, error::ProjectWrite> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let JsonBody(b) = body;
            let input = BlogInput::from(b);
            let blog = self.service.create_blog(auth.caller(), id, input).await?;
            Ok(created(blog))
        })
        .await
    }

    /// List the project's blogs
    ///
    /// Every status, newest created first, optionally filtered by status.
    #[oai(
        path = "/:project_id/blogs",
        method = "get",
        operation_id = "list_managed_blogs"
    )]
    async fn list_blogs(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Only blogs with this status; empty means all.
        status: Query<Option<Raw<StatusDoc>>>,
        /// Page size: integer 1 to 100, default 50; out-of-range values are clamped.
        limit: Query<Option<Raw<LimitDoc>>>,
        /// Blogs to skip: integer >= 0, default 0; negative values are clamped to 0.
        offset: Query<Option<Raw<OffsetDoc>>>,
    ) -> Reply<Ok200<ManagedBlogList>, error::ProjectList> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let status = status_filter(raw(&status))?;
            let params = RawListParams {
                limit: raw(&limit).map(str::to_owned),
                offset: raw(&offset).map(str::to_owned),
                ..Default::default()
            };
            let list = self
                .service
                .blogs(auth.caller(), id, status, params)
                .await?;
            Ok(ok(list))
        })
        .await
    }

    /// Get a blog
    #[oai(
        path = "/:project_id/blogs/:blog_id",
        method = "get",
        operation_id = "get_managed_blog"
    )]
    async fn get_blog(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
    ) -> Reply<Ok200<ManagedBlog>, error::ProjectRead> {
        reply(async {
            let (project, blog) = ids(&project_id, &blog_id)?;
            let b = self.service.blog(auth.caller(), project, blog).await?;
            Ok(ok(b))
        })
        .await
    }

    /// Edit a blog's working copy
    ///
    /// Edits never change the public output and never fire the deploy hook; publish again to
    /// re-sync.
    #[oai(
        path = "/:project_id/blogs/:blog_id",
        method = "patch",
        operation_id = "update_blog"
    )]
    async fn update_blog(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
        body: JsonBody<UpdateBlog>,
    ) -> Reply<Ok200<ManagedBlog>, error::ProjectWrite> {
        reply(async {
            let (project, blog) = ids(&project_id, &blog_id)?;
            let JsonBody(b) = body;
            let patch = BlogInput::from(b);
            let w = self
                .service
                .edit_blog(auth.caller(), project, blog, patch)
                .await?;
            Ok(ok(w))
        })
        .await
    }

    /// Publish or re-sync a blog
    ///
    /// From draft or unpublished: the working copy becomes the published snapshot. From
    /// published: the working copy replaces the snapshot. Fires the deploy hook. With a
    /// future `published_at`: schedules (status `scheduled`, nothing public changes, nothing
    /// fires until that time).
    #[oai(
        path = "/:project_id/blogs/:blog_id/publish",
        method = "post",
        operation_id = "publish_blog"
    )]
    async fn publish_blog(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
        body: OptionalJsonBody<PublishBlog>,
    ) -> Reply<Ok200<PublishedManagedBlog>, error::ProjectWrite> {
        reply(async {
            let (project, blog) = ids(&project_id, &blog_id)?;
            let published_at = body.0.and_then(|b| b.published_at);
            let w = self
                .service
                .publish_blog_as_sent(
                    auth.caller(),
                    project,
                    blog,
                    published_at.as_ref().map(DateTimeText::as_str),
                )
                .await?;
            Ok(ok(w))
        })
        .await
    }

    /// Unpublish a blog
    ///
    /// Only from published (else 409). The blog leaves the public API; fires the deploy hook.
    #[oai(
        path = "/:project_id/blogs/:blog_id/unpublish",
        method = "post",
        operation_id = "unpublish_blog"
    )]
    async fn unpublish_blog(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
    ) -> Reply<Ok200<ManagedBlog>, error::ProjectConflict> {
        reply(async {
            let (project, blog) = ids(&project_id, &blog_id)?;
            let w = self
                .service
                .unpublish_blog(auth.caller(), project, blog)
                .await?;
            Ok(ok(w))
        })
        .await
    }

    /// Unschedule a blog
    ///
    /// Only from scheduled (else 409; a blog whose time has come is published): back to
    /// draft, the scheduled snapshot dropped. Nothing public changes; never fires.
    #[oai(
        path = "/:project_id/blogs/:blog_id/unschedule",
        method = "post",
        operation_id = "unschedule_blog"
    )]
    async fn unschedule_blog(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
    ) -> Reply<Ok200<ManagedBlog>, error::ProjectConflict> {
        reply(async {
            let (project, blog) = ids(&project_id, &blog_id)?;
            let w = self
                .service
                .unschedule_blog(auth.caller(), project, blog)
                .await?;
            Ok(ok(w))
        })
        .await
    }

    /// Delete a blog
    ///
    /// A published blog disappears from the public API and the deploy hook fires.
    #[oai(
        path = "/:project_id/blogs/:blog_id",
        method = "delete",
        operation_id = "delete_blog"
    )]
    async fn delete_blog(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Blog id (a UUID).
        blog_id: Path<PathId>,
    ) -> Reply<NoContent204, error::ProjectRead> {
        reply(async {
            let (project, blog) = ids(&project_id, &blog_id)?;
            self.service
                .delete_blog(auth.caller(), project, blog)
                .await?;
            Ok(NoContent204::NoContent)
        })
        .await
    }
}

fn ids(project: &PathId, blog: &PathId) -> Result<(domain::ProjectId, domain::BlogId), ApiError> {
    Ok((
        path_id(project, NotFound::Project)?,
        path_id(blog, NotFound::Blog)?,
    ))
}
