//! A post's page (`post.html`): its facts, the buttons its status allows, the editor, and the
//! preview (served by [`show_preview`] for the page's sandboxed frame, see `preview.rs`).
//!
//! Each button is an action type (they are in `post_actions.rs`): the form it posts (a struct
//! deriving `Deserialize`, the action itself), its URL
//! (`/admin/projects/{id}/posts/{post}/{action}`, from [`PostAction::ACTION`]) and what it
//! does ([`PostAction::run`]). [`post_action`] serves them all: the session, the post, the
//! run, and the redirect to the post's page saying what was done (or the page again, with the
//! Confirm step or why not).

use std::collections::BTreeMap;
use std::sync::Arc;

use blogread_core::Error as CoreError;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogFields, BlogId, BlogInput, BlogStatus, ProjectId, Timestamp};
use blogread_core::error::error_chain;
use blogread_core::read::{ListParams, RawListParams};
use blogread_core::service::{
    BacklinkFilter, BacklinkList, LinkEntry, LinkFilter, LinkReport, MediaView, SignedIn,
};
use minijinja::context;
use poem::http::{StatusCode, header};
use poem::web::{Data, Form, Path, Query};
use poem::{Request, Response, handler};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::done::Done;
use super::http::html;
use super::media::Thumb;
use super::pager::pager;
use super::pages::{Admin, ProjectRow, me, optional_url, status_of, time};

/// The path of a post's page and of its buttons.
#[derive(Debug, Deserialize)]
pub(super) struct PostPath {
    /// The project's id, as sent.
    project: String,
    /// The post's id, as sent.
    post: String,
}

/// The editor's fields (and the go-live time of `Schedule`), as posted or as stored. A post's
/// field is added to the editor here: in this struct, in its two conversions, and (for a
/// one-line input) in [`LINE_FIELDS`], which `post.html` shows.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub(super) struct PostForm {
    pub(super) title: String,
    pub(super) slug: String,
    pub(super) excerpt: String,
    pub(super) content: String,
    pub(super) meta_title: String,
    pub(super) meta_description: String,
    /// Blank for none; used when no stored image is picked.
    pub(super) featured_image_url: String,
    /// The URL of the stored image picked as the featured image in the editor's grid; blank:
    /// the URL typed in `featured_image_url`.
    pub(super) featured_pick: String,
    /// The id of a stored image to add at the end of the body (the editor's `Insert into
    /// body` buttons); blank for none.
    pub(super) insert_image: String,
    /// Comma-separated.
    pub(super) categories: String,
    /// Comma-separated.
    pub(super) tags: String,
    /// The `datetime-local` value of `Schedule` (UTC), or an RFC 3339 time.
    published_at: String,
}

/// The one-line inputs the editor shows after the body and the excerpt: each field's name
/// and label, in order.
const LINE_FIELDS: &[(&str, &str)] = &[
    ("meta_title", "Meta title"),
    ("meta_description", "Meta description"),
    ("categories", "Categories (comma-separated)"),
    ("tags", "Tags (comma-separated)"),
];

impl PostForm {
    /// The editor showing the stored `fields`.
    fn of(fields: &BlogFields) -> Self {
        PostForm {
            title: fields.title().to_owned(),
            slug: fields.slug().to_string(),
            excerpt: fields.excerpt().to_owned(),
            content: fields.content().to_owned(),
            meta_title: fields.meta_title().to_owned(),
            meta_description: fields.meta_description().to_owned(),
            featured_image_url: fields.featured_image_url().unwrap_or_default().to_owned(),
            categories: fields.categories().join(", "),
            tags: fields.tags().join(", "),
            published_at: String::new(),
            featured_pick: String::new(),
            insert_image: String::new(),
        }
    }

    /// The edit the editor's `Save` asks for: every field as typed (a blank image URL: none;
    /// lists split at commas, blank entries dropped).
    pub(super) fn to_input(&self) -> BlogInput {
        BlogInput {
            title: Some(self.title.clone()),
            slug: Some(self.slug.clone()),
            content: Some(self.content.clone()),
            excerpt: Some(self.excerpt.clone()),
            meta_title: Some(self.meta_title.clone()),
            meta_description: Some(self.meta_description.clone()),
            featured_image_url: Some(match self.featured_pick.trim() {
                "" => optional_url(&self.featured_image_url),
                picked => Some(picked.to_owned()),
            }),
            categories: Some(list(&self.categories)),
            tags: Some(list(&self.tags)),
        }
    }
}

/// A comma-separated list as typed: its entries trimmed, blank ones dropped.
fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// What a post page shows besides the post's state: what an action left to show.
#[derive(Debug, Default)]
pub(super) struct PostShown {
    /// The editor's fields as typed (kept when refused).
    pub(super) typed: Option<PostForm>,
    /// A destructive button waiting for `Confirm`.
    pub(super) confirm: Option<ConfirmStep>,
    /// What was done (`?done=`).
    done: Option<Done>,
    /// Errors by field (`""` for the editor as a whole, `action` for the buttons).
    pub(super) errors: BTreeMap<&'static str, String>,
}

/// A destructive button of a post page waiting for `Confirm` (`Delete`, and `Unpublish` of a
/// post that published posts link to): what it asks, and the links that the post's leaving
/// the public API would take from the other published posts. The page shows it as one
/// Confirm step, whichever button asked.
#[derive(Debug)]
pub(super) struct ConfirmStep {
    /// The button's action (the last segment of its URL): `Confirm` posts it again with
    /// `confirm=yes`.
    action: &'static str,
    /// What `Confirm` answers.
    question: &'static str,
    /// The published posts whose public answer would lose links, with how many each (the
    /// first hundred, and how many in all); `None` when they could not be read.
    lost: Option<BacklinkList>,
}

/// Entries a section of the post page lists at once (its links, the posts linking to it, the
/// posts a Confirm step names), each with the total and a way to the next ones.
const SECTION_PAGE: u32 = 100;

/// The first [`SECTION_PAGE`] of a list.
fn first_page() -> ListParams {
    ListParams {
        limit: SECTION_PAGE,
        ..ListParams::default()
    }
}

impl ConfirmStep {
    /// The step of button `action` asking `question`, with the links that post `on.post`
    /// leaving the public API would take away.
    pub(super) async fn ask(on: &OnPost<'_>, action: &'static str, question: &'static str) -> Self {
        let lost = match on
            .admin
            .service()
            .links_lost_without(on.caller, on.project, on.post, first_page())
            .await
        {
            Ok(lost) => Some(lost),
            Err(err) => {
                tracing::warn!(error = %error_chain(&err), "the links that would disappear with a post could not be read");
                None
            }
        };
        Self {
            action,
            question,
            lost,
        }
    }

    /// Whether links would (or may: unread) disappear from other published posts.
    pub(super) fn takes_links(&self) -> bool {
        self.lost.as_ref().is_none_or(|lost| lost.total > 0)
    }

    /// What the template shows.
    fn view(&self) -> minijinja::Value {
        let lost = self
            .lost
            .as_ref()
            .map(|l| l.backlinks.as_slice())
            .unwrap_or_default();
        let total = self.lost.as_ref().map_or(0, |l| l.total);
        context! {
            action => self.action,
            question => self.question,
            lost_unknown => self.lost.is_none(),
            lost_links => lost.iter().map(|b| u64::from(b.resolved)).sum::<u64>(),
            lost_posts => total,
            lost_more => total > lost.len() as u64,
            lost_from => lost.iter().map(|b| context! {
                id => b.blog_id.to_string(),
                title => b.title,
                count => b.resolved,
            }).collect::<Vec<_>>(),
        }
    }
}

/// What the post page says an action did: its fixed message, with what the post's state adds
/// (the go-live time of a scheduled post; the placeholders of a published copy that the public
/// answer leaves out, as the API's `unresolved_links`: the first hundred and how many).
fn notice(
    done: Done,
    status: BlogStatus,
    published_at: Option<Timestamp>,
    unresolved: Option<&LinkReport>,
) -> String {
    match done {
        Done::Published | Done::Resynced => {
            let Some(unresolved) = unresolved.filter(|u| u.total > 0) else {
                return done.message().to_owned();
            };
            let n = unresolved.total;
            let shown: Vec<&str> = unresolved
                .links
                .iter()
                .map(|l| l.placeholder.as_str())
                .collect();
            format!(
                "{} {n} internal link{} will not resolve and {} left out of the public answer: {}{}.",
                done.message(),
                if n == 1 { "" } else { "s" },
                if n == 1 { "is" } else { "are" },
                shown.join(", "),
                if n > shown.len() as u64 {
                    format!(
                        " and {} more (see Links in this post)",
                        n - shown.len() as u64
                    )
                } else {
                    String::new()
                }
            )
        }
        Done::Scheduled => match (status, published_at) {
            (BlogStatus::Scheduled, Some(at)) => format!("Scheduled for {}.", time(at)),
            _ => done.message().to_owned(),
        },
        other => other.message().to_owned(),
    }
}

/// A page of a post's links as its page lists them: the broken ones first.
struct BrokenFirst {
    links: Vec<LinkEntry>,
    /// Where the page starts in the whole list.
    offset: u64,
    /// All placeholders of the post.
    total: u64,
    /// The broken ones among them.
    broken: u64,
}

/// The page of post `id`'s placeholders from `offset` (a bad one is the API's 400), the
/// broken ones first (the working copy's, then the published one's, each in body order), then
/// the others: one list over two filtered reports.
async fn broken_first(
    admin: &Admin,
    caller: &Caller,
    project: ProjectId,
    id: BlogId,
    offset: &Option<String>,
) -> Result<BrokenFirst, CoreError> {
    let service = admin.service();
    let requested = section_page(offset);
    let first = service
        .blog_links(caller, project, id, LinkFilter::Broken, None, requested)
        .await?;
    let (offset, limit) = (first.offset, u64::from(first.limit));
    let broken = first.total;
    let mut links = first.links;
    let rest_offset = offset.saturating_sub(broken);
    let rest_limit = limit - links.len() as u64;
    let rest = service
        .blog_links(
            caller,
            project,
            id,
            LinkFilter::NotBroken,
            None,
            ListParams {
                limit: u32::try_from(rest_limit.max(1)).unwrap_or(SECTION_PAGE),
                offset: rest_offset,
                ..ListParams::default()
            },
        )
        .await?;
    if rest_limit > 0 {
        links.extend(rest.links);
    }
    Ok(BrokenFirst {
        links,
        offset,
        total: broken + rest.total,
        broken,
    })
}

/// The query of a post's page: what an action did, and where its lists stand.
#[derive(Debug, Default, Deserialize)]
pub(super) struct PostQuery {
    /// The code of what was done; anything but a known code shows nothing.
    done: Option<String>,
    /// Placeholders of the links section to skip (the broken ones come first).
    links_offset: Option<String>,
    /// Entries of the "Linked from" section to skip.
    from_offset: Option<String>,
}

/// A page of a section: `limit` [`SECTION_PAGE`], from `offset` (a bad one is the API's 400).
fn section_page(offset: &Option<String>) -> RawListParams {
    RawListParams {
        limit: Some(SECTION_PAGE.to_string()),
        offset: offset.clone().filter(|o| !o.is_empty()),
        ..RawListParams::default()
    }
}

/// Where a section's page stands among `total` entries, for its pager.
fn section_pager(offset: u64, shown: usize, total: u64) -> minijinja::Value {
    pager(offset, shown as u64, total, u64::from(SECTION_PAGE))
}

/// A stored image as the post page shows it: in the editor's grid (to pick as the featured
/// image, or to insert into the body) and in the list of images the post uses.
#[derive(Debug, Serialize)]
struct PostImage {
    id: String,
    /// Its public URL, as a post names it.
    url: String,
    thumb: Thumb,
    alt: String,
    width: u32,
    height: u32,
    /// Whether the editor's featured image is this one (by its master's or a variant's URL).
    picked: bool,
}

impl PostImage {
    fn of(view: &MediaView, featured: &str) -> Self {
        let item = &view.item;
        PostImage {
            id: item.id.to_string(),
            url: view.url.clone(),
            thumb: Thumb::of(item),
            alt: item.alt.as_str().to_owned(),
            width: item.width,
            height: item.height,
            picked: !featured.is_empty()
                && (view.url == featured || view.variants.iter().any(|v| v.url == featured)),
        }
    }
}

/// The editor's grid of the project's images (the newest page) and the images post `id`
/// uses; each `None` when it could not be read (said on the page; the rest shows), both
/// empty when the server keeps no images.
async fn post_images(
    admin: &Admin,
    caller: &Caller,
    project: ProjectId,
    id: BlogId,
    form: &PostForm,
) -> (Option<Vec<PostImage>>, Option<Vec<PostImage>>) {
    let service = admin.service();
    if service.media_setup().is_none() {
        return (Some(Vec::new()), Some(Vec::new()));
    }
    let featured = match form.featured_pick.trim() {
        "" => form.featured_image_url.trim(),
        picked => picked,
    };
    let unread = |err: CoreError| {
        tracing::warn!(error = %error_chain(&err), "the images of a post page could not be read");
    };
    let choices = service
        .media_list(caller, project, ListParams::default())
        .await
        .map(|list| {
            list.media
                .iter()
                .map(|v| PostImage::of(v, featured))
                .collect()
        })
        .map_err(unread)
        .ok();
    let used = service
        .blog_media(caller, project, id)
        .await
        .map(|views| views.iter().map(|v| PostImage::of(v, featured)).collect())
        .map_err(unread)
        .ok();
    (choices, used)
}

/// The page of post `id` with what an action left to show.
async fn post_page(
    admin: &Admin,
    signed_in: &SignedIn,
    project: ProjectId,
    id: BlogId,
    status: StatusCode,
    shown: PostShown,
    query: &PostQuery,
) -> Response {
    let service = admin.service();
    let caller = &signed_in.caller;
    let settings = match service.project(caller, project).await {
        Ok(p) => p,
        Err(err) => return admin.error_page(&err),
    };
    let blog = match service.blog(caller, project, id).await {
        Ok(b) => b,
        Err(err) => return admin.error_page(&err),
    };
    // The links report of this post: failing to read it says so in the sections, and the
    // rest of the page shows.
    let unread = |err: CoreError| {
        tracing::warn!(error = %error_chain(&err), "the links of a post could not be read");
    };
    let links = match broken_first(admin, caller, project, id, &query.links_offset).await {
        Ok(links) => Some(links),
        // A bad offset in the page's own query: the API's 400.
        Err(err @ CoreError::BadRequest(_)) => return admin.error_page(&err),
        Err(err) => {
            unread(err);
            None
        }
    };
    let unresolved = match shown.done {
        Some(Done::Published | Done::Resynced) => service
            .blog_links(
                caller,
                project,
                id,
                LinkFilter::Broken,
                Some(blogread_core::store::BodyCopy::Published),
                first_page(),
            )
            .await
            .map_err(unread)
            .ok(),
        _ => None,
    };
    let linked_from = match service
        .backlinks(
            caller,
            project,
            id,
            BacklinkFilter::All,
            section_page(&query.from_offset),
        )
        .await
    {
        Ok(list) => Some(list),
        Err(err @ CoreError::BadRequest(_)) => return admin.error_page(&err),
        Err(err) => {
            unread(err);
            None
        }
    };
    let form = shown.typed.unwrap_or_else(|| PostForm::of(&blog.working));
    let (choices, used_media) = post_images(admin, caller, project, id, &form).await;
    let s = blog.status;
    admin.render(
        status,
        "post.html",
        context! {
            me => me(signed_in),
            project => ProjectRow::from(&settings),
            post => context! {
                id => blog.id.to_string(),
                title => blog.working.title(),
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
            line_fields => LINE_FIELDS,
            confirm => shown.confirm.as_ref().map(ConfirmStep::view),
            links => links.as_ref().map(|l| l.links.iter().map(super::links::row).collect::<Vec<_>>()),
            links_pager => links.as_ref().map(|l| section_pager(l.offset, l.links.len(), l.total)),
            broken_links => links.as_ref().map(|l| l.broken),
            linked_from => linked_from.as_ref().map(|l| l.backlinks.iter().map(|b| context! {
                id => b.blog_id.to_string(),
                title => b.title,
                slug => b.slug,
                copy => b.copy.as_str(),
                count => b.count,
                resolved => b.resolved,
            }).collect::<Vec<_>>()),
            linked_from_pager => linked_from.as_ref().map(|l| section_pager(l.offset, l.backlinks.len(), l.total)),
            featured_picked => choices.as_ref().is_some_and(|c| c.iter().any(|m| m.picked)),
            media => choices,
            used_media => used_media,
            notice => shown.done.map(|done| notice(done, s, blog.published_at, unresolved.as_ref())),
            errors => shown.errors,
        },
    )
}

/// A post: its fields, the buttons its status allows, the editor and the preview; after an
/// action, what it did (`?done=`).
#[handler]
pub(super) async fn show_post(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(at): Path<PostPath>,
    Query(query): Query<PostQuery>,
) -> Response {
    let (signed_in, project, post) = match admin.session_at_post(req, &at.project, &at.post).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let shown = PostShown {
        done: Done::from_code(query.done.as_deref()),
        ..PostShown::default()
    };
    post_page(
        &admin,
        &signed_in,
        project,
        post,
        StatusCode::OK,
        shown,
        &query,
    )
    .await
}

/// The preview of a post's working copy, internal links resolved as the public API would:
/// sanitised, in a document of its own with a sandboxing policy, for the post page's
/// `<iframe sandbox>` (see `preview.rs`).
#[handler]
pub(super) async fn show_preview(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(at): Path<PostPath>,
) -> Response {
    let (signed_in, project, post) = match admin.session_at_post(req, &at.project, &at.post).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    match admin
        .service()
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

// ---- the actions ----

/// What an action acts on: the pages, as the signed-in caller, on the post of the page.
pub(super) struct OnPost<'a> {
    pub(super) admin: &'a Admin,
    pub(super) caller: &'a Caller,
    pub(super) project: ProjectId,
    pub(super) post: BlogId,
}

/// Where an action leads, when it was not refused.
pub(super) enum Next {
    /// The post page again, with the Confirm step the action asks (nothing changed).
    Confirm,
    /// Done: a redirect to the post page saying so.
    Did(Done),
    /// Another answer: the post is gone.
    Elsewhere(Response),
}

/// One button of a post page. The type is the form the button posts.
pub(super) trait PostAction: DeserializeOwned + Send + Sync + 'static {
    /// The last segment of its URL.
    const ACTION: &'static str;

    /// Where the page shows an error of this action: a key of its `errors`.
    fn error_key(_err: &CoreError) -> &'static str {
        "action"
    }

    /// Calls the service and says where that leads, filling what the page shows when it is
    /// shown again (the Confirm step, the typed values of a refusal).
    fn run(
        self,
        on: &OnPost<'_>,
        shown: &mut PostShown,
    ) -> impl Future<Output = Result<Next, CoreError>> + Send;
}

/// Serves the button `A` of a post page: done, a redirect to the post page that says what was
/// done; else the post page again, with the Confirm step or why not (nothing changed).
#[handler]
pub(super) async fn post_action<A: PostAction>(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(at): Path<PostPath>,
    Form(action): Form<A>,
) -> Response {
    let (signed_in, project, id) = match admin.session_at_post(req, &at.project, &at.post).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let on = OnPost {
        admin: &admin,
        caller: &signed_in.caller,
        project,
        post: id,
    };
    let mut shown = PostShown::default();
    let status = match action.run(&on, &mut shown).await {
        Ok(Next::Did(done)) => {
            return done.see(&format!("/admin/projects/{project}/posts/{id}"));
        }
        Ok(Next::Confirm) => StatusCode::OK,
        Ok(Next::Elsewhere(resp)) => return resp,
        Err(err) => {
            shown.errors.insert(A::error_key(&err), err.public_detail());
            status_of(&err)
        }
    };
    post_page(
        &admin,
        &signed_in,
        project,
        id,
        status,
        shown,
        &PostQuery::default(),
    )
    .await
}
