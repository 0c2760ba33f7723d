//! Files below the output folder are written, read and removed only through real files
//! and folders:
//! never through a symbolic link, which could point outside the site (a repository can commit
//! one). The output folder itself may be a link (users point `--out` at a folder elsewhere);
//! every existing part of a path below it is checked with `symlink_metadata`, which does not
//! follow links, right before the path is used.
//!
//! The checks cannot stop a process that swaps a folder for a link between the check and the
//! use; they are about what is already in the site when the export starts.

use std::io;
use std::path::Path;

use super::{ExportError, io_err};

/// Fails with [`ExportError::Symlink`] if any existing part of `out/<rel>` below `out` is a
/// symbolic link (`rel` has `/` between parts). Parts that do not exist yet are fine.
pub(super) fn check(out: &Path, rel: &str) -> Result<(), ExportError> {
    let mut path = out.to_path_buf();
    for part in rel.split('/') {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(ExportError::Symlink {
                    link: path,
                    file: out.join(rel),
                    out: out.to_owned(),
                });
            }
            Ok(_) => {}
            // Nothing below a missing part exists either.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_err(&path)(e)),
        }
    }
    Ok(())
}

/// Whether `out/<rel>` exists (as anything but a link, which is an error), without following
/// a link.
pub(super) fn exists(out: &Path, rel: &str) -> Result<bool, ExportError> {
    check(out, rel)?;
    let path = out.join(rel);
    match std::fs::symlink_metadata(&path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_err(&path)(e)),
    }
}

/// Whether `out/<rel>` holds exactly `bytes`.
pub(super) fn holds(out: &Path, rel: &str, bytes: &[u8]) -> Result<bool, ExportError> {
    check(out, rel)?;
    Ok(std::fs::read(out.join(rel)).is_ok_and(|existing| existing == bytes))
}

/// Writes `out/<rel>` atomically, making its folder if missing.
pub(super) fn write(out: &Path, rel: &str, bytes: &[u8]) -> Result<(), ExportError> {
    check(out, rel)?;
    if let Some((folder, _)) = rel.rsplit_once('/') {
        let dir = out.join(folder);
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_err(&dir)(e)),
        }
        // Made just now, or by someone else meanwhile: still no link.
        check(out, rel)?;
    }
    let path = out.join(rel);
    crate::cache::write_atomically(&path, bytes).map_err(io_err(&path))
}

/// Removes the file `out/<rel>`, and its folder if that leaves it empty (`<slug>/index.html`).
/// `false` when there was no file.
pub(super) fn remove(out: &Path, rel: &str) -> Result<bool, ExportError> {
    check(out, rel)?;
    let path = out.join(rel);
    let removed = match std::fs::remove_file(&path) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(io_err(&path)(e)),
    };
    if let Some((folder, _)) = rel.rsplit_once('/') {
        check(out, folder)?;
        // Fails, as it should, when the folder holds anything else.
        let _ = std::fs::remove_dir(out.join(folder));
    }
    Ok(removed)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A site folder and a folder outside it holding a file the export must never touch.
    struct Site {
        site: tempfile::TempDir,
        outside: tempfile::TempDir,
    }

    impl Site {
        fn new() -> Self {
            let site = Self {
                site: tempfile::tempdir().unwrap(),
                outside: tempfile::tempdir().unwrap(),
            };
            std::fs::write(site.outside.path().join("index.html"), "outside").unwrap();
            std::fs::write(site.outside.path().join("post.md"), "outside").unwrap();
            site
        }
        fn out(&self) -> &Path {
            self.site.path()
        }
        fn outside(&self, name: &str) -> String {
            std::fs::read_to_string(self.outside.path().join(name)).unwrap()
        }
    }

    fn assert_refused_at(result: Result<impl std::fmt::Debug, ExportError>, link: &Path) {
        let err = result.expect_err("refused");
        let message = err.to_string();
        match &err {
            ExportError::Symlink { link: l, .. } => assert_eq!(l, link, "{message}"),
            other => panic!("not a symlink refusal: {other}"),
        }
        assert!(
            message.contains(&link.display().to_string()),
            "names the link: {message}"
        );
    }

    #[test]
    fn nothing_is_written_or_removed_through_a_symlinked_folder() {
        let site = Site::new();
        let link = site.out().join("post");
        symlink(site.outside.path(), &link).unwrap();
        assert_refused_at(write(site.out(), "post/index.html", b"new"), &link);
        assert_refused_at(remove(site.out(), "post/index.html"), &link);
        assert_refused_at(holds(site.out(), "post/index.html", b"x"), &link);
        assert_refused_at(exists(site.out(), "post/index.html"), &link);
        assert_eq!(site.outside("index.html"), "outside");
        assert!(link.symlink_metadata().unwrap().is_symlink(), "link kept");
    }

    #[test]
    fn nothing_is_written_or_removed_through_a_symlinked_file() {
        let site = Site::new();
        let link = site.out().join("post.md");
        symlink(site.outside.path().join("post.md"), &link).unwrap();
        assert_refused_at(write(site.out(), "post.md", b"new"), &link);
        assert_refused_at(remove(site.out(), "post.md"), &link);
        assert_refused_at(holds(site.out(), "post.md", b"outside"), &link);
        assert_eq!(site.outside("post.md"), "outside");
        assert!(link.symlink_metadata().unwrap().is_symlink(), "link kept");
    }

    #[test]
    fn a_dangling_symlink_is_refused_too() {
        let site = Site::new();
        let target = site.outside.path().join("missing");
        let link = site.out().join("post.md");
        symlink(&target, &link).unwrap();
        assert_refused_at(write(site.out(), "post.md", b"new"), &link);
        assert_refused_at(exists(site.out(), "post.md"), &link);
        assert!(!target.exists());
    }

    #[test]
    fn the_output_folder_itself_may_be_a_symlink() {
        let site = Site::new();
        let real = site.out().join("real");
        std::fs::create_dir(&real).unwrap();
        let out = site.out().join("out");
        symlink(&real, &out).unwrap();
        write(&out, "post/index.html", b"new").unwrap();
        assert!(holds(&out, "post/index.html", b"new").unwrap());
        assert_eq!(
            std::fs::read_to_string(real.join("post/index.html")).unwrap(),
            "new"
        );
        assert!(remove(&out, "post/index.html").unwrap());
        assert!(!real.join("post").exists(), "emptied folder removed");
    }
}
