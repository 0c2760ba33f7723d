//! Which stored images each post uses (`media_uses`, see `store::media_uses`): kept by the
//! post writes in their transaction, read by the media list and the delete of an item.

use std::collections::HashMap;

use super::errors::{corrupt, storage};
use super::queries::{self, values_rows};
use super::store::{SqlStore, sql_impl};
use super::values::DbId;
use crate::domain::{Blog, BlogId, MediaUser, ProjectId, Sha256Hex};
use crate::error::Result;
use crate::store::connection::{Run, WriteTx};
use crate::store::media_uses::{HeldImageFields, image_fields_of};

/// Forgets the uses of body copy `$2` of post `$1`.
const DELETE_COPY_USES: &str = "DELETE FROM media_uses WHERE blog_id = $1 AND copy = $2";
/// Records uses: rows of (project, digest, base, post, copy, featured) follow.
const INSERT_USES: &str =
    "INSERT INTO media_uses (project_id, sha256, base, blog_id, copy, featured) VALUES ";
/// The posts of project `$1` that use the image of digest `$3` under base `$2`
/// (`UserRow`s).
pub(super) const USERS_OF: &str = "SELECT DISTINCT u.sha256, b.id, b.title, b.slug \
     FROM media_uses u JOIN blogs b ON b.id = u.blog_id \
     WHERE u.project_id = $1 AND u.base = $2 AND u.sha256 = $3";

/// The posts of project `$1` that use an image of a digest of `$3` (a JSON array of texts
/// given as `$texts`, the dialect's rows of it) under base `$2` (`UserRow`s).
macro_rules! media_users {
    ($texts:expr) => {
        concat!(
            "SELECT DISTINCT u.sha256, b.id, b.title, b.slug \
             FROM media_uses u JOIN blogs b ON b.id = u.blog_id \
             WHERE u.project_id = $1 AND u.base = $2 AND u.sha256 IN (",
            $texts,
            ")"
        )
    };
}
pub(crate) use media_users;

/// A post using an image: the digest, the post's id, working title and slug.
pub(super) type UserRow = (String, DbId, String, String);

/// The users of `rows` by digest, each list by title then id (sorted here, so that every
/// database orders them alike whatever its collation).
pub(super) fn users_by_digest(rows: Vec<UserRow>) -> Result<HashMap<Sha256Hex, Vec<MediaUser>>> {
    let mut users: HashMap<Sha256Hex, Vec<MediaUser>> = HashMap::new();
    for (sha256, id, title, slug) in rows {
        let sha256 = Sha256Hex::parse(&sha256)
            .ok_or_else(|| corrupt("media_uses.sha256", "not 64 lower-case hex digits"))?;
        users.entry(sha256).or_default().push(MediaUser {
            id: BlogId::from_uuid(id.0),
            title,
            slug,
        });
    }
    for list in users.values_mut() {
        list.sort_by(|a, b| (&a.title, a.id).cmp(&(&b.title, b.id)));
    }
    Ok(users)
}

sql_impl! {
    impl SqlStore {
        /// Brings the uses of `blog` up to date in `tx`: each body copy whose featured image or
        /// body the write changed (from `before`; `None` for a new post) is read again.
        pub(crate) async fn write_media_uses(
            tx: &mut WriteTx<D::Db>,
            blog: &Blog,
            before: Option<&HeldImageFields>,
        ) -> Result<()> {
            let project = DbId::from(blog.project_id);
            let id = DbId::from(blog.id);
            for (copy, fields) in image_fields_of(blog) {
                if before.is_some_and(|b| !b.changed(blog, copy)) {
                    continue;
                }
                if before.is_some() {
                    sqlx::query(DELETE_COPY_USES)
                        .bind(id)
                        .bind(copy.as_str().to_owned())
                        .execute(tx.run())
                        .await
                        .map_err(storage)?;
                }
                let uses: Vec<_> = fields
                    .map(|f| f.uses(blog.project_id))
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                for chunk in uses.chunks(queries::ROWS_PER_INSERT) {
                    let sql = values_rows(INSERT_USES, 6, chunk.len());
                    let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for (image, featured) in chunk {
                        insert = insert
                            .bind(project)
                            .bind(image.sha256.as_str().to_owned())
                            .bind(image.base.clone())
                            .bind(id)
                            .bind(copy.as_str().to_owned())
                            .bind(i32::from(*featured));
                    }
                    insert.execute(tx.run()).await.map_err(storage)?;
                }
            }
            Ok(())
        }

        /// The posts of `project` using the image `sha256` under `public_url`, read in `tx`.
        pub(super) async fn users_in(
            tx: &mut WriteTx<D::Db>,
            project: ProjectId,
            public_url: &str,
            sha256: &Sha256Hex,
        ) -> Result<Vec<MediaUser>> {
            let rows: Vec<UserRow> = sqlx::query_as(USERS_OF)
                .bind(DbId::from(project))
                .bind(public_url.to_owned())
                .bind(sha256.as_str().to_owned())
                .fetch_all(tx.run())
                .await
                .map_err(storage)?;
            Ok(users_by_digest(rows)?.into_values().next().unwrap_or_default())
        }
    }
}
