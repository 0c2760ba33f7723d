//! `blogread export`: every published blog as a content file for Zola, Hugo or plain HTML
//! (feature `export`).
//!
//! One file per published blog goes into the output folder, with the front matter each
//! generator reads (see [`render()`]), and nothing else: generators publish every file of a
//! content folder (Zola copies a section's non-Markdown files, dotfiles included, into the
//! built site), so the export's own state lives in a state folder instead.
//!
//! A manifest records the files the export wrote; the next export removes those whose blog is
//! no longer published and never touches any other file: a file the user added stays, and a
//! user's file where a new blog's file would go is reported as a conflict and left alone.
//! Files whose text did not change are not rewritten, so their modification times stay and
//! generators that rebuild incrementally see no change.
//!
//! # What the manifest may list
//!
//! A manifest is often committed, so the export does not take its word for where files are.
//! Every entry must be exactly a file some format writes: `<slug>.md`, `<slug>.html` or
//! `<slug>/index.html`, with a slug of lower-case letters, digits and single hyphens
//! ([`is_export_file`]). Any other entry (absolute, with `.` or `..`, a backslash, empty,
//! nested deeper, another extension) stops the export with an error naming the manifest and
//! the entry, before any folder is made, any file written or removed, or the API asked.
//!
//! # The state folder
//!
//! [`ExportOptions::state_dir`] (default [`DEFAULT_STATE_DIR`], `.blogread` in the current
//! directory: run the export from the site's root) holds, per output folder,
//!
//! - `export-<name>-<hash>.manifest.json`: the manifest ([`ExportOptions::manifest_path`]).
//!   Commit it along with the exported files if you commit those, so that a build elsewhere
//!   still knows which files are its own (otherwise it reports them as conflicts).
//! - `export-<name>-<hash>.cache.json`: where the CLI keeps its ETag cache
//!   ([`ExportOptions::cache_path`]). Disposable: without it the next export downloads every
//!   body once.
//!
//! `<name>` is the output folder's path relative to the folder holding the state folder (or
//! its absolute path when outside it), made readable (`content/blog` gives `content-blog`),
//! and `<hash>` eight hex digits of a hash of that path, so two output folders never share
//! state and a site checked out at another place keeps the same names. The export creates
//! the state folder if it is missing.
//!
//! Exports before the state folder kept [`LEGACY_MANIFEST_FILE`] and [`LEGACY_CACHE_FILE`] in
//! the output folder. An export that finds them moves the manifest into the state folder
//! (merged with the one there, if any, so every file either lists stays owned), then removes
//! both from the output folder ([`ExportReport::migrated`]). It removes nothing else.
//!
//! # Requests
//!
//! The blog list is read with [`Client::all_blogs`] (a consistent snapshot), then each blog
//! with [`Client::get`] (the single-blog answer is the one with `updated_at` and
//! `word_count`), a few at a time. With an [`EtagCache`](crate::EtagCache) on the client
//! (the CLI keeps one at [`ExportOptions::cache_path`]), an export that finds nothing changed
//! gets only 304 answers and transfers no bodies.

mod manifest;
pub mod render;
mod state;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

pub use manifest::{Manifest, ManifestError, is_export_file, is_safe_relative};
pub use render::render;
pub use state::{DEFAULT_STATE_DIR, LEGACY_CACHE_FILE, LEGACY_MANIFEST_FILE};

use crate::{Blog, Client, Error};

/// The generator an export writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Zola: `<slug>.md` with TOML front matter (`+++`), `[taxonomies]` and `[extra]`.
    Zola,
    /// Hugo: `<slug>.html` (HTML content format) with TOML front matter (`+++`).
    Hugo,
    /// Plain HTML: `<slug>/index.html`, a standalone page.
    Html,
}

/// What to export where.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExportOptions {
    /// The output folder (created if missing).
    pub out: PathBuf,
    /// The format.
    pub format: Format,
    /// How many blogs are fetched at once (at least 1; default 8).
    pub concurrency: usize,
    /// The state folder, which holds the manifest (created if missing; default
    /// [`DEFAULT_STATE_DIR`], relative to the current directory). See the
    /// [module docs](self#the-state-folder).
    pub state_dir: PathBuf,
}

impl ExportOptions {
    /// Options with the default concurrency (8) and state folder ([`DEFAULT_STATE_DIR`]).
    pub fn new(out: impl Into<PathBuf>, format: Format) -> Self {
        Self {
            out: out.into(),
            format,
            concurrency: 8,
            state_dir: PathBuf::from(DEFAULT_STATE_DIR),
        }
    }

    /// Sets how many blogs are fetched at once.
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Sets the state folder, where the manifest is kept: outside the output folder, and
    /// outside any folder the generator publishes. Several output folders can share one.
    pub fn state_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.state_dir = dir.into();
        self
    }

    /// The output folder's manifest: `export-<name>-<hash>.manifest.json` in the state folder
    /// (see the [module docs](self#the-state-folder)). Fails only if the current directory is
    /// needed and cannot be read.
    pub fn manifest_path(&self) -> io::Result<PathBuf> {
        self.state_file("manifest.json")
    }

    /// Where to keep the output folder's ETag cache (as the CLI does):
    /// `export-<name>-<hash>.cache.json` in the state folder, next to the manifest. The export
    /// itself neither reads nor writes it; load an [`EtagCache`](crate::EtagCache) from it for
    /// the client and save it afterwards.
    pub fn cache_path(&self) -> io::Result<PathBuf> {
        self.state_file("cache.json")
    }

    fn state_file(&self, suffix: &str) -> io::Result<PathBuf> {
        let stem = state::file_stem(&self.state_dir, &self.out)?;
        Ok(self.state_dir.join(format!("{stem}.{suffix}")))
    }
}

/// What an export did. Paths are relative to the output folder, with `/`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportReport {
    /// Published blogs exported.
    pub blogs: usize,
    /// Files written (new or changed).
    pub written: Vec<String>,
    /// Files already up to date (not rewritten).
    pub unchanged: Vec<String>,
    /// Files removed because their blog is no longer published.
    pub removed: Vec<String>,
    /// Files a blog would have been written to that the user owns: left alone, blog skipped.
    pub conflicts: Vec<String>,
    /// Blogs listed but unpublished before they could be read (skipped).
    pub gone: Vec<String>,
    /// State files of an earlier export removed from the output folder
    /// ([`LEGACY_MANIFEST_FILE`], whose files were first recorded in the state folder's
    /// manifest, and [`LEGACY_CACHE_FILE`]). Empty once migrated.
    pub migrated: Vec<String>,
}

/// Why an export failed. Nothing is removed unless the blog list was read completely.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The API failed.
    #[error(transparent)]
    Client(#[from] Error),
    /// The manifest could not be read or written.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A file could not be written or removed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The server sent a slug that cannot be a file name (never written).
    #[error("refusing to write a file for slug `{0}`")]
    UnsafeSlug(String),
    /// The state folder is the output folder or inside it, where the generator would publish
    /// it.
    #[error(
        "the state folder {state_dir} is inside the output folder {out}, which a site generator \
         publishes; choose another (--state-dir, or ExportOptions::state_dir), e.g. the \
         site's root"
    )]
    StateInOutput {
        /// The state folder.
        state_dir: PathBuf,
        /// The output folder.
        out: PathBuf,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A slug as the server defines it (lower-case ASCII letters and digits in groups joined by
/// single hyphens, at most 200 bytes), so a file name made from it stays inside the output
/// folder whatever the server sent.
fn is_valid_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug.len() <= 200
        && slug.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The manifests an export starts from, all read (and checked) before anything is written.
struct Loaded {
    /// The state folder's manifest.
    manifest: Manifest,
    /// The manifest an earlier export left in the output folder, if any.
    legacy: Option<Manifest>,
    /// Whether the cache file an earlier export left in the output folder is there.
    legacy_cache: bool,
}

/// Reads the manifest at `manifest_path` and the one an earlier export may have left in the
/// output folder `out`. Writes nothing.
fn load(out: &Path, manifest_path: &Path) -> Result<Loaded, ExportError> {
    let manifest = Manifest::load(manifest_path)?;
    let legacy_path = out.join(LEGACY_MANIFEST_FILE);
    // An invalid one is an error: its files would no longer be known as the export's own.
    let legacy = if legacy_path.is_file() {
        Some(Manifest::load(&legacy_path)?)
    } else {
        None
    };
    let legacy_cache = out.join(LEGACY_CACHE_FILE).is_file();
    Ok(Loaded {
        manifest,
        legacy,
        legacy_cache,
    })
}

/// Moves into the manifest at `manifest_path` the manifest an earlier export left in the
/// output folder `out`, and removes the earlier export's files there.
fn migrate(
    out: &Path,
    manifest_path: &Path,
    loaded: Loaded,
    migrated: &mut Vec<String>,
) -> Result<Manifest, ExportError> {
    let Loaded {
        mut manifest,
        legacy,
        legacy_cache,
    } = loaded;
    if let Some(earlier) = legacy {
        for (rel, slug) in earlier.files {
            manifest.files.entry(rel).or_insert(slug);
        }
        // Recorded in the state folder before the old file goes, so no file is ever unowned.
        manifest.save(manifest_path)?;
        let legacy_path = out.join(LEGACY_MANIFEST_FILE);
        std::fs::remove_file(&legacy_path).map_err(io_err(&legacy_path))?;
        migrated.push(LEGACY_MANIFEST_FILE.to_owned());
    }
    if legacy_cache {
        let path = out.join(LEGACY_CACHE_FILE);
        std::fs::remove_file(&path).map_err(io_err(&path))?;
        migrated.push(LEGACY_CACHE_FILE.to_owned());
    }
    Ok(manifest)
}

/// Reads every published blog and writes the output folder; keeps the manifest in the state
/// folder. `progress(done, total)` is called as blogs are read.
pub async fn export(
    client: &Client,
    options: &ExportOptions,
    progress: crate::Progress<'_>,
) -> Result<ExportReport, ExportError> {
    let out = &options.out;
    let state_dir = &options.state_dir;
    if state::is_inside(state_dir, out).map_err(io_err(state_dir))? {
        return Err(ExportError::StateInOutput {
            state_dir: state_dir.clone(),
            out: out.clone(),
        });
    }
    let manifest_path = options.manifest_path().map_err(io_err(state_dir))?;
    // Every manifest is read and checked before the first folder is made.
    let loaded = load(out, &manifest_path)?;
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    std::fs::create_dir_all(state_dir).map_err(io_err(state_dir))?;
    let mut report = ExportReport::default();
    let old = migrate(out, &manifest_path, loaded, &mut report.migrated)?;

    let summaries = client.all_blogs().await?;
    if let Some(bad) = summaries.iter().find(|b| !is_valid_slug(&b.slug)) {
        return Err(ExportError::UnsafeSlug(bad.slug.clone()));
    }
    let total = summaries.len() as u64;
    progress(0, total);

    // Fetch the details a few at a time; keep the list's order (newest first).
    let semaphore = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let mut tasks = JoinSet::new();
    for (index, summary) in summaries.iter().enumerate() {
        let client = client.clone();
        let slug = summary.slug.clone();
        let semaphore = semaphore.clone();
        tasks.spawn(async move {
            let _permit = semaphore.acquire_owned().await.expect("never closed");
            (index, slug.clone(), client.get(&slug).await)
        });
    }
    let mut details: Vec<Option<Blog>> = vec![None; summaries.len()];
    let mut done = 0;
    while let Some(joined) = tasks.join_next().await {
        let (index, slug, result) = joined.expect("a fetch task does not panic");
        match result {
            Ok(blog) => details[index] = Some(blog),
            // Unpublished after the list was read: not published, so not exported.
            Err(Error::NotFound { .. }) => report.gone.push(slug),
            Err(e) => return Err(e.into()),
        }
        done += 1;
        progress(done, total);
    }

    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut next = Manifest::new();
    for blog in details.into_iter().flatten() {
        if !is_valid_slug(&blog.slug) {
            return Err(ExportError::UnsafeSlug(blog.slug));
        }
        let (rel, text) = render(options.format, &blog);
        debug_assert!(is_export_file(&rel));
        if !old.owns(&rel) && out.join(&rel).exists() {
            report.conflicts.push(rel);
            continue;
        }
        next.files.insert(rel.clone(), blog.slug.clone());
        files.insert(rel, text);
        report.blogs += 1;
    }

    // Record every file about to be written before writing it, so that an export cut short
    // still knows which files are its own.
    let mut union = old.clone();
    union.files.extend(next.files.clone());
    union.save(&manifest_path)?;

    for (rel, text) in &files {
        let path = out.join(rel);
        if std::fs::read(&path).is_ok_and(|existing| existing == text.as_bytes()) {
            report.unchanged.push(rel.clone());
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        crate::cache::write_atomically(&path, text.as_bytes()).map_err(io_err(&path))?;
        report.written.push(rel.clone());
    }

    for rel in old.stale(&next) {
        let path = out.join(rel);
        match std::fs::remove_file(&path) {
            Ok(()) => report.removed.push(rel.to_owned()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&path)(e)),
        }
        // `<slug>/index.html`: remove the folder too if that left it empty (never otherwise).
        if let Some(parent) = Path::new(rel)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            let _ = std::fs::remove_dir(out.join(parent));
        }
    }
    next.save(&manifest_path)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_that_could_escape_the_folder_are_invalid() {
        for bad in [
            "",
            "..",
            "a/b",
            "a--b",
            "-a",
            "A",
            "a b",
            "a.md",
            "sitemap/..",
        ] {
            assert!(!is_valid_slug(bad), "{bad}");
        }
        for good in ["a", "hello-world", "2026-recap"] {
            assert!(is_valid_slug(good), "{good}");
        }
    }
}
