//! A project's Media page (`media.html`): the Upload form, and the project's images newest
//! first, [`MEDIA_PER_PAGE`] a page, each with its thumbnail, size, type and alt text, the
//! form that edits the alt text and the `Delete` button (with its Confirm step). What the
//! buttons do is in `media_actions.rs`.
//!
//! The thumbnails are the images' smallest copies, loaded from this server's own `/media/`
//! path ([`MediaSetup::path`]), so the pages' `img-src 'self'` allows them wherever the pages
//! are opened. An alt text is an author's text: the template escapes it like any other.

use std::collections::BTreeMap;
use std::sync::Arc;

use blogread_core::domain::{MediaId, MediaItem, ProjectId};
use blogread_core::read::RawListParams;
use blogread_core::service::{MediaSetup, MediaView, SignedIn};
use minijinja::context;
use poem::http::StatusCode;
use poem::web::{Data, Path, Query};
use poem::{Request, Response, handler};
use serde::{Deserialize, Serialize};

use super::done::Done;
use super::http::see_other;
use super::pager::pager;
use super::pages::{Admin, ProjectRow, me, time};

/// Images listed on one page.
pub(super) const MEDIA_PER_PAGE: u64 = 50;

/// Why the server refused an upload before its body was read (so before the Upload handler
/// ran): the Media page says it from the code in its URL (`?refused=`), a fixed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadRefusal {
    /// The body is over the upload cap (413).
    TooLarge,
    /// Every upload place is taken (503).
    Busy,
}

/// Every refusal with its code and its message.
const REFUSALS: [(UploadRefusal, &str, &str); 2] = [
    (
        UploadRefusal::TooLarge,
        "too-large",
        "The file is too large: an upload is at most 20 MiB. Nothing was stored; choose a smaller file.",
    ),
    (
        UploadRefusal::Busy,
        "busy",
        "Too many images are being uploaded right now. Nothing was stored; upload it again in a moment.",
    ),
];

impl UploadRefusal {
    fn code(self) -> &'static str {
        REFUSALS
            .iter()
            .find(|(r, _, _)| *r == self)
            .map_or("", |(_, code, _)| code)
    }

    fn from_code(code: Option<&str>) -> Option<Self> {
        let code = code?;
        REFUSALS
            .iter()
            .find(|(_, known, _)| *known == code)
            .map(|(r, _, _)| *r)
    }

    fn message(self) -> &'static str {
        REFUSALS
            .iter()
            .find(|(r, _, _)| *r == self)
            .map_or("", |(_, _, message)| message)
    }
}

/// The answer to an upload to `project`'s Media page refused before its body was read: back
/// to the page (`303`, the browser asks it with `GET`), which says why.
pub fn upload_refused(project: ProjectId, why: UploadRefusal) -> Response {
    see_other(&format!(
        "/admin/projects/{project}/media?refused={}",
        why.code()
    ))
}

/// The answer to an upload to `project`'s Media page by a browser whose session may not upload
/// there (none, ended, another project's), refused before its body was read: back to the page
/// (`303`), which shows what this session may see there (the sign-in page, an error page).
pub fn upload_not_allowed(project: ProjectId) -> Response {
    see_other(&page_path(project, 0, None))
}

/// The path of `project`'s Media page showing the images from `offset`, saying `done`.
pub(super) fn page_path(project: ProjectId, offset: u64, done: Option<Done>) -> String {
    let mut path = format!("/admin/projects/{project}/media");
    let mut sep = '?';
    if offset > 0 {
        path.push_str(&format!("{sep}offset={offset}"));
        sep = '&';
    }
    if let Some(done) = done {
        path.push_str(&format!("{sep}done={}", done.code()));
    }
    path
}

/// The query of the Media page.
#[derive(Debug, Default, Deserialize)]
pub(super) struct MediaQuery {
    /// Images to skip: the page shows [`MEDIA_PER_PAGE`] from there.
    pub(super) offset: Option<String>,
    /// What an action did.
    done: Option<String>,
    /// Why an upload was refused before it was read.
    refused: Option<String>,
}

/// What the Media page shows besides the images: what an action left to show.
#[derive(Debug, Default)]
pub(super) struct MediaShown {
    /// What was done.
    pub(super) done: Option<Done>,
    /// The alt text typed into the Upload form (kept when refused).
    pub(super) upload_alt: Option<String>,
    /// An item's alt text as typed (kept when refused): (item, text).
    pub(super) alt_typed: Option<(MediaId, String)>,
    /// The item whose `Delete` waits for `Confirm`.
    pub(super) confirm_delete: Option<MediaId>,
    /// Errors by place: `upload` (the Upload form), an item's id (its alt form), or
    /// `delete-{id}` (its Delete, refused while posts use it).
    pub(super) errors: BTreeMap<String, String>,
}

/// An image as the page shows it.
#[derive(Debug, Serialize)]
struct MediaRow {
    id: String,
    /// The thumbnail: the smallest copy (the 480 px one, or the master when it has none).
    thumb: Thumb,
    /// The master, on this server (the link to it).
    master_path: String,
    /// The master's public URL, as posts use it.
    url: String,
    width: u32,
    height: u32,
    /// The master's size, for people (`184.3 KB`).
    size: String,
    content_type: &'static str,
    alt: String,
    /// What the alt form shows: the stored text, or what was typed and refused.
    alt_value: String,
    created_at: String,
    /// The posts using the image (a used image cannot be deleted).
    used_by: Vec<UsedBy>,
}

/// A post using an image, as its card names it.
#[derive(Debug, Serialize)]
struct UsedBy {
    /// The post's page.
    path: String,
    title: String,
}

/// The image a thumbnail shows: the narrowest copy, by its same-origin path.
#[derive(Debug, Serialize)]
pub(super) struct Thumb {
    src: String,
    width: u32,
    height: u32,
}

impl Thumb {
    /// The thumbnail of `item`: its narrowest variant, or the master when it has none.
    pub(super) fn of(item: &MediaItem) -> Self {
        match item.variants.first() {
            Some(v) => Thumb {
                src: MediaSetup::path(item, Some(v.width)),
                width: v.width,
                height: v.height,
            },
            None => Thumb {
                src: MediaSetup::path(item, None),
                width: item.width,
                height: item.height,
            },
        }
    }
}

impl MediaRow {
    fn of(view: &MediaView, shown: &MediaShown) -> Self {
        let item = &view.item;
        let thumb = Thumb::of(item);
        let alt = item.alt.as_str().to_owned();
        let alt_value = match &shown.alt_typed {
            Some((id, typed)) if *id == item.id => typed.clone(),
            _ => alt.clone(),
        };
        MediaRow {
            id: item.id.to_string(),
            thumb,
            master_path: MediaSetup::path(item, None),
            url: view.url.clone(),
            width: item.width,
            height: item.height,
            size: human_size(item.bytes),
            content_type: item.content_type.media_type(),
            alt,
            alt_value,
            created_at: time(item.created_at),
            used_by: view
                .used_by
                .iter()
                .map(|user| UsedBy {
                    path: format!("/admin/projects/{}/posts/{}", item.project_id, user.id),
                    title: user.title.clone(),
                })
                .collect(),
        }
    }
}

/// A size in bytes as people read it: bytes under a KB, then KB, then MB (of 1024).
fn human_size(bytes: u64) -> String {
    const KB: u64 = 1024;
    const MB: u64 = 1024 * 1024;
    match bytes {
        b if b < KB => format!("{b} bytes"),
        b if b < MB => format!("{:.1} KB", b as f64 / KB as f64),
        b => format!("{:.1} MB", b as f64 / MB as f64),
    }
}

/// The Media page of `project` from `offset`, with what an action left to show.
pub(super) async fn media_page(
    admin: &Admin,
    signed_in: &SignedIn,
    project: ProjectId,
    offset: Option<String>,
    status: StatusCode,
    shown: MediaShown,
) -> Response {
    let service = admin.service();
    let caller = &signed_in.caller;
    let settings = match service.project(caller, project).await {
        Ok(p) => p,
        Err(err) => return admin.error_page(&err),
    };
    // The same rules as the management list: a bad offset is the API's 400 detail.
    let params = RawListParams {
        limit: Some(MEDIA_PER_PAGE.to_string()),
        offset: offset.filter(|o| !o.is_empty()),
        ..RawListParams::default()
    };
    let page = match service.media_list(caller, project, params).await {
        Ok(page) => page,
        Err(err) => return admin.error_page(&err),
    };
    let (offset, shown_count, total) = (page.offset, page.media.len() as u64, page.total);
    let media: Vec<MediaRow> = page
        .media
        .iter()
        .map(|view| MediaRow::of(view, &shown))
        .collect();
    let pager = pager(offset, shown_count, total, MEDIA_PER_PAGE);
    admin.render(
        status,
        "media.html",
        context! {
            me => me(signed_in),
            project => ProjectRow::from(&settings),
            media => media,
            offset => offset,
            pager => pager,
            notice => shown.done.map(Done::message),
            upload_alt => shown.upload_alt,
            confirm_delete => shown.confirm_delete.map(|id| id.to_string()),
            errors => shown.errors,
        },
    )
}

/// A project's Media page; after an action, what it did (`?done=`), after an upload refused
/// before it was read, why (`?refused=`).
#[handler]
pub(super) async fn show_media(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(project): Path<String>,
    Query(query): Query<MediaQuery>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let mut shown = MediaShown {
        done: Done::from_code(query.done.as_deref()),
        ..MediaShown::default()
    };
    if let Some(why) = UploadRefusal::from_code(query.refused.as_deref()) {
        shown
            .errors
            .insert("upload".to_owned(), why.message().to_owned());
    }
    media_page(
        &admin,
        &signed_in,
        project,
        query.offset,
        StatusCode::OK,
        shown,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_bytes_kb_and_mb() {
        assert_eq!(human_size(812), "812 bytes");
        assert_eq!(human_size(184_320), "180.0 KB");
        assert_eq!(human_size(3 * 1024 * 1024 + 512 * 1024), "3.5 MB");
    }

    #[test]
    fn every_refusal_code_reads_back_and_others_show_nothing() {
        for (why, code, _) in REFUSALS {
            assert_eq!(UploadRefusal::from_code(Some(code)), Some(why));
            assert_eq!(why.code(), code);
        }
        for code in ["", "Busy", "<script>", "too-large "] {
            assert_eq!(UploadRefusal::from_code(Some(code)), None, "{code}");
        }
    }

    #[test]
    fn the_page_path_carries_the_offset_and_what_was_done() {
        let project = ProjectId::generate();
        assert_eq!(
            page_path(project, 0, None),
            format!("/admin/projects/{project}/media")
        );
        assert_eq!(
            page_path(project, 50, Some(Done::AltSaved)),
            format!("/admin/projects/{project}/media?offset=50&done=alt-saved")
        );
    }
}
