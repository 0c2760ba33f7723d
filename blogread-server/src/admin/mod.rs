//! The admin pages under `/admin/`: server-rendered HTML over the same [`Service`] operations
//! as the management API, so every rule, error detail and deploy hook firing is shared.
//!
//! Sign in with the operator token or a project admin token; the session is a random id in a
//! cookie (`HttpOnly`, `SameSite=Strict`, `Secure` over https) that the core stores hashed
//! and ends at sign-out, after 12 hours, or when its credential is revoked. Every state change
//! is a POST from these pages' own origin ([`http::AdminGuard`] answers 403 otherwise) that
//! carries the session's form token (checked by the core before anything else, `form_guard`),
//! and every answer carries a `Content-Security-Policy` without inline script. Authors are
//! not trusted here: a post's preview is sanitised and shown in a sandboxed frame
//! (`preview`).
//!
//! Each page has a module named after its template (`sign_in`, `projects`, `project`,
//! `posts`, `post`, `links`, `media`; what they share is in `pages`), and each button of a page
//! is an action type in `project_actions` or `post_actions`: the typed form it posts, its URL,
//! and what it does (the Media page's few buttons are handlers in `media_actions`). Handlers are thin: read the form, call one operation, and answer with a redirect
//! (POST, redirect, GET) to the page that says what was done (`done`), so that a reload
//! repeats nothing; what must be shown once (a new credential, a test's outcome) waits for
//! that page in the session's flash (`flash`). A Confirm step (nothing changed yet) and a
//! refused value (the form again, what was typed kept, the API's detail next to the field)
//! render the page instead: reloading them changes nothing either.

mod done;
mod flash;
mod form_guard;
pub mod http;
mod links;
mod media;
mod media_actions;
mod pager;
mod pages;
mod post;
mod post_actions;
mod posts;
mod preview;
mod project;
mod project_actions;
mod projects;
mod sign_in;

use std::sync::Arc;

use blogread_core::Service;
use poem::http::{StatusCode, header};
use poem::{Endpoint, EndpointExt, Response, Route, get, handler, post};

pub use http::AdminGuard;
pub use media::{UploadRefusal, upload_not_allowed, upload_refused};

/// The admin stylesheet.
const STYLESHEET: &str = include_str!("static/admin.css");
/// The one script: the Copy button (the Clipboard API), loaded from this server.
const COPY_SCRIPT: &str = include_str!("static/copy.js");

/// How the admin pages are reached.
#[derive(Debug, Clone, Default)]
pub struct AdminOptions {
    /// The URL users open the server at, when a proxy in front of it terminates TLS (e.g.
    /// `https://blog.example.com`): with https the session cookie is always `Secure`, and
    /// changes sent from this origin are accepted as the server's own.
    pub public_url: Option<url::Url>,
}

impl AdminOptions {
    /// The origin of the public URL (`scheme://host[:port]`), if one is set.
    fn public_origin(&self) -> Option<String> {
        self.public_url
            .as_ref()
            .map(|u| u.origin().ascii_serialization().to_ascii_lowercase())
    }

    /// Whether the public URL is https.
    fn public_https(&self) -> bool {
        self.public_url
            .as_ref()
            .is_some_and(|u| u.scheme() == "https")
    }
}

/// The admin pages over `service`, to nest under `/admin`.
pub fn routes(
    service: Service,
    options: AdminOptions,
) -> impl Endpoint<Output = Response> + 'static {
    let admin = Arc::new(pages::Admin::new(service, options.public_https()));
    let pages = Route::new()
        .at("/", get(sign_in::home))
        .at("/sign-in", post(sign_in::sign_in))
        .at("/sign-out", post(sign_in::sign_out))
        .at(
            "/projects",
            get(projects::list_projects).post(projects::create_project),
        )
        .at("/projects/:project", get(project::show_project))
        .at("/projects/:project/links", get(links::list_links))
        .at(
            "/projects/:project/media",
            get(media::show_media).post(media_actions::upload_media),
        )
        .at(
            "/projects/:project/media/:media/alt",
            post(media_actions::edit_alt),
        )
        .at(
            "/projects/:project/media/:media/delete",
            post(media_actions::delete_media),
        )
        .at(
            "/projects/:project/posts",
            get(posts::list_posts).post(posts::create_post),
        )
        .at("/projects/:project/posts/:post", get(post::show_post))
        .at(
            "/projects/:project/posts/:post/preview",
            get(post::show_preview),
        );
    post_actions::routes(project_actions::routes(pages))
        .at("/static/admin.css", get(stylesheet))
        .at("/static/copy.js", get(copy_script))
        .with(form_guard::FormGuard::new(Arc::clone(&admin)))
        .data(admin)
        .with(AdminGuard::new(options.public_origin()))
        .map_to_response()
}

#[handler]
fn stylesheet() -> Response {
    asset("text/css; charset=utf-8", STYLESHEET)
}

#[handler]
fn copy_script() -> Response {
    asset("text/javascript; charset=utf-8", COPY_SCRIPT)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .body(body)
}
