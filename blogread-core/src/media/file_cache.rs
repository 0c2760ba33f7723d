//! The small stored files served lately, kept in memory so that serving one again costs no
//! read and no copy.
//!
//! A stored file is named by its content and never rewritten, so a kept copy can only be wrong
//! in one way: its file may have been deleted since (by this instance or another one sharing
//! the folder). The folder therefore asks its disk whether the file is still there before
//! serving a kept copy ([`super::LocalFolder`]): the same file (its [`FileStamp`]: inode,
//! length and last write), reached without a link. The cache itself only holds bytes, up to a
//! bound, dropping the oldest first.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use bytes::Bytes;

use super::MediaPath;

/// How many bytes of files are kept at most by default: 64 MiB, about 300 masters of the usual
/// size or 5,000 variants.
pub(crate) const DEFAULT_CAPACITY: usize = 64 * 1024 * 1024;

/// The largest file kept: larger ones are read from the disk each time, a chunk at a time.
pub(crate) const LARGEST_KEPT: usize = super::READ_CHUNK;

/// What tells a file on disk from another at the same path: a file written again (always to a
/// new inode, by rename) or touched has another stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    /// The inode number.
    pub(crate) inode: u64,
    /// The length in bytes.
    pub(crate) length: u64,
    /// The last write, in nanoseconds since the epoch.
    pub(crate) modified: i128,
}

/// Files kept in memory, by path, at most `capacity` bytes in all, oldest dropped first.
#[derive(Debug)]
pub(crate) struct FileCache {
    capacity: usize,
    inner: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    files: HashMap<MediaPath, (Bytes, FileStamp)>,
    /// The paths in the order they were kept, oldest first (a path appears once).
    order: VecDeque<MediaPath>,
    bytes: usize,
}

impl FileCache {
    /// A cache of at most `capacity` bytes (0: keeps nothing).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            inner: Mutex::new(Kept::default()),
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A panic while the lock was held left the map whole (every change below is one
        // step), so a poisoned lock is used as it is.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The kept copy of `path` and the stamp of the file it was read from, if any.
    pub(crate) fn get(&self, path: &MediaPath) -> Option<(Bytes, FileStamp)> {
        self.kept().files.get(path).cloned()
    }

    /// Keeps `bytes`, read from a file stamped `stamp`, as `path`'s copy, when it is small
    /// enough; drops the oldest copies to stay within the capacity.
    pub(crate) fn keep(&self, path: &MediaPath, bytes: &Bytes, stamp: FileStamp) {
        let size = bytes.len();
        if size > LARGEST_KEPT || size > self.capacity {
            return;
        }
        let mut kept = self.kept();
        if kept.files.contains_key(path) {
            return;
        }
        while kept.bytes + size > self.capacity {
            let Some(oldest) = kept.order.pop_front() else {
                break;
            };
            if let Some((dropped, _)) = kept.files.remove(&oldest) {
                kept.bytes -= dropped.len();
            }
        }
        kept.files.insert(path.clone(), (bytes.clone(), stamp));
        kept.order.push_back(path.clone());
        kept.bytes += size;
    }

    /// Drops `path`'s copy (its file is gone).
    pub(crate) fn forget(&self, path: &MediaPath) {
        let mut kept = self.kept();
        if let Some((dropped, _)) = kept.files.remove(path) {
            kept.bytes -= dropped.len();
            kept.order.retain(|p| p != path);
        }
    }

    /// How many bytes are kept now.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.kept().bytes
    }
}

#[cfg(test)]
mod tests {
    use blogread_media::OutputKind;

    use super::*;
    use crate::domain::ProjectId;

    const STAMP: FileStamp = FileStamp {
        inode: 1,
        length: 0,
        modified: 0,
    };

    fn path(n: u8) -> MediaPath {
        let sha = format!("{:064x}", n);
        MediaPath::master(ProjectId::generate(), &sha, OutputKind::Png).unwrap()
    }

    #[test]
    fn a_kept_file_is_given_back_byte_for_byte_until_forgotten() {
        let cache = FileCache::new(1024);
        let p = path(1);
        cache.keep(&p, &Bytes::from_static(b"abc"), STAMP);
        assert_eq!(cache.get(&p).unwrap(), (Bytes::from_static(b"abc"), STAMP));
        cache.forget(&p);
        assert_eq!(cache.get(&p), None);
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn the_cache_never_holds_more_than_its_capacity_and_drops_the_oldest_first() {
        let cache = FileCache::new(10);
        let paths: Vec<MediaPath> = (0..5).map(path).collect();
        for p in &paths {
            cache.keep(p, &Bytes::from_static(b"1234"), STAMP);
            assert!(cache.bytes() <= 10);
        }
        // Room for two of four bytes: the last two kept.
        assert_eq!(cache.get(&paths[0]), None);
        assert_eq!(cache.get(&paths[2]), None);
        assert!(cache.get(&paths[3]).is_some());
        assert!(cache.get(&paths[4]).is_some());
        assert_eq!(cache.bytes(), 8);
    }

    #[test]
    fn a_file_larger_than_a_read_chunk_or_the_capacity_is_not_kept() {
        let cache = FileCache::new(LARGEST_KEPT * 4);
        let large = Bytes::from(vec![0u8; LARGEST_KEPT + 1]);
        cache.keep(&path(1), &large, STAMP);
        assert_eq!(cache.bytes(), 0);
        let none = FileCache::new(0);
        none.keep(&path(2), &Bytes::from_static(b"x"), STAMP);
        assert_eq!(none.get(&path(2)), None);
    }
}
