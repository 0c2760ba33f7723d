//! The in-memory store's room of credentials: the public key, agent keys, admin tokens and admin sessions.

use super::*;

impl MemoryStore {
    /// `Store::public_key`.
    pub(super) async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
        Ok(self
            .read()
            .projects
            .get(&project)
            .and_then(|e| e.public_key.clone()))
    }

    /// `Store::put_public_key`.
    pub(super) async fn put_public_key(
        &self,
        project: ProjectId,
        key: &StoredPublicKey,
        mode: KeyWrite,
    ) -> Result<()> {
        let mut inner = self.write();
        let entry = inner.entry(project)?;
        match (mode, &entry.public_key) {
            (KeyWrite::Create, Some(_)) => return Err(Conflict::PublicKeyExists.into()),
            (KeyWrite::Replace, None) => return Err(Error::NotFound(NotFound::PublicKey)),
            _ => {}
        }
        let old = entry.public_key.replace(key.clone());
        if let Some(old) = old {
            inner.public_keys.remove(&old.key.hash());
        }
        inner.public_keys.insert(key.key.hash(), project);
        Ok(())
    }

    /// `Store::delete_public_key`.
    pub(super) async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
        let mut inner = self.write();
        let Some(entry) = inner.projects.get_mut(&project) else {
            return Ok(false);
        };
        match entry.public_key.take() {
            Some(old) => {
                inner.public_keys.remove(&old.key.hash());
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// `Store::project_by_public_key`.
    pub(super) async fn project_by_public_key(
        &self,
        hash: &SecretHash,
    ) -> Result<Option<PublicProject>> {
        let inner = self.read();
        let Some(id) = inner.public_keys.get(hash) else {
            return Ok(None);
        };
        Ok(inner.projects.get(id).and_then(|e| {
            e.project.as_ref().map(|p| PublicProject {
                id: p.id,
                site_url: p.site_url.as_ref().map(|u| u.as_str().to_owned()),
                content_version: e.content_version,
                next_go_live: e.go_lives.first().map(|(at, _)| *at),
            })
        }))
    }

    /// `Store::insert_agent_key`.
    pub(super) async fn insert_agent_key(&self, record: &AgentKeyRecord) -> Result<()> {
        let mut inner = self.write();
        inner.entry(record.project_id)?;
        inner.agent_keys.insert(record.hash, record.clone());
        Ok(())
    }

    /// `Store::agent_keys`.
    pub(super) async fn agent_keys(&self, project: ProjectId) -> Result<Vec<AgentKeyRecord>> {
        let mut keys: Vec<_> = self
            .read()
            .agent_keys
            .values()
            .filter(|k| k.project_id == project)
            .cloned()
            .collect();
        keys.sort_by_key(|k| (k.created_at, k.id));
        Ok(keys)
    }

    /// `Store::delete_agent_key`.
    pub(super) async fn delete_agent_key(
        &self,
        project: ProjectId,
        id: AgentKeyId,
    ) -> Result<bool> {
        let mut inner = self.write();
        let before = inner.agent_keys.len();
        inner
            .agent_keys
            .retain(|_, k| !(k.project_id == project && k.id == id));
        Ok(inner.agent_keys.len() != before)
    }

    /// `Store::agent_key_by_hash`.
    pub(super) async fn agent_key_by_hash(
        &self,
        hash: &SecretHash,
    ) -> Result<Option<AgentKeyRecord>> {
        Ok(self.read().agent_keys.get(hash).cloned())
    }

    /// `Store::insert_admin_token`.
    pub(super) async fn insert_admin_token(&self, record: &AdminTokenRecord) -> Result<()> {
        let mut inner = self.write();
        inner.entry(record.project_id)?;
        inner.admin_tokens.insert(record.hash, record.clone());
        Ok(())
    }

    /// `Store::delete_admin_token`.
    pub(super) async fn delete_admin_token(
        &self,
        project: ProjectId,
        id: AdminTokenId,
    ) -> Result<bool> {
        let mut inner = self.write();
        let before = inner.admin_tokens.len();
        inner
            .admin_tokens
            .retain(|_, t| !(t.project_id == project && t.id == id));
        let deleted = inner.admin_tokens.len() != before;
        if deleted {
            inner
                .sessions
                .retain(|_, s| s.credential != SessionCredential::AdminToken { id, project });
        }
        Ok(deleted)
    }

    /// `Store::admin_token_by_hash`.
    pub(super) async fn admin_token_by_hash(
        &self,
        hash: &SecretHash,
    ) -> Result<Option<AdminTokenRecord>> {
        Ok(self.read().admin_tokens.get(hash).cloned())
    }

    /// `Store::admin_tokens`.
    pub(super) async fn admin_tokens(&self, project: ProjectId) -> Result<Vec<AdminTokenRecord>> {
        let mut tokens: Vec<_> = self
            .read()
            .admin_tokens
            .values()
            .filter(|t| t.project_id == project)
            .cloned()
            .collect();
        tokens.sort_by_key(|t| (t.created_at, t.id));
        Ok(tokens)
    }

    /// `Store::insert_admin_session`.
    pub(super) async fn insert_admin_session(&self, session: &AdminSession) -> Result<()> {
        let mut inner = self.write();
        if let SessionCredential::AdminToken { id, project } = session.credential {
            let exists = inner
                .admin_tokens
                .values()
                .any(|t| t.id == id && t.project_id == project);
            if !exists {
                return Err(Error::NotFound(NotFound::AdminToken));
            }
        }
        inner
            .sessions
            .retain(|_, s| s.expires_at > session.created_at);
        inner.sessions.insert(session.hash, session.clone());
        Ok(())
    }

    /// `Store::admin_session`.
    pub(super) async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>> {
        Ok(self.read().sessions.get(hash).cloned())
    }

    /// `Store::delete_admin_session`.
    pub(super) async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool> {
        Ok(self.write().sessions.remove(hash).is_some())
    }
}
