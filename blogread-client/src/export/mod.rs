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
//! Its image entries ([`Manifest::media`]) must each be exactly `media/<sha256>.<jpg|png>`
//! ([`is_media_file`]), with the URL of the service's master of that name and the slugs of
//! the posts using it; anything else stops the export the same way.
//!
//! # Images
//!
//! With [`MediaMode::Local`] (the default) the export brings the service's images the posts use
//! into the site: each master once, its SHA-256 checked against its name, written as
//! `media/<sha256>.<jpg|png>` under [`ExportOptions::media_root`] (the site's `static/` for
//! Zola and Hugo, the output folder for plain HTML), and the posts' featured images and body
//! `<img>`s name them by their site paths, with `width` and `height`. Every image is
//! downloaded and checked before anything is written; files already there with the right
//! bytes are kept, and those the export wrote that no post uses any more are removed
//! ([`ExportReport::media`]). `docs/client.md#images` has the rules.
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
mod media;
mod plan;
pub mod render;
mod state;
mod types;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

pub use hugo_config::{HugoConfigError, HugoSite};
pub use manifest::{
    Manifest, ManifestError, MediaEntry, is_export_file, is_media_file, is_safe_relative,
};
pub use render::{
    Rendered, redirect_page, render, render_file, render_with_aliases, try_render_file,
};
pub use state::DEFAULT_STATE_DIR;
use types::io_err;
pub use types::{
    DEFAULT_DEADLINE, ExportError, ExportOptions, ExportReport, Format, FullRead, Inexact,
    MAX_SITE_ROOT, MediaMode, MediaReport, Progress, RenderError, SiteRoot,
};

use crate::key_stamp::KeyStamp;
use crate::slug::is_valid_slug;
use crate::{BlogDetail, Change, ChangeCursor, Client, Error};
use media::files::{Gathered, gather};
use media::site::MediaRule;
use plan::{Plan, Unrendered};

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
/// is. [`export_with_progress`] tells the images' downloads too.
pub async fn export(
    client: &Client,
    options: &ExportOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<ExportReport, ExportError> {
    export_with_progress(client, options, |step| match step {
        Progress::Changes { entries } => progress(entries, 0),
        Progress::Blogs { done, total } => progress(done, total),
        Progress::Images { .. } => {}
    })
    .await
}

/// [`export`], telling each step of its reading to `progress`: the changes feed's entries, or
/// the blogs read one by one, then the images downloaded (after `Images { done: 0, total }`,
/// once for each). The future is `Send` when `progress` is.
pub async fn export_with_progress(
    client: &Client,
    options: &ExportOptions,
    mut progress: impl FnMut(Progress),
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
        false => cursor::load(
            &cursor_path,
            options.format,
            options.media,
            &options.effective_site_root(),
            old,
        )
        .and_then(|cursor| all_files_present(out, old).map(|()| cursor)),
    };
    let media_root = options.media_root();
    let reading = async {
        let (plan, next_cursor) = read(
            client,
            options,
            old,
            saved,
            another_key.as_ref(),
            &mut report,
            &mut progress,
        )
        .await?;
        // Every image the posts use, downloaded and checked, before anything is written.
        let needed = plan.needed();
        let gathered = gather(
            client,
            &media_root,
            &old.media,
            needed,
            options.concurrency,
            &mut |done, total| progress(Progress::Images { done, total }),
        )
        .await?;
        Ok::<(Unrendered, Gathered, Option<ChangeCursor>), ExportError>((
            plan.unrendered(),
            gathered,
            next_cursor,
        ))
    };
    let (unrendered, gathered, next_cursor) = match options.deadline {
        None => reading.await?,
        Some(deadline) => tokio::time::timeout(deadline, reading)
            .await
            .map_err(|_| ExportError::Deadline { deadline })??,
    };
    let site = media::site_images(
        options.format,
        &options.effective_site_root(),
        &gathered.entries,
    );
    let mut planned = unrendered.finish(&site)?;
    planned.next.media = gathered.entries;

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
    union.media.extend(planned.next.media.clone());
    union.save_stamped(&manifest_path, Some(key_now))?;

    // The images first: a page is never written before the images it shows.
    if !gathered.downloads.is_empty() {
        std::fs::create_dir_all(&media_root).map_err(io_err(&media_root))?;
    }
    for (rel, bytes) in &gathered.downloads {
        guard::write(&media_root, rel, bytes)?;
        report.media.downloaded.push(rel.clone());
    }
    report.media.kept = gathered.kept;

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
    // Images the export wrote that no exported post uses any more.
    for (rel, _) in old
        .media
        .iter()
        .filter(|(rel, entry)| !entry.found && !planned.next.media.contains_key(*rel))
    {
        if guard::remove(&media_root, rel)? {
            report.media.removed.push(rel.clone());
        }
    }
    planned.next.save_stamped(&manifest_path, Some(key_now))?;
    report.blogs = planned.blogs;
    report.conflicts = planned.conflicts;
    report.inexact = planned.inexact;
    // A post left unwritten by a conflict must be written by a later export once the user's
    // file is gone, which only a full read does: no cursor then.
    if let Some(cursor) = next_cursor.filter(|_| report.conflicts.is_empty()) {
        cursor::save(
            &cursor_path,
            options.format,
            options.media,
            &options.effective_site_root(),
            &planned.next,
            cursor,
        )?;
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
    progress: &mut impl FnMut(Progress),
) -> Result<(Plan<'a>, Option<ChangeCursor>), ExportError> {
    let (out, format) = (&options.out, options.format);
    let feed_progress = &mut |entries: u64| progress(Progress::Changes { entries });
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
                let mut plan = Plan::from_manifest(out, format, old, media_rule(options, client));
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
            let mut plan = Plan::empty(out, format, old, media_rule(options, client));
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

/// What decides which images are the service's, when the export brings them home.
fn media_rule(options: &ExportOptions, client: &Client) -> Option<MediaRule> {
    match options.media {
        MediaMode::Local => Some(MediaRule::new(client.media_prefix())),
        MediaMode::Remote => None,
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
    progress: &mut impl FnMut(Progress),
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
    progress(Progress::Blogs { done: 0, total });

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
        progress(Progress::Blogs { done, total });
    }

    let mut plan = Plan::empty(
        &options.out,
        options.format,
        old,
        media_rule(options, client),
    );
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
