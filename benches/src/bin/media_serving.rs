//! Serving stored images: the release `blogread-server` binary against nginx (Debian's
//! `nginx`, `sendfile on`) serving the same files of the same media folder, with the same
//! load client, side by side in one run.
//!
//! ```sh
//! apt-get install -y nginx        # the yardstick; without it only blogread is measured
//! cargo build --release -p blogread-server --bin blogread-server
//! cargo run --release -p blogread-benches --bin media_serving
//! ```
//!
//! The image is made through the API, as a site's would be: a project and its admin token
//! (with the operator token), then a photo-like JPEG of 1,600 × 1,067 uploaded, so that its
//! master (re-encoded at quality 82) is about 200 KB and its 480 px variant about 12 KB. Both
//! files are then read with `client::run` at each concurrency, blogread and nginx one after
//! the other within each round (their order swapped every round), and the medians of the
//! rounds reported with each side's CPU per request. nginx runs with the headers blogread
//! sends (`Cache-Control`, `X-Content-Type-Options`, `Content-Security-Policy`), no access
//! log, `sendfile` and `tcp_nopush` on; blogread as `serve` runs, with its request log
//! (read and dropped by the benchmark) unless `--server-log` says otherwise.
//!
//! Results are in `benches/README.md` (Media serving and uploads).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use blogread_benches::client::{self, Load, Stats, Target};
use blogread_benches::management::Management;
use blogread_benches::nginx::{self, Nginx};
use blogread_benches::server_process::{self, ServerOptions, ServerProcess};
use blogread_benches::{harness, photo, procfs};
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    about = "Serving a stored image (a ~200 KB master and its ~12 KB 480 px variant): the release \
             blogread-server against nginx with sendfile, same files, same client",
    long_about = None
)]
struct Args {
    /// Rounds; each measures every file at every concurrency on both servers, and the
    /// median of the rounds is reported.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Concurrent keep-alive connections, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [16, 64])]
    connections: Vec<usize>,
    /// Which files to measure, comma-separated: `master`, `w480` (default: both).
    #[arg(long, value_delimiter = ',', default_values_t = [String::from("master"), String::from("w480")])]
    files: Vec<String>,
    /// Seconds measured per server, file and concurrency in each round.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Seconds of warm-up before each measurement.
    #[arg(long, default_value_t = 0.5)]
    warmup: f64,
    /// Width of the uploaded photo (the master keeps it: it is under 2,400 px).
    #[arg(long, default_value_t = 1_600)]
    width: u32,
    /// Height of the uploaded photo.
    #[arg(long, default_value_t = 1_067)]
    height: u32,
    /// Noise of the uploaded photo (levels; the upload benchmarks' camera-like photo has
    /// 24): 9 makes the 1,600 × 1,067 master about 200 KB.
    #[arg(long, default_value_t = 9)]
    noise: u32,
    /// nginx's `worker_processes` (a number or `auto`).
    #[arg(long, default_value = "2")]
    nginx_workers: String,
    /// The `blogread-server` binary (default: the one beside this benchmark's binary).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// `RUST_LOG` for the server (default: its own default, `info`, a line per request);
    /// it must keep the `listening on` line: `info,blogread::http=off` drops the request log.
    #[arg(long)]
    server_log: Option<String>,
    /// Give nginx an access log too (`combined`, buffered: 64 KB, flushed at least every
    /// second), to compare both servers with a request log (blogread's is on unless
    /// `--server-log` turns it off).
    #[arg(long)]
    nginx_access_log: bool,
    /// Where the database, media folder and nginx's files go (default: a new temporary
    /// folder, removed afterwards).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

/// One server's figures for one file at one concurrency, over the rounds.
#[derive(Default)]
struct Series {
    rps: Vec<f64>,
    p50: Vec<f64>,
    p99: Vec<f64>,
    cpu_us: Vec<f64>,
    errors: u64,
}

impl Series {
    fn add(&mut self, stats: &Stats, cpu_seconds: Option<f64>) {
        self.rps.push(stats.rps());
        self.p50.push(stats.latency_ms(0.5));
        self.p99.push(stats.latency_ms(0.99));
        if let Some(cpu) = cpu_seconds {
            self.cpu_us.push(cpu * 1e6 / stats.requests.max(1) as f64);
        }
        self.errors += stats.errors;
    }
}

fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// Which server a measurement drives.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Blogread,
    Nginx,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut code = ExitCode::SUCCESS;
    harness::in_work_dir(args.work_dir.as_deref(), "media-serving", |dir| {
        let code = &mut code;
        let args = &args;
        async move {
            if let Err(e) = run(args, &dir).await {
                eprintln!("error: {e}");
                *code = ExitCode::FAILURE;
            }
        }
    });
    code
}

async fn run(args: &Args, dir: &Path) -> Result<(), String> {
    println!("load average at start: {}", procfs::load_average());
    let server = ServerProcess::start(&ServerOptions {
        binary: args
            .server_bin
            .clone()
            .unwrap_or_else(server_process::default_binary),
        dir: dir.join("blogread"),
        extra_args: Vec::new(),
        log_filter: args.server_log.clone(),
    })?;
    let api = Management::new(&server.base_url());
    let operator = server.operator_token();
    let project = api.create_project(operator, "media serving").await?;
    let admin = api.create_admin_token(operator, &project).await?;
    let jpeg = photo::photo_with_noise(
        args.width,
        args.height,
        photo::CAMERA_QUALITY,
        0,
        args.noise,
    );
    let item = api.upload(&admin, &project, &jpeg).await?;
    let variant = item
        .variants
        .iter()
        .find(|v| v.width == 480)
        .ok_or("the upload has no 480 px variant")?;
    println!(
        "uploaded a {} × {} JPEG of {} KiB: master {} × {}, {} bytes; w480 {} × {}, {} bytes",
        args.width,
        args.height,
        jpeg.len() / 1024,
        item.width,
        item.height,
        item.bytes,
        variant.width,
        variant.height,
        variant.bytes
    );
    let files: Vec<_> = [
        ("master", api.path_of(&item.url).to_owned(), item.bytes),
        ("w480", api.path_of(&variant.url).to_owned(), variant.bytes),
    ]
    .into_iter()
    .filter(|(name, _, _)| args.files.iter().any(|f| f == name))
    .collect();
    if files.is_empty() {
        return Err(format!(
            "--files {}: no such file; the files are master and w480",
            args.files.join(",")
        ));
    }

    let nginx = match nginx::binary() {
        Some(bin) => Some(Nginx::start(
            &bin,
            &dir.join("nginx"),
            server.media_dir(),
            &args.nginx_workers,
            args.nginx_access_log,
        )?),
        None => {
            println!(
                "nginx is not installed ({}): measuring blogread alone",
                nginx::INSTALL
            );
            None
        }
    };

    // Both servers must answer the same bytes with the same headers that matter.
    for (name, path, bytes) in &files {
        let request = client::get(path, &[]);
        let ours = client::fetch(server.addr(), &request)
            .await
            .map_err(|e| e.to_string())?;
        check_answer("blogread", name, &ours, *bytes)?;
        if let Some(nginx) = &nginx {
            let theirs = client::fetch(nginx.addr(), &request)
                .await
                .map_err(|e| e.to_string())?;
            check_answer("nginx", name, &theirs, *bytes)?;
            if theirs.body != ours.body {
                return Err(format!(
                    "nginx and blogread answer different bytes for {name}"
                ));
            }
        }
    }

    let load = |connections| Load {
        connections,
        warmup: Duration::from_secs_f64(args.warmup),
        duration: Duration::from_secs_f64(args.seconds),
    };
    let sides: &[Side] = if nginx.is_some() {
        &[Side::Blogread, Side::Nginx]
    } else {
        &[Side::Blogread]
    };
    let mut series: Vec<Vec<[Series; 2]>> = files
        .iter()
        .map(|_| {
            args.connections
                .iter()
                .map(|_| Default::default())
                .collect()
        })
        .collect();
    for round in 0..args.rounds {
        eprintln!("round {} of {}…", round + 1, args.rounds);
        for (f, (_, path, bytes)) in files.iter().enumerate() {
            for (c, &connections) in args.connections.iter().enumerate() {
                // Swapped every round: neither side always runs on a machine the other just
                // warmed (or heated).
                let mut order = sides.to_vec();
                if round % 2 == 1 {
                    order.reverse();
                }
                for side in order {
                    let (addr, cpu): (_, Box<dyn Fn() -> Option<f64>>) = match side {
                        Side::Blogread => {
                            let pid = server.pid();
                            (server.addr(), Box::new(move || procfs::cpu_seconds(pid)))
                        }
                        Side::Nginx => (
                            nginx.as_ref().expect("measured only when running").addr(),
                            Box::new(|| procfs::cpu_seconds_of_command("nginx")),
                        ),
                    };
                    let target = Target {
                        addr,
                        request: client::get(path, &[]),
                        status: 200,
                        body_len: *bytes as usize,
                    };
                    let before = cpu();
                    let stats = client::run(&target, load(connections)).await;
                    // The warm-up's CPU is counted too; it is a fixed share of each run, the
                    // same for both sides.
                    let spent = cpu().zip(before).map(|(after, before)| after - before);
                    let whole = stats.elapsed.as_secs_f64() + args.warmup;
                    let measured_share = stats.elapsed.as_secs_f64() / whole;
                    series[f][c][side as usize].add(&stats, spent.map(|s| s * measured_share));
                }
            }
        }
    }

    println!(
        "\n{} rounds of {} s measured (after {} s of warm-up) per server, file and concurrency; medians",
        args.rounds, args.seconds, args.warmup
    );
    println!(
        "request log: blogread {}, nginx {}",
        match &args.server_log {
            Some(filter) => format!("RUST_LOG={filter}"),
            None => "on (its default)".to_owned(),
        },
        if args.nginx_access_log {
            "on (buffered)"
        } else {
            "off"
        }
    );
    println!(
        "| file | bytes | connections | blogread req/s | p50 ms | p99 ms | CPU µs/req | nginx req/s | p50 ms | p99 ms | CPU µs/req | ratio | target | met |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (f, (name, _, bytes)) in files.iter().enumerate() {
        for (c, connections) in args.connections.iter().enumerate() {
            let [ours, theirs] = &series[f][c];
            let ratio = median(&ours.rps) / median(&theirs.rps);
            println!(
                "| {name} | {bytes} | {connections} | {:.0} | {:.2} | {:.2} | {:.0} | {:.0} | {:.2} | {:.2} | {:.0} | {:.2} | ≥ 0.8 | {} |",
                median(&ours.rps),
                median(&ours.p50),
                median(&ours.p99),
                median(&ours.cpu_us),
                median(&theirs.rps),
                median(&theirs.p50),
                median(&theirs.p99),
                median(&theirs.cpu_us),
                ratio,
                if ratio.is_nan() {
                    "-"
                } else if ratio >= 0.8 {
                    "yes"
                } else {
                    "**no**"
                }
            );
            if ours.errors + theirs.errors > 0 {
                println!(
                    "  errors: blogread {}, nginx {}",
                    ours.errors, theirs.errors
                );
            }
        }
    }
    let ratios: Vec<String> = series
        .iter()
        .flatten()
        .map(|[ours, theirs]| {
            let r: Vec<String> = ours
                .rps
                .iter()
                .zip(&theirs.rps)
                .map(|(a, b)| format!("{:.2}", a / b))
                .collect();
            r.join(" ")
        })
        .collect();
    println!("ratio of each round, row by row: {}", ratios.join(" | "));
    println!("load average at the end: {}", procfs::load_average());
    Ok(())
}

/// Checks a served file's status, length and headers.
fn check_answer(
    who: &str,
    name: &str,
    answer: &client::Captured,
    bytes: u64,
) -> Result<(), String> {
    if answer.status != 200 || answer.body.len() as u64 != bytes {
        return Err(format!(
            "{who} answered {name} with {} and {} bytes (expected 200 and {bytes})",
            answer.status,
            answer.body.len()
        ));
    }
    for (header, value) in [
        ("content-type", "image/jpeg"),
        ("cache-control", "public, max-age=31536000, immutable"),
        ("x-content-type-options", "nosniff"),
        ("content-security-policy", "default-src 'none'; sandbox"),
    ] {
        if answer.header(header) != Some(value) {
            return Err(format!(
                "{who} answered {name} with {header}: {:?} (expected {value:?})",
                answer.header(header)
            ));
        }
    }
    Ok(())
}
