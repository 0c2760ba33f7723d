//! `blogread`: read a project's published blogs from the command line, or export them as
//! content files for Zola, Hugo or plain HTML before a site build.
#![forbid(unsafe_code)]

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use blogread_client::export::{self, DEFAULT_STATE_DIR, ExportOptions, Format};
use blogread_client::{
    Client, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_PAGES, Error, ListParams,
    RetryPolicy,
};
use clap::{Parser, Subcommand};

/// The environment variable the public key is read from (never a command-line argument, so it
/// stays out of shell history and process listings).
const KEY_VAR: &str = "BLOGREAD_API_KEY";

/// Exports with at least this many blogs show a progress bar (when stdout is a terminal).
const LONG_EXPORT: u64 = 50;

/// Exports downloading at least this many images show a progress bar for them (when stdout is
/// a terminal).
const LONG_DOWNLOAD: u64 = 10;

/// A mebibyte, the unit of `--max-answer-mib`.
const MIB: u64 = 1024 * 1024;

#[derive(Parser)]
#[command(
    name = "blogread",
    version,
    about = "Read a blogread project's published blogs, or export them for Zola, Hugo or plain HTML.",
    long_about = "Read a blogread project's published blogs, or export them for Zola, Hugo or plain HTML.\n\n\
        The project's public key (pk_live_...) is read from the BLOGREAD_API_KEY environment variable only; \
        keep it in your build's secrets, never in the repository.\n\n\
        --base-url, --timeout, --attempts, --max-answer-mib, --max-pages and --max-entries may come \
        before or after the command.\n\n\
        The client trusts no server: it reads at most --max-answer-mib of one answer, and at most \
        --max-pages pages and --max-entries entries in one read of a list or of the changes feed, \
        and stops with an error naming the limit past them. The defaults are far above what a \
        project of 100,000 posts needs.",
    after_help = "Examples:\n  \
        export BLOGREAD_API_KEY=pk_live_...\n  \
        blogread --base-url https://blog.example.com list --limit 5\n  \
        blogread get hello-world\n  \
        blogread export --format zola --out content/blog --timeout 60 && zola build"
)]
struct Cli {
    /// The blogread server's root URL (the client appends /blog/api/v1/public/...).
    #[arg(long, env = "BLOGREAD_BASE_URL", value_name = "URL", global = true)]
    base_url: Option<String>,

    /// Seconds each request may take before it is retried.
    #[arg(long, default_value_t = 30, value_name = "SECS", global = true)]
    timeout: u64,

    /// Attempts per request for 500, 502, 503, 504 and network errors (1 = no retry).
    #[arg(long, default_value_t = 4, value_name = "N", global = true)]
    attempts: u32,

    /// The most MiB of one answer the client reads; a longer answer is an error (the largest
    /// a blogread server sends, a page of the changes feed, is about 10 MiB).
    #[arg(
        long,
        default_value_t = DEFAULT_MAX_ANSWER_BYTES / MIB,
        value_name = "MIB",
        value_parser = clap::value_parser!(u64).range(1..),
        global = true
    )]
    max_answer_mib: u64,

    /// The most pages one read of a list or of the changes feed follows; a server still
    /// saying more follow after them is an error (a project of 100,000 posts needs at most a
    /// few thousand).
    #[arg(
        long,
        default_value_t = DEFAULT_MAX_PAGES,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..),
        global = true
    )]
    max_pages: u32,

    /// The most entries (posts, changes) one read of a list or of the changes feed collects;
    /// more is an error (ten times a project of 100,000 posts).
    #[arg(
        long,
        default_value_t = DEFAULT_MAX_ENTRIES,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..),
        global = true
    )]
    max_entries: u64,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print one page of published blogs as JSON (with --all, every one, in the same shape).
    ///
    /// The object is {"blogs", "total", "limit", "offset"}, as the API answers it; with --all
    /// it holds every published blog.
    List {
        /// Page size (the server clamps it to 1..=100).
        #[arg(long)]
        limit: Option<u32>,
        /// Blogs to skip.
        #[arg(long)]
        offset: Option<u64>,
        /// Only blogs in this category.
        #[arg(long)]
        category: Option<String>,
        /// Include each blog's HTML body.
        #[arg(long)]
        include_content: bool,
        /// Every published blog, read page by page (a consistent read, restarted if posts are
        /// published meanwhile), printed as one list: "total" is their number, "limit" too,
        /// "offset" 0.
        #[arg(long, conflicts_with_all = ["limit", "offset", "category"])]
        all: bool,
    },
    /// Print one published blog as JSON.
    Get {
        /// The blog's slug.
        slug: String,
    },
    /// Print the sitemap data (slug and dates of up to 5000 blogs) as JSON.
    Sitemap,
    /// Write one content file per published blog into a folder, and remove the files of
    /// blogs no longer published (only files an earlier export wrote).
    #[command(
        after_help = "Zola: `blogread export --format zola --out content/blog`, then `zola build`. \
        Declare the taxonomies in config.toml: taxonomies = [{name = \"categories\"}, {name = \"tags\"}].\n\
        Hugo: `blogread export --format hugo --out content/blog --configure-hugo`, then \
        `hugo --cleanDestinationDir`. Hugo builds .html content files only when the site's \
        security.allowContent allows text/html, which its default does not: the export reads the \
        site's configuration (from --out upwards) first and stops, writing nothing, with the lines \
        to add; --configure-hugo adds them to a TOML configuration.\n\
        HTML: `blogread export --format html --out public/blog` writes <slug>/index.html pages.\n\
        Zola and Hugo: text in a post that the generator would take for its own syntax \
        (shortcodes, its summary divider) is written with the generator's own escape or a \
        character reference, so that every page shows the post's HTML exactly and no post stops \
        the build; what cannot be shown exactly (in a <script>, say) is printed as a warning \
        naming the post.\n\n\
        Only content goes into the output folder. The state goes into the state folder (--state-dir, \
        default .blogread in the current directory: run from the site's root, next to config.toml or \
        hugo.toml), three files per output folder, named after it (content/blog gives \
        export-content-blog-<hash>.*):\n  \
        *.manifest.json  the files this command wrote and may remove; commit it if you commit the \
        exported files\n  \
        *.cache.json     ETags, so an unchanged rebuild downloads no bodies; disposable, do not commit\n  \
        *.cursor.json    where the changes feed was read up to, so the next export reads only what \
        changed; keep it between builds (in a build cache, or committed along with the manifest and \
        the exported files)\n\n\
        Incremental: with a saved cursor the export asks the server only for what changed since the \
        last export, writes those posts, removes the files of posts no longer published and leaves \
        every other file alone; the folder ends exactly as a full export would leave it. It reads \
        every post instead, and says why in one line, when no cursor is saved (first export), the \
        cursor is too old (410) or of another database (400), the server has no changes feed (404), \
        the output folder lacks files the last export wrote, or with --full.\n\n\
        State: the summary line names the state folder used. The manifest records the public key \
        the files were exported with (its first 12 characters and a digest, never the key): with \
        another project's key the export stops, writing nothing, unless --full is given (a rotated \
        key of the same project is taken once the server accepts the saved cursor). Files only an \
        export writes in --out with no manifest in the state folder stop it too, naming the state \
        folder it looked in: run from the site's root, or pass --state-dir.\n\n\
        Limits: besides --max-answer-mib, --max-pages and --max-entries, the reading must end within \
        --deadline; past any of them the export stops with an error naming the limit, and writes \
        nothing. So does a post the files cannot hold (a date after the year 9999).\n\n\
        Safety: a manifest listing anything but <slug>.md, <slug>.html or <slug>/index.html stops the \
        export before anything is written, and nothing below the output folder is written or removed \
        through a symbolic link (the output folder itself may be one): replace such a link with the \
        real file or folder."
    )]
    Export {
        /// The generator to write for.
        #[arg(long, value_enum)]
        format: Format,
        /// The output folder (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Do not keep or use the ETag cache file.
        #[arg(long)]
        no_cache: bool,
        /// The folder for the manifest, the ETag cache and the changes cursor (created if
        /// missing); keep it outside the output folder and out of what the generator publishes.
        #[arg(long, env = "BLOGREAD_STATE_DIR", value_name = "DIR", default_value = DEFAULT_STATE_DIR)]
        state_dir: PathBuf,
        /// With --format hugo: when the site's configuration sets no security.allowContent
        /// (Hugo's default denies .html content files), add allowContent = ['! ^text/org$']
        /// to its security table (TOML only, comments and layout kept) instead of stopping.
        #[arg(long)]
        configure_hugo: bool,
        /// Read every published post instead of only what changed since the last export
        /// (and start the incremental exports afresh); the files come out the same either way.
        /// Use it after editing exported files by hand: only a full read rewrites those. It
        /// also takes over a state folder whose files were exported with another project's key
        /// (which the export otherwise refuses), replacing them with this project's posts.
        #[arg(long)]
        full: bool,
        /// The most seconds the export may spend reading from the server, every request and
        /// retry included; past it the export stops, writing nothing (0 = no limit).
        #[arg(long, default_value_t = export::DEFAULT_DEADLINE.as_secs(), value_name = "SECS")]
        deadline: u64,
        /// What to do with the service's images the posts use: `local` downloads each once
        /// (its SHA-256 checked) into the site as `media/<sha256>.<jpg|png>` and names it by
        /// its site path, with its width and height; `remote` keeps the service's URLs.
        #[arg(long, value_enum, default_value = "local")]
        media: export::MediaMode,
        /// With --format zola or hugo: the site's static folder, where the images go as
        /// `media/<sha256>.<jpg|png>` (default `static`, in the current directory). Plain HTML
        /// puts them in the output folder, beside the pages.
        #[arg(long, value_name = "DIR")]
        static_dir: Option<PathBuf>,
        /// With --format zola or hugo: the path the site is served under, which pages name the
        /// images from (`/my-blog/` makes them `/my-blog/media/<sha256>.<ext>`), for a site
        /// that is not at its domain's root (a GitHub Pages project site, say). Plain HTML
        /// names them relative to each page and needs none.
        #[arg(
            long,
            env = "BLOGREAD_SITE_ROOT",
            value_name = "PATH",
            default_value = "/"
        )]
        site_root: export::SiteRoot,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("could not start the runtime: {e}")),
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// Turns a client error into a message that says what to do. The client's own messages name
/// the URL, the attempts and the cause.
fn explain(e: Error) -> String {
    match e {
        Error::Unauthorized { detail } => format!(
            "the server refused the key (401: {detail}); check {KEY_VAR} holds the project's current public key (pk_live_...)"
        ),
        other => other.to_string(),
    }
}

async fn run(cli: Cli) -> Result<ExitCode, String> {
    let Some(base_url) = cli.base_url.as_deref().filter(|u| !u.trim().is_empty()) else {
        return Err(
            "no server URL: give --base-url URL or set BLOGREAD_BASE_URL to the blogread server's root URL (e.g. https://blog.example.com)"
                .to_owned(),
        );
    };
    let key = match std::env::var(KEY_VAR) {
        Ok(k) if !k.trim().is_empty() => k.trim().to_owned(),
        _ => {
            return Err(format!(
                "{KEY_VAR} is not set; set it to the project's public key (pk_live_..., from Publishing > API Access)"
            ));
        }
    };
    let mut builder = Client::builder(base_url, key)
        .timeout(Duration::from_secs(cli.timeout.max(1)))
        .retry_policy(RetryPolicy::new().max_attempts(cli.attempts))
        .max_answer_bytes(cli.max_answer_mib.saturating_mul(MIB))
        .max_pages(cli.max_pages)
        .max_entries(cli.max_entries)
        .user_agent(concat!("blogread-cli/", env!("CARGO_PKG_VERSION")))
        .on_retry(|e| {
            eprintln!(
                "note: attempt {} of {} at {} failed ({}); retrying in {:.1?}",
                e.attempt, e.max_attempts, e.url, e.error, e.delay
            )
        });

    let export_options = match &cli.command {
        Command::Export {
            format,
            out,
            state_dir,
            configure_hugo,
            full,
            deadline,
            media,
            static_dir,
            site_root,
            ..
        } => {
            if *format == Format::Html && *site_root != export::SiteRoot::default() {
                return Err(
                    "--site-root is for --format zola and hugo: plain HTML names its images relative to each page, wherever the site is served; leave it out"
                        .to_owned(),
                );
            }
            let options = ExportOptions::new(out, *format)
                .site_root(site_root.clone())
                .state_dir(state_dir)
                .configure_hugo(*configure_hugo)
                .full(*full)
                .deadline((*deadline > 0).then(|| Duration::from_secs(*deadline)))
                .media(*media);
            Some(match static_dir {
                Some(dir) => options.static_dir(dir),
                None => options,
            })
        }
        _ => None,
    };
    let no_cache = matches!(cli.command, Command::Export { no_cache: true, .. });
    let cache_path = match &export_options {
        Some(options) if !no_cache => Some(
            options
                .cache_path()
                .map_err(|e| format!("{}: {e}", options.state_dir.display()))?,
        ),
        _ => None,
    };
    if let Some(path) = &cache_path {
        builder = builder.etag_cache_file(path);
    }
    let client = builder.build().map_err(|e| e.to_string())?;

    match cli.command {
        Command::List {
            limit,
            offset,
            category,
            include_content,
            all,
        } => {
            if all {
                let blogs = if include_content {
                    client.all_blogs_with_content().await
                } else {
                    client.all_blogs().await
                }
                .map_err(explain)?;
                // The shape of one page, holding every blog.
                let count = blogs.len();
                print_json(&serde_json::json!({
                    "blogs": blogs,
                    "total": count,
                    "limit": count,
                    "offset": 0,
                }))?;
            } else {
                let mut params = ListParams::new().include_content(include_content);
                if let Some(l) = limit {
                    params = params.limit(l);
                }
                if let Some(o) = offset {
                    params = params.offset(o);
                }
                if let Some(c) = category {
                    params = params.category(c);
                }
                let page = client.list(&params).await.map_err(explain)?;
                print_json(&page)?;
            }
        }
        Command::Get { slug } => {
            let blog = client.get(&slug).await.map_err(|e| match e {
                Error::NotFound { .. } => format!("no published blog has the slug `{slug}`"),
                e => explain(e),
            })?;
            print_json(&blog)?;
        }
        Command::Sitemap => {
            let sitemap = client.sitemap().await.map_err(explain)?;
            print_json(&sitemap)?;
        }
        Command::Export { .. } => {
            let options = export_options.expect("made for the export command");
            return export_command(&client, &options).await;
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn export_command(client: &Client, options: &ExportOptions) -> Result<ExitCode, String> {
    let out = &options.out;
    let show_bar = std::io::stdout().is_terminal();
    // The bar of the step under way: a new step replaces it.
    let mut bar: Option<(&'static str, indicatif::ProgressBar)> = None;
    let mut progress = |step: export::Progress| {
        // A total of 0: the changes feed, which does not say how many entries follow.
        let (template, done, total, long) = match step {
            export::Progress::Changes { entries } => {
                ("{spinner} reading changes {pos}", entries, 0, LONG_EXPORT)
            }
            export::Progress::Blogs { done, total } => (
                "{spinner} reading blogs {bar:30} {pos}/{len} ({eta})",
                done,
                total,
                LONG_EXPORT,
            ),
            export::Progress::Images { done, total } => (
                "{spinner} downloading images {bar:30} {pos}/{len} ({eta})",
                done,
                total,
                LONG_DOWNLOAD,
            ),
            _ => return,
        };
        if !show_bar || total.max(done) < long {
            return;
        }
        if bar.as_ref().is_none_or(|(shown, _)| *shown != template) {
            if let Some((_, done_with)) = bar.take() {
                done_with.finish_and_clear();
            }
            let new = match total {
                0 => indicatif::ProgressBar::no_length(),
                _ => indicatif::ProgressBar::new(total),
            };
            if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                new.set_style(style);
            }
            bar = Some((template, new));
        }
        if let Some((_, bar)) = &bar {
            if total > 0 {
                bar.set_length(total);
            }
            bar.set_position(done);
        }
    };
    let result = export::export_with_progress(client, options, &mut progress).await;
    if let Some((_, bar)) = bar {
        bar.finish_and_clear();
    }
    let report = result.map_err(|e| match e {
        // Every answer is read before the first file is written.
        export::ExportError::Client(e) => format!("{}; nothing was written", explain(e)),
        e => e.to_string(),
    })?;
    // Keeps only the answers this export used.
    if let Err(e) = client.save_etag_cache() {
        eprintln!("warning: {e}");
    }
    if let Some(message) = report.hugo.as_ref().and_then(|site| site.message()) {
        eprintln!("{message}");
    }
    if let Some(reason) = &report.full_read {
        eprintln!("note: reading every published post: {reason}");
    }
    let stats = client.cache_stats();
    let since = match (&report.full_read, report.changes) {
        (Some(_), _) => String::new(),
        (None, 1) => " (1 change since the last export)".to_owned(),
        (None, n) => format!(" ({n} changes since the last export)"),
    };
    eprintln!(
        "exported {} blogs to {}{since}: {} written, {} unchanged, {} removed ({} answers not modified, {} downloaded); state in {}",
        report.blogs,
        out.display(),
        report.written.len(),
        report.unchanged.len(),
        report.removed.len(),
        stats.not_modified,
        stats.fetched,
        report.state_dir.display(),
    );
    let media = &report.media;
    if !(media.downloaded.is_empty() && media.kept.is_empty() && media.removed.is_empty()) {
        eprintln!(
            "images in {}: {} downloaded, {} kept, {} removed",
            options.media_root().join("media").display(),
            media.downloaded.len(),
            media.kept.len(),
            media.removed.len(),
        );
    }
    for slug in &report.gone {
        eprintln!("note: `{slug}` was unpublished while exporting; skipped");
    }
    for inexact in &report.inexact {
        eprintln!("warning: {inexact}");
    }
    if report.conflicts.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for rel in &report.conflicts {
        eprintln!(
            "error: {} exists and was not written by blogread; left untouched, that blog was not exported",
            out.join(rel).display()
        );
    }
    Ok(ExitCode::FAILURE)
}

fn print_json<T: serde::Serialize>(value: &T) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    let written = serde_json::to_writer_pretty(&mut stdout, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(stdout));
    match written {
        // `blogread list | head`: the reader has gone, which is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| e.to_string()),
    }
}
