//! The buttons of the Media page (see `media.rs`): `Upload`, an image's `Save alt text`, and
//! its `Delete` (asking to `Confirm` first). Each reads its form, calls one [`Service`]
//! operation as the signed-in caller, and answers with a redirect to the Media page saying
//! what was done, or the page again with why not (what was typed kept).
//!
//! The Upload form is `multipart/form-data`: the server gives its route the upload's body cap
//! and an upload place, as it does the API's, and the form guard reads its token from it (see
//! `middleware.rs` and `form_guard.rs`).
//!
//! [`Service`]: blogread_core::Service

use std::sync::Arc;

use blogread_core::Error as CoreError;
use blogread_core::domain::{MediaId, ProjectId};
use blogread_core::error::{FieldError, NotFound};
use blogread_core::service::{MediaUpload, SignedIn, Uploaded};
use bytes::Bytes;
use poem::http::StatusCode;
use poem::web::{Data, Form, Multipart, Path};
use poem::{Request, Response, handler};
use serde::Deserialize;

use super::done::Done;
use super::http::see_other;
use super::media::{MediaShown, media_page, page_path};
use super::pages::{Admin, status_of};

/// The path of an image's buttons.
#[derive(Debug, Deserialize)]
pub(super) struct MediaAt {
    /// The project's id, as sent.
    project: String,
    /// The image's id, as sent.
    media: String,
}

/// The Upload form as sent.
#[derive(Debug, Default)]
struct UploadForm {
    /// The file's bytes and the type the browser declared for it.
    file: Option<(Bytes, Option<String>)>,
    /// The alt text typed.
    alt: String,
}

/// Reads the Upload form's parts: `file`, `alt` (and the form token, already checked).
async fn read_upload(mut form: Multipart) -> Result<UploadForm, CoreError> {
    let unreadable = |e: poem::error::ParseMultipartError| {
        CoreError::Invalid(FieldError::new(
            "file",
            format!("the form could not be read ({e}): choose the file again and upload"),
        ))
    };
    let mut read = UploadForm::default();
    while let Some(field) = form.next_field().await.map_err(unreadable)? {
        match field.name() {
            Some("file") if read.file.is_none() => {
                let declared = field.content_type().map(str::to_owned);
                let bytes = field.bytes().await.map_err(|e| {
                    CoreError::Invalid(FieldError::new(
                        "file",
                        format!("the file could not be read ({e}): choose it again and upload"),
                    ))
                })?;
                read.file = Some((Bytes::from(bytes), declared));
            }
            Some("alt") => {
                read.alt = field
                    .text()
                    .await
                    .map_err(|_| CoreError::Invalid(FieldError::new("alt", "is not UTF-8 text")))?;
            }
            // The form token (`FIELD`, checked before this) and anything else: read past.
            _ => {}
        }
    }
    Ok(read)
}

/// `Upload`: the image with its alt text, stored (or found already there) as the API's upload
/// does it; refused, the page again saying what to fix.
#[handler]
pub(super) async fn upload_media(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(project): Path<String>,
    form: poem::Result<Multipart>,
) -> Response {
    let (signed_in, project) = match admin.session_in(req, &project).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let form = match form {
        Ok(form) => read_upload(form).await,
        Err(_) => Err(CoreError::Invalid(FieldError::new(
            "file",
            "the form was not sent as multipart/form-data: use the Upload form of this page",
        ))),
    };
    let (uploaded, alt) = match form {
        Ok(UploadForm { file, alt }) => {
            let (bytes, declared_type) = file.unwrap_or_default();
            let upload = MediaUpload {
                bytes,
                declared_type,
                alt: Some(alt.clone()),
            };
            let uploaded = admin
                .service()
                .upload_media(&signed_in.caller, project, upload)
                .await;
            (uploaded, alt)
        }
        Err(err) => (Err(err), String::new()),
    };
    match uploaded {
        Ok(Uploaded::Created(_)) => see_other(&page_path(project, 0, Some(Done::MediaUploaded))),
        Ok(Uploaded::Existing(_)) => see_other(&page_path(project, 0, Some(Done::MediaExisting))),
        Err(err) => {
            let mut shown = MediaShown {
                upload_alt: Some(alt),
                ..MediaShown::default()
            };
            shown
                .errors
                .insert("upload".to_owned(), err.public_detail());
            media_page(&admin, &signed_in, project, None, status_of(&err), shown).await
        }
    }
}

/// The form of an image's `Save alt text`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct AltForm {
    /// The alt text typed (empty removes it).
    alt: String,
    /// The page's offset, to come back to.
    offset: String,
}

/// The signed-in caller, the project and the image a form on an image's card names: or the
/// answer already given (sign-in, a project not theirs, an id that names no image).
async fn item_at(
    admin: &Admin,
    req: &Request,
    at: &MediaAt,
) -> Result<(SignedIn, ProjectId, MediaId), Response> {
    let (signed_in, project) = admin.session_in(req, &at.project).await?;
    let id = at
        .media
        .parse::<MediaId>()
        .map_err(|_| admin.error_page(&CoreError::NotFound(NotFound::Media)))?;
    Ok((signed_in, project, id))
}

/// The offset a form carries back (0 when it reads as none).
fn offset_of(sent: &str) -> u64 {
    sent.trim().parse().unwrap_or(0)
}

/// An image's `Save alt text`.
#[handler]
pub(super) async fn edit_alt(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(at): Path<MediaAt>,
    Form(form): Form<AltForm>,
) -> Response {
    let (signed_in, project, id) = match item_at(&admin, req, &at).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let offset = offset_of(&form.offset);
    match admin
        .service()
        .set_media_alt(&signed_in.caller, project, id, form.alt.clone())
        .await
    {
        Ok(_) => see_other(&format!(
            "{}#media-{id}",
            page_path(project, offset, Some(Done::AltSaved))
        )),
        Err(err @ CoreError::NotFound(_)) => admin.error_page(&err),
        Err(err) => {
            let mut shown = MediaShown {
                alt_typed: Some((id, form.alt)),
                ..MediaShown::default()
            };
            shown.errors.insert(id.to_string(), err.public_detail());
            let offset = Some(offset.to_string());
            media_page(&admin, &signed_in, project, offset, status_of(&err), shown).await
        }
    }
}

/// The form of an image's `Delete`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct DeleteForm {
    /// `yes` once `Confirm` is clicked.
    confirm: String,
    /// The page's offset, to come back to.
    offset: String,
}

/// An image's `Delete`: first the page again asking to `Confirm` (nothing changed), then,
/// confirmed, the image's row and files removed.
#[handler]
pub(super) async fn delete_media(
    req: &Request,
    admin: Data<&Arc<Admin>>,
    Path(at): Path<MediaAt>,
    Form(form): Form<DeleteForm>,
) -> Response {
    let (signed_in, project, id) = match item_at(&admin, req, &at).await {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let offset = offset_of(&form.offset);
    if form.confirm != "yes" {
        let shown = MediaShown {
            confirm_delete: Some(id),
            ..MediaShown::default()
        };
        let offset = Some(offset.to_string());
        return media_page(&admin, &signed_in, project, offset, StatusCode::OK, shown).await;
    }
    match admin
        .service()
        .delete_media(&signed_in.caller, project, id)
        .await
    {
        Ok(()) => see_other(&page_path(project, offset, Some(Done::MediaDeleted))),
        // Still used by posts: the page again, the refusal (naming them) beside its Delete.
        Err(err @ CoreError::Conflict(_)) => {
            let mut shown = MediaShown::default();
            shown
                .errors
                .insert(format!("delete-{id}"), err.public_detail());
            let offset = Some(offset.to_string());
            media_page(&admin, &signed_in, project, offset, status_of(&err), shown).await
        }
        Err(err) => admin.error_page(&err),
    }
}
