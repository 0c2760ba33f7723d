//! Where a project's images are kept: the files of the media store (feature `media`).
//!
//! An image is stored as files named by content: the master at
//! `{project_id}/{sha256}.{ext}` and each variant at `{project_id}/{sha256}/w{width}.{ext}`
//! ([`MediaPath`]). Files are immutable once written, so a cache of them can never be stale.
//! [`MediaFiles`] is the seam; [`LocalFolder`] keeps them in a folder of the server's disk,
//! `ObjectStorage` (feature `media-s3`) in an S3-compatible bucket.
//! The rows that say what each item is live in the [`Store`](crate::store::Store); a file is
//! written before its row and removed after it.

#[cfg(unix)]
mod file_cache;
#[cfg(feature = "media-s3")]
mod object;
mod path;
mod pool;

#[cfg(unix)]
mod local;

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use crate::error::Result;

#[cfg(unix)]
pub use local::{LocalFolder, READ_CHUNK, SEND_FROM_FILE};
#[cfg(feature = "media-s3")]
pub use object::{ObjectStorage, S3Access};
pub use path::MediaPath;
pub use pool::{ImagePool, PoolError};

/// The largest upload accepted, in bytes (20 MiB): an HTTP adapter refuses a larger body as
/// it arrives.
pub const MAX_UPLOAD_BYTES: usize = blogread_media::limits::MAX_UPLOAD_BYTES;

/// A stored file's name and when it was last written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    /// Its path.
    pub path: MediaPath,
    /// When it was written.
    pub modified: std::time::SystemTime,
}

/// A stored file as it is read to be served: its length, and its bytes in chunks, read as
/// they are sent (what serving holds of a file stays bounded whatever its size).
pub struct FileRead {
    /// Its length in bytes: the sum of the chunks' lengths.
    pub length: u64,
    /// Its bytes.
    pub chunks: futures_util::stream::BoxStream<'static, std::io::Result<Bytes>>,
    /// When the file was read whole from a file of the server's disk, that file, open: the
    /// same bytes can be sent from it without copying them (see [`SameFile`]).
    pub same_file: Option<SameFile>,
}

/// A stored file's bytes in memory, and the file they are, open for reading: the file was
/// opened after the bytes were read from it, and had the same inode, length and last write,
/// and a stored file is never written in place (a new one is renamed over it). So a server
/// may send any part of the bytes from the file instead (`sendfile`, which copies nothing
/// through the process), and must send the rest from memory when the file gives fewer
/// bytes than asked (someone truncated it since).
#[derive(Debug, Clone)]
pub struct SameFile {
    /// The file's bytes, whole: the answer's body holds this very buffer.
    pub bytes: Bytes,
    /// The file, open for reading.
    pub file: Arc<std::fs::File>,
}

impl FileRead {
    /// A file read whole.
    pub fn whole(bytes: Bytes) -> Self {
        Self {
            length: bytes.len() as u64,
            chunks: Box::pin(futures_util::stream::once(async move { Ok(bytes) })),
            same_file: None,
        }
    }

    /// A file read whole, `bytes`, that is `file` (see [`SameFile`]).
    pub fn whole_from(bytes: Bytes, file: std::fs::File) -> Self {
        let same_file = SameFile {
            bytes: bytes.clone(),
            file: Arc::new(file),
        };
        Self {
            same_file: Some(same_file),
            ..Self::whole(bytes)
        }
    }
}

impl std::fmt::Debug for FileRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileRead")
            .field("length", &self.length)
            .finish_non_exhaustive()
    }
}

/// The files of the media store.
#[async_trait]
pub trait MediaFiles: Send + Sync + 'static {
    /// Writes the file at `path`, whole or not at all: a reader sees the old file (or none)
    /// until the new one is complete and durable.
    async fn put(&self, path: &MediaPath, bytes: Bytes) -> Result<()>;

    /// The file at `path`, if there is one.
    async fn get(&self, path: &MediaPath) -> Result<Option<Bytes>>;

    /// The file at `path`, to serve: its length and its bytes as a stream. The default
    /// reads it whole ([`MediaFiles::get`]); a backend that can read a file a part at a time
    /// does so, so that serving a large file holds a part of it at a time.
    async fn read(&self, path: &MediaPath) -> Result<Option<FileRead>> {
        Ok(self.get(path).await?.map(FileRead::whole))
    }

    /// Removes the file at `path`; removing one that is not there is a success.
    async fn delete(&self, path: &MediaPath) -> Result<()>;

    /// Every stored file, for the sweep that removes files without a row. Leftovers of writes
    /// that never finished (a crash mid-write) older than `stale_before` are removed on the way.
    async fn list(&self, stale_before: std::time::SystemTime) -> Result<Vec<StoredFile>>;
}
