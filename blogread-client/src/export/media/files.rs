//! The image files of the site: which are already there with the right bytes, which must be
//! downloaded (each master once, its digest checked), before anything is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::super::guard;
use super::super::manifest::MediaEntry;
use super::super::types::ExportError;
use super::size::pixel_size;
use crate::{Client, MAX_MEDIA_BYTES, MediaUrl};

/// What the site's images will be, known before anything is written.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    /// The manifest's media entries after this run, by path (`media/<file>`).
    pub(crate) entries: BTreeMap<String, MediaEntry>,
    /// The files to write, downloaded and checked, by path.
    pub(crate) downloads: BTreeMap<String, Vec<u8>>,
    /// The files already there with the right bytes, by path.
    pub(crate) kept: Vec<String>,
}

/// One master the exported posts use.
#[derive(Debug, Clone)]
pub(crate) struct Needed {
    /// Its URL.
    pub(crate) url: MediaUrl,
    /// Its size, when an answer gave it (a featured image's).
    pub(crate) size: Option<(u32, u32)>,
    /// The posts using it, by slug.
    pub(crate) posts: BTreeSet<String>,
}

/// How a file on disk stands against what its name says.
enum OnDisk {
    /// The right bytes: kept (with the bytes when they were read to be checked).
    Right { bytes: u64, read: Option<Vec<u8>> },
    /// Not there.
    Missing,
    /// Other bytes, in a file the export wrote: replaced.
    Wrong,
}

/// Finds, for each master in `needed` (by path `media/<file>`), whether `root` holds it with
/// the right bytes; downloads the others through `client`, `concurrency` at a time, each
/// checked against its name. A file the last export wrote (in `old`) of the size it wrote is
/// taken as right without reading it (its name is its digest); any other file there is read
/// and its digest checked. Writes nothing. `progress(done, total)` is called with the
/// downloads' count before the first, and after each.
pub(crate) async fn gather(
    client: &Client,
    root: &Path,
    old: &BTreeMap<String, MediaEntry>,
    needed: BTreeMap<String, Needed>,
    concurrency: usize,
    progress: &mut impl FnMut(u64, u64),
) -> Result<Gathered, ExportError> {
    let mut gathered = Gathered::default();
    let mut to_download = Vec::new();
    for (rel, need) in needed {
        let was = old.get(&rel);
        let ours = was.is_some_and(|entry| !entry.found);
        match on_disk(root, &rel, &need.url, was)? {
            OnDisk::Right { bytes, read } => {
                let size = need
                    .size
                    .or(was.map(|entry| (entry.width, entry.height)))
                    .or_else(|| read.as_deref().and_then(pixel_size));
                let size = match size {
                    Some(size) => size,
                    // Kept unread: read it now for its size.
                    None => {
                        let bytes = guard::read_head(root, &rel, MAX_MEDIA_BYTES as usize)?
                            .unwrap_or_default();
                        unreadable(&need.url, pixel_size(&bytes))?
                    }
                };
                gathered
                    .entries
                    .insert(rel.clone(), entry(&need, bytes, size, !ours));
                gathered.kept.push(rel);
            }
            OnDisk::Wrong if !ours => {
                return Err(ExportError::MediaConflict {
                    file: root.join(&rel),
                    url: need.url.to_string(),
                });
            }
            OnDisk::Missing | OnDisk::Wrong => to_download.push((rel, need)),
        }
    }

    let total = to_download.len() as u64;
    progress(0, total);
    let semaphore = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = JoinSet::new();
    for (rel, need) in to_download {
        let client = client.clone();
        let semaphore = semaphore.clone();
        tasks.spawn(async move {
            let _permit = semaphore.acquire_owned().await.expect("never closed");
            let file = client.download_media(&need.url.to_string()).await;
            (rel, need, file)
        });
    }
    while let Some(joined) = tasks.join_next().await {
        let (rel, need, file) = joined.expect("a download task does not panic");
        let file = file?;
        let size = match need.size {
            Some(size) => size,
            None => unreadable(&need.url, pixel_size(&file.bytes))?,
        };
        gathered.entries.insert(
            rel.clone(),
            entry(&need, file.bytes.len() as u64, size, false),
        );
        gathered.downloads.insert(rel, file.bytes);
        progress(gathered.downloads.len() as u64, total);
    }
    Ok(gathered)
}

/// The size read from a file's header, or the error for a file the export cannot size.
fn unreadable(url: &MediaUrl, size: Option<(u32, u32)>) -> Result<(u32, u32), ExportError> {
    size.ok_or_else(|| ExportError::MediaUnreadable {
        url: url.to_string(),
    })
}

fn entry(need: &Needed, bytes: u64, (width, height): (u32, u32), found: bool) -> MediaEntry {
    MediaEntry {
        url: need.url.to_string(),
        bytes,
        width,
        height,
        posts: need.posts.clone(),
        found,
    }
}

/// How `root/<rel>` stands: a file the last export wrote (`was`, not found) is right when it
/// has the length written; any other file is read and its digest compared with the name.
fn on_disk(
    root: &Path,
    rel: &str,
    url: &MediaUrl,
    was: Option<&MediaEntry>,
) -> Result<OnDisk, ExportError> {
    let Some(length) = guard::size(root, rel)? else {
        return Ok(OnDisk::Missing);
    };
    if let Some(entry) = was.filter(|entry| !entry.found)
        && entry.bytes == length
    {
        return Ok(OnDisk::Right {
            bytes: length,
            read: None,
        });
    }
    if length > MAX_MEDIA_BYTES {
        return Ok(OnDisk::Wrong);
    }
    let bytes = guard::read_head(root, rel, MAX_MEDIA_BYTES as usize)?.unwrap_or_default();
    if hex::encode(Sha256::digest(&bytes)) == url.sha256() {
        Ok(OnDisk::Right {
            bytes: length,
            read: Some(bytes),
        })
    } else {
        Ok(OnDisk::Wrong)
    }
}
