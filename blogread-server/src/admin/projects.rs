//! The projects page (`projects.html`): every project for the operator, with `Create
//! project`; its own project for a project admin.

use std::sync::Arc;

use blogread_core::auth::Principal;
use blogread_core::service::SignedIn;
use minijinja::{Value, context};
use poem::http::StatusCode;
use poem::web::{Data, Form, Query};
use poem::{Request, Response, handler};
use serde::Deserialize;

use super::done::Done;
use super::pages::{Admin, DoneQuery, ProjectRow, errors, me, optional_url, status_of};

/// A project's name and site URL, as `Create project` and `Save settings` post them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ProjectForm {
    /// The name.
    pub(super) name: String,
    /// The site URL; blank for none.
    pub(super) site_url: String,
}

/// The projects page, with what `create` holds for the `Create project` form (a refused
/// attempt: what was typed and why not) and what an action did (`done`).
async fn projects_page(
    admin: &Admin,
    signed_in: &SignedIn,
    status: StatusCode,
    create: Value,
    done: Option<Done>,
) -> Response {
    let service = admin.service();
    let projects = match signed_in.principal {
        Principal::ProjectAdmin(project) => service
            .project(&signed_in.caller, project)
            .await
            .map(|p| vec![p]),
        _ => service.projects(&signed_in.caller).await,
    };
    match projects {
        Ok(projects) => admin.render(
            status,
            "projects.html",
            context! {
                me => me(signed_in),
                projects => projects.iter().map(ProjectRow::from).collect::<Vec<_>>(),
                create => create,
                notice => done.map(Done::message),
            },
        ),
        Err(err) => admin.error_page(&err),
    }
}

/// The projects: every project for the operator (with Create), its own for a project admin.
#[handler]
pub(super) async fn list_projects(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Query(query): Query<DoneQuery>,
) -> Response {
    let signed_in = match admin.session(req).await {
        Ok(s) => s,
        Err(resp) => return resp,
    };
    projects_page(
        &admin,
        &signed_in,
        StatusCode::OK,
        Value::UNDEFINED,
        query.done(),
    )
    .await
}

/// `Create project` (operator), and a redirect to its settings page.
#[handler]
pub(super) async fn create_project(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Form(form): Form<ProjectForm>,
) -> Response {
    let signed_in = match admin.session(req).await {
        Ok(s) => s,
        Err(resp) => return resp,
    };
    let site = optional_url(&form.site_url);
    match admin
        .service()
        .create_project(&signed_in.caller, form.name.clone(), site)
        .await
    {
        Ok(project) => Done::ProjectCreated.see(&format!("/admin/projects/{}", project.id)),
        Err(err) => {
            let ProjectForm { name, site_url } = form;
            let create = context! { name => name, site_url => site_url, errors => errors(&err) };
            projects_page(&admin, &signed_in, status_of(&err), create, None).await
        }
    }
}
