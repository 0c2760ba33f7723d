//! A project's settings page (`project.html`): how many published posts have broken links
//! (linking to the links page, `links.rs`), Publishing (API Access), the deploy hook, the name
//! and site URL, agent keys and (for the operator) admin tokens; and what its buttons are.
//!
//! Each button is an action type (they are in `project_actions.rs`): the form it posts (a
//! struct deriving `Deserialize`, the action itself), its URL
//! (`/admin/projects/{id}/{section}/{action}`, from [`ProjectAction::SECTION`] and
//! [`ProjectAction::ACTION`]) and what it does ([`ProjectAction::run`]). [`project_action`]
//! serves them all: the session, the project, the run, and the redirect to the settings page
//! saying what was done (or the page again, with the Confirm step or why not). Destructive
//! actions ([`Destructive`]) first ask to `Confirm`.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use blogread_core::Error as CoreError;
use blogread_core::Service;
use blogread_core::auth::{Caller, Principal};
use blogread_core::domain::ProjectId;
use blogread_core::error::{NotFound, error_chain};
use blogread_core::service::SignedIn;
use minijinja::context;
use poem::http::Method;
use poem::http::StatusCode;
use poem::web::{Data, Form, Path, Query};
use poem::{Request, Response, handler};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::done::Done;
use super::flash::OneTime;
use super::pages::{Admin, DoneQuery, ProjectRow, errors, me, status_of, time};

/// What the settings page shows besides the project's state: what an action left to show.
#[derive(Debug, Default)]
pub(super) struct Shown {
    /// What is shown once (kept in the session's flash between the action and its page).
    pub(super) one_time: OneTime,
    /// The value typed into `Deploy hook URL` (kept when refused).
    pub(super) hook_typed: Option<String>,
    /// The typed name and site URL (kept when refused).
    pub(super) settings_typed: Option<(String, String)>,
    /// A destructive action waiting for `Confirm`.
    confirm: Option<Confirm>,
    /// What was done.
    notice: Option<String>,
    /// Errors by section, then field (`""` for the section as a whole).
    errors: BTreeMap<&'static str, BTreeMap<&'static str, String>>,
}

/// A destructive action waiting for `Confirm`: the page shows the question next to the
/// button of `section`, `action` and `id`, with a form that posts it again confirmed.
#[derive(Debug, Serialize)]
struct Confirm {
    section: &'static str,
    action: &'static str,
    id: String,
    question: &'static str,
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
    let service = admin.service();
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
    // The links summary: failing to read it loses that line, not the page.
    let link_summary = match service.link_summary(caller, project).await {
        Ok(summary) => Some(summary),
        Err(err) => {
            tracing::warn!(error = %error_chain(&err), "the links summary could not be read");
            None
        }
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
    let one_time = shown.one_time;
    let hook_value = match (&shown.hook_typed, one_time.hook_revealed) {
        (Some(typed), _) => typed.clone(),
        (None, true) => hook.clone().unwrap_or_default(),
        (None, false) => String::new(),
    };
    admin.render(
        status,
        "project.html",
        context! {
            me => me(signed_in),
            project => ProjectRow::from(&settings),
            name => name,
            site_url => site_url,
            key => key.as_ref().map(|k| context! {
                created_at => time(k.created_at),
                masked => format!("{}{}", &k.key[..8], "•".repeat(12)),
            }),
            revealed_key => one_time.key,
            hook => hook.as_deref().map(|url| context! {
                masked => mask_url(url),
                full => one_time.hook_revealed.then_some(url),
            }),
            hook_value => hook_value,
            test => one_time.test,
            confirm => shown.confirm,
            once => one_time.once,
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
            link_summary => link_summary.map(|s| context! {
                posts => s.posts_with_broken_links,
                links => s.broken_links,
            }),
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

/// A project's settings: its broken links in short, Publishing (API Access), Deploy hook, name
/// and site URL, agent keys and (for the operator) admin tokens; after an action, what it did
/// (`?done=`), with what it shows once if this is the first `GET` of its session to ask.
#[handler]
pub(super) async fn show_project(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(project): Path<String>,
    Query(query): Query<DoneQuery>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let mut shown = Shown::default();
    if let Some(done) = query.done() {
        let session = signed_in.form_token.as_str();
        let taken = (*req.method() == Method::GET)
            .then(|| admin.flashes().take(session, project, done))
            .flatten();
        let mut notice = done.message().to_owned();
        match (taken, done.once_gone()) {
            (Some(one_time), _) => shown.one_time = one_time,
            (None, Some(gone)) => {
                notice.push(' ');
                notice.push_str(gone);
            }
            (None, None) => {}
        }
        shown.notice = Some(notice);
    }
    settings_page(&admin, &signed_in, project, StatusCode::OK, shown).await
}

// ---- the actions ----

/// A section of the settings page: the middle segment of its buttons' URLs, and where their
/// errors show.
#[derive(Debug, Clone, Copy)]
pub(super) enum Section {
    /// Name and site URL.
    Settings,
    /// API Access: the public key.
    Key,
    /// The deploy hook.
    Hook,
    /// Agent keys.
    AgentKey,
    /// Admin tokens (operator).
    AdminToken,
}

impl Section {
    /// The section's segment of its buttons' URLs.
    pub(super) const fn segment(self) -> &'static str {
        match self {
            Section::Settings => "settings",
            Section::Key => "key",
            Section::Hook => "hook",
            Section::AgentKey => "agent-key",
            Section::AdminToken => "admin-token",
        }
    }

    /// The key of the page's `errors` that holds the section's errors.
    const fn errors_key(self) -> &'static str {
        match self {
            Section::AgentKey => "agent_key",
            Section::AdminToken => "admin_token",
            other => other.segment(),
        }
    }
}

/// What an action acts on: the service, as the signed-in caller, on the project of the page.
pub(super) struct OnProject<'a> {
    pub(super) service: &'a Service,
    pub(super) caller: &'a Caller,
    pub(super) project: ProjectId,
}

/// How an action of the settings page went, when it was not refused.
#[derive(Debug)]
pub(super) enum Outcome {
    /// A destructive action asks to `Confirm` (in [`Shown`]): nothing changed, the page shows
    /// the question.
    Confirm,
    /// Done: the answer redirects to the settings page saying so, with what the action left
    /// in [`Shown::one_time`] shown there once.
    Did(Done),
}

/// One button of the settings page. The type is the form the button posts.
pub(super) trait ProjectAction: DeserializeOwned + Send + Sync + 'static {
    /// The section it belongs to.
    const SECTION: Section;
    /// The last segment of its URL.
    const ACTION: &'static str;

    /// Calls the service and says how it went, filling what the page shows (what is shown
    /// once, the typed values of a refusal); an error shows in the section.
    fn run(
        self,
        on: &OnProject<'_>,
        shown: &mut Shown,
    ) -> impl Future<Output = Result<Outcome, CoreError>> + Send;
}

/// A destructive button: it asks [`Destructive::QUESTION`] first and acts once `Confirm` is
/// clicked; its action type is [`Confirmed`] over it.
pub(super) trait Destructive: Send + Sync + 'static {
    /// The section it belongs to.
    const SECTION: Section;
    /// The last segment of its URL.
    const ACTION: &'static str;
    /// What `Confirm` answers.
    const QUESTION: &'static str;

    /// Acts, once confirmed, on the item `id` of the section (an agent key, an admin token;
    /// empty for the others), and says what it did.
    fn confirmed(
        id: String,
        on: &OnProject<'_>,
        shown: &mut Shown,
    ) -> impl Future<Output = Result<Done, CoreError>> + Send;
}

/// The form of a destructive button `A`: `confirm=yes` once `Confirm` is clicked, and the
/// item it is about.
#[derive(Debug, Deserialize)]
#[serde(bound = "")]
pub(super) struct Confirmed<A> {
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    id: String,
    #[serde(skip)]
    action: PhantomData<A>,
}

impl<A: Destructive> ProjectAction for Confirmed<A> {
    const SECTION: Section = A::SECTION;
    const ACTION: &'static str = A::ACTION;

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        if self.confirm != "yes" {
            shown.confirm = Some(Confirm {
                section: A::SECTION.segment(),
                action: A::ACTION,
                id: self.id,
                question: A::QUESTION,
            });
            return Ok(Outcome::Confirm);
        }
        A::confirmed(self.id, on, shown).await.map(Outcome::Did)
    }
}

/// Serves the button `A` of a project's settings page: done, a redirect to the settings page
/// that says what was done (what it shows once kept for that page in the session's flash);
/// else the settings page again, with the Confirm step or why not (nothing changed).
#[handler]
pub(super) async fn project_action<A: ProjectAction>(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(project): Path<String>,
    Form(action): Form<A>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let on = OnProject {
        service: admin.service(),
        caller: &signed_in.caller,
        project,
    };
    let mut shown = Shown::default();
    let status = match action.run(&on, &mut shown).await {
        Ok(Outcome::Did(done)) => {
            let session = signed_in.form_token.as_str();
            admin
                .flashes()
                .put(session, project, done, std::mem::take(&mut shown.one_time));
            return done.see(&format!("/admin/projects/{project}"));
        }
        Ok(Outcome::Confirm) => StatusCode::OK,
        Err(err) => {
            shown.errors.insert(A::SECTION.errors_key(), errors(&err));
            status_of(&err)
        }
    };
    settings_page(&admin, &signed_in, project, status, shown).await
}

/// Any form, its fields unread.
#[derive(Debug, Deserialize)]
struct AnyForm {}

/// A POST to `/admin/projects/{id}/{section}/{action}` that names no button: the error page,
/// as for an unknown project.
#[handler]
pub(super) async fn no_such_action(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Form(_): Form<AnyForm>,
) -> Response {
    if let Err(resp) = admin.session(req).await {
        return resp;
    }
    admin.error_page(&CoreError::NotFound(NotFound::Project))
}
