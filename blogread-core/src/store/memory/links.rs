//! The in-memory store's room of link targets, placeholder lists and the bodies that name a slug.

use super::*;

#[async_trait]
impl LinkStore for MemoryStore {
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
