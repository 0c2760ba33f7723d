//! Projects and their admin tokens (`docs/management-api.md#projects` and `#admin-tokens`).

use blogread_core::Service;
use blogread_core::domain;
use blogread_core::error::NotFound;
use blogread_core::read::RawListParams;
use blogread_core::service::{
    IssuedAdminToken as CoreIssuedAdminToken, ProjectList as CoreProjectList, ProjectUpdate,
};
use poem_openapi::param::{Path, Query};
use poem_openapi::types::{Example, MaybeUndefined};
use poem_openapi::{Object, OpenApi};
use serde::Deserialize;

use super::auth::ManagementAuth;
use super::common::{ApiTags, Created201, NoContent204, Ok200, created, ok, path_id};
use super::schema::{DateTime, JsonBody, LimitDoc, Nullable, OffsetDoc, PathId, Raw, raw};
use crate::error::{self, Reply, reply};

/// A project.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct Project {
    /// Id (a UUID).
    pub id: String,
    /// Name, 1 to 200 characters.
    pub name: String,
    /// The website connected to the project, used for internal links, echoed as given;
    /// `null` when none (links are then root-relative, `/blog/<slug>/`).
    pub site_url: Nullable<String>,
    /// Creation time (UTC).
    pub created_at: DateTime,
}

impl From<domain::Project> for Project {
    fn from(p: domain::Project) -> Self {
        Self {
            id: p.id.to_string(),
            name: p.name.as_str().to_owned(),
            site_url: p.site_url.map(|u| u.as_str().to_owned()).into(),
            created_at: p.created_at.into(),
        }
    }
}

impl Example for Project {
    fn example() -> Self {
        Self {
            id: "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f".into(),
            name: "Acme engineering blog".into(),
            site_url: Some("https://www.example.com".to_owned()).into(),
            created_at: DateTime(domain::Timestamp::parse("2026-11-21T09:30:00Z").expect("valid")),
        }
    }
}

/// A page of the projects, oldest first.
#[derive(Debug, Clone, Object)]
pub struct ProjectList {
    /// The page, oldest first (by creation time, then id).
    pub projects: Vec<Project>,
    /// All projects, independent of limit and offset.
    pub total: u64,
    /// The limit applied (1..=100).
    pub limit: u32,
    /// The offset applied.
    pub offset: u64,
}

impl From<CoreProjectList> for ProjectList {
    fn from(l: CoreProjectList) -> Self {
        Self {
            projects: l.projects.into_iter().map(Into::into).collect(),
            total: l.total,
            limit: l.limit,
            offset: l.offset,
        }
    }
}

/// A new project.
#[derive(Debug, Clone, Object, Deserialize)]
pub struct CreateProject {
    /// Name, 1 to 200 characters.
    pub name: String,
    /// The connected website: an absolute http(s) URL of at most 2048 characters; absent or
    /// `null` for none.
    #[serde(default)]
    pub site_url: Option<String>,
}

/// Changes to a project: each field present replaces that setting.
#[derive(Debug, Clone, Object, Deserialize)]
pub struct UpdateProject {
    /// New name, 1 to 200 characters.
    #[serde(default)]
    pub name: Option<String>,
    /// New site URL (absolute http(s) URL), or `null` to clear it; absent leaves it unchanged.
    #[serde(default)]
    pub site_url: MaybeUndefined<String>,
}

/// A new project admin token: shown this once only.
#[derive(Debug, Clone, Object)]
pub struct IssuedAdminToken {
    /// Id, for revoking it.
    pub id: String,
    /// The token (`sk_admin_...`); stored hashed, never shown again.
    pub token: String,
    /// Creation time (UTC).
    pub created_at: DateTime,
}

impl From<CoreIssuedAdminToken> for IssuedAdminToken {
    fn from(t: CoreIssuedAdminToken) -> Self {
        Self {
            id: t.id.to_string(),
            token: t.token,
            created_at: t.created_at.into(),
        }
    }
}

/// Projects and admin tokens.
pub struct ProjectsApi {
    pub(crate) service: Service,
}

#[OpenApi(prefix_path = "/api/v1/projects", tag = "ApiTags::Projects")]
impl ProjectsApi {
    /// Create a project
    ///
    /// Operator only. The project starts with no public key (generate one) and no deploy hook.
    #[oai(path = "/", method = "post", operation_id = "create_project")]
    async fn create_project(
        &self,
        auth: ManagementAuth,
        body: JsonBody<CreateProject>,
    ) -> Reply<Created201<Project>, error::OperatorCreate> {
        reply(async {
            let JsonBody(body) = body;
            let p = self
                .service
                .create_project(auth.caller(), body.name, body.site_url)
                .await?;
            Ok(created(p))
        })
        .await
    }

    /// List the projects
    ///
    /// Operator only (a project admin token is 403). Oldest first, a page at a time; `limit`
    /// and `offset` are clamped like every list's.
    #[oai(path = "/", method = "get", operation_id = "list_projects")]
    async fn list_projects(
        &self,
        auth: ManagementAuth,
        /// Page size: integer 1 to 100, default 50; out-of-range values are clamped.
        limit: Query<Option<Raw<LimitDoc>>>,
        /// Projects to skip: integer >= 0, default 0; negative values are clamped to 0.
        offset: Query<Option<Raw<OffsetDoc>>>,
    ) -> Reply<Ok200<ProjectList>, error::OperatorList> {
        reply(async {
            let params = RawListParams {
                limit: raw(&limit).map(str::to_owned),
                offset: raw(&offset).map(str::to_owned),
                ..Default::default()
            };
            let list = self.service.list_projects(auth.caller(), params).await?;
            Ok(ok(list))
        })
        .await
    }

    /// Get a project
    #[oai(path = "/:project_id", method = "get", operation_id = "get_project")]
    async fn get_project(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Ok200<Project>, error::ProjectRead> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let p = self.service.project(auth.caller(), id).await?;
            Ok(ok(p))
        })
        .await
    }

    /// Update a project
    ///
    /// Changes the name or the site URL. A site URL change changes every resolved internal
    /// link (and so every ETag) of the project.
    #[oai(
        path = "/:project_id",
        method = "patch",
        operation_id = "update_project"
    )]
    async fn update_project(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        body: JsonBody<UpdateProject>,
    ) -> Reply<Ok200<Project>, error::ProjectWrite> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let JsonBody(body) = body;
            let update = ProjectUpdate {
                name: body.name,
                site_url: match body.site_url {
                    MaybeUndefined::Undefined => None,
                    MaybeUndefined::Null => Some(None),
                    MaybeUndefined::Value(v) => Some(Some(v)),
                },
            };
            let p = self
                .service
                .update_project(auth.caller(), id, update)
                .await?;
            Ok(ok(p))
        })
        .await
    }

    /// Create a project admin token
    ///
    /// Operator only. The token is shown in this answer only.
    #[oai(
        path = "/:project_id/admin-tokens",
        method = "post",
        operation_id = "create_admin_token"
    )]
    async fn create_admin_token(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
    ) -> Reply<Created201<IssuedAdminToken>, error::OperatorAction> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let t = self.service.create_admin_token(auth.caller(), id).await?;
            Ok(created(t))
        })
        .await
    }

    /// Revoke a project admin token
    ///
    /// Operator only. Revoking a token that is not there is a success.
    #[oai(
        path = "/:project_id/admin-tokens/:token_id",
        method = "delete",
        operation_id = "delete_admin_token"
    )]
    async fn delete_admin_token(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Admin token id (a UUID).
        token_id: Path<PathId>,
    ) -> Reply<NoContent204, error::OperatorAction> {
        reply(async {
            let project = path_id(&project_id, NotFound::Project)?;
            let token = path_id(&token_id, NotFound::AdminToken)?;
            self.service
                .delete_admin_token(auth.caller(), project, token)
                .await?;
            Ok(NoContent204::NoContent)
        })
        .await
    }
}
