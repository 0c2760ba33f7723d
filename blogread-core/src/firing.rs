//! Firing the deploy hook: one background POST per visible-content event, recorded in the
//! delivery log, never retried, never failing the write that caused it; and a tracker of the
//! firings in flight, so that tests can await them and a server can drain them on shutdown.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::domain::{Delivery, DeliveryId, ProjectId, Trigger};
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

impl Service {
    /// Fires the project's deploy hook, if it has one, for a committed visible-content event:
    /// in the background when a tokio runtime is running (the write returns without waiting),
    /// else inline.
    pub(crate) async fn fire(&self, project: ProjectId, trigger: Trigger, slug: String) {
        let guard = self.firings().start();
        let service = self.clone();
        let task = async move {
            let _guard = guard;
            service.fire_now(project, trigger, Some(slug)).await;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(task);
            }
            Err(_) => task.await,
        }
    }

    /// One firing: loads the saved URL, validates it again, POSTs, logs (host only) and
    /// records the outcome. Returns `None` when the project has no hook.
    pub(crate) async fn fire_now(
        &self,
        project: ProjectId,
        trigger: Trigger,
        slug: Option<String>,
    ) -> Option<HookOutcome> {
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
        if let Err(err) = self.store().record_delivery(project, &delivery).await {
            tracing::error!(%project, %trigger, error = %err, "could not record a deploy hook delivery");
        }
        Some(outcome)
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
