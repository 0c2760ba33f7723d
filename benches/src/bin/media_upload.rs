//! Uploads end to end, on the release `blogread-server` binary:
//!
//! 1. One 12-megapixel JPEG uploaded over HTTP (a multipart POST; the server checks, decodes,
//!    turns upright, makes the master and its three variants, encodes them, stores the files
//!    and then the row) until its 201 arrives: the median of `--runs`, against libvips
//!    (`vipsthumbnail` making the same sizes from the same file, as `media_pipeline` runs it),
//!    the two interleaved. Each item is deleted after its upload, so that every upload is new
//!    (the same bytes again would be answered 200 with the existing item, without work).
//! 2. The server's peak resident memory (`VmHWM`, reset before each) during one upload, and
//!    during four uploads of four different photos at once.
//! 3. Public JSON reads (`GET /blog/api/v1/public/blogs` with a public key, on a project of
//!    `--posts` published posts) with `client::run`: latency and rate without uploads, then
//!    while `--uploaders` tasks upload 12-megapixel photos back to back (each deleted after),
//!    the two interleaved over `--read-rounds` rounds; the target is a p99 with uploads at
//!    most twice the p99 without.
//!
//! ```sh
//! apt-get install libvips-tools   # the yardstick of 1; without it only blogread is timed
//! cargo build --release -p blogread-server --bin blogread-server
//! cargo run --release -p blogread-benches --bin media_upload
//! ```
//!
//! Results are in `benches/README.md` (Media serving and uploads).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use blogread_benches::client::{self, Load, Stats, Target};
use blogread_benches::harness::median;
use blogread_benches::management::{self, Management};
use blogread_benches::server_process::{self, ServerOptions, ServerProcess};
use blogread_benches::{harness, libvips, photo, procfs};
use bytes::Bytes;
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    about = "Uploads end to end on the release blogread-server: one 12-megapixel JPEG against \
             libvips, the server's peak memory with one and four uploads, and public JSON \
             reads' latency while uploads run",
    long_about = None
)]
struct Args {
    /// Timed uploads (and libvips runs); the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Width of the photos.
    #[arg(long, default_value_t = 4_000)]
    width: u32,
    /// Height of the photos.
    #[arg(long, default_value_t = 3_000)]
    height: u32,
    /// Published posts of the project the reads read.
    #[arg(long, default_value_t = 50)]
    posts: usize,
    /// Connections of the public reads.
    #[arg(long, default_value_t = 8)]
    read_connections: usize,
    /// Rounds of the reads; each measures without uploads, then with them.
    #[arg(long, default_value_t = 2)]
    read_rounds: usize,
    /// Seconds measured per round and side (after one second of warm-up).
    #[arg(long, default_value_t = 5.0)]
    read_seconds: f64,
    /// Uploads in progress at once during the reads with uploads.
    #[arg(long, default_value_t = 2)]
    uploaders: usize,
    /// The server's `--max-uploads` (four at once must fit).
    #[arg(long, default_value_t = 8)]
    max_uploads: u32,
    /// The `blogread-server` binary (default: the one beside this benchmark's binary).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// `RUST_LOG` for the server (default: its own default, `info`, a line per request);
    /// it must keep the `listening on` line: `info,blogread::http=off` drops the request log.
    #[arg(long)]
    server_log: Option<String>,
    /// Where the database, media folder and photos go (default: a new temporary folder,
    /// removed afterwards).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut code = ExitCode::SUCCESS;
    harness::in_work_dir(args.work_dir.as_deref(), "media-upload", |dir| {
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

/// The server, its API and the project the uploads go to.
struct Setup {
    server: ServerProcess,
    api: Management,
    project: String,
    admin: String,
}

impl Setup {
    /// Uploads a prepared body (it must be a new item) and returns the item's id and the time
    /// until the 201 was read.
    async fn upload(&self, body: &(Bytes, String)) -> Result<(String, Duration), String> {
        let started = Instant::now();
        let item = self
            .api
            .upload_body(&self.admin, &self.project, body.clone())
            .await?;
        Ok((item.id, started.elapsed()))
    }

    async fn delete(&self, id: &str) -> Result<(), String> {
        self.api.delete_media(&self.admin, &self.project, id).await
    }
}

async fn run(args: &Args, dir: &Path) -> Result<(), String> {
    println!("load average at start: {}", procfs::load_average());
    eprintln!("making four photos…");
    let photos: Vec<Vec<u8>> = std::thread::scope(|s| {
        let makers: Vec<_> = (0..4u64)
            .map(|seed| {
                s.spawn(move || photo::photo(args.width, args.height, photo::CAMERA_QUALITY, seed))
            })
            .collect();
        makers
            .into_iter()
            .map(|m| m.join().expect("made"))
            .collect()
    });
    let photo_path = dir.join("photo.jpg");
    std::fs::write(&photo_path, &photos[0]).map_err(|e| e.to_string())?;
    println!(
        "photos: {} × {} JPEG at quality {}, {} KiB each (about)",
        args.width,
        args.height,
        photo::CAMERA_QUALITY,
        photos[0].len() / 1024
    );
    let bodies: Vec<(Bytes, String)> = photos
        .iter()
        .map(|p| management::multipart("photo.jpg", "image/jpeg", p))
        .collect();

    let server = ServerProcess::start(&ServerOptions {
        binary: args
            .server_bin
            .clone()
            .unwrap_or_else(server_process::default_binary),
        dir: dir.join("blogread"),
        extra_args: vec!["--max-uploads".to_owned(), args.max_uploads.to_string()],
        log_filter: args.server_log.clone(),
    })?;
    let api = Management::new(&server.base_url());
    let operator = server.operator_token().to_owned();
    let project = api.create_project(&operator, "media uploads").await?;
    let admin = api.create_admin_token(&operator, &project).await?;
    let setup = Setup {
        server,
        api,
        project,
        admin,
    };

    upload_against_libvips(args, &setup, &bodies[0], dir, &photo_path).await?;
    peak_memory(&setup, &bodies).await?;
    reads_during_uploads(args, &setup, Arc::new(bodies)).await?;
    println!("load average at the end: {}", procfs::load_average());
    Ok(())
}

async fn upload_against_libvips(
    args: &Args,
    setup: &Setup,
    body: &(Bytes, String),
    dir: &Path,
    photo_path: &Path,
) -> Result<(), String> {
    // One untimed upload first: the server's first one starts its decode threads and reads
    // its code from disk.
    let (id, first) = setup.upload(body).await?;
    setup.delete(&id).await?;
    let vips = libvips::available();
    if !vips {
        println!(
            "vipsthumbnail is not installed ({}): timing blogread alone",
            libvips::INSTALL
        );
    }
    let vips_dir = dir.join("vips");
    std::fs::create_dir_all(&vips_dir).map_err(|e| e.to_string())?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for run in 0..args.runs {
        // Interleaved, the order swapped each run.
        for side in if run % 2 == 0 { [0, 1] } else { [1, 0] } {
            if side == 0 {
                let (id, took) = setup.upload(body).await?;
                ours.push(took);
                setup.delete(&id).await?;
            } else if vips {
                let path = photo_path.to_path_buf();
                let out = vips_dir.clone();
                let took = tokio::task::spawn_blocking(move || libvips::thumbnails(&out, &path))
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or("vipsthumbnail failed")?;
                theirs.push(took);
            }
        }
    }
    println!(
        "\none 12-megapixel upload, end to end (first, untimed: {:.0} ms)",
        ms(first)
    );
    let ours_runs: Vec<String> = ours.iter().map(|d| format!("{:.0}", ms(*d))).collect();
    let ours = median(ours);
    println!(
        "  blogread (multipart POST until the 201): median {:.0} ms of {} runs ({} ms)",
        ms(ours),
        args.runs,
        ours_runs.join(", ")
    );
    if !theirs.is_empty() {
        let theirs_runs: Vec<String> = theirs.iter().map(|d| format!("{:.0}", ms(*d))).collect();
        let theirs = median(theirs);
        let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
        println!(
            "  libvips (vipsthumbnail, 4 commands): median {:.0} ms ({} ms)",
            ms(theirs),
            theirs_runs.join(", ")
        );
        println!(
            "  ratio {ratio:.2} (target: at most 2: {})",
            if ratio <= 2.0 { "met" } else { "NOT met" }
        );
    }
    Ok(())
}

async fn peak_memory(setup: &Setup, bodies: &[(Bytes, String)]) -> Result<(), String> {
    let pid = setup.server.pid();
    let rss = || procfs::status_kib(pid, "VmRSS").map_or(f64::NAN, |k| k as f64 / 1024.0);
    let peak = || procfs::peak_rss_mib(pid).unwrap_or(f64::NAN);
    println!("\nserver's resident memory");
    println!("  before: {:.0} MiB (peak so far {:.0} MiB)", rss(), peak());
    if !procfs::reset_peak(pid) {
        println!("  (the kernel refused to reset the peak: the figures below are since start)");
    }
    let (id, took) = setup.upload(&bodies[0]).await?;
    println!("  one upload ({:.0} ms): peak {:.0} MiB", ms(took), peak());
    setup.delete(&id).await?;
    procfs::reset_peak(pid);
    let started = Instant::now();
    let (a, b, c, d) = tokio::join!(
        setup.upload(&bodies[0]),
        setup.upload(&bodies[1]),
        setup.upload(&bodies[2]),
        setup.upload(&bodies[3]),
    );
    let took = started.elapsed();
    println!(
        "  four different uploads at once ({:.0} ms for the four): peak {:.0} MiB; after: {:.0} MiB",
        ms(took),
        peak(),
        rss()
    );
    for result in [a, b, c, d] {
        let (id, _) = result?;
        setup.delete(&id).await?;
    }
    Ok(())
}

async fn reads_during_uploads(
    args: &Args,
    setup: &Setup,
    bodies: Arc<Vec<(Bytes, String)>>,
) -> Result<(), String> {
    eprintln!("seeding {} posts…", args.posts);
    for i in 0..args.posts {
        let slug = blogread_benches::data::slug(i);
        setup
            .api
            .publish_post(
                &setup.admin,
                &setup.project,
                &slug,
                &format!("Post {i}"),
                &blogread_benches::data::post(&[]),
            )
            .await?;
    }
    let key = setup
        .api
        .create_public_key(&setup.admin, &setup.project)
        .await?;
    let auth = format!("Bearer {key}");
    let request = client::get("/blog/api/v1/public/blogs", &[("Authorization", &auth)]);
    let answer = client::fetch(setup.server.addr(), &request)
        .await
        .map_err(|e| e.to_string())?;
    if answer.status != 200 {
        return Err(format!("the public list answered {}", answer.status));
    }
    let target = Target {
        addr: setup.server.addr(),
        request,
        status: 200,
        body_len: answer.body.len(),
    };
    let load = Load {
        connections: args.read_connections,
        warmup: Duration::from_secs(1),
        duration: Duration::from_secs_f64(args.read_seconds),
    };
    let mut without: Option<Stats> = None;
    let mut with: Option<Stats> = None;
    let mut uploaded = 0;
    let mut upload_times = Vec::new();
    let pid = setup.server.pid();
    let (mut cpu_without, mut cpu_with) = (0.0, 0.0);
    for round in 0..args.read_rounds {
        eprintln!("reads, round {} of {}…", round + 1, args.read_rounds);
        let before = procfs::cpu_seconds(pid).unwrap_or(0.0);
        let stats = client::run(&target, load).await;
        cpu_without += procfs::cpu_seconds(pid).unwrap_or(0.0) - before;
        merge(&mut without, stats);

        let stop = Arc::new(AtomicBool::new(false));
        let count = Arc::new(AtomicU64::new(0));
        let uploaders: Vec<_> = (0..args.uploaders)
            .map(|u| {
                let api = setup.api.clone();
                let (admin, project) = (setup.admin.clone(), setup.project.clone());
                let (stop, count, bodies) = (stop.clone(), count.clone(), bodies.clone());
                tokio::spawn(async move {
                    let mut times = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let started = Instant::now();
                        let body = bodies[u % bodies.len()].clone();
                        let item = api.upload_body(&admin, &project, body).await?;
                        times.push(started.elapsed());
                        count.fetch_add(1, Ordering::Relaxed);
                        api.delete_media(&admin, &project, &item.id).await?;
                    }
                    Ok::<_, String>(times)
                })
            })
            .collect();
        let before = procfs::cpu_seconds(pid).unwrap_or(0.0);
        let stats = client::run(&target, load).await;
        cpu_with += procfs::cpu_seconds(pid).unwrap_or(0.0) - before;
        merge(&mut with, stats);
        stop.store(true, Ordering::Relaxed);
        for task in uploaders {
            upload_times.extend(task.await.map_err(|e| e.to_string())??);
        }
        uploaded += count.load(Ordering::Relaxed);
    }
    let (without, with) = (without.expect("a round"), with.expect("a round"));
    let warmed = (load.duration + load.warmup).as_secs_f64() * args.read_rounds as f64;
    println!(
        "\npublic reads (GET /blog/api/v1/public/blogs, {} posts, body {} bytes), {} connections, {} rounds of {} s each way",
        args.posts, target.body_len, args.read_connections, args.read_rounds, args.read_seconds
    );
    println!("| | req/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | server CPU (cores) |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, stats, cpu) in [
        ("without uploads", &without, cpu_without),
        ("with uploads", &with, cpu_with),
    ] {
        println!(
            "| {name} | {:.0} | {:.2} | {:.2} | {:.2} | {:.1} | {} | {:.2} |",
            stats.rps(),
            stats.latency_ms(0.5),
            stats.latency_ms(0.99),
            stats.latency_ms(0.999),
            stats.latency_ms(1.0),
            stats.errors,
            cpu / warmed
        );
    }
    let ratio = with.latency_ms(0.99) / without.latency_ms(0.99);
    upload_times.sort();
    println!(
        "uploads during the reads: {uploaded} ({:.2}/s), {} at a time, median {:.0} ms each",
        uploaded as f64 / warmed,
        args.uploaders,
        upload_times
            .get(upload_times.len() / 2)
            .map_or(f64::NAN, |d| ms(*d))
    );
    println!(
        "p99 with / p99 without: {ratio:.2} (target: at most 2: {}); req/s with / without: {:.2}",
        if ratio <= 2.0 { "met" } else { "NOT met" },
        with.rps() / without.rps()
    );
    Ok(())
}

fn merge(into: &mut Option<Stats>, stats: Stats) {
    match into {
        Some(total) => total.merge(&stats),
        None => *into = Some(stats),
    }
}
