//! The in-memory store's room of credentials: the public key, agent keys, admin tokens and admin sessions.

use super::*;

#[async_trait]
impl CredentialStore for MemoryStore {
    async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>> {
        Ok(self
            .read()
            .projects
            .get(&project)
            .and_then(|e| e.public_key.clone()))
    }

    async fn put_public_key(
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

    async fn delete_public_key(&self, project: ProjectId) -> Result<bool> {
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

    async fn project_by_public_key(&self, hash: &SecretHash) -> Result<Option<PublicProject>> {
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

    async fn insert_credential(&self, record: &StoredCredential) -> Result<()> {
        let mut inner = self.write();
        inner.entry(record.project_id)?;
        let kind = record.kind();
        // As the SQL stores' unique keys do: a credential of this kind with this id or this
        // hash is a conflict, never silently replaced.
        let taken = inner
            .credentials
            .values()
            .any(|c| c.kind() == kind && (c.id == record.id || c.hash == record.hash));
        if taken {
            return Err(match kind {
                CredentialKind::AgentKey => Conflict::AgentKeyExists,
                CredentialKind::AdminToken => Conflict::AdminTokenExists,
            }
            .into());
        }
        inner
            .credentials
            .insert((kind, record.hash), record.clone());
        Ok(())
    }

    async fn credentials(
        &self,
        kind: CredentialKind,
        project: ProjectId,
    ) -> Result<Vec<StoredCredential>> {
        let mut found: Vec<_> = self
            .read()
            .credentials
            .values()
            .filter(|c| c.kind() == kind && c.project_id == project)
            .cloned()
            .collect();
        found.sort_by_key(|c| (c.created_at, c.id));
        Ok(found)
    }

    async fn delete_credential(
        &self,
        kind: CredentialKind,
        project: ProjectId,
        id: CredentialId,
    ) -> Result<bool> {
        let mut inner = self.write();
        let before = inner.credentials.len();
        inner
            .credentials
            .retain(|_, c| !(c.kind() == kind && c.project_id == project && c.id == id));
        let deleted = inner.credentials.len() != before;
        if deleted && kind == CredentialKind::AdminToken {
            let signed_in = SessionCredential::AdminToken {
                id: id.into(),
                project,
            };
            inner.sessions.retain(|_, s| s.credential != signed_in);
        }
        Ok(deleted)
    }

    async fn credential_by_hash(
        &self,
        kind: CredentialKind,
        hash: &SecretHash,
    ) -> Result<Option<StoredCredential>> {
        Ok(self.read().credentials.get(&(kind, *hash)).cloned())
    }
}

#[async_trait]
impl SessionStore for MemoryStore {
    async fn insert_admin_session(&self, session: &AdminSession) -> Result<()> {
        let mut inner = self.write();
        if let SessionCredential::AdminToken { id, project } = session.credential {
            let exists = inner.credentials.values().any(|c| {
                c.kind() == CredentialKind::AdminToken
                    && c.id == CredentialId::from(id)
                    && c.project_id == project
            });
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

    async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>> {
        Ok(self.read().sessions.get(hash).cloned())
    }

    async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool> {
        Ok(self.write().sessions.remove(hash).is_some())
    }
}
