//! Configuration: the command line (clap; each flag is also a `BLOGREAD_*` environment
//! variable) and opening the store a database URL names.

use std::net::SocketAddr;
use std::sync::Arc;

use blogread_core::domain::OperatorToken;
use blogread_core::store::{MemoryStore, Store};
use clap::{Args, Parser, Subcommand};

/// The blogread reference server and its operator tools.
#[derive(Debug, Parser)]
#[command(name = "blogread-server", version, about, long_about = None)]
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
    /// Serve the API.
    Serve(ServeArgs),
    /// Seed a demo project with about 25 posts, print its key, the operator token and curl
    /// commands, then serve.
    Demo(ServeArgs),
    /// Apply the database migrations and exit.
    Migrate,
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

    /// The operator token (at least 32 characters): every management operation, including
    /// creating projects. Prefer the environment variable to the flag. Without it there is no
    /// operator over HTTP (`demo` generates one).
    #[arg(long, env = "BLOGREAD_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
}

impl ServeArgs {
    /// The operator token, if one is configured; an error when it is too short.
    pub fn operator_token(&self) -> Result<Option<OperatorToken>, String> {
        self.admin_token
            .as_deref()
            .map(|t| {
                OperatorToken::new(t).map_err(|e| {
                    format!("BLOGREAD_ADMIN_TOKEN is not usable: {e}; refusing to start")
                })
            })
            .transpose()
    }
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

/// Opens the store `url` names, creating the SQLite file if missing and running the schema
/// migrations: `sqlite://PATH`, `postgres://...`, or `memory:` (an in-memory store, lost at
/// exit, for trying things out).
pub async fn open_store(url: &str) -> Result<Arc<dyn Store>, String> {
    if url == "memory:" {
        return Ok(Arc::new(MemoryStore::new()));
    }
    blogread_core::store::open_store(url)
        .await
        .map_err(|e| match e {
            blogread_core::Error::Storage(cause) => {
                format!("cannot open the database {}: {cause}", redact_url(url))
            }
            other => other.to_string(),
        })
}

/// A database URL without its password, for logs.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_operator_token_is_refused() {
        let args = ServeArgs {
            listen: "127.0.0.1:0".parse().unwrap(),
            admin_token: Some("too-short".into()),
        };
        let err = args.operator_token().unwrap_err();
        assert!(err.contains("refusing to start"), "{err}");
    }

    #[test]
    fn password_is_hidden_in_logged_urls() {
        assert_eq!(
            redact_url("postgres://u:secret@db/blogread"),
            "postgres://u:***@db/blogread"
        );
        assert_eq!(redact_url("sqlite://blogread.db"), "sqlite://blogread.db");
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
