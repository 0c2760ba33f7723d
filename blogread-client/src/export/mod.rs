//! `blogread export`: every published blog as a content file for Zola, Hugo or plain HTML
//! (feature `export`).
//!
//! One file per published blog goes into the output folder, with the front matter each
//! generator reads (see [`render()`]), and nothing else: generators publish every file of a
//! content folder (Zola copies a section's non-Markdown files, dotfiles included, into the
//! built site), so the export's own state lives in a state folder instead.
//!
//! For Zola and Hugo, each body is written so that the generator shows exactly the API's
//! HTML: text in a post that looks like the generator's own syntax (shortcodes, its summary
//! divider, its placeholders) gets the generator's own escape or a character reference, and
//! Zola's Markdown keeps every line. What cannot be shown exactly is reported in
//! [`ExportReport::inexact`] instead of being written in a form that breaks the build
//! (`docs/client.md#what-the-export-escapes`).
//!
//! A manifest records the files the export wrote; the next export removes those whose blog is
//! no longer published (reading only what changed since, when it can: see
//! [incremental exports](self#incremental-exports)) and never touches any other file: a file
//! the user added stays, and a user's file where a new blog's file would go is reported as a
//! conflict and left alone.
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
//! # Symbolic links
//!
//! Below the output folder the export writes, reads and removes files only through real files
//! and folders, never through a symbolic link, which could point outside the site (a
//! repository can commit one). Before it uses `<out>/<slug>.md` or `<out>/<slug>/index.html`
//! it looks at every existing part below the output folder without following links; a link
//! there, dangling or not, stops the export with [`ExportError::Symlink`], naming the link. The
//! paths the manifest lists are checked before anything is written or the API asked, the
//! paths of newly published blogs once the blog list is read and still before anything is
//! written, and each path again right before it is used. The output folder itself may be a
//! link (to keep the content elsewhere), and so may the state folder; the manifest file may
//! not. Files are written to a temporary file created exclusively in the same folder (so
//! nothing already at its random name is followed or overwritten) and renamed into place.
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
//! - `export-<name>-<hash>.cursor.json`: the cursor of the changes feed
//!   ([`ExportOptions::cursor_path`]), with the format and a digest of the manifest it goes
//!   with. Keep it between builds; without it the next export reads every post.
//!
//! `<name>` is the output folder's path relative to the folder holding the state folder (or
//! its absolute path when outside it), made readable (`content/blog` gives `content-blog`),
//! and `<hash>` eight hex digits of a hash of that path, so two output folders never share
//! state and a site checked out at another place keeps the same names. The export creates
//! the state folder if it is missing, once it writes (never before), and names it, absolute,
//! in [`ExportReport::state_dir`].
//!
//! When there is no manifest (or an empty one) but the output folder holds files only an
//! export writes (a Zola file with the export's `<div class="blogread-content">` opening, a
//! Hugo file with its `[params]`, a page with its `blogread:slug` meta tag, a redirect page),
//! the export ran from another folder than the last one, or with another state folder: it
//! stops with [`ExportError::StateNotFound`], which names the state folder it looked in,
//! before it asks the server anything, instead of taking every post's file for the user's.
//!
//! # Another project's state
//!
//! The manifest records the public key its files were exported with (the key's first 12
//! characters, as the server's logs show keys, and a digest; never the key). When this
//! export's key is another, it may be another project's, and going ahead would replace that
//! project's files with this one's posts. The export goes on only when the server takes the
//! saved cursor, which is bound to its project (the key was rotated), and records the new
//! key; otherwise, or with no saved cursor to ask about, it stops with
//! [`ExportError::AnotherProject`], writing nothing. [`ExportOptions::full`] takes the folder
//! over. A cursor the server refuses to the same key (a database restored from a backup) is
//! not another project's: that is a full read, [`FullRead::CursorRefused`].
//!
//! # What the export trusts
//!
//! No server: whatever it answers, the export ends with a report or an error, never a panic
//! (a property test feeds it arbitrary JSON, and answers of the right shape with extreme
//! values). A post holding a value no file can (a date outside the years 0000 to 9999, a word
//! count above TOML's integers) is [`ExportError::Render`]; the client's
//! [limits](crate::ClientBuilder::max_answer_bytes) bound each answer and each read; and
//! [`ExportOptions::deadline`](ExportOptions#structfield.deadline) (default 30 minutes) bounds
//! the whole reading ([`ExportError::Deadline`]). Every answer is read and every file
//! rendered before the first folder is made or file written, so an export that stops before
//! then leaves the output folder, the state folder, the manifest and the cursor as they were.
//!
//! # Hugo sites
//!
//! Hugo builds `.html` content files only when the site's `security.allowContent` allows
//! `text/html`, which Hugo's default does not. Before an export for Hugo writes anything it
//! reads the site's configuration (found from the output folder upwards) and stops with an
//! error that prints the lines to add when the policy is missing or denies HTML;
//! [`ExportOptions::configure_hugo`] adds them to a TOML configuration instead. See
//! [`hugo_config`].
//!
//! # Incremental exports
//!
//! An export reads the project through the changes feed
//! ([`Client::changes_since`]): with the cursor the last export saved, only what changed
//! since. It writes the upserted posts (with their aliases: front matter for Zola and Hugo,
//! redirect pages for plain HTML), removes the files of slugs that no longer name a published
//! post, and leaves every other file alone (not even read). A post's files are known by its
//! slug in the manifest, so an entry never needs the post's history, and a redirect page
//! whose slug another post takes over changes hands whichever entry comes first.
//!
//! It reads every published post instead, and [`ExportReport::full_read`] says why
//! ([`FullRead`]), when no cursor is saved or its file cannot be used, the cursor is of an
//! export in another format or of another manifest, a file the manifest lists is missing from
//! the output folder, the server no longer keeps the changes since the cursor (410) or refuses
//! it (400) to the key that saved it (with another key, see
//! [another project's state](self#another-projects-state)), or [`ExportOptions::full`] asks
//! for it. The full read is the feed's initial sync
//! (every post, one request per 100 or so, and a cursor that goes with exactly what was
//! read); against a server without the feed (404) it is the blog list, the redirects and
//! each blog's single answer, and no cursor is kept. Whichever way it reads, the folder ends
//! byte for byte as a full export into an empty folder leaves it.
//!
//! The saved cursor is removed before the first file is written and saved again, atomically,
//! after the manifest, and only when no post was left unwritten by a conflict: an export cut
//! short or failed, or one with conflicts, leaves no cursor, and the next export reads
//! everything. A cursor never skips a change that was not applied.
//!
//! # Requests
//!
//! With the changes feed: one request per page of changes (or, for a full read, per page of
//! the initial sync). Without it, the blog list is read with [`Client::all_blogs`] (a
//! consistent snapshot), then each blog with [`Client::get`] (the single-blog answer is the
//! one with `updated_at` and `word_count`), a few at a time. With an
//! [`EtagCache`](crate::EtagCache) on the client (the CLI keeps one at
//! [`ExportOptions::cache_path`]), an answer that did not change comes back as a 304 without
//! a body.

mod body;
mod cursor;
mod guard;
pub mod hugo_config;
mod lost;
mod manifest;
mod plan;
pub mod render;
mod state;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

pub use hugo_config::{HugoConfigError, HugoSite};
pub use manifest::{Manifest, ManifestError, is_export_file, is_safe_relative};
pub use render::{
    Inexact, RenderError, Rendered, redirect_page, render, render_file, render_with_aliases,
    try_render_file,
};
pub use state::DEFAULT_STATE_DIR;

use crate::client::KeyStamp;
use crate::slug::is_valid_slug;
use crate::{BlogDetail, Change, ChangeCursor, Client, Error};
use plan::Plan;

/// How long an export may take to read the server's answers unless
/// [`ExportOptions::deadline`](ExportOptions#structfield.deadline) says otherwise: 30 minutes.
///
/// A full read of a project of 100,000 posts takes 1,000 requests through the changes feed
/// (up to 25,000 when every post is near the 2 MiB a body may hold), or 100,000 single-blog
/// requests, 8 at a time, from a server without the feed: a few minutes on a usual link. A
/// server that answers slowly but surely (each request just within its time-out) cannot keep
/// a build waiting longer than this.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30 * 60);

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
    /// For [`Format::Hugo`]: when the site's configuration sets no content policy, add
    /// `allowContent = ['! ^text/org$']` under `[security]` (TOML files only) instead of
    /// stopping. Default `false`. See [`hugo_config`].
    pub configure_hugo: bool,
    /// Read every published blog even when a saved cursor would let the export read only
    /// what changed (see the [module docs](self#incremental-exports)), and take over a state
    /// folder whose files were exported with another key (see
    /// [another project's state](self#another-projects-state)). Default `false`.
    pub full: bool,
    /// How long the export may spend reading from the server, every request and retry
    /// included (default [`DEFAULT_DEADLINE`], 30 minutes; `None` for no limit). Past it the
    /// export stops with [`ExportError::Deadline`] before writing anything. Writing the files
    /// (local, and never waiting on the server) is not cut short.
    pub deadline: Option<Duration>,
}

impl ExportOptions {
    /// Options with the default concurrency (8) and state folder ([`DEFAULT_STATE_DIR`]).
    pub fn new(out: impl Into<PathBuf>, format: Format) -> Self {
        Self {
            out: out.into(),
            format,
            concurrency: 8,
            state_dir: PathBuf::from(DEFAULT_STATE_DIR),
            configure_hugo: false,
            full: false,
            deadline: Some(DEFAULT_DEADLINE),
        }
    }

    /// Sets how long the export may spend reading from the server (see
    /// [`ExportOptions::deadline`](Self#structfield.deadline)); `None` for no limit.
    pub fn deadline(mut self, deadline: impl Into<Option<Duration>>) -> Self {
        self.deadline = deadline.into();
        self
    }

    /// Sets whether the export reads every published blog, whatever cursor is saved (see
    /// [`ExportOptions::full`](Self#structfield.full)).
    pub fn full(mut self, full: bool) -> Self {
        self.full = full;
        self
    }

    /// Sets whether an export for Hugo adds the content policy to the site's TOML
    /// configuration when none is set (see [`ExportOptions::configure_hugo`](Self#structfield.configure_hugo)).
    pub fn configure_hugo(mut self, configure: bool) -> Self {
        self.configure_hugo = configure;
        self
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

    /// Where the export keeps the cursor of the changes feed, from which the next export reads
    /// what changed: `export-<name>-<hash>.cursor.json` in the state folder, next to the
    /// manifest (see the [module docs](self#incremental-exports)).
    pub fn cursor_path(&self) -> io::Result<PathBuf> {
        self.state_file("cursor.json")
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
    /// Published blogs the output folder holds after the export.
    pub blogs: usize,
    /// Why every published blog was read, or `None` when only the changes since the last
    /// export were (see the [module docs](self#incremental-exports)).
    pub full_read: Option<FullRead>,
    /// Entries of the changes feed applied: the changes since the last export, or, for a full
    /// read through the feed, one per published blog (0 when the server has no feed).
    pub changes: usize,
    /// Files written (new or changed).
    pub written: Vec<String>,
    /// Files of the blogs read that were already up to date (not rewritten). Files of blogs
    /// an incremental export did not read are in neither list.
    pub unchanged: Vec<String>,
    /// Files removed because their blog is no longer published.
    pub removed: Vec<String>,
    /// Files a blog would have been written to that the user owns: left alone, blog skipped.
    pub conflicts: Vec<String>,
    /// Blogs listed but unpublished before they could be read (skipped).
    pub gone: Vec<String>,
    /// For [`Format::Hugo`]: what the export found out about the site's configuration (its
    /// [`HugoSite::message`] is the warning or note to show).
    pub hugo: Option<HugoSite>,
    /// Text in the posts read that the generator cannot show exactly as the API returns it,
    /// by slug (each file was written so that the site still builds; warnings to show). See
    /// [`Inexact`].
    pub inexact: Vec<Inexact>,
    /// The state folder the export used, as an absolute path (`.` and `..` resolved, links
    /// not followed), so that a message can say where the state is.
    pub state_dir: PathBuf,
}

/// Why an export read every published blog instead of only what changed since the last
/// one. Its `Display` is one line that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FullRead {
    /// A full read was asked for ([`ExportOptions::full`], `--full`).
    Asked,
    /// No cursor is saved: a first export into this folder, state written by an older
    /// blogread, or a last export that did not finish or left posts unwritten.
    NoCursor,
    /// The saved cursor file cannot be used.
    CursorFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The saved cursor is of an export in another format.
    FormatChanged {
        /// That format.
        was: String,
    },
    /// The manifest is not the one the cursor was saved with (restored or edited since).
    ManifestChanged,
    /// Files the last export wrote are missing from the output folder (it was cleaned, or
    /// checked out without them).
    FilesMissing {
        /// How many.
        count: usize,
        /// The first, by path.
        first: String,
    },
    /// The server no longer keeps the deletions since the saved cursor (410).
    CursorExpired {
        /// The server's explanation.
        detail: String,
    },
    /// The server refused the saved cursor (400): it is of another database (a restored
    /// one), or damaged. With a manifest saved with another project's key the export stops
    /// instead ([`ExportError::AnotherProject`]); only a manifest that records no key (an
    /// older blogread's) leaves another project's cursor to this full read.
    CursorRefused {
        /// The server's explanation.
        detail: String,
    },
    /// The server has no changes feed (404): every blog is read from the list, and no cursor
    /// is kept.
    NoFeed {
        /// The feed's URL (without the query).
        url: String,
    },
}

impl FullRead {
    /// [`FullRead::NoFeed`] for a request to `url` (its query, the cursor, left out).
    fn no_feed(url: &str) -> Self {
        let url = url.split_once('?').map_or(url, |(path, _)| path);
        FullRead::NoFeed {
            url: url.to_owned(),
        }
    }
}

impl std::fmt::Display for FullRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FullRead::Asked => write!(f, "a full read was asked for (--full)"),
            FullRead::NoCursor => write!(
                f,
                "no saved cursor (a first export into this folder, state from an older \
                 blogread, or a last export that did not finish or left posts unwritten)"
            ),
            FullRead::CursorFile { path, reason } => write!(
                f,
                "the saved cursor {} cannot be used ({reason})",
                path.display()
            ),
            FullRead::FormatChanged { was } => {
                write!(f, "the saved cursor is of an export in the {was} format")
            }
            FullRead::ManifestChanged => write!(
                f,
                "the manifest is not the one the saved cursor goes with (restored or edited \
                 since)"
            ),
            FullRead::FilesMissing { count, first } => write!(
                f,
                "{count} {} the last export wrote {} missing from the output folder ({first}{})",
                if *count == 1 { "file" } else { "files" },
                if *count == 1 { "is" } else { "are" },
                if *count == 1 { "" } else { ", ..." },
            ),
            FullRead::CursorExpired { detail } => write!(
                f,
                "the server no longer keeps the changes since the saved cursor (410: {detail})"
            ),
            FullRead::CursorRefused { detail } => write!(
                f,
                "the server refused the saved cursor, which is of another project or database \
                 (400: {detail})"
            ),
            FullRead::NoFeed { url } => write!(
                f,
                "the server has no changes feed (404 at {url}), so every post is downloaded \
                 and no cursor is kept"
            ),
        }
    }
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
    /// The Hugo site would refuse the files (nothing was written), or its configuration could
    /// not be read or changed.
    #[error(transparent)]
    HugoConfig(#[from] HugoConfigError),
    /// A post holds a value no content file can (a date after the year 9999, say). Found
    /// while the posts are read, before anything is written.
    #[error("{0}; nothing was written")]
    Render(#[from] RenderError),
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
    /// A path the export would write, read or remove goes through a symbolic link below the
    /// output folder (the folder itself may be a link). Nothing is written or removed through
    /// it: it could point outside the site.
    #[error(
        "refusing to write or remove {file}: {link} is a symbolic link, and below the output \
         folder {out} the export goes through real files and folders only (a link could point \
         outside the site); replace the link with the real file or folder, or delete it, then \
         export again"
    )]
    Symlink {
        /// The link found.
        link: PathBuf,
        /// The file the export would have written or removed (the link or below it).
        file: PathBuf,
        /// The output folder.
        out: PathBuf,
    },
    /// The export spent longer than [`ExportOptions::deadline`](ExportOptions#structfield.deadline)
    /// reading from the server. Nothing was written.
    #[error(
        "the export did not finish reading from the server within its deadline of {}; nothing \
         was written. If the server is merely slow, give it longer (--deadline SECS, or \
         ExportOptions::deadline)",
        human_duration(*.deadline)
    )]
    Deadline {
        /// The deadline.
        deadline: Duration,
    },
    /// The output folder holds files only an export writes, but the state folder has no
    /// manifest listing them: the export ran from another folder, or with another state
    /// folder, than the one that wrote them. Nothing was written, and no state folder made.
    #[error(
        "{out} holds {count} {files} an earlier blogread export wrote ({first}{more}), but the \
         state folder {state_dir} has no manifest listing them ({manifest_name}): that export \
         kept its state elsewhere. The state folder is .blogread in the current directory \
         unless --state-dir (ExportOptions::state_dir) names another, so run the export from \
         the site's root, where the last one ran, or pass --state-dir with the folder that \
         holds export-*.manifest.json. If that state is lost, move those files away and export \
         again. Nothing was written",
        out = out.display(),
        files = if *count == 1 { "file" } else { "files" },
        more = if *count > 1 { ", ..." } else { "" },
        state_dir = state_dir.display(),
        manifest_name = manifest
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
    )]
    StateNotFound {
        /// The output folder.
        out: PathBuf,
        /// The state folder looked in, as an absolute path.
        state_dir: PathBuf,
        /// The manifest looked for, as an absolute path.
        manifest: PathBuf,
        /// How many files an export wrote the output folder holds.
        count: usize,
        /// The first of them, by path relative to the output folder.
        first: String,
    },
    /// The state folder's manifest lists files exported with another public key, and the
    /// server did not confirm that this key is of the same project (by taking the saved
    /// cursor): exporting would replace another project's posts. Nothing was written;
    /// [`ExportOptions::full`] takes the folder over.
    #[error("{}", another_project(state_dir, *files, was, now, refused.as_deref()))]
    AnotherProject {
        /// The state folder, as an absolute path.
        state_dir: PathBuf,
        /// How many files its manifest for the output folder lists.
        files: usize,
        /// The first 12 characters of the key the files were exported with.
        was: String,
        /// The first 12 characters of this export's key.
        now: String,
        /// The server's explanation when it refused the saved cursor (400); `None` when no
        /// saved cursor could be asked about.
        refused: Option<String>,
    },
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

/// "30 min", "90 s", "250 ms".
fn human_duration(d: Duration) -> String {
    match d.as_secs() {
        0 => format!("{} ms", d.as_millis()),
        s if s % 60 == 0 && d.subsec_nanos() == 0 => format!("{} min", s / 60),
        s if d.subsec_nanos() == 0 => format!("{s} s"),
        _ => format!("{:.1} s", d.as_secs_f64()),
    }
}

/// The message of [`ExportError::AnotherProject`].
fn another_project(
    state_dir: &Path,
    files: usize,
    was: &str,
    now: &str,
    refused: Option<&str>,
) -> String {
    let listed = format!(
        "the state folder {} is of another project's export: its manifest for this output \
         folder lists {files} {} exported with the public key {was}…, and this export's key is \
         {now}…",
        state_dir.display(),
        if files == 1 { "file" } else { "files" },
    );
    let why = match refused {
        Some(detail) => format!(
            ", whose project the server says is another (it refused the saved cursor: 400: \
             {detail})"
        ),
        None => ", and without a saved cursor the server cannot tell whether both keys are \
                  the same project's (a rotated key)"
            .to_owned(),
    };
    format!(
        "{listed}{why}. Exporting would replace those files with this project's posts. Check \
         BLOGREAD_API_KEY, --out and --state-dir; to export this project there anyway (or if it \
         is the same project with a new key), export with --full (ExportOptions::full). \
         Nothing was written"
    )
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Reads the manifest at `manifest_path`, with the key of the export that saved it. Writes
/// nothing. Fails if a file it lists is or is below a symbolic link in the output folder
/// `out`: every file a manifest lists is written or removed by this export.
fn load(out: &Path, manifest_path: &Path) -> Result<(Manifest, Option<KeyStamp>), ExportError> {
    let (manifest, key) = Manifest::load_stamped(manifest_path)?;
    for rel in manifest.files.keys() {
        guard::check(out, rel)?;
    }
    Ok((manifest, key))
}

/// Writes the output folder from the published blogs and keeps the manifest (and the cursor
/// of the changes feed) in the state folder. With a saved cursor it reads only what changed
/// since the last export; otherwise, or when the server does not take the cursor, it reads
/// every published blog ([`ExportReport::full_read`] says why). Either way the folder ends
/// exactly as a full export into an empty folder would leave it.
///
/// Every answer is read and every file rendered before anything is written or any folder
/// made, so the errors met on the way ([`ExportError::Client`] for the server's answers and
/// the client's limits, [`ExportError::Render`], [`ExportError::Deadline`],
/// [`ExportError::StateNotFound`], [`ExportError::AnotherProject`], ...) leave the output
/// folder, the state folder, the manifest and the saved cursor as they were.
///
/// `progress(done, total)` is called as blogs are read; `total` is 0 while the changes feed
/// is read (it does not say how many entries follow). The future is `Send` when `progress`
/// is.
pub async fn export(
    client: &Client,
    options: &ExportOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<ExportReport, ExportError> {
    let out = &options.out;
    let state_dir = &options.state_dir;
    if state::is_inside(state_dir, out).map_err(io_err(state_dir))? {
        return Err(ExportError::StateInOutput {
            state_dir: state_dir.clone(),
            out: out.clone(),
        });
    }
    // Whether Hugo will build the files is known before anything is written.
    let hugo_plan = match options.format {
        Format::Hugo => Some(hugo_config::check(out, options.configure_hugo)?),
        Format::Zola | Format::Html => None,
    };
    let manifest_path = options.manifest_path().map_err(io_err(state_dir))?;
    let cursor_path = options.cursor_path().map_err(io_err(state_dir))?;
    let state_dir_shown = state::normalised(state_dir).map_err(io_err(state_dir))?;
    // The manifest is read and checked, and the paths it lists too, before the first folder
    // is made.
    let (old, key_was) = load(out, &manifest_path)?;
    let old = &old;
    if old.files.is_empty() {
        let found = lost::exported_files(out)?;
        if let Some(first) = found.first() {
            return Err(ExportError::StateNotFound {
                out: out.clone(),
                state_dir: state_dir_shown,
                manifest: state::normalised(&manifest_path).map_err(io_err(&manifest_path))?,
                count: found.len(),
                first: first.clone(),
            });
        }
    }
    let key_now = client.key_stamp();
    // Files exported with another key may be another project's: only the server taking their
    // cursor says they are not (a rotated key), unless a full read is asked for.
    let another_key = match key_was {
        Some(was) if !was.same_key(key_now) && !options.full && !old.files.is_empty() => {
            Some(AnotherKey {
                state_dir: state_dir_shown.clone(),
                files: old.files.len(),
                was: was.prefix,
                now: key_now.prefix.clone(),
            })
        }
        _ => None,
    };
    let mut report = ExportReport {
        state_dir: state_dir_shown,
        ..ExportReport::default()
    };

    let saved = match options.full {
        true => Err(FullRead::Asked),
        false => cursor::load(&cursor_path, options.format, old)
            .and_then(|cursor| all_files_present(out, old).map(|()| cursor)),
    };
    let reading = read(
        client,
        options,
        old,
        saved,
        another_key.as_ref(),
        &mut report,
        &mut progress,
    );
    let (plan, next_cursor) = match options.deadline {
        None => reading.await?,
        Some(deadline) => tokio::time::timeout(deadline, reading)
            .await
            .map_err(|_| ExportError::Deadline { deadline })??,
    };
    let planned = plan.finish();

    // Everything is read and every file rendered: from here on the export writes. The site's
    // configuration is changed (when asked to) first, then the output and state folders are
    // made, only now.
    if let Some(plan) = hugo_plan {
        report.hugo = Some(plan.apply()?);
    }
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    std::fs::create_dir_all(state_dir).map_err(io_err(state_dir))?;

    // From the first write until the new cursor is saved, the old one no longer describes
    // the folder: an export cut short leaves none, and the next one reads everything.
    cursor::forget(&cursor_path)?;
    // Record every file about to be written before writing it, so that an export cut short
    // still knows which files are its own (and, from now on, whose key they were exported
    // with).
    let mut union = old.clone();
    union.files.extend(planned.next.files.clone());
    union.save_stamped(&manifest_path, Some(key_now))?;

    for (rel, text) in &planned.texts {
        if guard::holds(out, rel, text.as_bytes())? {
            report.unchanged.push(rel.clone());
            continue;
        }
        guard::write(out, rel, text.as_bytes())?;
        report.written.push(rel.clone());
    }

    for rel in old.stale(&planned.next) {
        if guard::remove(out, rel)? {
            report.removed.push(rel.to_owned());
        }
    }
    planned.next.save_stamped(&manifest_path, Some(key_now))?;
    report.blogs = planned.blogs;
    report.conflicts = planned.conflicts;
    report.inexact = planned.inexact;
    // A post left unwritten by a conflict must be written by a later export once the user's
    // file is gone, which only a full read does: no cursor then.
    if let Some(cursor) = next_cursor.filter(|_| report.conflicts.is_empty()) {
        cursor::save(&cursor_path, options.format, &planned.next, cursor)?;
    }
    Ok(report)
}

/// A manifest's files were exported with another key than this export's: what
/// [`ExportError::AnotherProject`] says, when the server does not confirm the project.
struct AnotherKey {
    state_dir: PathBuf,
    files: usize,
    was: String,
    now: String,
}

impl AnotherKey {
    /// The refusal, with the server's explanation when it refused the saved cursor.
    fn refusal(&self, refused: Option<String>) -> ExportError {
        ExportError::AnotherProject {
            state_dir: self.state_dir.clone(),
            files: self.files,
            was: self.was.clone(),
            now: self.now.clone(),
            refused,
        }
    }
}

/// Reads what changed since `saved` (or, when it is a reason to, every published blog) and
/// plans the output folder from it. Returns the plan and the cursor to save after it is
/// written (none from a server without the changes feed).
///
/// With `another_key` (the files were exported with another key), only the server taking the
/// saved cursor (or telling it expired, which it checks after the project) lets the export go
/// on: the cursor is bound to its project, so the key is then the same project's.
async fn read<'a>(
    client: &Client,
    options: &'a ExportOptions,
    old: &'a Manifest,
    saved: Result<ChangeCursor, FullRead>,
    another_key: Option<&AnotherKey>,
    report: &mut ExportReport,
    progress: &mut impl FnMut(u64, u64),
) -> Result<(Plan<'a>, Option<ChangeCursor>), ExportError> {
    let (out, format) = (&options.out, options.format);
    let feed_progress = &mut |entries: u64| progress(entries, 0);
    let reason = match saved {
        Err(reason) => match another_key {
            Some(another) => return Err(another.refusal(None)),
            None => reason,
        },
        Ok(cursor) => match client
            .changes_since_with_progress(Some(&cursor), &mut *feed_progress)
            .await
        {
            Ok(read) => {
                let mut plan = Plan::from_manifest(out, format, old);
                apply(&mut plan, &read.changes)?;
                report.changes = read.changes.len();
                return Ok((plan, Some(read.cursor)));
            }
            Err(Error::CursorExpired { detail }) => FullRead::CursorExpired { detail },
            Err(Error::InvalidCursor { detail }) => match another_key {
                Some(another) => return Err(another.refusal(Some(detail))),
                None => FullRead::CursorRefused { detail },
            },
            Err(Error::NoChangesFeed { url, .. }) => {
                if let Some(another) = another_key {
                    return Err(another.refusal(None));
                }
                report.full_read = Some(FullRead::no_feed(&url));
                return Ok((
                    read_list(client, options, old, report, progress).await?,
                    None,
                ));
            }
            Err(e) => return Err(e.into()),
        },
    };
    // The initial sync of the feed is the full read: every published post, and the cursor
    // that goes with exactly that state (a list read followed by a separate request for a
    // cursor would lose whatever changed in between).
    match client
        .changes_since_with_progress(None, feed_progress)
        .await
    {
        Ok(read) => {
            let mut plan = Plan::empty(out, format, old);
            apply(&mut plan, &read.changes)?;
            report.changes = read.changes.len();
            report.full_read = Some(reason);
            Ok((plan, Some(read.cursor)))
        }
        Err(Error::NoChangesFeed { url, .. }) => {
            report.full_read = Some(FullRead::no_feed(&url));
            Ok((
                read_list(client, options, old, report, progress).await?,
                None,
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// Applies the feed's entries to `plan`, in order.
fn apply(plan: &mut Plan<'_>, changes: &[Change]) -> Result<(), ExportError> {
    for change in changes {
        match change {
            Change::Upsert { blog, aliases } => plan.upsert(blog, aliases)?,
            Change::Delete { slug } => plan.delete(slug),
        }
    }
    Ok(())
}

/// Ok when every file `old` lists is in the output folder; otherwise the folder is not what
/// the saved cursor describes (cleaned, or checked out without the exported files).
fn all_files_present(out: &Path, old: &Manifest) -> Result<(), FullRead> {
    let mut missing = old
        .files
        .keys()
        .filter(|rel| !matches!(guard::exists(out, rel), Ok(true)));
    match missing.next() {
        None => Ok(()),
        Some(first) => Err(FullRead::FilesMissing {
            count: 1 + missing.count(),
            first: first.clone(),
        }),
    }
}

/// The full read of a server without the changes feed: the blog list (a consistent
/// snapshot), the redirects, then each blog's single answer, a few at a time.
async fn read_list<'a>(
    client: &Client,
    options: &'a ExportOptions,
    old: &'a Manifest,
    report: &mut ExportReport,
    progress: &mut impl FnMut(u64, u64),
) -> Result<Plan<'a>, ExportError> {
    let summaries = client.all_blogs().await?;
    if let Some(bad) = summaries.iter().find(|b| !is_valid_slug(&b.slug)) {
        return Err(ExportError::UnsafeSlug(bad.slug.clone()));
    }
    // Former slugs of renamed posts, by current slug. A server without slug history has no
    // redirects endpoint: nothing to redirect then.
    let redirects = match client.redirects().await {
        Ok(r) => r.redirects,
        Err(Error::EndpointNotFound { .. }) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in redirects {
        if !is_valid_slug(&r.from) || !is_valid_slug(&r.to) {
            return Err(ExportError::UnsafeSlug(r.from));
        }
        aliases.entry(r.to).or_default().push(r.from);
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
    let mut details: Vec<Option<BlogDetail>> = vec![None; summaries.len()];
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

    let mut plan = Plan::empty(&options.out, options.format, old);
    for blog in details.into_iter().flatten() {
        let former = aliases
            .get(&blog.slug)
            .map(Vec::as_slice)
            .unwrap_or_default();
        plan.upsert(&blog, former)?;
    }
    Ok(plan)
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
