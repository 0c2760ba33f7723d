//! The saved cursor of the changes feed: where the next export starts reading, kept in the
//! state folder next to the manifest (`export-<name>-<hash>.cursor.json`).
//!
//! It is only good together with the files it was saved with, so it records the format and a
//! digest of the manifest, and the export removes it before it writes anything and saves it
//! again (atomically) only after the last file is written and the manifest saved. An export
//! cut short, or one that failed, thus leaves no cursor, and the next one reads everything;
//! a cursor never skips changes that were not applied.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Manifest;
use super::types::{ExportError, Format, FullRead, MediaMode, SiteRoot, io_err};
use crate::ChangeCursor;

const VERSION: u32 = 1;

/// The cursor file's contents.
#[derive(Serialize, Deserialize)]
struct CursorFile {
    version: u32,
    /// The format of the export the cursor was saved by.
    format: String,
    /// SHA-256 of the manifest the export saved with it, in hex.
    manifest: String,
    /// What that export did with the images; a cursor saved before images were brought home
    /// is of an export that kept the service's URLs.
    #[serde(default = "remote")]
    media: String,
    /// The path the site is served under (`--site-root`); a cursor saved before it could be
    /// set is of an export for the domain's root.
    #[serde(default = "domain_root")]
    site_root: String,
    cursor: ChangeCursor,
}

fn remote() -> String {
    media_name(MediaMode::Remote).to_owned()
}

fn domain_root() -> String {
    SiteRoot::default().as_str().to_owned()
}

/// The mode's name, as `--media` spells it.
fn media_name(media: MediaMode) -> &'static str {
    match media {
        MediaMode::Local => "local",
        MediaMode::Remote => "remote",
    }
}

/// The saved cursor, if it is one the export can start from: saved by this version, for
/// `format`, `media` and `site_root`, with `manifest` as it is now. Otherwise why the export
/// reads everything.
pub(super) fn load(
    path: &Path,
    format: Format,
    media: MediaMode,
    site_root: &SiteRoot,
    manifest: &Manifest,
) -> Result<ChangeCursor, FullRead> {
    let unusable = |reason: String| FullRead::CursorFile {
        path: path.to_owned(),
        reason,
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(FullRead::NoCursor),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(unusable("it is a symbolic link".to_owned()));
        }
        _ => {}
    }
    let text = std::fs::read_to_string(path).map_err(|e| unusable(e.to_string()))?;
    let file: CursorFile = serde_json::from_str(&text).map_err(|e| unusable(e.to_string()))?;
    if file.version != VERSION {
        return Err(unusable(format!(
            "version {}, which this blogread does not read",
            file.version
        )));
    }
    if file.format != format_name(format) {
        return Err(FullRead::FormatChanged { was: file.format });
    }
    if file.media != media_name(media) {
        return Err(FullRead::MediaChanged { was: file.media });
    }
    if file.site_root != site_root.as_str() {
        return Err(FullRead::SiteRootChanged {
            was: file.site_root,
        });
    }
    if file.manifest != digest(manifest) {
        return Err(FullRead::ManifestChanged);
    }
    Ok(file.cursor)
}

/// Saves `cursor` as the start of the next export, with the format and the manifest it goes
/// with (atomically: a temporary file renamed into place).
pub(super) fn save(
    path: &Path,
    format: Format,
    media: MediaMode,
    site_root: &SiteRoot,
    manifest: &Manifest,
    cursor: ChangeCursor,
) -> Result<(), ExportError> {
    let file = CursorFile {
        version: VERSION,
        format: format_name(format).to_owned(),
        manifest: digest(manifest),
        media: media_name(media).to_owned(),
        site_root: site_root.as_str().to_owned(),
        cursor,
    };
    let mut json = serde_json::to_vec_pretty(&file).expect("a cursor file serialises");
    json.push(b'\n');
    crate::cache::write_atomically(path, &json).map_err(io_err(path))
}

/// Removes the saved cursor, if any: from now until a new one is saved, the output folder may
/// hold changes the old one does not account for.
pub(super) fn forget(path: &Path) -> Result<(), ExportError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_err(path)(e)),
        _ => Ok(()),
    }
}

/// The format's name, as `--format` spells it.
pub(super) fn format_name(format: Format) -> &'static str {
    match format {
        Format::Zola => "zola",
        Format::Hugo => "hugo",
        Format::Html => "html",
    }
}

/// The manifest's digest: SHA-256 of the bytes [`Manifest::save`] writes.
fn digest(manifest: &Manifest) -> String {
    hex::encode(Sha256::digest(manifest.to_bytes()))
}
