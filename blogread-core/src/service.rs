//! The [`Service`]: every operation of blogread, each deciding authorisation first, so that a
//! server is HTTP in, one call, HTTP out.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::auth::{Access, Principal, authorize};
use crate::clock::{Clock, SystemClock};
use crate::domain::{
    AdminToken, AdminTokenId, AdminTokenRecord, AgentKey, AgentKeyId, AgentKeyRecord, BlogId,
    BlogPatch, BlogStatus, ManagedBlog, NewBlog, OperatorToken, Project, ProjectId, ProjectName,
    PublicKey, SiteUrl, StoredPublicKey, Timestamp, Trigger,
};
use crate::error::{Error, NotFound, Result};
use crate::lifecycle;
use crate::store::{KeyWrite, Store};

/// The operations of blogread over a [`Store`].
#[derive(Clone)]
pub struct Service {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    operator: Option<OperatorToken>,
}

/// A blog write's result: the blog as the management API shows it and the visible-content
/// event it caused, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlogWrite {
    /// The blog after the write.
    pub blog: ManagedBlog,
    /// The event (`None` for draft edits).
    pub event: Option<Trigger>,
}

/// Changes to a project's settings: each `Some` replaces that field; `site_url: Some(None)`
/// clears the site URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectUpdate {
    /// New name.
    pub name: Option<String>,
    /// New site URL, or `Some(None)` to clear it.
    pub site_url: Option<Option<String>>,
}

/// A public key as Generate, Reveal and Rotate show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PublicKeyView {
    /// The key.
    pub key: String,
    /// When it was generated.
    pub created_at: Timestamp,
}

/// A new agent key, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IssuedAgentKey {
    /// Id (for deleting it).
    pub id: AgentKeyId,
    /// The key: shown this once only.
    pub key: String,
    /// Creation time.
    pub created_at: Timestamp,
}

/// An agent key as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentKeyView {
    /// Id.
    pub id: AgentKeyId,
    /// The first 12 characters.
    pub prefix: String,
    /// Creation time.
    pub created_at: Timestamp,
}

/// A new project admin token, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IssuedAdminToken {
    /// Id (for deleting it).
    pub id: AdminTokenId,
    /// The token: shown this once only.
    pub token: String,
    /// Creation time.
    pub created_at: Timestamp,
}

/// A page of the management blog list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// A service over `store`, with the system clock and no operator token.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            clock: Arc::new(SystemClock),
            operator: None,
        }
    }

    /// Sets the operator token (from `BLOGREAD_ADMIN_TOKEN` in the server).
    pub fn with_operator_token(mut self, token: OperatorToken) -> Self {
        self.operator = Some(token);
        self
    }

    /// Replaces the clock (tests, imports).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The store.
    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// Now, by the service's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    async fn authorize(
        &self,
        authorization: Option<&str>,
        project: Option<ProjectId>,
        access: Access,
    ) -> Result<Principal> {
        authorize(
            self.store(),
            self.operator.as_ref(),
            authorization,
            project,
            access,
        )
        .await
    }

    /// Checks that the store answers (for health checks).
    pub async fn health(&self) -> Result<()> {
        self.store.ping().await
    }

    // ---- projects ----

    /// Creates a project (operator only).
    pub async fn create_project(
        &self,
        authorization: Option<&str>,
        name: String,
        site_url: Option<String>,
    ) -> Result<Project> {
        self.authorize(authorization, None, Access::Operator)
            .await?;
        self.create_project_unchecked(name, site_url).await
    }

    /// Creates a project without a credential check: for operator tooling (the CLI, `demo`)
    /// that already has direct access to the store.
    pub async fn create_project_unchecked(
        &self,
        name: String,
        site_url: Option<String>,
    ) -> Result<Project> {
        let project = Project::new(
            ProjectName::parse(name)?,
            site_url.map(SiteUrl::parse).transpose()?,
            self.now(),
        );
        self.store.insert_project(&project).await?;
        Ok(project)
    }

    /// A project's settings (project admin).
    pub async fn project(&self, authorization: Option<&str>, id: ProjectId) -> Result<Project> {
        self.authorize(authorization, Some(id), Access::ProjectAdmin)
            .await?;
        self.existing_project(id).await
    }

    async fn existing_project(&self, id: ProjectId) -> Result<Project> {
        self.store
            .project(id)
            .await?
            .ok_or(Error::NotFound(NotFound::Project))
    }

    /// Changes a project's name or site URL (project admin). A site URL change changes every
    /// resolved link, so the store bumps the content version.
    pub async fn update_project(
        &self,
        authorization: Option<&str>,
        id: ProjectId,
        update: ProjectUpdate,
    ) -> Result<Project> {
        self.authorize(authorization, Some(id), Access::ProjectAdmin)
            .await?;
        let mut project = self.existing_project(id).await?;
        if let Some(name) = update.name {
            project.name = ProjectName::parse(name)?;
        }
        if let Some(site_url) = update.site_url {
            project.site_url = site_url.map(SiteUrl::parse).transpose()?;
        }
        self.store.update_project(&project).await?;
        Ok(project)
    }

    // ---- credentials ----

    /// Issues a project admin token (operator only); shown once.
    pub async fn create_admin_token(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
    ) -> Result<IssuedAdminToken> {
        self.authorize(authorization, Some(project), Access::Operator)
            .await?;
        self.create_admin_token_unchecked(project).await
    }

    /// Issues a project admin token without a credential check (operator tooling).
    pub async fn create_admin_token_unchecked(
        &self,
        project: ProjectId,
    ) -> Result<IssuedAdminToken> {
        self.existing_project(project).await?;
        let token = AdminToken::generate();
        let record = AdminTokenRecord {
            id: AdminTokenId::generate(),
            project_id: project,
            hash: token.hash(),
            created_at: self.now(),
        };
        self.store.insert_admin_token(&record).await?;
        Ok(IssuedAdminToken {
            id: record.id,
            token: token.expose_secret().to_owned(),
            created_at: record.created_at,
        })
    }

    /// Revokes a project admin token (operator only). Deleting one that is not there is a
    /// success.
    pub async fn delete_admin_token(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        id: AdminTokenId,
    ) -> Result<()> {
        self.authorize(authorization, Some(project), Access::Operator)
            .await?;
        self.store.delete_admin_token(project, id).await?;
        Ok(())
    }

    /// Generate API Key (project admin): 409 when the project has one.
    pub async fn generate_public_key(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(authorization, Some(project), Access::ProjectAdmin)
            .await?;
        self.write_public_key(project, KeyWrite::Create).await
    }

    /// Generate API Key without a credential check (operator tooling).
    pub async fn generate_public_key_unchecked(&self, project: ProjectId) -> Result<PublicKeyView> {
        self.write_public_key(project, KeyWrite::Create).await
    }

    /// Rotate Key (project admin): a new key; the old one fails from the next request on.
    pub async fn rotate_public_key(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(authorization, Some(project), Access::ProjectAdmin)
            .await?;
        self.write_public_key(project, KeyWrite::Replace).await
    }

    /// Rotate Key without a credential check (operator tooling).
    pub async fn rotate_public_key_unchecked(&self, project: ProjectId) -> Result<PublicKeyView> {
        self.write_public_key(project, KeyWrite::Replace).await
    }

    async fn write_public_key(&self, project: ProjectId, mode: KeyWrite) -> Result<PublicKeyView> {
        self.existing_project(project).await?;
        let stored = StoredPublicKey {
            key: PublicKey::generate(),
            created_at: self.now(),
        };
        self.store.put_public_key(project, &stored, mode).await?;
        Ok(PublicKeyView {
            key: stored.key.expose_secret().to_owned(),
            created_at: stored.created_at,
        })
    }

    /// Reveal (project admin): 404 when the project has no key.
    pub async fn reveal_public_key(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(authorization, Some(project), Access::ProjectAdmin)
            .await?;
        self.reveal_public_key_unchecked(project).await
    }

    /// Reveal without a credential check (operator tooling).
    pub async fn reveal_public_key_unchecked(&self, project: ProjectId) -> Result<PublicKeyView> {
        self.existing_project(project).await?;
        let stored = self
            .store
            .public_key(project)
            .await?
            .ok_or(Error::NotFound(NotFound::PublicKey))?;
        Ok(PublicKeyView {
            key: stored.key.expose_secret().to_owned(),
            created_at: stored.created_at,
        })
    }

    /// Revoke (project admin): public access stops until a key is generated again. Revoking
    /// when there is no key is a success.
    pub async fn revoke_public_key(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
    ) -> Result<()> {
        self.authorize(authorization, Some(project), Access::ProjectAdmin)
            .await?;
        self.revoke_public_key_unchecked(project).await
    }

    /// Revoke without a credential check (operator tooling).
    pub async fn revoke_public_key_unchecked(&self, project: ProjectId) -> Result<()> {
        self.existing_project(project).await?;
        self.store.delete_public_key(project).await?;
        Ok(())
    }

    /// Issues an agent key (project admin); shown once.
    pub async fn create_agent_key(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
    ) -> Result<IssuedAgentKey> {
        self.authorize(authorization, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        let key = AgentKey::generate();
        let record = AgentKeyRecord {
            id: AgentKeyId::generate(),
            project_id: project,
            hash: key.hash(),
            prefix: key.display_prefix().to_owned(),
            created_at: self.now(),
        };
        self.store.insert_agent_key(&record).await?;
        Ok(IssuedAgentKey {
            id: record.id,
            key: key.expose_secret().to_owned(),
            created_at: record.created_at,
        })
    }

    /// The project's agent keys, without the secrets (project admin).
    pub async fn agent_keys(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
    ) -> Result<Vec<AgentKeyView>> {
        self.authorize(authorization, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        Ok(self
            .store
            .agent_keys(project)
            .await?
            .into_iter()
            .map(|r| AgentKeyView {
                id: r.id,
                prefix: r.prefix,
                created_at: r.created_at,
            })
            .collect())
    }

    /// Deletes an agent key (project admin); deleting one that is not there is a success.
    pub async fn delete_agent_key(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        id: AgentKeyId,
    ) -> Result<()> {
        self.authorize(authorization, Some(project), Access::ProjectAdmin)
            .await?;
        self.store.delete_agent_key(project, id).await?;
        Ok(())
    }

    // ---- blogs ----

    /// Creates a draft (agent or admin). Never fires the hook.
    pub async fn create_blog(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        input: NewBlog,
    ) -> Result<ManagedBlog> {
        self.authorize(authorization, Some(project), Access::Content)
            .await?;
        self.existing_project(project).await?;
        let blog = lifecycle::create(project, input, self.now())?;
        self.store.insert_blog(&blog).await?;
        Ok(ManagedBlog::from(&blog))
    }

    /// The project's blogs as the management API shows them (agent or admin).
    pub async fn blogs(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        status: Option<BlogStatus>,
        raw: crate::read::RawListParams<'_>,
    ) -> Result<ManagedBlogList> {
        self.authorize(authorization, Some(project), Access::Content)
            .await?;
        self.existing_project(project).await?;
        let params = crate::read::ListParams::parse(raw)?;
        let page = self
            .store
            .blogs(project, status, params.limit, params.offset)
            .await?;
        Ok(ManagedBlogList {
            blogs: page.blogs.iter().map(ManagedBlog::from).collect(),
            total: page.total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// One blog's working copy and lifecycle data (agent or admin).
    pub async fn blog(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        id: BlogId,
    ) -> Result<ManagedBlog> {
        self.authorize(authorization, Some(project), Access::Content)
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
        authorization: Option<&str>,
        project: ProjectId,
        id: BlogId,
        patch: BlogPatch,
    ) -> Result<BlogWrite> {
        self.authorize(authorization, Some(project), Access::Content)
            .await?;
        let now = self.now();
        self.write_blog(
            project,
            id,
            Box::new(move |b| lifecycle::edit(b, patch, now)),
        )
        .await
    }

    /// Publishes or re-syncs (agent or admin): fires `published` or `updated`.
    pub async fn publish_blog(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        id: BlogId,
        published_at: Option<Timestamp>,
    ) -> Result<BlogWrite> {
        self.authorize(authorization, Some(project), Access::Content)
            .await?;
        let now = self.now();
        self.write_blog(
            project,
            id,
            Box::new(move |b| lifecycle::publish(b, published_at, now)),
        )
        .await
    }

    /// Unpublishes (agent or admin): fires `unpublished`; 409 unless published.
    pub async fn unpublish_blog(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        id: BlogId,
    ) -> Result<BlogWrite> {
        self.authorize(authorization, Some(project), Access::Content)
            .await?;
        let now = self.now();
        self.write_blog(project, id, Box::new(move |b| lifecycle::unpublish(b, now)))
            .await
    }

    /// Deletes a blog (agent or admin): fires `deleted` when it was published.
    pub async fn delete_blog(
        &self,
        authorization: Option<&str>,
        project: ProjectId,
        id: BlogId,
    ) -> Result<Option<Trigger>> {
        self.authorize(authorization, Some(project), Access::Content)
            .await?;
        let blog = self.store.delete_blog(project, id).await?;
        let event = lifecycle::deletion_event(&blog);
        self.after_visible_change(project, &blog.working.slug().to_string(), event);
        Ok(event)
    }

    async fn write_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        change: crate::store::BlogChange,
    ) -> Result<BlogWrite> {
        let (blog, event) = self.store.update_blog(project, id, change).await?;
        self.after_visible_change(project, blog.working.slug().as_str(), event);
        Ok(BlogWrite {
            blog: ManagedBlog::from(&blog),
            event,
        })
    }

    /// Where visible-content events go once they are committed.
    fn after_visible_change(&self, _project: ProjectId, _slug: &str, event: Option<Trigger>) {
        if let Some(event) = event {
            tracing::debug!(trigger = %event, "visible content changed");
        }
    }
}
