//! A post's columns of `blogs`, described once.
//!
//! [`with_post_fields!`] names a post's fields (besides the body), in the order the public
//! API shows them: each is a column of the working copy and, with `pub_` before its name, of
//! the held (published or scheduled) snapshot. Everything that names those columns is built
//! from that one list: the writes ([`INSERT_BLOG`], [`UPDATE_BLOG`] and their binding,
//! [`bind_blog`]), the reads' column lists (`queries.rs`) and the row that reads them back
//! (`rows::FieldsRow`). Adding a field to a post is one name in that list, beside its
//! migration and its domain field, with no parameter to renumber.

use std::sync::LazyLock;

use sqlx::Database;
use sqlx::query::Query;

use super::values::{DbId, Value};
use crate::domain::{Blog, BlogFields, Slug};

/// Calls the macro `{$then}` with `$args`, then a post's fields besides the body, in the order
/// the public API shows them: the one list of a post's field columns (see the module's
/// documentation). A field's value is read from [`BlogFields`] by its getter of the same
/// name (through [`ToCell`]) and written back into [`BlogInput`](crate::domain::BlogInput)'s
/// field of the same name (through `rows::FromCell`).
macro_rules! with_post_fields {
    ({ $($then:tt)* } ($($args:tt)*)) => {
        $($then)*! {
            $($args)*
            title, slug, excerpt, meta_title, meta_description, featured_image_url,
            categories, tags
        }
    };
}
pub(crate) use with_post_fields;

/// A field's value as its column stores it (`None`: `NULL`): text as it is, a list as a JSON
/// array of strings.
trait ToCell {
    /// The column's value.
    fn cell(self) -> Option<String>;
}

impl ToCell for &str {
    fn cell(self) -> Option<String> {
        Some(self.to_owned())
    }
}

impl ToCell for &Slug {
    fn cell(self) -> Option<String> {
        Some(self.as_str().to_owned())
    }
}

impl ToCell for Option<&str> {
    fn cell(self) -> Option<String> {
        self.map(str::to_owned)
    }
}

impl ToCell for &[String] {
    fn cell(self) -> Option<String> {
        Some(serde_json::to_string(self).expect("a list of strings serialises"))
    }
}

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

/// The columns of a post's fields (the list of [`with_post_fields!`], then the body), each
/// with how it is read from the fields.
macro_rules! field_columns {
    ($($name:ident),*) => {
        &[
            $((stringify!($name), |f| ToCell::cell(f.$name())),)*
            ("content", |f| Some(f.content().to_owned())),
        ]
    };
}

/// A post's fields, each with its column and how it is read from the fields: the working
/// copy's column has the name, the held (published or scheduled) snapshot's the name with
/// `pub_` before it (`NULL` while the post holds none).
const FIELDS: &[(&str, ReadField)] = with_post_fields!({ field_columns }());

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
