//! A post's columns of `blogs`, described once: each column's name and how a write reads
//! its value from a [`Blog`]. The statements that write a post ([`INSERT_BLOG`],
//! [`UPDATE_BLOG`]) and the binding of their parameters ([`bind_blog`]) are built from this
//! description, so adding a field to a post is one line of [`FIELDS`] (beside its migration,
//! its domain field and the reads' row types), with no parameter to renumber.

use std::sync::LazyLock;

use sqlx::Database;
use sqlx::query::Query;

use super::values::{DbId, Value};
use crate::domain::{Blog, BlogFields};

/// A column's value as a write binds it (a `NULL` is `None`).
enum Cell {
    /// An id.
    Id(DbId),
    /// An integer.
    Int(Option<i64>),
    /// A text.
    Text(Option<String>),
}

/// How a lifecycle column's value is read from a post.
type ReadLifecycle = fn(&Blog) -> Cell;

/// How a field's value is read from a post's fields (`None`: `NULL`).
type ReadField = fn(&BlogFields) -> Option<String>;

/// The columns of a post's lifecycle, and how each is read from the post. The first two
/// (id, project) name the row an update writes.
const LIFECYCLE: &[(&str, ReadLifecycle)] = &[
    ("id", |b| Cell::Id(DbId::from(b.id))),
    ("project_id", |b| Cell::Id(DbId::from(b.project_id))),
    ("status", |b| {
        Cell::Text(Some(b.state.status().as_str().to_owned()))
    }),
    ("created_at", |b| {
        Cell::Int(Some(b.created_at.unix_seconds()))
    }),
    ("updated_at", |b| {
        Cell::Int(Some(b.updated_at.unix_seconds()))
    }),
    ("published_at", |b| {
        Cell::Int(b.state.published_at().map(|t| t.unix_seconds()))
    }),
    ("published_updated_at", |b| {
        Cell::Int(b.state.held_snapshot().map(|s| s.updated_at.unix_seconds()))
    }),
];

/// A post's fields, each with its column and how it is read from the fields: the working
/// copy's column has the name, the held (published or scheduled) snapshot's the name with
/// `pub_` before it (`NULL` while the post holds none).
const FIELDS: &[(&str, ReadField)] = &[
    ("title", |f| Some(f.title().to_owned())),
    ("slug", |f| Some(f.slug().as_str().to_owned())),
    ("excerpt", |f| Some(f.excerpt().to_owned())),
    ("meta_title", |f| Some(f.meta_title().to_owned())),
    ("meta_description", |f| {
        Some(f.meta_description().to_owned())
    }),
    ("featured_image_url", |f| {
        f.featured_image_url().map(str::to_owned)
    }),
    ("categories", |f| Some(json_list(f.categories()))),
    ("tags", |f| Some(json_list(f.tags()))),
    ("content", |f| Some(f.content().to_owned())),
];

/// A list column's value: a JSON array of strings.
fn json_list(list: &[String]) -> String {
    serde_json::to_string(list).expect("a list of strings serialises")
}

/// The names of a post's columns, in the order [`cells`] gives their values.
fn names() -> Vec<String> {
    let lifecycle = LIFECYCLE.iter().map(|(name, _)| (*name).to_owned());
    let working = FIELDS.iter().map(|(name, _)| (*name).to_owned());
    let held = FIELDS.iter().map(|(name, _)| format!("pub_{name}"));
    lifecycle.chain(working).chain(held).collect()
}

/// The values of `blog`'s columns, in the order of [`names`].
fn cells(blog: &Blog) -> impl Iterator<Item = Cell> + '_ {
    let held = blog.state.held_snapshot().map(|s| &s.fields);
    let lifecycle = LIFECYCLE.iter().map(move |(_, read)| read(blog));
    let working = FIELDS
        .iter()
        .map(move |(_, read)| Cell::Text(read(&blog.working)));
    let snapshot = FIELDS
        .iter()
        .map(move |(_, read)| Cell::Text(held.and_then(read)));
    lifecycle.chain(working).chain(snapshot)
}

/// A new post: its columns, each a parameter in the order [`bind_blog`] binds them.
pub(crate) static INSERT_BLOG: LazyLock<String> = LazyLock::new(|| {
    let names = names();
    let parameters: Vec<String> = (1..=names.len()).map(|n| format!("${n}")).collect();
    format!(
        "INSERT INTO blogs ({}) VALUES ({})",
        names.join(", "),
        parameters.join(", ")
    )
});

/// Writes every column of post `$1` of project `$2` (the first two columns), the others
/// parameters in the order [`bind_blog`] binds them.
pub(crate) static UPDATE_BLOG: LazyLock<String> = LazyLock::new(|| {
    let sets: Vec<String> = names()
        .iter()
        .enumerate()
        .skip(2)
        .map(|(at, name)| format!("{name} = ${}", at + 1))
        .collect();
    format!(
        "UPDATE blogs SET {} WHERE id = $1 AND project_id = $2",
        sets.join(", ")
    )
});

/// Binds the column values of `blog` to [`INSERT_BLOG`] or [`UPDATE_BLOG`].
pub(crate) fn bind_blog<'q, DB>(
    query: Query<'q, DB, DB::Arguments>,
    blog: &Blog,
) -> Query<'q, DB, DB::Arguments>
where
    DB: Database,
    DbId: Value<DB>,
    Option<i64>: Value<DB>,
    Option<String>: Value<DB>,
{
    cells(blog).fold(query, |query, cell| match cell {
        Cell::Id(id) => query.bind(id),
        Cell::Int(n) => query.bind(n),
        Cell::Text(text) => query.bind(text),
    })
}

#[cfg(test)]
mod tests {
    use super::{FIELDS, INSERT_BLOG, LIFECYCLE, UPDATE_BLOG};

    /// Every column of a post is written, each by one parameter, the row named by the
    /// first two.
    #[test]
    fn a_post_write_binds_every_column_once() {
        let columns = LIFECYCLE.len() + 2 * FIELDS.len();
        assert!(INSERT_BLOG.contains("pub_content"));
        assert!(INSERT_BLOG.ends_with(&format!("${columns})")));
        assert!(UPDATE_BLOG.contains(&format!("= ${columns} WHERE id = $1 AND project_id = $2")));
        assert!(!UPDATE_BLOG.contains("id = $1,"));
    }
}
