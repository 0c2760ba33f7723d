//! The export's shared types: what to export where ([`ExportOptions`], [`Format`]), what a
//! run did ([`ExportReport`]), why a run read everything ([`FullRead`]) and why it stopped
//! ([`ExportError`]). The run in `mod.rs` and each of its modules import them from here.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::hugo_config::{HugoConfigError, HugoSite};
use super::state::{self, DEFAULT_STATE_DIR};
use crate::Error;

/// What the export does with the service's images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum MediaMode {
    /// Download each image the exported posts use into the site, and name it by its site
    /// path, with its size (the default).
    #[default]
    Local,
    /// Keep the service's URLs in the posts, as they are (the featured image's size and alt
    /// text are still written beside it).
    Remote,
}

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

/// The path a Zola or Hugo site is served under, which its pages name the brought-home images
/// from: `/` (the domain's root, the default) or a folder such as `/my-blog/` (a GitHub Pages
/// project site, a site behind a path on a shared domain). Always starts and ends with `/`;
/// its segments hold only letters, digits and `-._~`, and none is `.` or `..`, so that it
/// can go into HTML attributes and front matter as it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SiteRoot(String);

/// The longest [`SiteRoot`], in bytes.
pub const MAX_SITE_ROOT: usize = 256;

impl SiteRoot {
    /// `text` as a site root: `/`, `/blog` or `/blog/` (the final `/` is added when missing).
    pub fn parse(text: &str) -> Result<Self, String> {
        let fix = "give the path the site is served under, e.g. / or /my-blog/";
        let Some(rest) = text.strip_prefix('/') else {
            return Err(format!("`{text}` does not start with `/`: {fix}"));
        };
        if text.len() > MAX_SITE_ROOT {
            return Err(format!(
                "the site root is longer than {MAX_SITE_ROOT} bytes: {fix}"
            ));
        }
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let mut root = String::from("/");
        if rest.is_empty() {
            return Ok(SiteRoot(root));
        }
        for segment in rest.split('/') {
            let safe = segment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
            if segment.is_empty() || segment == "." || segment == ".." || !safe {
                return Err(format!(
                    "`{text}` has a segment `{segment}` a site root cannot hold (only letters, digits and -._~, no empty, `.` or `..` segment): {fix}"
                ));
            }
            root.push_str(segment);
            root.push('/');
        }
        Ok(SiteRoot(root))
    }

    /// The root, starting and ending with `/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for SiteRoot {
    fn default() -> Self {
        SiteRoot("/".to_owned())
    }
}

impl std::str::FromStr for SiteRoot {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        SiteRoot::parse(text)
    }
}

impl std::fmt::Display for SiteRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
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
    /// [module docs](crate::export#the-state-folder).
    pub state_dir: PathBuf,
    /// For [`Format::Hugo`]: when the site's configuration sets no content policy, add
    /// `allowContent = ['! ^text/org$']` under `[security]` (TOML files only) instead of
    /// stopping. Default `false`. See [`hugo_config`](super::hugo_config).
    pub configure_hugo: bool,
    /// Read every published blog even when a saved cursor would let the export read only
    /// what changed (see the [module docs](crate::export#incremental-exports)), and take over a state
    /// folder whose files were exported with another key (see
    /// [another project's state](crate::export#another-projects-state)). Default `false`.
    pub full: bool,
    /// How long the export may spend reading from the server, every request and retry
    /// included (default [`DEFAULT_DEADLINE`], 30 minutes; `None` for no limit). Past it the
    /// export stops with [`ExportError::Deadline`] before writing anything. Writing the files
    /// (local, and never waiting on the server) is not cut short.
    pub deadline: Option<Duration>,
    /// What the export does with the service's images: bring them into the site
    /// ([`MediaMode::Local`], the default) or leave the service's URLs ([`MediaMode::Remote`]).
    /// See [`docs/client.md`, images](crate::export#images).
    pub media: MediaMode,
    /// The folder the images go in, as `media/<sha256>.<jpg|png>`: by default `static` (in the
    /// current directory, the site's root) for Zola and Hugo, which copy it to the built
    /// site's root; for plain HTML always the output folder, beside the pages.
    pub static_dir: Option<PathBuf>,
    /// For Zola and Hugo: the path the site is served under, which pages name the images
    /// from (`{site_root}media/<sha256>.<ext>`; default `/`). Plain HTML names them relative
    /// to each page and does not use it.
    pub site_root: SiteRoot,
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
            media: MediaMode::Local,
            static_dir: None,
            site_root: SiteRoot::default(),
        }
    }

    /// Sets the path a Zola or Hugo site is served under (see
    /// [`ExportOptions::site_root`](Self#structfield.site_root)).
    pub fn site_root(mut self, root: SiteRoot) -> Self {
        self.site_root = root;
        self
    }

    /// The site root the pages use: [`ExportOptions::site_root`](Self#structfield.site_root)
    /// for Zola and Hugo, `/` for plain HTML (whose pages name their images relatively).
    pub fn effective_site_root(&self) -> SiteRoot {
        match self.format {
            Format::Zola | Format::Hugo => self.site_root.clone(),
            Format::Html => SiteRoot::default(),
        }
    }

    /// Sets what the export does with the service's images (see
    /// [`ExportOptions::media`](Self#structfield.media)).
    pub fn media(mut self, media: MediaMode) -> Self {
        self.media = media;
        self
    }

    /// Sets the folder the images go in for Zola and Hugo (see
    /// [`ExportOptions::static_dir`](Self#structfield.static_dir)).
    pub fn static_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.static_dir = Some(dir.into());
        self
    }

    /// The folder the images go in: [`ExportOptions::static_dir`](Self#structfield.static_dir)
    /// or its default.
    pub fn media_root(&self) -> PathBuf {
        match (self.format, &self.static_dir) {
            (Format::Zola | Format::Hugo, Some(dir)) => dir.clone(),
            (Format::Zola | Format::Hugo, None) => PathBuf::from("static"),
            (Format::Html, _) => self.out.clone(),
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
    /// (see the [module docs](crate::export#the-state-folder)). Fails only if the current directory is
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
    /// manifest (see the [module docs](crate::export#incremental-exports)).
    pub fn cursor_path(&self) -> io::Result<PathBuf> {
        self.state_file("cursor.json")
    }

    fn state_file(&self, suffix: &str) -> io::Result<PathBuf> {
        let stem = state::file_stem(&self.state_dir, &self.out)?;
        Ok(self.state_dir.join(format!("{stem}.{suffix}")))
    }
}

/// How far an export has got, for a progress display
/// ([`export_with_progress`](super::export_with_progress)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Progress {
    /// Entries of the changes feed read so far (the feed does not say how many follow).
    Changes {
        /// Entries read.
        entries: u64,
    },
    /// Blogs read one by one (from a server without the changes feed).
    Blogs {
        /// Blogs read.
        done: u64,
        /// Blogs to read.
        total: u64,
    },
    /// Images downloaded (those already on disk with the right bytes are not counted).
    Images {
        /// Images downloaded and checked.
        done: u64,
        /// Images to download.
        total: u64,
    },
}

/// What an export did. Paths are relative to the output folder, with `/`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportReport {
    /// Published blogs the output folder holds after the export.
    pub blogs: usize,
    /// Why every published blog was read, or `None` when only the changes since the last
    /// export were (see the [module docs](crate::export#incremental-exports)).
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
    /// The images of the site (see the [module docs](crate::export#images)).
    pub media: MediaReport,
    /// The state folder the export used, as an absolute path (`.` and `..` resolved, links
    /// not followed), so that a message can say where the state is.
    pub state_dir: PathBuf,
}

/// What an export did with the images, by path relative to the folder they go in
/// ([`ExportOptions::media_root`]), `media/<sha256>.<jpg|png>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MediaReport {
    /// Downloaded (their digests checked) and written.
    pub downloaded: Vec<String>,
    /// Already there with the right bytes: not downloaded again.
    pub kept: Vec<String>,
    /// Written by an earlier export and used by no exported post any more: removed.
    pub removed: Vec<String>,
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
    /// The saved cursor is of an export that did the other thing with the images
    /// (`--media local` or `remote`): every post is written again with its images.
    MediaChanged {
        /// What that export did (`local`, `remote`).
        was: String,
    },
    /// The saved cursor is of an export for a site served under another path
    /// (`--site-root`): every post is written again, naming its images from the new one.
    SiteRootChanged {
        /// The site root of that export.
        was: String,
    },
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
    pub(super) fn no_feed(url: &str) -> Self {
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
            FullRead::MediaChanged { was } => write!(
                f,
                "the saved cursor is of an export with --media {was}, so every post is written \
                 again with its images"
            ),
            FullRead::SiteRootChanged { was } => write!(
                f,
                "the saved cursor is of an export with --site-root {was}, so every post is \
                 written again naming its images from the new root"
            ),
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
    /// A file where an image goes (`media/<sha256>.<ext>`) holds other bytes than its name
    /// says, and no export wrote it: it is left alone, and nothing was written.
    #[error(
        "{} holds other bytes than the image {url} its name stands for, and no export wrote \
         it; nothing was written. Move it away (the export then downloads the image there), \
         or export with --media remote",
        file.display()
    )]
    MediaConflict {
        /// The file.
        file: PathBuf,
        /// The image it should hold.
        url: String,
    },
    /// A downloaded image (its digest right) is not a JPEG or PNG whose size the export can
    /// read, so pages could not give its `width` and `height`. Nothing was written.
    #[error(
        "the image {url} is not a JPEG or PNG whose size can be read from its header; nothing \
         was written. Report it to the server's operators, or export with --media remote"
    )]
    MediaUnreadable {
        /// The image's URL.
        url: String,
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

pub(super) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Text in a post's body that the generator cannot show exactly as the API returns it (for
/// example `{% end %}` inside a `<script>`, which stops Zola's build as it is, and which a
/// character reference cannot stand for there). The export writes the file so that the site
/// still builds, with that text changed as [`message`](Self::message) says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Inexact {
    /// The post.
    pub slug: String,
    /// The line of the body the text is on (from 1).
    pub line: usize,
    /// The text, where it is, why the generator cannot show it and what was written instead.
    pub message: String,
}

impl std::fmt::Display for Inexact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "post `{}`, line {} of its body: {}",
            self.slug, self.line, self.message
        )
    }
}

/// A value of a post that no content file can hold as the API gave it. The export stops
/// before it writes anything; the post must be corrected on the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// A date outside the years 0000 to 9999: RFC 3339 (what the API documents, and what
    /// every format writes) and TOML front matter have four-digit years only.
    #[error(
        "post `{slug}`: {field} {value} is outside the years 0000 to 9999, the only ones RFC 3339 \
         dates and Zola's and Hugo's TOML front matter can hold; correct the post's date on the \
         server, then export again"
    )]
    DateOutOfRange {
        /// The post's slug.
        slug: String,
        /// The field (`published_at`, `updated_at`).
        field: &'static str,
        /// The date as the server sent it (in chrono's extended form, `+10000-01-01T00:00:00Z`).
        value: String,
    },
    /// For Zola and Hugo: a number above TOML's largest integer (2^63 - 1).
    #[error(
        "post `{slug}`: {field} {value} is larger than {}, the largest integer Zola's and Hugo's \
         TOML front matter can hold; the server sent a value no post can have",
        i64::MAX
    )]
    NumberOutOfRange {
        /// The post's slug.
        slug: String,
        /// The field (`word_count`).
        field: &'static str,
        /// The value the server sent.
        value: u64,
    },
}

/// A manifest that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// Reading or writing it failed.
    #[error("manifest {path}: {source}")]
    Io {
        /// The manifest's path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// It is not a manifest this version understands (so nothing is deleted on its word).
    #[error("manifest {path} is not a blogread manifest of version 1: {reason}")]
    Invalid {
        /// The manifest's path.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The inverse of [`file_path`](super::render::file_path): the format and slug part of `path` when it has one of the
/// three shapes, `None` otherwise. The slug part is not checked here (`a/b.md` gives `a/b`).
pub(crate) fn parse_file_path(path: &str) -> Option<(Format, &str)> {
    if let Some(slug) = path.strip_suffix("/index.html") {
        Some((Format::Html, slug))
    } else if let Some(slug) = path.strip_suffix(".md") {
        Some((Format::Zola, slug))
    } else {
        path.strip_suffix(".html").map(|slug| (Format::Hugo, slug))
    }
}

#[cfg(test)]
mod site_root_tests {
    use super::*;

    #[test]
    fn a_site_root_starts_and_ends_with_a_slash() {
        for (given, root) in [
            ("/", "/"),
            ("/blog", "/blog/"),
            ("/blog/", "/blog/"),
            ("/a/b.c/d-e_f~g", "/a/b.c/d-e_f~g/"),
        ] {
            assert_eq!(SiteRoot::parse(given).unwrap().as_str(), root, "{given}");
        }
    }

    #[test]
    fn a_site_root_that_could_leave_the_site_or_break_a_page_is_refused() {
        for bad in [
            "",
            "blog/",
            "//evil.example/",
            "/a//b/",
            "/../",
            "/a/./b",
            "/a b/",
            "/a\"b/",
            "/a?x/",
            "/a#x/",
            "/%2e%2e/",
            "/é/",
            &format!("/{}", "a".repeat(MAX_SITE_ROOT)),
        ] {
            let err = SiteRoot::parse(bad).expect_err(bad);
            assert!(err.contains("e.g. / or /my-blog/"), "{err}");
        }
    }
}
