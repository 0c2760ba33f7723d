//! The in-memory store's room of projects: create, read, page, update; the ETag epoch.

use super::*;

#[async_trait]
impl DatabaseStore for MemoryStore {
    async fn ping(&self) -> Result<()> {
        Ok(())
    }

    async fn etag_epoch(&self) -> Result<String> {
        Ok(self.etag_epoch.clone())
    }
}

#[async_trait]
impl ProjectStore for MemoryStore {
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
}
