//! The [`Service`]: every operation of blogread, each deciding authorisation first, so that a
//! server is HTTP in, one call, HTTP out.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use std::time::Duration;

use crate::auth::{Access, Caller, Principal, authorize};
use crate::clock::{Clock, SystemClock};
use crate::domain::{
    AdminToken, AdminTokenId, AdminTokenRecord, AgentKey, AgentKeyId, AgentKeyRecord, BlogId,
    BlogPatch, BlogStatus, Delivery, DeployHookTestResult, DeployHookView, ManagedBlog, NewBlog,
    OperatorToken, Project, ProjectId, ProjectName, PublicKey, SiteUrl, StoredPublicKey, Timestamp,
    Trigger,
};
use crate::error::{Error, FieldError, NotFound, Result};
use crate::firing::{Firings, UnavailableNotifier};
use crate::hook::{AddressPolicy, DeployHookUrl, Notifier, Resolver, SystemResolver};
use crate::lifecycle;
use crate::response_cache::ResponseCache;
use crate::store::{KeyWrite, ProjectChange, Store};

/// The operations of blogread over a [`Store`].
#[derive(Clone)]
pub struct Service {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    operator: Option<OperatorToken>,
    notifier: Arc<dyn Notifier>,
    hook_resolver: Arc<dyn Resolver>,
    hook_policy: AddressPolicy,
    firings: Firings,
    responses: ResponseCache,
    /// The store's ETag epoch, read once.
    etag_epoch: Arc<tokio::sync::OnceCell<String>>,
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
    /// A service over `store`, with the system clock, no operator token, and deploy hooks
    /// fired by an `HttpNotifier` that contacts only globally reachable addresses (feature
    /// `hooks`; without it, by [`Service::with_notifier`]'s notifier or not at all).
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            clock: Arc::new(SystemClock),
            operator: None,
            notifier: default_notifier(),
            hook_resolver: Arc::new(SystemResolver),
            hook_policy: AddressPolicy::GlobalOnly,
            firings: Firings::default(),
            responses: ResponseCache::default(),
            etag_epoch: Arc::default(),
        }
    }

    /// Replaces the notifier that fires deploy hooks (tests, custom transports).
    pub fn with_notifier(mut self, notifier: Arc<dyn Notifier>) -> Self {
        self.notifier = notifier;
        self
    }

    /// Replaces the resolver and address policy that judge a deploy hook URL when it is saved.
    /// [`AddressPolicy::GlobalOnly`] is the default and the only sensible choice outside tests.
    pub fn with_hook_resolver(
        mut self,
        resolver: Arc<dyn Resolver>,
        policy: AddressPolicy,
    ) -> Self {
        self.hook_resolver = resolver;
        self.hook_policy = policy;
        self
    }

    pub(crate) fn notifier(&self) -> &dyn Notifier {
        self.notifier.as_ref()
    }

    pub(crate) fn firings(&self) -> &Firings {
        &self.firings
    }

    /// Waits until no deploy hook firing is in flight, at most `timeout` (a server drains
    /// with this on shutdown; tests await firings with it). True when none is left.
    pub async fn wait_for_firings(&self, timeout: Duration) -> bool {
        self.firings.wait_idle(timeout).await
    }

    /// Stops the service: waits for the deploy hook firings in flight, at least as long as
    /// the notifier's own time-out plus 2 s (so a slow firing still records its delivery),
    /// then closes the store. True when every firing finished.
    pub async fn stop(&self) -> bool {
        let grace = self.notifier().timeout() + std::time::Duration::from_secs(2);
        let drained = self.wait_for_firings(grace).await;
        if !drained {
            tracing::warn!(
                "deploy hook firings still in flight after {}s; stopping anyway",
                grace.as_secs()
            );
        }
        self.store.close().await;
        drained
    }

    /// Sets the operator token (from `BLOGREAD_ADMIN_TOKEN` in the server).
    pub fn with_operator_token(mut self, token: OperatorToken) -> Self {
        self.operator = Some(token);
        self
    }

    /// Replaces the response cache of the `*_json` public reads (the default holds up to
    /// [`crate::response_cache::DEFAULT_CAPACITY_BYTES`]; [`ResponseCache::disabled`] turns it
    /// off). Clones of a service share its cache.
    pub fn with_response_cache(mut self, cache: ResponseCache) -> Self {
        self.responses = cache;
        self
    }

    /// The response cache of the `*_json` public reads.
    pub fn responses(&self) -> &ResponseCache {
        &self.responses
    }

    /// The store's ETag epoch (see [`Store::etag_epoch`]), read on first use.
    pub(crate) async fn etag_epoch(&self) -> Result<&str> {
        self.etag_epoch
            .get_or_try_init(|| self.store.etag_epoch())
            .await
            .map(String::as_str)
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
        caller: &Caller,
        project: Option<ProjectId>,
        access: Access,
    ) -> Result<Principal> {
        authorize(
            self.store(),
            self.operator.as_ref(),
            caller,
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

    // ---- credentials ----

    /// Issues a project admin token (operator only); shown once.
    pub async fn create_admin_token(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<IssuedAdminToken> {
        self.authorize(caller, Some(project), Access::Operator)
            .await?;
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
        caller: &Caller,
        project: ProjectId,
        id: AdminTokenId,
    ) -> Result<()> {
        self.authorize(caller, Some(project), Access::Operator)
            .await?;
        self.store.delete_admin_token(project, id).await?;
        Ok(())
    }

    /// Generate API Key (project admin): 409 when the project has one.
    pub async fn generate_public_key(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.write_public_key(project, KeyWrite::Create).await
    }

    /// Rotate Key (project admin): a new key; the old one fails from the next request on.
    pub async fn rotate_public_key(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
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
        caller: &Caller,
        project: ProjectId,
    ) -> Result<PublicKeyView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
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
    pub async fn revoke_public_key(&self, caller: &Caller, project: ProjectId) -> Result<()> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        self.store.delete_public_key(project).await?;
        Ok(())
    }

    /// Issues an agent key (project admin); shown once.
    pub async fn create_agent_key(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<IssuedAgentKey> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
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
        caller: &Caller,
        project: ProjectId,
    ) -> Result<Vec<AgentKeyView>> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
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
        caller: &Caller,
        project: ProjectId,
        id: AgentKeyId,
    ) -> Result<()> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.store.delete_agent_key(project, id).await?;
        Ok(())
    }

    // ---- deploy hook ----

    /// The deploy hook (project admin): the URL is a credential, shown to admins only.
    pub async fn deploy_hook(&self, caller: &Caller, project: ProjectId) -> Result<DeployHookView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        Ok(DeployHookView::new(self.store.deploy_hook(project).await?))
    }

    /// Saves or replaces the deploy hook (project admin). The URL is judged as sent: every
    /// rule of DECISIONS.md section 8, including that its host resolves to global addresses
    /// only; a broken rule is 422 naming it, and nothing is saved.
    pub async fn save_deploy_hook(
        &self,
        caller: &Caller,
        project: ProjectId,
        url: String,
    ) -> Result<DeployHookView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        let invalid = |e: crate::hook::HookUrlError| {
            Error::Invalid(FieldError::new("deploy_hook_url", e.to_string()))
        };
        let parsed = DeployHookUrl::parse(&url).map_err(invalid)?;
        parsed
            .vet(self.hook_resolver.as_ref(), self.hook_policy)
            .await
            .map_err(invalid)?;
        self.store.set_deploy_hook(project, Some(&url)).await?;
        Ok(DeployHookView::new(Some(url)))
    }

    /// Removes the deploy hook (project admin); removing none is a success.
    pub async fn remove_deploy_hook(&self, caller: &Caller, project: ProjectId) -> Result<()> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        self.store.set_deploy_hook(project, None).await
    }

    /// Sends one real POST to the saved hook and reports the outcome (project admin); 404
    /// when no hook is saved. The attempt is recorded in the delivery log as `test`.
    pub async fn test_deploy_hook(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<DeployHookTestResult> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        let outcome = self
            .fire_now(project, Trigger::Test, None)
            .await
            .ok_or(Error::NotFound(NotFound::DeployHook))?;
        Ok(DeployHookTestResult::new(
            outcome.success,
            outcome.status_code,
            outcome.message,
        ))
    }

    /// The delivery log, newest first, the last 100 (project admin).
    pub async fn deliveries(&self, caller: &Caller, project: ProjectId) -> Result<Vec<Delivery>> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        self.store.deliveries(project).await
    }

    // ---- blogs ----

    /// Creates a draft (agent or admin). Never fires the hook.
    pub async fn create_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        input: NewBlog,
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
        patch: BlogPatch,
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

    /// Publishes or re-syncs (agent or admin): fires `published` or `updated`.
    pub async fn publish_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
        published_at: Option<Timestamp>,
    ) -> Result<BlogWrite> {
        self.authorize(caller, Some(project), Access::Content)
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
        let blog = self.store.delete_blog(project, id).await?;
        let event = lifecycle::deletion_event(&blog);
        if event.is_some() {
            // The store recorded the firing with the delete.
            self.fire_recorded(project).await;
        }
        Ok(event)
    }

    async fn write_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        change: crate::store::BlogChange,
    ) -> Result<BlogWrite> {
        let (blog, event) = self.store.update_blog(project, id, change).await?;
        if event.is_some() {
            // The store recorded the firing in the write's transaction.
            self.fire_recorded(project).await;
        }
        Ok(BlogWrite {
            blog: ManagedBlog::from(&blog),
            event,
        })
    }
}

/// The notifier of [`Service::new`]: HTTPS with the `hooks` feature; without it, one whose
/// every firing fails saying so (the delivery log shows why nothing was sent).
fn default_notifier() -> Arc<dyn Notifier> {
    #[cfg(feature = "hooks")]
    match crate::hook::HttpNotifier::new() {
        Ok(notifier) => Arc::new(notifier),
        Err(err) => {
            tracing::error!(error = %err, "deploy hooks cannot be fired");
            Arc::new(UnavailableNotifier(err.to_string()))
        }
    }
    #[cfg(not(feature = "hooks"))]
    Arc::new(UnavailableNotifier(
        "this build of blogread-core has no `hooks` feature: give the service a notifier with Service::with_notifier".to_owned(),
    ))
}
