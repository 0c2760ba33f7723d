//! What a database failure means for the caller, and one log line per episode.
//!
//! Most backend errors are bugs or corruption: a 500 whose cause goes to the log. A few are the
//! database's condition rather than the request's, and the same request may succeed later: the
//! disk is full, another process holds the write lock past the busy time-out, the server does
//! not answer. Those become [`Unavailable`] errors that say so. Each such condition is logged
//! at error level once when it starts and at info level when a write succeeds again, not once
//! per request: a full disk under load would otherwise flood the log it cannot write either.
//!
//! The episode state is process-wide, like the log it throttles.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::error::{Error, Unavailable, error_chain};

/// One flag per [`Unavailable`] condition: set while an episode is under way.
static EPISODES: [AtomicBool; 3] = [
    AtomicBool::new(false),
    AtomicBool::new(false),
    AtomicBool::new(false),
];

/// When a connection last failed (milliseconds since [`origin`], plus one; 0 for never).
static LAST_CONNECTION_FAILURE: AtomicU64 = AtomicU64::new(0);

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

fn index(fault: Unavailable) -> usize {
    match fault {
        Unavailable::DiskFull => 0,
        Unavailable::Busy => 1,
        Unavailable::Unreachable => 2,
    }
}

const FAULTS: [Unavailable; 3] = [
    Unavailable::DiskFull,
    Unavailable::Busy,
    Unavailable::Unreachable,
];

/// The core error for a sqlx error: [`Error::Unavailable`] for the database's own conditions
/// (logged once per episode), [`Error::Storage`] for everything else.
pub(crate) fn classify(e: sqlx::Error) -> Error {
    let fault = fault_of(&e);
    count_error(match fault {
        Some(Unavailable::DiskFull) => "disk_full",
        Some(Unavailable::Busy) => "busy",
        Some(Unavailable::Unreachable) => "unreachable",
        None => "failure",
    });
    match fault {
        Some(fault) => {
            if fault == Unavailable::Unreachable {
                note_connection_failure();
            }
            if !EPISODES[index(fault)].swap(true, Ordering::AcqRel) {
                tracing::error!(error = %error_chain(&e), "{fault}");
            } else {
                tracing::debug!(error = %error_chain(&e), "{fault}");
            }
            Error::Unavailable(fault)
        }
        None => Error::storage(e),
    }
}

/// Counts a database error in `blogread_store_errors_total{kind}` (through the `metrics`
/// facade).
pub(crate) fn count_error(kind: &'static str) {
    debug_assert!(crate::store::STORE_ERROR_KINDS.contains(&kind), "{kind}");
    metrics::counter!("blogread_store_errors_total", "kind" => kind).increment(1);
}

/// A write committed: every episode under way is over.
pub(crate) fn write_succeeded() {
    for fault in FAULTS {
        let flag = &EPISODES[index(fault)];
        if flag.load(Ordering::Relaxed) && flag.swap(false, Ordering::AcqRel) {
            tracing::info!(condition = %fault, "the database accepts writes again");
        }
    }
}

/// A query reached the database server: an "unreachable" episode is over.
pub(crate) fn reached() {
    let flag = &EPISODES[index(Unavailable::Unreachable)];
    if flag.load(Ordering::Relaxed) && flag.swap(false, Ordering::AcqRel) {
        tracing::info!("the database answers again");
    }
}

fn note_connection_failure() {
    let now = u64::try_from(origin().elapsed().as_millis()).unwrap_or(u64::MAX);
    LAST_CONNECTION_FAILURE.fetch_max(now.saturating_add(1), Ordering::AcqRel);
}

/// Whether a connection that has been idle for `idle_for` went idle before (or as) the last
/// connection failure: it may be one of the broken ones and must be checked before use.
#[cfg(any(test, feature = "postgres"))]
pub(crate) fn idle_since_last_failure(idle_for: std::time::Duration) -> bool {
    let last = LAST_CONNECTION_FAILURE.load(Ordering::Acquire);
    if last == 0 {
        return false;
    }
    let now = origin().elapsed();
    let idle_since = now.saturating_sub(idle_for);
    let idle_since_ms = u64::try_from(idle_since.as_millis()).unwrap_or(u64::MAX);
    // Milliseconds round down: a connection parked in the same millisecond counts as before.
    idle_since_ms < last
}

/// The condition a sqlx error reports, if it is one of the database's own.
fn fault_of(e: &sqlx::Error) -> Option<Unavailable> {
    match e {
        sqlx::Error::Database(db) => {
            #[cfg(feature = "sqlite")]
            if let Some(err) = db.try_downcast_ref::<sqlx::sqlite::SqliteError>() {
                return sqlite_fault(err);
            }
            #[cfg(feature = "postgres")]
            if let Some(err) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                return postgres_fault(err.code());
            }
            let _ = db;
            None
        }
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::PoolTimedOut => {
            Some(Unavailable::Unreachable)
        }
        _ => None,
    }
}

/// SQLite's result codes, primary code in the low byte of the extended one: `SQLITE_FULL`
/// (13), `SQLITE_BUSY` (5), `SQLITE_LOCKED` (6).
#[cfg(feature = "sqlite")]
fn sqlite_fault(err: &sqlx::sqlite::SqliteError) -> Option<Unavailable> {
    use sqlx::error::DatabaseError;
    let code: i32 = err.code()?.parse().ok()?;
    match code & 0xff {
        13 => Some(Unavailable::DiskFull),
        5 | 6 => Some(Unavailable::Busy),
        _ => None,
    }
}

/// PostgreSQL's SQLSTATEs: `53100` disk full; `57P01`-`57P03` shutting down or starting up;
/// class `08` connection exceptions; `53300` too many connections.
#[cfg(feature = "postgres")]
fn postgres_fault(code: &str) -> Option<Unavailable> {
    match code {
        "53100" => Some(Unavailable::DiskFull),
        "57P01" | "57P02" | "57P03" | "53300" => Some(Unavailable::Unreachable),
        c if c.starts_with("08") => Some(Unavailable::Unreachable),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "postgres")]
    #[test]
    fn postgres_conditions_are_named_by_sqlstate() {
        assert_eq!(postgres_fault("53100"), Some(Unavailable::DiskFull));
        assert_eq!(postgres_fault("57P01"), Some(Unavailable::Unreachable));
        assert_eq!(postgres_fault("08006"), Some(Unavailable::Unreachable));
        assert_eq!(
            postgres_fault("23505"),
            None,
            "a unique violation is not a fault"
        );
    }

    #[test]
    fn an_io_error_is_an_unreachable_database_and_marks_idle_connections_suspect() {
        let long_idle = std::time::Duration::from_secs(3600);
        let err = classify(sqlx::Error::Io(std::io::Error::other("reset")));
        assert!(matches!(err, Error::Unavailable(Unavailable::Unreachable)));
        assert!(idle_since_last_failure(long_idle));
    }

    #[test]
    fn other_errors_stay_storage_failures() {
        let err = classify(sqlx::Error::RowNotFound);
        assert!(matches!(err, Error::Storage(_)));
    }
}
