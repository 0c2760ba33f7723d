//! Online backups of a SQLite database: `VACUUM INTO` a private copy, `PRAGMA
//! integrity_check` on it, then its bytes into the backup file.
//!
//! `VACUUM INTO` reads the database inside one read transaction, so the copy is the database
//! as of one commit, whatever writers do meanwhile (in WAL mode they are not held up: a reader
//! never blocks a writer). The copy is a plain, compacted database file with no `-wal` beside
//! it, ready to be put in place of a lost database. The backup runs on a connection of its
//! own, which only reads: it never takes the store's writer connection nor the write lock.
//! That connection is not opened read-only: a read-only connection to a database that no
//! server has open leaves the `-wal` and `-shm` files it had to create behind it (owned by
//! whoever ran the backup), where a read-write one, closing last, removes them as a server does.
//!
//! The backup holds every credential of the database, so its file is private and made without
//! a window for a link: the backup file is created first, relative to a descriptor of its
//! folder, exclusively, without following links, with mode 0600 (`openat` with
//! `O_CREAT | O_EXCL | O_NOFOLLOW`); SQLite writes its copy into a private (0700) folder of its
//! own beside the database (or in the system's temporary folder), never through the name the
//! user gave; the checked copy is then written into the file already open, synced, and the
//! private folder removed. A name that exists (a file, a link, anything) is refused, and a
//! failed backup removes the file it created.

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
    let target = NewFile::create(out)?;
    match copy_into(source, &target) {
        Ok((projects, blogs, bytes)) => Ok(BackupReport {
            path: out.to_path_buf(),
            bytes,
            projects,
            blogs,
        }),
        Err(err) => {
            // A failed backup leaves nothing that could be mistaken for one.
            target.remove();
            Err(err)
        }
    }
}

/// Copies the database at `source` (as of one commit, checked) into `target`: the counts of
/// projects and blogs in the copy and its size.
fn copy_into(source: &Path, target: &NewFile) -> Result<(u64, u64, u64)> {
    // Read-write but never created: the file exists (checked by the caller).
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
    let work = private_folder(source)?;
    let copy = work.path().join("copy.db");
    let copy_text = copy.to_str().ok_or_else(|| {
        Error::Config(format!(
            "the folder {} has a name that is not UTF-8; SQLite cannot write a copy there",
            work.path().display()
        ))
    })?;
    conn.execute("VACUUM INTO ?1", [copy_text])
        .map_err(|e| copy_failed(target.shown(), e))?;
    conn.close().map_err(|(_, e)| Error::storage(e))?;
    mark_as_copy(&copy).map_err(|e| copy_failed(target.shown(), e))?;
    let (projects, blogs) = verify(&copy, target.shown())?;
    let mut from = std::fs::File::open(&copy).map_err(Error::storage)?;
    let mut file = target.file();
    let bytes = std::io::copy(&mut from, &mut file).map_err(|e| {
        Error::Config(format!(
            "could not write the backup to {}: {e}",
            target.shown().display()
        ))
    })?;
    file.sync_all().map_err(Error::storage)?;
    // The new directory entry too, so the file survives a power loss.
    target.sync_folder();
    Ok((projects, blogs, bytes))
}

/// A folder only this user can enter, for SQLite to write its copy in: beside the database
/// (the same disk, and a folder the server's user owns), else in the system's temporary
/// folder. Removed when dropped.
fn private_folder(source: &Path) -> Result<tempfile::TempDir> {
    let beside = source
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let make = |folder: &Path| {
        tempfile::Builder::new()
            .prefix(".blogread-backup-")
            .tempdir_in(folder)
    };
    make(beside)
        .or_else(|_| make(&std::env::temp_dir()))
        .map_err(|e| {
            Error::Config(format!(
                "could not make a private working folder beside {} nor in {}: {e}",
                source.display(),
                std::env::temp_dir().display()
            ))
        })
}

/// The backup file, created by [`NewFile::create`] and open for writing.
struct NewFile {
    /// The name it was given, for messages.
    shown: PathBuf,
    /// The file.
    file: std::fs::File,
    /// Its folder, as opened when the file was created.
    #[cfg(unix)]
    folder: rustix::fd::OwnedFd,
    /// Its name in the folder.
    #[cfg(unix)]
    name: std::ffi::OsString,
}

impl NewFile {
    /// Creates `out`, private (0600), relative to a descriptor of its folder, exclusively and
    /// without following a link: a name that exists, whatever it is, is refused.
    #[cfg(unix)]
    fn create(out: &Path) -> Result<Self> {
        use rustix::fs::{Mode, OFlags};
        use rustix::io::Errno;

        let name = out
            .file_name()
            .filter(|_| !out.as_os_str().to_string_lossy().ends_with('/'))
            .ok_or_else(|| {
                Error::BadRequest(format!(
                    "{} names no file: give the backup a file name",
                    out.display()
                ))
            })?;
        let parent = folder_of(out);
        let folder = rustix::fs::open(
            &parent,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            Errno::NOENT | Errno::NOTDIR => Error::BadRequest(format!(
                "the directory {} does not exist: create it first",
                parent.display()
            )),
            e => Error::Config(format!(
                "could not open the directory {}: {}",
                parent.display(),
                std::io::Error::from(e)
            )),
        })?;
        let file = rustix::fs::openat(
            &folder,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| match e {
            Errno::EXIST | Errno::LOOP => exists(out),
            e => Error::Config(format!(
                "could not create the backup file {}: {}",
                out.display(),
                std::io::Error::from(e)
            )),
        })?;
        Ok(Self {
            shown: out.to_path_buf(),
            file: std::fs::File::from(file),
            folder,
            name: name.to_owned(),
        })
    }

    /// Creates `out` exclusively (no file, link or anything else of that name may exist).
    #[cfg(not(unix))]
    fn create(out: &Path) -> Result<Self> {
        let parent = folder_of(out);
        if !parent.is_dir() {
            return Err(Error::BadRequest(format!(
                "the directory {} does not exist: create it first",
                parent.display()
            )));
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(out)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => exists(out),
                _ => Error::Config(format!(
                    "could not create the backup file {}: {e}",
                    out.display()
                )),
            })?;
        Ok(Self {
            shown: out.to_path_buf(),
            file,
        })
    }

    fn shown(&self) -> &Path {
        &self.shown
    }

    fn file(&self) -> &std::fs::File {
        &self.file
    }

    /// Syncs the folder, so that the new entry survives a power loss (best effort).
    fn sync_folder(&self) {
        #[cfg(unix)]
        let _ = rustix::fs::fsync(&self.folder);
        #[cfg(not(unix))]
        if let Ok(dir) = std::fs::File::open(folder_of(&self.shown)) {
            let _ = dir.sync_all();
        }
    }

    /// Removes the file this created (by its name in the folder it was created in).
    fn remove(self) {
        #[cfg(unix)]
        let _ = rustix::fs::unlinkat(&self.folder, &self.name, rustix::fs::AtFlags::empty());
        #[cfg(not(unix))]
        let _ = std::fs::remove_file(&self.shown);
    }
}

/// The folder `out` is in (`.` for a bare name).
fn folder_of(out: &Path) -> PathBuf {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A backup never replaces a file: an old backup may be the only good copy left.
fn exists(out: &Path) -> Error {
    Error::Conflict(format!(
        "{} already exists: a backup never overwrites a file; give a new file name (or remove the old file first)",
        out.display()
    ))
}

fn copy_failed(out: &Path, e: rusqlite::Error) -> Error {
    Error::Config(format!(
        "could not write the backup to {}: {e}",
        out.display()
    ))
}

/// The table that marks a database file as a copy `backup` wrote: a store that opens it
/// draws a new ETag epoch and drops the table (see `SqlStore::start_up`), so that once the copy
/// is restored, every ETag and changes-feed cursor the database gave out before (after the
/// backup, or at an earlier restore of the same copy) is another database's. A table rather
/// than a column, so that a copy of a database at any schema version can be marked.
pub(crate) const RESTORED_COPY_MARK: &str = "blogread_restored_copy";

/// Marks the copy at `copy` as a backup copy ([`RESTORED_COPY_MARK`]).
fn mark_as_copy(copy: &Path) -> rusqlite::Result<()> {
    let conn = Connection::open_with_flags(
        copy,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS {RESTORED_COPY_MARK} (id INTEGER PRIMARY KEY CHECK (id = 1));"
    ))?;
    conn.close().map_err(|(_, e)| e)
}

/// `PRAGMA integrity_check` on the copy at `copy` (of the backup `shown`), and its counts.
fn verify(copy: &Path, shown: &Path) -> Result<(u64, u64)> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(copy, flags).map_err(Error::storage)?;
    let problems: Vec<String> = {
        let mut stmt = conn
            .prepare("PRAGMA integrity_check")
            .map_err(Error::storage)?;
        stmt.query_map([], |row| row.get::<_, String>(0))
            .map_err(Error::storage)?
            .collect::<rusqlite::Result<_>>()
            .map_err(Error::storage)?
    };
    if problems != ["ok"] {
        return Err(Error::Config(format!(
            "the copy for {} failed PRAGMA integrity_check ({}); nothing was kept",
            shown.display(),
            problems.join("; ")
        )));
    }
    counts(&conn).map_err(Error::storage)
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

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::backup_file;
    use crate::error::Error;
    use crate::store::SqliteStore;

    /// A blogread database at `path`, made and closed.
    fn database(path: &Path) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let store = SqliteStore::connect(&format!("sqlite://{}", path.display()))
                .await
                .unwrap();
            store.close().await;
        });
    }

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn a_backup_is_a_private_checked_copy_and_leaves_no_working_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("live.db");
        database(&db);
        let out = dir.path().join("backup.db");
        let report = backup_file(&db, &out).unwrap();
        assert_eq!(mode(&out), 0o600);
        assert_eq!(report.bytes, std::fs::metadata(&out).unwrap().len());
        assert_eq!((report.projects, report.blogs), (0, 0));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with(".blogread-backup-"))
            .collect();
        assert!(names.is_empty(), "working folder left: {names:?}");
    }

    #[test]
    fn a_backup_never_writes_through_a_link_nor_over_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("live.db");
        database(&db);
        let kept = dir.path().join("kept");
        std::fs::write(&kept, b"an older backup").unwrap();
        let dangling = dir.path().join("absent-target");
        for (name, target) in [("to-file", &kept), ("dangling", &dangling)] {
            let link = dir.path().join(name);
            std::os::unix::fs::symlink(target, &link).unwrap();
            let err = backup_file(&db, &link).unwrap_err();
            assert!(matches!(err, Error::Conflict(_)), "{err}");
        }
        assert!(matches!(backup_file(&db, &kept), Err(Error::Conflict(_))));
        assert_eq!(std::fs::read(&kept).unwrap(), b"an older backup");
        assert!(!dangling.exists());
    }

    /// A link swapped in at the backup's name while backups run is never written through:
    /// the name is taken by one exclusive create, with no check before it to race.
    #[test]
    fn a_link_swapped_in_during_backups_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("live.db");
        database(&db);
        let out = dir.path().join("racy.db");
        let target = dir.path().join("target.db");
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (out, target, stop) = (out.clone(), target.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let _ = std::os::unix::fs::symlink(&target, &out);
                    let _ = std::fs::remove_file(&out);
                }
            })
        };
        for _ in 0..40 {
            match backup_file(&db, &out) {
                Ok(_) => {
                    stop.store(true, Ordering::Relaxed);
                    let meta = std::fs::symlink_metadata(&out);
                    stop.store(false, Ordering::Relaxed);
                    // The swapper may have removed it since; if it is there, it is ours.
                    if let Ok(meta) = meta
                        && meta.file_type().is_file()
                    {
                        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
                    }
                    let _ = std::fs::remove_file(&out);
                }
                Err(Error::Conflict(_)) => {}
                Err(other) => panic!("{other}"),
            }
            assert!(!target.exists(), "written through the link");
        }
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        assert!(!target.exists());
    }

    #[test]
    fn a_failed_backup_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let not_blogread = dir.path().join("other.db");
        let conn = rusqlite::Connection::open(&not_blogread).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        drop(conn);
        let out = dir.path().join("backup.db");
        let err = backup_file(&not_blogread, &out).unwrap_err();
        assert!(err.to_string().contains("not a blogread database"), "{err}");
        assert!(!out.exists(), "the file it created is removed");
    }
}
