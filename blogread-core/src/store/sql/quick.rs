//! Public reads a backend may answer on the calling thread: the parameters of a statement as
//! plain values ([`Bind`]), which both sqlx and a backend's own driver can bind, and the rows
//! that such a driver can read back ([`QuickRow`]). SQLite answers them with rusqlite (see
//! `store/sqlite/quick.rs`); PostgreSQL always goes through its pool.

use sqlx::query::QueryAs;
use sqlx::{Database, Encode, Type};

use super::rows::DbId;

/// One parameter of a public read, in `$N` order.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Bind<'a> {
    /// An id.
    Id(DbId),
    /// An integer.
    Int(i64),
    /// A text.
    Text(&'a str),
}

/// Binds `binds` in order to an sqlx query returning rows of `R`.
pub(crate) fn bind_all<'q, DB, R>(
    mut query: QueryAs<'q, DB, R, DB::Arguments>,
    binds: &[Bind<'q>],
) -> QueryAs<'q, DB, R, DB::Arguments>
where
    DB: Database,
    for<'t> DbId: Encode<'t, DB> + Type<DB>,
    for<'t> i64: Encode<'t, DB> + Type<DB>,
    for<'t> &'t str: Encode<'t, DB> + Type<DB>,
{
    for bind in binds {
        query = match *bind {
            Bind::Id(id) => query.bind(id),
            Bind::Int(n) => query.bind(n),
            Bind::Text(text) => query.bind(text),
        };
    }
    query
}

/// A row type a backend's own driver can read (by column name, as sqlx's `FromRow` does:
/// the names are looked up once per statement, into a `Layout`).
pub(crate) trait QuickRow: Sized {
    /// Where this row's columns are in a statement's result.
    type Layout;

    /// The layout of `stmt`'s result; an error sends the caller through the pool.
    #[cfg(feature = "sqlite")]
    fn layout(stmt: &rusqlite::Statement<'_>) -> rusqlite::Result<Self::Layout>;

    /// Reads one row; an error sends the caller through the pool.
    #[cfg(feature = "sqlite")]
    fn from_rusqlite(row: &rusqlite::Row<'_>, layout: &Self::Layout) -> rusqlite::Result<Self>;
}

#[cfg(feature = "sqlite")]
mod sqlite {
    use rusqlite::types::{ToSqlOutput, Value, ValueRef};

    use super::Bind;

    impl rusqlite::ToSql for Bind<'_> {
        fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
            Ok(match *self {
                // As sqlx's encoding of a `DbId` for SQLite: the hyphenated text.
                Bind::Id(id) => ToSqlOutput::Owned(Value::Text(id.0.hyphenated().to_string())),
                Bind::Int(n) => ToSqlOutput::Owned(Value::Integer(n)),
                Bind::Text(text) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
            })
        }
    }
}

/// `QuickRow` for tuples of plain columns, read by position (the statement's column order).
macro_rules! positional_rows {
    ($($row:ty => ($($at:tt),+);)+) => {$(
        impl QuickRow for $row {
            type Layout = ();

            #[cfg(feature = "sqlite")]
            fn layout(_: &rusqlite::Statement<'_>) -> rusqlite::Result<()> {
                Ok(())
            }

            #[cfg(feature = "sqlite")]
            fn from_rusqlite(row: &rusqlite::Row<'_>, (): &()) -> rusqlite::Result<Self> {
                Ok(($(row.get($at)?),+))
            }
        }
    )+};
}

positional_rows! {
    (String, String) => (0, 1);
    (String, String, String) => (0, 1, 2);
    (String, i64, i64) => (0, 1, 2);
}
