//! Scheduled publishing: recording go-lives, and the scheduler that does it on time.
//!
//! A scheduled blog is public from its `published_at` on. Two things record that go-live (the
//! status becomes `published`, the content version goes up, and the deploy hook fires
//! `published` once): the scheduler, woken for the next due time, and any public read of the
//! project after that time, before it answers. So a read one second after go-live shows the
//! post on every instance, and its ETag differs from every ETag issued before, even if no
//! scheduler has run (a go-live that passed while no server ran is recorded by whichever
//! comes first after the start).
//!
//! A project's due blogs go live together, in one transaction of the store
//! ([`PostStore::go_live`]), set-based: 400 posts scheduled for the same second cost one write,
//! not 400. The store holds the due rows while it writes (or SQLite's single writer does), so
//! instances that notice the same go-live at once record it once, and only that write records
//! the firings. Within one instance, the reads of a project that find a go-live due take
//! turns ([`GoLiveGate`]): one records it, the others wait for that (at most
//! [`GO_LIVE_WAIT`]) and then find nothing left to do; reads of other projects never wait.
//!
//! [`PostStore::go_live`]: crate::store::PostStore::go_live

use std::hash::{Hash, Hasher};
use std::time::Duration;

use crate::domain::ProjectId;
use crate::error::Result;

use super::Service;

/// The longest a read waits for another read of its project to record a go-live before it
/// records it itself (the store makes the second attempt a no-op).
pub const GO_LIVE_WAIT: Duration = Duration::from_secs(5);

/// Stripes of [`GoLiveGate`]: a project's reads take turns at a go-live; two projects share a
/// stripe rarely, and then only at the moment both go live.
const GATE_STRIPES: usize = 64;

/// Per-project turns at recording a go-live within one instance (striped locks, so that
/// memory does not grow with the number of projects).
#[derive(Debug)]
pub(crate) struct GoLiveGate {
    stripes: Box<[tokio::sync::Mutex<()>]>,
}

impl Default for GoLiveGate {
    fn default() -> Self {
        Self {
            stripes: (0..GATE_STRIPES)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
        }
    }
}

impl GoLiveGate {
    /// Waits for `project`'s turn, at most `wait`; `None` when the wait ran out.
    pub(crate) async fn turn(
        &self,
        project: ProjectId,
        wait: Duration,
    ) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        project.hash(&mut hasher);
        let stripe = &self.stripes[(hasher.finish() as usize) % self.stripes.len()];
        tokio::time::timeout(wait, stripe.lock()).await.ok()
    }
}

/// The longest the scheduler sleeps without looking again: another instance may have
/// scheduled an earlier post since (this instance is woken at once for its own).
pub const SCHEDULER_MAX_SLEEP: Duration = Duration::from_secs(30);

impl Service {
    /// Records the go-live of every scheduled blog (of `project`, or of every project) whose
    /// time has come, and fires the deploy hook for each; returns how many this call
    /// recorded (another instance may have recorded some of them first).
    pub async fn go_live_due(&self, project: Option<ProjectId>) -> Result<usize> {
        let now = self.now();
        let projects = match project {
            Some(project) => vec![project],
            None => self.store().projects_due(now).await?,
        };
        let mut recorded = 0;
        for project in projects {
            let went_live = self.store().go_live(project, now).await?;
            if went_live > 0 {
                recorded += usize::try_from(went_live).unwrap_or(usize::MAX);
                self.fire_recorded(project).await;
            }
        }
        Ok(recorded)
    }

    /// Wakes the scheduler at once: a blog was scheduled, so the next go-live may be earlier
    /// than the one it sleeps for.
    pub(crate) fn schedule_changed(&self) {
        self.scheduler_wake().notify_one();
    }

    /// Runs the scheduler until the future is dropped: records every go-live that has passed
    /// (at once, for those that passed while nothing ran), then sleeps until the next one
    /// (at most [`SCHEDULER_MAX_SLEEP`], or until this service schedules a blog) and does it
    /// again. Store errors are logged and retried after a pause; they never end the loop.
    /// The server spawns it; an application embedding the core spawns it the same way or
    /// relies on reads, which record a passed go-live themselves.
    pub async fn run_scheduler(&self) {
        loop {
            let pause = match self.scheduler_step().await {
                Ok(pause) => pause,
                Err(err) => {
                    tracing::error!(
                        error = %crate::error::error_chain(&err),
                        "the scheduler could not record go-lives; trying again in 5 s"
                    );
                    Duration::from_secs(5)
                }
            };
            let _ = tokio::time::timeout(pause, self.scheduler_wake().notified()).await;
        }
    }

    /// One round of the scheduler: records what is due and says how long to sleep.
    async fn scheduler_step(&self) -> Result<Duration> {
        let recorded = self.go_live_due(None).await?;
        if recorded > 0 {
            tracing::info!(recorded, "scheduled blogs went live");
        }
        if self.prune_due() {
            let pruned = self.prune_changes().await?;
            if pruned > 0 {
                tracing::info!(pruned, "forgot changes-feed deletions past the retention");
            }
        }
        let pause = match self.store().next_go_live().await? {
            None => SCHEDULER_MAX_SLEEP,
            Some(next) => {
                let seconds = next.unix_seconds() - self.now().unix_seconds();
                // Times are whole seconds: wake just after the second starts.
                Duration::from_secs(u64::try_from(seconds).unwrap_or(0))
                    .saturating_add(Duration::from_millis(50))
                    .min(SCHEDULER_MAX_SLEEP)
            }
        };
        Ok(pause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_projects_reads_take_turns_at_a_go_live_and_other_projects_do_not_wait() {
        let gate = GoLiveGate::default();
        let (a, b) = (ProjectId::generate(), ProjectId::generate());
        let held = gate.turn(a, GO_LIVE_WAIT).await.expect("free");
        assert!(
            gate.turn(a, Duration::from_millis(20)).await.is_none(),
            "the same project waits for the turn"
        );
        // Another project gets its turn at once, unless it shares the stripe.
        let stripe = |p: ProjectId| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            p.hash(&mut hasher);
            (hasher.finish() as usize) % GATE_STRIPES
        };
        if stripe(a) != stripe(b) {
            assert!(gate.turn(b, Duration::from_millis(20)).await.is_some());
        }
        drop(held);
        assert!(
            gate.turn(a, Duration::from_millis(20)).await.is_some(),
            "then it is free"
        );
    }
}
