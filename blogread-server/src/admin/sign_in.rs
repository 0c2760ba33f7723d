//! The sign-in page (`sign_in.html`): `Sign in` and `Sign out`.

use std::sync::Arc;

use blogread_core::domain::ADMIN_SESSION_LIFETIME;
use minijinja::context;
use poem::http::{StatusCode, header};
use poem::web::{Data, Form, Query};
use poem::{Request, Response, handler};
use serde::Deserialize;

use super::done::Done;
use super::http::{see_other, session_cookie, set_cookie};
use super::pages::{Admin, status_of};

/// The query of the sign-in page.
#[derive(Debug, Deserialize)]
pub(super) struct HomeQuery {
    /// Present when a session just ended: the page says so.
    ended: Option<String>,
    /// What was done (signed out).
    done: Option<String>,
}

/// The sign-in page, or the projects when already signed in.
#[handler]
pub(super) async fn home(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Query(query): Query<HomeQuery>,
) -> Response {
    if admin.session(req).await.is_ok() {
        return see_other("/admin/projects");
    }
    admin.render(
        StatusCode::OK,
        "sign_in.html",
        context! {
            ended => query.ended.is_some(),
            notice => Done::from_code(query.done.as_deref()).map(Done::message),
        },
    )
}

/// The form of `Sign in`.
#[derive(Debug, Deserialize)]
pub(super) struct SignInForm {
    /// The operator token or a project admin token.
    #[serde(default)]
    token: String,
}

/// `Sign in`: a session cookie and a redirect to the projects, or the form again with why not.
#[handler]
pub(super) async fn sign_in(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Form(form): Form<SignInForm>,
) -> Response {
    match admin.service().sign_in(&form.token).await {
        Ok(session) => {
            let mut resp = Done::SignedIn.see("/admin/projects");
            let cookie = set_cookie(
                session.id.expose_secret(),
                ADMIN_SESSION_LIFETIME.as_secs(),
                admin.secure(req),
            );
            if let Ok(value) = cookie.parse() {
                resp.headers_mut().insert(header::SET_COOKIE, value);
            }
            resp
        }
        // The token field is left empty: a refused credential is never sent back in a page.
        Err(err) => admin.render(
            status_of(&err),
            "sign_in.html",
            context! { error => err.public_detail() },
        ),
    }
}

/// `Sign out`: the session ends in the database, the cookie is cleared, and the browser goes
/// to the sign-in page, which says so.
#[handler]
pub(super) async fn sign_out(req: &Request, admin: Data<&Arc<Admin>>) -> Response {
    if let Some(id) = session_cookie(req.headers())
        && let Err(err) = admin.service().sign_out(&id).await
    {
        return admin.error_page(&err);
    }
    let mut resp = Done::SignedOut.see("/admin/");
    if let Ok(value) = set_cookie("", 0, admin.secure(req)).parse() {
        resp.headers_mut().insert(header::SET_COOKIE, value);
    }
    resp
}
