//! The changes feed: stamping the posts a write changes, reading a page of changes, and
//! forgetting old deletions.

use std::collections::HashMap;

use super::errors::storage;
use super::queries::{self, count, sql_count};
use super::rows::PublishedRow;
use super::store::{SqlStore, sql_impl};
use super::values::{Bind, DbId};
use crate::domain::{BlogId, ChangePosition, ProjectId, Timestamp};
use crate::error::{Error, NotFound, Result};
use crate::store::ChangeStore;
use crate::store::connection::{Run, WriteTx};
use crate::store::rules::{self, ChangeStamp, FeedItem, VisibleChange};
use crate::store::{ChangeQuery, ChangeRead, StoredChange};

sql_impl! {
    impl ChangeStore for SqlStore {
        async fn changes(&self, project: ProjectId, query: &ChangeQuery) -> Result<ChangeRead> {
            let head: Option<(i64, i64)> = sqlx::query_as(queries::CHANGE_HEAD)
                .bind(DbId::from(project))
                .fetch_optional(&self.read)
                .await
                .map_err(storage)?;
            let (head, floor) = head.ok_or(Error::NotFound(NotFound::Project))?;
            let mut read = ChangeRead {
                head: count(head),
                floor: count(floor),
                entries: Vec::new(),
                has_more: false,
            };
            let after = &query.after;
            if !rules::feed_reads(after, read.floor, read.head) {
                return Ok(read);
            }
            let limit = rules::feed_limit(query);
            // A change loses at most one slug (a write takes one post's), so a delete's position
            // is its change alone.
            let deletes: Vec<(i64, String)> = if *after == ChangePosition::Start {
                Vec::new()
            } else {
                sqlx::query_as(queries::CHANGE_DELETES)
                    .bind(DbId::from(project))
                    .bind(sql_count(after.change()))
                    .bind(head)
                    .bind(sql_count(limit as u64 + 1))
                    .fetch_all(&self.read)
                    .await
                    .map_err(storage)?
            };
            let last_id = DbId(uuid::Uuid::max());
            let (change, id) = match after {
                ChangePosition::Start => (-1, last_id),
                ChangePosition::Delete { change, .. } => (sql_count(*change) - 1, last_id),
                ChangePosition::Upsert { change, id } => (sql_count(*change), DbId::from(*id)),
                ChangePosition::End { change } => (sql_count(*change), last_id),
            };
            // Through the public reads' path (on SQLite at once on the calling thread, as the
            // list pages), at most one row more than a page: then cut at the budget.
            let binds = [
                Bind::Id(DbId::from(project)),
                Bind::Int(change),
                Bind::Id(id),
                Bind::Int(head),
                Bind::Int(sql_count(limit as u64 + 1)),
            ];
            let rows: Vec<PublishedRow> = self.public_rows(queries::CHANGE_UPSERTS, &binds).await?;
            let (page, has_more) = rules::feed_page(
                query,
                deletes.into_iter().map(|(change, slug)| (count(change), slug)),
                rows,
                |row| count(row.change_no.unwrap_or_default()),
                PublishedRow::body_len,
            );
            read.has_more = has_more;
            let mut blogs = Vec::new();
            for item in page {
                match item {
                    FeedItem::Delete { change, slug } => read.entries.push((
                        ChangePosition::Delete {
                            change,
                            slug: slug.clone(),
                        },
                        StoredChange::Delete(slug),
                    )),
                    FeedItem::Upsert(row) => {
                        let change = count(row.change_no.unwrap_or_default());
                        let blog = row.into_published()?;
                        read.entries.push((
                            ChangePosition::Upsert {
                                change,
                                id: blog.id,
                            },
                            StoredChange::Delete(String::new()),
                        ));
                        blogs.push((read.entries.len() - 1, blog));
                    }
                }
            }
            if blogs.is_empty() {
                return Ok(read);
            }
            // Their aliases, in one statement.
            let ids: Vec<String> = blogs.iter().map(|(_, b)| b.id.to_string()).collect();
            let ids = serde_json::to_string(&ids).expect("a list of strings serialises");
            let rows: Vec<(DbId, String)> = sqlx::query_as(D::CHANGE_ALIASES)
                .bind(ids)
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            let mut aliases: HashMap<BlogId, Vec<String>> = HashMap::new();
            for (id, alias) in rows {
                aliases
                    .entry(BlogId::from_uuid(id.0))
                    .or_default()
                    .push(alias);
            }
            for (at, blog) in blogs {
                let own = aliases.remove(&blog.id).unwrap_or_default();
                read.entries[at].1 = StoredChange::Upsert(Box::new(blog), own);
            }
            Ok(read)
        }

        async fn prune_changes(&self, before: Timestamp) -> Result<u64> {
            let mut tx = self.begin_write().await?;
            let result = async {
                sqlx::query(D::RAISE_CHANGES_FLOOR)
                    .bind(before.unix_seconds())
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
                let pruned = sqlx::query(queries::PRUNE_TOMBSTONES)
                    .bind(before.unix_seconds())
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
                Ok(D::rows_affected(&pruned))
            }
            .await;
            tx.finish(result).await
        }
    }
}

sql_impl! {
    impl SqlStore {
        /// Stamps change `change_no` where `stamp` says a write of blog `id` changed the feed,
        /// and keeps its lost slug as a deletion lost at `at`.
        pub(super) async fn stamp(
            tx: &mut WriteTx<D::Db>,
            project: ProjectId,
            id: BlogId,
            stamp: &ChangeStamp,
            change_no: u64,
            at: Timestamp,
        ) -> Result<()> {
            let n = sql_count(change_no);
            if stamp.own {
                sqlx::query(queries::STAMP_BLOG)
                    .bind(DbId::from(id))
                    .bind(n)
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
            }
            if !stamp.touched.is_empty() || stamp.aliases {
                let slugs =
                    serde_json::to_string(&stamp.touched).expect("a list of strings serialises");
                sqlx::query(D::STAMP_LINKERS)
                    .bind(DbId::from(project))
                    .bind(n)
                    .bind(slugs)
                    .bind(stamp.aliases.then_some(DbId::from(id)))
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
            }
            if let Some(slug) = &stamp.lost {
                sqlx::query(queries::PUT_TOMBSTONE)
                    .bind(DbId::from(project))
                    .bind(slug.clone())
                    .bind(n)
                    .bind(at.unix_seconds())
                    .execute(tx.run())
                    .await
                    .map_err(storage)?;
            }
            Ok(())
        }

        /// Applies `change` to the project's counters: bumps the content version and moves the
        /// published count, when the rule says so, and then takes the next number of the
        /// project's change sequence (returned).
        pub(super) async fn apply_visible_change(
            tx: &mut WriteTx<D::Db>,
            project: ProjectId,
            change: VisibleChange,
        ) -> Result<Option<u64>> {
            if !change.bumps_version {
                return Ok(None);
            }
            let seq: i64 = sqlx::query_scalar(queries::BUMP_VERSION)
                .bind(DbId::from(project))
                .bind(change.published_delta)
                .fetch_one(tx.run())
                .await
                .map_err(storage)?;
            Ok(Some(count(seq)))
        }
    }
}
