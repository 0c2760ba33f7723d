//! The deploy hook's wire types (SPEC.md 2.5, 2.6; DECISIONS.md 8). The endpoints (SPEC.md
//! 4.4 to 4.7 and the delivery log) are served once the core's hook operations exist.

use blogread_core::domain;
use poem_openapi::Object;

use super::schema::{DateTime, Nullable};

/// The deploy hook (SPEC.md 2.5). The URL is a credential: only project admins see it.
#[derive(Debug, Clone, Object)]
pub struct DeployHook {
    /// The saved URL; `null` when no hook is set.
    pub deploy_hook_url: Nullable<String>,
    /// True when a URL is set.
    pub has_hook: bool,
}

impl From<domain::DeployHookView> for DeployHook {
    fn from(v: domain::DeployHookView) -> Self {
        Self {
            deploy_hook_url: v.deploy_hook_url.into(),
            has_hook: v.has_hook,
        }
    }
}

/// A deploy hook URL to save.
#[derive(Debug, Clone, Object)]
pub struct SaveDeployHook {
    /// A public https URL: at least 20 characters, no whitespace, not pointing at a private or
    /// internal address (checked as sent, not trimmed). Otherwise 422 naming the rule.
    pub deploy_hook_url: String,
}

/// The result of the test operation (SPEC.md 2.6).
#[derive(Debug, Clone, Object)]
pub struct DeployHookTestResult {
    /// True on a 2xx answer.
    pub success: bool,
    /// The status the target answered; 0 when no HTTP answer came (unreachable, refused by
    /// the address rules, timed out).
    pub status_code: u16,
    /// What happened.
    pub message: String,
}

impl From<domain::DeployHookTestResult> for DeployHookTestResult {
    fn from(r: domain::DeployHookTestResult) -> Self {
        Self {
            success: r.success,
            status_code: r.status_code,
            message: r.message,
        }
    }
}

/// What caused a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum Trigger {
    /// A blog was published.
    Published,
    /// A published blog was re-synced.
    Updated,
    /// A blog was unpublished.
    Unpublished,
    /// A published blog was deleted.
    Deleted,
    /// The test operation.
    Test,
}

impl From<domain::Trigger> for Trigger {
    fn from(t: domain::Trigger) -> Self {
        match t {
            domain::Trigger::Published => Self::Published,
            domain::Trigger::Updated => Self::Updated,
            domain::Trigger::Unpublished => Self::Unpublished,
            domain::Trigger::Deleted => Self::Deleted,
            _ => Self::Test,
        }
    }
}

/// One attempt to POST to the deploy hook.
#[derive(Debug, Clone, Object)]
pub struct Delivery {
    /// Id.
    pub id: String,
    /// What caused it.
    pub trigger: Trigger,
    /// The blog concerned; `null` for the test operation.
    pub blog_slug: Nullable<String>,
    /// When it was attempted (UTC).
    pub attempted_at: DateTime,
    /// True on a 2xx answer.
    pub success: bool,
    /// The status the target answered; 0 when no HTTP answer came.
    pub status_code: u16,
    /// What happened.
    pub message: String,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
}

impl From<domain::Delivery> for Delivery {
    fn from(d: domain::Delivery) -> Self {
        Self {
            id: d.id.to_string(),
            trigger: d.trigger.into(),
            blog_slug: d.blog_slug.into(),
            attempted_at: d.attempted_at.into(),
            success: d.success,
            status_code: d.status_code,
            message: d.message,
            duration_ms: d.duration_ms,
        }
    }
}

/// The delivery log: the last 100, newest first.
#[derive(Debug, Clone, Object)]
pub struct DeliveryList {
    /// Deliveries, newest first.
    pub deliveries: Vec<Delivery>,
}
