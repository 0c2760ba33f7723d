//! The deploy hook's delivery log and test result (`docs/deploy-hooks.md`).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::ids::{DeliveryId, FiringId, ProjectId};
use super::time::Timestamp;

/// A deploy hook firing recorded in the same transaction as the write that caused it (an
/// outbox row), so that a process that dies before attempting it leaves it to the next start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingFiring {
    /// Its id.
    pub id: FiringId,
    /// The project whose hook fires.
    pub project: ProjectId,
    /// What caused it.
    pub trigger: Trigger,
    /// The published slug concerned.
    pub slug: String,
}

/// What caused a deploy hook firing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// A blog was published.
    Published,
    /// A published blog was re-synced.
    Updated,
    /// A published blog was unpublished.
    Unpublished,
    /// A published blog was deleted.
    Deleted,
    /// The test operation.
    Test,
}

impl Trigger {
    /// The wire and storage name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Trigger::Published => "published",
            Trigger::Updated => "updated",
            Trigger::Unpublished => "unpublished",
            Trigger::Deleted => "deleted",
            Trigger::Test => "test",
        }
    }

    /// Reads a stored name back.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "published" => Trigger::Published,
            "updated" => Trigger::Updated,
            "unpublished" => Trigger::Unpublished,
            "deleted" => Trigger::Deleted,
            "test" => Trigger::Test,
            _ => return None,
        })
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One attempt to POST to a deploy hook, as kept in the delivery log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Delivery {
    /// Id.
    pub id: DeliveryId,
    /// What caused it.
    pub trigger: Trigger,
    /// The blog concerned (`null` for the test operation).
    pub blog_slug: Option<String>,
    /// When it was attempted.
    pub attempted_at: Timestamp,
    /// True on a 2xx answer.
    pub success: bool,
    /// The status the target answered, 0 when no HTTP answer came.
    pub status_code: u16,
    /// What happened, for people.
    pub message: String,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
}

impl Delivery {
    /// A delivery record.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: DeliveryId,
        trigger: Trigger,
        blog_slug: Option<String>,
        attempted_at: Timestamp,
        success: bool,
        status_code: u16,
        message: String,
        duration_ms: u64,
    ) -> Self {
        Self {
            id,
            trigger,
            blog_slug,
            attempted_at,
            success,
            status_code,
            message,
            duration_ms,
        }
    }
}

/// How many deliveries a project's log keeps.
pub const DELIVERY_LOG_LEN: usize = 100;

/// The deploy hook as shown to a project admin (`docs/deploy-hooks.md#managing-the-hook`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeployHookView {
    /// The saved URL, `null` when none is set. A credential: shown only to project admins.
    pub deploy_hook_url: Option<String>,
    /// True when a URL is set.
    pub has_hook: bool,
}

impl DeployHookView {
    /// The view of a saved URL or of none.
    pub fn new(url: Option<String>) -> Self {
        Self {
            has_hook: url.is_some(),
            deploy_hook_url: url,
        }
    }
}

/// The result of the test operation (`docs/deploy-hooks.md#test-operation`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeployHookTestResult {
    /// True on a 2xx answer.
    pub success: bool,
    /// The status the target answered; 0 when no HTTP answer came.
    pub status_code: u16,
    /// What happened.
    pub message: String,
}

impl DeployHookTestResult {
    /// A test result.
    pub fn new(success: bool, status_code: u16, message: String) -> Self {
        Self {
            success,
            status_code,
            message,
        }
    }
}
