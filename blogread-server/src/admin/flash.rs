//! The session's flash: what an action shows once on the page it redirects to, and must not
//! carry in that page's URL (a new agent key or admin token, the public key after Reveal,
//! Generate or Rotate, the deploy hook URL after Reveal, a hook test's outcome).
//!
//! The action stores it here, bound to its session (keyed by the session's form token, which
//! only that session's pages hold) and to the page and action it is for; the `GET` of that page
//! takes it out, so a reload of the page, another tab or another session finds nothing and the
//! page says the value was shown once ([`Done::once_gone`]). A value not taken within
//! [`LIFETIME`] is dropped; at most [`MAX_FLASHES`] are kept (one a session), the oldest
//! dropped first. The flash is in the memory of the instance that did the action: behind a
//! load balancer, the redirect's `GET` must reach the same instance (sticky sessions) for the
//! value to show; elsewhere the page says it was shown once.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use blogread_core::domain::ProjectId;
use serde::Serialize;

use super::done::Done;

/// How long a flash waits for its `GET` (the browser follows the redirect at once).
pub(super) const LIFETIME: Duration = Duration::from_secs(120);

/// At most this many flashes are kept.
pub(super) const MAX_FLASHES: usize = 4096;

/// What a settings page action shows once.
#[derive(Debug, Default, Serialize)]
pub(super) struct OneTime {
    /// The public key, after Reveal, Generate or Rotate.
    pub(super) key: Option<String>,
    /// The full deploy hook URL is shown, after Reveal.
    pub(super) hook_revealed: bool,
    /// The outcome of `Test`.
    pub(super) test: Option<TestShown>,
    /// A credential shown once: (what, value).
    pub(super) once: Option<(String, String)>,
}

impl OneTime {
    /// Whether there is nothing to show.
    pub(super) fn is_empty(&self) -> bool {
        self.key.is_none() && !self.hook_revealed && self.test.is_none() && self.once.is_none()
    }
}

/// The outcome of `Test`, as the page shows it.
#[derive(Debug, Serialize)]
pub(super) struct TestShown {
    pub(super) success: bool,
    pub(super) status_code: u16,
    pub(super) message: String,
}

/// One session's flash.
#[derive(Debug)]
struct Flash {
    project: ProjectId,
    done: Done,
    shown: OneTime,
    stored: Instant,
}

/// The flashes of every session (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Flashes {
    by_session: Mutex<HashMap<String, Flash>>,
}

impl Flashes {
    /// Keeps `shown` for the next `GET` of project `project`'s page saying `done`, in the
    /// session whose form token is `session` (replacing what that session had not taken).
    pub(super) fn put(&self, session: &str, project: ProjectId, done: Done, shown: OneTime) {
        if shown.is_empty() {
            return;
        }
        let now = Instant::now();
        let mut flashes = self
            .by_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        flashes.retain(|_, f| now.duration_since(f.stored) < LIFETIME);
        let key = session;
        if flashes.len() >= MAX_FLASHES && !flashes.contains_key(key) {
            let oldest = flashes
                .iter()
                .min_by_key(|(_, f)| f.stored)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                flashes.remove(&oldest);
            }
        }
        flashes.insert(
            key.to_owned(),
            Flash {
                project,
                done,
                shown,
                stored: now,
            },
        );
    }

    /// Takes what the session whose form token is `session` keeps for project `project`'s
    /// page saying `done`, if anything: the next call finds nothing.
    pub(super) fn take(&self, session: &str, project: ProjectId, done: Done) -> Option<OneTime> {
        let mut flashes = self
            .by_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let key = session;
        let flash = flashes.get(key)?;
        if flash.project != project || flash.done != done {
            return None;
        }
        let flash = flashes.remove(key)?;
        (flash.stored.elapsed() < LIFETIME).then_some(flash.shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent_key(value: &str) -> OneTime {
        OneTime {
            once: Some(("New agent key".into(), value.into())),
            ..OneTime::default()
        }
    }

    #[test]
    fn a_flash_is_taken_once_by_its_own_session_page_and_action() {
        let flashes = Flashes::default();
        let project = ProjectId::generate();
        let other_project = ProjectId::generate();
        flashes.put(
            "session-a",
            project,
            Done::AgentKeyCreated,
            agent_key("sk_agent_1"),
        );
        assert!(
            flashes
                .take("session-b", project, Done::AgentKeyCreated)
                .is_none()
        );
        assert!(
            flashes
                .take("session-a", other_project, Done::AgentKeyCreated)
                .is_none()
        );
        assert!(
            flashes
                .take("session-a", project, Done::AdminTokenCreated)
                .is_none()
        );
        let taken = flashes.take("session-a", project, Done::AgentKeyCreated);
        assert_eq!(
            taken.and_then(|t| t.once).map(|o| o.1).as_deref(),
            Some("sk_agent_1")
        );
        assert!(
            flashes
                .take("session-a", project, Done::AgentKeyCreated)
                .is_none(),
            "a reload finds nothing"
        );
    }

    #[test]
    fn a_later_action_replaces_what_its_session_had_not_taken() {
        let flashes = Flashes::default();
        let project = ProjectId::generate();
        flashes.put("s", project, Done::AgentKeyCreated, agent_key("first"));
        flashes.put("s", project, Done::AgentKeyCreated, agent_key("second"));
        let taken = flashes.take("s", project, Done::AgentKeyCreated);
        assert_eq!(
            taken.and_then(|t| t.once).map(|o| o.1).as_deref(),
            Some("second")
        );
        flashes.put("s", project, Done::SettingsSaved, OneTime::default());
        assert!(
            flashes.take("s", project, Done::SettingsSaved).is_none(),
            "nothing to show is not kept"
        );
    }

    #[test]
    fn at_most_max_flashes_are_kept_the_oldest_dropped_first() {
        let flashes = Flashes::default();
        let project = ProjectId::generate();
        for i in 0..=MAX_FLASHES {
            flashes.put(
                &format!("s{i}"),
                project,
                Done::AgentKeyCreated,
                agent_key("k"),
            );
        }
        assert_eq!(flashes.by_session.lock().unwrap().len(), MAX_FLASHES);
        assert!(flashes.take("s0", project, Done::AgentKeyCreated).is_none());
        assert!(
            flashes
                .take(&format!("s{MAX_FLASHES}"), project, Done::AgentKeyCreated)
                .is_some()
        );
    }
}
