//! Scheduled publishing: recording go-lives, and the scheduler that does it on time.
//!
//! A scheduled blog is public from its `published_at` on. Two things record that go-live (the
//! status becomes `published`, the content version goes up, and the deploy hook fires
//! `published` once): the scheduler, woken for the next due time, and any public read of the
//! project after that time, before it answers. So a read one second after go-live shows the
//! post on every instance, and its ETag differs from every ETag issued before, even if no
//! scheduler has run (a go-live that passed while no server ran is recorded by whichever
//! comes first after the start). Each go-live is one [`Store::update_blog`] of one blog with
//! [`lifecycle::go_live`]: the store's row lock (or SQLite's single writer) makes the
//! instances that notice the same go-live at once apply it once, and only that write records
//! the firing.
//!
//! [`Store::update_blog`]: crate::store::Store::update_blog

use std::collections::BTreeSet;
use std::time::Duration;

use crate::domain::ProjectId;
use crate::error::{Error, Result};
use crate::lifecycle;

use super::Service;

/// The longest the scheduler sleeps without looking again: another instance may have
/// scheduled an earlier post since (this instance is woken at once for its own).
pub const SCHEDULER_MAX_SLEEP: Duration = Duration::from_secs(30);

impl Service {
    /// Records the go-live of every scheduled blog (of `project`, or of every project) whose
    /// time has come, and fires the deploy hook for each; returns how many this call
    /// recorded (another instance may have recorded some of them first).
    pub async fn go_live_due(&self, project: Option<ProjectId>) -> Result<usize> {
        let now = self.now();
        let due = self.store().due_scheduled(project, now).await?;
        let mut recorded = 0;
        let mut projects = BTreeSet::new();
        for (project, id) in due {
            let change = Box::new(move |b: &mut _| lifecycle::go_live(b, now));
            match self.store().update_blog(project, id, change).await {
                Ok((_, Some(_))) => {
                    recorded += 1;
                    projects.insert(project);
                }
                // Recorded by someone else, or deleted since: nothing to do.
                Ok((_, None)) | Err(Error::NotFound(_)) => {}
                Err(err) => return Err(err),
            }
        }
        for project in projects {
            self.fire_recorded(project).await;
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
