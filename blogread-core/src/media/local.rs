//! The media store's files in a folder of the server's disk.
//!
//! Every file is reached from a descriptor of the root folder, one component at a time, and
//! never through a symbolic link: a link planted anywhere below the root (in place of a
//! project's folder, an item's folder or a file) is not followed, so nothing outside the
//! root is read or written through it. A write goes to a temporary name in the file's own
//! folder, is flushed to disk, then renamed over the final name and the folder flushed: a
//! reader sees the whole file or none, and a crash leaves at most a temporary file, which
//! [`MediaFiles::list`] removes once stale.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use async_trait::async_trait;
use bytes::Bytes;
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use futures_util::StreamExt;

use super::file_cache::{DEFAULT_CAPACITY, FileCache, FileStamp};
use super::{FileRead, MediaFiles, MediaPath, StoredFile};
use crate::error::{Error, Result};

/// A folder entry as the listing reads it: its name, its type, when it was last written.
type Entry = (String, FileType, SystemTime);

/// How much of a file is read at a time when it is served: a file this size or smaller is read
/// whole; a larger one a chunk at a time, so that serving holds at most a few chunks a request
/// whatever the file's size.
pub const READ_CHUNK: usize = 256 * 1024;

/// The smallest file served with its open file ([`super::SameFile`]), so that a server can
/// send it with `sendfile`: 64 KiB. A smaller one is checked without being opened for reading
/// (cheaper than what sending it from the file would save).
pub const SEND_FROM_FILE: u64 = 64 * 1024;

/// Up to [`READ_CHUNK`] bytes of `file`; empty at its end.
fn read_chunk(file: &mut std::fs::File) -> std::io::Result<Bytes> {
    let mut chunk = Vec::with_capacity(READ_CHUNK);
    file.take(READ_CHUNK as u64).read_to_end(&mut chunk)?;
    Ok(Bytes::from(chunk))
}

/// The start of a temporary file's name: a write not finished yet (or never).
const TEMPORARY: &str = ".tmp-";

/// The media store's files in a folder (`--media-dir`).
#[derive(Debug, Clone)]
pub struct LocalFolder {
    inner: Arc<Root>,
}

#[derive(Debug)]
struct Root {
    /// The folder, as opened at start.
    folder: OwnedFd,
    /// Its path, for messages.
    shown: PathBuf,
    /// Whether files are opened with one `openat2` call (Linux 5.6 and later), rather than
    /// a folder at a time; cleared when the kernel refuses the call.
    #[cfg(target_os = "linux")]
    openat2: AtomicBool,
    /// The small files served lately.
    cache: FileCache,
}

/// The stamp of a file as `fstat` gave it.
fn stamp_of(stat: &rustix::fs::Stat) -> FileStamp {
    FileStamp {
        inode: stat.st_ino,
        length: u64::try_from(stat.st_size).unwrap_or(0),
        modified: i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec),
    }
}

/// A link met on the way to `path`: never followed (500; the message is for logs).
fn link_refused(path: &MediaPath) -> Error {
    failure(format!(
        "media folder: {path}: a link or a file stands in the way; links are not followed"
    ))
}

/// A failure of the folder (500; the message is for logs).
fn failure(message: String) -> Error {
    Error::Storage(message.into())
}

fn io_error(what: impl std::fmt::Display, e: impl Into<std::io::Error>) -> Error {
    failure(format!("media folder: {what}: {}", e.into()))
}

impl LocalFolder {
    /// Opens the folder at `path`, creating it (and its parents) when missing, keeping up to
    /// 64 MiB of the small files it serves in memory. The folder itself may be reached
    /// through a link (the operator's choice); nothing below it is.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_keeping(path, DEFAULT_CAPACITY)
    }

    /// [`LocalFolder::open`], keeping up to `cache_bytes` of served files in memory (0: none).
    /// A kept file is served only after the disk says it is still there, so a file deleted
    /// by another instance is never served.
    pub fn open_keeping(path: &Path, cache_bytes: usize) -> Result<Self> {
        std::fs::create_dir_all(path).map_err(|e| io_error(path.display(), e))?;
        let folder = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_error(path.display(), e))?;
        Ok(Self {
            inner: Arc::new(Root {
                folder,
                shown: path.to_path_buf(),
                #[cfg(target_os = "linux")]
                openat2: AtomicBool::new(true),
                cache: FileCache::new(cache_bytes),
            }),
        })
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.inner.shown
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Root) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let root = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || work(&root))
            .await
            .map_err(|e| failure(format!("media folder: a file task failed: {e}")))?
    }
}

impl Root {
    /// The folder `names` below the root, created when `create` (else `None` when missing).
    /// A link or a file in place of a folder is an error.
    fn folder(&self, names: &[String], create: bool) -> Result<Option<OwnedFd>> {
        let mut at = rustix::io::dup(&self.folder).map_err(|e| io_error("dup", e))?;
        for name in names {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let next = match rustix::fs::openat(&at, name.as_str(), flags, Mode::empty()) {
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&at, name.as_str(), Mode::from_raw_mode(0o755)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(io_error(format!("creating {name}"), e)),
                    }
                    rustix::fs::openat(&at, name.as_str(), flags, Mode::empty())
                }
                other => other,
            };
            at = match next {
                Ok(fd) => fd,
                Err(Errno::NOENT) => return Ok(None),
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    return Err(failure(format!(
                        "media folder: {name} in {} is a link or a file, not a folder; \
                         links are not followed",
                        self.shown.display()
                    )));
                }
                Err(e) => return Err(io_error(name, e)),
            };
        }
        Ok(Some(at))
    }

    fn put(&self, path: &MediaPath, bytes: &[u8]) -> Result<()> {
        let folder = self
            .folder(&path.folders(), true)?
            .expect("created when missing");
        let temporary = format!("{TEMPORARY}{}", uuid::Uuid::now_v7().simple());
        let file = rustix::fs::openat(
            &folder,
            temporary.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .map_err(|e| io_error(format!("creating {path}"), e))?;
        let mut file = std::fs::File::from(file);
        let written = file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| io_error(format!("writing {path}"), e))
            .and_then(|()| {
                rustix::fs::renameat(&folder, temporary.as_str(), &folder, path.file_name())
                    .map_err(|e| io_error(format!("renaming {path}"), e))
            });
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(&folder, temporary.as_str(), AtFlags::empty());
            return Err(e);
        }
        rustix::fs::fsync(&folder).map_err(|e| io_error(format!("flushing {path}"), e))
    }

    /// The file at `path`, opened, with its stamp (its length among others); `None` when
    /// there is none.
    fn open(&self, path: &MediaPath) -> Result<Option<(std::fs::File, FileStamp)>> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let Some(file) = self.open_beneath(path, flags)? else {
            return Ok(None);
        };
        let stat = rustix::fs::fstat(&file).map_err(|e| io_error(path, e))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(failure(format!(
                "media folder: {path} is not a regular file"
            )));
        }
        Ok(Some((std::fs::File::from(file), stamp_of(&stat))))
    }

    /// Whether the file at `path` is still the file stamped `stamp`: a regular file, reached
    /// without a link. It opens the file without reading it (`O_PATH`): one `openat2`, an
    /// `fstat` and a `close`.
    fn still_there(&self, path: &MediaPath, stamp: FileStamp) -> Result<bool> {
        let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let Some(file) = self.open_beneath(path, flags)? else {
            return Ok(false);
        };
        let stat = rustix::fs::fstat(&file).map_err(|e| io_error(path, e))?;
        Ok(
            FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
                && stamp_of(&stat) == stamp,
        )
    }

    /// The file at `path` opened with `flags`, no link followed on the way; `None` when there
    /// is none. On Linux 5.6 and later this is one `openat2` call, told to stay below the root
    /// and to follow no link; elsewhere (or where the call is refused, as some sandboxes do)
    /// the path is walked a folder at a time.
    fn open_beneath(&self, path: &MediaPath, flags: OFlags) -> Result<Option<OwnedFd>> {
        #[cfg(target_os = "linux")]
        if self.openat2.load(Ordering::Relaxed) {
            use rustix::fs::ResolveFlags;
            let resolve =
                ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            match rustix::fs::openat2(&self.folder, path.as_str(), flags, Mode::empty(), resolve) {
                Ok(file) => return Ok(Some(file)),
                Err(Errno::NOENT) => return Ok(None),
                Err(Errno::LOOP | Errno::XDEV | Errno::NOTDIR) => return Err(link_refused(path)),
                // Not in this kernel, or refused by a sandbox: walk, from now on.
                Err(Errno::NOSYS | Errno::PERM | Errno::INVAL) => {
                    self.openat2.store(false, Ordering::Relaxed);
                }
                // A rename raced the look-up (the kernel asks to retry): walk, this time.
                Err(Errno::AGAIN) => {}
                Err(e) => return Err(io_error(path, e)),
            }
        }
        let Some(folder) = self.folder(&path.folders(), false)? else {
            return Ok(None);
        };
        match rustix::fs::openat(&folder, path.file_name(), flags, Mode::empty()) {
            Ok(file) => Ok(Some(file)),
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::LOOP) => Err(link_refused(path)),
            Err(e) => Err(io_error(path, e)),
        }
    }

    fn get(&self, path: &MediaPath) -> Result<Option<Bytes>> {
        let Some((mut file, stamp)) = self.open(path)? else {
            return Ok(None);
        };
        let mut bytes = Vec::with_capacity(usize::try_from(stamp.length).unwrap_or(0));
        file.read_to_end(&mut bytes)
            .map_err(|e| io_error(path, e))?;
        Ok(Some(Bytes::from(bytes)))
    }

    /// The file at `path` as [`MediaFiles::read`] gives it: whole when it is at most
    /// [`READ_CHUNK`], else its first chunk now and the rest read on a thread of its own, a
    /// chunk at a time, as the answer is sent. A file read whole of at least
    /// [`SEND_FROM_FILE`] comes with the file, open ([`super::SameFile`]).
    ///
    /// A file read whole is kept in the cache; a kept copy is served only while its file is
    /// still there: the same file, reached without a link.
    fn read(&self, path: &MediaPath) -> Result<Option<FileRead>> {
        let kept = self.cache.get(path);
        if let Some((bytes, stamp)) = &kept
            && (bytes.len() as u64) < SEND_FROM_FILE
        {
            if self.still_there(path, *stamp)? {
                return Ok(Some(FileRead::whole(bytes.clone())));
            }
            self.cache.forget(path);
        }
        let Some((mut file, stamp)) = self.open(path)? else {
            if kept.is_some() {
                self.cache.forget(path);
            }
            return Ok(None);
        };
        // A large kept copy: the file opened to check it is the one sent from.
        if let Some((bytes, kept_stamp)) = kept
            && bytes.len() as u64 >= SEND_FROM_FILE
        {
            if kept_stamp == stamp {
                return Ok(Some(FileRead::whole_from(bytes, file)));
            }
            self.cache.forget(path);
        }
        let length = stamp.length;
        let shown = path.to_string();
        if length <= READ_CHUNK as u64 {
            // Exactly the length `fstat` gave (a stored file never changes): one `read`, no
            // second one to find the end.
            let mut whole = vec![0; length as usize];
            file.read_exact(&mut whole)
                .map_err(|e| io_error(&shown, e))?;
            let whole = Bytes::from(whole);
            self.cache.keep(path, &whole, stamp);
            return Ok(Some(if length >= SEND_FROM_FILE {
                FileRead::whole_from(whole, file)
            } else {
                FileRead::whole(whole)
            }));
        }
        let first = read_chunk(&mut file).map_err(|e| io_error(&shown, e))?;
        let (chunks, receiver) = tokio::sync::mpsc::channel::<std::io::Result<Bytes>>(1);
        std::thread::Builder::new()
            .name("blogread-media-read".into())
            .spawn(move || {
                loop {
                    let chunk = read_chunk(&mut file);
                    let failed = chunk.is_err();
                    if matches!(&chunk, Ok(c) if c.is_empty()) {
                        return;
                    }
                    // Stop after a failure, or once the answer is dropped (the client left).
                    if chunks.blocking_send(chunk).is_err() || failed {
                        return;
                    }
                }
            })
            .map_err(|e| io_error(&shown, e))?;
        let rest = futures_util::stream::unfold(receiver, |mut receiver| async move {
            receiver.recv().await.map(|chunk| (chunk, receiver))
        });
        let chunks = futures_util::stream::once(async move { Ok(first) }).chain(rest);
        Ok(Some(FileRead {
            length,
            chunks: Box::pin(chunks),
            same_file: None,
        }))
    }

    fn delete(&self, path: &MediaPath) -> Result<()> {
        self.cache.forget(path);
        let Some(folder) = self.folder(&path.folders(), false)? else {
            return Ok(());
        };
        match rustix::fs::unlinkat(&folder, path.file_name(), AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => {}
            Err(e) => return Err(io_error(format!("removing {path}"), e)),
        }
        rustix::fs::fsync(&folder).map_err(|e| io_error(format!("flushing {path}"), e))
    }

    /// The folder `names` and its entries (name, type, last write), `None` when it is
    /// missing. One descriptor for the folder, however many entries it has.
    fn entries(&self, names: &[String]) -> Result<Option<(OwnedFd, Vec<Entry>)>> {
        let Some(folder) = self.folder(names, false)? else {
            return Ok(None);
        };
        let listing = rustix::fs::Dir::read_from(&folder).map_err(|e| io_error("listing", e))?;
        let mut entries = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| io_error("listing", e))?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if name == "." || name == ".." {
                continue;
            }
            let name = name.to_owned();
            let Ok(stat) = rustix::fs::statat(&folder, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
            else {
                continue;
            };
            let modified = SystemTime::UNIX_EPOCH
                + std::time::Duration::from_secs(u64::try_from(stat.st_mtime).unwrap_or(0));
            entries.push((name, FileType::from_raw_mode(stat.st_mode), modified));
        }
        Ok(Some((folder, entries)))
    }

    fn list(&self, stale_before: SystemTime) -> Result<Vec<StoredFile>> {
        let mut stored = Vec::new();
        let Some((_, projects)) = self.entries(&[])? else {
            return Ok(stored);
        };
        for (project, kind, _) in projects {
            if kind != FileType::Directory {
                continue;
            }
            self.list_folder(&[project], stale_before, &mut stored)?;
        }
        Ok(stored)
    }

    /// The files of a project's folder (and of its items' folders), stale temporary files
    /// removed.
    fn list_folder(
        &self,
        names: &[String],
        stale_before: SystemTime,
        stored: &mut Vec<StoredFile>,
    ) -> Result<()> {
        let Some((folder, entries)) = self.entries(names)? else {
            return Ok(());
        };
        for (name, kind, modified) in entries {
            if name.starts_with(TEMPORARY) {
                if kind == FileType::RegularFile && modified < stale_before {
                    let _ = rustix::fs::unlinkat(&folder, name.as_str(), AtFlags::empty());
                }
                continue;
            }
            match (kind, names) {
                (FileType::Directory, [_project]) => {
                    let inner = [names[0].clone(), name];
                    self.list_folder(&inner, stale_before, stored)?;
                }
                (FileType::RegularFile, [project]) => {
                    if let Some(path) = MediaPath::parse(project, &name) {
                        stored.push(StoredFile { path, modified });
                    }
                }
                (FileType::RegularFile, [project, item]) => {
                    if let Some(path) = MediaPath::parse(project, &format!("{item}/{name}")) {
                        stored.push(StoredFile { path, modified });
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[async_trait]
impl MediaFiles for LocalFolder {
    async fn put(&self, path: &MediaPath, bytes: Bytes) -> Result<()> {
        let path = path.clone();
        self.blocking(move |root| root.put(&path, &bytes)).await
    }

    async fn get(&self, path: &MediaPath) -> Result<Option<Bytes>> {
        let path = path.clone();
        self.blocking(move |root| root.get(&path)).await
    }

    /// Opens and reads the file on the thread that answers the request, as nginx does: a
    /// served file is small (a master is at most a few hundred KB, a variant tens of KB) and
    /// usually in the page cache, where a hand-off to another thread costs more than the read.
    /// At most [`READ_CHUNK`] is read here; the rest of a larger file on a thread of its own.
    async fn read(&self, path: &MediaPath) -> Result<Option<FileRead>> {
        self.inner.read(path)
    }

    async fn delete(&self, path: &MediaPath) -> Result<()> {
        let path = path.clone();
        self.blocking(move |root| root.delete(&path)).await
    }

    async fn list(&self, stale_before: SystemTime) -> Result<Vec<StoredFile>> {
        self.blocking(move |root| root.list(stale_before)).await
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;
    use std::time::Duration;

    use blogread_media::OutputKind;

    use super::*;
    use crate::domain::ProjectId;

    const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    fn master(project: ProjectId) -> MediaPath {
        MediaPath::master(project, SHA, OutputKind::Jpeg).unwrap()
    }

    fn variant(project: ProjectId) -> MediaPath {
        MediaPath::variant(project, SHA, 960, OutputKind::Jpeg).unwrap()
    }

    fn names_below(folder: &Path) -> Vec<String> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let entry = entry.unwrap();
            names.push(entry.file_name().to_string_lossy().into_owned());
            if entry.file_type().unwrap().is_dir() {
                names.extend(names_below(&entry.path()));
            }
        }
        names
    }

    #[tokio::test]
    async fn a_file_written_is_read_back_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let files = LocalFolder::open(&dir.path().join("media")).unwrap();
        let project = ProjectId::generate();
        files
            .put(&master(project), Bytes::from_static(b"master"))
            .await
            .unwrap();
        files
            .put(&variant(project), Bytes::from_static(b"variant"))
            .await
            .unwrap();
        assert_eq!(
            files.get(&master(project)).await.unwrap().unwrap(),
            "master"
        );
        assert_eq!(
            files.get(&variant(project)).await.unwrap().unwrap(),
            "variant"
        );
        assert!(
            names_below(files.path())
                .iter()
                .all(|n| !n.starts_with(TEMPORARY)),
            "{:?}",
            names_below(files.path())
        );
        // Written again (the same upload twice): the same file, whole.
        files
            .put(&master(project), Bytes::from_static(b"master"))
            .await
            .unwrap();
        assert_eq!(
            files.get(&master(project)).await.unwrap().unwrap(),
            "master"
        );
    }

    #[tokio::test]
    async fn a_file_read_to_be_served_is_the_file_read_whole_in_bounded_chunks() {
        use futures_util::TryStreamExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = LocalFolder::open(dir.path()).unwrap();
        let project = ProjectId::generate();
        for size in [
            0,
            1,
            READ_CHUNK - 1,
            READ_CHUNK,
            READ_CHUNK + 1,
            3 * READ_CHUNK + 17,
        ] {
            let bytes: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
            let path = master(project);
            folder.put(&path, Bytes::from(bytes.clone())).await.unwrap();
            let whole = folder.get(&path).await.unwrap().unwrap();
            let read = folder.read(&path).await.unwrap().unwrap();
            assert_eq!(read.length, size as u64);
            let chunks: Vec<Bytes> = read.chunks.try_collect().await.unwrap();
            assert!(chunks.iter().all(|c| c.len() <= READ_CHUNK), "size {size}");
            assert_eq!(chunks.concat(), whole.to_vec(), "size {size}");
            assert_eq!(whole.to_vec(), bytes);
        }
        assert!(folder.read(&variant(project)).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_missing_file_is_none_and_deleting_it_is_a_success() {
        let dir = tempfile::tempdir().unwrap();
        let files = LocalFolder::open(dir.path()).unwrap();
        let project = ProjectId::generate();
        assert_eq!(files.get(&variant(project)).await.unwrap(), None);
        files.delete(&variant(project)).await.unwrap();
        files
            .put(&master(project), Bytes::from_static(b"x"))
            .await
            .unwrap();
        files.delete(&master(project)).await.unwrap();
        assert_eq!(files.get(&master(project)).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_link_planted_for_a_project_folder_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join(format!("{SHA}.jpg")), b"secret outside").unwrap();
        let files = LocalFolder::open(&dir.path().join("media")).unwrap();
        let project = ProjectId::generate();
        symlink(&outside, files.path().join(project.to_string())).unwrap();
        assert!(files.get(&master(project)).await.is_err());
        assert!(
            files
                .put(&variant(project), Bytes::from_static(b"x"))
                .await
                .is_err()
        );
        assert_eq!(names_below(&outside), [format!("{SHA}.jpg")]);
    }

    #[tokio::test]
    async fn a_link_planted_for_a_file_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, b"secret outside").unwrap();
        let files = LocalFolder::open(&dir.path().join("media")).unwrap();
        let project = ProjectId::generate();
        std::fs::create_dir(files.path().join(project.to_string())).unwrap();
        symlink(&secret, files.path().join(master(project).to_string())).unwrap();
        assert!(files.get(&master(project)).await.is_err());
        // A write replaces the link itself (rename), never the file it points to.
        files
            .put(&master(project), Bytes::from_static(b"new"))
            .await
            .unwrap();
        assert_eq!(std::fs::read(&secret).unwrap(), b"secret outside");
        assert_eq!(files.get(&master(project)).await.unwrap().unwrap(), "new");
    }

    /// What serving `path` gives: its bytes, none, or a refusal.
    async fn served(
        folder: &LocalFolder,
        path: &MediaPath,
    ) -> std::result::Result<Option<Vec<u8>>, ()> {
        use futures_util::TryStreamExt;
        match folder.read(path).await {
            Ok(Some(read)) => {
                let same_file = read.same_file;
                let chunks: Vec<Bytes> = read.chunks.try_collect().await.map_err(|_| ())?;
                let bytes = chunks.concat();
                // A file given with the bytes holds exactly them, and is given for every
                // large file read whole.
                if let Some(same) = same_file {
                    use std::os::unix::fs::FileExt;
                    assert_eq!(same.bytes, bytes);
                    let mut in_file = vec![0; bytes.len() + 1];
                    let n = same.file.read_at(&mut in_file, 0).unwrap();
                    assert_eq!(&in_file[..n], &bytes[..], "{path}");
                } else {
                    let whole = (SEND_FROM_FILE as usize..=READ_CHUNK).contains(&bytes.len());
                    assert!(!whole, "{path}: {} bytes, and no file", bytes.len());
                }
                Ok(Some(bytes))
            }
            Ok(None) => Ok(None),
            Err(_) => Err(()),
        }
    }

    /// Something done to the folder: through the store, or behind its back (another instance
    /// sharing it, an operator, an attacker planting a link).
    #[derive(Debug, Clone)]
    enum Step {
        Put(usize),
        Delete(usize),
        RemovedElsewhere(usize),
        WrittenElsewhere(usize),
        LinkPlanted(usize),
        Served(usize),
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            (0..3usize).prop_map(Step::Put),
            (0..3usize).prop_map(Step::Delete),
            (0..3usize).prop_map(Step::RemovedElsewhere),
            (0..3usize).prop_map(Step::WrittenElsewhere),
            (0..3usize).prop_map(Step::LinkPlanted),
            (0..3usize).prop_map(Step::Served),
            (0..3usize).prop_map(Step::Served),
        ]
    }

    /// The capacity of the cache in the property below: two large files, not three.
    const CAPACITY: usize = 160 * 1024;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The cache is exact: whatever happens to the files, through the store or behind its
        /// back, a folder that keeps files serves what one that keeps none serves, every time.
        /// (A path's bytes are fixed, as a stored file's are: it is named by its content.)
        #[test]
        fn a_folder_that_keeps_files_serves_what_one_that_keeps_none_serves(
            sizes in proptest::array::uniform3(0..600usize),
            steps in proptest::collection::vec(step(), 1..40)
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            runtime.block_on(async {
                let dir = tempfile::tempdir().unwrap();
                let root = dir.path().join("media");
                let secret = dir.path().join("secret");
                std::fs::write(&secret, b"secret outside").unwrap();
                let keeping = LocalFolder::open_keeping(&root, CAPACITY).unwrap();
                let plain = LocalFolder::open_keeping(&root, 0).unwrap();
                let project = ProjectId::generate();
                let paths = [master(project), variant(project), MediaPath::variant(project, SHA, 480, OutputKind::Jpeg).unwrap()];
                // Sizes up to 600 × 170 bytes: some sent from their file (64 KiB and more),
                // some not; some kept, some dropped to stay within the capacity.
                let bytes = |p: usize| -> Vec<u8> { (0..sizes[p] * 170).map(|i| ((i + p) % 251) as u8).collect() };
                for step in steps {
                    match step {
                        Step::Put(p) => { let _ = keeping.put(&paths[p], Bytes::from(bytes(p))).await; }
                        Step::Delete(p) => { let _ = keeping.delete(&paths[p]).await; }
                        Step::RemovedElsewhere(p) => { let _ = std::fs::remove_file(root.join(paths[p].to_string())); }
                        Step::WrittenElsewhere(p) => {
                            let file = root.join(paths[p].to_string());
                            if file.parent().is_some_and(Path::is_dir) {
                                let _ = std::fs::remove_file(&file);
                                let _ = std::fs::write(&file, bytes(p));
                            }
                        }
                        Step::LinkPlanted(p) => {
                            let file = root.join(paths[p].to_string());
                            if file.parent().is_some_and(Path::is_dir) {
                                let _ = std::fs::remove_file(&file);
                                let _ = symlink(&secret, &file);
                            }
                        }
                        Step::Served(p) => {
                            let kept = served(&keeping, &paths[p]).await;
                            let read = served(&plain, &paths[p]).await;
                            assert_eq!(kept, read, "{}", paths[p]);
                            assert!(keeping.inner.cache.bytes() <= CAPACITY);
                        }
                    }
                }
            });
        }
    }

    /// Where the kernel refuses `openat2`, files are opened by the walk a folder at a time:
    /// it reads the same bytes and follows no link either.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn without_openat2_the_walk_reads_the_same_files_and_follows_no_link() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, b"secret outside").unwrap();
        let files = LocalFolder::open(&dir.path().join("media")).unwrap();
        files.inner.openat2.store(false, Ordering::Relaxed);
        let project = ProjectId::generate();
        files
            .put(&variant(project), Bytes::from_static(b"variant"))
            .await
            .unwrap();
        let read = files.read(&variant(project)).await.unwrap().unwrap();
        assert_eq!(read.length, 7);
        assert_eq!(
            files.get(&variant(project)).await.unwrap().unwrap(),
            "variant"
        );
        assert!(files.read(&master(project)).await.unwrap().is_none());
        symlink(&secret, files.path().join(master(project).to_string())).unwrap();
        assert!(files.read(&master(project)).await.is_err());
        assert!(files.get(&master(project)).await.is_err());
        // Still the walk: a refusal never turns the faster call back on.
        assert!(!files.inner.openat2.load(Ordering::Relaxed));
    }

    #[tokio::test]
    async fn the_listing_names_every_stored_file_and_removes_stale_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let files = LocalFolder::open(dir.path()).unwrap();
        let project = ProjectId::generate();
        files
            .put(&master(project), Bytes::from_static(b"m"))
            .await
            .unwrap();
        files
            .put(&variant(project), Bytes::from_static(b"v"))
            .await
            .unwrap();
        let project_folder = files.path().join(project.to_string());
        std::fs::write(project_folder.join(format!("{TEMPORARY}crashed")), b"half").unwrap();
        std::fs::write(project_folder.join("notes.txt"), b"not ours").unwrap();
        let now = SystemTime::now();
        // Not stale yet: kept.
        let listed = files.list(now - Duration::from_secs(3_600)).await.unwrap();
        let mut paths: Vec<String> = listed.iter().map(|f| f.path.to_string()).collect();
        paths.sort();
        assert_eq!(
            paths,
            [master(project).to_string(), variant(project).to_string()]
        );
        assert!(project_folder.join(format!("{TEMPORARY}crashed")).exists());
        // Stale: removed; files not of the store are left alone.
        files.list(now + Duration::from_secs(3_600)).await.unwrap();
        assert!(!project_folder.join(format!("{TEMPORARY}crashed")).exists());
        assert!(project_folder.join("notes.txt").exists());
    }
}
