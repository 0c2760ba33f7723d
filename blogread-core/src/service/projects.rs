//! Projects: create, list, find by name, read and change settings.

use crate::auth::{Access, Caller};
use crate::domain::{Project, ProjectId, ProjectName, SiteUrl};
use crate::error::{Error, NotFound, Result};
use crate::read::ListRequest;
use crate::store::ProjectChange;

use super::Service;

/// Changes to a project's settings: each `Some` replaces that field; `site_url: Some(None)`
/// clears the site URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectUpdate {
    /// New name.
    pub name: Option<String>,
    /// New site URL, or `Some(None)` to clear it.
    pub site_url: Option<Option<String>>,
}

/// A page of the projects (`GET /api/v1/projects`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectList {
    /// The page, oldest first.
    pub projects: Vec<Project>,
    /// All projects, independent of limit and offset.
    pub total: u64,
    /// The limit applied (1..=100, default 50; clamped like every list's).
    pub limit: u32,
    /// The offset applied.
    pub offset: u64,
}

impl Service {
    // ---- projects ----

    /// Creates a project (operator only).
    pub async fn create_project(
        &self,
        caller: &Caller,
        name: String,
        site_url: Option<String>,
    ) -> Result<Project> {
        self.authorize(caller, None, Access::Operator).await?;
        let project = Project::new(
            ProjectName::parse(name)?,
            site_url.map(SiteUrl::parse).transpose()?,
            self.now(),
        );
        self.store.insert_project(&project).await?;
        Ok(project)
    }

    /// Every project, oldest first (operator only): how an embedding program finds its
    /// projects again after a restart.
    pub async fn projects(&self, caller: &Caller) -> Result<Vec<Project>> {
        self.authorize(caller, None, Access::Operator).await?;
        self.store.projects().await
    }

    /// One page of every project, oldest first (operator only: a project admin token is
    /// 403, no credential 401). `limit` and `offset` follow the rules of every list: clamped
    /// into 1..=100 and >= 0 and echoed; a value that is not an integer is 400, decided after
    /// the caller.
    pub async fn list_projects(
        &self,
        caller: &Caller,
        request: impl Into<ListRequest>,
    ) -> Result<ProjectList> {
        self.authorize(caller, None, Access::Operator).await?;
        let params = request.into().into_params()?;
        let page = self.store.project_page(params.limit, params.offset).await?;
        Ok(ProjectList {
            projects: page.projects,
            total: page.total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// The oldest project named exactly `name`, if any (operator only). Names need not be
    /// unique; a program that looks its project up by name should give it a name of its own.
    pub async fn project_by_name(&self, caller: &Caller, name: &str) -> Result<Option<Project>> {
        Ok(self
            .projects(caller)
            .await?
            .into_iter()
            .find(|p| p.name.as_str() == name))
    }

    /// A project's settings (project admin).
    pub async fn project(&self, caller: &Caller, id: ProjectId) -> Result<Project> {
        self.authorize(caller, Some(id), Access::ProjectAdmin)
            .await?;
        self.existing_project(id).await
    }

    pub(super) async fn existing_project(&self, id: ProjectId) -> Result<Project> {
        self.store
            .project(id)
            .await?
            .ok_or(Error::NotFound(NotFound::Project))
    }

    /// Changes a project's name or site URL (project admin). A site URL change changes every
    /// resolved link, so the store bumps the content version.
    pub async fn update_project(
        &self,
        caller: &Caller,
        id: ProjectId,
        update: ProjectUpdate,
    ) -> Result<Project> {
        self.authorize(caller, Some(id), Access::ProjectAdmin)
            .await?;
        let change = ProjectChange {
            name: update.name.map(ProjectName::parse).transpose()?,
            site_url: update
                .site_url
                .map(|url| url.map(SiteUrl::parse).transpose())
                .transpose()?,
        };
        self.store.update_project(id, &change).await
    }
}
