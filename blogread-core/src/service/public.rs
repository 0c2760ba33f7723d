//! The public reads: the list, a single blog and the sitemap, each through one conditional
//! read (ETag, 304, response cache); links resolved and words counted.

use std::collections::BTreeSet;

use bytes::Bytes;

use crate::auth::{Caller, authenticate_public};
use crate::domain::{BlogDetail, BlogList, BlogListItem, PublicProject, PublishedBlog, Sitemap};
use crate::error::{NotFound, Result};
use crate::links::{self, LinkContext};
use crate::read::{
    Conditional, ListParams, ListRequest, SITEMAP_CAP, etag, not_modified, to_json, typed,
};
use crate::store::{PageQuery, category_key};
use crate::word_count::word_count;

use super::Service;

/// What a list request resolved to before any content is read: the project, the applied
/// parameters and the ETag.
struct ListPlan {
    project: PublicProject,
    params: ListParams,
    category: Option<String>,
    etag: String,
}

impl Service {
    /// The project a public request's key belongs to: the one indexed look-up every public
    /// read starts with (401 for a missing, malformed, rotated or revoked key). When one of
    /// the project's scheduled blogs has reached its go-live time, the go-live is recorded
    /// first (see `service/schedule.rs`), so that every answer, and its ETag, includes it.
    pub async fn public_project(&self, caller: &Caller) -> Result<PublicProject> {
        let project = authenticate_public(self.store(), caller).await?;
        match project.next_go_live {
            Some(next) if next <= self.now() => {
                self.go_live_due(Some(project.id)).await?;
                authenticate_public(self.store(), caller).await
            }
            _ => Ok(project),
        }
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
        let etag = etag(
            self.etag_epoch().await?,
            &project,
            &[
                "list",
                &limit,
                &offset,
                category.as_deref().unwrap_or(""),
                if params.include_content { "1" } else { "0" },
            ],
        );
        Ok(ListPlan {
            project,
            params,
            category,
            etag,
        })
    }

    async fn compute_list(&self, plan: &ListPlan) -> Result<BlogList> {
        let page = self
            .store()
            .published_page(
                plan.project.id,
                &PageQuery {
                    limit: plan.params.limit,
                    offset: plan.params.offset,
                    category: plan.category.clone(),
                    include_content: plan.params.include_content,
                },
            )
            .await?;
        let mut blogs = page.blogs;
        if plan.params.include_content {
            let ctx = self.link_context(&plan.project, &blogs).await?;
            for blog in &mut blogs {
                if let Some(content) = blog.content.as_mut() {
                    resolve_in_place(content, &ctx);
                }
            }
        }
        Ok(BlogList {
            blogs: blogs.into_iter().map(list_item).collect(),
            total: page.total,
            limit: plan.params.limit,
            offset: plan.params.offset,
        })
    }

    /// One page of the key's project's published blogs, newest first.
    pub async fn list_blogs(
        &self,
        caller: &Caller,
        request: impl Into<ListRequest>,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<BlogList>> {
        typed(self.list_blogs_json(caller, request, if_none_match).await?)
    }

    /// [`Service::list_blogs`] as the JSON body a server sends, from the response cache when
    /// this ETag's body is held (see [`crate::response_cache`]).
    pub async fn list_blogs_json(
        &self,
        caller: &Caller,
        request: impl Into<ListRequest>,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Bytes>> {
        let plan = self.plan_list(caller, request).await?;
        self.conditional(&plan.etag, if_none_match, None, self.compute_list(&plan))
            .await
    }

    /// One published blog by slug, links resolved, words counted.
    ///
    /// A slug that names no published blog is [`NotFound`] (404) even when `if_none_match`
    /// holds the current ETag: a 304 is only ever given for something that exists.
    pub async fn get_blog(
        &self,
        caller: &Caller,
        slug: &str,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<BlogDetail>> {
        typed(self.get_blog_json(caller, slug, if_none_match).await?)
    }

    /// [`Service::get_blog`] as the JSON body a server sends, from the response cache when
    /// this ETag's body is held (see [`crate::response_cache`]).
    pub async fn get_blog_json(
        &self,
        caller: &Caller,
        slug: &str,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Bytes>> {
        let project = self.public_project(caller).await?;
        let etag = etag(self.etag_epoch().await?, &project, &["blog", slug]);
        self.conditional(
            &etag,
            if_none_match,
            Some((&project, slug)),
            self.compute_blog(&project, slug),
        )
        .await
    }

    /// The newest 5000 published blogs' sitemap entries.
    pub async fn sitemap(
        &self,
        caller: &Caller,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Sitemap>> {
        typed(self.sitemap_json(caller, if_none_match).await?)
    }

    /// [`Service::sitemap`] as the JSON body a server sends, from the response cache when
    /// this ETag's body is held (see [`crate::response_cache`]).
    pub async fn sitemap_json(
        &self,
        caller: &Caller,
        if_none_match: Option<&str>,
    ) -> Result<Conditional<Bytes>> {
        let project = self.public_project(caller).await?;
        let etag = etag(self.etag_epoch().await?, &project, &["sitemap"]);
        self.conditional(&etag, if_none_match, None, self.compute_sitemap(&project))
            .await
    }

    /// The one conditional read every public endpoint goes through: a 304 when
    /// `if_none_match` holds `etag` (for a single blog, only if it still exists: `blog`),
    /// otherwise the body held under `etag` in the response cache, or `compute`'s value
    /// serialised (and held).
    async fn conditional<T: serde::Serialize>(
        &self,
        etag: &str,
        if_none_match: Option<&str>,
        blog: Option<(&PublicProject, &str)>,
        compute: impl std::future::Future<Output = Result<T>>,
    ) -> Result<Conditional<Bytes>> {
        if let Some(not_modified) = not_modified(etag, if_none_match) {
            return match blog {
                Some((project, slug)) => self.blog_not_modified(project, slug, not_modified).await,
                None => Ok(not_modified),
            };
        }
        let body = self
            .responses()
            .get_or_fill(etag, async { to_json(&compute.await?) })
            .await?;
        Ok(Conditional::Fresh {
            etag: etag.to_owned(),
            value: body,
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
        match self.store().published_by_slug(project.id, slug).await? {
            Some(_) => Ok(not_modified),
            None => Err(NotFound::PublishedBlog.into()),
        }
    }

    async fn compute_blog(&self, project: &PublicProject, slug: &str) -> Result<BlogDetail> {
        let mut blog = self
            .store()
            .published_by_slug(project.id, slug)
            .await?
            .ok_or(NotFound::PublishedBlog)?;
        let ctx = self
            .link_context(project, std::slice::from_ref(&blog))
            .await?;
        let mut content = blog.content.take().unwrap_or_default();
        resolve_in_place(&mut content, &ctx);
        let words = word_count(&content);
        Ok(BlogDetail {
            id: blog.id,
            title: blog.title,
            slug: blog.slug,
            excerpt: blog.excerpt,
            meta_title: blog.meta_title,
            meta_description: blog.meta_description,
            featured_image_url: blog.featured_image_url,
            categories: blog.categories,
            tags: blog.tags,
            published_at: blog.published_at,
            content,
            updated_at: blog.updated_at,
            word_count: words,
        })
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
        for content in blogs.iter().filter_map(|b| b.content.as_deref()) {
            if links::contains_placeholder(content) {
                links::referenced_slugs(content, &mut slugs);
            }
        }
        let published = if slugs.is_empty() {
            Default::default()
        } else {
            let slugs: Vec<String> = slugs.into_iter().collect();
            self.store().published_titles(project.id, &slugs).await?
        };
        Ok(LinkContext::new(project.site_url.as_deref(), published))
    }
}

fn resolve_in_place(content: &mut String, ctx: &LinkContext) {
    if let std::borrow::Cow::Owned(resolved) = links::resolve(content, ctx) {
        *content = resolved;
    }
}

fn list_item(b: PublishedBlog) -> BlogListItem {
    BlogListItem {
        id: b.id,
        title: b.title,
        slug: b.slug,
        excerpt: b.excerpt,
        meta_title: b.meta_title,
        meta_description: b.meta_description,
        featured_image_url: b.featured_image_url,
        categories: b.categories,
        tags: b.tags,
        published_at: b.published_at,
        content: b.content,
    }
}
