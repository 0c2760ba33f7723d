//! Files below the output folder are written, read and removed only through real files
//! and folders:
//! never through a symbolic link, which could point outside the site (a repository can commit
//! one). The output folder itself may be a link (users point `--out` at a folder elsewhere).
//!
//! Two layers. [`check`] looks at every existing part of a path below the output folder with
//! `symlink_metadata`, which does not follow links, so that a link already in the site is
//! refused with an error that names it, before anything is written. Then, on Unix, every
//! read, write and removal goes through file descriptors: the folder is opened part by part
//! from the output folder with `O_NOFOLLOW`, and the file is created, replaced
//! (`renameat`), read (`O_NOFOLLOW`) or removed (`unlinkat`) relative to that folder. A
//! process that swaps a folder for a link between the check and the use makes the open fail
//! (`ELOOP` or `ENOTDIR`, reported as the same refusal) instead of sending the write
//! elsewhere. On other systems the check is made right before each use (paths, not
//! descriptors).

use std::io;
use std::path::Path;

use super::types::{ExportError, io_err};

/// Fails with [`ExportError::Symlink`] if any existing part of `out/<rel>` below `out` is a
/// symbolic link (`rel` has `/` between parts). Parts that do not exist yet are fine.
pub(super) fn check(out: &Path, rel: &str) -> Result<(), ExportError> {
    let mut path = out.to_path_buf();
    for part in rel.split('/') {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(symlink_at(out, rel, path)),
            Ok(_) => {}
            // Nothing below a missing part exists either.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_err(&path)(e)),
        }
    }
    Ok(())
}

/// The refusal of `out/<rel>` because of the link at `link`.
fn symlink_at(out: &Path, rel: &str, link: std::path::PathBuf) -> ExportError {
    ExportError::Symlink {
        link,
        file: out.join(rel),
        out: out.to_owned(),
    }
}

/// Whether `out/<rel>` exists (as anything but a link, which is an error), without following
/// a link.
pub(super) fn exists(out: &Path, rel: &str) -> Result<bool, ExportError> {
    check(out, rel)?;
    imp::exists(out, rel)
}

/// Whether `out/<rel>` holds exactly `bytes`.
pub(super) fn holds(out: &Path, rel: &str, bytes: &[u8]) -> Result<bool, ExportError> {
    check(out, rel)?;
    imp::holds(out, rel, bytes)
}

/// The first `max` bytes of the file `out/<rel>`, or `None` when it is missing, is not a
/// file, or is or lies below a symbolic link (never followed; not an error here, since the
/// export only looks).
pub(super) fn read_head(out: &Path, rel: &str, max: usize) -> Result<Option<Vec<u8>>, ExportError> {
    match check(out, rel) {
        Ok(()) => {}
        Err(ExportError::Symlink { .. }) => return Ok(None),
        Err(e) => return Err(e),
    }
    match imp::read_head(out, rel, max) {
        Err(ExportError::Symlink { .. }) => Ok(None),
        other => other,
    }
}

/// The length of the file `out/<rel>`, or `None` when there is none (or something else than a
/// file is there). A symbolic link on the way is an error, as for every use.
pub(super) fn size(out: &Path, rel: &str) -> Result<Option<u64>, ExportError> {
    check(out, rel)?;
    match std::fs::symlink_metadata(out.join(rel)) {
        Ok(meta) if meta.is_file() => Ok(Some(meta.len())),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(&out.join(rel))(e)),
    }
}

/// Writes `out/<rel>` atomically (a new temporary file beside it, renamed over it), making
/// its folder if missing.
pub(super) fn write(out: &Path, rel: &str, bytes: &[u8]) -> Result<(), ExportError> {
    check(out, rel)?;
    imp::write(out, rel, bytes)
}

/// Removes the file `out/<rel>`, and its folder if that leaves it empty
/// (`<slug>/index.html`). `false` when there was no file.
pub(super) fn remove(out: &Path, rel: &str) -> Result<bool, ExportError> {
    check(out, rel)?;
    imp::remove(out, rel)
}

#[cfg(unix)]
mod imp {
    use std::io::{Read, Write};
    use std::os::fd::OwnedFd;
    use std::path::{Path, PathBuf};

    use rustix::fs::{AtFlags, FileType, Mode, OFlags, openat, statat};
    use rustix::io::Errno;

    use super::{ExportError, io_err, symlink_at};

    /// `out/<rel>` split into its folder parts and its file name.
    fn split(rel: &str) -> (Vec<&str>, &str) {
        let mut parts: Vec<&str> = rel.split('/').collect();
        let name = parts.pop().unwrap_or_default();
        (parts, name)
    }

    /// The path of `out/<parts[..n]>`, for messages.
    fn path_of(out: &Path, parts: &[&str]) -> PathBuf {
        parts
            .iter()
            .fold(out.to_path_buf(), |path, part| path.join(part))
    }

    /// The folder of `out/<rel>` opened part by part without following a link below `out`
    /// (made when missing and `create`); `None` when a part is missing and not `create`.
    fn open_folder(out: &Path, rel: &str, create: bool) -> Result<Option<OwnedFd>, ExportError> {
        open_parts(out, rel, &split(rel).0, create)
    }

    /// The folder `out/<parts>` opened as [`open_folder`] opens one (`rel`, for messages, is
    /// the file the caller is after).
    fn open_parts(
        out: &Path,
        rel: &str,
        parts: &[&str],
        create: bool,
    ) -> Result<Option<OwnedFd>, ExportError> {
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        // The output folder itself may be a link: followed. It is made only once the export
        // writes: before that, a missing one holds nothing.
        let mut dir = match openat(rustix::fs::CWD, out, dir_flags, Mode::empty()) {
            Ok(dir) => dir,
            Err(Errno::NOENT) if !create => return Ok(None),
            Err(e) => return Err(io_err(out)(e.into())),
        };
        for (at, part) in parts.iter().enumerate() {
            let path = || path_of(out, &parts[..=at]);
            if create {
                match rustix::fs::mkdirat(&dir, *part, Mode::from(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(io_err(&path())(e.into())),
                }
            }
            dir = match openat(&dir, *part, dir_flags | OFlags::NOFOLLOW, Mode::empty()) {
                Ok(next) => next,
                Err(Errno::NOENT) if !create => return Ok(None),
                // A link, with `O_DIRECTORY | O_NOFOLLOW`, is ELOOP or ENOTDIR (Linux):
                // told apart from a file by a look that does not follow it.
                Err(Errno::LOOP | Errno::NOTDIR)
                    if statat(&dir, *part, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
                        FileType::from_raw_mode(stat.st_mode) == FileType::Symlink
                    }) =>
                {
                    return Err(symlink_at(out, rel, path()));
                }
                Err(e) => return Err(io_err(&path())(e.into())),
            };
        }
        Ok(Some(dir))
    }

    /// Whether the file `name` in `dir` exists, refusing a link.
    fn file_exists(dir: &OwnedFd, out: &Path, rel: &str) -> Result<bool, ExportError> {
        let (_, name) = split(rel);
        match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink => {
                Err(symlink_at(out, rel, out.join(rel)))
            }
            Ok(_) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(io_err(&out.join(rel))(e.into())),
        }
    }

    /// [`super::exists`] after the check, through descriptors.
    pub(super) fn exists(out: &Path, rel: &str) -> Result<bool, ExportError> {
        match open_folder(out, rel, false)? {
            Some(dir) => file_exists(&dir, out, rel),
            None => Ok(false),
        }
    }

    /// [`super::holds`] after the check, through descriptors.
    pub(super) fn holds(out: &Path, rel: &str, bytes: &[u8]) -> Result<bool, ExportError> {
        let Some(dir) = open_folder(out, rel, false)? else {
            return Ok(false);
        };
        let (_, name) = split(rel);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = match openat(&dir, name, flags, Mode::empty()) {
            Ok(file) => file,
            Err(Errno::LOOP) => return Err(symlink_at(out, rel, out.join(rel))),
            Err(_) => return Ok(false),
        };
        let mut existing = Vec::with_capacity(bytes.len());
        let read = std::fs::File::from(file).read_to_end(&mut existing);
        Ok(read.is_ok() && existing == bytes)
    }

    /// [`super::read_head`] after the check, through descriptors.
    pub(super) fn read_head(
        out: &Path,
        rel: &str,
        max: usize,
    ) -> Result<Option<Vec<u8>>, ExportError> {
        let Some(dir) = open_folder(out, rel, false)? else {
            return Ok(None);
        };
        let (_, name) = split(rel);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let Ok(file) = openat(&dir, name, flags, Mode::empty()) else {
            return Ok(None);
        };
        let file = std::fs::File::from(file);
        if !file.metadata().is_ok_and(|meta| meta.is_file()) {
            return Ok(None);
        }
        let mut head = Vec::new();
        let read = file.take(max as u64).read_to_end(&mut head);
        Ok(read.ok().map(|_| head))
    }

    /// [`super::write`] after the check, through descriptors: a link planted after the
    /// check fails the walk.
    pub(super) fn write(out: &Path, rel: &str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = out.join(rel);
        let dir = open_folder(out, rel, true)?.expect("made when missing");
        // A link at the file's own name is refused (the rename would replace, not follow it).
        file_exists(&dir, out, rel)?;
        let (_, name) = split(rel);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for _ in 0..crate::cache::TEMP_ATTEMPTS {
            let tmp = format!(".{name}.{:016x}.tmp", rand::random::<u64>());
            let file = match openat(&dir, tmp.as_str(), flags, Mode::from(0o666)) {
                Ok(file) => file,
                // Whatever holds that name (a file, a link) is neither followed nor replaced.
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(io_err(&path)(e.into())),
            };
            // The file is ours from here: removed if anything fails.
            let written = std::fs::File::from(file).write_all(bytes);
            let result = written.and_then(|()| {
                rustix::fs::renameat(&dir, tmp.as_str(), &dir, name).map_err(Into::into)
            });
            if result.is_err() {
                let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), AtFlags::empty());
            }
            return result.map_err(io_err(&path));
        }
        Err(io_err(&path)(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "every temporary name tried beside it was taken; remove leftover `.{name}.*.tmp` files"
            ),
        )))
    }

    /// [`super::remove`] after the check, through descriptors.
    pub(super) fn remove(out: &Path, rel: &str) -> Result<bool, ExportError> {
        let Some(dir) = open_folder(out, rel, false)? else {
            return Ok(false);
        };
        // A link is refused, not removed.
        let removed = file_exists(&dir, out, rel)?
            && match rustix::fs::unlinkat(&dir, split(rel).1, AtFlags::empty()) {
                Ok(()) => true,
                Err(Errno::NOENT) => false,
                Err(e) => return Err(io_err(&out.join(rel))(e.into())),
            };
        let (parts, _) = split(rel);
        if let Some((folder, above)) = parts.split_last()
            && let Some(parent) = open_parts(out, rel, above, false)?
        {
            // Fails, as it should, when the folder holds anything else.
            let _ = rustix::fs::unlinkat(&parent, *folder, AtFlags::REMOVEDIR);
        }
        Ok(removed)
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::os::unix::fs::symlink;

        /// A folder or file swapped for a link after [`check`] looked (a race the check
        /// alone cannot see): the descriptor walk refuses it and nothing outside changes.
        #[test]
        fn a_link_planted_after_the_check_is_not_followed() {
            let site = tempfile::tempdir().unwrap();
            let outside = tempfile::tempdir().unwrap();
            std::fs::write(outside.path().join("index.html"), "outside").unwrap();
            let out = site.path();
            let folder = out.join("post");
            symlink(outside.path(), &folder).unwrap();
            for result in [
                write(out, "post/index.html", b"new").map(|()| true),
                remove(out, "post/index.html"),
            ] {
                match result {
                    Err(ExportError::Symlink { link, .. }) => assert_eq!(link, folder),
                    other => panic!("not refused: {other:?}"),
                }
            }
            let file = out.join("page.html");
            symlink(outside.path().join("index.html"), &file).unwrap();
            assert!(matches!(
                write(out, "page.html", b"new"),
                Err(ExportError::Symlink { .. })
            ));
            assert!(matches!(
                remove(out, "page.html"),
                Err(ExportError::Symlink { .. })
            ));
            assert_eq!(
                std::fs::read_to_string(outside.path().join("index.html")).unwrap(),
                "outside"
            );
            assert!(folder.symlink_metadata().unwrap().is_symlink(), "link kept");
            assert!(file.symlink_metadata().unwrap().is_symlink(), "link kept");
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use std::io;
    use std::path::Path;

    use super::{ExportError, check, io_err};

    /// [`super::exists`] after the check.
    pub(super) fn exists(out: &Path, rel: &str) -> Result<bool, ExportError> {
        let path = out.join(rel);
        match std::fs::symlink_metadata(&path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// [`super::holds`] after the check.
    pub(super) fn holds(out: &Path, rel: &str, bytes: &[u8]) -> Result<bool, ExportError> {
        Ok(std::fs::read(out.join(rel)).is_ok_and(|existing| existing == bytes))
    }

    /// [`super::read_head`] after the check.
    pub(super) fn read_head(
        out: &Path,
        rel: &str,
        max: usize,
    ) -> Result<Option<Vec<u8>>, ExportError> {
        use std::io::Read;
        let path = out.join(rel);
        if !std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
            return Ok(None);
        }
        let Ok(file) = std::fs::File::open(&path) else {
            return Ok(None);
        };
        let mut head = Vec::new();
        let read = file.take(max as u64).read_to_end(&mut head);
        Ok(read.ok().map(|_| head))
    }

    /// [`super::write`] after the check.
    pub(super) fn write(out: &Path, rel: &str, bytes: &[u8]) -> Result<(), ExportError> {
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

    /// [`super::remove`] after the check.
    pub(super) fn remove(out: &Path, rel: &str) -> Result<bool, ExportError> {
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
