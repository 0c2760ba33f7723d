//! The deploy hook (`docs/deploy-hooks.md`): a build trigger whose URL
//! is a credential, shown to project admins only, and its delivery log.

use blogread_core::Service;
use blogread_core::domain;
use blogread_core::error::NotFound;
use poem_openapi::param::Path;
use poem_openapi::{Object, OpenApi};
use serde::Deserialize;

use super::auth::ManagementAuth;
use super::common::{ApiTags, NoContent204, Ok200, ok, path_id};
use super::schema::{DateTime, JsonBody, Nullable, PathId};
use crate::error::{self, Reply, reply};

/// The deploy hook. The URL is a credential: only project admins see it.
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
#[derive(Debug, Clone, Object, Deserialize)]
pub struct SaveDeployHook {
    /// A public https URL: at least 20 characters, no whitespace, not pointing at a private or
    /// internal address (checked as sent, not trimmed). Otherwise 422 naming the rule.
    pub deploy_hook_url: String,
}

/// The result of the test operation: one real POST to the saved URL.
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

/// What caused a delivery (a deploy hook firing).
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
    // Described by its enum, `Trigger`: a doc comment here would make the document wrap the
    // reference in `allOf` with a description, which client generators refuse.
    #[allow(missing_docs)]
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

impl From<Vec<domain::Delivery>> for DeliveryList {
    fn from(d: Vec<domain::Delivery>) -> Self {
        Self {
            deliveries: d.into_iter().map(Into::into).collect(),
        }
    }
}

/// The deploy hook endpoints and the delivery log (`docs/deploy-hooks.md#managing-the-hook`).
pub struct DeployHookApi {
    pub(crate) service: Service,
}

#[OpenApi(prefix_path = "/api/v1/projects", tag = "ApiTags::DeployHook")]
impl DeployHookApi {
    /// Get the deploy hook
    ///
    /// Project admins only. With no hook set, `deploy_hook_url` is null and `has_hook` false.
    #[oai(
        path = "/:project_id/deploy-hook",
        method = "get",
        operation_id = "get_deploy_hook"
    )]
    async fn get_deploy_hook(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Ok200<DeployHook>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let v = self.service.deploy_hook(auth.caller(), id).await?;
            Ok(ok(v))
        })
        .await
    }

    /// Save or replace the deploy hook
    ///
    /// The URL must use https, be at least 20 characters, contain no whitespace, and not
    /// point at a private or internal address (its host must resolve to global addresses
    /// only). Otherwise 422 naming the rule, and nothing is saved.
    #[oai(
        path = "/:project_id/deploy-hook",
        method = "put",
        operation_id = "save_deploy_hook"
    )]
    async fn save_deploy_hook(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        body: JsonBody<SaveDeployHook>,
    ) -> Reply<Ok200<DeployHook>, error::ProjectSave> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let v = self
                .service
                .save_deploy_hook(auth.caller(), id, body.0.deploy_hook_url)
                .await?;
            Ok(ok(v))
        })
        .await
    }

    /// Remove the deploy hook
    ///
    /// From then on publishing does not trigger a rebuild until a hook is set again.
    /// Removing when there is none is a success.
    #[oai(
        path = "/:project_id/deploy-hook",
        method = "delete",
        operation_id = "remove_deploy_hook"
    )]
    async fn remove_deploy_hook(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<NoContent204, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            self.service.remove_deploy_hook(auth.caller(), id).await?;
            Ok(NoContent204::NoContent)
        })
        .await
    }

    /// Test the deploy hook
    ///
    /// Sends one real POST to the saved URL (which starts a real build) and reports the
    /// outcome; success means a 2xx answer. Unreachable, refused or timed out: `success`
    /// false, `status_code` 0, and a message saying which. 404 when no hook is saved.
    #[oai(
        path = "/:project_id/deploy-hook/test",
        method = "post",
        operation_id = "test_deploy_hook"
    )]
    async fn test_deploy_hook(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Ok200<DeployHookTestResult>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let r = self.service.test_deploy_hook(auth.caller(), id).await?;
            Ok(ok(r))
        })
        .await
    }

    /// List deploy hook deliveries
    ///
    /// The last 100 attempts, newest first.
    #[oai(
        path = "/:project_id/deploy-hook/deliveries",
        method = "get",
        operation_id = "list_deliveries"
    )]
    async fn deliveries(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Ok200<DeliveryList>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let d = self.service.deliveries(auth.caller(), id).await?;
            Ok(ok(d))
        })
        .await
    }
}
