//! The in-memory store's room of the deploy hook, its deliveries and pending firings.

use super::*;

#[async_trait]
impl FiringStore for MemoryStore {
    async fn deploy_hook(&self, project: ProjectId) -> Result<Option<String>> {
        Ok(self
            .read()
            .projects
            .get(&project)
            .and_then(|e| e.hook.clone()))
    }

    async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()> {
        self.write().entry(project)?.hook = url.map(str::to_owned);
        Ok(())
    }

    async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()> {
        let mut inner = self.write();
        let log = &mut inner.entry(project)?.deliveries;
        log.push_front(delivery.clone());
        log.truncate(DELIVERY_LOG_LEN);
        Ok(())
    }

    async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>> {
        Ok(self
            .read()
            .projects
            .get(&project)
            .map(|e| e.deliveries.iter().cloned().collect())
            .unwrap_or_default())
    }

    async fn claim_firings(
        &self,
        project: Option<ProjectId>,
        now: Timestamp,
    ) -> Result<Vec<PendingFiring>> {
        let mut inner = self.write();
        let mut claimed = Vec::new();
        for (firing, claimed_at) in &mut inner.firings {
            if claimed_at.is_none() && project.is_none_or(|p| p == firing.project) {
                *claimed_at = Some(now);
                claimed.push(firing.clone());
            }
        }
        Ok(claimed)
    }

    async fn stale_firings(&self, claimed_before: Timestamp) -> Result<Vec<PendingFiring>> {
        Ok(self
            .read()
            .firings
            .iter()
            .filter(|(_, at)| at.is_some_and(|at| at < claimed_before))
            .map(|(f, _)| f.clone())
            .collect())
    }

    async fn complete_firing(
        &self,
        firing: &PendingFiring,
        delivery: Option<&Delivery>,
    ) -> Result<bool> {
        let mut inner = self.write();
        let before = inner.firings.len();
        inner.firings.retain(|(f, _)| f.id != firing.id);
        if inner.firings.len() == before {
            return Ok(false);
        }
        if let (Some(delivery), Some(entry)) = (delivery, inner.projects.get_mut(&firing.project)) {
            entry.deliveries.push_front(delivery.clone());
            entry.deliveries.truncate(DELIVERY_LOG_LEN);
        }
        Ok(true)
    }
}
