//! The links report's part of the SQL stores: the placeholder index (`blog_placeholders`),
//! kept in the transaction that changes a body, and the read the report makes.

// As in `store.rs`: the dialect bound of these crate-private methods stays crate-private.
#![allow(private_bounds)]

use sqlx::{ColumnIndex, Database, Executor, IntoArguments};

use super::dialect::SqlDialect;
use super::errors::{corrupt, storage};
use super::rows::timestamp;
use super::store::SqlStore;
use super::values::{DbId, Value};
use crate::domain::{Blog, BlogId, BlogStatus};
use crate::error::Result;
use crate::links::report::{self, LinkTarget};
use crate::store::connection::WriteTx;
use crate::store::link_sources::{BodyCopy, BodyPlaceholders, LinkSources, bodies_of};

/// Every post of project `$1` as a link target: id, status, working slug and title, public
/// slug and title, first publication (go-live) time.
const LINK_TARGETS: &str = "SELECT id, status, slug, title, pub_slug, pub_title, published_at \
     FROM blogs WHERE project_id = $1 ORDER BY id";
/// Every alias of project `$1`: alias, post.
const LINK_ALIASES: &str =
    "SELECT slug, blog_id FROM blog_aliases WHERE project_id = $1 ORDER BY slug";
/// The indexed placeholders of project `$1`'s bodies: post, copy, stored list.
const PLACEHOLDERS: &str = "SELECT blog_id, copy, placeholders FROM blog_placeholders \
     WHERE project_id = $1 ORDER BY blog_id, copy DESC";
/// Forgets body `$2` of post `$1`.
const DELETE_PLACEHOLDERS: &str = "DELETE FROM blog_placeholders WHERE blog_id = $1 AND copy = $2";
/// Indexes body `$3` of post `$1` (project `$2`): its stored list `$4`.
const PUT_PLACEHOLDERS: &str = "INSERT INTO blog_placeholders (blog_id, project_id, copy, \
     placeholders) VALUES ($1, $2, $3, $4) ON CONFLICT (blog_id, copy) DO UPDATE \
     SET placeholders = excluded.placeholders";
/// Whether the bodies stored before the index existed are indexed.
const PLACEHOLDERS_INDEXED: &str = "SELECT placeholders_indexed FROM blogread_meta";
/// Records that they are.
const SET_PLACEHOLDERS_INDEXED: &str = "UPDATE blogread_meta SET placeholders_indexed = 1";
/// Posts after id `$1`, at most `$2`, with their bodies: id, project, working body, held body.
const ALL_BODIES_AFTER: &str = "SELECT id, project_id, content, pub_content FROM blogs \
     WHERE id > $1 ORDER BY id LIMIT $2";

/// The bodies a post holds before a write, to tell which ones the write changed.
pub(crate) struct HeldBodies {
    working: String,
    published: Option<String>,
}

impl HeldBodies {
    /// The bodies of `blog` as it is.
    pub(crate) fn of(blog: &Blog) -> Self {
        let [(_, working), (_, published)] = bodies_of(blog);
        Self {
            working: working.unwrap_or_default().to_owned(),
            published: published.map(str::to_owned),
        }
    }

    fn get(&self, copy: BodyCopy) -> Option<&str> {
        match copy {
            BodyCopy::Working => Some(&self.working),
            BodyCopy::Published => self.published.as_deref(),
        }
    }
}

impl<D> SqlStore<D>
where
    D: SqlDialect,
    for<'c> &'c mut <D::Db as Database>::Connection: Executor<'c, Database = D::Db>,
    <D::Db as Database>::Arguments: IntoArguments<D::Db>,
    for<'r> &'r str: ColumnIndex<<D::Db as Database>::Row>,
    usize: ColumnIndex<<D::Db as Database>::Row>,
    DbId: Value<D::Db>,
    Option<DbId>: Value<D::Db>,
    i64: Value<D::Db>,
    Option<i64>: Value<D::Db>,
    i32: Value<D::Db>,
    bool: Value<D::Db>,
    String: Value<D::Db>,
    Option<String>: Value<D::Db>,
{
    /// Brings the placeholder index of `blog` up to date in `tx`: each body the write changed
    /// (from `before`; `None` for a new post) is listed again.
    pub(crate) async fn write_placeholders(
        tx: &mut WriteTx<D::Db>,
        blog: &Blog,
        before: Option<&HeldBodies>,
    ) -> Result<()> {
        for (copy, body) in bodies_of(blog) {
            let old = before.and_then(|b| b.get(copy));
            if before.is_some() && old == body {
                continue;
            }
            Self::put_placeholders(tx, blog.id, blog.project_id.into(), copy, body).await?;
        }
        Ok(())
    }

    /// Replaces the index row of one body (`None`: the post holds no such body now).
    async fn put_placeholders(
        tx: &mut WriteTx<D::Db>,
        id: BlogId,
        project: DbId,
        copy: BodyCopy,
        body: Option<&str>,
    ) -> Result<()> {
        let found = body.map(report::placeholders).unwrap_or_default();
        if found.is_empty() {
            sqlx::query(DELETE_PLACEHOLDERS)
                .bind(DbId::from(id))
                .bind(copy.as_str().to_owned())
                .execute(&mut **tx)
                .await
                .map_err(storage)?;
        } else {
            sqlx::query(PUT_PLACEHOLDERS)
                .bind(DbId::from(id))
                .bind(project)
                .bind(copy.as_str().to_owned())
                .bind(report::to_stored(&found))
                .execute(&mut **tx)
                .await
                .map_err(storage)?;
        }
        Ok(())
    }

    /// Indexes the placeholders of the bodies stored before the index existed (the first
    /// start after the upgrade), once per database (`blogread_meta.placeholders_indexed`).
    /// Returns how many posts were indexed.
    pub(crate) async fn index_stored_placeholders(&self) -> Result<u64> {
        // Bodies go up to 2 MiB, two a post: a batch holds at most 64 MiB of them.
        const BATCH: i64 = 16;
        let indexed: i32 = sqlx::query_scalar(PLACEHOLDERS_INDEXED)
            .fetch_one(self.read_pool())
            .await
            .map_err(storage)?;
        if indexed != 0 {
            return Ok(0);
        }
        let mut done = 0u64;
        let mut after = DbId(uuid::Uuid::nil());
        loop {
            let rows: Vec<(DbId, DbId, String, Option<String>)> = sqlx::query_as(ALL_BODIES_AFTER)
                .bind(after)
                .bind(BATCH)
                .fetch_all(self.read_pool())
                .await
                .map_err(storage)?;
            let Some(&(last, _, _, _)) = rows.last() else {
                break;
            };
            after = last;
            let mut tx = WriteTx::begin(self.write_pool().pool(), D::TRANSACTIONS).await?;
            let result = async {
                for (id, project, working, published) in &rows {
                    let id = BlogId::from_uuid(id.0);
                    let bodies = [
                        (BodyCopy::Working, Some(working.as_str())),
                        (BodyCopy::Published, published.as_deref()),
                    ];
                    for (copy, body) in bodies {
                        Self::put_placeholders(&mut tx, id, *project, copy, body).await?;
                    }
                }
                Ok(())
            }
            .await;
            tx.finish(result).await?;
            done += rows.len() as u64;
            tracing::info!(done, "indexing the placeholders of stored posts");
        }
        sqlx::query(SET_PLACEHOLDERS_INDEXED)
            .execute(self.write_pool())
            .await
            .map_err(storage)?;
        Ok(done)
    }

    /// What the links report of `project` reads.
    pub(crate) async fn read_link_sources(
        &self,
        project: crate::domain::ProjectId,
    ) -> Result<LinkSources> {
        let project = DbId::from(project);
        type TargetRow = (
            DbId,
            String,
            String,
            String,
            Option<String>,
            Option<String>,
            Option<i64>,
        );
        let rows: Vec<TargetRow> = sqlx::query_as(LINK_TARGETS)
            .bind(project)
            .fetch_all(self.read_pool())
            .await
            .map_err(storage)?;
        let mut posts = Vec::with_capacity(rows.len());
        for (id, status, slug, title, pub_slug, pub_title, published_at) in rows {
            let status: BlogStatus = status
                .parse()
                .map_err(|_| corrupt("blogs.status", &status))?;
            let go_live = match (status, published_at) {
                (BlogStatus::Scheduled, Some(at)) => Some(timestamp("blogs.published_at", at)?),
                _ => None,
            };
            posts.push(LinkTarget {
                id: BlogId::from_uuid(id.0),
                status,
                slug,
                title,
                public: pub_slug.zip(pub_title),
                go_live,
            });
        }
        let aliases: Vec<(String, DbId)> = sqlx::query_as(LINK_ALIASES)
            .bind(project)
            .fetch_all(self.read_pool())
            .await
            .map_err(storage)?;
        let stored: Vec<(DbId, String, String)> = sqlx::query_as(PLACEHOLDERS)
            .bind(project)
            .fetch_all(self.read_pool())
            .await
            .map_err(storage)?;
        let mut bodies = Vec::with_capacity(stored.len());
        for (id, copy_name, list) in stored {
            let copy = BodyCopy::parse(&copy_name)
                .ok_or_else(|| corrupt("blog_placeholders.copy", copy_name.as_str()))?;
            let placeholders = report::from_stored(&list)
                .ok_or_else(|| corrupt("blog_placeholders.placeholders", id.0))?;
            bodies.push(BodyPlaceholders {
                blog_id: BlogId::from_uuid(id.0),
                copy,
                placeholders,
            });
        }
        Ok(LinkSources {
            posts,
            aliases: aliases
                .into_iter()
                .map(|(alias, id)| (alias, BlogId::from_uuid(id.0)))
                .collect(),
            bodies,
        })
    }
}
