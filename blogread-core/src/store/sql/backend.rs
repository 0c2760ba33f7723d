//! The [`Store`] of each SQL backend's public type (`SqliteStore`, `PostgresStore`): the
//! [`SqlStore`] it holds, answering every call.

use std::collections::HashMap;

use async_trait::async_trait;

use super::dialect::SqlDialect;
use super::store::SqlStore;
use crate::domain::{
    AdminSession, AdminTokenId, AdminTokenRecord, AgentKeyId, AgentKeyRecord, Blog, BlogId,
    BlogStatus, Delivery, PendingFiring, Project, ProjectId, PublicProject, PublishedBlog,
    Redirect, SecretHash, SitemapEntry, StoredPublicKey, Timestamp, Trigger,
};
use crate::error::Result;
use crate::store::{
    BlogChange, KeyWrite, ManagedPage, PageQuery, ProjectChange, ProjectPage, PublishedPage, Store,
};

/// A backend's public type: a [`SqlStore`] of its dialect, which it opens its own way.
pub(crate) trait SqlBackend: Send + Sync + 'static {
    /// What the backend does its own way.
    type Dialect: SqlDialect;

    /// The store every operation goes to.
    fn sql(&self) -> &SqlStore<Self::Dialect>;
}

#[async_trait]
impl<B> Store for B
where
    B: SqlBackend,
    SqlStore<B::Dialect>: Store,
{
    async fn ping(&self) -> Result<()> {
        self.sql().ping().await
    }

    async fn close(&self) {
        self.sql().close().await
    }

    async fn etag_epoch(&self) -> Result<String> {
        self.sql().etag_epoch().await
    }

    async fn insert_project(&self, project: &Project) -> Result<()> {
        self.sql().insert_project(project).await
    }

    async fn project(&self, id: ProjectId) -> Result<Option<Project>> {
        self.sql().project(id).await
    }

    async fn projects(&self) -> Result<Vec<Project>> {
        self.sql().projects().await
    }

    async fn project_page(&self, limit: u32, offset: u64) -> Result<ProjectPage> {
        self.sql().project_page(limit, offset).await
    }

    async fn update_project(&self, id: ProjectId, change: &ProjectChange) -> Result<Project> {
        self.sql().update_project(id, change).await
    }

    async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
        self.sql().public_key(project).await
    }

    async fn put_public_key(
        &self,
        project: ProjectId,
        key: &StoredPublicKey,
        mode: KeyWrite,
    ) -> Result<()> {
        self.sql().put_public_key(project, key, mode).await
    }

    async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
        self.sql().delete_public_key(project).await
    }

    async fn project_by_public_key(&self, hash: &SecretHash) -> Result<Option<PublicProject>> {
        self.sql().project_by_public_key(hash).await
    }

    async fn insert_agent_key(&self, record: &AgentKeyRecord) -> Result<()> {
        self.sql().insert_agent_key(record).await
    }

    async fn agent_keys(&self, project: ProjectId) -> Result<Vec<AgentKeyRecord>> {
        self.sql().agent_keys(project).await
    }

    async fn delete_agent_key(&self, project: ProjectId, id: AgentKeyId) -> Result<bool> {
        self.sql().delete_agent_key(project, id).await
    }

    async fn agent_key_by_hash(&self, hash: &SecretHash) -> Result<Option<AgentKeyRecord>> {
        self.sql().agent_key_by_hash(hash).await
    }

    async fn insert_admin_token(&self, record: &AdminTokenRecord) -> Result<()> {
        self.sql().insert_admin_token(record).await
    }

    async fn delete_admin_token(&self, project: ProjectId, id: AdminTokenId) -> Result<bool> {
        self.sql().delete_admin_token(project, id).await
    }

    async fn admin_token_by_hash(&self, hash: &SecretHash) -> Result<Option<AdminTokenRecord>> {
        self.sql().admin_token_by_hash(hash).await
    }

    async fn admin_tokens(&self, project: ProjectId) -> Result<Vec<AdminTokenRecord>> {
        self.sql().admin_tokens(project).await
    }

    async fn insert_admin_session(&self, session: &AdminSession) -> Result<()> {
        self.sql().insert_admin_session(session).await
    }

    async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>> {
        self.sql().admin_session(hash).await
    }

    async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool> {
        self.sql().delete_admin_session(hash).await
    }

    async fn insert_blog(&self, blog: &Blog) -> Result<()> {
        self.sql().insert_blog(blog).await
    }

    async fn blog(&self, project: ProjectId, id: BlogId) -> Result<Option<Blog>> {
        self.sql().blog(project, id).await
    }

    async fn blogs(
        &self,
        project: ProjectId,
        status: Option<BlogStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<ManagedPage> {
        self.sql().blogs(project, status, limit, offset).await
    }

    async fn update_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        change: BlogChange,
    ) -> Result<(Blog, Option<Trigger>)> {
        self.sql().update_blog(project, id, change).await
    }

    async fn projects_due(&self, now: Timestamp) -> Result<Vec<ProjectId>> {
        self.sql().projects_due(now).await
    }

    async fn go_live(&self, project: ProjectId, now: Timestamp) -> Result<u64> {
        self.sql().go_live(project, now).await
    }

    async fn next_go_live(&self) -> Result<Option<Timestamp>> {
        self.sql().next_go_live().await
    }

    async fn delete_blog(&self, project: ProjectId, id: BlogId) -> Result<Blog> {
        self.sql().delete_blog(project, id).await
    }

    async fn published_page(&self, project: ProjectId, query: &PageQuery) -> Result<PublishedPage> {
        self.sql().published_page(project, query).await
    }

    async fn published_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PublishedBlog>> {
        self.sql().published_by_slug(project, slug).await
    }

    async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>> {
        self.sql().sitemap(project, cap).await
    }

    async fn redirects(&self, project: ProjectId, cap: u32) -> Result<Vec<Redirect>> {
        self.sql().redirects(project, cap).await
    }

    async fn published_aliases(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, (String, String)>> {
        self.sql().published_aliases(project, slugs).await
    }

    async fn published_titles(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, String>> {
        self.sql().published_titles(project, slugs).await
    }

    async fn deploy_hook(&self, project: ProjectId) -> Result<Option<String>> {
        self.sql().deploy_hook(project).await
    }

    async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()> {
        self.sql().set_deploy_hook(project, url).await
    }

    async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()> {
        self.sql().record_delivery(project, delivery).await
    }

    async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>> {
        self.sql().deliveries(project).await
    }

    async fn claim_firings(
        &self,
        project: Option<ProjectId>,
        now: Timestamp,
    ) -> Result<Vec<PendingFiring>> {
        self.sql().claim_firings(project, now).await
    }

    async fn stale_firings(&self, claimed_before: Timestamp) -> Result<Vec<PendingFiring>> {
        self.sql().stale_firings(claimed_before).await
    }

    async fn complete_firing(
        &self,
        firing: &PendingFiring,
        delivery: Option<&Delivery>,
    ) -> Result<bool> {
        self.sql().complete_firing(firing, delivery).await
    }
}
