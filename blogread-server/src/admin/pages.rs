//! The pages and their forms. Each handler reads the session and the form, calls the
//! [`Service`] operation the management API calls, and renders the page with the answer.

use std::collections::BTreeMap;

use blogread_core::Error as CoreError;
use blogread_core::Service;
use blogread_core::auth::Principal;
use blogread_core::domain::{
    ADMIN_SESSION_LIFETIME, AdminTokenId, AgentKeyId, BlogId, BlogPatch, BlogStatus, NewBlog,
    ProjectId, Timestamp,
};
use blogread_core::error::{Forbidden, NotFound};
use blogread_core::read::RawListParams;
use blogread_core::service::{ProjectUpdate, SignedIn};
use minijinja::{Environment, Value, context};
use poem::http::{StatusCode, header};
use poem::web::{Data, Form, Path, Query};
use poem::{Request, Response, handler};
use serde::{Deserialize, Serialize};

use super::http::{self, html, see_other, session_cookie, set_cookie};

/// The form fields of a request, by name.
type Fields = BTreeMap<String, String>;

/// What the pages share: the service and the compiled templates.
pub(super) struct Admin {
    service: Service,
    templates: Environment<'static>,
    /// The server's public URL is https: the cookie is `Secure` whatever the request says.
    public_https: bool,
}

impl Admin {
    pub(super) fn new(service: Service, public_https: bool) -> Self {
        let mut templates = Environment::new();
        // A form shown without an earlier attempt has no `create.errors`: a missing value
        // reads as empty, whatever its depth.
        templates.set_undefined_behavior(minijinja::UndefinedBehavior::Chainable);
        for (name, source) in [
            ("base.html", include_str!("templates/base.html")),
            ("sign_in.html", include_str!("templates/sign_in.html")),
            ("projects.html", include_str!("templates/projects.html")),
            ("project.html", include_str!("templates/project.html")),
            ("posts.html", include_str!("templates/posts.html")),
            ("post.html", include_str!("templates/post.html")),
        ] {
            templates
                .add_template(name, source)
                .expect("the admin templates are valid");
        }
        Self {
            service,
            templates,
            public_https,
        }
    }

    /// The service the pages call.
    pub(super) fn service(&self) -> &Service {
        &self.service
    }

    /// Whether the session cookie gets `Secure`: the request came over https, or the public
    /// URL is https.
    pub(super) fn secure(&self, req: &Request) -> bool {
        self.public_https || http::is_https(req)
    }

    fn render(&self, status: StatusCode, name: &str, ctx: Value) -> Response {
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
    async fn session(&self, req: &Request) -> Result<SignedIn, Response> {
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
            Err(CoreError::Unauthorized(_)) => {
                let mut resp = see_other("/admin/?ended=1");
                if let Ok(value) = set_cookie("", 0, self.secure(req)).parse() {
                    resp.headers_mut().insert(header::SET_COOKIE, value);
                }
                Err(resp)
            }
            Err(err) => Err(self.error_page(&err)),
        }
    }

    /// The live session and the project of the path (`project`), or the answer to send
    /// instead: to sign in, or the error page for an id that names no project.
    async fn session_in(
        &self,
        req: &Request,
        project: &str,
    ) -> Result<(SignedIn, ProjectId), Response> {
        let signed_in = self.session(req).await?;
        let project = parse_project(project).map_err(|err| self.error_page(&err))?;
        Ok((signed_in, project))
    }

    /// [`Admin::session_in`] with the post of the path too.
    async fn session_at_post(
        &self,
        req: &Request,
        project: &str,
        post: &str,
    ) -> Result<(SignedIn, ProjectId, BlogId), Response> {
        let (signed_in, project) = self.session_in(req, project).await?;
        let post = parse_blog(post).map_err(|err| self.error_page(&err))?;
        Ok((signed_in, project, post))
    }

    pub(super) fn error_page(&self, err: &CoreError) -> Response {
        let status =
            StatusCode::from_u16(err.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
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

/// Who is signed in, as the templates show it, with the form token every form of the page
/// carries.
fn me(signed_in: &SignedIn) -> Value {
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
fn field_of(err: &CoreError) -> Option<&'static str> {
    match err {
        CoreError::Invalid(field) => Some(field.field),
        CoreError::Conflict(message) if message.contains("slug") => Some("slug"),
        _ => None,
    }
}

/// The status of a page that shows a refused form: the API's status for the error.
fn status_of(err: &CoreError) -> StatusCode {
    StatusCode::from_u16(err.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// Errors by field (`""` for the form as a whole), with the API's detail.
fn errors(err: &CoreError) -> BTreeMap<&'static str, String> {
    BTreeMap::from([(field_of(err).unwrap_or(""), err.public_detail())])
}

fn field(fields: &Fields, name: &str) -> String {
    fields.get(name).cloned().unwrap_or_default()
}

fn confirmed(fields: &Fields) -> bool {
    fields.get("confirm").is_some_and(|v| v == "yes")
}

fn parse_project(id: &str) -> Result<ProjectId, CoreError> {
    id.parse()
        .map_err(|_| CoreError::NotFound(NotFound::Project))
}

fn parse_blog(id: &str) -> Result<BlogId, CoreError> {
    id.parse().map_err(|_| CoreError::NotFound(NotFound::Blog))
}

fn time(t: Timestamp) -> String {
    t.as_datetime().format("%Y-%m-%d %H:%M UTC").to_string()
}

// ---- sign in, sign out ----

#[derive(Debug, Deserialize)]
pub(super) struct HomeQuery {
    ended: Option<String>,
}

/// The sign-in page, or the projects when already signed in.
#[handler]
pub(super) async fn home(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Query(query): Query<HomeQuery>,
) -> Response {
    if admin.session(req).await.is_ok() {
        return see_other("/admin/projects");
    }
    admin.render(
        StatusCode::OK,
        "sign_in.html",
        context! { ended => query.ended.is_some() },
    )
}

#[derive(Debug, Deserialize)]
pub(super) struct SignInForm {
    #[serde(default)]
    token: String,
}

/// `Sign in`: a session cookie and the projects, or the form again with why not.
#[handler]
pub(super) async fn sign_in(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Form(form): Form<SignInForm>,
) -> Response {
    match admin.service.sign_in(&form.token).await {
        Ok(session) => {
            let mut resp = see_other("/admin/projects");
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

/// `Sign out`: the session ends in the database and the cookie is cleared.
#[handler]
pub(super) async fn sign_out(req: &Request, admin: Data<&std::sync::Arc<Admin>>) -> Response {
    if let Some(id) = session_cookie(req.headers())
        && let Err(err) = admin.service.sign_out(&id).await
    {
        return admin.error_page(&err);
    }
    let mut resp = see_other("/admin/");
    if let Ok(value) = set_cookie("", 0, admin.secure(req)).parse() {
        resp.headers_mut().insert(header::SET_COOKIE, value);
    }
    resp
}

// ---- projects ----

#[derive(Debug, Serialize)]
struct ProjectRow {
    id: String,
    name: String,
    site_url: Option<String>,
    created_at: String,
}

fn project_row(p: &blogread_core::domain::Project) -> ProjectRow {
    ProjectRow {
        id: p.id.to_string(),
        name: p.name.as_str().to_owned(),
        site_url: p.site_url.as_ref().map(|u| u.as_str().to_owned()),
        created_at: time(p.created_at),
    }
}

async fn projects_page(
    admin: &Admin,
    signed_in: &SignedIn,
    status: StatusCode,
    create: Value,
) -> Response {
    let projects = match signed_in.principal {
        Principal::ProjectAdmin(project) => admin
            .service
            .project(&signed_in.caller, project)
            .await
            .map(|p| vec![p]),
        _ => admin.service.projects(&signed_in.caller).await,
    };
    match projects {
        Ok(projects) => admin.render(
            status,
            "projects.html",
            context! {
                me => me(signed_in),
                projects => projects.iter().map(project_row).collect::<Vec<_>>(),
                create => create,
            },
        ),
        Err(err) => admin.error_page(&err),
    }
}

/// The projects: every project for the operator (with Create), its own for a project admin.
#[handler]
pub(super) async fn list_projects(req: &Request, admin: Data<&std::sync::Arc<Admin>>) -> Response {
    let signed_in = match admin.session(req).await {
        Ok(s) => s,
        Err(resp) => return resp,
    };
    projects_page(&admin, &signed_in, StatusCode::OK, Value::UNDEFINED).await
}

/// `Create project` (operator).
#[handler]
pub(super) async fn create_project(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Form(fields): Form<Fields>,
) -> Response {
    let signed_in = match admin.session(req).await {
        Ok(s) => s,
        Err(resp) => return resp,
    };
    let name = field(&fields, "name");
    let site_url = field(&fields, "site_url");
    let site = (!site_url.trim().is_empty()).then(|| site_url.trim().to_owned());
    match admin
        .service
        .create_project(&signed_in.caller, name.clone(), site)
        .await
    {
        Ok(project) => see_other(&format!("/admin/projects/{}", project.id)),
        Err(err) => {
            let create = context! { name => name, site_url => site_url, errors => errors(&err) };
            projects_page(&admin, &signed_in, status_of(&err), create).await
        }
    }
}

// ---- project settings ----

/// What an action on the settings page leaves to show.
#[derive(Debug, Default, Serialize)]
struct Shown {
    /// The public key, after Reveal, Generate or Rotate.
    key: Option<String>,
    /// The full deploy hook URL, after Reveal.
    hook_revealed: bool,
    /// The value typed into `Deploy hook URL` (kept when refused).
    hook_typed: Option<String>,
    /// The typed name and site URL (kept when refused).
    settings_typed: Option<(String, String)>,
    /// The outcome of `Test`.
    test: Option<TestShown>,
    /// A destructive action waiting for `Confirm`: (section, action, id, question).
    confirm: Option<Confirm>,
    /// A credential shown once: (what, value).
    once: Option<(String, String)>,
    /// What was done.
    notice: Option<String>,
    /// Errors by section, then field (`""` for the section as a whole).
    errors: BTreeMap<&'static str, BTreeMap<&'static str, String>>,
}

#[derive(Debug, Serialize)]
struct TestShown {
    success: bool,
    status_code: u16,
    message: String,
}

#[derive(Debug, Serialize)]
struct Confirm {
    section: String,
    action: String,
    id: String,
    question: String,
}

/// The settings page of `project` with what an action left to show.
async fn settings_page(
    admin: &Admin,
    signed_in: &SignedIn,
    project: ProjectId,
    status: StatusCode,
    shown: Shown,
) -> Response {
    let caller = &signed_in.caller;
    let service = &admin.service;
    let settings = match service.project(caller, project).await {
        Ok(p) => p,
        Err(err) => return admin.error_page(&err),
    };
    let key = match service.reveal_public_key(caller, project).await {
        Ok(view) => Some(view),
        Err(CoreError::NotFound(NotFound::PublicKey)) => None,
        Err(err) => return admin.error_page(&err),
    };
    let hook = match service.deploy_hook(caller, project).await {
        Ok(view) => view.deploy_hook_url,
        Err(err) => return admin.error_page(&err),
    };
    let deliveries = match service.deliveries(caller, project).await {
        Ok(d) => d,
        Err(err) => return admin.error_page(&err),
    };
    let agent_keys = match service.agent_keys(caller, project).await {
        Ok(k) => k,
        Err(err) => return admin.error_page(&err),
    };
    let admin_tokens = match signed_in.principal {
        Principal::Operator => match service.admin_tokens(caller, project).await {
            Ok(t) => t
                .into_iter()
                .map(|t| context! { id => t.id.to_string(), created_at => time(t.created_at) })
                .collect(),
            Err(err) => return admin.error_page(&err),
        },
        _ => Vec::new(),
    };
    let (name, site_url) = shown.settings_typed.clone().unwrap_or_else(|| {
        (
            settings.name.as_str().to_owned(),
            settings
                .site_url
                .as_ref()
                .map(|u| u.as_str().to_owned())
                .unwrap_or_default(),
        )
    });
    let hook_value = match (&shown.hook_typed, shown.hook_revealed) {
        (Some(typed), _) => typed.clone(),
        (None, true) => hook.clone().unwrap_or_default(),
        (None, false) => String::new(),
    };
    admin.render(
        status,
        "project.html",
        context! {
            me => me(signed_in),
            project => project_row(&settings),
            name => name,
            site_url => site_url,
            key => key.as_ref().map(|k| context! {
                created_at => time(k.created_at),
                masked => format!("{}{}", &k.key[..8], "•".repeat(12)),
            }),
            revealed_key => shown.key,
            hook => hook.as_deref().map(|url| context! {
                masked => mask_url(url),
                full => shown.hook_revealed.then_some(url),
            }),
            hook_value => hook_value,
            test => shown.test,
            confirm => shown.confirm,
            once => shown.once,
            notice => shown.notice,
            errors => shown.errors,
            deliveries => deliveries.iter().map(|d| context! {
                attempted_at => time(d.attempted_at),
                trigger => d.trigger.as_str(),
                blog_slug => d.blog_slug,
                success => d.success,
                status_code => d.status_code,
                message => d.message,
                duration_ms => d.duration_ms,
            }).collect::<Vec<_>>(),
            agent_keys => agent_keys.iter().map(|k| context! {
                id => k.id.to_string(),
                prefix => k.prefix,
                created_at => time(k.created_at),
            }).collect::<Vec<_>>(),
            admin_tokens => admin_tokens,
        },
    )
}

/// A deploy hook URL with everything after the host hidden: it is a credential.
fn mask_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => format!(
            "{}://{}/{}",
            parsed.scheme(),
            parsed.host_str().unwrap_or(""),
            "•".repeat(12)
        ),
        Err(_) => "•".repeat(12),
    }
}

/// A project's settings: Publishing (API Access), Deploy hook, name and site URL, agent keys
/// and (for the operator) admin tokens.
#[handler]
pub(super) async fn show_project(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Path(project): Path<String>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    settings_page(
        &admin,
        &signed_in,
        project,
        StatusCode::OK,
        Shown::default(),
    )
    .await
}

/// Every button of the settings page: `section` is `settings`, `key`, `hook`, `agent-key` or
/// `admin-token`; destructive actions first ask to `Confirm`.
#[handler]
pub(super) async fn project_action(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Path((project, section, action)): Path<(String, String, String)>,
    Form(fields): Form<Fields>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let caller = &signed_in.caller;
    let service = &admin.service;
    let mut shown = Shown::default();
    let ask = |question: &str| Confirm {
        section: section.clone(),
        action: action.clone(),
        id: field(&fields, "id"),
        question: question.to_owned(),
    };
    let result: Result<(), CoreError> = match (section.as_str(), action.as_str()) {
        ("settings", "save") => {
            let name = field(&fields, "name");
            let site_url = field(&fields, "site_url");
            let update = ProjectUpdate {
                name: Some(name.clone()),
                site_url: Some((!site_url.trim().is_empty()).then(|| site_url.trim().to_owned())),
            };
            let result = service.update_project(caller, project, update).await;
            if result.is_err() {
                shown.settings_typed = Some((name, site_url));
            } else {
                shown.notice = Some("Settings saved.".into());
            }
            result.map(drop)
        }
        ("key", "reveal") => service
            .reveal_public_key(caller, project)
            .await
            .map(|k| shown.key = Some(k.key)),
        ("key", "generate") => service.generate_public_key(caller, project).await.map(|k| {
            shown.key = Some(k.key);
            shown.notice = Some("API key generated.".into());
        }),
        ("key", "rotate") if !confirmed(&fields) => {
            shown.confirm = Some(ask(
                "Rotate the API key? The current key stops working at once; sites must use the new one.",
            ));
            Ok(())
        }
        ("key", "rotate") => service.rotate_public_key(caller, project).await.map(|k| {
            shown.key = Some(k.key);
            shown.notice = Some("API key rotated: the old key no longer works.".into());
        }),
        ("key", "revoke") if !confirmed(&fields) => {
            shown.confirm = Some(ask(
                "Revoke the API key? Public access stops until a key is generated again.",
            ));
            Ok(())
        }
        ("key", "revoke") => service
            .revoke_public_key(caller, project)
            .await
            .map(|()| shown.notice = Some("API key revoked: public access is off.".into())),
        ("hook", "reveal") => {
            shown.hook_revealed = true;
            Ok(())
        }
        ("hook", "save") => {
            let url = field(&fields, "deploy_hook_url");
            let result = service.save_deploy_hook(caller, project, url.clone()).await;
            match result {
                Ok(_) => shown.notice = Some("Deploy hook saved.".into()),
                Err(_) => shown.hook_typed = Some(url),
            }
            result.map(drop)
        }
        ("hook", "test") => service.test_deploy_hook(caller, project).await.map(|r| {
            shown.test = Some(TestShown {
                success: r.success,
                status_code: r.status_code,
                message: r.message,
            })
        }),
        ("hook", "remove") if !confirmed(&fields) => {
            shown.confirm = Some(ask(
                "Remove the deploy hook? Content changes will no longer trigger a site rebuild.",
            ));
            Ok(())
        }
        ("hook", "remove") => service
            .remove_deploy_hook(caller, project)
            .await
            .map(|()| shown.notice = Some("Deploy hook removed.".into())),
        ("agent-key", "create") => service.create_agent_key(caller, project).await.map(|k| {
            shown.once = Some(("New agent key".into(), k.key));
        }),
        ("agent-key", "delete") if !confirmed(&fields) => {
            shown.confirm = Some(ask(
                "Delete this agent key? Agents using it are refused at once.",
            ));
            Ok(())
        }
        ("agent-key", "delete") => match field(&fields, "id").parse::<AgentKeyId>() {
            Ok(id) => service
                .delete_agent_key(caller, project, id)
                .await
                .map(|()| shown.notice = Some("Agent key deleted.".into())),
            Err(_) => Err(CoreError::NotFound(NotFound::AgentKey)),
        },
        ("admin-token", "create") => service.create_admin_token(caller, project).await.map(|t| {
            shown.once = Some(("New project admin token".into(), t.token));
        }),
        ("admin-token", "revoke") if !confirmed(&fields) => {
            shown.confirm = Some(ask(
                "Revoke this admin token? Its holder is refused at once and signed out of these pages.",
            ));
            Ok(())
        }
        ("admin-token", "revoke") => match field(&fields, "id").parse::<AdminTokenId>() {
            Ok(id) => service
                .delete_admin_token(caller, project, id)
                .await
                .map(|()| shown.notice = Some("Admin token revoked.".into())),
            Err(_) => Err(CoreError::NotFound(NotFound::AdminToken)),
        },
        _ => {
            return admin.error_page(&CoreError::NotFound(NotFound::Project));
        }
    };
    let status = match result {
        Ok(()) => StatusCode::OK,
        Err(err) => {
            let section_key: &'static str = match section.as_str() {
                "settings" => "settings",
                "key" => "key",
                "hook" => "hook",
                "agent-key" => "agent_key",
                _ => "admin_token",
            };
            shown.errors.insert(section_key, errors(&err));
            status_of(&err)
        }
    };
    settings_page(&admin, &signed_in, project, status, shown).await
}

// ---- posts ----

#[derive(Debug, Deserialize)]
pub(super) struct PostsQuery {
    status: Option<String>,
    /// Posts to skip: the page shows [`POSTS_PER_PAGE`] from there.
    offset: Option<String>,
}

/// Posts listed on one page: a project of any size costs one management list call a page.
const POSTS_PER_PAGE: u64 = 100;

const STATUSES: [&str; 4] = ["draft", "scheduled", "published", "unpublished"];

async fn posts_page(
    admin: &Admin,
    signed_in: &SignedIn,
    project: ProjectId,
    filter: Option<String>,
    offset: Option<String>,
    status: StatusCode,
    create: Value,
) -> Response {
    let service = &admin.service;
    let settings = match service.project(&signed_in.caller, project).await {
        Ok(p) => p,
        Err(err) => return admin.error_page(&err),
    };
    let wanted = filter
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<BlogStatus>().map_err(CoreError::Invalid))
        .transpose();
    let wanted = match wanted {
        Ok(w) => w,
        Err(err) => return admin.error_page(&err),
    };
    // The same rules as the management list: a bad offset is the API's 400 detail.
    let params = RawListParams {
        limit: Some(POSTS_PER_PAGE.to_string()),
        offset: offset.filter(|o| !o.is_empty()),
        ..Default::default()
    };
    let page = match service
        .blogs(&signed_in.caller, project, wanted, params)
        .await
    {
        Ok(page) => page,
        Err(err) => return admin.error_page(&err),
    };
    let offset = page.offset;
    let shown = page.blogs.len() as u64;
    let total = page.total;
    let posts: Vec<Value> = page
        .blogs
        .into_iter()
        .map(|b| {
            context! {
                id => b.id.to_string(),
                title => b.title,
                slug => b.slug,
                status => b.status.as_str(),
                published_at => b.published_at.map(time),
                updated_at => time(b.updated_at),
            }
        })
        .collect();
    let pager = context! {
        total => total,
        first => if shown == 0 { offset } else { offset + 1 },
        last => offset + shown,
        newer => (offset > 0).then(|| offset.saturating_sub(POSTS_PER_PAGE)),
        older => (offset + shown < total).then_some(offset + shown),
    };
    admin.render(
        status,
        "posts.html",
        context! {
            me => me(signed_in),
            project => project_row(&settings),
            posts => posts,
            filter => wanted.map(|s| s.as_str()),
            pager => pager,
            statuses => STATUSES,
            create => create,
        },
    )
}

/// A project's posts with their status, filterable by status.
#[handler]
pub(super) async fn list_posts(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Path(project): Path<String>,
    Query(query): Query<PostsQuery>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    posts_page(
        &admin,
        &signed_in,
        project,
        query.status,
        query.offset,
        StatusCode::OK,
        Value::UNDEFINED,
    )
    .await
}

/// `Create draft`: a new draft with a title and a slug.
#[handler]
pub(super) async fn create_post(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Path(project): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let title = field(&fields, "title");
    let slug = field(&fields, "slug");
    let input = NewBlog {
        title: title.clone(),
        slug: slug.clone(),
        ..Default::default()
    };
    match admin
        .service
        .create_blog(&signed_in.caller, project, input)
        .await
    {
        Ok(blog) => see_other(&format!("/admin/projects/{project}/posts/{}", blog.id)),
        Err(err) => {
            let create = context! { title => title, slug => slug, errors => errors(&err) };
            posts_page(
                &admin,
                &signed_in,
                project,
                None,
                None,
                status_of(&err),
                create,
            )
            .await
        }
    }
}

/// What an action on a post page leaves to show.
#[derive(Debug, Default)]
struct PostShown {
    typed: Option<Fields>,
    confirm_delete: bool,
    notice: Option<String>,
    errors: BTreeMap<&'static str, String>,
}

async fn post_page(
    admin: &Admin,
    signed_in: &SignedIn,
    project: ProjectId,
    id: BlogId,
    status: StatusCode,
    shown: PostShown,
) -> Response {
    let service = &admin.service;
    let caller = &signed_in.caller;
    let settings = match service.project(caller, project).await {
        Ok(p) => p,
        Err(err) => return admin.error_page(&err),
    };
    let blog = match service.blog(caller, project, id).await {
        Ok(b) => b,
        Err(err) => return admin.error_page(&err),
    };
    let stored = Fields::from([
        ("title".to_owned(), blog.title.clone()),
        ("slug".to_owned(), blog.slug.clone()),
        ("excerpt".to_owned(), blog.excerpt.clone()),
        ("content".to_owned(), blog.content.clone()),
        ("meta_title".to_owned(), blog.meta_title.clone()),
        ("meta_description".to_owned(), blog.meta_description.clone()),
        (
            "featured_image_url".to_owned(),
            blog.featured_image_url.clone().unwrap_or_default(),
        ),
        ("categories".to_owned(), blog.categories.join(", ")),
        ("tags".to_owned(), blog.tags.join(", ")),
        ("published_at".to_owned(), String::new()),
    ]);
    let form = shown.typed.unwrap_or(stored);
    let s = blog.status;
    admin.render(
        status,
        "post.html",
        context! {
            me => me(signed_in),
            project => project_row(&settings),
            post => context! {
                id => blog.id.to_string(),
                title => blog.title,
                status => s.as_str(),
                published_at => blog.published_at.map(time),
                created_at => time(blog.created_at),
                updated_at => time(blog.updated_at),
            },
            actions => context! {
                publish => matches!(s, BlogStatus::Draft | BlogStatus::Unpublished | BlogStatus::Scheduled),
                schedule => matches!(s, BlogStatus::Draft | BlogStatus::Unpublished | BlogStatus::Scheduled),
                unschedule => s == BlogStatus::Scheduled,
                unpublish => s == BlogStatus::Published,
                resync => s == BlogStatus::Published,
            },
            form => form,
            confirm_delete => shown.confirm_delete,
            notice => shown.notice,
            errors => shown.errors,
        },
    )
}

/// A post: its fields, the buttons its status allows, the editor and the preview.
#[handler]
pub(super) async fn show_post(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Path((project, post)): Path<(String, String)>,
) -> Response {
    let (signed_in, project, post) = match admin.session_at_post(req, &project, &post).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    post_page(
        &admin,
        &signed_in,
        project,
        post,
        StatusCode::OK,
        PostShown::default(),
    )
    .await
}

/// The preview of a post's working copy, internal links resolved as the public API would:
/// sanitised, in a document of its own with a sandboxing policy, for the post page's
/// `<iframe sandbox>` (see `preview.rs`).
#[handler]
pub(super) async fn show_preview(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Path((project, post)): Path<(String, String)>,
) -> Response {
    let (signed_in, project, post) = match admin.session_at_post(req, &project, &post).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    match admin
        .service
        .preview_blog(&signed_in.caller, project, post)
        .await
    {
        Ok(body) => {
            let mut resp = html(StatusCode::OK, super::preview::document(&body));
            let headers = resp.headers_mut();
            headers.insert(
                "content-security-policy",
                header::HeaderValue::from_static(super::preview::CSP),
            );
            headers.insert(
                "x-frame-options",
                header::HeaderValue::from_static("SAMEORIGIN"),
            );
            resp
        }
        Err(err) => admin.error_page(&err),
    }
}

/// Splits a comma-separated list field.
fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Reads the `datetime-local` value of `Schedule` (UTC) or an RFC 3339 time.
fn go_live(value: &str) -> Result<Timestamp, CoreError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(CoreError::Invalid(blogread_core::error::FieldError::new(
            "published_at",
            "is required to schedule: pick the go-live time (UTC)",
        )));
    }
    let full = match value.len() {
        16 => format!("{value}:00Z"),
        19 => format!("{value}Z"),
        _ => value.to_owned(),
    };
    Timestamp::parse_field("published_at", &full).map_err(CoreError::Invalid)
}

/// The buttons of a post page: `save` (the editor), `publish`, `schedule`, `unschedule`,
/// `unpublish`, `resync`, `delete` (after `Confirm`).
#[handler]
pub(super) async fn post_action(
    req: &Request,
    admin: Data<&std::sync::Arc<Admin>>,
    Path((project, post, action)): Path<(String, String, String)>,
    Form(fields): Form<Fields>,
) -> Response {
    let (signed_in, project, id) = match admin.session_at_post(req, &project, &post).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let caller = &signed_in.caller;
    let service = &admin.service;
    let mut shown = PostShown::default();
    let result: Result<(), CoreError> = match action.as_str() {
        "save" => {
            let image = field(&fields, "featured_image_url");
            let patch = BlogPatch {
                title: Some(field(&fields, "title")),
                slug: Some(field(&fields, "slug")),
                content: Some(field(&fields, "content")),
                excerpt: Some(field(&fields, "excerpt")),
                meta_title: Some(field(&fields, "meta_title")),
                meta_description: Some(field(&fields, "meta_description")),
                featured_image_url: Some(
                    (!image.trim().is_empty()).then(|| image.trim().to_owned()),
                ),
                categories: Some(list(&field(&fields, "categories"))),
                tags: Some(list(&field(&fields, "tags"))),
            };
            let result = service.edit_blog(caller, project, id, patch).await;
            match &result {
                Ok(_) => shown.notice = Some("Working copy saved.".into()),
                Err(_) => shown.typed = Some(fields.clone()),
            }
            result.map(drop)
        }
        "publish" | "resync" => service
            .publish_blog(caller, project, id, None)
            .await
            .map(|_| shown.notice = Some("Published: the public API shows it now.".into())),
        "schedule" => match go_live(&field(&fields, "published_at")) {
            Ok(at) => service
                .publish_blog(caller, project, id, Some(at))
                .await
                .map(|w| {
                    shown.notice = Some(match w.blog.status {
                        BlogStatus::Scheduled => format!("Scheduled for {}.", time(at)),
                        _ => "Published: its time has already come.".to_owned(),
                    })
                }),
            Err(err) => Err(err),
        },
        "unschedule" => service
            .unschedule_blog(caller, project, id)
            .await
            .map(|_| shown.notice = Some("Unscheduled: back to draft.".into())),
        "unpublish" => service
            .unpublish_blog(caller, project, id)
            .await
            .map(|_| shown.notice = Some("Unpublished.".into())),
        "delete" if !confirmed(&fields) => {
            shown.confirm_delete = true;
            Ok(())
        }
        "delete" => {
            return match service.delete_blog(caller, project, id).await {
                Ok(_) => see_other(&format!("/admin/projects/{project}/posts")),
                Err(err) => admin.error_page(&err),
            };
        }
        _ => Err(CoreError::NotFound(NotFound::Blog)),
    };
    let status = match result {
        Ok(()) => StatusCode::OK,
        Err(err) => {
            if action == "schedule" {
                let mut typed = shown.typed.take().unwrap_or_default();
                typed.insert("published_at".into(), field(&fields, "published_at"));
                shown.typed = None;
                shown.errors.insert(
                    field_of(&err).map_or("action", |_| "published_at"),
                    err.public_detail(),
                );
            } else {
                let key = match field_of(&err) {
                    Some(f) if action == "save" => f,
                    _ if action == "save" => "",
                    _ => "action",
                };
                shown.errors.insert(key, err.public_detail());
            }
            status_of(&err)
        }
    };
    post_page(&admin, &signed_in, project, id, status, shown).await
}
