//! The in-memory store's room of media: each project's stored images.

use super::*;
use crate::domain::{
    AltText, MediaDeletion, MediaId, MediaInsert, MediaItem, MediaPage, MediaUser, Sha256Hex,
};

#[async_trait]
impl MediaStore for MemoryStore {
    async fn insert_media(&self, item: &MediaItem, public_url: &str) -> Result<MediaInsert> {
        let mut inner = self.write();
        inner.entry(item.project_id)?;
        let existing = inner
            .media
            .values()
            .find(|m| m.project_id == item.project_id && m.sha256 == item.sha256);
        if let Some(existing) = existing {
            return Ok(MediaInsert::Existing(existing.clone()));
        }
        if inner.media.contains_key(&item.id) {
            return Err(Conflict::MediaExists.into());
        }
        inner.media.insert(item.id, item.clone());
        inner.stamp_featuring(item.project_id, public_url, &item.sha256)?;
        Ok(MediaInsert::Inserted(item.clone()))
    }

    async fn media(&self, project: ProjectId, id: MediaId) -> Result<Option<MediaItem>> {
        Ok(self
            .read()
            .media
            .get(&id)
            .filter(|m| m.project_id == project)
            .cloned())
    }

    async fn media_by_sha256(
        &self,
        project: ProjectId,
        sha256: &Sha256Hex,
    ) -> Result<Option<MediaItem>> {
        Ok(self
            .read()
            .media
            .values()
            .find(|m| m.project_id == project && &m.sha256 == sha256)
            .cloned())
    }

    async fn media_page(&self, project: ProjectId, limit: u32, offset: u64) -> Result<MediaPage> {
        let inner = self.read();
        let mut items: Vec<&MediaItem> = inner
            .media
            .values()
            .filter(|m| m.project_id == project)
            .collect();
        items.sort_by_key(|m| std::cmp::Reverse((m.created_at, m.id)));
        let total = items.len() as u64;
        let items = items
            .into_iter()
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(limit as usize)
            .cloned()
            .collect();
        Ok(MediaPage { items, total })
    }

    async fn set_media_alt(
        &self,
        project: ProjectId,
        id: MediaId,
        alt: &AltText,
        public_url: &str,
        _at: Timestamp,
    ) -> Result<Option<MediaItem>> {
        let mut inner = self.write();
        let Some(item) = inner.media.get_mut(&id).filter(|m| m.project_id == project) else {
            return Ok(None);
        };
        let changed = item.alt != *alt;
        item.alt = alt.clone();
        let item = item.clone();
        if changed {
            inner.stamp_featuring(project, public_url, &item.sha256)?;
        }
        Ok(Some(item))
    }

    async fn media_by_digests(
        &self,
        project: ProjectId,
        sha256s: &[Sha256Hex],
    ) -> Result<Vec<MediaItem>> {
        Ok(self
            .read()
            .media
            .values()
            .filter(|m| m.project_id == project && sha256s.contains(&m.sha256))
            .cloned()
            .collect())
    }

    async fn delete_media(
        &self,
        project: ProjectId,
        id: MediaId,
        public_url: &str,
    ) -> Result<Option<MediaDeletion>> {
        // The check and the removal are made under the one lock every post write takes.
        let mut inner = self.write();
        let Some(sha256) = inner
            .media
            .get(&id)
            .filter(|m| m.project_id == project)
            .map(|m| m.sha256.clone())
        else {
            return Ok(None);
        };
        let users = inner.users_of(project, public_url, std::slice::from_ref(&sha256));
        if let Some(users) = users.into_values().next() {
            return Ok(Some(MediaDeletion::InUse(users)));
        }
        Ok(inner.media.remove(&id).map(MediaDeletion::Deleted))
    }

    async fn media_users(
        &self,
        project: ProjectId,
        public_url: &str,
        sha256s: &[Sha256Hex],
    ) -> Result<HashMap<Sha256Hex, Vec<MediaUser>>> {
        Ok(self.read().users_of(project, public_url, sha256s))
    }

    async fn media_digests(&self) -> Result<HashMap<(ProjectId, Sha256Hex), u64>> {
        Ok(self
            .read()
            .media
            .values()
            .map(|m| ((m.project_id, m.sha256.clone()), m.stored_bytes()))
            .collect())
    }
}

impl Inner {
    /// The public answers of the published posts of `project` that show the image `sha256`
    /// (under `public_url`) as their featured image changed: they take one change number,
    /// the content version moves, and one `updated` firing is recorded (as the SQL stores
    /// do, see [`MediaStore::set_media_alt`]).
    fn stamp_featuring(
        &mut self,
        project: ProjectId,
        public_url: &str,
        sha256: &Sha256Hex,
    ) -> Result<()> {
        let image = crate::domain::MediaRef {
            base: public_url.to_owned(),
            sha256: sha256.clone(),
        };
        let mut featuring: Vec<(String, BlogId)> = self
            .media_uses
            .iter()
            .filter(|(_, copies)| {
                copies.iter().any(|(copy, uses)| {
                    *copy == BodyCopy::Published && uses.get(&image) == Some(&true)
                })
            })
            .filter_map(|(id, _)| {
                let blog = self.blogs.get(id).filter(|b| b.project_id == project)?;
                let snapshot = blog.state.snapshot()?;
                Some((snapshot.fields.slug().to_string(), *id))
            })
            .collect();
        if featuring.is_empty() {
            return Ok(());
        }
        featuring.sort();
        self.entry(project)?.content_version += 1;
        let n = self.take_change(project)?;
        for (_, id) in &featuring {
            self.change_nos.insert(*id, n);
        }
        let slug = featuring.swap_remove(0).0;
        self.record_project_firing(project, Some(Trigger::Updated), slug);
        Ok(())
    }

    /// [`MediaStore::media_users`] under the lock.
    fn users_of(
        &self,
        project: ProjectId,
        public_url: &str,
        sha256s: &[Sha256Hex],
    ) -> HashMap<Sha256Hex, Vec<MediaUser>> {
        let mut users: HashMap<Sha256Hex, Vec<MediaUser>> = HashMap::new();
        for (id, copies) in &self.media_uses {
            let Some(blog) = self.blogs.get(id).filter(|b| b.project_id == project) else {
                continue;
            };
            let used: std::collections::BTreeSet<&Sha256Hex> = copies
                .iter()
                .flat_map(|(_, uses)| uses.keys())
                .filter(|image| image.base == public_url && sha256s.contains(&image.sha256))
                .map(|image| &image.sha256)
                .collect();
            for sha256 in used {
                users.entry(sha256.clone()).or_default().push(MediaUser {
                    id: blog.id,
                    title: blog.working.title().to_owned(),
                    slug: blog.working.slug().to_string(),
                });
            }
        }
        for list in users.values_mut() {
            list.sort_by(|a, b| (&a.title, a.id).cmp(&(&b.title, b.id)));
        }
        users
    }
}
