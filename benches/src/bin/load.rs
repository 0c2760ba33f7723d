//! The load benchmark: seeds a database, starts the real blogread server and a floor server
//! (the same response bytes from memory, on poem) as child processes on loopback, drives each
//! public endpoint of both with the same keep-alive client for a fixed time, and prints
//! requests per second, p50/p99 latency, the server's peak memory and CPU per request, and the
//! ratio blogread / floor. Run it with `benches/run-load` (see `benches/README.md`).

#[path = "load/report.rs"]
mod report;
#[path = "load/seed.rs"]
mod seed;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use blogread_benches::client::{self, Load, Stats, Target};
use blogread_benches::data::{self, Seeded, Spec};
use blogread_benches::floor::{Floor, FloorRoute};
use blogread_benches::procfs;
use blogread_core::Service;
use blogread_core::fragment_cache::FragmentCache;
use blogread_core::response_cache::ResponseCache;
use blogread_core::store::Store;
use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(about = "Load benchmark: blogread's public endpoints against a floor server")]
struct Cli {
    #[command(subcommand)]
    child: Option<ChildMode>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// A small data set and short runs, for trying things out.
    #[arg(long)]
    quick: bool,
    /// The databases to run on, one full comparison each: `sqlite://PATH`, `postgres://...`
    /// or `memory:` (seeded inside the server process). Default: a SQLite file in the work
    /// directory (seeded once, reused while the data set is the same), then PostgreSQL when
    /// `BLOGREAD_TEST_POSTGRES_URL` is set (a PostgreSQL database records what it was seeded
    /// with and is reused while the data set is the same; give a fresh one otherwise, e.g.
    /// under `scripts/with-postgres`).
    #[arg(long = "database-url")]
    database_urls: Vec<String>,
    /// Projects to seed (default 10; 2 with --quick).
    #[arg(long)]
    projects: Option<usize>,
    /// Published blogs per project (default 10000; 5000 with --quick, so the sitemap is full).
    #[arg(long)]
    blogs_per_project: Option<usize>,
    /// Internal-link placeholders per post.
    #[arg(long, default_value_t = 5)]
    links_per_post: usize,
    /// Measured seconds per endpoint and server (default 5; 2 with --quick).
    #[arg(long)]
    duration: Option<f64>,
    /// Unmeasured seconds before each measurement.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Rounds: each runs every endpoint on blogread and on the floor (order alternating).
    #[arg(long, default_value_t = 1)]
    rounds: usize,
    /// Concurrent keep-alive connections of the client.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Threads of the client's runtime.
    #[arg(long, default_value_t = 2)]
    client_threads: usize,
    /// The server's response cache in MiB (0 turns it off).
    #[arg(long, default_value_t = 64)]
    response_cache_mib: u64,
    /// The servers' per-post fragment cache in MiB (0 turns it off), as
    /// `--fragment-cache-mib` of `blogread-server serve`.
    #[arg(long, default_value_t = 32)]
    fragment_cache_mib: u64,
    /// Also measure every endpoint on a second blogread server with the response cache off
    /// (the first read after a publish, which bumps the content version and so misses the
    /// cache on every page; its fragment cache, filled by the warm-up, stands for the posts
    /// the publish did not change), and report its ratios to the floor beside the warm ones.
    #[arg(long)]
    cold: bool,
    /// Measure only the endpoints whose name contains this text (e.g. `304`, `single`).
    #[arg(long)]
    only: Option<String>,
    /// With `--only`, also read the whole first project through the client (always done
    /// without `--only`).
    #[arg(long)]
    whole_project: bool,
    /// Write the results table (markdown) here too.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The commit measured, for the results (the run script passes `git describe`).
    #[arg(long, env = "BLOGREAD_BENCH_COMMIT", default_value = "unknown")]
    commit: String,
    /// Where the blogread server's log goes (default: discarded, as a pipe would take it).
    #[arg(long)]
    server_log: Option<PathBuf>,
    /// Scratch directory (captured responses).
    #[arg(long, default_value = "target/blogread-bench")]
    work_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
enum ChildMode {
    /// (internal) Serve blogread on 127.0.0.1:0 and print a ready line.
    #[command(hide = true)]
    ServeBlogread {
        #[arg(long)]
        database_url: String,
        /// The data set to seed (JSON of `Spec`) when the database is `memory:`.
        #[arg(long)]
        spec: String,
        #[arg(long)]
        response_cache_mib: u64,
        #[arg(long)]
        fragment_cache_mib: u64,
    },
    /// (internal) Serve the floor routes of a JSON file on 127.0.0.1:0.
    #[command(hide = true)]
    ServeFloor {
        #[arg(long)]
        routes: PathBuf,
    },
}

/// What a child server prints on its first stdout line when it listens.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Ready {
    addr: SocketAddr,
    seeded: Option<Seeded>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.child {
        Some(ChildMode::ServeBlogread {
            database_url,
            spec,
            response_cache_mib,
            fragment_cache_mib,
        }) => server_runtime().block_on(serve_blogread(
            &database_url,
            &spec,
            response_cache_mib,
            fragment_cache_mib,
        )),
        Some(ChildMode::ServeFloor { routes }) => server_runtime().block_on(serve_floor(&routes)),
        None => orchestrate(cli.run),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The runtime `#[tokio::main]` gives the real server: multi-threaded, one worker per core.
fn server_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn announce(ready: &Ready) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    let line = serde_json::to_string(ready).map_err(|e| e.to_string())?;
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|e| e.to_string())
}

async fn serve_blogread(
    database_url: &str,
    spec: &str,
    cache_mib: u64,
    fragment_mib: u64,
) -> Result<(), String> {
    // As `blogread-server serve` does: the default `info` filter, one line per request.
    let _log = blogread_server::telemetry::init(false);
    let spec: Spec = serde_json::from_str(spec).map_err(|e| e.to_string())?;
    let memory = database_url == "memory:";
    // As `blogread-server serve` opens it (migrations included).
    let store: Arc<dyn Store> = blogread_core::store::open_store(database_url)
        .await
        .map_err(|e| blogread_server::config::open_failed(database_url, e))?;
    let service = Service::new(store)
        .with_response_cache(ResponseCache::new(cache_mib.saturating_mul(1024 * 1024)))
        .with_fragment_cache(FragmentCache::new(fragment_mib.saturating_mul(1024 * 1024)));
    let seeded = if memory {
        Some(
            data::seed(&service, spec, |_| {})
                .await
                .map_err(|e| format!("seeding: {e}"))?,
        )
    } else {
        None
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    announce(&Ready { addr, seeded })?;
    blogread_server::Server::new(service)
        .serve(listener, std::future::pending())
        .await
        .map_err(|e| e.to_string())
}

async fn serve_floor(routes: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(routes).map_err(|e| format!("{}: {e}", routes.display()))?;
    let routes: Vec<FloorRoute> = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let floor = Floor::new(routes)?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    announce(&Ready { addr, seeded: None })?;
    let acceptor = poem::listener::TcpAcceptor::from_tokio(listener).map_err(|e| e.to_string())?;
    poem::Server::new_with_acceptor(acceptor)
        .run(floor)
        .await
        .map_err(|e| e.to_string())
}

/// A child server, killed when dropped.
struct Server {
    child: Child,
    ready: Ready,
}

impl Server {
    fn start(args: &[String], log: Option<&Path>) -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let stderr = match log {
            Some(path) => Stdio::from(
                std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
            ),
            None => Stdio::null(),
        };
        let mut child = Command::new(exe)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| e.to_string())?;
        let stdout = child.stdout.take().expect("piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        if line.is_empty() {
            let status = child.wait().map_err(|e| e.to_string())?;
            return Err(format!(
                "server `{}` exited before listening ({status}); rerun with --server-log FILE",
                args[0]
            ));
        }
        let ready: Ready = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        Ok(Self { child, ready })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One endpoint to measure.
struct Endpoint {
    name: &'static str,
    path: String,
    if_none_match: Option<String>,
    target: f64,
    /// The floor row this one is compared with (itself unless stated).
    compare_with: Option<usize>,
}

/// What one server did on one endpoint.
struct Measured {
    stats: Stats,
    peak_rss_mib: Option<f64>,
    cpu_us_per_request: Option<f64>,
    /// The CPU of the local PostgreSQL server's processes per request (blogread on
    /// PostgreSQL only).
    db_cpu_us_per_request: Option<f64>,
}

fn orchestrate(args: RunArgs) -> Result<(), String> {
    let spec = Spec {
        projects: args.projects.unwrap_or(if args.quick { 2 } else { 10 }),
        blogs_per_project: args
            .blogs_per_project
            .unwrap_or(if args.quick { 5000 } else { 10_000 }),
        links_per_post: args.links_per_post,
    };
    std::fs::create_dir_all(&args.work_dir).map_err(|e| e.to_string())?;
    let mut urls = args.database_urls.clone();
    if urls.is_empty() {
        let file = args.work_dir.join(format!(
            "load-{}x{}x{}.db",
            spec.projects, spec.blogs_per_project, spec.links_per_post
        ));
        urls.push(format!("sqlite://{}", file.display()));
        if let Ok(pg) = std::env::var("BLOGREAD_TEST_POSTGRES_URL")
            && !pg.trim().is_empty()
        {
            urls.push(pg);
        }
    }
    let mut reports = Vec::new();
    for url in &urls {
        reports.push(run_backend(&args, spec, url)?);
    }
    let report = reports.join("\n");
    if let Some(out) = &args.out {
        std::fs::write(out, &report).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!("results written to {}", out.display());
    }
    Ok(())
}

/// A URL without its password, for output.
fn shown_url(url: &str) -> String {
    match url.split_once('@') {
        Some((before, after)) if before.contains("://") => {
            let (scheme, creds) = before.split_once("://").unwrap_or((before, ""));
            let user = creds.split(':').next().unwrap_or("");
            format!("{scheme}://{user}@{after}")
        }
        _ => url.to_owned(),
    }
}

fn run_backend(args: &RunArgs, spec: Spec, url: &str) -> Result<String, String> {
    let duration = args.duration.unwrap_or(if args.quick { 2.0 } else { 5.0 });
    let load = Load {
        connections: args.connections,
        warmup: Duration::from_secs_f64(args.warmup),
        duration: Duration::from_secs_f64(duration),
    };
    eprintln!(
        "data: {} projects x {} published blogs (~8 KB, {} internal links each) in {} ...",
        spec.projects,
        spec.blogs_per_project,
        spec.links_per_post,
        shown_url(url)
    );
    let started = std::time::Instant::now();
    let parent_seeded = if url == "memory:" {
        None
    } else {
        Some(seed::seed_sql(url, spec)?)
    };
    let blogread = Server::start(
        &[
            "serve-blogread".into(),
            "--database-url".into(),
            url.to_owned(),
            "--spec".into(),
            serde_json::to_string(&spec).map_err(|e| e.to_string())?,
            "--response-cache-mib".into(),
            args.response_cache_mib.to_string(),
            "--fragment-cache-mib".into(),
            args.fragment_cache_mib.to_string(),
        ],
        args.server_log.as_deref(),
    )?;
    // The cold server: the same database, its response cache off (not with `memory:`, whose
    // data lives in the first server's process).
    let cold = if args.cold && url != "memory:" {
        Some(Server::start(
            &[
                "serve-blogread".into(),
                "--database-url".into(),
                url.to_owned(),
                "--spec".into(),
                serde_json::to_string(&spec).map_err(|e| e.to_string())?,
                "--response-cache-mib".into(),
                "0".into(),
                "--fragment-cache-mib".into(),
                args.fragment_cache_mib.to_string(),
            ],
            None,
        )?)
    } else {
        None
    };
    let seeded = blogread
        .ready
        .seeded
        .clone()
        .or(parent_seeded)
        .ok_or("the blogread server did not say what it seeded")?;
    eprintln!(
        "blogread listening on {} after {:.1} s",
        blogread.ready.addr,
        started.elapsed().as_secs_f64()
    );

    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.client_threads)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let auth = format!("Bearer {}", seeded.keys[0]);
    let list50 = "/blog/api/v1/public/blogs?limit=50".to_owned();
    let mut endpoints = vec![
        Endpoint {
            name: "list 50, no content",
            path: list50.clone(),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
        Endpoint {
            name: "list 100 with content",
            path: "/blog/api/v1/public/blogs?limit=100&include_content=true".into(),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
        Endpoint {
            name: "single blog",
            path: format!("/blog/api/v1/public/blogs/{}", seeded.sample_slug),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
        Endpoint {
            name: "sitemap (5000)",
            path: "/blog/api/v1/public/blogs/sitemap".into(),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
    ];
    // Deep pages: the last page of a project, plain, in one category and with content. Each
    // should cost about what the first page costs (compare with the rows above).
    let n = spec.blogs_per_project;
    let in_category = data::in_category(n);
    let last = |total: usize, limit: usize| total.saturating_sub(1) / limit * limit;
    endpoints.extend([
        Endpoint {
            name: "list 50, last page",
            path: format!("/blog/api/v1/public/blogs?limit=50&offset={}", last(n, 50)),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
        Endpoint {
            name: "list 50 in a category, first page",
            path: format!(
                "/blog/api/v1/public/blogs?limit=50&category={}",
                data::CATEGORY
            ),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
        Endpoint {
            name: "list 50 in a category, last page",
            path: format!(
                "/blog/api/v1/public/blogs?limit=50&category={}&offset={}",
                data::CATEGORY,
                last(in_category, 50)
            ),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
        Endpoint {
            name: "list 100 with content, last page",
            path: format!(
                "/blog/api/v1/public/blogs?limit=100&include_content=true&offset={}",
                last(n, 100)
            ),
            if_none_match: None,
            target: 0.5,
            compare_with: None,
        },
    ]);

    // Capture blogread's answers: these are the bytes the floor will send.
    let mut routes = Vec::new();
    let mut captured = Vec::new();
    for e in &endpoints {
        let req = client::get(&e.path, &[("Authorization", &auth)]);
        let c = client_rt
            .block_on(client::fetch(blogread.ready.addr, &req))
            .map_err(|err| format!("{}: {err}", e.name))?;
        if c.status != 200 {
            return Err(format!(
                "{}: blogread answered {}: {}",
                e.name,
                c.status,
                String::from_utf8_lossy(&c.body)
            ));
        }
        let body = String::from_utf8(c.body.clone()).map_err(|err| err.to_string())?;
        if body.contains("[INTERNAL:") {
            return Err(format!("{}: a raw placeholder left blogread", e.name));
        }
        routes.push(FloorRoute {
            path_and_query: e.path.clone(),
            content_type: c.header("content-type").unwrap_or_default().to_owned(),
            etag: c.header("etag").map(str::to_owned),
            body,
        });
        captured.push(c);
    }
    let list_etag = captured[0]
        .header("etag")
        .ok_or("no ETag on the list")?
        .to_owned();
    endpoints.push(Endpoint {
        name: "304 revalidation (list 50)",
        path: list50,
        if_none_match: Some(list_etag),
        target: 0.8,
        compare_with: Some(0),
    });
    let routes_file = args.work_dir.join("floor-routes.json");
    std::fs::write(
        &routes_file,
        serde_json::to_vec(&routes).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let floor = Server::start(
        &[
            "serve-floor".into(),
            "--routes".into(),
            routes_file.display().to_string(),
        ],
        None,
    )?;

    // The floor must send exactly what blogread sent.
    for (e, c) in endpoints.iter().zip(&captured) {
        let req = client::get(&e.path, &[("Authorization", &auth)]);
        let f = client_rt
            .block_on(client::fetch(floor.ready.addr, &req))
            .map_err(|err| format!("floor {}: {err}", e.name))?;
        if f.body != c.body || f.header("etag") != c.header("etag") {
            return Err(format!("floor {}: different bytes from blogread's", e.name));
        }
        if let Some(cold) = &cold {
            let k = client_rt
                .block_on(client::fetch(cold.ready.addr, &req))
                .map_err(|err| format!("cold {}: {err}", e.name))?;
            if k.body != c.body || k.header("etag") != c.header("etag") {
                return Err(format!(
                    "cold {}: different bytes from the cached server's",
                    e.name
                ));
            }
        }
    }

    let targets = |addr: SocketAddr| -> Vec<Target> {
        endpoints
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let mut headers = vec![("Authorization", auth.as_str())];
                if let Some(tag) = &e.if_none_match {
                    headers.push(("If-None-Match", tag.as_str()));
                }
                let (status, body_len) = match e.if_none_match {
                    Some(_) => (304, 0),
                    None => (200, captured[i].body.len()),
                };
                Target {
                    addr,
                    request: client::get(&e.path, &headers),
                    status,
                    body_len,
                }
            })
            .collect()
    };
    let blogread_targets = targets(blogread.ready.addr);
    let floor_targets = targets(floor.ready.addr);
    let cold_targets = cold.as_ref().map(|cold| targets(cold.ready.addr));

    let startup_peak = procfs::peak_rss_mib(blogread.pid());
    let mut results: Vec<[Option<Measured>; 3]> =
        endpoints.iter().map(|_| [None, None, None]).collect();
    let selected = |e: &Endpoint| {
        args.only
            .as_deref()
            .is_none_or(|only| e.name.contains(only))
    };
    for round in 0..args.rounds {
        for (i, e) in endpoints.iter().enumerate() {
            // blogread is measured on the selected endpoints; the floor also on every row a
            // selected endpoint is compared with (the 304 with the list's 200).
            let blogread_side = selected(e);
            let floor_side = blogread_side
                || endpoints
                    .iter()
                    .any(|other| other.compare_with == Some(i) && selected(other));
            let order: [usize; 3] = if round % 2 == 0 { [0, 2, 1] } else { [1, 2, 0] };
            for side in order {
                let wanted = match side {
                    0 => blogread_side,
                    1 => floor_side,
                    _ => blogread_side && cold.is_some(),
                };
                if !wanted {
                    continue;
                }
                let (server, target) = match (side, &cold, &cold_targets) {
                    (0, _, _) => (&blogread, &blogread_targets[i]),
                    (2, Some(cold), Some(cold_targets)) => (cold, &cold_targets[i]),
                    _ => (&floor, &floor_targets[i]),
                };
                eprintln!(
                    "round {}/{}: {} on {} ...",
                    round + 1,
                    args.rounds,
                    e.name,
                    ["blogread", "floor", "blogread, cache off"][side]
                );
                let db_command = (side != 1 && url.starts_with("postgres")).then_some("postgres");
                let m = measure(&client_rt, server.pid(), db_command, target, load);
                let slot = &mut results[i][side];
                *slot = Some(match slot.take() {
                    None => m,
                    Some(mut prev) => {
                        prev.stats.merge(&m.stats);
                        prev.peak_rss_mib = max_opt(prev.peak_rss_mib, m.peak_rss_mib);
                        prev.cpu_us_per_request =
                            avg_opt(prev.cpu_us_per_request, m.cpu_us_per_request);
                        prev.db_cpu_us_per_request =
                            avg_opt(prev.db_cpu_us_per_request, m.db_cpu_us_per_request);
                        prev
                    }
                });
            }
        }
    }
    let whole = if args.only.is_none() || args.whole_project {
        Some(report::read_whole_project(
            &client_rt,
            blogread.ready.addr,
            &seeded.keys[0],
        )?)
    } else {
        None
    };
    let overall_peak = results
        .iter()
        .filter_map(|r| r[0].as_ref().and_then(|m| m.peak_rss_mib))
        .fold(startup_peak.unwrap_or(0.0), f64::max);

    let report = report::report(
        args,
        url,
        &spec,
        duration,
        &endpoints,
        &captured,
        &results,
        startup_peak,
        overall_peak,
    );
    let report = match whole {
        Some(whole) => format!("{report}{}", whole.report(n, args.response_cache_mib)),
        None => report,
    };
    println!("{report}");
    Ok(report)
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn avg_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        (a, b) => a.or(b),
    }
}

fn measure(
    rt: &tokio::runtime::Runtime,
    pid: u32,
    db_command: Option<&str>,
    target: &Target,
    load: Load,
) -> Measured {
    procfs::reset_peak(pid);
    let cpu_before = procfs::cpu_seconds(pid);
    let db_before = db_command.and_then(procfs::cpu_seconds_of_command);
    let stats = rt.block_on(client::run(target, load));
    let cpu_after = procfs::cpu_seconds(pid);
    let db_after = db_command.and_then(procfs::cpu_seconds_of_command);
    let peak = procfs::peak_rss_mib(pid);
    // CPU is spent over the warm-up too: divide by the requests of the whole phase, estimated
    // from the measured rate.
    let phase = (load.warmup + load.duration).as_secs_f64();
    let per_request = |before: Option<f64>, after: Option<f64>| match (before, after) {
        (Some(b), Some(a)) if stats.requests > 0 => Some((a - b) * 1e6 / (stats.rps() * phase)),
        _ => None,
    };
    Measured {
        cpu_us_per_request: per_request(cpu_before, cpu_after),
        db_cpu_us_per_request: per_request(db_before, db_after),
        stats,
        peak_rss_mib: peak,
    }
}
