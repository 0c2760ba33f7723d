//! The `blogread-server` command: `serve`, `demo`, `migrate` and operator tools.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{OperatorToken, ProjectId};
use blogread_server::config::{
    AdminTokenCommand, BackupArgs, Cli, Command, KeyCommand, ProjectArg, ProjectCommand, ServeArgs,
    open_failed, redact_url,
};
use blogread_server::{demo, telemetry};
use clap::Parser;
use serde::Serialize;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let log = telemetry::init(cli.log_json);
    let code = match dispatch(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Every line logged before it, first.
            drop(log);
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    // Writes out every buffered line before the process ends.
    drop(log);
    code
}

async fn dispatch(cli: Cli) -> Result<(), String> {
    match cli.command {
        // Not through a store: a backup opens no pools and runs no migrations.
        Command::Backup(args) => backup(&cli.database_url, &args).await,
        // Everything that can refuse a start (the operator token, the addresses) is checked
        // before the database is opened: a refused start creates no file.
        Command::Serve(args) => {
            let operator = args.operator_token(admin_token_env())?;
            let listeners = Listeners::bind(&args).await?;
            let service = open(&cli.database_url).await?;
            serve(service, operator, listeners, &args, &cli.database_url).await
        }
        Command::Demo(args) => {
            let (token, source) = match args.operator_token_text(admin_token_env())? {
                Some(t) => (t, demo::OperatorTokenSource::Configured),
                None => (generate_token(), demo::OperatorTokenSource::Generated),
            };
            let operator = OperatorToken::new(token.clone())
                .map_err(|e| format!("the operator token is not usable: {e}; refusing to start"))?;
            let listeners = Listeners::bind(&args).await?;
            let service = open(&cli.database_url).await?;
            let demo = DemoRun {
                operator,
                token,
                source,
            };
            run_demo(service, demo, listeners, &args, &cli.database_url).await
        }
        Command::Migrate => {
            // Opening the store ran any pending migrations, in a transaction each.
            let service = open(&cli.database_url).await?;
            service.health().await.map_err(|e| e.to_string())?;
            println!(
                "database {} is migrated and up to date",
                redact_url(&cli.database_url)
            );
            Ok(())
        }
        Command::Project(ProjectCommand::Create { name, site_url }) => {
            let service = open(&cli.database_url).await?;
            print_json(
                service
                    .create_project(&Caller::operator(), name, site_url)
                    .await
                    .map_err(|e| e.to_string())?,
            )
        }
        Command::Key(cmd) => key(&open(&cli.database_url).await?, cmd).await,
        Command::AdminToken(AdminTokenCommand::Create(p)) => {
            let service = open(&cli.database_url).await?;
            print_json(
                service
                    .create_admin_token(&Caller::operator(), project_id(&p)?)
                    .await
                    .map_err(|e| e.to_string())?,
            )
        }
    }
}

/// Opens (creating if missing, and migrating) the store the database URL names.
async fn open(database_url: &str) -> Result<Service, String> {
    let store = blogread_core::store::open_store(database_url)
        .await
        .map_err(|e| open_failed(database_url, e))?;
    Ok(Service::new(store))
}

/// The addresses `serve` and `demo` listen on, bound before the database is opened.
struct Listeners {
    api: tokio::net::TcpListener,
    metrics: Option<tokio::net::TcpListener>,
}

impl Listeners {
    async fn bind(args: &ServeArgs) -> Result<Self, String> {
        let api = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let metrics = match args.metrics_listen {
            Some(addr) => Some(
                tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|e| format!("cannot listen on {addr} (--metrics-listen): {e}"))?,
            ),
            None => None,
        };
        Ok(Self { api, metrics })
    }
}

async fn backup(database_url: &str, args: &BackupArgs) -> Result<(), String> {
    let report = blogread_core::store::backup_database(database_url, &args.out)
        .await
        .map_err(|e| match e {
            blogread_core::Error::Storage(_) => format!(
                "the backup of {} failed: {}",
                redact_url(database_url),
                blogread_core::error::error_chain(&e)
            ),
            other => other.to_string(),
        })?;
    println!(
        "backed up {} to {} ({} bytes, {} projects, {} blogs); PRAGMA integrity_check: ok",
        redact_url(database_url),
        report.path.display(),
        report.bytes,
        report.projects,
        report.blogs
    );
    Ok(())
}

async fn key(service: &Service, cmd: KeyCommand) -> Result<(), String> {
    // The CLI runs on the server's own machine with the database's credentials: the operator.
    let me = &Caller::operator();
    let shown = match cmd {
        KeyCommand::Generate(p) => service.generate_public_key(me, project_id(&p)?).await,
        KeyCommand::Reveal(p) => service.reveal_public_key(me, project_id(&p)?).await,
        KeyCommand::Rotate(p) => service.rotate_public_key(me, project_id(&p)?).await,
        KeyCommand::Revoke(p) => {
            service
                .revoke_public_key(me, project_id(&p)?)
                .await
                .map_err(|e| e.to_string())?;
            println!("public key revoked");
            return Ok(());
        }
    };
    print_json(shown.map_err(|e| e.to_string())?)
}

fn project_id(p: &ProjectArg) -> Result<ProjectId, String> {
    p.project.parse().map_err(|e| format!("--project: {e}"))
}

fn print_json(value: impl Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}

async fn serve(
    service: Service,
    operator: Option<OperatorToken>,
    listeners: Listeners,
    args: &ServeArgs,
    database_url: &str,
) -> Result<(), String> {
    let service = service
        .with_response_cache(args.response_cache())
        .with_fragment_cache(args.fragment_cache())
        .with_change_retention(args.change_retention());
    let service = match operator {
        Some(token) => service.with_operator_token(token),
        None => {
            tracing::info!(
                "no operator token (BLOGREAD_ADMIN_TOKEN or --admin-token-file): operator-only endpoints answer 401; use the CLI"
            );
            service
        }
    };
    let addr = listeners.api.local_addr().map_err(|e| e.to_string())?;
    let service = service.with_media(args.media_setup(database_url, addr)?);
    tracing::info!(database_url = %redact_url(database_url), "listening on http://{addr}");
    run_until_signal(listeners, service, args).await
}

/// `BLOGREAD_ADMIN_TOKEN`, read here rather than by clap so that no flag can carry it.
fn admin_token_env() -> Option<String> {
    std::env::var("BLOGREAD_ADMIN_TOKEN").ok()
}

/// The operator token of a `demo` run and where it came from.
struct DemoRun {
    operator: OperatorToken,
    token: String,
    source: demo::OperatorTokenSource,
}

async fn run_demo(
    service: Service,
    run: DemoRun,
    listeners: Listeners,
    args: &ServeArgs,
    database_url: &str,
) -> Result<(), String> {
    let service = service
        .with_operator_token(run.operator)
        .with_response_cache(args.response_cache())
        .with_fragment_cache(args.fragment_cache())
        .with_change_retention(args.change_retention());
    let addr = listeners.api.local_addr().map_err(|e| e.to_string())?;
    let service = service.with_media(args.media_setup(database_url, addr)?);
    let seeded = demo::seed_or_reset(&service)
        .await
        .map_err(|e| format!("seeding the demo project failed: {e}"))?;
    println!(
        "{}",
        demo::instructions(&format!("http://{addr}"), &seeded, &run.token, run.source)
    );
    tracing::info!(database_url = %redact_url(database_url), "listening on http://{addr}");
    run_until_signal(listeners, service, args).await
}

fn generate_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("demo_operator_{hex}")
}

/// Serves until Ctrl-C or SIGTERM, with `/metrics` alone on `--metrics-listen` if given.
async fn run_until_signal(
    listeners: Listeners,
    service: Service,
    args: &ServeArgs,
) -> Result<(), String> {
    let Listeners {
        api: listener,
        metrics,
    } = listeners;
    let limits = args.limits();
    blogread_server::open_files::ensure_for(limits.max_connections);
    let server = blogread_server::Server::new(service)
        .limits(limits)
        .admin(args.admin_options());
    let metrics = match metrics {
        Some(listener) => {
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            tracing::info!(
                "metrics on http://{addr}/metrics, without a token: keep this address private"
            );
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let metrics_server = server.clone();
            let served = tokio::spawn(async move {
                metrics_server
                    .serve_metrics(listener, async {
                        let _ = stopped.await;
                    })
                    .await
            });
            Some((stop, served))
        }
        None => None,
    };
    let result = server
        .serve(listener, shutdown_signal())
        .await
        .map_err(|e| format!("server failed: {e}"));
    if let Some((stop, served)) = metrics {
        let _ = stop.send(());
        let _ = served.await;
    }
    result?;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutdown signal received: finishing in-flight requests");
}
