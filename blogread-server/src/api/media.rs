//! A project's images for admins and agents (`docs/media.md`): upload, list, read, alt edit,
//! delete. The files themselves are served to the public by [`crate::media_files`].

use blogread_core::Service;
use blogread_core::error::NotFound;
use blogread_core::read::RawListParams;
use blogread_core::service::{
    MediaList as CoreMediaList, MediaUpload, MediaView as CoreMediaView, Uploaded,
};
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::types::Example;
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::auth::ManagementAuth;
use super::common::{ApiTags, NoContent204, Ok200, ok, path_id};
use super::media_form::MediaForm;
use super::schema::{DateTime, JsonBody, LimitDoc, OffsetDoc, PathId, Raw, raw};
use crate::error::{self, Reply, reply};

/// One smaller copy of an image, made at upload.
#[derive(Debug, Clone, Object)]
pub struct MediaVariant {
    /// Its width in pixels: 480, 960 or 1600 (each only when narrower than the master).
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its public URL (`…/media/{project_id}/{sha256}/w{width}.{ext}`).
    pub url: String,
}

/// A post that uses an image.
#[derive(Debug, Clone, Object)]
pub struct MediaUser {
    /// The post's id.
    pub id: String,
    /// Its working title.
    pub title: String,
    /// Its working slug.
    pub slug: String,
}

/// A stored image.
#[derive(Debug, Clone, Object)]
#[oai(example)]
pub struct MediaItem {
    /// Id.
    pub id: String,
    /// The master's public URL (`…/media/{project_id}/{sha256}.{ext}`): absolute, immutable,
    /// served to anyone without a key.
    pub url: String,
    /// SHA-256 of the stored master (64 lower-case hex digits); the files are named by it and
    /// it is their ETag.
    pub sha256: String,
    /// `image/jpeg` (opaque images) or `image/png` (images with transparency).
    pub content_type: String,
    /// The master's width in pixels (at most 2400 on its longest side).
    pub width: u32,
    /// The master's height in pixels.
    pub height: u32,
    /// The master's size in bytes.
    pub bytes: u64,
    /// Alt text (empty when none was given).
    pub alt: String,
    /// The smaller copies, narrowest first.
    pub variants: Vec<MediaVariant>,
    /// Upload time (UTC).
    pub created_at: DateTime,
    /// The posts that use the image, by title: those whose working copy or published (or
    /// scheduled) version names it, by its URL or a variant's, as the featured image or in
    /// an `<img src>` of the body. A used image cannot be deleted (409).
    pub used_by: Vec<MediaUser>,
}

impl From<CoreMediaView> for MediaItem {
    fn from(v: CoreMediaView) -> Self {
        let item = v.item;
        Self {
            id: item.id.to_string(),
            url: v.url,
            sha256: item.sha256.to_string(),
            content_type: item.content_type.media_type().to_owned(),
            width: item.width,
            height: item.height,
            bytes: item.bytes,
            alt: item.alt.as_str().to_owned(),
            variants: v
                .variants
                .into_iter()
                .map(|variant| MediaVariant {
                    width: variant.variant.width,
                    height: variant.variant.height,
                    bytes: variant.variant.bytes,
                    url: variant.url,
                })
                .collect(),
            created_at: item.created_at.into(),
            used_by: v
                .used_by
                .into_iter()
                .map(|user| MediaUser {
                    id: user.id.to_string(),
                    title: user.title,
                    slug: user.slug,
                })
                .collect(),
        }
    }
}

impl Example for MediaItem {
    fn example() -> Self {
        let base = "https://blog.example.com/media/0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f/3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";
        Self {
            id: "0192d1b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b".into(),
            url: format!("{base}.jpg"),
            sha256: "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b".into(),
            content_type: "image/jpeg".into(),
            width: 1200,
            height: 800,
            bytes: 184_320,
            alt: "The harbour at dawn".into(),
            variants: vec![
                MediaVariant {
                    width: 480,
                    height: 320,
                    bytes: 31_744,
                    url: format!("{base}/w480.jpg"),
                },
                MediaVariant {
                    width: 960,
                    height: 640,
                    bytes: 98_304,
                    url: format!("{base}/w960.jpg"),
                },
            ],
            created_at: DateTime(
                blogread_core::domain::Timestamp::parse("2026-11-21T09:30:00Z").expect("valid"),
            ),
            used_by: vec![MediaUser {
                id: "0192d1c2-5a6b-7c8d-9e0f-1a2b3c4d5e6f".into(),
                title: "Morning at the harbour".into(),
                slug: "morning-at-the-harbour".into(),
            }],
        }
    }
}

/// A page of the project's images, newest first.
#[derive(Debug, Clone, Object)]
pub struct MediaList {
    /// The page.
    pub media: Vec<MediaItem>,
    /// The project's images in all.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

impl From<CoreMediaList> for MediaList {
    fn from(l: CoreMediaList) -> Self {
        Self {
            media: l.media.into_iter().map(MediaItem::from).collect(),
            total: l.total,
            limit: l.limit,
            offset: l.offset,
        }
    }
}

/// A new alt text.
#[derive(Debug, Clone, Object, serde::Deserialize)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct EditMedia {
    /// The alt text (at most 1000 characters; empty removes it).
    #[oai(validator(max_length = 1000))]
    pub alt: String,
}

/// What an upload answers.
#[derive(ApiResponse)]
pub enum UploadAnswer {
    /// A new image: stored as a master and its variants.
    #[oai(status = 201)]
    Created(Json<MediaItem>),
    /// The project already holds an image of these bytes: that one (its alt text unchanged).
    #[oai(status = 200)]
    Existing(Json<MediaItem>),
}

/// The media operations.
pub struct MediaApi {
    pub(crate) service: Service,
}

fn ids(
    project: &PathId,
    media: &PathId,
) -> Result<
    (
        blogread_core::domain::ProjectId,
        blogread_core::domain::MediaId,
    ),
    error::ApiError,
> {
    Ok((
        path_id(project, NotFound::Project)?,
        path_id(media, NotFound::Media)?,
    ))
}

#[OpenApi(prefix_path = "/api/v1/projects", tag = "ApiTags::Media")]
impl MediaApi {
    /// Upload an image
    ///
    /// `multipart/form-data` with a part `file` (JPEG, PNG, GIF or WebP, told by its bytes;
    /// a declared type that disagrees is 415) and an optional text part `alt`. The body is
    /// capped at 20 MiB (413, counted as it arrives). The image is checked from its header
    /// (at most 16,383 px on a side and 40 megapixels, else 422), turned upright, and stored
    /// re-encoded with no metadata: a master at most 2400 px on its longest side and
    /// variants 480, 960 and 1600 px wide. The same bytes uploaded again answer 200 with the
    /// existing image. The credential is checked before the body is read (401, 403, 404);
    /// when too many uploads are in progress: 503 with `Retry-After`; a body that stops or
    /// trickles (no byte for 30 s, under 4 KiB a second on average): 408.
    #[oai(
        path = "/:project_id/media",
        method = "post",
        operation_id = "upload_media"
    )]
    async fn upload_media(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        form: MediaForm,
    ) -> Reply<UploadAnswer, error::MediaUpload> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let upload = MediaUpload {
                bytes: form.file,
                declared_type: form.file_type,
                alt: form.alt,
            };
            Ok(
                match self.service.upload_media(auth.caller(), id, upload).await? {
                    Uploaded::Created(v) => UploadAnswer::Created(Json(v.into())),
                    Uploaded::Existing(v) => UploadAnswer::Existing(Json(v.into())),
                },
            )
        })
        .await
    }

    /// List the project's images
    ///
    /// Newest first.
    #[oai(
        path = "/:project_id/media",
        method = "get",
        operation_id = "list_media"
    )]
    async fn list_media(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Page size: integer 1 to 100, default 50; out-of-range values are clamped.
        limit: Query<Option<Raw<LimitDoc>>>,
        /// Images to skip: integer >= 0, default 0; negative values are clamped to 0.
        offset: Query<Option<Raw<OffsetDoc>>>,
    ) -> Reply<Ok200<MediaList>, error::ProjectList> {
        reply(async {
            let id = path_id(&project_id, NotFound::Project)?;
            let params = RawListParams {
                limit: raw(&limit).map(str::to_owned),
                offset: raw(&offset).map(str::to_owned),
                ..Default::default()
            };
            let list = self.service.media_list(auth.caller(), id, params).await?;
            Ok(ok(list))
        })
        .await
    }

    /// Get an image
    #[oai(
        path = "/:project_id/media/:media_id",
        method = "get",
        operation_id = "get_media"
    )]
    async fn get_media(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Image id (a UUID).
        media_id: Path<PathId>,
    ) -> Reply<Ok200<MediaItem>, error::ProjectRead> {
        reply(async {
            let (project, media) = ids(&project_id, &media_id)?;
            let view = self
                .service
                .media_item(auth.caller(), project, media)
                .await?;
            Ok(ok(view))
        })
        .await
    }

    /// Edit an image's alt text
    #[oai(
        path = "/:project_id/media/:media_id",
        method = "patch",
        operation_id = "edit_media"
    )]
    async fn edit_media(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Image id (a UUID).
        media_id: Path<PathId>,
        body: JsonBody<EditMedia>,
    ) -> Reply<Ok200<MediaItem>, error::ProjectSave> {
        reply(async {
            let (project, media) = ids(&project_id, &media_id)?;
            let JsonBody(edit) = body;
            let view = self
                .service
                .set_media_alt(auth.caller(), project, media, edit.alt)
                .await?;
            Ok(ok(view))
        })
        .await
    }

    /// Delete an image
    ///
    /// Removes its row, then its files (the master and every variant): its URLs answer 404
    /// from then on. An image that posts use (`used_by`) is not deleted: 409 naming the
    /// posts; remove the image from them (working copy and published version) first.
    #[oai(
        path = "/:project_id/media/:media_id",
        method = "delete",
        operation_id = "delete_media"
    )]
    async fn delete_media(
        &self,
        auth: ManagementAuth,
        /// Project id (a UUID).
        project_id: Path<PathId>,
        /// Image id (a UUID).
        media_id: Path<PathId>,
    ) -> Reply<NoContent204, error::ProjectConflict> {
        reply(async {
            let (project, media) = ids(&project_id, &media_id)?;
            self.service
                .delete_media(auth.caller(), project, media)
                .await?;
            Ok(NoContent204::NoContent)
        })
        .await
    }
}
