//! Firing the deploy hook, given what it needs (the store, the notifier, the time): one POST
//! per recorded firing, its delivery for the log, never retried, never failing the write that
//! caused it; and a tracker of the firings in flight, so that tests can await them and a
//! server can drain them on shutdown. The service decides when to fire (`service/hooks.rs`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::domain::{Delivery, DeliveryId, ProjectId, Timestamp, Trigger};
use crate::hook::{DeployHookUrl, HookOutcome, Notifier};
use crate::store::Store;

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
pub(crate) struct InFlight(Arc<watch::Sender<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Firings {
    pub(crate) fn start(&self) -> InFlight {
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
pub(crate) const ABANDONED_AFTER: Duration = Duration::from_secs(60);

/// The delivery recorded for a firing whose process died while attempting it.
pub(crate) const OUTCOME_UNKNOWN: &str = "outcome unknown: the server stopped while this firing was in flight; not retried (a firing is attempted at most once)";

/// One firing: loads the saved URL, validates it again, POSTs and logs (host only).
/// Returns the outcome and the delivery to record, or `None` when the project has no hook
/// (any more).
pub(crate) async fn deliver(
    store: &dyn Store,
    notifier: &dyn Notifier,
    attempted_at: Timestamp,
    project: ProjectId,
    trigger: Trigger,
    slug: Option<String>,
) -> Option<(HookOutcome, Delivery)> {
    let saved = match store.deploy_hook(project).await {
        Ok(saved) => saved?,
        Err(err) => {
            tracing::error!(%project, %trigger, error = %err, "could not read the deploy hook");
            return None;
        }
    };
    let outcome = match DeployHookUrl::parse(&saved) {
        Ok(url) => {
            let outcome = notifier.notify(&url).await;
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

/// Logs a firing (host only) and counts it: `blogread_deploy_hook_firings_total{outcome,
/// trigger}` and `blogread_deploy_hook_duration_seconds{outcome}`, through the `metrics`
/// facade.
fn log_outcome(project: ProjectId, trigger: Trigger, host: &str, outcome: &HookOutcome) {
    let result = if outcome.success {
        "success"
    } else {
        "failure"
    };
    metrics::counter!(
        "blogread_deploy_hook_firings_total",
        "outcome" => result,
        "trigger" => trigger.as_str()
    )
    .increment(1);
    metrics::histogram!("blogread_deploy_hook_duration_seconds", "outcome" => result)
        .record(outcome.duration.as_secs_f64());
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
