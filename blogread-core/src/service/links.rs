//! The links report (`docs/management-api.md#links`): every placeholder of a project's posts
//! with its target's state, the posts that link to one, what publishing leaves unresolved,
//! and what unpublishing or deleting a post takes away. The states come from
//! `links::report`, which agrees with the resolver by construction.

use std::collections::HashMap;

use crate::auth::{Access, Caller};
use crate::domain::{BlogId, BlogStatus, ProjectId, Timestamp};
use crate::error::{Error, NotFound, Result};
use crate::links::report::{
    Found, Judgement, LinkState, LinkTarget, LinkTargets, Place, Verdict, placeholders,
    stored_links,
};
use crate::store::{BodyCopy, BodyPlaceholders};

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

/// One placeholder judged: which body (in [`Judged::bodies`]), which placeholder of it, its
/// judgement and, for one inside a link whose whole `href` is a placeholder, that one.
#[derive(Debug, Clone, Copy)]
struct Mark {
    body: usize,
    at: usize,
    judgement: Judgement,
    within: Option<usize>,
}

impl Mark {
    fn is_broken(&self) -> bool {
        self.judgement.state.is_broken()
    }
}

/// Which bodies a report reads: each placeholder's state depends only on its own slug and
/// on the slug of the link holding it, so the bodies that name no broken slug hold no broken
/// placeholder, and only the bodies naming a post's slugs hold links to it.
#[derive(Debug, Clone, Copy)]
enum Scope {
    /// Every body.
    All,
    /// The bodies naming a slug that does not resolve now: every broken placeholder, and
    /// the others of those bodies.
    Broken,
    /// The bodies naming the slug (working or public) or an alias of a post.
    Naming(BlogId),
    /// The bodies of a post.
    Post(BlogId),
}

impl Scope {
    /// The bodies a report with `filter` reads.
    fn of(filter: LinkFilter) -> Self {
        match filter {
            LinkFilter::All => Scope::All,
            LinkFilter::Broken => Scope::Broken,
        }
    }
}

/// The report built from a store's targets and bodies: every placeholder judged, in report
/// order, from the slugs of the stored lists alone; [`Judged::entries`] reads the whole of
/// the ones shown.
struct Judged {
    targets: LinkTargets,
    /// The bodies holding placeholders, in report order, each with its post's index.
    bodies: Vec<(usize, BodyPlaceholders)>,
    marks: Vec<Mark>,
}

/// A stored placeholder list that does not read back: a storage failure.
#[derive(Debug, thiserror::Error)]
#[error("the stored placeholders of a body of post {0} do not read back")]
struct UnreadablePlaceholders(BlogId);

impl Judged {
    fn new(targets: LinkTargets, bodies: Vec<BodyPlaceholders>) -> Result<Self> {
        let posts: HashMap<BlogId, usize, foldhash::fast::RandomState> = targets
            .posts()
            .iter()
            .enumerate()
            .map(|(at, p)| (p.id, at))
            .collect();
        let mut bodies: Vec<(usize, BodyPlaceholders)> = bodies
            .into_iter()
            .filter_map(|body| Some((*posts.get(&body.blog_id)?, body)))
            .collect();
        // Report order: by the holding post's working slug (each post's rank in that order),
        // then its id, then the copy. Unstable: no two bodies share a post and a copy.
        let mut by_slug: Vec<usize> = (0..targets.posts().len()).collect();
        let all = targets.posts();
        by_slug.sort_unstable_by(|&a, &b| {
            (all[a].slug.as_str(), all[a].id).cmp(&(all[b].slug.as_str(), all[b].id))
        });
        let mut rank = vec![0; by_slug.len()];
        for (r, &at) in by_slug.iter().enumerate() {
            rank[at] = r;
        }
        bodies.sort_unstable_by_key(|(at, body)| (rank[*at], body.copy));
        let mut marks = Vec::new();
        let mut own = Vec::new();
        for (body, (_, held)) in bodies.iter().enumerate() {
            let links = stored_links(&held.stored)
                .ok_or_else(|| Error::storage(UnreadablePlaceholders(held.blog_id)))?;
            judge(
                &targets,
                links.len(),
                |i| (links[i].slug.as_deref(), links[i].held_by),
                &mut own,
                |at, judgement, within| {
                    marks.push(Mark {
                        body,
                        at,
                        judgement,
                        within,
                    })
                },
            );
        }
        Ok(Self {
            targets,
            bodies,
            marks,
        })
    }

    /// The post holding the placeholder `mark` names.
    fn post_of(&self, mark: &Mark) -> &LinkTarget {
        &self.targets.posts()[self.bodies[mark.body].0]
    }

    /// The copy holding it.
    fn copy(&self, mark: &Mark) -> BodyCopy {
        self.bodies[mark.body].1.copy
    }

    /// The whole placeholders of body `body`.
    fn found(&self, body: usize) -> Result<Vec<Found>> {
        let (_, held) = &self.bodies[body];
        held.placeholders()
            .ok_or_else(|| Error::storage(UnreadablePlaceholders(held.blog_id)))
    }

    /// The entries of `marks` (in report order), as the report shows them; each body's
    /// list is read once.
    fn entries<'m>(&self, marks: impl IntoIterator<Item = &'m Mark>) -> Result<Vec<LinkEntry>> {
        let mut read: Option<(usize, Vec<Found>)> = None;
        let mut out = Vec::new();
        for mark in marks {
            if read.as_ref().is_none_or(|(body, _)| *body != mark.body) {
                read = Some((mark.body, self.found(mark.body)?));
            }
            let Some((_, found)) = &read else { continue };
            let Some(f) = found.get(mark.at) else {
                continue;
            };
            let within = mark
                .within
                .and_then(|h| found.get(h))
                .map(|link| link.written.as_str());
            out.push(entry(
                self.post_of(mark),
                self.copy(mark),
                f,
                self.targets.expand(mark.judgement),
                within,
            ));
        }
        Ok(out)
    }
}

/// Judges the `n` placeholders of a body (`link(i)`: the slug and holder of the `i`th), a
/// placeholder held by a link that does not resolve taking that link's judgement, and hands
/// `each` the index, judgement and index of the holding link of each, in order. `own` is a
/// buffer, reused from body to body.
fn judge<'a>(
    targets: &LinkTargets,
    n: usize,
    link: impl Fn(usize) -> (Option<&'a str>, Option<usize>),
    own: &mut Vec<Judgement>,
    mut each: impl FnMut(usize, Judgement, Option<usize>),
) {
    own.clear();
    own.extend((0..n).map(|i| targets.judge(link(i).0)));
    for i in 0..n {
        let holder = link(i).1.filter(|&h| h < n);
        let mut judgement = own[i];
        if let Some(h) = holder
            && !judgement.state.is_broken()
            && own[h].state.is_broken()
        {
            judgement = own[h];
        }
        each(i, judgement, holder);
    }
}

fn entry(
    post: &LinkTarget,
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
    /// The targets placeholders of `project` are judged against now (a go-live that has
    /// passed recorded first).
    async fn link_targets(&self, project: ProjectId) -> Result<LinkTargets> {
        // A go-live that has passed counts as published, as on every read path.
        self.go_live_due(Some(project)).await?;
        self.read_link_targets(project).await
    }

    async fn read_link_targets(&self, project: ProjectId) -> Result<LinkTargets> {
        let sources = self.store.link_targets(project).await?;
        Ok(LinkTargets::new(sources.posts, sources.aliases, self.now()))
    }

    /// Reads and judges the placeholders of the bodies of `project` in `scope` (authorised
    /// already).
    async fn judged(&self, project: ProjectId, scope: Scope) -> Result<Judged> {
        self.existing_project(project).await?;
        let (targets, naming) = match scope {
            Scope::All => (self.link_targets(project).await?, None),
            Scope::Broken => {
                self.go_live_due(Some(project)).await?;
                // Two reads of their own, side by side.
                let (targets, slugs) = tokio::try_join!(
                    self.read_link_targets(project),
                    self.store.linked_slugs(project)
                )?;
                let broken = slugs
                    .into_iter()
                    .filter(|slug| targets.judge(slug.as_deref()).state.is_broken())
                    .collect();
                (targets, Some(broken))
            }
            Scope::Naming(id) => {
                let targets = self.link_targets(project).await?;
                let names = match targets.post(id) {
                    Some(post) => std::iter::once(post.slug.as_str())
                        .chain(post.public.as_ref().map(|(slug, _)| slug.as_str()))
                        .chain(targets.aliases_of(id))
                        .map(|name| Some(name.to_owned()))
                        .collect(),
                    None => Vec::new(),
                };
                (targets, Some(names))
            }
            Scope::Post(id) => {
                let targets = self.link_targets(project).await?;
                // Its own bodies, read with the post: no other body is read.
                let blog = self
                    .store
                    .blog(project, id)
                    .await?
                    .ok_or(Error::NotFound(NotFound::Blog))?;
                let bodies = crate::store::bodies_of(&blog)
                    .into_iter()
                    .filter_map(|(copy, body)| {
                        let found = placeholders(body?);
                        (!found.is_empty()).then(|| BodyPlaceholders::new(id, copy, &found))
                    })
                    .collect();
                return Judged::new(targets, bodies);
            }
        };
        let bodies = match naming.as_deref() {
            Some([]) => Vec::new(),
            naming => self.store.link_bodies(project, naming).await?,
        };
        Judged::new(targets, bodies)
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
        let judged = self.judged(project, Scope::of(filter)).await?;
        let matching = judged
            .marks
            .iter()
            .filter(|m| filter == LinkFilter::All || m.is_broken());
        let mut total = 0u64;
        let mut page = Vec::new();
        for m in matching {
            if total >= params.offset && page.len() < params.limit as usize {
                page.push(m);
            }
            total += 1;
        }
        let links = judged.entries(page)?;
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
        let judged = self.judged(project, Scope::Post(id)).await?;
        if judged.targets.post(id).is_none() {
            return Err(Error::NotFound(NotFound::Blog));
        }
        let mut links =
            judged.entries(judged.marks.iter().filter(|m| judged.post_of(m).id == id))?;
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
        let judged = self.judged(project, Scope::Naming(id)).await?;
        let Some(post) = judged.targets.post(id) else {
            return Err(Error::NotFound(NotFound::Blog));
        };
        let mut names: Vec<&str> = vec![post.slug.as_str()];
        if let Some((public, _)) = &post.public {
            names.push(public);
        }
        names.extend(judged.targets.aliases_of(id));
        let mut backlinks: Vec<Backlink> = Vec::new();
        // The marks of each body are together, in body order.
        let mut marks = judged.marks.as_slice();
        for (body, (_, held)) in judged.bodies.iter().enumerate() {
            let count = marks.iter().take_while(|m| m.body == body).count();
            let (own, rest) = marks.split_at(count);
            marks = rest;
            let links = stored_links(&held.stored)
                .ok_or_else(|| Error::storage(UnreadablePlaceholders(held.blog_id)))?;
            let naming: Vec<&Mark> = own
                .iter()
                .filter(|m| {
                    links
                        .get(m.at)
                        .and_then(|l| l.slug.as_deref())
                        .is_some_and(|slug| names.contains(&slug))
                })
                .collect();
            let Some(first) = naming.first() else {
                continue;
            };
            let found = judged.found(body)?;
            let linking = judged.post_of(first);
            backlinks.push(Backlink {
                blog_id: linking.id,
                slug: linking.slug.clone(),
                title: linking.title.clone(),
                status: linking.status,
                copy: held.copy,
                placeholders: naming
                    .iter()
                    .filter_map(|m| found.get(m.at).map(|f| f.written.clone()))
                    .collect(),
                resolved: naming.iter().filter(|m| !m.is_broken()).count() as u32,
            });
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
        let judged = self.judged(project, Scope::Broken).await?;
        let mut summary = LinkSummary {
            posts_with_broken_links: 0,
            broken_links: 0,
        };
        let mut last = None;
        for m in &judged.marks {
            let post = judged.post_of(m);
            let live = post.status == BlogStatus::Published;
            if judged.copy(m) != BodyCopy::Published || !live || !m.is_broken() {
                continue;
            }
            summary.broken_links += 1;
            if last != Some(post.id) {
                summary.posts_with_broken_links += 1;
                last = Some(post.id);
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
        let sources = self.store.link_targets(project).await?;
        let targets = LinkTargets::new(sources.posts, sources.aliases, self.now());
        let Some(post) = targets.post(id) else {
            return Ok(Vec::new());
        };
        let mut unresolved = Vec::new();
        judge(
            &targets,
            found.len(),
            |i| (found[i].slug.as_deref(), found[i].held_by),
            &mut Vec::new(),
            |at, judgement, within| {
                if judgement.state.is_broken() {
                    let within = within
                        .and_then(|h| found.get(h))
                        .map(|l| l.written.as_str());
                    unresolved.push(entry(
                        post,
                        BodyCopy::Published,
                        &found[at],
                        targets.expand(judgement),
                        within,
                    ));
                }
            },
        );
        Ok(unresolved)
    }
}
