//! Public reads answered on the calling thread: the key check, and the rows of the public
//! list, the single blog and the link look-ups.
//!
//! Every public read starts with one look-up: which project does this key hash open, with
//! which site URL and content version (the ETag and the response cache key). It cannot be
//! cached in the process, since a key rotated or revoked by another process on the same file
//! must fail on the very next request. sqlx runs each SQLite connection on a worker thread of
//! its own and hands every query and row across channels; under load on a small machine those
//! hand-offs were most of a cached read's cost (a thread switch each, ~8 futex calls per
//! request, while SQLite's own work was 0.3% of the profile). This module answers such
//! queries synchronously through rusqlite instead, on read-only connections of the same file.
//! A read that misses the response cache (the first after every publish) pays the hand-off
//! per row as well: a page of 50 rows ran in ~0.15 ms in SQLite but cost the server
//! ~0.6 ms through sqlx, so the page rows, the single blog and the titles and aliases of its
//! links come this way too.
//!
//! It never waits: the connections have no busy timeout, and anything other than an answer
//! (the database busy during a WAL recovery, an error, a row it cannot read) returns `None`,
//! so the caller asks sqlx's reader pool, which waits and reports errors as every other query
//! does. The answer is therefore always the database's, only the route to it differs.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::domain::PublicProject;
use crate::store::sql::{Bind, PublicProjectRow, QuickRow};

/// The statement, here and in the sqlx fallback (`$1` is SQLite's first parameter for both).
pub(super) const QUERY: &str = "SELECT p.id, p.site_url, p.content_version, \
                                (SELECT MIN(b.published_at) FROM blogs b \
                                 WHERE b.project_id = p.id AND b.status = 'scheduled') \
                                AS next_go_live \
                                FROM public_keys k JOIN projects p ON p.id = k.project_id \
                                WHERE k.key_hash = $1";

/// Idle connections kept for reuse; more are opened when more threads ask at once.
const MAX_IDLE: usize = 8;

/// Read-only connections to one database file, for the reads of this module.
#[derive(Debug)]
pub(super) struct QuickReader {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// Set by [`QuickReader::close`].
    closed: std::sync::atomic::AtomicBool,
}

impl QuickReader {
    /// A reader of the database file at `path` (connections open on first use).
    pub(super) fn new(path: PathBuf) -> Self {
        Self {
            path,
            idle: Mutex::new(Vec::new()),
            closed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The project that the key with this hash (lower-case hex) opens: `Some(answer)` when
    /// the database answered at once, `None` when the caller must ask through sqlx.
    pub(super) fn lookup(&self, key_hash: &str) -> Option<Option<PublicProject>> {
        self.read(|conn| query(conn, key_hash))
    }

    /// The rows of `sql` with `binds` bound by their `$N` numbers, as sqlx binds them:
    /// `None` when the database did not answer at once.
    pub(super) fn rows<R: QuickRow>(&self, sql: &str, binds: &[Bind<'_>]) -> Option<Vec<R>> {
        self.read(|conn| rows(conn, sql, binds))
    }

    /// `read` on an idle connection (or a new one).
    fn read<T>(&self, read: impl FnOnce(&Connection) -> Option<T>) -> Option<T> {
        let conn = match self.idle.lock().ok().and_then(|mut idle| idle.pop()) {
            Some(conn) => conn,
            None => self.open()?,
        };
        let answer = read(&conn);
        // A connection goes back only after an answer, outside any transaction; after an
        // error it is closed (dropped).
        if answer.is_some()
            && conn.is_autocommit()
            && !self.closed.load(std::sync::atomic::Ordering::Acquire)
        {
            if let Ok(mut idle) = self.idle.lock()
                && idle.len() < MAX_IDLE
            {
                idle.push(conn);
            }
        } else {
            tracing::debug!("a quick read falls back to the sqlx reader pool");
        }
        answer
    }

    /// Closes the idle connections and opens no more: every later look-up goes to sqlx.
    pub(super) fn close(&self) {
        self.closed
            .store(true, std::sync::atomic::Ordering::Release);
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }

    fn open(&self) -> Option<Connection> {
        if self.closed.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags).ok()?;
        // Never wait on the caller's thread: a busy database goes the sqlx way.
        conn.busy_timeout(Duration::ZERO).ok()?;
        // The bundled SQLite plans with STAT4, which marks a statement to be prepared again
        // whenever a new parameter value might change its plan: that re-preparation was 11%
        // of a cold list read's CPU. These statements' plans do not depend on the values.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
            .ok()?;
        Some(conn)
    }
}

fn query(conn: &Connection, key_hash: &str) -> Option<Option<PublicProject>> {
    let mut stmt = conn.prepare_cached(QUERY).ok()?;
    let row = stmt
        .query_row([key_hash], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, Option<String>>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, Option<i64>>(3)?,
            ))
        })
        .optional()
        .ok()?;
    match row {
        None => Some(None),
        Some((id, site_url, content_version, next_go_live)) => {
            let id = uuid::Uuid::parse_str(&id).ok()?;
            Some(Some(
                PublicProjectRow::new(id, site_url, content_version, next_go_live).into_public(),
            ))
        }
    }
}

fn rows<R: QuickRow>(conn: &Connection, sql: &str, binds: &[Bind<'_>]) -> Option<Vec<R>> {
    let mut stmt = conn.prepare_cached(sql).ok()?;
    // `$N` is a named parameter to SQLite, numbered in order of first appearance: bind each
    // by its own number, as sqlx does.
    for index in 1..=stmt.parameter_count() {
        let number: usize = stmt
            .parameter_name(index)?
            .strip_prefix('$')?
            .parse()
            .ok()?;
        stmt.raw_bind_parameter(index, binds.get(number.checked_sub(1)?)?)
            .ok()?;
    }
    let layout = R::layout(&stmt).ok()?;
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(row) = rows.next().ok()? {
        out.push(R::from_rusqlite(row, &layout).ok()?);
    }
    Some(out)
}
