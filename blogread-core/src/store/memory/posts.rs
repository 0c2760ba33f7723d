//! The in-memory store's room of a post's writes (each under the one lock), the management reads, go-live of scheduled posts.

use super::*;

#[async_trait]
impl PostStore for MemoryStore {
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

    // (This store keeps firings without a time: `at` is the time of the lost slug only.)
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
}
