//! Public reads a backend may answer on the calling thread: the rows that a backend's own
//! driver can read back ([`QuickRow`]), for statements whose parameters are plain values
//! ([`Bind`](super::values::Bind)). SQLite answers them with rusqlite (see
//! `store/sqlite/quick.rs`); PostgreSQL always goes through its pool.

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
                Ok(($(row.get($at)?,)+))
            }
        }
    )+};
}

positional_rows! {
    (String,) => (0);
    (String, String) => (0, 1);
    (String, String, String) => (0, 1, 2);
    (String, i64, i64) => (0, 1, 2);
    super::links_report::TargetRow => (0, 1, 2, 3, 4, 5, 6);
    super::links_report::PlaceholdersRow => (0, 1, 2);
    super::links_report::BodyKeyRow => (0, 1, 2, 3);
    (String, super::DbId) => (0, 1);
}
