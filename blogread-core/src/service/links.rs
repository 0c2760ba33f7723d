//! The links report (`docs/management-api.md#links`): every placeholder of a project's posts
//! with its target's state, the posts that link to one, what publishing leaves unresolved,
//! and what unpublishing or deleting a post takes away. The states come from
//! `links::report`, which agrees with the resolver by construction.

use std::collections::HashMap;

use crate::auth::{Access, Caller};
use crate::domain::{BlogId, BlogStatus, ProjectId, Timestamp};
use crate::error::{Error, NotFound, Result};
use crate::links::report::{Found, LinkState, LinkTargets, Place, Verdict, placeholders};
use crate::store::{BodyCopy, LinkSources};

use super::Service;

/// Which placeholders the report lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkFilter {
    /// Every placeholder.
    #[default]
    All,
    /// Only those the public answer drops (every state but `resolved` and `alias`).
    Broken,
}

impl LinkFilter {
    /// Reads `broken` or `all`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "all" => Some(LinkFilter::All),
            "broken" => Some(LinkFilter::Broken),
            _ => None,
        }
    }
}

/// The post a placeholder names, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTargetView {
    /// Its id.
    pub id: BlogId,
    /// The slug the link goes to, or would (for `alias`, the current one).
    pub slug: String,
    /// Its title (the published one when it has a public snapshot).
    pub title: String,
}

/// One placeholder of one body, with its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkEntry {
    /// The post holding the placeholder.
    pub blog_id: BlogId,
    /// That post's working slug.
    pub blog_slug: String,
    /// That post's working title.
    pub blog_title: String,
    /// Which of its bodies holds the placeholder.
    pub copy: BodyCopy,
    /// The placeholder as written.
    pub placeholder: String,
    /// The slug it names (trimmed, lower-cased); `None` when malformed.
    pub slug: Option<String>,
    /// Where it stands.
    pub place: Place,
    /// Its state now.
    pub state: LinkState,
    /// The post it names, if any.
    pub target: Option<LinkTargetView>,
    /// For `scheduled`: when the target goes live.
    pub go_live_at: Option<Timestamp>,
    /// For a placeholder inside a link whose whole `href` is a placeholder: that one, as
    /// written. While that link's target does not resolve, this one takes its state (it is
    /// removed with the link).
    pub within_link: Option<String>,
}

impl LinkEntry {
    /// Whether the public answer drops it.
    pub fn is_broken(&self) -> bool {
        self.state.is_broken()
    }
}

/// One page of the links report.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LinkReport {
    /// The page: by post (working slug), the working copy before the published one, then in
    /// body order.
    pub links: Vec<LinkEntry>,
    /// All placeholders matching the filter.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

/// A post that links to another, with the placeholders that do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backlink {
    /// The linking post.
    pub blog_id: BlogId,
    /// Its working slug.
    pub slug: String,
    /// Its working title.
    pub title: String,
    /// Its status.
    pub status: BlogStatus,
    /// Which of its bodies links.
    pub copy: BodyCopy,
    /// The placeholders of that body that name the post (its slug or an alias), as written.
    pub placeholders: Vec<String>,
    /// How many of those the public answer shows now (for the published copy: the links
    /// readers follow).
    pub resolved: u32,
}

/// The posts that link to one post.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BacklinkList {
    /// By linking post (working slug), the working copy before the published one.
    pub backlinks: Vec<Backlink>,
    /// How many entries.
    pub total: u64,
}

/// How a project's published posts stand with their links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkSummary {
    /// Published posts whose public body has at least one placeholder the public answer
    /// drops.
    pub posts_with_broken_links: u64,
    /// Those placeholders, in all.
    pub broken_links: u64,
}

/// The report built from a store's [`LinkSources`].
struct Judged {
    targets: LinkTargets,
    entries: Vec<LinkEntry>,
}

impl Judged {
    fn new(sources: LinkSources, now: Timestamp) -> Self {
        let targets = LinkTargets::new(sources.posts, sources.aliases, now);
        let posts: HashMap<BlogId, usize> = targets
            .posts()
            .iter()
            .enumerate()
            .map(|(at, p)| (p.id, at))
            .collect();
        let mut bodies = sources.bodies;
        bodies.sort_by(|a, b| {
            let slug = |id| posts.get(&id).map(|&at| targets.posts()[at].slug.as_str());
            (slug(a.blog_id), a.blog_id, a.copy).cmp(&(slug(b.blog_id), b.blog_id, b.copy))
        });
        let mut entries = Vec::new();
        for body in bodies {
            let Some(&at) = posts.get(&body.blog_id) else {
                continue;
            };
            let post = &targets.posts()[at];
            entries.extend(
                judge(&targets, &body.placeholders)
                    .into_iter()
                    .map(|(found, verdict, within)| entry(post, body.copy, found, verdict, within)),
            );
        }
        Self { targets, entries }
    }
}

/// The verdict of each placeholder of a body, a placeholder held by a link that does not
/// resolve taking that link's verdict.
fn judge<'a>(
    targets: &LinkTargets,
    found: &'a [Found],
) -> Vec<(&'a Found, Verdict, Option<&'a str>)> {
    let own: Vec<Verdict> = found
        .iter()
        .map(|f| targets.verdict(f.slug.as_deref()))
        .collect();
    found
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let holder = f.held_by.and_then(|h| Some((h, found.get(h)?)));
            let mut verdict = own[i].clone();
            if let Some((h, _)) = holder
                && !verdict.state.is_broken()
                && own[h].state.is_broken()
            {
                verdict = own[h].clone();
            }
            (f, verdict, holder.map(|(_, link)| link.written.as_str()))
        })
        .collect()
}

fn entry(
    post: &crate::links::report::LinkTarget,
    copy: BodyCopy,
    found: &Found,
    verdict: Verdict,
    within: Option<&str>,
) -> LinkEntry {
    let target = match (verdict.target, verdict.target_slug, verdict.target_title) {
        (Some(id), Some(slug), Some(title)) => Some(LinkTargetView { id, slug, title }),
        _ => None,
    };
    LinkEntry {
        blog_id: post.id,
        blog_slug: post.slug.clone(),
        blog_title: post.title.clone(),
        copy,
        placeholder: found.written.clone(),
        slug: found.slug.clone(),
        place: found.place,
        state: verdict.state,
        target,
        go_live_at: verdict.go_live,
        within_link: within.map(str::to_owned),
    }
}

impl Service {
    /// Reads and judges every placeholder of `project` (authorised already).
    async fn judged(&self, project: ProjectId) -> Result<Judged> {
        self.existing_project(project).await?;
        // A go-live that has passed counts as published, as on every read path.
        self.go_live_due(Some(project)).await?;
        let sources = self.store.link_sources(project).await?;
        Ok(Judged::new(sources, self.now()))
    }

    /// The links report of a project (agent or admin): every placeholder of every post's
    /// working copy and public snapshot with its target's state, or only the broken ones;
    /// paged like the other lists.
    pub async fn links(
        &self,
        caller: &Caller,
        project: ProjectId,
        filter: LinkFilter,
        request: impl Into<crate::read::ListRequest>,
    ) -> Result<LinkReport> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let params = request.into().into_params()?;
        let judged = self.judged(project).await?;
        let matching = judged
            .entries
            .into_iter()
            .filter(|e| filter == LinkFilter::All || e.is_broken());
        let mut total = 0u64;
        let mut links = Vec::new();
        for e in matching {
            if total >= params.offset && links.len() < params.limit as usize {
                links.push(e);
            }
            total += 1;
        }
        Ok(LinkReport {
            links,
            total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// The placeholders of one post (agent or admin), the broken ones first, then in body
    /// order, the working copy before the published one: what the admin post page shows.
    pub async fn blog_links(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<Vec<LinkEntry>> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let judged = self.judged(project).await?;
        if judged.targets.post(id).is_none() {
            return Err(Error::NotFound(NotFound::Blog));
        }
        let mut links: Vec<LinkEntry> = judged
            .entries
            .into_iter()
            .filter(|e| e.blog_id == id)
            .collect();
        // Stable: body order within each group.
        links.sort_by_key(|e| (!e.is_broken(), e.copy));
        Ok(links)
    }

    /// The posts whose working copy or public snapshot references post `id` by its slug (working
    /// or public) or one of its aliases (agent or admin).
    pub async fn backlinks(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<BacklinkList> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let judged = self.judged(project).await?;
        let Some(post) = judged.targets.post(id) else {
            return Err(Error::NotFound(NotFound::Blog));
        };
        let mut names: Vec<&str> = vec![post.slug.as_str()];
        if let Some((public, _)) = &post.public {
            names.push(public);
        }
        names.extend(judged.targets.aliases_of(id));
        let mut backlinks: Vec<Backlink> = Vec::new();
        for e in &judged.entries {
            let Some(slug) = e.slug.as_deref() else {
                continue;
            };
            if !names.contains(&slug) {
                continue;
            }
            let resolved = u32::from(!e.is_broken());
            match backlinks.last_mut() {
                Some(last) if last.blog_id == e.blog_id && last.copy == e.copy => {
                    last.placeholders.push(e.placeholder.clone());
                    last.resolved += resolved;
                }
                _ => {
                    let status = judged
                        .targets
                        .post(e.blog_id)
                        .map_or(BlogStatus::Draft, |p| p.status);
                    backlinks.push(Backlink {
                        blog_id: e.blog_id,
                        slug: e.blog_slug.clone(),
                        title: e.blog_title.clone(),
                        status,
                        copy: e.copy,
                        placeholders: vec![e.placeholder.clone()],
                        resolved,
                    });
                }
            }
        }
        let total = backlinks.len() as u64;
        Ok(BacklinkList { backlinks, total })
    }

    /// The links that unpublishing or deleting post `id` would take from the public answers
    /// of the other published posts (agent or admin): each post with how many of its links to
    /// `id` resolve now. Empty when none would.
    pub async fn links_lost_without(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<Vec<Backlink>> {
        let list = self.backlinks(caller, project, id).await?;
        Ok(list
            .backlinks
            .into_iter()
            .filter(|b| {
                b.copy == BodyCopy::Published
                    && b.blog_id != id
                    && b.resolved > 0
                    && b.status == BlogStatus::Published
            })
            .collect())
    }

    /// How many published posts of a project have broken links (agent or admin).
    pub async fn link_summary(&self, caller: &Caller, project: ProjectId) -> Result<LinkSummary> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let judged = self.judged(project).await?;
        let mut summary = LinkSummary {
            posts_with_broken_links: 0,
            broken_links: 0,
        };
        let mut last = None;
        for e in &judged.entries {
            let live = judged
                .targets
                .post(e.blog_id)
                .is_some_and(|p| p.status == BlogStatus::Published);
            if e.copy != BodyCopy::Published || !live || !e.is_broken() {
                continue;
            }
            summary.broken_links += 1;
            if last != Some(e.blog_id) {
                summary.posts_with_broken_links += 1;
                last = Some(e.blog_id);
            }
        }
        Ok(summary)
    }

    /// The placeholders of post `id`'s public snapshot that the public answer drops now
    /// (authorised already): what a publish or re-sync answer carries. Empty when it holds
    /// no public snapshot.
    pub(crate) async fn unresolved_links_of(
        &self,
        project: ProjectId,
        id: BlogId,
    ) -> Result<Vec<LinkEntry>> {
        let blog = self
            .store
            .blog(project, id)
            .await?
            .ok_or(Error::NotFound(NotFound::Blog))?;
        let Some(snapshot) = blog.state.held_snapshot() else {
            return Ok(Vec::new());
        };
        let found = placeholders(snapshot.fields.content());
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let sources = self.store.link_sources(project).await?;
        let targets = LinkTargets::new(sources.posts, sources.aliases, self.now());
        let Some(post) = targets.post(id) else {
            return Ok(Vec::new());
        };
        Ok(judge(&targets, &found)
            .into_iter()
            .filter(|(_, verdict, _)| verdict.state.is_broken())
            .map(|(f, verdict, within)| entry(post, BodyCopy::Published, f, verdict, within))
            .collect())
    }
}
