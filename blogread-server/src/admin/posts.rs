//! A project's posts page (`posts.html`): the posts with their status, filterable by status,
//! a hundred a page, and `Create draft`.

use std::sync::Arc;

use blogread_core::Error as CoreError;
use blogread_core::domain::{BlogInput, BlogStatus, ProjectId};
use blogread_core::read::RawListParams;
use blogread_core::service::SignedIn;
use minijinja::{Value, context};
use poem::http::StatusCode;
use poem::web::{Data, Form, Path, Query};
use poem::{Request, Response, handler};
use serde::Deserialize;

use super::done::Done;
use super::pager::pager;
use super::pages::{Admin, ProjectRow, errors, me, status_of, time};

/// The query of the posts page.
#[derive(Debug, Deserialize)]
pub(super) struct PostsQuery {
    /// Only the posts with this status (any when absent or empty).
    status: Option<String>,
    /// Posts to skip: the page shows [`POSTS_PER_PAGE`] from there.
    offset: Option<String>,
    /// What an action did (a post deleted).
    done: Option<String>,
}

/// Posts listed on one page: a project of any size costs one management list call a page.
const POSTS_PER_PAGE: u64 = 100;

const STATUSES: [&str; 4] = ["draft", "scheduled", "published", "unpublished"];

/// What the posts page shows besides the posts.
#[derive(Default)]
struct Shown {
    /// What `create` holds for the `Create draft` form (a refused attempt: what was typed and
    /// why not).
    create: Value,
    /// What an action did.
    done: Option<Done>,
}

/// The posts page of `project`, filtered by `filter`, from `offset`, with what `extra` holds.
async fn posts_page(
    admin: &Admin,
    signed_in: &SignedIn,
    project: ProjectId,
    filter: Option<String>,
    offset: Option<String>,
    status: StatusCode,
    extra: Shown,
) -> Response {
    let service = admin.service();
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
                title => b.working.title(),
                slug => b.working.slug(),
                status => b.status.as_str(),
                published_at => b.published_at.map(time),
                updated_at => time(b.updated_at),
            }
        })
        .collect();
    let pager = pager(offset, shown, total, POSTS_PER_PAGE);
    admin.render(
        status,
        "posts.html",
        context! {
            me => me(signed_in),
            project => ProjectRow::from(&settings),
            posts => posts,
            filter => wanted.map(|s| s.as_str()),
            pager => pager,
            statuses => STATUSES,
            create => extra.create,
            notice => extra.done.map(Done::message),
        },
    )
}

/// A project's posts with their status, filterable by status.
#[handler]
pub(super) async fn list_posts(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(project): Path<String>,
    Query(query): Query<PostsQuery>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let shown = Shown {
        create: Value::UNDEFINED,
        done: Done::from_code(query.done.as_deref()),
    };
    posts_page(
        &admin,
        &signed_in,
        project,
        query.status,
        query.offset,
        StatusCode::OK,
        shown,
    )
    .await
}

/// The form of `Create draft`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct NewPostForm {
    /// The title.
    title: String,
    /// The slug.
    slug: String,
}

/// `Create draft`: a new draft with a title and a slug, and a redirect to its page.
#[handler]
pub(super) async fn create_post(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(project): Path<String>,
    Form(form): Form<NewPostForm>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let NewPostForm { title, slug } = form;
    let input = BlogInput {
        title: Some(title.clone()),
        slug: Some(slug.clone()),
        ..Default::default()
    };
    match admin
        .service()
        .create_blog(&signed_in.caller, project, input)
        .await
    {
        Ok(blog) => Done::DraftCreated.see(&format!("/admin/projects/{project}/posts/{}", blog.id)),
        Err(err) => {
            let shown = Shown {
                create: context! { title => title, slug => slug, errors => errors(&err) },
                done: None,
            };
            posts_page(
                &admin,
                &signed_in,
                project,
                None,
                None,
                status_of(&err),
                shown,
            )
            .await
        }
    }
}
