//! The in-memory store's room of media: each project's stored images.

use super::*;
use crate::domain::{AltText, MediaId, MediaInsert, MediaItem, MediaPage, Sha256Hex};

#[async_trait]
impl MediaStore for MemoryStore {
    async fn insert_media(&self, item: &MediaItem) -> Result<MediaInsert> {
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
    ) -> Result<Option<MediaItem>> {
        let mut inner = self.write();
        Ok(inner
            .media
            .get_mut(&id)
            .filter(|m| m.project_id == project)
            .map(|m| {
                m.alt = alt.clone();
                m.clone()
            }))
    }

    async fn delete_media(&self, project: ProjectId, id: MediaId) -> Result<Option<MediaItem>> {
        let mut inner = self.write();
        if inner
            .media
            .get(&id)
            .is_some_and(|m| m.project_id == project)
        {
            return Ok(inner.media.remove(&id));
        }
        Ok(None)
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
