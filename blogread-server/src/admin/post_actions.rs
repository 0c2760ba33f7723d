//! The buttons of a post page, one action type each (see `post.rs` for what an action is and
//! how it is served).

use blogread_core::Error as CoreError;
use blogread_core::domain::{BlogStatus, Timestamp};
use blogread_core::error::{FieldError, NotFound};
use poem::{Route, post};
use serde::Deserialize;

use super::done::Done;
use super::pages::field_of;
use super::post::{ConfirmStep, Next, OnPost, PostAction, PostForm, PostShown, post_action};

/// `route` with every button of a post page.
pub(super) fn routes(route: Route) -> Route {
    fn add<A: PostAction>(route: Route) -> Route {
        route.at(
            format!("/projects/:project/posts/:post/{}", A::ACTION),
            post(post_action::<A>::default()),
        )
    }
    let route = add::<Save>(route);
    let route = add::<Publish>(route);
    let route = add::<Resync>(route);
    let route = add::<Schedule>(route);
    let route = add::<Unschedule>(route);
    let route = add::<Unpublish>(route);
    let route = add::<Delete>(route);
    add::<NoSuchAction>(route)
}

/// Reads the `datetime-local` value of `Schedule` (UTC) or an RFC 3339 time.
fn go_live(value: &str) -> Result<Timestamp, CoreError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(CoreError::Invalid(FieldError::new(
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

/// The editor's `Save`: the working copy, private until published.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub(super) struct Save(PostForm);

impl PostAction for Save {
    const ACTION: &'static str = "save";

    /// The field the error names, else the editor as a whole.
    fn error_key(err: &CoreError) -> &'static str {
        field_of(err).unwrap_or("")
    }

    async fn run(self, on: &OnPost<'_>, shown: &mut PostShown) -> Result<Next, CoreError> {
        let mut form = self.0;
        let inserted = match form.insert_image.trim() {
            "" => false,
            id => {
                let image = match inserted_image(on, id).await {
                    Ok(image) => image,
                    Err(err) => {
                        shown.typed = Some(form);
                        return Err(err);
                    }
                };
                if !form.content.is_empty() && !form.content.ends_with('\n') {
                    form.content.push('\n');
                }
                form.content.push_str(&image);
                true
            }
        };
        let patch = form.to_input();
        let edited = on
            .admin
            .service()
            .edit_blog(on.caller, on.project, on.post, patch)
            .await;
        match edited {
            Ok(_) if inserted => Ok(Next::Did(Done::ImageInserted)),
            Ok(_) => Ok(Next::Did(Done::Saved)),
            Err(err) => {
                shown.typed = Some(form);
                Err(err)
            }
        }
    }
}

/// The `<img>` that `Insert into body` adds for stored image `id` (as typed in the form): its
/// public URL, its alt text and its size, so that the page keeps its place while it loads.
async fn inserted_image(on: &OnPost<'_>, id: &str) -> Result<String, CoreError> {
    let id: blogread_core::domain::MediaId = id
        .parse()
        .map_err(|_| CoreError::NotFound(blogread_core::error::NotFound::Media))?;
    let view = on
        .admin
        .service()
        .media_item(on.caller, on.project, id)
        .await?;
    let item = &view.item;
    Ok(format!(
        "<img src=\"{}\" alt=\"{}\" width=\"{}\" height=\"{}\">",
        attribute(&view.url),
        attribute(item.alt.as_str()),
        item.width,
        item.height
    ))
}

/// `text` for a double-quoted attribute of the body: the four characters that could end it
/// or start markup escaped, and nothing else (a URL's `/` stays as the author would write it,
/// so that the body names the image by its URL, as uses and exports read it).
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `Publish`: the working copy goes public now.
#[derive(Debug, Deserialize)]
pub(super) struct Publish {}

impl PostAction for Publish {
    const ACTION: &'static str = "publish";

    /// The page it redirects to names the links that will not resolve, read from the post's
    /// links as the API's `unresolved_links` are.
    async fn run(self, on: &OnPost<'_>, _: &mut PostShown) -> Result<Next, CoreError> {
        on.admin
            .service()
            .publish_blog(on.caller, on.project, on.post, None)
            .await?;
        Ok(Next::Did(Done::Published))
    }
}

/// `Re-sync` of a published post: its working copy goes public, as [`Publish`].
#[derive(Debug, Deserialize)]
pub(super) struct Resync {}

impl PostAction for Resync {
    const ACTION: &'static str = "resync";

    async fn run(self, on: &OnPost<'_>, _: &mut PostShown) -> Result<Next, CoreError> {
        on.admin
            .service()
            .publish_blog(on.caller, on.project, on.post, None)
            .await?;
        Ok(Next::Did(Done::Resynced))
    }
}

/// `Schedule`: publish at the go-live time (at once when it has passed).
#[derive(Debug, Deserialize)]
pub(super) struct Schedule {
    /// The go-live time.
    #[serde(default)]
    published_at: String,
}

impl PostAction for Schedule {
    const ACTION: &'static str = "schedule";

    /// An unreadable time shows next to the go-live field; any other error above the buttons.
    fn error_key(err: &CoreError) -> &'static str {
        field_of(err).map_or("action", |_| "published_at")
    }

    /// A time already passed publishes at once: the page says published.
    async fn run(self, on: &OnPost<'_>, _: &mut PostShown) -> Result<Next, CoreError> {
        let at = go_live(&self.published_at)?;
        let written = on
            .admin
            .service()
            .publish_blog(on.caller, on.project, on.post, Some(at))
            .await?;
        Ok(Next::Did(match written.blog.status {
            BlogStatus::Scheduled => Done::Scheduled,
            _ => Done::Published,
        }))
    }
}

/// `Unschedule`: back to draft.
#[derive(Debug, Deserialize)]
pub(super) struct Unschedule {}

impl PostAction for Unschedule {
    const ACTION: &'static str = "unschedule";

    async fn run(self, on: &OnPost<'_>, _: &mut PostShown) -> Result<Next, CoreError> {
        on.admin
            .service()
            .unschedule_blog(on.caller, on.project, on.post)
            .await?;
        Ok(Next::Did(Done::Unscheduled))
    }
}

/// `Unpublish`: the post leaves the public API; at once, unless links to it would disappear
/// from other published posts, which `Confirm` names first.
#[derive(Debug, Deserialize)]
pub(super) struct Unpublish {
    /// `yes` once `Confirm` is clicked.
    #[serde(default)]
    confirm: String,
}

impl PostAction for Unpublish {
    const ACTION: &'static str = "unpublish";

    async fn run(self, on: &OnPost<'_>, shown: &mut PostShown) -> Result<Next, CoreError> {
        if self.confirm != "yes" {
            let step = ConfirmStep::ask(on, Self::ACTION, "Unpublish this post?").await;
            if step.takes_links() {
                shown.confirm = Some(step);
                return Ok(Next::Confirm);
            }
        }
        on.admin
            .service()
            .unpublish_blog(on.caller, on.project, on.post)
            .await?;
        Ok(Next::Did(Done::Unpublished))
    }
}

/// `Delete`, once `Confirm` is clicked: to the posts page saying so, or the error page.
#[derive(Debug, Deserialize)]
pub(super) struct Delete {
    /// `yes` once `Confirm` is clicked.
    #[serde(default)]
    confirm: String,
}

impl PostAction for Delete {
    const ACTION: &'static str = "delete";

    async fn run(self, on: &OnPost<'_>, shown: &mut PostShown) -> Result<Next, CoreError> {
        if self.confirm != "yes" {
            let question = "Delete this post? This cannot be undone.";
            shown.confirm = Some(ConfirmStep::ask(on, Self::ACTION, question).await);
            return Ok(Next::Confirm);
        }
        let deleted = on
            .admin
            .service()
            .delete_blog(on.caller, on.project, on.post)
            .await;
        Ok(Next::Elsewhere(match deleted {
            Ok(_) => Done::PostDeleted.see(&format!("/admin/projects/{}/posts", on.project)),
            Err(err) => on.admin.error_page(&err),
        }))
    }
}

/// Any other last segment (`:action`, a path parameter, so the route takes what the others
/// do not): the post page says no such action exists (404).
#[derive(Debug, Deserialize)]
pub(super) struct NoSuchAction {}

impl PostAction for NoSuchAction {
    const ACTION: &'static str = ":action";

    async fn run(self, _: &OnPost<'_>, _: &mut PostShown) -> Result<Next, CoreError> {
        Err(CoreError::NotFound(NotFound::Blog))
    }
}
