//! The in-memory store's room of the public reads: pages, single posts, sitemap, redirects, aliases and titles.

use super::*;

#[async_trait]
impl PublicStore for MemoryStore {
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
}
