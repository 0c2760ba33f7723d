//! The public reads: the list, a single blog and the sitemap, each through one conditional
//! read (ETag, 304, response cache); links resolved and words counted.

use std::collections::{BTreeSet, HashMap};

use crate::auth::{Caller, authenticate_public};
use crate::domain::{
    BlogDetail, BlogId, BlogList, BlogListItem, ChangeCursor, ChangeEntry, ChangeFeed,
    ChangePosition, ProjectId, PublicProject, PublishedBlog, Redirects, Sitemap,
};
use crate::error::{Error, NotFound, Result};
use crate::fragment_cache::{Form, FragmentKey, SiteFingerprint};
use crate::links::{self, LinkContext};
use crate::read::{
    Answer, ChangeRequest, Conditional, ListParams, ListRequest, SITEMAP_CAP, etag, not_modified,
    to_json,
};
use crate::store::{ChangeQuery, PageQuery, PostKey, StoredChange, category_key};
use bytes::Bytes;

/// The bytes of bodies after which a page of the changes feed stops (it always holds at
/// least one entry).
pub const CHANGES_BODY_BUDGET: usize = 8 << 20;
use crate::word_count::word_count;

use super::Service;
use super::featured::FeaturedImages;

/// What a list request resolved to before any content is read: the project, the applied
/// parameters and the ETag.
struct ListPlan {
    project: PublicProject,
    params: ListParams,
    category: Option<String>,
    etag: String,
}

impl ListPlan {
    /// The store's query for this page.
    fn query(&self) -> PageQuery {
        PageQuery {
            limit: self.params.limit,
            offset: self.params.offset,
            category: self.category.clone(),
            include_content: self.params.include_content,
        }
    }
}

/// What a public read computed: the typed value (serialised by the conditional read), or
/// the body alone, put together from serialised fragments.
enum Fresh<T> {
    Value(T),
    Body(Bytes),
}

impl<T> From<T> for Fresh<T> {
    fn from(value: T) -> Self {
        Fresh::Value(value)
    }
}

impl Service {
    /// The project a public request's key belongs to: the one indexed look-up every public
    /// read starts with (401 for a missing, malformed, rotated or revoked key). When one of
    /// the project's scheduled blogs has reached its go-live time, the go-live is recorded
    /// first (see `service/schedule.rs`), so that every answer, and its ETag, includes it.
    pub async fn public_project(&self, caller: &Caller) -> Result<PublicProject> {
        let project = authenticate_public(self.store(), caller).await?;
        let due = |p: &PublicProject| p.next_go_live.is_some_and(|next| next <= self.now());
        if !due(&project) {
            return Ok(project);
        }
        // The project's reads take turns: one records the go-live, the others wait for it
        // (bounded) and find it recorded. Reads of other projects do not wait.
        let _turn = self
            .go_live_gate()
            .turn(project.id, super::schedule::GO_LIVE_WAIT)
            .await;
        let project = authenticate_public(self.store(), caller).await?;
        if !due(&project) {
            return Ok(project);
        }
        self.go_live_due(Some(project.id)).await?;
        authenticate_public(self.store(), caller).await
    }

    async fn plan_list(
        &self,
        caller: &Caller,
        request: impl Into<ListRequest>,
    ) -> Result<ListPlan> {
        let project = self.public_project(caller).await?;
        let params = request.into().into_params()?;
        let category = params.category.as_deref().map(category_key);
        let limit = params.limit.to_string();
        let offset = params.offset.to_string();
        let etag = self
            .public_etag(
                &project,
                &[
                    "list",
                    &limit,
                    &offset,
                    category.as_deref().unwrap_or(""),
                    if params.include_content { "1" } else { "0" },
                ],
            )
            .await?;
        Ok(ListPlan {
            project,
            params,
            category,
            etag,
        })
    }

    /// The page of `plan`: from the fragment cache when it is on, else from the page's rows.
    async fn compute_list(&self, plan: &ListPlan) -> Result<Fresh<BlogList>> {
        if self.fragments().is_enabled()
            && let Some(body) = self.list_from_fragments(plan).await?
        {
            return Ok(Fresh::Body(body));
        }
        self.list_from_rows(plan).await.map(Fresh::Value)
    }

    /// The page of `plan` made from its rows, read as a whole.
    async fn list_from_rows(&self, plan: &ListPlan) -> Result<BlogList> {
        let page = self
            .store()
            .published_page(plan.project.id, &plan.query())
            .await?;
        let mut blogs = page.blogs;
        if plan.params.include_content {
            let ctx = self.link_context(&plan.project, &blogs).await?;
            for blog in &mut blogs {
                resolve_body(blog, &ctx);
            }
        }
        let images = self.featured_images(plan.project.id, &blogs).await?;
        Ok(BlogList {
            blogs: blogs.into_iter().map(|b| list_item(b, &images)).collect(),
            total: page.total,
            limit: plan.params.limit,
            offset: plan.params.offset,
        })
    }

    /// The body of the page of `plan` made from its posts' fragments: the page's keys, the
    /// fragments held for them, and the missing posts read in one statement and made into
    /// fragments (and kept). `None` when a post of the page left it between the two reads:
    /// the caller reads the page as a whole then.
    async fn list_from_fragments(&self, plan: &ListPlan) -> Result<Option<Bytes>> {
        let project = &plan.project;
        let include_content = plan.params.include_content;
        let page = self
            .store()
            .published_page_keys(project.id, &plan.query())
            .await?;
        let form = if include_content {
            Form::ItemWithContent
        } else {
            Form::Item
        };
        let site = SiteFingerprint::of(project.site_url.as_deref());
        let key = |post| FragmentKey::new(project.id, post, form, site);
        let fragments = self.fragments();
        let mut items: Vec<Option<Bytes>> = page
            .keys
            .iter()
            .map(|post| fragments.get(&key(*post)))
            .collect();
        let missing: Vec<BlogId> = page
            .keys
            .iter()
            .zip(&items)
            .filter(|(_, item)| item.is_none())
            .map(|(post, _)| post.id)
            .collect();
        fragments.count(items.len() - missing.len(), missing.len());
        if !missing.is_empty() {
            let rows = self
                .store()
                .published_by_ids(project.id, &missing, include_content)
                .await?;
            if rows.len() != missing.len() {
                return Ok(None);
            }
            let (posts, mut blogs): (Vec<PostKey>, Vec<PublishedBlog>) = rows.into_iter().unzip();
            if include_content {
                let ctx = self.link_context(project, &blogs).await?;
                for blog in &mut blogs {
                    resolve_body(blog, &ctx);
                }
            }
            let images = self.featured_images(project.id, &blogs).await?;
            let mut made: HashMap<BlogId, Bytes> = HashMap::with_capacity(blogs.len());
            for (post, blog) in posts.into_iter().zip(blogs) {
                let item = to_json(&list_item(blog, &images))?;
                fragments.insert(key(post), item.clone());
                made.insert(post.id, item);
            }
            for (item, post) in items.iter_mut().zip(&page.keys) {
                if item.is_none() {
                    *item = made.remove(&post.id);
                }
            }
        }
        let items: Option<Vec<Bytes>> = items.into_iter().collect();
        Ok(items.map(|items| list_json(&items, page.total, plan.params.limit, plan.params.offset)))
    }

    /// One page of the key's project's published blogs, newest first: the typed list and its
    /// JSON body, from the response cache when this ETag's body is held (see
    /// [`crate::response_cache`] and [`Answer`]).
    pub async fn list_blogs(
        &self,
        caller: &Caller,
        request: impl Into<ListRequest>,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Answer<BlogList>>> {
        let plan = self.plan_list(caller, request).await?;
        self.conditional(&plan.etag, if_none_match, None, self.compute_list(&plan))
            .await
    }

    /// One published blog by slug, links resolved, words counted (typed and as JSON, as
    /// [`Service::list_blogs`]).
    ///
    /// A slug that names no published blog is [`NotFound`] (404) even when `if_none_match`
    /// holds the current ETag: a 304 is only ever given for something that exists.
    pub async fn get_blog(
        &self,
        caller: &Caller,
        slug: &str,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Answer<BlogDetail>>> {
        let project = self.public_project(caller).await?;
        let etag = self.public_etag(&project, &["blog", slug]).await?;
        self.conditional(
            &etag,
            if_none_match,
            Some((&project, slug)),
            self.compute_blog(&project, slug),
        )
        .await
    }

    /// The newest 5000 published blogs' sitemap entries (typed and as JSON, as
    /// [`Service::list_blogs`]).
    pub async fn sitemap(
        &self,
        caller: &Caller,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Answer<Sitemap>>> {
        let project = self.public_project(caller).await?;
        let etag = self.public_etag(&project, &["sitemap"]).await?;
        self.conditional(&etag, if_none_match, None, self.compute_sitemap(&project))
            .await
    }

    /// The ETag of a public answer of `project` (see [`etag`]): the endpoint and its
    /// parameters `parts`, and the public URL the service's images are served under, which
    /// the featured images of the answers are made of.
    async fn public_etag(&self, project: &PublicProject, parts: &[&str]) -> Result<String> {
        let mut parts = parts.to_vec();
        parts.push(self.media_public_url().unwrap_or(""));
        Ok(etag(self.etag_epoch().await?, project, &parts))
    }

    /// The one conditional read every public endpoint goes through: a 304 when
    /// `if_none_match` holds `etag` (for a single blog, only if it still exists: `blog`),
    /// otherwise the body held under `etag` in the response cache, or `compute`'s value with
    /// its body, serialised once (and held).
    async fn conditional<T: serde::Serialize + serde::de::DeserializeOwned, F: Into<Fresh<T>>>(
        &self,
        etag: &str,
        if_none_match: Option<&str>,
        blog: Option<(&PublicProject, &str)>,
        compute: impl std::future::Future<Output = Result<F>>,
    ) -> Result<Conditional<Answer<T>>> {
        if let Some(not_modified) = not_modified(etag, if_none_match) {
            return match blog {
                Some((project, slug)) => self.blog_not_modified(project, slug, not_modified).await,
                None => Ok(not_modified),
            };
        }
        let mut computed = None;
        let body = self
            .responses()
            .get_or_fill(etag, async {
                match compute.await?.into() {
                    Fresh::Value(value) => {
                        let body = to_json(&value)?;
                        computed = Some(value);
                        Ok::<_, crate::Error>(body)
                    }
                    Fresh::Body(body) => Ok(body),
                }
            })
            .await?;
        Ok(Conditional::Fresh {
            etag: etag.to_owned(),
            value: match computed {
                Some(value) => Answer::computed(value, body),
                None => Answer::held(body),
            },
        })
    }

    /// The 304 is only for something that exists; an unknown slug stays 404. A body held
    /// under this ETag proves the blog was published at this content version, and so still
    /// is; otherwise the store is asked.
    async fn blog_not_modified<T>(
        &self,
        project: &PublicProject,
        slug: &str,
        not_modified: Conditional<T>,
    ) -> Result<Conditional<T>> {
        if self.responses().contains(not_modified.etag()) {
            return Ok(not_modified);
        }
        match self.store().published_key_by_slug(project.id, slug).await? {
            Some(_) => Ok(not_modified),
            None => Err(self.not_published(project, slug).await),
        }
    }

    /// The 404 for a slug no published blog has: naming the current slug when it is an old
    /// slug of a published blog (the single-blog endpoint answers only to current slugs).
    async fn not_published(&self, project: &PublicProject, slug: &str) -> crate::Error {
        let renamed = self
            .store()
            .published_aliases(project.id, &[slug.to_owned()])
            .await;
        match renamed {
            Ok(mut found) => match found.remove(slug) {
                Some((current, _)) => NotFound::RenamedBlog { current }.into(),
                None => NotFound::PublishedBlog.into(),
            },
            Err(err) => err,
        }
    }

    /// The single-blog answer of `slug`: from the fragment cache when it is on (the post's
    /// key by slug, then its fragment, or its row made into one and kept), else from its row.
    async fn compute_blog(&self, project: &PublicProject, slug: &str) -> Result<Fresh<BlogDetail>> {
        if !self.fragments().is_enabled() {
            return self.blog_from_row(project, slug).await.map(Fresh::Value);
        }
        let Some(post) = self.store().published_key_by_slug(project.id, slug).await? else {
            return Err(self.not_published(project, slug).await);
        };
        let site = SiteFingerprint::of(project.site_url.as_deref());
        let key = |post| FragmentKey::new(project.id, post, Form::Detail, site);
        if let Some(body) = self.fragments().get(&key(post)) {
            self.fragments().count(1, 0);
            return Ok(Fresh::Body(body));
        }
        self.fragments().count(0, 1);
        let row = self
            .store()
            .published_by_ids(project.id, &[post.id], true)
            .await?
            .into_iter()
            .next()
            // Renamed or unpublished between the two reads: read it as a whole.
            .filter(|(_, blog)| blog.fields.slug().as_str() == slug);
        let Some((post, blog)) = row else {
            return self.blog_from_row(project, slug).await.map(Fresh::Value);
        };
        let blogs = std::slice::from_ref(&blog);
        let ctx = self.link_context(project, blogs).await?;
        let images = self.featured_images(project.id, blogs).await?;
        let body = to_json(&detail(blog, &ctx, &images))?;
        self.fragments().insert(key(post), body.clone());
        Ok(Fresh::Body(body))
    }

    /// The single-blog answer of `slug` made from its row.
    async fn blog_from_row(&self, project: &PublicProject, slug: &str) -> Result<BlogDetail> {
        let Some(blog) = self.store().published_by_slug(project.id, slug).await? else {
            return Err(self.not_published(project, slug).await);
        };
        let blogs = std::slice::from_ref(&blog);
        let ctx = self.link_context(project, blogs).await?;
        let images = self.featured_images(project.id, blogs).await?;
        Ok(detail(blog, &ctx, &images))
    }

    /// What changed in the key's project since a cursor (`docs/public-api.md#changes-feed`):
    /// the published posts whose answer or aliases changed, as the single-blog endpoint
    /// answers them now, and the slugs no published post has any more, in the order to apply
    /// them, with the cursor to go on from (typed and as JSON, as [`Service::list_blogs`]).
    ///
    /// A cursor that does not parse, or of another project or database, is 400; one older
    /// than the deletions kept (see [`Service::with_change_retention`]) is 410.
    pub async fn changes(
        &self,
        caller: &Caller,
        request: impl Into<ChangeRequest>,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Answer<ChangeFeed>>> {
        let project = self.public_project(caller).await?;
        let params = request.into().into_params()?;
        let epoch = self.etag_epoch().await?;
        let since = params
            .since
            .as_deref()
            .map(|text| ChangeCursor::decode(text, epoch, project.id))
            .transpose()
            .map_err(|e| Error::BadRequest(e.to_string()))?;
        let limit = params.limit.to_string();
        let etag = self
            .public_etag(
                &project,
                &["changes", params.since.as_deref().unwrap_or(""), &limit],
            )
            .await?;
        self.conditional(
            &etag,
            if_none_match,
            None,
            self.compute_changes(&project, since, params.limit),
        )
        .await
    }

    async fn compute_changes(
        &self,
        project: &PublicProject,
        since: Option<ChangeCursor>,
        limit: u32,
    ) -> Result<ChangeFeed> {
        let after = since.map_or(ChangePosition::Start, |c| c.position().clone());
        let read = self
            .store()
            .changes(
                project.id,
                &ChangeQuery {
                    after: after.clone(),
                    limit,
                    body_budget: CHANGES_BODY_BUDGET,
                },
            )
            .await?;
        if after != ChangePosition::Start {
            if after.change() > read.head {
                return Err(Error::Gone(
                    "`since` is ahead of this database's changes (was it restored from a backup?); \
                     omit `since` to sync from the start"
                        .to_owned(),
                ));
            }
            if after.change() < read.floor {
                return Err(Error::Gone(format!(
                    "`since` is older than the deletions this server keeps ({} days); omit \
                     `since` to sync from the start",
                    self.change_retention_days()
                )));
            }
        }
        let cursor = match (read.has_more, read.entries.last()) {
            (true, Some((position, _))) => position.clone(),
            _ => ChangePosition::End { change: read.head },
        };
        let mut blogs = Vec::new();
        let mut entries = Vec::with_capacity(read.entries.len());
        for (_, stored) in read.entries {
            match stored {
                StoredChange::Upsert(blog, aliases) => {
                    entries.push(Err((blogs.len(), aliases)));
                    blogs.push(*blog);
                }
                StoredChange::Delete(slug) => entries.push(Ok(ChangeEntry::Delete { slug })),
            }
        }
        let ctx = self.link_context(project, &blogs).await?;
        let images = self.featured_images(project.id, &blogs).await?;
        let mut details: Vec<Option<BlogDetail>> = blogs
            .into_iter()
            .map(|blog| Some(detail(blog, &ctx, &images)))
            .collect();
        let changes = entries
            .into_iter()
            .map(|entry| match entry {
                Ok(delete) => delete,
                Err((at, aliases)) => ChangeEntry::Upsert {
                    blog: Box::new(details[at].take().expect("each detail once")),
                    aliases,
                },
            })
            .collect();
        let epoch = self.etag_epoch().await?;
        Ok(ChangeFeed::new(
            changes,
            ChangeCursor::new(cursor).encode(epoch, project.id),
            read.has_more,
        ))
    }

    /// The redirects of the key's project: the old slugs of its published posts and where
    /// each post lives now, newest rename first, at most 5000 (typed and as JSON, as
    /// [`Service::list_blogs`]).
    pub async fn redirects(
        &self,
        caller: &Caller,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Answer<Redirects>>> {
        let project = self.public_project(caller).await?;
        let etag = self.public_etag(&project, &["redirects"]).await?;
        self.conditional(&etag, if_none_match, None, async {
            let redirects = self.store().redirects(project.id, SITEMAP_CAP).await?;
            Ok(Redirects {
                total: redirects.len() as u64,
                redirects,
            })
        })
        .await
    }

    async fn compute_sitemap(&self, project: &PublicProject) -> Result<Sitemap> {
        let blogs = self.store().sitemap(project.id, SITEMAP_CAP).await?;
        Ok(Sitemap {
            total: blogs.len() as u64,
            blogs,
        })
    }

    /// The link context of a response: every slug referenced by the bodies of `blogs`, looked
    /// up with one store call (none when no body has a placeholder).
    async fn link_context(
        &self,
        project: &PublicProject,
        blogs: &[PublishedBlog],
    ) -> Result<LinkContext> {
        let mut slugs = BTreeSet::new();
        for blog in blogs {
            match (&blog.template, blog.content.as_deref()) {
                (Some(template), _) => slugs.extend(template.slugs().iter().cloned()),
                (None, Some(content)) => referenced_in(content, &mut slugs),
                (None, None) => {}
            }
        }
        self.link_context_for(project.id, project.site_url.as_deref(), slugs)
            .await
    }

    /// The link context of `bodies` in `project`: every slug they reference, looked up with
    /// one store call (none when no body has a placeholder).
    async fn link_context_of<'a>(
        &self,
        project: ProjectId,
        site_url: Option<&str>,
        bodies: impl Iterator<Item = &'a str>,
    ) -> Result<LinkContext> {
        let mut slugs = BTreeSet::new();
        for content in bodies {
            referenced_in(content, &mut slugs);
        }
        self.link_context_for(project, site_url, slugs).await
    }

    /// The link context of a response whose bodies reference `slugs`: one look-up of their
    /// titles (and one of the old slugs among them), none when there is no slug.
    async fn link_context_for(
        &self,
        project: ProjectId,
        site_url: Option<&str>,
        slugs: BTreeSet<String>,
    ) -> Result<LinkContext> {
        if slugs.is_empty() {
            return Ok(LinkContext::new(site_url, HashMap::new()));
        }
        let slugs: Vec<String> = slugs.into_iter().collect();
        let mut published = self.store().published_titles(project, &slugs).await?;
        // Old slugs of renamed posts: asked only for what did not resolve as it is.
        let unresolved: Vec<String> = slugs
            .into_iter()
            .filter(|s| !published.contains_key(s))
            .collect();
        let mut aliases = HashMap::new();
        if !unresolved.is_empty() {
            for (alias, (current, title)) in
                self.store().published_aliases(project, &unresolved).await?
            {
                published.insert(current.clone(), title);
                aliases.insert(alias, current);
            }
        }
        Ok(LinkContext::new(site_url, published).with_aliases(aliases))
    }

    /// A preview of a blog's working copy (agent or admin): its body with the internal links
    /// resolved as the public API resolves them now, so an editor sees what readers will get
    /// once it is published.
    pub async fn preview_blog(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: BlogId,
    ) -> Result<String> {
        let blog = self.blog(caller, project, id).await?;
        let settings = self.existing_project(project).await?;
        let site_url = settings.site_url.as_ref().map(|u| u.as_str());
        let content = blog.working.content();
        let ctx = self
            .link_context_of(project, site_url, std::iter::once(content))
            .await?;
        Ok(links::resolve(content, &ctx).into_owned())
    }
}

/// Adds the slugs `content`'s placeholders reference to `slugs`.
fn referenced_in(content: &str, slugs: &mut BTreeSet<String>) {
    if links::contains_placeholder(content) {
        links::referenced_slugs(content, slugs);
    }
}

/// Puts `blog`'s body, links resolved, in its `content`: its link template filled (a copy and
/// a few writes), or its body resolved in full when it has no template.
fn resolve_body(blog: &mut PublishedBlog, ctx: &LinkContext) {
    if let Some(template) = blog.template.take() {
        blog.content = Some(template.fill(ctx));
    } else if let Some(content) = blog.content.as_mut()
        && let std::borrow::Cow::Owned(resolved) = links::resolve(content, ctx)
    {
        *content = resolved;
    }
}

/// The single-blog answer of `blog`: its body filled from its template (with the word count
/// the template keeps) or resolved in full and counted, and its featured image from `images`.
fn detail(mut blog: PublishedBlog, ctx: &LinkContext, images: &FeaturedImages) -> BlogDetail {
    let (content, words) = match blog.template.take() {
        Some(template) => template.fill_counted(ctx),
        None => {
            resolve_body(&mut blog, ctx);
            let content = blog.content.take().unwrap_or_default();
            let words = word_count(&content);
            (content, words)
        }
    };
    BlogDetail {
        featured_image: images.of(&blog),
        id: blog.id,
        fields: blog.fields,
        published_at: blog.published_at,
        content,
        updated_at: blog.updated_at,
        word_count: words,
    }
}

/// The body of a list page whose items are `items` (each a serialised [`BlogListItem`]): the
/// bytes [`to_json`] writes for the [`BlogList`] of those items.
fn list_json(items: &[Bytes], total: u64, limit: u32, offset: u64) -> Bytes {
    let mut out = Vec::with_capacity(items.iter().map(|i| i.len() + 1).sum::<usize>() + 80);
    out.extend_from_slice(b"{\"blogs\":[");
    for (at, item) in items.iter().enumerate() {
        if at > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.extend_from_slice(
        format!("],\"total\":{total},\"limit\":{limit},\"offset\":{offset}}}").as_bytes(),
    );
    Bytes::from(out)
}

/// The list item of `b`, its featured image from `images`.
fn list_item(b: PublishedBlog, images: &FeaturedImages) -> BlogListItem {
    BlogListItem {
        featured_image: images.of(&b),
        id: b.id,
        fields: b.fields,
        published_at: b.published_at,
        content: b.content,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{BlogFields, BlogInput, Timestamp};

    proptest::proptest! {
        /// A page put together from its items' fragments is byte for byte the page
        /// serialised as a whole, whatever the items hold and however many there are.
        #[test]
        fn a_page_of_fragments_is_the_page_serialised_whole(
            titles in proptest::collection::vec("(\\PC|[\u{0}-\u{1f}\"\\\\])*", 0..4),
            content in proptest::option::of(".*"),
            numbers in proptest::array::uniform3(proptest::num::u64::ANY),
        ) {
            let items: Vec<BlogListItem> = titles
                .iter()
                .map(|title| BlogListItem {
                    id: BlogId::generate(),
                    fields: BlogFields::from_published(BlogInput {
                        title: Some(title.clone()),
                        slug: Some("a-slug".into()),
                        categories: Some(titles.clone()),
                        ..Default::default()
                    })
                    .expect("a valid slug"),
                    featured_image: None,
                    published_at: Timestamp::from_unix_seconds(1_700_000_000).unwrap(),
                    content: content.clone(),
                })
                .collect();
            let fragments: Vec<Bytes> = items.iter().map(|i| to_json(i).unwrap()).collect();
            let list = BlogList {
                blogs: items,
                total: numbers[0],
                limit: numbers[1] as u32,
                offset: numbers[2],
            };
            proptest::prop_assert_eq!(
                list_json(&fragments, list.total, list.limit, list.offset),
                to_json(&list).unwrap()
            );
        }
    }
}
