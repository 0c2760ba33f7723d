//! How the SQL store turns sqlx errors and unreadable rows into [`Error`]s.

use crate::error::{Error, NotFound};
use crate::store::rules::Conflict;

/// Stored data that no longer passes the domain checks: a storage failure, never a 4xx.
#[derive(Debug, thiserror::Error)]
#[error("stored {what} is invalid: {detail}")]
pub(crate) struct CorruptRow {
    what: &'static str,
    detail: String,
}

/// The error of reading stored `what` that fails its check (`detail` says how).
pub(crate) fn corrupt(what: &'static str, detail: impl ToString) -> Error {
    crate::store::faults::count_error("corrupt");
    Error::storage(CorruptRow {
        what,
        detail: detail.to_string(),
    })
}

/// Any sqlx error that the caller does not expect: the database's own condition (disk full,
/// locked, not answering) or a 500.
pub(crate) fn storage(e: sqlx::Error) -> Error {
    crate::store::faults::classify(e)
}

/// A write's error: a unique violation is `conflict`; a foreign key violation means the
/// project is gone; anything else is a storage failure.
pub(crate) fn write_error(e: sqlx::Error, conflict: Conflict<'_>) -> Error {
    match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => conflict.into(),
        sqlx::Error::Database(d) if d.is_foreign_key_violation() => {
            Error::NotFound(NotFound::Project)
        }
        _ => storage(e),
    }
}
