//! The deploy hook: its settings, its test, the delivery log, and the firings that writes
//! record (attempted once, in the background; resumed at start).

use crate::auth::{Access, Caller};
use crate::domain::{Delivery, DeployHookTestResult, DeployHookView, ProjectId, Trigger};
use crate::domain::{DeliveryId, PendingFiring};
use crate::error::{Error, FieldError, NotFound, Result};
use crate::firing::{ABANDONED_AFTER, OUTCOME_UNKNOWN, deliver};
use crate::hook::DeployHookUrl;
use crate::hook::HookOutcome;

use super::Service;

impl Service {
    // ---- deploy hook ----

    /// The deploy hook (project admin): the URL is a credential, shown to admins only.
    pub async fn deploy_hook(&self, caller: &Caller, project: ProjectId) -> Result<DeployHookView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        Ok(DeployHookView::new(self.store.deploy_hook(project).await?))
    }

    /// Saves or replaces the deploy hook (project admin). The URL is judged as sent: every
    /// rule of `docs/deploy-hooks.md#what-is-refused-when-the-url-is-saved`, including that
    /// its host resolves to global addresses only; a broken rule is 422 naming it, and nothing is saved.
    pub async fn save_deploy_hook(
        &self,
        caller: &Caller,
        project: ProjectId,
        url: String,
    ) -> Result<DeployHookView> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        let invalid = |e: crate::hook::HookUrlError| Error::Invalid(FieldError::from(e));
        let parsed = DeployHookUrl::parse(&url).map_err(invalid)?;
        parsed
            .vet(self.hook_resolver.as_ref(), self.hook_policy)
            .await
            .map_err(invalid)?;
        self.store.set_deploy_hook(project, Some(&url)).await?;
        Ok(DeployHookView::new(Some(url)))
    }

    /// Removes the deploy hook (project admin); removing none is a success.
    pub async fn remove_deploy_hook(&self, caller: &Caller, project: ProjectId) -> Result<()> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        self.store.set_deploy_hook(project, None).await
    }

    /// Sends one real POST to the saved hook and reports the outcome (project admin); 404
    /// when no hook is saved. The attempt is recorded in the delivery log as `test`.
    pub async fn test_deploy_hook(
        &self,
        caller: &Caller,
        project: ProjectId,
    ) -> Result<DeployHookTestResult> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        let outcome = self
            .fire_now(project, Trigger::Test, None)
            .await
            .ok_or(Error::NotFound(NotFound::DeployHook))?;
        Ok(DeployHookTestResult::new(
            outcome.success,
            outcome.status_code,
            outcome.message,
        ))
    }

    /// The delivery log, newest first, the last 100 (project admin).
    pub async fn deliveries(&self, caller: &Caller, project: ProjectId) -> Result<Vec<Delivery>> {
        self.authorize(caller, Some(project), Access::ProjectAdmin)
            .await?;
        self.existing_project(project).await?;
        self.store.deliveries(project).await
    }

    /// Attempts, in the background when a tokio runtime is running (the write returns without
    /// waiting), else inline, the firings that writes to `project` recorded and nobody has
    /// claimed yet: the one the caller's write just recorded, and any other.
    pub(crate) async fn fire_recorded(&self, project: ProjectId) {
        let service = self.clone();
        self.in_background(async move {
            service.attempt_unclaimed(Some(project)).await;
        })
        .await;
    }

    /// Runs `firing` in the background when a tokio runtime is running (tracked, so that
    /// shutdown waits for it: [`Service::wait_for_firings`]), else inline.
    async fn in_background(&self, firing: impl std::future::Future<Output = ()> + Send + 'static) {
        let guard = self.firings().start();
        let task = async move {
            let _guard = guard;
            firing.await;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(task);
            }
            Err(_) => task.await,
        }
    }

    /// Claims the unclaimed recorded firings (of `project`, or of every project) and
    /// attempts each once, recording its delivery as it forgets it.
    async fn attempt_unclaimed(&self, project: Option<ProjectId>) -> usize {
        let claimed = match self.store().claim_firings(project, self.now()).await {
            Ok(claimed) => claimed,
            Err(err) => {
                // Left recorded: the next write to the project, or the next start, attempts it.
                tracing::error!(error = %crate::error::error_chain(&err), "could not claim deploy hook firings");
                return 0;
            }
        };
        let count = claimed.len();
        self.attempt_claimed(claimed).await;
        count
    }

    /// Attempts claimed firings one after the other, recording each delivery as the firing is
    /// forgotten.
    async fn attempt_claimed(&self, claimed: Vec<PendingFiring>) {
        for firing in &claimed {
            let delivery = deliver(
                self.store(),
                self.notifier(),
                self.now(),
                firing.project,
                firing.trigger,
                Some(firing.slug.clone()),
            )
            .await
            .map(|(_, delivery)| delivery);
            if let Err(err) = self
                .store()
                .complete_firing(firing, delivery.as_ref())
                .await
            {
                tracing::error!(
                    project = %firing.project, trigger = %firing.trigger,
                    error = %crate::error::error_chain(&err),
                    "could not record a deploy hook delivery"
                );
            }
        }
    }

    /// What a server does when it starts: firings recorded by writes that a process which
    /// has since died never attempted are attempted now, once (in the background); firings it
    /// died while attempting are recorded in the delivery log as "outcome unknown", not
    /// retried. Returns how many firings were resumed.
    pub async fn resume_firings(&self) -> crate::Result<usize> {
        let now = self.now();
        let abandoned = (self.notifier().timeout() + ABANDONED_AFTER).as_secs();
        let cutoff = crate::domain::Timestamp::from_unix_seconds(
            now.unix_seconds()
                .saturating_sub(i64::try_from(abandoned).unwrap_or(i64::MAX)),
        )
        .unwrap_or(now);
        for firing in self.store().stale_firings(cutoff).await? {
            let delivery = Delivery::new(
                DeliveryId::generate(),
                firing.trigger,
                Some(firing.slug.clone()),
                now,
                false,
                0,
                OUTCOME_UNKNOWN.to_owned(),
                0,
            );
            if self
                .store()
                .complete_firing(&firing, Some(&delivery))
                .await?
            {
                metrics::counter!(
                    "blogread_deploy_hook_firings_total",
                    "outcome" => "unknown",
                    "trigger" => firing.trigger.as_str()
                )
                .increment(1);
                tracing::warn!(project = %firing.project, trigger = %firing.trigger, "{OUTCOME_UNKNOWN}");
            }
        }
        let claimed = self.store().claim_firings(None, now).await?;
        let resumed = claimed.len();
        if resumed > 0 {
            tracing::info!(
                firings = resumed,
                "attempting deploy hook firings recorded before the last stop"
            );
        }
        let service = self.clone();
        self.in_background(async move {
            service.attempt_claimed(claimed).await;
        })
        .await;
        Ok(resumed)
    }

    /// One firing, recorded in the delivery log: see [`crate::firing::deliver`].
    pub(crate) async fn fire_now(
        &self,
        project: ProjectId,
        trigger: Trigger,
        slug: Option<String>,
    ) -> Option<HookOutcome> {
        let (outcome, delivery) = deliver(
            self.store(),
            self.notifier(),
            self.now(),
            project,
            trigger,
            slug,
        )
        .await?;
        if let Err(err) = self.store().record_delivery(project, &delivery).await {
            tracing::error!(%project, %trigger, error = %err, "could not record a deploy hook delivery");
        }
        Some(outcome)
    }
}
