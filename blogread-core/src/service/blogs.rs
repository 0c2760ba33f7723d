//! Blogs: create, list, read, edit, publish, unpublish, delete (the management API).

use crate::auth::{Access, Caller};
use crate::domain::{BlogId, BlogInput, BlogStatus, ManagedBlog, ProjectId, Timestamp, Trigger};
use crate::error::{Error, NotFound, Result};
use crate::lifecycle;
use crate::links::CompiledBody;
use crate::store::BlogUpdate;

use super::Service;

/// A blog write's result: the blog as the management API shows it and the visible-content
/// event it caused, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlogWrite {
    /// The blog after the write.
    pub blog: ManagedBlog,
    /// The event (`None` for draft edits).
    pub event: Option<Trigger>,
    /// For a publish or re-sync: the placeholders of the new snapshot that the public answer
    /// drops now (`docs/management-api.md#links`), the first
    /// [`UNRESOLVED_SHOWN`](super::UNRESOLVED_SHOWN) in body order; empty otherwise.
    pub unresolved_links: Vec<super::LinkEntry>,
    /// How many placeholders of the new snapshot the public answer drops, in all (the rest
    /// are read with [`Service::blog_links`]).
    pub unresolved_total: u64,
}

/// A page of the management blog list.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ManagedBlogList {
    /// The page.
    pub blogs: Vec<ManagedBlog>,
    /// All blogs matching the status filter.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

impl Service {
    // ---- blogs ----

    /// Creates a draft (agent or admin). Never fires the hook.
    pub async fn create_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        input: BlogInput,
    ) -> Result<ManagedBlog> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        self.existing_project(project).await?;
        let blog = lifecycle::create(project, input, self.now())?;
        self.store.insert_blog(&blog).await?;
        Ok(ManagedBlog::from(&blog))
    }

    /// The project's blogs as the management API shows them (agent or admin).
    pub async fn blogs(
        &self,
        caller: &Caller,
        project: ProjectId,
        status: Option<BlogStatus>,
        request: impl Into<crate::read::ListRequest>,
    ) -> Result<ManagedBlogList> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        self.existing_project(project).await?;
        let params = request.into().into_params()?;
        let page = self
            .store
            .blogs(project, status, params.limit, params.offset)
            .await?;
        Ok(ManagedBlogList {
            blogs: page.blogs,
            total: page.total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// One blog's working copy and lifecycle data (agent or admin).
    pub async fn blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<ManagedBlog> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let blog = self
            .store
            .blog(project, id)
            .await?
            .ok_or(Error::NotFound(NotFound::Blog))?;
        Ok(ManagedBlog::from(&blog))
    }

    /// Edits the working copy (agent or admin). Never fires the hook.
    pub async fn edit_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
        patch: BlogInput,
    ) -> Result<BlogWrite> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let now = self.now();
        self.write_blog(
            project,
            id,
            Box::new(move |b| lifecycle::edit(b, patch, now)),
        )
        .await
    }

    /// Publishes or re-syncs (agent or admin): fires `published` or `updated`. With a
    /// `published_at` later than now (from draft, unpublished or scheduled) it schedules
    /// instead: nothing public changes until that time, when the post goes live and the hook
    /// fires `published` (see [`Service::run_scheduler`]).
    pub async fn publish_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
        published_at: Option<Timestamp>,
    ) -> Result<BlogWrite> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        self.publish_authorized(project, id, published_at).await
    }

    /// [`Service::publish_blog`] with `published_at` as a request sent it, as text: once the
    /// caller is authorised, a value that is not an RFC 3339 timestamp is 422 naming the field
    /// (`published_at: must be an RFC 3339 timestamp ...`), like every other field's rule.
    pub async fn publish_blog_as_sent(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
        published_at: Option<&str>,
    ) -> Result<BlogWrite> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let published_at = published_at
            .map(|text| Timestamp::parse_field("published_at", text))
            .transpose()?;
        self.publish_authorized(project, id, published_at).await
    }

    async fn publish_authorized(
        &self,
        project: ProjectId,
        id: BlogId,
        published_at: Option<Timestamp>,
    ) -> Result<BlogWrite> {
        let now = self.now();
        // The working copy's body is compiled into its link template here, before the write's
        // transaction (the store compiles again only if the body changed in between).
        let working = self
            .store
            .blog(project, id)
            .await?
            .ok_or(Error::NotFound(NotFound::Blog))?
            .working
            .into_content();
        let change = Box::new(move |b: &mut _| lifecycle::publish(b, published_at, now));
        let mut written = self
            .write_unfired(
                project,
                id,
                BlogUpdate::new(change, now).publishing(CompiledBody::of(working)),
            )
            .await?;
        if written.blog.status == BlogStatus::Scheduled {
            self.schedule_changed();
        }
        // The publish is done: a failure to list what it leaves unresolved loses the list,
        // never the publish.
        match self.unresolved_links_of(project, id).await {
            Ok(report) => {
                written.unresolved_links = report.links;
                written.unresolved_total = report.total;
            }
            Err(error) => {
                tracing::warn!(%error, "could not list the unresolved links of a publish");
            }
        }
        // Fired once the answer is complete, so that the call returns as soon as the firing
        // is handed to the background (the firing is recorded already: a process that dies
        // before this point fires it at its next start).
        if written.event.is_some() {
            self.fire_recorded(project).await;
        }
        Ok(written)
    }

    /// Returns a scheduled blog to draft (agent or admin); 409 unless scheduled (a blog whose
    /// go-live has passed is published). Never fires the hook.
    pub async fn unschedule_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<BlogWrite> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let now = self.now();
        self.write_blog(
            project,
            id,
            Box::new(move |b| lifecycle::unschedule(b, now)),
        )
        .await
    }

    /// Unpublishes (agent or admin): fires `unpublished`; 409 unless published.
    pub async fn unpublish_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<BlogWrite> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let now = self.now();
        self.write_blog(project, id, Box::new(move |b| lifecycle::unpublish(b, now)))
            .await
    }

    /// Deletes a blog (agent or admin): fires `deleted` when it was published.
    pub async fn delete_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<Option<Trigger>> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        // A scheduled blog whose time has come is public: its deletion is a visible change.
        self.go_live_due(Some(project)).await?;
        let blog = self.store.delete_blog(project, id, self.now()).await?;
        let event = lifecycle::deletion_event(&blog);
        if event.is_some() {
            // The store recorded the firing with the delete.
            self.fire_recorded(project).await;
        }
        Ok(event)
    }

    /// Writes `change` of blog `id` now, firing what it records.
    async fn write_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        change: crate::store::BlogChange,
    ) -> Result<BlogWrite> {
        self.write(project, id, BlogUpdate::new(change, self.now()))
            .await
    }

    /// Writes `update` of blog `id`, firing what it records.
    async fn write(&self, project: ProjectId, id: BlogId, update: BlogUpdate) -> Result<BlogWrite> {
        let written = self.write_unfired(project, id, update).await?;
        if written.event.is_some() {
            // The store recorded the firing in the write's transaction.
            self.fire_recorded(project).await;
        }
        Ok(written)
    }

    /// Writes `update` of blog `id`; the firing it records is left to the caller.
    async fn write_unfired(
        &self,
        project: ProjectId,
        id: BlogId,
        update: BlogUpdate,
    ) -> Result<BlogWrite> {
        let (blog, event) = self.store.update_blog(project, id, update).await?;
        Ok(BlogWrite {
            blog: ManagedBlog::from(&blog),
            event,
            unresolved_links: Vec::new(),
            unresolved_total: 0,
        })
    }
}
