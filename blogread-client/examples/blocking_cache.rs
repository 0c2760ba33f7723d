//! A site build without async, with the ETag cache kept in a file: the whole cycle.
//!
//! 1. Build a blocking client whose ETag cache lives in a file (loaded if it is there).
//! 2. Read every published post with its content and `updated_at` in one call
//!    ([`blocking::Client::published`]), which also says whether anything changed since the
//!    cached run.
//! 3. Write the pages only if something changed (an unchanged rebuild gets only 304 answers,
//!    downloads no bodies and writes nothing).
//! 4. Save the cache, keeping only the answers this build used.
//!
//! ```text
//! export BLOGREAD_API_KEY=pk_live_...
//! export BLOGREAD_BASE_URL=http://127.0.0.1:8080
//! cargo run -p blogread-client --features blocking --example blocking_cache -- site .blogread/cache.json
//! ```
//!
//! Each post goes to `<out>/blog/<slug>/index.html`, where the server points resolved internal
//! links; `<out>/index.html` lists them with their last update.

use std::error::Error;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use blogread_client::blocking;

/// What one build did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// Whether anything changed since the cached run.
    pub changed: bool,
    /// Pages written (0 when nothing changed).
    pub written: usize,
    /// Answers that were 304 Not Modified (no body downloaded).
    pub not_modified: u64,
    /// Answers that carried a body.
    pub downloaded: u64,
}

/// Runs one build of the site in `out` from the server at `base_url`, with the ETag cache in
/// `cache_file`.
pub fn run(
    base_url: &str,
    key: &str,
    out: &Path,
    cache_file: &Path,
) -> Result<Build, Box<dyn Error + Send + Sync>> {
    let client = blocking::Client::builder(base_url, key)
        .etag_cache_file(cache_file)
        // A build that must end: at most two minutes per call, whatever the server does.
        .deadline(Duration::from_secs(120))
        .on_retry(|e| eprintln!("retrying {} in {:?}: {}", e.url, e.delay, e.error))
        .build()?;
    let published = client.published(true)?;

    let mut written = 0;
    // Also builds when the output is missing (a fresh checkout with an old cache file).
    if published.changed || !out.join("index.html").exists() {
        let posts = out.join("blog");
        if posts.exists() {
            std::fs::remove_dir_all(&posts)?;
        }
        let mut index = String::from("<!DOCTYPE html>\n<title>Blog</title>\n<ul>\n");
        for post in &published.blogs {
            let blog = &post.blog;
            let updated = post
                .updated_at
                .map(|t| t.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
            // `slug` always matches the slug grammar (lower-case letters, digits, single
            // hyphens), so it is safe as a path segment as is.
            let dir = posts.join(&blog.slug);
            std::fs::create_dir_all(&dir)?;
            let page = format!(
                "<!DOCTYPE html>\n<title>{title}</title>\n<h1>{title}</h1>\n\
                 <p>Updated <time>{updated}</time></p>\n{content}\n",
                title = escape(&blog.title),
                content = blog.content.as_deref().unwrap_or_default(),
            );
            std::fs::write(dir.join("index.html"), page)?;
            index.push_str(&format!(
                "<li><a href=\"/blog/{}/\">{}</a> <time>{updated}</time></li>\n",
                blog.slug,
                escape(&blog.title)
            ));
            written += 1;
        }
        index.push_str("</ul>\n");
        std::fs::create_dir_all(out)?;
        std::fs::write(out.join("index.html"), index)?;
        written += 1;
    }

    // After a successful build only: keeps what this build used, drops the rest.
    client.save_etag_cache()?;
    let stats = client.cache_stats();
    Ok(Build {
        changed: published.changed,
        written,
        not_modified: stats.not_modified,
        downloaded: stats.fetched,
    })
}

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[allow(dead_code)] // the tests crate includes this file for `run` only
fn main() -> ExitCode {
    let (Ok(base_url), Ok(key)) = (
        std::env::var("BLOGREAD_BASE_URL"),
        std::env::var("BLOGREAD_API_KEY"),
    ) else {
        eprintln!(
            "error: set BLOGREAD_BASE_URL to the server's root and BLOGREAD_API_KEY to the \
             project's public key (pk_live_...)"
        );
        return ExitCode::FAILURE;
    };
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "site".to_owned());
    let cache = args
        .next()
        .unwrap_or_else(|| ".blogread/blocking-cache.json".to_owned());
    if let Some(parent) = Path::new(&cache).parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        eprintln!("error: {}: {e}", parent.display());
        return ExitCode::FAILURE;
    }
    match run(&base_url, &key, Path::new(&out), Path::new(&cache)) {
        Ok(build) if build.written > 0 => {
            println!(
                "wrote {} pages to {out} ({} answers downloaded)",
                build.written, build.downloaded
            );
            ExitCode::SUCCESS
        }
        Ok(build) => {
            println!(
                "nothing changed ({} answers not modified); {out} left as it was",
                build.not_modified
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
