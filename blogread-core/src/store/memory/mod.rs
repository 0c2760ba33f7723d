//! An in-memory [`Store`]: for applications that embed the core without a database, and for
//! tests of pure logic. Everything is lost when the process ends.
//!
//! One room a topic, each implementing that topic's trait of the store: `projects.rs`
//! (`ProjectStore`, and `DatabaseStore`), `credentials.rs` (`CredentialStore`,
//! `SessionStore`), `posts.rs`, `public.rs`, `changes.rs`, `firings.rs`, `links.rs`,
//! `media.rs`.

mod changes;
mod credentials;
mod firings;
mod links;
mod media;
mod posts;
mod projects;
mod public;

use std::collections::{HashMap, VecDeque};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use async_trait::async_trait;

use super::link_sources::{self, BodyCopy, BodyKey, BodyPlaceholders, LinkTargetSources};
use super::media_uses::{self, CopyUses};
use super::prelude::*;
use super::rules::{ChangeStamp, Conflict, SlugHistory, VisibleChange};
use super::{
    BlogUpdate, ChangeQuery, ChangeRead, KeyWrite, ManagedPage, PageKeys, PageQuery, PostKey,
    ProjectChange, ProjectPage, PublishedPage, StoredChange, category_key,
};
use crate::domain::delivery::DELIVERY_LOG_LEN;
use crate::domain::{
    AdminSession, Blog, BlogId, BlogStatus, ChangePosition, CredentialId, CredentialKind, Delivery,
    FiringId, ManagedBlog, PendingFiring, Project, ProjectId, PublicProject, PublishedBlog,
    Redirect, SecretHash, SessionCredential, SitemapEntry, StoredCredential, StoredPublicKey,
    Timestamp, Trigger,
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
    /// The last number of the project's change sequence (see [`ChangeStore::changes`]).
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
    /// Agent keys and admin tokens by kind and hash.
    credentials: HashMap<(CredentialKind, SecretHash), StoredCredential>,
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
    /// Every project's stored images, by id.
    media: HashMap<crate::domain::MediaId, crate::domain::MediaItem>,
    /// The images each post uses, per body copy (see `store::media_uses`), kept by
    /// [`Inner::put_blog`] in every write of a post.
    media_uses: HashMap<BlogId, Vec<(BodyCopy, CopyUses)>>,
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
        self.record_project_firing(blog.project_id, event, slug);
    }

    /// Records a firing for `event` in `project` when it has a deploy hook.
    fn record_project_firing(&mut self, project: ProjectId, event: Option<Trigger>, slug: String) {
        let has_hook = self
            .projects
            .get(&project)
            .is_some_and(|e| e.hook.is_some());
        if let (Some(trigger), true) = (event, has_hook) {
            let firing = PendingFiring {
                id: FiringId::generate(),
                project,
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
            Some(blog) => {
                let uses = media_uses::image_fields_of(&blog)
                    .into_iter()
                    .filter_map(|(copy, fields)| Some((copy, fields?.uses(project))))
                    .filter(|(_, uses)| !uses.is_empty())
                    .collect::<Vec<_>>();
                if uses.is_empty() {
                    self.media_uses.remove(&id);
                } else {
                    self.media_uses.insert(id, uses);
                }
                self.blogs.insert(id, blog)
            }
            None => {
                self.media_uses.remove(&id);
                self.blogs.remove(&id)
            }
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
    /// Random per store: see [`DatabaseStore::etag_epoch`].
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
