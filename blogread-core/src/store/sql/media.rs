//! A project's stored images: one row an item (`media`), its variants a JSON array.

use std::collections::HashMap;

use sqlx::FromRow;

use super::errors::{corrupt, storage, write_error};
use super::media_uses::{UserRow, users_by_digest};
use super::queries::sql_count;
use super::rows::timestamp;
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::{
    AltText, MediaDeletion, MediaId, MediaInsert, MediaItem, MediaPage, MediaUser, MediaVariant,
    ProjectId, Sha256Hex, StoredImageType, Timestamp, Trigger,
};
use crate::error::{Error, Result};
use crate::store::MediaStore;
use crate::store::connection::{Run, WriteTx};
use crate::store::rules::{Conflict, VisibleChange};

/// The columns of an item, in `MediaRow`'s order.
macro_rules! media_columns {
    () => {
        "id, project_id, sha256, content_type, width, height, bytes, alt, variants, created_at"
    };
}

/// A new item, unless the project holds one of its SHA-256 (then nothing is written).
const INSERT: &str = concat!(
    "INSERT INTO media (",
    media_columns!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
     ON CONFLICT (project_id, sha256) DO NOTHING"
);
/// Item `$2` of project `$1`.
const BY_ID: &str = concat!(
    "SELECT ",
    media_columns!(),
    " FROM media WHERE project_id = $1 AND id = $2"
);
/// The item of project `$1` with SHA-256 `$2`.
const BY_SHA256: &str = concat!(
    "SELECT ",
    media_columns!(),
    " FROM media WHERE project_id = $1 AND sha256 = $2"
);
/// A page of project `$1`'s items, newest first: `$2` items from `$3`.
const PAGE: &str = concat!(
    "SELECT ",
    media_columns!(),
    " FROM media WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
);
/// How many items project `$1` has.
const COUNT: &str = "SELECT COUNT(*) FROM media WHERE project_id = $1";
/// Sets item `$2`'s alt text to `$3`, returning it.
const SET_ALT: &str = concat!(
    "UPDATE media SET alt = $3 WHERE project_id = $1 AND id = $2 RETURNING ",
    media_columns!()
);
/// Item `$2`'s alt text.
const ALT_OF: &str = "SELECT alt FROM media WHERE project_id = $1 AND id = $2";
/// Deletes item `$2`, returning it.
const DELETE: &str = concat!(
    "DELETE FROM media WHERE project_id = $1 AND id = $2 RETURNING ",
    media_columns!()
);
/// The items of project `$1` whose SHA-256 is among `$texts` (the dialect's rows of the JSON
/// array `$2`).
macro_rules! media_by_digests {
    ($texts:expr) => {
        concat!(
            "SELECT ",
            $crate::store::sql::media_columns!(),
            " FROM media WHERE project_id = $1 AND sha256 IN (",
            $texts,
            ")"
        )
    };
}
pub(crate) use {media_by_digests, media_columns};

/// The published posts of project `$1` whose published snapshot shows the image of digest
/// `$3` under base `$2` as its featured image: their ids and published slugs, by slug.
const FEATURING: &str = "SELECT b.id, b.pub_slug FROM media_uses u JOIN blogs b ON b.id = u.blog_id \
     WHERE u.project_id = $1 AND u.base = $2 AND u.sha256 = $3 AND u.copy = 'published' \
     AND u.featured = 1 AND b.status = 'published' ORDER BY b.pub_slug";
/// Stamps change `$4` on the posts `FEATURING` selects with the same `$1`..`$3`.
const STAMP_FEATURING: &str = "UPDATE blogs SET change_no = $4 WHERE status = 'published' \
     AND id IN (SELECT blog_id FROM media_uses WHERE project_id = $1 AND base = $2 \
     AND sha256 = $3 AND copy = 'published' AND featured = 1)";

/// Every item's project and SHA-256.
const DIGESTS: &str = "SELECT project_id, sha256, bytes, variants FROM media";

/// A row of `media`.
#[derive(Debug, FromRow)]
struct MediaRow {
    id: DbId,
    project_id: DbId,
    sha256: String,
    content_type: String,
    width: i32,
    height: i32,
    bytes: i64,
    alt: String,
    variants: String,
    created_at: i64,
}

impl MediaRow {
    fn into_item(self) -> Result<MediaItem> {
        let side = |what: &'static str, n: i32| u32::try_from(n).map_err(|e| corrupt(what, e));
        Ok(MediaItem {
            id: MediaId::from_uuid(self.id.0),
            project_id: ProjectId::from_uuid(self.project_id.0),
            sha256: Sha256Hex::parse(&self.sha256)
                .ok_or_else(|| corrupt("media sha256", "not 64 lower-case hex digits"))?,
            content_type: StoredImageType::from_media_type(&self.content_type)
                .ok_or_else(|| corrupt("media content_type", &self.content_type))?,
            width: side("media width", self.width)?,
            height: side("media height", self.height)?,
            bytes: u64::try_from(self.bytes).map_err(|e| corrupt("media bytes", e))?,
            alt: AltText::new(self.alt).map_err(|e| corrupt("media alt", e.rule))?,
            variants: serde_json::from_str::<Vec<MediaVariant>>(&self.variants)
                .map_err(|e| corrupt("media variants", e))?,
            created_at: timestamp("media created_at", self.created_at)?,
        })
    }
}

/// A side or size as its column holds it (a stored image's are far below the limits).
fn column<T: TryInto<i64> + Copy + std::fmt::Display>(what: &'static str, n: T) -> Result<i64> {
    n.try_into()
        .map_err(|_| Error::BadRequest(format!("{what} {n} is out of range")))
}

#[derive(Debug, FromRow)]
struct DigestRow {
    project_id: DbId,
    sha256: String,
    bytes: i64,
    variants: String,
}

sql_impl! {
    impl MediaStore for SqlStore {
        async fn insert_media(&self, item: &MediaItem, public_url: &str) -> Result<MediaInsert> {
            let variants = serde_json::to_string(&item.variants).map_err(Error::storage)?;
            let width = i32::try_from(column("width", item.width)?).unwrap_or(i32::MAX);
            let height = i32::try_from(column("height", item.height)?).unwrap_or(i32::MAX);
            let mut tx = self.begin_write().await?;
            let result = async {
            // Held as every post write holds it, so that the posts naming the image are read
            // and stamped against a settled set of uses.
            Self::lock_project(&mut tx, item.project_id).await?;
            let done = sqlx::query(INSERT)
                .bind(DbId::from(item.id))
                .bind(DbId::from(item.project_id))
                .bind(item.sha256.as_str().to_owned())
                .bind(item.content_type.media_type().to_owned())
                .bind(width)
                .bind(height)
                .bind(column("bytes", item.bytes)?)
                .bind(item.alt.as_str().to_owned())
                .bind(variants)
                .bind(item.created_at.unix_seconds())
                .execute(tx.run())
                .await
                .map_err(|e| write_error(e, Conflict::MediaExists))?;
            if D::rows_affected(&done) > 0 {
                Self::stamp_featuring(
                    &mut tx,
                    item.project_id,
                    public_url,
                    &item.sha256,
                    item.created_at,
                )
                .await?;
                return Ok(MediaInsert::Inserted(item.clone()));
            }
            // The project holds an item of these bytes (read from the writer, which saw the
            // conflict); it may have been deleted since, which the caller sees as a conflict
            // to retry rather than a lost upload.
            let row: Option<MediaRow> = sqlx::query_as(BY_SHA256)
                .bind(DbId::from(item.project_id))
                .bind(item.sha256.as_str().to_owned())
                .fetch_optional(tx.run())
                .await
                .map_err(storage)?;
            match row {
                Some(row) => Ok(MediaInsert::Existing(row.into_item()?)),
                None => Err(Error::Conflict(
                    "an identical image was deleted while this one was stored; send it again".into(),
                )),
            }
            }
            .await;
            tx.finish(result).await
        }

        async fn media(&self, project: ProjectId, id: MediaId) -> Result<Option<MediaItem>> {
            let row: Option<MediaRow> = sqlx::query_as(BY_ID)
                .bind(DbId::from(project))
                .bind(DbId::from(id))
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            row.map(MediaRow::into_item).transpose()
        }

        async fn media_by_sha256(
            &self,
            project: ProjectId,
            sha256: &Sha256Hex,
        ) -> Result<Option<MediaItem>> {
            let row: Option<MediaRow> = sqlx::query_as(BY_SHA256)
                .bind(DbId::from(project))
                .bind(sha256.as_str().to_owned())
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            row.map(MediaRow::into_item).transpose()
        }

        async fn media_page(&self, project: ProjectId, limit: u32, offset: u64) -> Result<MediaPage> {
            let rows: Vec<MediaRow> = sqlx::query_as(PAGE)
                .bind(DbId::from(project))
                .bind(i64::from(limit))
                .bind(i64::try_from(offset).unwrap_or(i64::MAX))
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            let total: i64 = sqlx::query_scalar(COUNT)
                .bind(DbId::from(project))
                .fetch_one(&self.read)
                .await
                .map_err(storage)?;
            Ok(MediaPage {
                items: rows.into_iter().map(MediaRow::into_item).collect::<Result<_>>()?,
                total: u64::try_from(total).unwrap_or(0),
            })
        }

        async fn set_media_alt(
            &self,
            project: ProjectId,
            id: MediaId,
            alt: &AltText,
            public_url: &str,
            at: Timestamp,
        ) -> Result<Option<MediaItem>> {
            let mut tx = self.begin_write().await?;
            let result = async {
                Self::lock_project(&mut tx, project).await?;
                let before: Option<String> = sqlx::query_scalar(ALT_OF)
                    .bind(DbId::from(project))
                    .bind(DbId::from(id))
                    .fetch_optional(tx.run())
                    .await
                    .map_err(storage)?;
                let Some(before) = before else {
                    return Ok(None);
                };
                let row: Option<MediaRow> = sqlx::query_as(SET_ALT)
                    .bind(DbId::from(project))
                    .bind(DbId::from(id))
                    .bind(alt.as_str().to_owned())
                    .fetch_optional(tx.run())
                    .await
                    .map_err(storage)?;
                let item = row.map(MediaRow::into_item).transpose()?;
                if let Some(item) = &item
                    && before != alt.as_str()
                {
                    Self::stamp_featuring(&mut tx, project, public_url, &item.sha256, at).await?;
                }
                Ok(item)
            }
            .await;
            tx.finish(result).await
        }

        async fn media_by_digests(
            &self,
            project: ProjectId,
            sha256s: &[Sha256Hex],
        ) -> Result<Vec<MediaItem>> {
            if sha256s.is_empty() {
                return Ok(Vec::new());
            }
            let digests: Vec<&str> = sha256s.iter().map(Sha256Hex::as_str).collect();
            let rows: Vec<MediaRow> = sqlx::query_as(D::MEDIA_BY_DIGESTS)
                .bind(DbId::from(project))
                .bind(serde_json::to_string(&digests).map_err(Error::storage)?)
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            rows.into_iter().map(MediaRow::into_item).collect()
        }

        async fn delete_media(
            &self,
            project: ProjectId,
            id: MediaId,
            public_url: &str,
        ) -> Result<Option<MediaDeletion>> {
            let mut tx = self.begin_write().await?;
            let result = async {
                // Every post write holds the project's row (and SQLite's one writer) from
                // before it writes its uses until it commits: holding it here too, the uses
                // read below are all that will ever be written before the row is gone. A post
                // saved at the same moment is either seen (the item stays, 409) or written
                // after the delete commits, naming an image that is no longer stored, as it
                // could name any URL.
                Self::lock_project(&mut tx, project).await?;
                let row: Option<MediaRow> = sqlx::query_as(BY_ID)
                    .bind(DbId::from(project))
                    .bind(DbId::from(id))
                    .fetch_optional(tx.run())
                    .await
                    .map_err(storage)?;
                let Some(item) = row.map(MediaRow::into_item).transpose()? else {
                    return Ok(None);
                };
                let users = Self::users_in(&mut tx, project, public_url, &item.sha256).await?;
                if !users.is_empty() {
                    return Ok(Some(MediaDeletion::InUse(users)));
                }
                let row: Option<MediaRow> = sqlx::query_as(DELETE)
                    .bind(DbId::from(project))
                    .bind(DbId::from(id))
                    .fetch_optional(tx.run())
                    .await
                    .map_err(storage)?;
                row.map(|row| row.into_item().map(MediaDeletion::Deleted))
                    .transpose()
            }
            .await;
            tx.finish(result).await
        }

        async fn media_users(
            &self,
            project: ProjectId,
            public_url: &str,
            sha256s: &[Sha256Hex],
        ) -> Result<HashMap<Sha256Hex, Vec<MediaUser>>> {
            if sha256s.is_empty() {
                return Ok(HashMap::new());
            }
            let digests: Vec<&str> = sha256s.iter().map(Sha256Hex::as_str).collect();
            let rows: Vec<UserRow> = sqlx::query_as(D::MEDIA_USERS)
                .bind(DbId::from(project))
                .bind(public_url.to_owned())
                .bind(serde_json::to_string(&digests).map_err(Error::storage)?)
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            users_by_digest(rows)
        }

        async fn media_digests(&self) -> Result<HashMap<(ProjectId, Sha256Hex), u64>> {
            let rows: Vec<DigestRow> = sqlx::query_as(DIGESTS)
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            rows.into_iter()
                .map(|row| {
                    let sha256 = Sha256Hex::parse(&row.sha256)
                        .ok_or_else(|| corrupt("media sha256", "not 64 lower-case hex digits"))?;
                    let variants: Vec<MediaVariant> = serde_json::from_str(&row.variants)
                        .map_err(|e| corrupt("media variants", e))?;
                    let bytes = u64::try_from(row.bytes).unwrap_or(0)
                        + variants.iter().map(|v| v.bytes).sum::<u64>();
                    Ok(((ProjectId::from_uuid(row.project_id.0), sha256), bytes))
                })
                .collect()
        }
    }
}

sql_impl! {
    impl SqlStore {
        /// The public answers of the published posts of `project` that show the image
        /// `sha256` (under `public_url`) as their featured image changed, in `tx`: they take
        /// one change number, the content version moves once, and one `updated` firing (at
        /// `at`, naming the first of their slugs) is recorded when the project has a hook.
        async fn stamp_featuring(
            tx: &mut WriteTx<D::Db>,
            project: ProjectId,
            public_url: &str,
            sha256: &Sha256Hex,
            at: Timestamp,
        ) -> Result<()> {
            let featuring: Vec<(DbId, String)> = sqlx::query_as(FEATURING)
                .bind(DbId::from(project))
                .bind(public_url.to_owned())
                .bind(sha256.as_str().to_owned())
                .fetch_all(tx.run())
                .await
                .map_err(storage)?;
            let Some((_, first)) = featuring.into_iter().next() else {
                return Ok(());
            };
            let visible = VisibleChange {
                bumps_version: true,
                published_delta: 0,
            };
            let Some(n) = Self::apply_visible_change(tx, project, visible).await? else {
                return Ok(());
            };
            sqlx::query(STAMP_FEATURING)
                .bind(DbId::from(project))
                .bind(public_url.to_owned())
                .bind(sha256.as_str().to_owned())
                .bind(sql_count(n))
                .execute(tx.run())
                .await
                .map_err(storage)?;
            Self::record_project_firing(tx, project, Some(Trigger::Updated), first, at).await
        }
    }
}
