//! Firing the deploy hook: one background POST per visible-content event, recorded in the
//! delivery log, never retried, never failing the write that caused it; and a tracker of the
//! firings in flight, so that tests can await them and a server can drain them on shutdown.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::domain::{Delivery, DeliveryId, PendingFiring, ProjectId, Trigger};
use crate::hook::{DeployHookUrl, HookOutcome, Notifier};
use crate::service::Service;

/// Counts deploy hook firings in flight.
#[derive(Clone)]
pub(crate) struct Firings {
    count: Arc<watch::Sender<usize>>,
}

impl Default for Firings {
    fn default() -> Self {
        Self {
            count: Arc::new(watch::channel(0).0),
        }
    }
}

/// Decrements the in-flight count when a firing ends, however it ends.
struct InFlight(Arc<watch::Sender<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Firings {
    fn start(&self) -> InFlight {
        self.count.send_modify(|n| *n += 1);
        InFlight(self.count.clone())
    }

    /// Waits until no firing is in flight, at most `timeout`; true when none is left.
    pub(crate) async fn wait_idle(&self, timeout: Duration) -> bool {
        let mut rx = self.count.subscribe();
        tokio::time::timeout(timeout, rx.wait_for(|n| *n == 0))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

/// How long after its claim a firing that was never completed counts as abandoned (its process
/// died during the POST), beyond the notifier's own time-out.
const ABANDONED_AFTER: Duration = Duration::from_secs(60);

/// The delivery recorded for a firing whose process died while attempting it.
const OUTCOME_UNKNOWN: &str = "outcome unknown: the server stopped while this firing was in flight; not retried (a firing is attempted at most once)";

impl Service {
    /// Attempts, in the background when a tokio runtime is running (the write returns without
    /// waiting), else inline, the firings that writes to `project` recorded and nobody has
    /// claimed yet: the one the caller's write just recorded, and any other.
    pub(crate) async fn fire_recorded(&self, project: ProjectId) {
        let guard = self.firings().start();
        let service = self.clone();
        let task = async move {
            let _guard = guard;
            service.attempt_unclaimed(Some(project)).await;
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
            let delivery = self
                .deliver(firing.project, firing.trigger, Some(firing.slug.clone()))
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
        let guard = self.firings().start();
        let service = self.clone();
        let task = async move {
            let _guard = guard;
            service.attempt_claimed(claimed).await;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(task);
            }
            Err(_) => task.await,
        }
        Ok(resumed)
    }

    /// One firing, recorded in the delivery log: see [`Service::deliver`].
    pub(crate) async fn fire_now(
        &self,
        project: ProjectId,
        trigger: Trigger,
        slug: Option<String>,
    ) -> Option<HookOutcome> {
        let (outcome, delivery) = self.deliver(project, trigger, slug).await?;
        if let Err(err) = self.store().record_delivery(project, &delivery).await {
            tracing::error!(%project, %trigger, error = %err, "could not record a deploy hook delivery");
        }
        Some(outcome)
    }

    /// One firing: loads the saved URL, validates it again, POSTs and logs (host only).
    /// Returns the outcome and the delivery to record, or `None` when the project has no hook
    /// (any more).
    async fn deliver(
        &self,
        project: ProjectId,
        trigger: Trigger,
        slug: Option<String>,
    ) -> Option<(HookOutcome, Delivery)> {
        let saved = match self.store().deploy_hook(project).await {
            Ok(saved) => saved?,
            Err(err) => {
                tracing::error!(%project, %trigger, error = %err, "could not read the deploy hook");
                return None;
            }
        };
        let attempted_at = self.now();
        let outcome = match DeployHookUrl::parse(&saved) {
            Ok(url) => {
                let outcome = self.notifier().notify(&url).await;
                log_outcome(project, trigger, url.host(), &outcome);
                outcome
            }
            Err(rule) => {
                let outcome = HookOutcome {
                    success: false,
                    status_code: 0,
                    message: format!("refused by the address rules: {rule}"),
                    duration: Duration::ZERO,
                };
                log_outcome(project, trigger, "(invalid URL)", &outcome);
                outcome
            }
        };
        let delivery = Delivery::new(
            DeliveryId::generate(),
            trigger,
            slug,
            attempted_at,
            outcome.success,
            outcome.status_code,
            outcome.message.clone(),
            u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
        );
        Some((outcome, delivery))
    }
}

fn log_outcome(project: ProjectId, trigger: Trigger, host: &str, outcome: &HookOutcome) {
    let ms = outcome.duration.as_millis();
    if outcome.success {
        tracing::info!(%project, %trigger, host, status = outcome.status_code, ms, "deploy hook fired");
    } else {
        tracing::warn!(
            %project, %trigger, host, status = outcome.status_code, ms,
            message = %outcome.message, "deploy hook failed"
        );
    }
}

/// A notifier that could not be built: every firing fails with the reason, so the failure
/// shows in the delivery log instead of firings silently going nowhere.
pub(crate) struct UnavailableNotifier(pub(crate) String);

#[async_trait::async_trait]
impl Notifier for UnavailableNotifier {
    async fn notify(&self, _url: &DeployHookUrl) -> HookOutcome {
        HookOutcome {
            success: false,
            status_code: 0,
            message: format!("unreachable: {}", self.0),
            duration: Duration::ZERO,
        }
    }
}
