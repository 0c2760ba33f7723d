//! The public reads of published posts: list pages (plain, or through the page index), a
//! post by slug or id, redirects and aliases.

use std::collections::HashMap;
use std::sync::Arc;

use super::errors::storage;
use super::page_index::{Key, Marks, STRIDE, Seek};
use super::queries::{self, count, sql_count};
use super::rows::{KeyRow, MarkRow, PageRow, PublishedRow};
use super::store::{SqlStore, sql_impl};
use super::values::{Bind, DbId, SqlRow};
use crate::domain::{BlogId, ProjectId, PublishedBlog, Redirect, SitemapEntry};
use crate::error::Result;
use crate::store::{PageKeys, PageQuery, PostKey, PublicStore, PublishedPage};

sql_impl! {
    impl PublicStore for SqlStore {
        async fn published_page(&self, project: ProjectId, query: &PageQuery) -> Result<PublishedPage> {
            let columns = if query.include_content {
                Columns::Content
            } else {
                Columns::Fields
            };
            let (rows, total) = self.page::<PublishedRow>(project, query, columns).await?;
            Ok(PublishedPage {
                blogs: rows
                    .into_iter()
                    .map(PublishedRow::into_published)
                    .collect::<Result<_>>()?,
                total,
            })
        }

        async fn published_page_keys(&self, project: ProjectId, query: &PageQuery) -> Result<PageKeys> {
            let (rows, total) = self.page::<KeyRow>(project, query, Columns::Keys).await?;
            Ok(PageKeys {
                keys: rows.into_iter().map(KeyRow::into_key).collect(),
                total,
            })
        }

        async fn published_key_by_slug(
            &self,
            project: ProjectId,
            slug: &str,
        ) -> Result<Option<PostKey>> {
            let binds = [Bind::Id(DbId::from(project)), Bind::Text(slug)];
            let rows: Vec<KeyRow> = self.public_rows(D::PUBLISHED_KEY_BY_SLUG, &binds).await?;
            Ok(rows.into_iter().next().map(KeyRow::into_key))
        }

        async fn published_by_ids(
            &self,
            project: ProjectId,
            ids: &[BlogId],
            include_content: bool,
        ) -> Result<Vec<(PostKey, PublishedBlog)>> {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let sql = if include_content {
                D::PUBLISHED_BY_IDS_WITH_CONTENT
            } else {
                D::PUBLISHED_BY_IDS
            };
            let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
            let ids = serde_json::to_string(&ids).expect("a list of strings serialises");
            let binds = [Bind::Id(DbId::from(project)), Bind::Text(&ids)];
            let rows: Vec<PublishedRow> = self.public_rows(sql, &binds).await?;
            rows.into_iter()
                .map(|row| {
                    let change = count(row.change_no.unwrap_or_default());
                    let blog = row.into_published()?;
                    Ok((
                        PostKey {
                            id: blog.id,
                            change,
                        },
                        blog,
                    ))
                })
                .collect()
        }

        async fn published_by_slug(
            &self,
            project: ProjectId,
            slug: &str,
        ) -> Result<Option<PublishedBlog>> {
            let binds = [Bind::Id(DbId::from(project)), Bind::Text(slug)];
            let rows: Vec<PublishedRow> = self.public_rows(queries::PUBLISHED_BY_SLUG, &binds).await?;
            rows.into_iter()
                .next()
                .map(PublishedRow::into_published)
                .transpose()
        }

        async fn redirects(&self, project: ProjectId, cap: u32) -> Result<Vec<Redirect>> {
            let rows: Vec<(String, String)> = sqlx::query_as(queries::REDIRECTS)
                .bind(DbId::from(project))
                .bind(i64::from(cap))
                .fetch_all(&self.read)
                .await
                .map_err(storage)?;
            Ok(rows
                .into_iter()
                .map(|(from, to)| Redirect::new(from, to))
                .collect())
        }

        async fn published_aliases(
            &self,
            project: ProjectId,
            slugs: &[String],
        ) -> Result<HashMap<String, (String, String)>> {
            if slugs.is_empty() {
                return Ok(HashMap::new());
            }
            // The slugs travel as one JSON array parameter, so the statement text never varies.
            let slugs = serde_json::to_string(slugs).expect("a list of strings serialises");
            let binds = [Bind::Id(DbId::from(project)), Bind::Text(&slugs)];
            let rows: Vec<(String, String, String)> =
                self.public_rows(D::PUBLISHED_ALIASES, &binds).await?;
            Ok(rows
                .into_iter()
                .map(|(alias, slug, title)| (alias, (slug, title)))
                .collect())
        }

        async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>> {
            self.dialect.sitemap(&self.read, project, cap).await
        }

        async fn published_titles(
            &self,
            project: ProjectId,
            slugs: &[String],
        ) -> Result<HashMap<String, String>> {
            if slugs.is_empty() {
                return Ok(HashMap::new());
            }
            self.dialect
                .published_titles(&self.read, project, slugs)
                .await
        }
    }
}

sql_impl! {
    impl SqlStore {
        /// A page read with `OFFSET`, as the database steps over it: its rows of `columns` and
        /// the total.
        async fn plain_page<R>(
            &self,
            project: ProjectId,
            query: &PageQuery,
            columns: Columns,
        ) -> Result<(Vec<R>, u64)>
        where
            R: PageRow + SqlRow<D::Db>,
        {
            // One query: the page in index order and, as a scalar subquery read from the same
            // snapshot, the total. Only an empty page needs a second query.
            let project_id = DbId::from(project);
            let offset = sql_count(query.offset);
            let rows: Vec<R> = self
                .page_rows(project, query, columns, offset, None)
                .await?;
            let total = match rows.first() {
                Some(first) => first.total().unwrap_or_default(),
                None => match &query.category {
                    None => sqlx::query_scalar(queries::PUBLISHED_COUNT)
                        .bind(project_id)
                        .fetch_optional(&self.read)
                        .await
                        .map(Option::unwrap_or_default),
                    Some(category) => {
                        sqlx::query_scalar(queries::CATEGORY_COUNT)
                            .bind(project_id)
                            .bind(category.as_str().to_owned())
                            .fetch_one(&self.read)
                            .await
                    }
                }
                .map_err(storage)?,
            };
            Ok((rows, count(total)))
        }

        /// The rows of a page of `query`'s list, of `columns`: `offset` rows stepped over from
        /// the top, or from just after `key` (with the content version read beside them). One
        /// statement; the SQL differs only in the filter, the columns and the key, and takes its
        /// parameters in the order bound here.
        async fn page_rows<R>(
            &self,
            project: ProjectId,
            query: &PageQuery,
            columns: Columns,
            offset: i64,
            key: Option<(i64, DbId)>,
        ) -> Result<Vec<R>>
        where
            R: PageRow + SqlRow<D::Db>,
        {
            use queries as q;
            let category = query.category.as_deref();
            let sql = match (category.is_some(), key.is_some(), columns) {
                (false, false, Columns::Keys) => q::KEYS_PAGE,
                (false, false, Columns::Fields) => q::PAGE,
                (false, false, Columns::Content) => q::PAGE_WITH_CONTENT,
                (false, true, Columns::Keys) => q::KEYSET_KEYS_PAGE,
                (false, true, Columns::Fields) => q::KEYSET_PAGE,
                (false, true, Columns::Content) => q::KEYSET_PAGE_WITH_CONTENT,
                (true, false, Columns::Keys) => D::CATEGORY_KEYS_PAGE,
                (true, false, Columns::Fields) => q::CATEGORY_PAGE,
                (true, false, Columns::Content) => q::CATEGORY_PAGE_WITH_CONTENT,
                (true, true, Columns::Keys) => D::CATEGORY_KEYSET_KEYS_PAGE,
                (true, true, Columns::Fields) => q::CATEGORY_KEYSET_PAGE,
                (true, true, Columns::Content) => q::CATEGORY_KEYSET_PAGE_WITH_CONTENT,
            };
            let mut binds = vec![Bind::Id(DbId::from(project))];
            if let Some(category) = category {
                binds.push(Bind::Text(category));
            }
            binds.extend([Bind::Int(i64::from(query.limit)), Bind::Int(offset)]);
            if let Some((at, id)) = key {
                binds.extend([Bind::Int(at), Bind::Id(id)]);
            }
            self.public_rows(sql, &binds).await
        }

        /// One page of `query`'s list, of `columns`, with the total. The first pages of the whole
        /// list are cheapest the plain way (their total is a column). A filter the index does not
        /// hold is read the plain way near its top too, and its marks are read (and held) only
        /// when it is long enough to need them, so a made-up category costs one statement and no
        /// memory. Deeper pages, and every page of a held filter, go through the index, and fall
        /// back to the plain way while writes race them.
        async fn page<R>(
            &self,
            project: ProjectId,
            query: &PageQuery,
            columns: Columns,
        ) -> Result<(Vec<R>, u64)>
        where
            R: PageRow + SqlRow<D::Db>,
        {
            if query.category.is_none() && query.offset < STRIDE {
                return self.plain_page(project, query, columns).await;
            }
            let category = query.category.as_deref();
            let held = self.pages.get(project, category);
            if held.is_none() && query.offset < STRIDE {
                let page = self.plain_page(project, query, columns).await?;
                if page.1 >= STRIDE
                    && let Some(marks) = self.read_marks(project, category).await?
                {
                    self.pages.put(project, category, Arc::new(marks));
                }
                return Ok(page);
            }
            let mut held = held;
            for _ in 0..2 {
                if let Some(page) = self
                    .indexed_page(project, query, columns, held.take())
                    .await?
                {
                    return Ok(page);
                }
            }
            self.plain_page(project, query, columns).await
        }

        /// A page read through the page index with the `held` marks (read first when none are
        /// given), or `None` when the marks turn out older than the page's snapshot (they are
        /// forgotten then).
        async fn indexed_page<R>(
            &self,
            project: ProjectId,
            query: &PageQuery,
            columns: Columns,
            held: Option<Arc<Marks>>,
        ) -> Result<Option<(Vec<R>, u64)>>
        where
            R: PageRow + SqlRow<D::Db>,
        {
            let category = query.category.as_deref();
            let marks = match held {
                Some(marks) => marks,
                None => match self.read_marks(project, category).await? {
                    Some(marks) => {
                        let marks = Arc::new(marks);
                        self.pages.put(project, category, Arc::clone(&marks));
                        marks
                    }
                    None => return Ok(None),
                },
            };
            let Some(Seek { after, skip }) = marks.seek(query.offset) else {
                // Past the end: empty, if nothing was published since the marks were read.
                let version: Option<i64> = sqlx::query_scalar(queries::CONTENT_VERSION)
                    .bind(DbId::from(project))
                    .fetch_optional(&self.read)
                    .await
                    .map_err(storage)?;
                if version == Some(marks.version) {
                    return Ok(Some((Vec::new(), marks.total)));
                }
                self.pages.forget(project, category, &marks);
                return Ok(None);
            };
            let (at, id) = match after {
                Some(Key { published_at, id }) => (published_at, id),
                // Above every key: the page starts at the top.
                None => (i64::MAX, DbId(uuid::Uuid::nil())),
            };
            let rows: Vec<R> = self
                .page_rows(project, query, columns, sql_count(skip), Some((at, id)))
                .await?;
            // Inside the list by the marks, so a current snapshot has rows: no rows, or rows of
            // another version, mean the list changed since the marks were read.
            if rows.first().and_then(PageRow::version) != Some(marks.version) {
                self.pages.forget(project, category, &marks);
                return Ok(None);
            }
            Ok(Some((rows, marks.total)))
        }

        /// The marks of a filter, read in one statement (`None` if the project is gone).
        async fn read_marks(
            &self,
            project: ProjectId,
            category: Option<&str>,
        ) -> Result<Option<Marks>> {
            let project_id = DbId::from(project);
            let stride = sql_count(STRIDE);
            let rows: Vec<MarkRow> = match category {
                None => {
                    sqlx::query_as(queries::PAGE_MARKS)
                        .bind(project_id)
                        .bind(stride)
                        .fetch_all(&self.read)
                        .await
                }
                Some(category) => {
                    sqlx::query_as(queries::CATEGORY_PAGE_MARKS)
                        .bind(project_id)
                        .bind(stride)
                        .bind(category.to_owned())
                        .fetch_all(&self.read)
                        .await
                }
            }
            .map_err(storage)?;
            let Some(first) = rows.first() else {
                return Ok(None);
            };
            let (version, total) = (first.version, count(first.total));
            let mut marks: Vec<(i64, Key)> = rows
                .iter()
                .filter_map(|r| match (r.n, r.published_at, r.id) {
                    (Some(n), Some(published_at), Some(id)) => Some((n, Key { published_at, id })),
                    _ => None,
                })
                .collect();
            marks.sort_unstable_by_key(|(n, _)| *n);
            Ok(Some(Marks::new(
                version,
                total,
                marks.into_iter().map(|(_, key)| key).collect(),
            )))
        }
    }
}

/// What a public page read selects of each post: its key alone (from the covering index),
/// its fields, or its fields and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Columns {
    Keys,
    Fields,
    Content,
}
