//! The database file is private: it holds every project's public key and deploy hook URL,
//! both credentials. A database the store creates is made with mode 0600 before SQLite opens
//! it (SQLite gives the `-wal` and `-shm` files it creates beside it the database file's
//! mode), and an existing one that other users may read is reported at start.

use std::path::Path;

use crate::error::{Error, Result};

/// Creates the database file at `path`, empty and readable by its owner only, unless
/// something is there already (which SQLite then opens, or refuses, as it is). Returns whether
/// it created the file.
pub(super) fn create_private(path: &Path) -> Result<bool> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        // A missing folder, a read-only disk...: SQLite says it better when it opens.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::Config(format!(
            "could not create the database file {}: {e}",
            path.display()
        ))),
    }
}

/// The warning to log when the existing database file at `path` (with permission bits
/// `mode`) may be read or written by users other than its owner, if it may.
pub(super) fn exposure_warning(path: &Path, mode: u32) -> Option<String> {
    (mode & 0o077 != 0).then(|| {
        format!(
            "the database file {} has mode {:o}: other local users can read every public key and \
             deploy hook URL in it (both are credentials); make it private with `chmod 600 {}` \
             (and its -wal and -shm files)",
            path.display(),
            mode & 0o777,
            path.display()
        )
    })
}

/// Logs [`exposure_warning`] for the database file at `path`, if it has one.
pub(super) fn warn_if_exposed(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if let Ok(meta) = std::fs::metadata(path)
            && let Some(warning) = exposure_warning(path, meta.permissions().mode())
        {
            tracing::warn!("{warning}");
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_others_can_read_or_write_is_reported_and_a_private_one_is_not() {
        let path = Path::new("/var/lib/blogread/blogread.db");
        assert_eq!(exposure_warning(path, 0o100600), None);
        assert_eq!(exposure_warning(path, 0o100400), None);
        let shown = exposure_warning(path, 0o100644).expect("world-readable");
        assert!(shown.contains("mode 644"), "{shown}");
        assert!(
            shown.contains("chmod 600 /var/lib/blogread/blogread.db"),
            "{shown}"
        );
        assert!(exposure_warning(path, 0o100640).is_some(), "group-readable");
        assert!(exposure_warning(path, 0o100602).is_some(), "world-writable");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_database_file_is_created_private_and_an_existing_one_is_left_alone() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.db");
        assert!(create_private(&path).unwrap());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::write(&path, b"kept").unwrap();
        assert!(!create_private(&path).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"kept");
        // A link where the file would be is not followed.
        let target = dir.path().join("elsewhere.db");
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(!create_private(&link).unwrap());
        assert!(!target.exists(), "nothing created through the link");
    }
}
