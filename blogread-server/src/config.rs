//! Configuration: the command line (clap; each flag is also a `BLOGREAD_*` environment
//! variable) and opening the store a database URL names.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use blogread_core::domain::OperatorToken;
use clap::{Args, Parser, Subcommand};

/// The blogread reference server and its operator tools.
#[derive(Debug, Parser)]
#[command(name = "blogread-server", version = crate::build_info::VERSION_LINE, about, long_about = None)]
pub struct Cli {
    /// Database: `sqlite://PATH` (created if missing), `postgres://...`, or `memory:` (an
    /// in-memory store, lost at exit).
    #[arg(
        long,
        env = "BLOGREAD_DATABASE_URL",
        default_value = "sqlite://blogread.db",
        global = true
    )]
    pub database_url: String,

    /// Log JSON lines instead of human-readable text (filter with RUST_LOG, default `info`).
    #[arg(long, env = "BLOGREAD_LOG_JSON", global = true)]
    pub log_json: bool,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the API; while serving, publish scheduled posts at their time (and those whose
    /// time passed while no server ran, at once) and fire their deploy hooks.
    Serve(ServeArgs),
    /// Seed a demo project with about 25 posts, print its key, the operator token and curl
    /// commands to paste in order, then serve. On a database that has the demo project, reuse
    /// it: its posts are reset to the demo content and its public key kept.
    Demo(ServeArgs),
    /// Apply the database migrations and exit.
    Migrate,
    /// Write an online, consistent copy of the SQLite database to a new file while servers
    /// keep running (`VACUUM INTO`), checked with `PRAGMA integrity_check`. For PostgreSQL,
    /// use `pg_dump`.
    Backup(BackupArgs),
    /// Project administration.
    #[command(subcommand)]
    Project(ProjectCommand),
    /// Public key administration (Generate, Reveal, Rotate, Revoke).
    #[command(subcommand)]
    Key(KeyCommand),
    /// Project admin tokens.
    #[command(subcommand, name = "admin-token")]
    AdminToken(AdminTokenCommand),
}

/// Options of `serve` and `demo`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "BLOGREAD_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// A file holding the operator token (at least 32 characters; surrounding whitespace is
    /// ignored): every management operation, including creating projects. Or set
    /// BLOGREAD_ADMIN_TOKEN. Without either there is no operator over HTTP (`demo` generates
    /// one).
    #[arg(long, env = "BLOGREAD_ADMIN_TOKEN_FILE", value_name = "PATH")]
    pub admin_token_file: Option<PathBuf>,

    /// Refused: a token on the command line shows in `ps` to every user of the machine.
    #[arg(long = "admin-token", hide = true, value_name = "TOKEN")]
    pub admin_token_flag: Option<String>,

    /// Also serve `GET /metrics` (Prometheus text) on this address, without the operator
    /// token, and nothing else there: a loopback or private address only your Prometheus
    /// reaches. Without it, `/metrics` on the main address needs the operator token.
    #[arg(long, env = "BLOGREAD_METRICS_LISTEN", value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,

    /// MiB of serialised public responses kept in memory, keyed by ETag (exact: see
    /// `blogread_core::response_cache`); 0 turns the cache off.
    #[arg(long, env = "BLOGREAD_RESPONSE_CACHE_MIB", default_value_t = 64)]
    pub response_cache_mib: u64,

    /// MiB of serialised posts kept in memory behind the response cache, each under its
    /// change number, so that the first reads after a publish rebuild only the posts it
    /// changed (exact: see `blogread_core::fragment_cache`); 0 turns the cache off. Size it
    /// to hold a site build's posts: see docs/operations.md#fragment-cache.
    #[arg(long, env = "BLOGREAD_FRAGMENT_CACHE_MIB", default_value_t = 32)]
    pub fragment_cache_mib: u64,

    /// Days the changes feed keeps the slugs it deleted (unpublished, deleted and renamed
    /// posts): a site whose saved cursor is older syncs from the start (the feed answers
    /// 410). Forgotten hourly by the scheduler.
    #[arg(long, env = "BLOGREAD_CHANGE_RETENTION_DAYS", value_name = "DAYS", default_value_t = 90, value_parser = clap::value_parser!(u32).range(1..=36500))]
    pub change_retention_days: u32,

    /// Seconds a request head may take to arrive, from its first byte; a slower client is
    /// disconnected.
    #[arg(long, env = "BLOGREAD_HEADER_TIMEOUT", value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    pub header_timeout: Duration,

    /// Seconds the server waits for more of a request body before answering 408 and closing
    /// the connection; also the start of every body's allowance of waiting time (see
    /// --min-body-rate).
    #[arg(long, env = "BLOGREAD_BODY_TIMEOUT", value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    pub body_timeout: Duration,

    /// Bytes a second a request body must average: each this many bytes received add a
    /// second to the --body-timeout the body may spend arriving; a slower one is answered
    /// 408. 0 checks only the pauses.
    #[arg(long, env = "BLOGREAD_MIN_BODY_RATE", value_name = "BYTES", default_value_t = crate::body_pace::MIN_BODY_RATE)]
    pub min_body_rate: u32,

    /// Seconds a connection may stay open with no request in progress and no traffic.
    #[arg(long, env = "BLOGREAD_IDLE_TIMEOUT", value_name = "SECONDS", default_value = "60", value_parser = parse_seconds)]
    pub idle_timeout: Duration,

    /// The URL users open the server at, when a proxy in front of it terminates TLS (e.g.
    /// `https://blog.example.com`): with https the admin pages' session cookie is always
    /// `Secure`, and their forms are accepted from this origin.
    #[arg(long, env = "BLOGREAD_PUBLIC_URL", value_name = "URL", value_parser = parse_public_url)]
    pub public_url: Option<url::Url>,

    /// The folder that holds the project's images (created if missing). Default: a folder
    /// `media` beside the SQLite database file, or `./media` for other databases. Keep it
    /// out of any folder another web server serves: images are served by blogread, with the
    /// headers of docs/media.md.
    #[arg(
        long,
        env = "BLOGREAD_MEDIA_DIR",
        value_name = "PATH",
        conflicts_with = "media_url"
    )]
    pub media_dir: Option<PathBuf>,

    /// Keep the images in S3-compatible object storage instead of a folder, for several
    /// servers on one PostgreSQL: `s3://BUCKET` or `s3://BUCKET/PREFIX`. The endpoint, region
    /// and credentials come from the usual variables (AWS_ENDPOINT_URL, AWS_REGION,
    /// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY; AWS_ALLOW_HTTP=true for a plain-http
    /// endpoint). See docs/media.md#storage.
    #[arg(long, env = "BLOGREAD_MEDIA_URL", value_name = "URL")]
    pub media_url: Option<String>,

    /// Image uploads in progress at once (default: two per core), at most half of them
    /// (rounded up) for one project; past it an upload is answered 503 with Retry-After. Each
    /// holds at most 20 MiB of body.
    #[arg(long, env = "BLOGREAD_MAX_UPLOADS", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub max_uploads: Option<u32>,

    /// Connections served at once; past it, new connections wait in the kernel's backlog.
    #[arg(long, env = "BLOGREAD_MAX_CONNECTIONS", default_value_t = crate::serve::MAX_CONNECTIONS as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
}

/// How long one upload's processing may take before it is refused (422).
pub const MEDIA_JOB_LIMIT: Duration = Duration::from_secs(30);

/// The default media folder: `media` beside the SQLite database file of `database_url`, or
/// `./media` for any other database (PostgreSQL, in memory).
pub fn default_media_dir(database_url: &str) -> PathBuf {
    let file = database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"))
        .map(|rest| rest.split('?').next().unwrap_or(rest))
        .filter(|path| !path.is_empty() && !path.contains(":memory:"));
    match file.and_then(|f| std::path::Path::new(f).parent()) {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join("media"),
        Some(_) => PathBuf::from("media"),
        None => PathBuf::from("media"),
    }
}

/// Parses the public URL: http or https, with a host.
fn parse_public_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text.trim())
        .map_err(|e| format!("`{text}` is not a URL ({e}); give e.g. https://blog.example.com"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "`{text}`: give an http or https URL with a host, e.g. https://blog.example.com"
        ));
    }
    Ok(url)
}

/// Parses a positive number of seconds (`10`, `0.5`).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds (e.g. 10 or 0.5)"))?;
    if !(seconds > 0.0 && seconds <= 86_400.0) {
        return Err(format!(
            "`{text}`: give a number of seconds above 0 and at most 86400"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

impl ServeArgs {
    /// The response cache these arguments ask for.
    pub fn response_cache(&self) -> blogread_core::response_cache::ResponseCache {
        blogread_core::response_cache::ResponseCache::new(
            self.response_cache_mib.saturating_mul(1024 * 1024),
        )
    }

    /// The per-post fragment cache these arguments ask for.
    pub fn fragment_cache(&self) -> blogread_core::fragment_cache::FragmentCache {
        blogread_core::fragment_cache::FragmentCache::new(
            self.fragment_cache_mib.saturating_mul(1024 * 1024),
        )
    }

    /// How long the changes feed keeps deletions.
    pub fn change_retention(&self) -> Duration {
        Duration::from_secs(u64::from(self.change_retention_days) * 86_400)
    }

    /// The admin pages' options these arguments ask for.
    pub fn admin_options(&self) -> crate::admin::AdminOptions {
        crate::admin::AdminOptions {
            public_url: self.public_url.clone(),
        }
    }

    /// The connection limits these arguments ask for.
    pub fn limits(&self) -> crate::Limits {
        crate::Limits {
            header_timeout: self.header_timeout,
            idle_timeout: self.idle_timeout,
            body_pace: crate::body_pace::BodyPace {
                timeout: self.body_timeout,
                min_rate: self.min_body_rate,
            },
            max_connections: self.max_connections as usize,
            max_uploads: self
                .max_uploads
                .map_or_else(crate::serve::default_max_uploads, |n| n as usize),
            ..crate::Limits::default()
        }
    }

    /// Where images are kept and how they are made: the bucket of `--media-url`, or the
    /// folder of `--media-dir` (by default beside the SQLite file of `database_url`, else
    /// `./media`); a pool of one upload per core; URLs under `--public-url` (by default
    /// `http://{listening}`).
    pub fn media_setup(
        &self,
        database_url: &str,
        listening: std::net::SocketAddr,
    ) -> Result<blogread_core::service::MediaSetup, String> {
        let files: std::sync::Arc<dyn blogread_core::media::MediaFiles> = match &self.media_url {
            Some(url) => std::sync::Arc::new(
                blogread_core::media::ObjectStorage::from_url(url)
                    .map_err(|e| format!("--media-url: {e}"))?,
            ),
            None => {
                let dir = self
                    .media_dir
                    .clone()
                    .unwrap_or_else(|| default_media_dir(database_url));
                std::sync::Arc::new(blogread_core::media::LocalFolder::open(&dir).map_err(|e| {
                    format!(
                        "cannot open the media folder {} (--media-dir): {}",
                        dir.display(),
                        blogread_core::error::error_chain(&e)
                    )
                })?)
            }
        };
        let public_url = match &self.public_url {
            Some(url) => url.as_str().to_owned(),
            None => format!("http://{listening}"),
        };
        Ok(blogread_core::service::MediaSetup::new(
            files,
            blogread_core::media::ImagePool::per_core(MEDIA_JOB_LIMIT),
            &public_url,
        ))
    }

    /// The operator token's text, from `BLOGREAD_ADMIN_TOKEN` (`env_token`) or the file of
    /// `--admin-token-file`, if one is configured; an error when both are, when the file cannot
    /// be read, or when the refused `--admin-token` flag was given.
    pub fn operator_token_text(&self, env_token: Option<String>) -> Result<Option<String>, String> {
        if self.admin_token_flag.is_some() {
            return Err("--admin-token is not accepted: a token on the command line shows in `ps` to every user of the machine; set BLOGREAD_ADMIN_TOKEN or use --admin-token-file PATH".to_owned());
        }
        let env_token = env_token.filter(|t| !t.is_empty());
        match (env_token, &self.admin_token_file) {
            (Some(_), Some(_)) => {
                Err("both BLOGREAD_ADMIN_TOKEN and --admin-token-file are set: keep one".to_owned())
            }
            (Some(token), None) => Ok(Some(token)),
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    format!(
                        "cannot read the operator token file {}: {e}",
                        path.display()
                    )
                })?;
                Ok(Some(text.trim().to_owned()))
            }
            (None, None) => Ok(None),
        }
    }

    /// The operator token, if one is configured (see [`ServeArgs::operator_token_text`]);
    /// an error when it is too short.
    pub fn operator_token(
        &self,
        env_token: Option<String>,
    ) -> Result<Option<OperatorToken>, String> {
        self.operator_token_text(env_token)?
            .map(|t| {
                OperatorToken::new(t).map_err(|e| {
                    format!("the operator token is not usable: {e}; refusing to start")
                })
            })
            .transpose()
    }
}

/// Options of `backup`.
#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The new file to write; an existing file is never overwritten.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `project ...`
#[derive(Debug, Subcommand)]
pub enum ProjectCommand {
    /// Create a project and print it as JSON.
    Create {
        /// Its name.
        #[arg(long)]
        name: String,
        /// The connected website (absolute http(s) URL), for internal links.
        #[arg(long)]
        site_url: Option<String>,
    },
}

/// `key ...`: the project's public key.
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Generate the public key (fails if the project has one).
    Generate(ProjectArg),
    /// Print the public key.
    Reveal(ProjectArg),
    /// Replace the public key; the old one stops working at once.
    Rotate(ProjectArg),
    /// Remove the public key; public access stops until one is generated.
    Revoke(ProjectArg),
}

/// `admin-token ...`
#[derive(Debug, Subcommand)]
pub enum AdminTokenCommand {
    /// Issue a project admin token (printed once).
    Create(ProjectArg),
}

/// A project id.
#[derive(Debug, Clone, Args)]
pub struct ProjectArg {
    /// Project id (a UUID).
    #[arg(long)]
    pub project: String,
}

/// What to tell the operator when the store of `url` cannot be opened: the URL without its
/// password and why.
pub fn open_failed(url: &str, err: blogread_core::Error) -> String {
    match err {
        blogread_core::Error::Config(message) => message,
        blogread_core::Error::Storage(cause) => {
            format!("cannot open the database {}: {cause}", redact_url(url))
        }
        other => format!("cannot open the database {}: {other}", redact_url(url)),
    }
}

pub use blogread_core::store::redact_database_url as redact_url;

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_args(args: &[&str]) -> ServeArgs {
        let mut argv = vec!["blogread-server", "serve"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv).expect("arguments parse").command {
            Command::Serve(args) => args,
            other => panic!("not serve: {other:?}"),
        }
    }

    #[test]
    fn short_operator_token_is_refused() {
        let err = serve_args(&[])
            .operator_token(Some("too-short".into()))
            .unwrap_err();
        assert!(err.contains("refusing to start"), "{err}");
    }

    #[test]
    fn the_operator_token_is_never_taken_from_a_flag() {
        let args = serve_args(&["--admin-token", "0123456789abcdef0123456789abcdef"]);
        let err = args.operator_token(None).unwrap_err();
        assert!(err.contains("BLOGREAD_ADMIN_TOKEN"), "{err}");
        assert!(err.contains("--admin-token-file"), "{err}");
    }

    #[test]
    fn the_operator_token_is_read_from_a_file_without_its_newline() {
        let dir = std::env::temp_dir().join(format!("blogread-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, "0123456789abcdef0123456789abcdef\n").unwrap();
        let args = serve_args(&["--admin-token-file", file.to_str().unwrap()]);
        assert_eq!(
            args.operator_token_text(None).unwrap().as_deref(),
            Some("0123456789abcdef0123456789abcdef")
        );
        assert!(
            args.operator_token_text(Some("x".into())).is_err(),
            "not both"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let missing = serve_args(&["--admin-token-file", "/nonexistent/blogread-token"]);
        let err = missing.operator_token_text(None).unwrap_err();
        assert!(err.contains("/nonexistent/blogread-token"), "{err}");
    }

    #[test]
    fn limits_default_to_the_documented_values_and_follow_the_flags() {
        assert_eq!(serve_args(&[]).limits(), crate::Limits::default());
        let limits = serve_args(&[
            "--header-timeout",
            "2.5",
            "--idle-timeout",
            "30",
            "--max-connections",
            "7",
            "--body-timeout",
            "5",
            "--min-body-rate",
            "0",
        ])
        .limits();
        assert_eq!(limits.header_timeout, Duration::from_millis(2500));
        assert_eq!(limits.idle_timeout, Duration::from_secs(30));
        assert_eq!(limits.max_connections, 7);
        assert_eq!(
            limits.body_pace,
            crate::body_pace::BodyPace {
                timeout: Duration::from_secs(5),
                min_rate: 0
            }
        );
        for bad in [
            &["--header-timeout", "0"][..],
            &["--header-timeout", "soon"],
            &["--body-timeout", "0"],
            &["--min-body-rate", "-1"],
            &["--max-connections", "0"],
        ] {
            let mut argv = vec!["blogread-server", "serve"];
            argv.extend_from_slice(bad);
            assert!(Cli::try_parse_from(argv).is_err(), "{bad:?} is refused");
        }
    }

    #[test]
    fn password_is_hidden_in_logged_urls() {
        assert_eq!(
            redact_url("postgres://u:secret@db/blogread?password=secret"),
            "postgres://u:***@db/blogread?password=***"
        );
        assert_eq!(redact_url("sqlite://blogread.db"), "sqlite://blogread.db");
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
