//! What the pages share: the service, the compiled templates, the session of a request, the
//! error page, and the small conversions every page uses. Each page has a module of its own,
//! named after its template (`sign_in`, `projects`, `project`, `posts`, `post`, `links`, `media`): its handlers
//! read the session and a typed form, call the [`Service`] operation the management API
//! calls, and render the page with the answer.

use std::collections::BTreeMap;

use blogread_core::Error as CoreError;
use blogread_core::Service;
use blogread_core::auth::Principal;
use blogread_core::domain::{BlogId, Project, ProjectId, Timestamp};
use blogread_core::error::{Forbidden, NotFound};
use blogread_core::service::SignedIn;
use minijinja::{Environment, Value, context};
use poem::http::{StatusCode, header};
use poem::{Request, Response};
use serde::Serialize;

use super::done::Done;
use super::flash::Flashes;
use super::http::{self, html, see_other, session_cookie, set_cookie};

/// Every template the pages render, by name.
pub(super) const TEMPLATES: [(&str, &str); 8] = [
    ("base.html", include_str!("templates/base.html")),
    ("sign_in.html", include_str!("templates/sign_in.html")),
    ("projects.html", include_str!("templates/projects.html")),
    ("project.html", include_str!("templates/project.html")),
    ("posts.html", include_str!("templates/posts.html")),
    ("post.html", include_str!("templates/post.html")),
    ("links.html", include_str!("templates/links.html")),
    ("media.html", include_str!("templates/media.html")),
];

/// What the pages share: the service, the compiled templates and the sessions' flashes.
pub(super) struct Admin {
    service: Service,
    templates: Environment<'static>,
    /// What actions show once on the page they redirect to (see `flash.rs`).
    flashes: Flashes,
    /// The server's public URL is https: the cookie is `Secure` whatever the request says.
    public_https: bool,
}

impl Admin {
    pub(super) fn new(service: Service, public_https: bool) -> Self {
        let mut templates = Environment::new();
        // A form shown without an earlier attempt has no `create.errors`: a missing value
        // reads as empty, whatever its depth.
        templates.set_undefined_behavior(minijinja::UndefinedBehavior::Chainable);
        for (name, source) in TEMPLATES {
            templates
                .add_template(name, source)
                .expect("the admin templates are valid");
        }
        Self {
            service,
            templates,
            flashes: Flashes::default(),
            public_https,
        }
    }

    /// The service the pages call.
    pub(super) fn service(&self) -> &Service {
        &self.service
    }

    /// The sessions' flashes.
    pub(super) fn flashes(&self) -> &Flashes {
        &self.flashes
    }

    /// Whether the session cookie gets `Secure`: the request came over https, or the public
    /// URL is https.
    pub(super) fn secure(&self, req: &Request) -> bool {
        self.public_https || http::is_https(req)
    }

    /// The page `name` rendered with `ctx`, answered with `status`.
    pub(super) fn render(&self, status: StatusCode, name: &str, ctx: Value) -> Response {
        match self
            .templates
            .get_template(name)
            .and_then(|t| t.render(ctx))
        {
            Ok(body) => html(status, body),
            Err(err) => {
                tracing::error!(error = %err, template = name, "admin page did not render");
                html(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "<!doctype html><title>Error</title><p>The page could not be rendered.</p>"
                        .to_owned(),
                )
            }
        }
    }

    /// The live session of the request, or the answer that sends the browser to sign in. A
    /// change (POST) has had its session and form token checked by the
    /// [`FormGuard`](super::form_guard::FormGuard), which hands the session on; a POST
    /// without one is refused, so no handler can act on a form without its token.
    pub(super) async fn session(&self, req: &Request) -> Result<SignedIn, Response> {
        if let Some(signed_in) = req.extensions().get::<SignedIn>() {
            return Ok(signed_in.clone());
        }
        if *req.method() == poem::http::Method::POST {
            return Err(self.error_page(&CoreError::Forbidden(Forbidden::FormToken)));
        }
        let Some(id) = session_cookie(req.headers()) else {
            return Err(see_other("/admin/"));
        };
        match self.service.admin_session(&id).await {
            Ok(signed_in) => Ok(signed_in),
            Err(CoreError::Unauthorized(_)) => Err(self.session_ended(req)),
            Err(err) => Err(self.error_page(&err)),
        }
    }

    /// The answer to a request whose session ended: to the sign-in page, the cookie cleared.
    pub(super) fn session_ended(&self, req: &Request) -> Response {
        let mut resp = see_other("/admin/?ended=1");
        if let Ok(value) = set_cookie("", 0, self.secure(req)).parse() {
            resp.headers_mut().insert(header::SET_COOKIE, value);
        }
        resp
    }

    /// The live session and the project of the path (`project`), or the answer to send
    /// instead: to sign in, or the error page for an id that names no project.
    pub(super) async fn session_in(
        &self,
        req: &Request,
        project: &str,
    ) -> Result<(SignedIn, ProjectId), Response> {
        let signed_in = self.session(req).await?;
        let project = parse_project(project).map_err(|err| self.error_page(&err))?;
        Ok((signed_in, project))
    }

    /// [`Admin::session_in`] with the post of the path too.
    pub(super) async fn session_at_post(
        &self,
        req: &Request,
        project: &str,
        post: &str,
    ) -> Result<(SignedIn, ProjectId, BlogId), Response> {
        let (signed_in, project) = self.session_in(req, project).await?;
        let post = parse_blog(post).map_err(|err| self.error_page(&err))?;
        Ok((signed_in, project, post))
    }

    /// The page that says what went wrong, with the API's status and detail (a 500 is logged
    /// and says nothing more).
    pub(super) fn error_page(&self, err: &CoreError) -> Response {
        let status = status_of(err);
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %blogread_core::error::error_chain(err), "admin page failed");
        }
        html(
            status,
            format!(
                "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
                 <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
                 <link rel=\"stylesheet\" href=\"/admin/static/admin.css\"><title>{status}</title></head>\
                 <body><main><h1>{status}</h1><p class=\"error\" role=\"alert\">{}</p>\
                 <p><a href=\"/admin/projects\">Back to the projects</a></p></main></body></html>",
                minijinja::HtmlEscape(&err.public_detail())
            ),
        )
    }
}

/// The query of a page that an action redirects to: what it did (see `done.rs`).
#[derive(Debug, Default, serde::Deserialize)]
pub(super) struct DoneQuery {
    /// The code of what was done; anything but a known code shows nothing.
    pub(super) done: Option<String>,
}

impl DoneQuery {
    /// What was done, if the code is one.
    pub(super) fn done(&self) -> Option<Done> {
        Done::from_code(self.done.as_deref())
    }
}

/// Who is signed in, as the templates show it, with the form token every form of the page
/// carries.
pub(super) fn me(signed_in: &SignedIn) -> Value {
    let form_token = signed_in.form_token.as_str();
    match signed_in.principal {
        Principal::ProjectAdmin(project) => context! {
            operator => false,
            label => "project admin",
            project => project.to_string(),
            form_token,
        },
        _ => context! { operator => true, label => "operator", form_token },
    }
}

/// The field an error is about (the API's field name), if it names one.
pub(super) fn field_of(err: &CoreError) -> Option<&'static str> {
    match err {
        CoreError::Invalid(field) => Some(field.field),
        CoreError::Conflict(message) if message.contains("slug") => Some("slug"),
        _ => None,
    }
}

/// The status of a page that shows an error: the API's status for it.
pub(super) fn status_of(err: &CoreError) -> StatusCode {
    StatusCode::from_u16(err.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// Errors by field (`""` for the form as a whole), with the API's detail.
pub(super) fn errors(err: &CoreError) -> BTreeMap<&'static str, String> {
    BTreeMap::from([(field_of(err).unwrap_or(""), err.public_detail())])
}

/// An optional URL field: `None` when left blank, else the value trimmed.
pub(super) fn optional_url(value: &str) -> Option<String> {
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

fn parse_project(id: &str) -> Result<ProjectId, CoreError> {
    id.parse()
        .map_err(|_| CoreError::NotFound(NotFound::Project))
}

fn parse_blog(id: &str) -> Result<BlogId, CoreError> {
    id.parse().map_err(|_| CoreError::NotFound(NotFound::Blog))
}

/// A time as the pages show it: `2026-11-21 09:30 UTC`.
pub(super) fn time(t: Timestamp) -> String {
    t.as_datetime().format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A project as the pages show it.
#[derive(Debug, Serialize)]
pub(super) struct ProjectRow {
    id: String,
    name: String,
    site_url: Option<String>,
    created_at: String,
}

impl From<&Project> for ProjectRow {
    fn from(p: &Project) -> Self {
        ProjectRow {
            id: p.id.to_string(),
            name: p.name.as_str().to_owned(),
            site_url: p.site_url.as_ref().map(|u| u.as_str().to_owned()),
            created_at: time(p.created_at),
        }
    }
}
