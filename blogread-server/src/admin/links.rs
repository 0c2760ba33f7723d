//! A project's links page (`links.html`): every placeholder of its posts that the public API
//! leaves out now, a hundred a page, each with its post (linked to the post's page), the copy
//! that holds it, the placeholder as written, where it stands and why it does not resolve.
//! The project page's links summary links here.

use std::sync::Arc;

use blogread_core::domain::ProjectId;
use blogread_core::read::RawListParams;
use blogread_core::service::{LinkEntry, LinkFilter, SignedIn};
use minijinja::{Value, context};
use poem::http::StatusCode;
use poem::web::{Data, Path, Query};
use poem::{Request, Response, handler};
use serde::Deserialize;

use super::pager::pager;
use super::pages::{Admin, ProjectRow, me, time};

/// The query of the links page.
#[derive(Debug, Deserialize)]
pub(super) struct LinksQuery {
    /// Links to skip: the page shows [`LINKS_PER_PAGE`] from there.
    offset: Option<String>,
}

/// Broken links listed on one page: a project of any size costs one links report call a
/// page.
const LINKS_PER_PAGE: u64 = 100;

/// The broken links of `project`, from `offset`.
async fn links_page(
    admin: &Admin,
    signed_in: &SignedIn,
    project: ProjectId,
    offset: Option<String>,
) -> Response {
    let service = admin.service();
    let caller = &signed_in.caller;
    let settings = match service.project(caller, project).await {
        Ok(p) => p,
        Err(err) => return admin.error_page(&err),
    };
    // The same rules as the management API's links report: a bad offset is its 400 detail.
    let params = RawListParams {
        limit: Some(LINKS_PER_PAGE.to_string()),
        offset: offset.filter(|o| !o.is_empty()),
        ..Default::default()
    };
    let report = match service
        .links(caller, project, LinkFilter::Broken, params)
        .await
    {
        Ok(report) => report,
        Err(err) => return admin.error_page(&err),
    };
    let offset = report.offset;
    let shown = report.links.len() as u64;
    let total = report.total;
    let pager = pager(offset, shown, total, LINKS_PER_PAGE);
    admin.render(
        StatusCode::OK,
        "links.html",
        context! {
            me => me(signed_in),
            project => ProjectRow::from(&settings),
            links => report.links.iter().map(row).collect::<Vec<_>>(),
            pager => pager,
        },
    )
}

/// One placeholder with its state, as the links page and the post page show it.
pub(super) fn row(l: &LinkEntry) -> Value {
    context! {
        post_id => l.blog_id.to_string(),
        post_title => l.blog_title,
        post_slug => l.blog_slug,
        copy => l.copy.as_str(),
        placeholder => l.placeholder,
        place => l.place.as_str(),
        within_link => l.within_link,
        state => l.state.as_str(),
        broken => l.state.is_broken(),
        go_live_at => l.go_live_at.map(time),
        target => l.target.as_ref().map(|t| context! {
            id => t.id.to_string(),
            title => t.title,
            slug => t.slug,
        }),
    }
}

/// The broken links of a project's posts, a hundred a page.
#[handler]
pub(super) async fn list_links(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(project): Path<String>,
    Query(query): Query<LinksQuery>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    links_page(&admin, &signed_in, project, query.offset).await
}
