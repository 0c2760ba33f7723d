//! Online backups of a SQLite database: `VACUUM INTO` a new file, then `PRAGMA
//! integrity_check` on the copy.
//!
//! `VACUUM INTO` reads the database inside one read transaction, so the copy is the database
//! as of one commit, whatever writers do meanwhile (in WAL mode they are not held up: a reader
//! never blocks a writer). The copy is a plain, compacted database file with no `-wal` beside
//! it, ready to be put in place of a lost database. The backup runs on a connection of its
//! own, which only reads: it never takes the store's writer connection nor the write lock.
//! That connection is not opened read-only: a read-only connection to a database that no
//! server has open leaves the `-wal` and `-shm` files it had to create behind it (owned by
//! whoever ran the backup), where a read-write one, closing last, removes them as a server does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};
use crate::store::BackupReport;

/// How long the backup's connection waits for a lock (a WAL recovery by another process).
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Copies the database file at `source` to the new file `out` and checks the copy (blocking:
/// run it off the async runtime's threads).
pub(super) fn backup_file(source: &Path, out: &Path) -> Result<BackupReport> {
    if !source.is_file() {
        return Err(Error::Config(format!(
            "there is no SQLite database at {}: check --database-url",
            source.display()
        )));
    }
    refuse_existing(out)?;
    let out_text = out.to_str().ok_or_else(|| {
        Error::BadRequest(format!(
            "the backup file name {} is not UTF-8: choose another name",
            out.display()
        ))
    })?;
    // Read-write but never created: the file exists (checked above).
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(source, flags).map_err(Error::storage)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(Error::storage)?;
    // A database that is not blogread's is refused before anything is written.
    counts(&conn).map_err(|_| {
        Error::Config(format!(
            "{} is not a blogread database (it has no projects and blogs tables)",
            source.display()
        ))
    })?;
    conn.execute("VACUUM INTO ?1", [out_text])
        .map_err(|e| copy_failed(out, e))?;
    conn.close().map_err(|(_, e)| Error::storage(e))?;
    match verify(out) {
        Ok(report) => Ok(report),
        Err(err) => {
            // A copy that fails its check must not be mistaken for a backup.
            let _ = std::fs::remove_file(out);
            Err(err)
        }
    }
}

/// A backup never replaces a file: an old backup may be the only good copy left.
fn refuse_existing(out: &Path) -> Result<()> {
    if std::fs::symlink_metadata(out).is_ok() {
        return Err(Error::Conflict(format!(
            "{} already exists: a backup never overwrites a file; give a new file name (or remove the old file first)",
            out.display()
        )));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(Error::BadRequest(format!(
            "the directory {} does not exist: create it first",
            parent.display()
        )));
    }
    Ok(())
}

fn copy_failed(out: &Path, e: rusqlite::Error) -> Error {
    Error::Config(format!(
        "could not write the backup to {}: {e}",
        out.display()
    ))
}

/// `PRAGMA integrity_check` on the copy, its counts, and the copy synced to the disk.
fn verify(out: &Path) -> Result<BackupReport> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let copy = Connection::open_with_flags(out, flags).map_err(Error::storage)?;
    let problems: Vec<String> = {
        let mut stmt = copy
            .prepare("PRAGMA integrity_check")
            .map_err(Error::storage)?;
        stmt.query_map([], |row| row.get::<_, String>(0))
            .map_err(Error::storage)?
            .collect::<rusqlite::Result<_>>()
            .map_err(Error::storage)?
    };
    if problems != ["ok"] {
        return Err(Error::Config(format!(
            "the copy at {} failed PRAGMA integrity_check ({}); it was removed",
            out.display(),
            problems.join("; ")
        )));
    }
    let (projects, blogs) = counts(&copy).map_err(Error::storage)?;
    drop(copy);
    let file = std::fs::File::open(out).map_err(Error::storage)?;
    file.sync_all().map_err(Error::storage)?;
    let bytes = file.metadata().map_err(Error::storage)?.len();
    if let Some(dir) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        // The new directory entry too, so the file survives a power loss (best effort).
        if let Ok(dir) = std::fs::File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    Ok(BackupReport {
        path: out.to_path_buf(),
        bytes,
        projects,
        blogs,
    })
}

fn counts(conn: &Connection) -> rusqlite::Result<(u64, u64)> {
    conn.query_row(
        "SELECT (SELECT count(*) FROM projects), (SELECT count(*) FROM blogs)",
        [],
        |row| {
            let count = |i| row.get::<_, i64>(i).map(|n| u64::try_from(n).unwrap_or(0));
            Ok((count(0)?, count(1)?))
        },
    )
}
