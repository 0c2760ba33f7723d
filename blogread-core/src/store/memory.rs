//! An in-memory [`Store`]: for applications that embed the core without a database, and for
//! tests of pure logic. Everything is lost when the process ends.

use std::collections::{HashMap, VecDeque};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use async_trait::async_trait;

use super::link_sources::{self, BodyCopy, BodyKey, BodyPlaceholders, LinkTargetSources};
use super::rules::{ChangeStamp, Conflict, SlugHistory, VisibleChange};
use super::{
    BlogUpdate, ChangeQuery, ChangeRead, KeyWrite, ManagedPage, PageKeys, PageQuery, PostKey,
    ProjectChange, ProjectPage, PublishedPage, Store, StoredChange, category_key,
};
use crate::domain::delivery::DELIVERY_LOG_LEN;
use crate::domain::{
    AdminSession, AdminTokenId, AdminTokenRecord, AgentKeyId, AgentKeyRecord, Blog, BlogId,
    BlogStatus, ChangePosition, Delivery, FiringId, ManagedBlog, PendingFiring, Project, ProjectId,
    PublicProject, PublishedBlog, Redirect, SecretHash, SessionCredential, SitemapEntry,
    StoredPublicKey, Timestamp, Trigger,
};
use crate::error::{Error, NotFound, Result};
use crate::links::report::{Found, LinkTarget};
use crate::links::{CompiledBody, LinkTemplate};

#[derive(Default)]
struct ProjectEntry {
    project: Option<Project>,
    public_key: Option<StoredPublicKey>,
    content_version: u64,
    hook: Option<String>,
    deliveries: VecDeque<Delivery>,
    /// The go-live times of the project's scheduled blogs, so that the key check reads the
    /// next one without walking the blogs.
    go_lives: std::collections::BTreeSet<(Timestamp, BlogId)>,
    /// The last number of the project's change sequence (see [`Store::changes`]).
    change_seq: u64,
    /// The highest change number whose deletions were pruned.
    changes_floor: u64,
    /// The public slugs lost, with the change that lost them and when.
    tombstones: HashMap<String, (u64, Timestamp)>,
}

#[derive(Default)]
struct Inner {
    projects: HashMap<ProjectId, ProjectEntry>,
    public_keys: HashMap<SecretHash, ProjectId>,
    agent_keys: HashMap<SecretHash, AgentKeyRecord>,
    admin_tokens: HashMap<SecretHash, AdminTokenRecord>,
    /// Admin page sessions by the hash of their id.
    sessions: HashMap<SecretHash, AdminSession>,
    blogs: HashMap<BlogId, Blog>,
    /// Recorded firings and when each was claimed.
    firings: Vec<(PendingFiring, Option<Timestamp>)>,
    /// Slug history: (project, alias) -> (blog, created at).
    aliases: HashMap<(ProjectId, String), (BlogId, Timestamp)>,
    /// The link template of each held body that has one (see `links::compile`), as the SQL
    /// stores keep it: public reads fill it rather than resolve the body.
    templates: HashMap<BlogId, LinkTemplate>,
    /// The number of the last change to each blog's public answer (absent: 0).
    change_nos: HashMap<BlogId, u64>,
}

/// The body `blog` holds for the public: its published or scheduled snapshot's.
fn held_body(blog: &Blog) -> Option<&str> {
    blog.state.held_snapshot().map(|s| s.fields.content())
}

/// The go-live time of a scheduled blog.
fn scheduled_go_live(blog: &Blog) -> Option<Timestamp> {
    (blog.state.status() == BlogStatus::Scheduled)
        .then(|| blog.state.published_at())
        .flatten()
}

impl Inner {
    /// Records a firing for `event` on `blog` when its project has a deploy hook.
    fn record_firing(&mut self, blog: &Blog, event: Option<Trigger>, slug: String) {
        let has_hook = self
            .projects
            .get(&blog.project_id)
            .is_some_and(|e| e.hook.is_some());
        if let (Some(trigger), true) = (event, has_hook) {
            let firing = PendingFiring {
                id: FiringId::generate(),
                project: blog.project_id,
                trigger,
                slug,
            };
            self.firings.push((firing, None));
        }
    }

    /// Keeps the template of blog `id` in step with the body it holds: `compiled` when that
    /// is the new body's, the body compiled now otherwise.
    fn put_template(
        &mut self,
        id: BlogId,
        before: Option<&str>,
        after: Option<&str>,
        compiled: Option<&CompiledBody>,
    ) {
        if before == after {
            return;
        }
        match after.and_then(|body| CompiledBody::for_body(compiled, body).into_template()) {
            Some(template) => self.templates.insert(id, template),
            None => self.templates.remove(&id),
        };
    }

    /// Puts `blog` in the blogs and keeps its project's go-live times in step (`None` removes
    /// blog `id`).
    fn put_blog(&mut self, project: ProjectId, id: BlogId, blog: Option<Blog>) -> Result<()> {
        let old = self.blogs.get(&id).and_then(scheduled_go_live);
        let new = blog.as_ref().and_then(scheduled_go_live);
        let entry = self.entry(project)?;
        if let Some(at) = old {
            entry.go_lives.remove(&(at, id));
        }
        if let Some(at) = new {
            entry.go_lives.insert((at, id));
        }
        match blog {
            Some(blog) => self.blogs.insert(id, blog),
            None => self.blogs.remove(&id),
        };
        Ok(())
    }

    /// Takes the next number of `project`'s change sequence.
    fn take_change(&mut self, project: ProjectId) -> Result<u64> {
        let entry = self.entry(project)?;
        entry.change_seq += 1;
        Ok(entry.change_seq)
    }

    /// The slugs a public read of `blog`'s held body looks up (see
    /// `Compiled::referenced_slugs`): its template's, or its body's.
    fn links_of(&self, blog: &Blog) -> Vec<String> {
        match (self.templates.get(&blog.id), held_body(blog)) {
            (Some(template), _) => template.slugs().to_vec(),
            (None, Some(body)) if crate::links::contains_placeholder(body) => {
                let mut slugs = std::collections::BTreeSet::new();
                crate::links::referenced_slugs(body, &mut slugs);
                slugs.into_iter().collect()
            }
            _ => Vec::new(),
        }
    }

    /// Stamps change `n` on the published blogs of `project` that `linked` says link to what
    /// changed (given the slugs each one's body references).
    fn stamp_linkers(&mut self, project: ProjectId, n: u64, linked: impl Fn(&[String]) -> bool) {
        let linkers: Vec<BlogId> = self
            .blogs
            .values()
            .filter(|b| b.project_id == project && b.state.snapshot().is_some())
            .filter(|b| linked(&self.links_of(b)))
            .map(|b| b.id)
            .collect();
        for id in linkers {
            self.change_nos.insert(id, n);
        }
    }

    /// Stamps change `n` where `stamp` says a write of blog `id` changed the feed (as the
    /// SQL stores do), and keeps its lost slug as a deletion lost at `at`.
    fn stamp(
        &mut self,
        project: ProjectId,
        id: BlogId,
        stamp: &ChangeStamp,
        n: u64,
        at: Timestamp,
    ) -> Result<()> {
        if stamp.own
            && self
                .blogs
                .get(&id)
                .is_some_and(|b| b.state.snapshot().is_some())
        {
            self.change_nos.insert(id, n);
        }
        if !stamp.touched.is_empty() || stamp.aliases {
            let mut slugs: std::collections::HashSet<String> =
                stamp.touched.iter().cloned().collect();
            if stamp.aliases {
                slugs.extend(
                    self.aliases
                        .iter()
                        .filter(|((p, _), (blog, _))| *p == project && *blog == id)
                        .map(|((_, alias), _)| alias.clone()),
                );
            }
            self.stamp_linkers(project, n, |links| links.iter().any(|s| slugs.contains(s)));
        }
        if let Some(slug) = &stamp.lost {
            self.entry(project)?
                .tombstones
                .insert(slug.clone(), (n, at));
        }
        Ok(())
    }

    /// Stamps change `n` on the published blog that holds `alias` in `project`, whose aliases
    /// change when it is freed.
    fn stamp_alias_owner(&mut self, project: ProjectId, alias: &str, n: u64) {
        if let Some((owner, _)) = self.aliases.get(&(project, alias.to_owned()))
            && self
                .blogs
                .get(owner)
                .is_some_and(|b| b.state.snapshot().is_some())
        {
            self.change_nos.insert(*owner, n);
        }
    }

    fn entry(&mut self, id: ProjectId) -> Result<&mut ProjectEntry> {
        self.projects
            .get_mut(&id)
            .ok_or(Error::NotFound(NotFound::Project))
    }

    fn slug_taken(&self, blog: &Blog) -> bool {
        self.blogs.values().any(|other| {
            other.project_id == blog.project_id
                && other.id != blog.id
                && other.slugs().any(|s| blog.slugs().any(|mine| mine == s))
        })
    }

    /// Published blogs of a project, sorted newest first with the id tie-break.
    /// The published blog of `project` with published slug `slug`, and its snapshot.
    fn published_with_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Option<(&Blog, &crate::domain::PublishedSnapshot)> {
        self.blogs
            .values()
            .filter(|b| b.project_id == project)
            .filter_map(|b| b.state.snapshot().map(|s| (b, s)))
            .find(|(_, s)| s.fields.slug().as_str() == slug)
    }

    /// The key of published blog `id`: its id and change number.
    fn key_of(&self, id: BlogId) -> PostKey {
        PostKey {
            id,
            change: self.change_nos.get(&id).copied().unwrap_or(0),
        }
    }

    fn published(&self, project: ProjectId) -> Vec<(&Blog, &crate::domain::PublishedSnapshot)> {
        let mut out: Vec<_> = self
            .blogs
            .values()
            .filter(|b| b.project_id == project)
            .filter_map(|b| b.state.snapshot().map(|s| (b, s)))
            .collect();
        out.sort_by(|(a, sa), (b, sb)| {
            sb.published_at
                .cmp(&sa.published_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        out
    }
}

/// A [`Store`] held in memory.
pub struct MemoryStore {
    inner: RwLock<Inner>,
    /// Random per store: see [`Store::etag_epoch`].
    etag_epoch: String,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self {
            inner: RwLock::default(),
            etag_epoch: uuid::Uuid::now_v7().simple().to_string(),
        }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The placeholders of every body of `project`'s posts that holds any, computed on each
    /// call (the memory store keeps no index).
    fn project_placeholders(&self, project: ProjectId) -> Vec<(BlogId, BodyCopy, Vec<Found>)> {
        let inner = self.read();
        let mut out = Vec::new();
        for blog in inner.blogs.values().filter(|b| b.project_id == project) {
            for (copy, body) in link_sources::bodies_of(blog) {
                let found = body
                    .map(crate::links::report::placeholders)
                    .unwrap_or_default();
                if !found.is_empty() {
                    out.push((blog.id, copy, found));
                }
            }
        }
        out
    }

    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        // A panic while holding the lock cannot leave a half-applied change (every write
        // builds its result before touching the maps), so a poisoned lock is still usable.
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// The public read of `b` (published as `s`); with its body, as its template when it has one
/// (`template`) and as the body itself otherwise, as the SQL stores read it.
fn published_blog(
    b: &Blog,
    s: &crate::domain::PublishedSnapshot,
    content: bool,
    template: Option<&LinkTemplate>,
) -> PublishedBlog {
    let template = template.filter(|_| content).cloned();
    PublishedBlog {
        id: b.id,
        fields: s.fields.without_body(),
        published_at: s.published_at,
        updated_at: s.updated_at,
        content: (content && template.is_none()).then(|| s.fields.content().to_owned()),
        template,
    }
}

#[async_trait]
impl Store for MemoryStore {
    async fn ping(&self) -> Result<()> {
        Ok(())
    }

    async fn insert_project(&self, project: &Project) -> Result<()> {
        let mut inner = self.write();
        if inner.projects.contains_key(&project.id) {
            return Err(Conflict::ProjectExists.into());
        }
        inner.projects.insert(
            project.id,
            ProjectEntry {
                project: Some(project.clone()),
                ..Default::default()
            },
        );
        Ok(())
    }

    async fn project(&self, id: ProjectId) -> Result<Option<Project>> {
        Ok(self
            .read()
            .projects
            .get(&id)
            .and_then(|e| e.project.clone()))
    }

    async fn projects(&self) -> Result<Vec<Project>> {
        let mut projects: Vec<Project> = self
            .read()
            .projects
            .values()
            .filter_map(|e| e.project.clone())
            .collect();
        projects.sort_by_key(|p| (p.created_at, p.id));
        Ok(projects)
    }

    async fn project_page(&self, limit: u32, offset: u64) -> Result<ProjectPage> {
        let all = self.projects().await?;
        Ok(ProjectPage {
            total: all.len() as u64,
            projects: all
                .into_iter()
                .skip(usize::try_from(offset).unwrap_or(usize::MAX))
                .take(limit as usize)
                .collect(),
        })
    }

    async fn etag_epoch(&self) -> Result<String> {
        Ok(self.etag_epoch.clone())
    }

    async fn update_project(&self, id: ProjectId, change: &ProjectChange) -> Result<Project> {
        let mut inner = self.write();
        let entry = inner.entry(id)?;
        let project = entry
            .project
            .as_mut()
            .ok_or(Error::NotFound(NotFound::Project))?;
        if let Some(name) = &change.name {
            project.name = name.clone();
        }
        let mut moved = false;
        if let Some(site_url) = &change.site_url {
            moved = project.site_url != *site_url;
            project.site_url = site_url.clone();
        }
        let project = project.clone();
        if moved {
            entry.content_version += 1;
            // A new site URL changes every resolved link.
            let n = inner.take_change(id)?;
            inner.stamp_linkers(id, n, |links| !links.is_empty());
        }
        Ok(project)
    }

    async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
        Ok(self
            .read()
            .projects
            .get(&project)
            .and_then(|e| e.public_key.clone()))
    }

    async fn put_public_key(
        &self,
        project: ProjectId,
        key: &StoredPublicKey,
        mode: KeyWrite,
    ) -> Result<()> {
        let mut inner = self.write();
        let entry = inner.entry(project)?;
        match (mode, &entry.public_key) {
            (KeyWrite::Create, Some(_)) => return Err(Conflict::PublicKeyExists.into()),
            (KeyWrite::Replace, None) => return Err(Error::NotFound(NotFound::PublicKey)),
            _ => {}
        }
        let old = entry.public_key.replace(key.clone());
        if let Some(old) = old {
            inner.public_keys.remove(&old.key.hash());
        }
        inner.public_keys.insert(key.key.hash(), project);
        Ok(())
    }

    async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
        let mut inner = self.write();
        let Some(entry) = inner.projects.get_mut(&project) else {
            return Ok(false);
        };
        match entry.public_key.take() {
            Some(old) => {
                inner.public_keys.remove(&old.key.hash());
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn project_by_public_key(&self, hash: &SecretHash) -> Result<Option<PublicProject>> {
        let inner = self.read();
        let Some(id) = inner.public_keys.get(hash) else {
            return Ok(None);
        };
        Ok(inner.projects.get(id).and_then(|e| {
            e.project.as_ref().map(|p| PublicProject {
                id: p.id,
                site_url: p.site_url.as_ref().map(|u| u.as_str().to_owned()),
                content_version: e.content_version,
                next_go_live: e.go_lives.first().map(|(at, _)| *at),
            })
        }))
    }

    async fn insert_agent_key(&self, record: &AgentKeyRecord) -> Result<()> {
        let mut inner = self.write();
        inner.entry(record.project_id)?;
        inner.agent_keys.insert(record.hash, record.clone());
        Ok(())
    }

    async fn agent_keys(&self, project: ProjectId) -> Result<Vec<AgentKeyRecord>> {
        let mut keys: Vec<_> = self
            .read()
            .agent_keys
            .values()
            .filter(|k| k.project_id == project)
            .cloned()
            .collect();
        keys.sort_by_key(|k| (k.created_at, k.id));
        Ok(keys)
    }

    async fn delete_agent_key(&self, project: ProjectId, id: AgentKeyId) -> Result<bool> {
        let mut inner = self.write();
        let before = inner.agent_keys.len();
        inner
            .agent_keys
            .retain(|_, k| !(k.project_id == project && k.id == id));
        Ok(inner.agent_keys.len() != before)
    }

    async fn agent_key_by_hash(&self, hash: &SecretHash) -> Result<Option<AgentKeyRecord>> {
        Ok(self.read().agent_keys.get(hash).cloned())
    }

    async fn insert_admin_token(&self, record: &AdminTokenRecord) -> Result<()> {
        let mut inner = self.write();
        inner.entry(record.project_id)?;
        inner.admin_tokens.insert(record.hash, record.clone());
        Ok(())
    }

    async fn delete_admin_token(&self, project: ProjectId, id: AdminTokenId) -> Result<bool> {
        let mut inner = self.write();
        let before = inner.admin_tokens.len();
        inner
            .admin_tokens
            .retain(|_, t| !(t.project_id == project && t.id == id));
        let deleted = inner.admin_tokens.len() != before;
        if deleted {
            inner
                .sessions
                .retain(|_, s| s.credential != SessionCredential::AdminToken { id, project });
        }
        Ok(deleted)
    }

    async fn admin_token_by_hash(&self, hash: &SecretHash) -> Result<Option<AdminTokenRecord>> {
        Ok(self.read().admin_tokens.get(hash).cloned())
    }

    async fn admin_tokens(&self, project: ProjectId) -> Result<Vec<AdminTokenRecord>> {
        let mut tokens: Vec<_> = self
            .read()
            .admin_tokens
            .values()
            .filter(|t| t.project_id == project)
            .cloned()
            .collect();
        tokens.sort_by_key(|t| (t.created_at, t.id));
        Ok(tokens)
    }

    async fn insert_admin_session(&self, session: &AdminSession) -> Result<()> {
        let mut inner = self.write();
        if let SessionCredential::AdminToken { id, project } = session.credential {
            let exists = inner
                .admin_tokens
                .values()
                .any(|t| t.id == id && t.project_id == project);
            if !exists {
                return Err(Error::NotFound(NotFound::AdminToken));
            }
        }
        inner
            .sessions
            .retain(|_, s| s.expires_at > session.created_at);
        inner.sessions.insert(session.hash, session.clone());
        Ok(())
    }

    async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>> {
        Ok(self.read().sessions.get(hash).cloned())
    }

    async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool> {
        Ok(self.write().sessions.remove(hash).is_some())
    }

    async fn insert_blog(&self, blog: &Blog) -> Result<()> {
        let mut inner = self.write();
        inner.entry(blog.project_id)?;
        if inner.slug_taken(blog) {
            return Err(Conflict::slug_taken(blog).into());
        }
        let bumps = VisibleChange::of_insert(blog).bumps_version;
        if bumps {
            inner.entry(blog.project_id)?.content_version += 1;
        }
        let body = held_body(blog);
        inner.put_template(blog.id, None, body, None);
        inner.put_blog(blog.project_id, blog.id, Some(blog.clone()))?;
        if bumps {
            let n = inner.take_change(blog.project_id)?;
            let stamp = ChangeStamp::of_blog_write(None, blog.state.snapshot());
            inner.stamp(blog.project_id, blog.id, &stamp, n, blog.updated_at)?;
        }
        Ok(())
    }

    async fn blog(&self, project: ProjectId, id: BlogId) -> Result<Option<Blog>> {
        Ok(self
            .read()
            .blogs
            .get(&id)
            .filter(|b| b.project_id == project)
            .cloned())
    }

    async fn blogs(
        &self,
        project: ProjectId,
        status: Option<BlogStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<ManagedPage> {
        let inner = self.read();
        let mut all: Vec<&Blog> = inner
            .blogs
            .values()
            .filter(|b| b.project_id == project)
            .filter(|b| status.is_none_or(|s| b.state.status() == s))
            .collect();
        all.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        Ok(ManagedPage {
            total: all.len() as u64,
            blogs: all
                .into_iter()
                .skip(usize::try_from(offset).unwrap_or(usize::MAX))
                .take(limit as usize)
                .map(ManagedBlog::from)
                .collect(),
        })
    }

    async fn update_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        update: BlogUpdate,
    ) -> Result<(Blog, Option<Trigger>)> {
        let mut inner = self.write();
        let mut blog = inner
            .blogs
            .get(&id)
            .filter(|b| b.project_id == project)
            .cloned()
            .ok_or(Error::NotFound(NotFound::Blog))?;
        let before = blog.state.snapshot().map(|s| s.fields.slug().to_string());
        let before_snapshot = blog.state.snapshot().cloned();
        let body_before = held_body(&blog).map(str::to_owned);
        let was_published = before.is_some();
        let event = (update.change)(&mut blog)?;
        if inner.slug_taken(&blog) {
            return Err(Conflict::slug_taken(&blog).into());
        }
        let after = blog.state.snapshot().map(|s| s.fields.slug().to_string());
        let history = SlugHistory::of_blog_write(before.as_deref(), after.as_deref());
        let visible =
            VisibleChange::of_blog_write(was_published, blog.state.snapshot().is_some(), event);
        let change_no = if visible.bumps_version {
            inner.entry(project)?.content_version += 1;
            Some(inner.take_change(project)?)
        } else {
            None
        };
        if let Some(free) = history.free {
            if let Some(n) = change_no {
                inner.stamp_alias_owner(project, &free, n);
            }
            inner.aliases.remove(&(project, free));
        }
        if let Some(old) = history.add {
            inner.aliases.insert((project, old), (id, blog.updated_at));
        }
        inner.record_firing(&blog, event, crate::lifecycle::firing_slug(before, &blog));
        inner.put_template(
            id,
            body_before.as_deref(),
            held_body(&blog),
            update.compiled.as_ref(),
        );
        inner.put_blog(project, id, Some(blog.clone()))?;
        if let Some(n) = change_no {
            let stamp = ChangeStamp::of_blog_write(before_snapshot.as_ref(), blog.state.snapshot());
            inner.stamp(project, id, &stamp, n, update.at)?;
        }
        Ok((blog, event))
    }

    /// (This store keeps firings without a time: `at` is the time of the lost slug only.)
    async fn delete_blog(&self, project: ProjectId, id: BlogId, at: Timestamp) -> Result<Blog> {
        let mut inner = self.write();
        if inner.blogs.get(&id).is_none_or(|b| b.project_id != project) {
            return Err(Error::NotFound(NotFound::Blog));
        }
        let blog = inner
            .blogs
            .get(&id)
            .cloned()
            .ok_or(Error::NotFound(NotFound::Blog))?;
        let event = crate::lifecycle::deletion_event(&blog);
        if VisibleChange::of_delete(&blog, event).bumps_version {
            inner.entry(project)?.content_version += 1;
            let n = inner.take_change(project)?;
            // Before the blog goes: its links and aliases are found through it.
            let stamp = ChangeStamp::of_blog_write(blog.state.snapshot(), None);
            inner.stamp(project, id, &stamp, n, at)?;
        }
        inner.put_blog(project, id, None)?;
        inner.templates.remove(&id);
        inner.change_nos.remove(&id);
        inner.aliases.retain(|_, (blog_id, _)| *blog_id != id);
        let slug = crate::lifecycle::firing_slug(None, &blog);
        inner.record_firing(&blog, event, slug);
        Ok(blog)
    }

    async fn published_page(&self, project: ProjectId, query: &PageQuery) -> Result<PublishedPage> {
        let inner = self.read();
        let matching: Vec<_> = inner
            .published(project)
            .into_iter()
            .filter(|(_, s)| {
                query.category.as_ref().is_none_or(|wanted| {
                    s.fields
                        .categories()
                        .iter()
                        .any(|c| &category_key(c) == wanted)
                })
            })
            .collect();
        Ok(PublishedPage {
            total: matching.len() as u64,
            blogs: matching
                .into_iter()
                .skip(usize::try_from(query.offset).unwrap_or(usize::MAX))
                .take(query.limit as usize)
                .map(|(b, s)| {
                    published_blog(b, s, query.include_content, inner.templates.get(&b.id))
                })
                .collect(),
        })
    }

    async fn published_page_keys(&self, project: ProjectId, query: &PageQuery) -> Result<PageKeys> {
        let page = self
            .published_page(
                project,
                &PageQuery {
                    include_content: false,
                    ..query.clone()
                },
            )
            .await?;
        let inner = self.read();
        Ok(PageKeys {
            keys: page.blogs.iter().map(|b| inner.key_of(b.id)).collect(),
            total: page.total,
        })
    }

    async fn published_key_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PostKey>> {
        let inner = self.read();
        Ok(inner
            .published_with_slug(project, slug)
            .map(|(b, _)| inner.key_of(b.id)))
    }

    async fn published_by_ids(
        &self,
        project: ProjectId,
        ids: &[BlogId],
        include_content: bool,
    ) -> Result<Vec<(PostKey, PublishedBlog)>> {
        let inner = self.read();
        Ok(ids
            .iter()
            .filter_map(|id| inner.blogs.get(id))
            .filter(|b| b.project_id == project)
            .filter_map(|b| b.state.snapshot().map(|s| (b, s)))
            .map(|(b, s)| {
                let blog = published_blog(b, s, include_content, inner.templates.get(&b.id));
                (inner.key_of(b.id), blog)
            })
            .collect())
    }

    async fn published_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PublishedBlog>> {
        let inner = self.read();
        Ok(inner
            .published_with_slug(project, slug)
            .map(|(b, s)| published_blog(b, s, true, inner.templates.get(&b.id))))
    }

    async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>> {
        Ok(self
            .read()
            .published(project)
            .into_iter()
            .take(cap as usize)
            .map(|(_, s)| {
                SitemapEntry::new(s.fields.slug().to_string(), s.published_at, s.updated_at)
            })
            .collect())
    }

    async fn projects_due(&self, now: Timestamp) -> Result<Vec<ProjectId>> {
        let inner = self.read();
        Ok(inner
            .projects
            .iter()
            .filter(|(_, e)| e.go_lives.first().is_some_and(|(at, _)| *at <= now))
            .map(|(id, _)| *id)
            .collect())
    }

    async fn go_live(&self, project: ProjectId, now: Timestamp) -> Result<u64> {
        let mut inner = self.write();
        let due: Vec<BlogId> = inner
            .entry(project)?
            .go_lives
            .iter()
            .take_while(|(at, _)| *at <= now)
            .map(|(_, id)| *id)
            .collect();
        let mut live = Vec::new();
        for id in due {
            let Some(mut blog) = inner.blogs.get(&id).cloned() else {
                continue;
            };
            if crate::lifecycle::go_live(&mut blog, now)?.is_some() {
                live.push(blog);
            }
        }
        if live.is_empty() {
            return Ok(0);
        }
        inner.entry(project)?.content_version += 1;
        let n = inner.take_change(project)?;
        let mut slugs = std::collections::HashSet::new();
        let mut ids = Vec::new();
        for blog in live {
            let slug = blog
                .state
                .snapshot()
                .map(|s| s.fields.slug().to_string())
                .unwrap_or_default();
            // Publishing a slug frees it as an alias of whichever blog held it.
            inner.stamp_alias_owner(project, &slug, n);
            inner.aliases.remove(&(project, slug.clone()));
            inner.record_firing(&blog, Some(Trigger::Published), slug.clone());
            slugs.insert(slug);
            ids.push(blog.id);
            inner.put_blog(project, blog.id, Some(blog))?;
        }
        // The posts that link to them (by slug or alias) change, and so do they.
        slugs.extend(
            inner
                .aliases
                .iter()
                .filter(|(_, (blog, _))| ids.contains(blog))
                .map(|((_, alias), _)| alias.clone()),
        );
        inner.stamp_linkers(project, n, |links| links.iter().any(|s| slugs.contains(s)));
        for id in &ids {
            inner.change_nos.insert(*id, n);
        }
        Ok(ids.len() as u64)
    }

    async fn next_go_live(&self) -> Result<Option<Timestamp>> {
        Ok(self
            .read()
            .projects
            .values()
            .filter_map(|e| e.go_lives.first().map(|(at, _)| *at))
            .min())
    }

    async fn changes(&self, project: ProjectId, query: &ChangeQuery) -> Result<ChangeRead> {
        let inner = self.read();
        let entry = inner
            .projects
            .get(&project)
            .ok_or(Error::NotFound(NotFound::Project))?;
        let mut read = ChangeRead {
            head: entry.change_seq,
            floor: entry.changes_floor,
            entries: Vec::new(),
            has_more: false,
        };
        let after = &query.after;
        let initial = *after == ChangePosition::Start;
        if !initial && (after.change() < read.floor || after.change() > read.head) {
            return Ok(read);
        }
        let mut all: Vec<(ChangePosition, Option<&Blog>)> = Vec::new();
        if !initial {
            all.extend(
                entry
                    .tombstones
                    .iter()
                    .filter(|(_, (change, _))| *change <= read.head)
                    .map(|(slug, (change, _))| {
                        let position = ChangePosition::Delete {
                            change: *change,
                            slug: slug.clone(),
                        };
                        (position, None)
                    }),
            );
        }
        all.extend(
            inner
                .blogs
                .values()
                .filter(|b| b.project_id == project && b.state.snapshot().is_some())
                .filter_map(|b| {
                    let change = inner.change_nos.get(&b.id).copied().unwrap_or(0);
                    let position = ChangePosition::Upsert { change, id: b.id };
                    (change <= read.head).then_some((position, Some(b)))
                }),
        );
        all.retain(|(position, _)| position.is_after(after));
        all.sort_by(|(a, _), (b, _)| {
            if a.is_after(b) {
                std::cmp::Ordering::Greater
            } else if b.is_after(a) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Equal
            }
        });
        let limit = query.limit.clamp(1, 100) as usize;
        let mut bytes = 0usize;
        let mut rest = all.into_iter().peekable();
        while let Some((position, blog)) = rest.next() {
            let change = match (blog, &position) {
                (Some(b), _) => {
                    let s = b.state.snapshot().expect("published");
                    let published = published_blog(b, s, true, inner.templates.get(&b.id));
                    bytes += s.fields.content().len();
                    let mut aliases: Vec<(Timestamp, &String)> = inner
                        .aliases
                        .iter()
                        .filter(|((p, _), (owner, _))| *p == project && *owner == b.id)
                        .map(|((_, alias), (_, at))| (*at, alias))
                        .collect();
                    aliases.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
                    let aliases = aliases.into_iter().map(|(_, a)| a.clone()).collect();
                    StoredChange::Upsert(Box::new(published), aliases)
                }
                (None, ChangePosition::Delete { slug, .. }) => StoredChange::Delete(slug.clone()),
                (None, _) => unreachable!("only deletes have no blog"),
            };
            read.entries.push((position, change));
            if read.entries.len() == limit || bytes > query.body_budget {
                read.has_more = rest.peek().is_some();
                break;
            }
        }
        Ok(read)
    }

    async fn prune_changes(&self, before: Timestamp) -> Result<u64> {
        let mut inner = self.write();
        let mut pruned = 0u64;
        for entry in inner.projects.values_mut() {
            let mut floor = entry.changes_floor;
            entry.tombstones.retain(|_, (change, at)| {
                let keep = *at >= before;
                if !keep {
                    floor = floor.max(*change);
                    pruned += 1;
                }
                keep
            });
            entry.changes_floor = floor;
        }
        Ok(pruned)
    }

    async fn redirects(&self, project: ProjectId, cap: u32) -> Result<Vec<Redirect>> {
        let inner = self.read();
        let mut found: Vec<(Timestamp, &str, &str)> = inner
            .aliases
            .iter()
            .filter(|((p, _), _)| *p == project)
            .filter_map(|((_, alias), (blog, at))| {
                let current = inner.blogs.get(blog)?.state.snapshot()?.fields.slug();
                Some((*at, alias.as_str(), current.as_str()))
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        Ok(found
            .into_iter()
            .take(cap as usize)
            .map(|(_, from, to)| Redirect::new(from, to))
            .collect())
    }

    async fn published_aliases(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, (String, String)>> {
        let inner = self.read();
        Ok(slugs
            .iter()
            .filter_map(|alias| {
                let (blog, _) = inner.aliases.get(&(project, alias.clone()))?;
                let snapshot = inner.blogs.get(blog)?.state.snapshot()?;
                Some((
                    alias.clone(),
                    (
                        snapshot.fields.slug().to_string(),
                        snapshot.fields.title().to_owned(),
                    ),
                ))
            })
            .collect())
    }

    async fn published_titles(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, String>> {
        let inner = self.read();
        Ok(inner
            .blogs
            .values()
            .filter(|b| b.project_id == project)
            .filter_map(|b| b.state.snapshot())
            .filter(|s| slugs.iter().any(|w| w == s.fields.slug().as_str()))
            .map(|s| (s.fields.slug().to_string(), s.fields.title().to_owned()))
            .collect())
    }

    async fn deploy_hook(&self, project: ProjectId) -> Result<Option<String>> {
        Ok(self
            .read()
            .projects
            .get(&project)
            .and_then(|e| e.hook.clone()))
    }

    async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()> {
        self.write().entry(project)?.hook = url.map(str::to_owned);
        Ok(())
    }

    async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()> {
        let mut inner = self.write();
        let log = &mut inner.entry(project)?.deliveries;
        log.push_front(delivery.clone());
        log.truncate(DELIVERY_LOG_LEN);
        Ok(())
    }

    async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>> {
        Ok(self
            .read()
            .projects
            .get(&project)
            .map(|e| e.deliveries.iter().cloned().collect())
            .unwrap_or_default())
    }

    async fn claim_firings(
        &self,
        project: Option<ProjectId>,
        now: Timestamp,
    ) -> Result<Vec<PendingFiring>> {
        let mut inner = self.write();
        let mut claimed = Vec::new();
        for (firing, claimed_at) in &mut inner.firings {
            if claimed_at.is_none() && project.is_none_or(|p| p == firing.project) {
                *claimed_at = Some(now);
                claimed.push(firing.clone());
            }
        }
        Ok(claimed)
    }

    async fn stale_firings(&self, claimed_before: Timestamp) -> Result<Vec<PendingFiring>> {
        Ok(self
            .read()
            .firings
            .iter()
            .filter(|(_, at)| at.is_some_and(|at| at < claimed_before))
            .map(|(f, _)| f.clone())
            .collect())
    }

    async fn complete_firing(
        &self,
        firing: &PendingFiring,
        delivery: Option<&Delivery>,
    ) -> Result<bool> {
        let mut inner = self.write();
        let before = inner.firings.len();
        inner.firings.retain(|(f, _)| f.id != firing.id);
        if inner.firings.len() == before {
            return Ok(false);
        }
        if let (Some(delivery), Some(entry)) = (delivery, inner.projects.get_mut(&firing.project)) {
            entry.deliveries.push_front(delivery.clone());
            entry.deliveries.truncate(DELIVERY_LOG_LEN);
        }
        Ok(true)
    }

    async fn link_targets(&self, project: ProjectId) -> Result<LinkTargetSources> {
        let inner = self.read();
        let mut posts: Vec<LinkTarget> = inner
            .blogs
            .values()
            .filter(|b| b.project_id == project)
            .map(link_sources::target_of)
            .collect();
        posts.sort_by_key(|p| p.id);
        let mut aliases: Vec<(String, BlogId)> = inner
            .aliases
            .iter()
            .filter(|((p, _), _)| *p == project)
            .map(|((_, alias), (blog, _))| (alias.clone(), *blog))
            .collect();
        aliases.sort();
        Ok(LinkTargetSources { posts, aliases })
    }

    async fn linked_slugs(&self, project: ProjectId) -> Result<Vec<Option<String>>> {
        let mut slugs: Vec<Option<String>> = self
            .project_placeholders(project)
            .into_iter()
            .flat_map(|(_, _, found)| found.into_iter().map(|f| f.slug))
            .collect();
        slugs.sort();
        slugs.dedup();
        Ok(slugs)
    }

    async fn link_targets_named(
        &self,
        project: ProjectId,
        slugs: &[String],
        ids: &[BlogId],
    ) -> Result<LinkTargetSources> {
        let inner = self.read();
        let mut aliases: Vec<(String, BlogId)> = inner
            .aliases
            .iter()
            .filter(|((p, alias), (blog, _))| {
                *p == project && (slugs.contains(alias) || ids.contains(blog))
            })
            .map(|((_, alias), (blog, _))| (alias.clone(), *blog))
            .collect();
        aliases.sort();
        let mut posts: Vec<LinkTarget> = inner
            .blogs
            .values()
            .filter(|b| b.project_id == project)
            .filter(|b| {
                ids.contains(&b.id)
                    || b.slugs().any(|s| slugs.iter().any(|n| n == s.as_str()))
                    || aliases
                        .iter()
                        .any(|(alias, id)| *id == b.id && slugs.contains(alias))
            })
            .map(link_sources::target_of)
            .collect();
        posts.sort_by_key(|p| p.id);
        Ok(LinkTargetSources { posts, aliases })
    }

    async fn link_body_keys(
        &self,
        project: ProjectId,
        naming: Option<&[Option<String>]>,
    ) -> Result<Vec<BodyKey>> {
        Ok(self
            .project_placeholders(project)
            .into_iter()
            .filter(|(_, _, found)| naming.is_none_or(|n| link_sources::names_any(found, n)))
            .filter_map(|(id, copy, found)| BodyPlaceholders::new(id, copy, &found).key())
            .collect())
    }

    async fn link_bodies(
        &self,
        project: ProjectId,
        keys: &[BodyKey],
    ) -> Result<Vec<BodyPlaceholders>> {
        Ok(self
            .project_placeholders(project)
            .into_iter()
            .filter(|(id, copy, _)| keys.iter().any(|k| (k.blog_id, k.copy) == (*id, *copy)))
            .map(|(id, copy, found)| BodyPlaceholders::new(id, copy, &found))
            .collect())
    }
}
