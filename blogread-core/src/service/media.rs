//! A project's stored images (`docs/media.md`, feature `media`): upload, list, read, alt
//! edit, delete, the files served to the public, and the sweep of files without a row.
//!
//! Rows and files agree: an upload writes its files (variants, then the master) before its
//! row, so an acknowledged item always has its files, and a crash between the two leaves
//! only files without a row, which [`Service::sweep_media`] removes once they are an hour
//! old. A delete removes the row first, then the files.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;

use crate::auth::{Access, Caller};
use crate::domain::{
    AltText, MediaDeletion, MediaId, MediaInsert, MediaItem, MediaUser, MediaVariant, ProjectId,
    Sha256Hex, StoredImageType,
};
use crate::error::{Error, FieldError, NotFound, Result};
use crate::media::{ImagePool, MediaFiles, MediaPath, PoolError};
use blogread_media::{Encoded, MediaError, OutputKind};

use super::Service;

/// How old a file without a row must be before the sweep removes it: an upload in progress
/// writes its files a moment before its row, never an hour.
pub const MEDIA_SWEEP_AGE: Duration = Duration::from_secs(3600);

/// Where a service keeps its images and how it makes them: the files' store, the bounded
/// pool uploads are processed on, and the public URL the items' `url`s start with.
#[derive(Clone)]
pub struct MediaSetup {
    files: Arc<dyn MediaFiles>,
    pool: ImagePool,
    public_url: String,
    /// Uploads and deletes of one item (by project and digest) take turns within this
    /// process, so that a delete cannot remove the files of an identical upload that is
    /// storing its row at the same moment.
    turns: Arc<[tokio::sync::Mutex<()>]>,
}

impl std::fmt::Debug for MediaSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaSetup")
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

impl MediaSetup {
    /// Images kept in `files`, processed on `pool`, served under `public_url` (the server's
    /// public base URL, such as `https://blog.example.com`; a trailing `/` is ignored).
    pub fn new(files: Arc<dyn MediaFiles>, pool: ImagePool, public_url: &str) -> Self {
        Self {
            files,
            pool,
            public_url: public_url.trim_end_matches('/').to_owned(),
            turns: (0..64).map(|_| tokio::sync::Mutex::new(())).collect(),
        }
    }

    /// The files' store.
    pub fn files(&self) -> &Arc<dyn MediaFiles> {
        &self.files
    }

    /// The public URL of `item`'s master, or of its variant `width` px wide: the public URL
    /// followed by [`MediaSetup::path`].
    pub fn url(&self, item: &MediaItem, width: Option<u32>) -> String {
        format!("{}{}", self.public_url, Self::path(item, width))
    }

    /// Where the server itself serves `item`'s master, or its variant `width` px wide: the
    /// path from its root (`/media/...`), whatever the public URL. Pages of the same server
    /// (the admin pages) show the image by it, same-origin wherever they are opened.
    pub fn path(item: &MediaItem, width: Option<u32>) -> String {
        item.path(width)
    }

    /// The public URL the items' URLs start with (no trailing `/`).
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    fn turn(&self, project: ProjectId, sha256: &Sha256Hex) -> &tokio::sync::Mutex<()> {
        use std::hash::BuildHasher;
        let hash = foldhash::fast::FixedState::with_seed(0).hash_one((project, sha256));
        &self.turns[(hash % self.turns.len() as u64) as usize]
    }
}

/// One variant of an item as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaVariantView {
    /// The variant.
    pub variant: MediaVariant,
    /// Its public URL.
    pub url: String,
}

/// An item as the management API shows it: its row, with its public URLs and the posts that
/// use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaView {
    /// The item.
    pub item: MediaItem,
    /// The master's public URL.
    pub url: String,
    /// The variants, narrowest first, with their URLs.
    pub variants: Vec<MediaVariantView>,
    /// The posts that use it (`docs/media.md#usage`), by title then id.
    pub used_by: Vec<MediaUser>,
}

/// A page of a project's media, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaList {
    /// The page.
    pub media: Vec<MediaView>,
    /// The project's items in all.
    pub total: u64,
    /// Limit applied.
    pub limit: u32,
    /// Offset applied.
    pub offset: u64,
}

/// An upload as received: the file's bytes, the type its sender declared (if any) and the
/// alt text (if any).
#[derive(Debug, Clone)]
pub struct MediaUpload {
    /// The file.
    pub bytes: Bytes,
    /// The media type the sender declared for the file; `None` or
    /// `application/octet-stream` lets the bytes decide.
    pub declared_type: Option<String>,
    /// The alt text, at most 1000 characters.
    pub alt: Option<String>,
}

/// What an upload did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Uploaded {
    /// A new item (201).
    Created(MediaView),
    /// The project already held an item of the same bytes: that one (200).
    Existing(MediaView),
}

/// A stored file to serve: its bytes, its type and the digest its ETag is made of.
#[derive(Debug)]
pub struct ServedMedia {
    /// The file, read as it is sent.
    pub file: crate::media::FileRead,
    /// Its type.
    pub content_type: StoredImageType,
    /// The item's digest (the ETag is `"<sha256>"`).
    pub sha256: String,
}

/// The store type of what the pipeline wrote.
fn stored_type(kind: OutputKind) -> StoredImageType {
    match kind {
        OutputKind::Jpeg => StoredImageType::Jpeg,
        OutputKind::Png => StoredImageType::Png,
    }
}

/// The error an upload refusal answers: 415 for a type, 422 for a picture.
fn refusal(err: PoolError) -> Error {
    let reason = match &err {
        PoolError::Refused(e) => e.reason(),
        PoolError::TimedOut(_) => "timed_out",
        PoolError::Failed => "failed",
    };
    metrics::counter!("blogread_media_uploads_refused_total", "reason" => reason).increment(1);
    match err {
        PoolError::Refused(e) if e.is_unsupported() => Error::UnsupportedMediaType(e.to_string()),
        PoolError::Refused(MediaError::Empty) => {
            Error::Invalid(FieldError::new("file", "must not be empty"))
        }
        other => Error::Invalid(FieldError::new("file", other.to_string())),
    }
}

impl Service {
    /// Sets where images are kept and how they are made (without it, every media operation
    /// answers a configuration error).
    pub fn with_media(mut self, media: MediaSetup) -> Self {
        self.media = Some(Arc::new(media));
        self
    }

    /// The media setup, when there is one.
    pub fn media_setup(&self) -> Option<&MediaSetup> {
        self.media.as_deref()
    }

    fn setup(&self) -> Result<&MediaSetup> {
        self.media.as_deref().ok_or_else(|| {
            Error::Config(
                "this service keeps no media: give it a media store (Service::with_media)".into(),
            )
        })
    }

    /// `items` as the API shows them, with the posts using each (read in one look-up).
    async fn views(
        &self,
        setup: &MediaSetup,
        project: ProjectId,
        items: Vec<MediaItem>,
    ) -> Result<Vec<MediaView>> {
        let digests: Vec<Sha256Hex> = items.iter().map(|i| i.sha256.clone()).collect();
        let mut users = self
            .store
            .media_users(project, &setup.public_url, &digests)
            .await?;
        Ok(items
            .into_iter()
            .map(|item| {
                let used_by = users.remove(&item.sha256).unwrap_or_default();
                Self::view(setup, item, used_by)
            })
            .collect())
    }

    /// `item` as the API shows it, with the posts using it.
    async fn view_of(&self, setup: &MediaSetup, item: MediaItem) -> Result<MediaView> {
        let project = item.project_id;
        let mut views = self.views(setup, project, vec![item]).await?;
        views
            .pop()
            .ok_or_else(|| Error::Config("a view of one item is one view".into()))
    }

    fn view(setup: &MediaSetup, item: MediaItem, used_by: Vec<MediaUser>) -> MediaView {
        let variants = item
            .variants
            .iter()
            .map(|v| MediaVariantView {
                variant: *v,
                url: setup.url(&item, Some(v.width)),
            })
            .collect();
        MediaView {
            url: setup.url(&item, None),
            variants,
            item,
            used_by,
        }
    }

    /// Whether `caller` may upload an image to `project` now (an agent or admin of the
    /// project, which exists, on a service that keeps media): the checks
    /// [`Service::upload_media`] starts with. A server makes them before it reads an upload's
    /// body, so that a caller who may not upload holds no upload place, and no memory, while
    /// sending one.
    pub async fn may_upload_media(&self, caller: &Caller, project: ProjectId) -> Result<()> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        self.setup()?;
        self.existing_project(project).await?;
        Ok(())
    }

    /// Stores an uploaded image (agent or admin of the project): checks it, makes its master
    /// and variants on the bounded pool, writes the files, then the row. The same bytes
    /// uploaded again to the project answer the existing item.
    pub async fn upload_media(
        &self,
        caller: &Caller,
        project: ProjectId,
        upload: MediaUpload,
    ) -> Result<Uploaded> {
        self.may_upload_media(caller, project).await?;
        let setup = self.setup()?;
        let alt = AltText::new(upload.alt.unwrap_or_default())?;
        let declared = upload
            .declared_type
            .filter(|t| !t.trim().eq_ignore_ascii_case("application/octet-stream"));
        let started = Instant::now();
        let processed = setup
            .pool
            .process(upload.bytes, declared)
            .await
            .map_err(refusal)?;
        metrics::histogram!("blogread_media_processing_seconds")
            .record(started.elapsed().as_secs_f64());
        let master = &processed.master;
        let sha256 = Sha256Hex::parse(&master.sha256)
            .ok_or_else(|| Error::Config("the pipeline gave a malformed digest".into()))?;
        let item = MediaItem {
            id: MediaId::generate(),
            project_id: project,
            sha256: sha256.clone(),
            content_type: stored_type(master.kind),
            width: master.width,
            height: master.height,
            bytes: master.bytes.len() as u64,
            alt,
            variants: processed
                .variants
                .iter()
                .map(|v| MediaVariant {
                    width: v.width,
                    height: v.height,
                    bytes: v.bytes.len() as u64,
                })
                .collect(),
            created_at: self.now(),
        };
        let _turn = setup.turn(project, &sha256).lock().await;
        if let Some(existing) = self.store.media_by_sha256(project, &sha256).await? {
            metrics::counter!("blogread_media_uploads_total", "outcome" => "existing").increment(1);
            return Ok(Uploaded::Existing(self.view_of(setup, existing).await?));
        }
        // Files before the row: the variants, then the master.
        for variant in processed.variants {
            put(setup, project, &sha256, Some(variant.width), variant).await?;
        }
        put(setup, project, &sha256, None, processed.master).await?;
        let uploaded = match self.store.insert_media(&item, &setup.public_url).await? {
            MediaInsert::Inserted(item) => {
                metrics::counter!("blogread_media_uploads_total", "outcome" => "created")
                    .increment(1);
                metrics::counter!("blogread_media_bytes_written_total")
                    .increment(item.stored_bytes());
                // Posts may name it already (an item deleted and uploaded again): a published
                // one showing it as its featured image changed, and the store recorded the
                // firing with the row.
                self.fire_recorded(project).await;
                Uploaded::Created(self.view_of(setup, item).await?)
            }
            MediaInsert::Existing(item) => {
                metrics::counter!("blogread_media_uploads_total", "outcome" => "existing")
                    .increment(1);
                Uploaded::Existing(self.view_of(setup, item).await?)
            }
        };
        Ok(uploaded)
    }

    /// A page of the project's media, newest first (agent or admin).
    pub async fn media_list(
        &self,
        caller: &Caller,
        project: ProjectId,
        request: impl Into<crate::read::ListRequest>,
    ) -> Result<MediaList> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let setup = self.setup()?;
        self.existing_project(project).await?;
        let params = request.into().into_params()?;
        let page = self
            .store
            .media_page(project, params.limit, params.offset)
            .await?;
        Ok(MediaList {
            media: self.views(setup, project, page.items).await?,
            total: page.total,
            limit: params.limit,
            offset: params.offset,
        })
    }

    /// One item of the project (agent or admin).
    pub async fn media_item(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: MediaId,
    ) -> Result<MediaView> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let setup = self.setup()?;
        let item = self.store.media(project, id).await?;
        let item = item.ok_or(Error::NotFound(NotFound::Media))?;
        self.view_of(setup, item).await
    }

    /// The project's images that post `id` uses (agent or admin): those its working copy or
    /// the version it holds for the public names as its featured image or in an `<img src>`
    /// of its body (`docs/media.md#usage`), by upload time, newest first. An image named but
    /// not stored is left out.
    pub async fn blog_media(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: crate::domain::BlogId,
    ) -> Result<Vec<MediaView>> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let setup = self.setup()?;
        let blog = self.store.blog(project, id).await?;
        let blog = blog.ok_or(Error::NotFound(NotFound::Blog))?;
        let digests: std::collections::BTreeSet<Sha256Hex> =
            crate::store::media_uses::image_fields_of(&blog)
                .into_iter()
                .filter_map(|(_, fields)| fields)
                .flat_map(|fields| fields.uses(project).into_keys())
                .filter(|image| image.base == setup.public_url)
                .map(|image| image.sha256)
                .collect();
        let digests: Vec<Sha256Hex> = digests.into_iter().collect();
        let mut items = self.store.media_by_digests(project, &digests).await?;
        items.sort_by_key(|m| std::cmp::Reverse((m.created_at, m.id)));
        self.views(setup, project, items).await
    }

    /// Replaces an item's alt text (agent or admin). The published posts that show the item
    /// as their featured image show the new text: they appear in the changes feed, and the
    /// deploy hook fires once (`updated`), as for any change of what the public API shows.
    pub async fn set_media_alt(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: MediaId,
        alt: String,
    ) -> Result<MediaView> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let setup = self.setup()?;
        let alt = AltText::new(alt)?;
        let item = self
            .store
            .set_media_alt(project, id, &alt, &setup.public_url, self.now())
            .await?;
        let item = item.ok_or(Error::NotFound(NotFound::Media))?;
        // The published posts showing it as their featured image changed: the store recorded
        // the firing with the new text.
        self.fire_recorded(project).await;
        self.view_of(setup, item).await
    }

    /// Deletes an item (agent or admin): its row, then its files. An item that posts use is
    /// not deleted: a conflict naming them (see [`MediaStore::delete_media`](crate::store::MediaStore::delete_media)).
    pub async fn delete_media(
        &self,
        caller: &Caller,
        project: ProjectId,
        id: MediaId,
    ) -> Result<()> {
        self.authorize(caller, Some(project), Access::Content)
            .await?;
        let setup = self.setup()?;
        let Some(item) = self.store.media(project, id).await? else {
            return Err(Error::NotFound(NotFound::Media));
        };
        let _turn = setup.turn(project, &item.sha256).lock().await;
        let item = match self
            .store
            .delete_media(project, id, &setup.public_url)
            .await?
        {
            None => return Err(Error::NotFound(NotFound::Media)),
            Some(MediaDeletion::InUse(users)) => return Err(in_use(&users)),
            Some(MediaDeletion::Deleted(item)) => item,
        };
        metrics::counter!("blogread_media_bytes_removed_total").increment(item.stored_bytes());
        for path in paths_of(&item) {
            // A file left behind here has no row: the sweep removes it.
            if let Err(err) = setup.files.delete(&path).await {
                tracing::warn!(path = %path, error = %crate::error::error_chain(&err), "could not remove a deleted image's file; the sweep will");
            }
        }
        Ok(())
    }

    /// The stored file a public media URL names after `/media/`: `project` then `rest`
    /// (`{sha256}.{ext}` or `{sha256}/w{width}.{ext}`). `None` for any other name, spelling,
    /// width or project, decided from the name alone before the storage is asked; no image
    /// work is ever done here. No credential: an image on a site is public, its address
    /// unguessable.
    pub async fn media_file(&self, project: &str, rest: &str) -> Result<Option<ServedMedia>> {
        let setup = self.setup()?;
        let Some(path) = MediaPath::parse(project, rest) else {
            return Ok(None);
        };
        let Some(file) = setup.files.read(&path).await? else {
            return Ok(None);
        };
        Ok(Some(ServedMedia {
            file,
            content_type: stored_type(path.kind()),
            sha256: path.sha256().to_owned(),
        }))
    }

    /// Removes stored files that no item's row names and that were written more than
    /// [`MEDIA_SWEEP_AGE`] ago (what a crash between an upload's files and its row leaves),
    /// and leftovers of writes that never finished; returns how many files it removed. The
    /// scheduler runs it hourly.
    pub async fn sweep_media(&self) -> Result<u64> {
        let setup = self.setup()?;
        let before = SystemTime::now()
            .checked_sub(MEDIA_SWEEP_AGE)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        // Rows are read after the listing: an item stored in between is kept either way
        // (its files are younger than the age).
        let files = setup.files.list(before).await?;
        let rows = self.store.media_digests().await?;
        metrics::gauge!("blogread_media_stored_bytes").set(rows.values().sum::<u64>() as f64);
        let mut removed = 0;
        for file in files {
            let known = Sha256Hex::parse(file.path.sha256())
                .is_some_and(|sha| rows.contains_key(&(file.path.project(), sha)));
            if known || file.modified > before {
                continue;
            }
            setup.files.delete(&file.path).await?;
            removed += 1;
        }
        if removed > 0 {
            tracing::info!(removed, "removed stored image files that no item names");
        }
        Ok(removed)
    }
}

impl Service {
    /// Runs [`Service::sweep_media`] now and every hour until the future is dropped (the
    /// server spawns it); does nothing when the service keeps no media. Failures are logged
    /// and tried again at the next round.
    pub async fn run_media_sweep(&self) {
        if self.media.is_none() {
            return;
        }
        loop {
            if let Err(err) = self.sweep_media().await {
                tracing::error!(
                    error = %crate::error::error_chain(&err),
                    "the media sweep failed; trying again in an hour"
                );
            }
            tokio::time::sleep(MEDIA_SWEEP_AGE).await;
        }
    }
}

/// Writes one encoded file of an item: its master, or its variant `width` px wide.
async fn put(
    setup: &MediaSetup,
    project: ProjectId,
    sha256: &Sha256Hex,
    width: Option<u32>,
    encoded: Encoded,
) -> Result<()> {
    let path = match width {
        None => MediaPath::master(project, sha256.as_str(), encoded.kind),
        Some(w) => MediaPath::variant(project, sha256.as_str(), w, encoded.kind),
    }
    .ok_or_else(|| Error::Config("the pipeline made a file with no valid name".into()))?;
    setup.files.put(&path, Bytes::from(encoded.bytes)).await
}

/// The conflict of deleting an image that `users` use (at least one): names them by title, at
/// most ten, and says what to do.
fn in_use(users: &[MediaUser]) -> Error {
    const NAMED: usize = 10;
    let mut names: Vec<String> = users
        .iter()
        .take(NAMED)
        .map(|u| format!("\"{}\" ({})", u.title, u.slug))
        .collect();
    if users.len() > NAMED {
        names.push(format!("and {} more", users.len() - NAMED));
    }
    let posts = if users.len() == 1 { "post" } else { "posts" };
    Error::Conflict(format!(
        "this image is used by {} {posts}: {}; remove it from their featured image and body \
         (working copy and published version) first, then delete it",
        users.len(),
        names.join(", ")
    ))
}

/// Every file of `item`: its master and its variants.
fn paths_of(item: &MediaItem) -> Vec<MediaPath> {
    let kind = match item.content_type {
        StoredImageType::Jpeg => OutputKind::Jpeg,
        StoredImageType::Png => OutputKind::Png,
    };
    let sha = item.sha256.as_str();
    MediaPath::master(item.project_id, sha, kind)
        .into_iter()
        .chain(
            item.variants
                .iter()
                .filter_map(|v| MediaPath::variant(item.project_id, sha, v.width, kind)),
        )
        .collect()
}
