//! The links report (`docs/management-api.md#links`): every placeholder of a project's posts
//! with its target's state, the placeholders of one post, the posts that link to one, what
//! publishing leaves unresolved, and what unpublishing or deleting a post takes away. The
//! states come from `links::report`, which agrees with the resolver by construction.
//!
//! # What a request costs and holds
//!
//! Every answer is a page (at most 100 entries, and a backlink shows at most
//! [`BACKLINK_PLACEHOLDERS_SHOWN`] placeholders) with the total, so no answer grows with what
//! an author wrote. What a request reads and holds is bounded the same way:
//!
//! - A post's own links (its page, a publish's `unresolved_links`) read the post and judge its
//!   bodies against the posts their slugs name, found through the slug index: what it costs
//!   grows with the post, never with the project.
//! - A post's backlinks read the keys of the bodies naming it, and those bodies' placeholder
//!   lists a batch of at most [`READ_BATCH_BYTES`] at a time.
//! - The project's report holds one small record per post (the targets) and per body holding
//!   placeholders (its key and count), and reads the lists a batch at a time; `state=all`
//!   counts from the index and reads only the lists of the page.

use std::collections::HashSet;

use crate::auth::{Access, Caller};
use crate::domain::{BlogId, BlogStatus, ProjectId, Timestamp};
use crate::error::{Error, NotFound, Result};
use crate::links::report::{
    Found, Judgement, LinkTarget, LinkTargets, Verdict, placeholders, stored_links,
};
use crate::read::ListParams;
use crate::store::{BodyCopy, BodyKey, BodyPlaceholders, LinkTargetSources};

use super::Service;
pub use super::link_answers::{
    Backlink, BacklinkFilter, BacklinkList, LinkEntry, LinkFilter, LinkReport, LinkSummary,
    LinkTargetView,
};

/// Most placeholders naming the post that one backlink shows as written (its `count` says
/// how many there are).
pub const BACKLINK_PLACEHOLDERS_SHOWN: usize = 20;

/// Most bytes of stored placeholder lists a report reads at once (a batch holds at least one
/// body, whatever its size: a 2 MiB body's list is a few MiB).
pub const READ_BATCH_BYTES: u64 = 8 << 20;

/// How many of a publish's unresolved links its answer shows (the first, in body order).
pub const UNRESOLVED_SHOWN: u32 = 100;

/// A stored placeholder list that does not read back: a storage failure.
#[derive(Debug, thiserror::Error)]
#[error("the stored placeholders of a body of post {0} do not read back")]
struct UnreadablePlaceholders(BlogId);

/// The slug and holder of each placeholder of a stored list.
fn links_of(body: &BodyPlaceholders) -> Result<Vec<(Option<String>, Option<usize>)>> {
    let links = stored_links(&body.stored)
        .ok_or_else(|| Error::storage(UnreadablePlaceholders(body.blog_id)))?;
    Ok(links
        .into_iter()
        .map(|l| (l.slug.map(|s| s.into_owned()), l.held_by))
        .collect())
}

/// The whole placeholders of a stored list.
fn found_of(body: &BodyPlaceholders) -> Result<Vec<Found>> {
    body.placeholders()
        .ok_or_else(|| Error::storage(UnreadablePlaceholders(body.blog_id)))
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

/// [`judge`] over a list of slugs and holders.
fn judge_list(
    targets: &LinkTargets,
    links: &[(Option<String>, Option<usize>)],
    own: &mut Vec<Judgement>,
    each: impl FnMut(usize, Judgement, Option<usize>),
) {
    judge(
        targets,
        links.len(),
        |i| (links[i].0.as_deref(), links[i].1),
        own,
        each,
    );
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

/// The entries of one body's placeholders `found` whose judgements `keep` takes, from the
/// `skip`th of those on, at most `take`: the entries of a page that falls in this body.
/// Returns the entries and how many such placeholders the body holds.
#[allow(clippy::too_many_arguments)]
fn body_entries(
    targets: &LinkTargets,
    post: &LinkTarget,
    copy: BodyCopy,
    found: &[Found],
    keep: LinkFilter,
    skip: u64,
    take: usize,
    out: &mut Vec<LinkEntry>,
) -> u64 {
    let mut matching = 0u64;
    judge(
        targets,
        found.len(),
        |i| (found[i].slug.as_deref(), found[i].held_by),
        &mut Vec::new(),
        |at, judgement, within| {
            if !keep.keeps(&judgement) {
                return;
            }
            if matching >= skip && out.len() < take {
                let within = within
                    .and_then(|h| found.get(h))
                    .map(|l| l.written.as_str());
                out.push(entry(
                    post,
                    copy,
                    &found[at],
                    targets.expand(judgement),
                    within,
                ));
            }
            matching += 1;
        },
    );
    matching
}

/// The batches in which to read the lists of `keys`: contiguous runs of at most
/// [`READ_BATCH_BYTES`] of lists, each holding at least one body.
fn batches(keys: &[BodyKey]) -> impl Iterator<Item = &[BodyKey]> {
    let mut rest = keys;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut bytes = 0u64;
        let mut end = 0;
        while end < rest.len() && (end == 0 || bytes + rest[end].bytes <= READ_BATCH_BYTES) {
            bytes += rest[end].bytes;
            end += 1;
        }
        let (batch, tail) = rest.split_at(end);
        rest = tail;
        Some(batch)
    })
}

/// The slugs a list of placeholders names.
fn named_slugs<'a>(found: impl IntoIterator<Item = &'a Option<String>>) -> Vec<String> {
    let mut slugs: Vec<String> = found.into_iter().flatten().cloned().collect();
    slugs.sort_unstable();
    slugs.dedup();
    slugs
}

/// The targets read so far, and the slugs and posts asked for: a request that judges what a
/// post names reads the targets of those slugs only, as it meets them.
struct Known {
    targets: LinkTargets,
    slugs: HashSet<String>,
    ids: HashSet<BlogId>,
    /// Every post and alias of the project is held: nothing more to ask.
    whole: bool,
}

impl Known {
    fn new(sources: LinkTargetSources, now: Timestamp, whole: bool) -> Self {
        Self {
            targets: LinkTargets::new(sources.posts, sources.aliases, now),
            slugs: HashSet::new(),
            ids: HashSet::new(),
            whole,
        }
    }
}

impl Service {
    /// The project's targets, every post and alias (a go-live that has passed recorded
    /// first).
    async fn whole_targets(&self, project: ProjectId) -> Result<Known> {
        self.go_live_due(Some(project)).await?;
        let sources = self.store.link_targets(project).await?;
        Ok(Known::new(sources, self.now(), true))
    }

    /// No targets yet, to learn as slugs come. (A scheduled post whose go-live has passed
    /// is judged published by the clock, recorded or not.)
    fn no_targets(&self) -> Known {
        Known::new(LinkTargetSources::default(), self.now(), false)
    }

    /// Reads the targets that judging `slugs` needs and the posts `ids`, those not read yet.
    async fn learn(
        &self,
        project: ProjectId,
        known: &mut Known,
        slugs: Vec<String>,
        ids: &[BlogId],
    ) -> Result<()> {
        if known.whole {
            return Ok(());
        }
        let slugs: Vec<String> = slugs
            .into_iter()
            .filter(|s| !known.slugs.contains(s))
            .collect();
        let ids: Vec<BlogId> = ids
            .iter()
            .copied()
            .filter(|id| !known.ids.contains(id))
            .collect();
        if slugs.is_empty() && ids.is_empty() {
            return Ok(());
        }
        let sources = self.store.link_targets_named(project, &slugs, &ids).await?;
        known.targets.extend(sources.posts, sources.aliases);
        known.slugs.extend(slugs);
        known.ids.extend(ids);
        Ok(())
    }

    /// Sorts `keys` into report order (by the holding post's working slug, then its id, then
    /// the copy), leaving out the bodies of posts `known` does not hold.
    fn report_order(known: &Known, keys: &mut Vec<BodyKey>) {
        keys.retain(|k| known.targets.post(k.blog_id).is_some());
        keys.sort_unstable_by(|a, b| {
            let slug = |k: &BodyKey| {
                known
                    .targets
                    .post(k.blog_id)
                    .map(|p| p.slug.as_str())
                    .unwrap_or_default()
            };
            (slug(a), a.blog_id, a.copy).cmp(&(slug(b), b.blog_id, b.copy))
        });
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
        self.existing_project(project).await?;
        let (known, mut keys) = self.report_bodies(project, filter).await?;
        Self::report_order(&known, &mut keys);
        // How many entries each body gives: from the index for every placeholder, else
        // judged, a batch of lists at a time.
        let counts: Vec<u64> = match filter {
            LinkFilter::All => keys.iter().map(|k| k.placeholders).collect(),
            LinkFilter::Broken | LinkFilter::NotBroken => {
                self.count_matching(project, &known, &keys, filter).await?
            }
        };
        let total = counts.iter().sum();
        let links = self
            .page_entries(project, &known, &keys, &counts, filter, &params)
            .await?;
        Ok(LinkReport {
            links,
            total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// The targets and the bodies a project-wide report with `filter` reads: every body, or
    /// those naming a slug that does not resolve now (every broken placeholder, and the
    /// others of those bodies: a placeholder's state depends only on its own slug and on the
    /// slug of the link holding it).
    async fn report_bodies(
        &self,
        project: ProjectId,
        filter: LinkFilter,
    ) -> Result<(Known, Vec<BodyKey>)> {
        let known = self.whole_targets(project).await?;
        let naming = match filter {
            LinkFilter::All | LinkFilter::NotBroken => None,
            LinkFilter::Broken => {
                let slugs = self.store.linked_slugs(project).await?;
                let broken: Vec<Option<String>> = slugs
                    .into_iter()
                    .filter(|slug| known.targets.judge(slug.as_deref()).state.is_broken())
                    .collect();
                if broken.is_empty() {
                    return Ok((known, Vec::new()));
                }
                Some(broken)
            }
        };
        let keys = self
            .store
            .link_body_keys(project, naming.as_deref())
            .await?;
        Ok((known, keys))
    }

    /// How many placeholders of each body of `keys` `filter` keeps, a batch of lists at a
    /// time (in `keys`' order).
    async fn count_matching(
        &self,
        project: ProjectId,
        known: &Known,
        keys: &[BodyKey],
        filter: LinkFilter,
    ) -> Result<Vec<u64>> {
        let mut counts = vec![0u64; keys.len()];
        let at: std::collections::HashMap<(BlogId, BodyCopy), usize> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| ((k.blog_id, k.copy), i))
            .collect();
        let mut own = Vec::new();
        for batch in batches(keys) {
            for body in self.store.link_bodies(project, batch).await? {
                let Some(&i) = at.get(&(body.blog_id, body.copy)) else {
                    continue;
                };
                let links = links_of(&body)?;
                let mut n = 0u64;
                judge_list(&known.targets, &links, &mut own, |_, judgement, _| {
                    n += u64::from(filter.keeps(&judgement));
                });
                counts[i] = n;
            }
        }
        Ok(counts)
    }

    /// The entries of the page `params` asks for, among the bodies `keys` (in report order)
    /// giving `counts` entries each: the lists of the bodies the page falls in are read, a
    /// batch at a time.
    async fn page_entries(
        &self,
        project: ProjectId,
        known: &Known,
        keys: &[BodyKey],
        counts: &[u64],
        filter: LinkFilter,
        params: &ListParams,
    ) -> Result<Vec<LinkEntry>> {
        // The bodies the page falls in, each with how many of its entries come before it.
        let (offset, limit) = (params.offset, u64::from(params.limit));
        let mut before = 0u64;
        let mut page: Vec<(BodyKey, u64)> = Vec::new();
        for (key, &n) in keys.iter().zip(counts) {
            let end = before + n;
            if n > 0 && end > offset && before < offset + limit {
                page.push((*key, offset.saturating_sub(before)));
            }
            before = end;
            if before >= offset + limit {
                break;
            }
        }
        let page_keys: Vec<BodyKey> = page.iter().map(|(k, _)| *k).collect();
        let mut read: std::collections::HashMap<(BlogId, BodyCopy), BodyPlaceholders> =
            std::collections::HashMap::new();
        let mut links = Vec::new();
        for batch in batches(&page_keys) {
            read.clear();
            for body in self.store.link_bodies(project, batch).await? {
                read.insert((body.blog_id, body.copy), body);
            }
            for key in batch {
                let skip = page
                    .iter()
                    .find(|(k, _)| (k.blog_id, k.copy) == (key.blog_id, key.copy))
                    .map_or(0, |(_, skip)| *skip);
                let (Some(body), Some(post)) = (
                    read.get(&(key.blog_id, key.copy)),
                    known.targets.post(key.blog_id),
                ) else {
                    continue;
                };
                let found = found_of(body)?;
                let take = params.limit as usize;
                body_entries(
                    &known.targets,
                    post,
                    key.copy,
                    &found,
                    filter,
                    skip,
                    take,
                    &mut links,
                );
                if links.len() >= take {
                    return Ok(links);
                }
            }
        }
        Ok(links)
    }

    /// The placeholders of one post (agent or admin): its working copy's, then its public
    /// snapshot's (or only `copy`'s), in body order, all or only the broken ones, paged.
    /// Judged against the posts its slugs name, read through the slug index: the cost grows
    /// with the post, not with the project.
    pub async fn blog_links(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
        filter: LinkFilter,
        copy: Option<BodyCopy>,
        request: impl Into<crate::read::ListRequest>,
    ) -> Result<LinkReport> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let params = request.into().into_params()?;
        self.post_links(project, id, filter, copy, &params).await
    }

    /// [`Service::blog_links`], authorised already.
    async fn post_links(
        &self,
        project: ProjectId,
        id: BlogId,
        filter: LinkFilter,
        copy: Option<BodyCopy>,
        params: &ListParams,
    ) -> Result<LinkReport> {
        let mut known = self.no_targets();
        let blog = self
            .store
            .blog(project, id)
            .await?
            .ok_or(Error::NotFound(NotFound::Blog))?;
        let bodies: Vec<(BodyCopy, Vec<Found>)> = crate::store::bodies_of(&blog)
            .into_iter()
            .filter(|(c, _)| copy.is_none_or(|only| only == *c))
            .filter_map(|(c, body)| Some((c, placeholders(body?))))
            .filter(|(_, found)| !found.is_empty())
            .collect();
        let slugs = named_slugs(bodies.iter().flat_map(|(_, f)| f.iter().map(|f| &f.slug)));
        self.learn(project, &mut known, slugs, &[id]).await?;
        let post = known
            .targets
            .post(id)
            .ok_or(Error::NotFound(NotFound::Blog))?
            .clone();
        let (mut total, mut links) = (0u64, Vec::new());
        for (copy, found) in &bodies {
            let skip = params.offset.saturating_sub(total);
            total += body_entries(
                &known.targets,
                &post,
                *copy,
                found,
                filter,
                skip,
                params.limit as usize,
                &mut links,
            );
        }
        Ok(LinkReport {
            links,
            total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// The posts whose working copy or public snapshot references post `id` by its slug
    /// (working or public) or one of its aliases (agent or admin), paged: every one, or
    /// those that unpublishing or deleting it would take links from.
    pub async fn backlinks(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
        filter: BacklinkFilter,
        request: impl Into<crate::read::ListRequest>,
    ) -> Result<BacklinkList> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let params = request.into().into_params()?;
        // A go-live that has passed is recorded first: the statuses shown are current.
        self.go_live_due(Some(project)).await?;
        let mut known = self.no_targets();
        self.learn(project, &mut known, Vec::new(), &[id]).await?;
        let Some(post) = known.targets.post(id) else {
            return Err(Error::NotFound(NotFound::Blog));
        };
        let mut names: Vec<String> = vec![post.slug.clone()];
        names.extend(post.public.as_ref().map(|(slug, _)| slug.clone()));
        names.extend(known.targets.aliases_of(id).into_iter().map(str::to_owned));
        names.sort_unstable();
        names.dedup();
        let naming: Vec<Option<String>> = names.iter().cloned().map(Some).collect();
        let mut keys = self.store.link_body_keys(project, Some(&naming)).await?;
        let mut linking: Vec<BlogId> = keys.iter().map(|k| k.blog_id).collect();
        linking.sort_unstable();
        linking.dedup();
        self.learn(project, &mut known, Vec::new(), &linking)
            .await?;
        Self::report_order(&known, &mut keys);
        if filter == BacklinkFilter::WouldLose {
            keys.retain(|k| {
                k.copy == BodyCopy::Published
                    && k.blog_id != id
                    && known
                        .targets
                        .post(k.blog_id)
                        .is_some_and(|p| p.status == BlogStatus::Published)
            });
            // Those with a link that resolves now, judged a batch at a time.
            let mut kept = HashSet::new();
            for batch in batches(&keys) {
                let bodies = self.read_judgeable(project, &mut known, batch).await?;
                for body in &bodies {
                    if backlink(&known, body, &names)?.is_some_and(|b| b.resolved > 0) {
                        kept.insert((body.blog_id, body.copy));
                    }
                }
            }
            keys.retain(|k| kept.contains(&(k.blog_id, k.copy)));
        }
        let total = keys.len() as u64;
        let start = usize::try_from(params.offset)
            .unwrap_or(usize::MAX)
            .min(keys.len());
        let end = keys.len().min(start + params.limit as usize);
        let page = &keys[start..end];
        let mut backlinks = Vec::with_capacity(page.len());
        for batch in batches(page) {
            let bodies = self.read_judgeable(project, &mut known, batch).await?;
            for key in batch {
                let Some(body) = bodies
                    .iter()
                    .find(|b| (b.blog_id, b.copy) == (key.blog_id, key.copy))
                else {
                    continue;
                };
                if let Some(backlink) = backlink(&known, body, &names)? {
                    backlinks.push(backlink);
                }
            }
        }
        Ok(BacklinkList {
            backlinks,
            total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// The lists of the bodies `keys`, with the targets that judging them needs read.
    async fn read_judgeable(
        &self,
        project: ProjectId,
        known: &mut Known,
        keys: &[BodyKey],
    ) -> Result<Vec<BodyPlaceholders>> {
        let bodies = self.store.link_bodies(project, keys).await?;
        let mut slugs = Vec::new();
        for body in &bodies {
            slugs.extend(links_of(body)?.into_iter().filter_map(|(slug, _)| slug));
        }
        slugs.sort_unstable();
        slugs.dedup();
        self.learn(project, known, slugs, &[]).await?;
        Ok(bodies)
    }

    /// The links that unpublishing or deleting post `id` would take from the public answers
    /// of the other published posts (agent or admin): each post with how many of its links to
    /// `id` resolve now, paged. Empty when none would.
    pub async fn links_lost_without(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
        request: impl Into<crate::read::ListRequest>,
    ) -> Result<BacklinkList> {
        self.backlinks(caller, project, id, BacklinkFilter::WouldLose, request)
            .await
    }

    /// How many published posts of a project have broken links (agent or admin).
    pub async fn link_summary(&self, caller: &Caller, project: ProjectId) -> Result<LinkSummary> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        self.existing_project(project).await?;
        let (known, mut keys) = self.report_bodies(project, LinkFilter::Broken).await?;
        keys.retain(|k| {
            k.copy == BodyCopy::Published
                && known
                    .targets
                    .post(k.blog_id)
                    .is_some_and(|p| p.status == BlogStatus::Published)
        });
        let counts = self
            .count_matching(project, &known, &keys, LinkFilter::Broken)
            .await?;
        Ok(LinkSummary {
            posts_with_broken_links: counts.iter().filter(|&&n| n > 0).count() as u64,
            broken_links: counts.iter().sum(),
        })
    }

    /// The placeholders of post `id`'s public snapshot that the public answer drops now
    /// (authorised already), the first [`UNRESOLVED_SHOWN`] and how many in all: what a
    /// publish or re-sync answer carries. Empty when it holds no public snapshot.
    pub(crate) async fn unresolved_links_of(
        &self,
        project: ProjectId,
        id: BlogId,
    ) -> Result<LinkReport> {
        let params = ListParams {
            limit: UNRESOLVED_SHOWN,
            ..ListParams::default()
        };
        self.post_links(
            project,
            id,
            LinkFilter::Broken,
            Some(BodyCopy::Published),
            &params,
        )
        .await
    }
}

/// The backlink body `body` makes to the post named `names`, judged against `known` (which
/// holds what its slugs name); `None` when it names it no more (a write since its key was
/// read).
fn backlink(known: &Known, body: &BodyPlaceholders, names: &[String]) -> Result<Option<Backlink>> {
    let links = links_of(body)?;
    let Some(linking) = known.targets.post(body.blog_id) else {
        return Ok(None);
    };
    let mut naming_at = Vec::new();
    let mut resolved = 0u32;
    judge_list(
        &known.targets,
        &links,
        &mut Vec::new(),
        |at, judgement, _| {
            if links[at].0.as_ref().is_some_and(|s| names.contains(s)) {
                naming_at.push(at);
                resolved += u32::from(!judgement.state.is_broken());
            }
        },
    );
    if naming_at.is_empty() {
        return Ok(None);
    }
    let found = found_of(body)?;
    Ok(Some(Backlink {
        blog_id: linking.id,
        slug: linking.slug.clone(),
        title: linking.title.clone(),
        status: linking.status,
        copy: body.copy,
        placeholders: naming_at
            .iter()
            .take(BACKLINK_PLACEHOLDERS_SHOWN)
            .filter_map(|&at| found.get(at).map(|f| f.written.clone()))
            .collect(),
        count: naming_at.len() as u32,
        resolved,
    }))
}
