//! The memory soak: the real server (a child process, as `blogread-server serve` runs it,
//! default caches unless told) over one project of published posts (~8 KB each, five
//! placeholders: the benches data set), read by 16 keep-alive readers asking for random list
//! pages (sizes, offsets, categories, with and without bodies), single posts and the sitemap,
//! while a writer re-syncs, renames and unpublishes posts (20 a second by default) through a
//! second instance on the same database. The server's resident memory is sampled four times a
//! second; the run prints it every ten seconds and ends with its peak (`VmHWM`). See
//! `benches/README.md#memory-under-a-mixed-soak`.
//!
//! ```sh
//! cargo run --release -p blogread-benches --bin soak -- --seconds 120
//! ```

use std::io::{BufRead, BufReader, Write as _};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use blogread_benches::client::{KeepAlive, get};
use blogread_benches::data::{self, CATEGORY};
use blogread_benches::{harness, procfs};
use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogId, BlogInput, ProjectId};
use blogread_core::fragment_cache::{self, FragmentCache};
use blogread_core::read::ListParams;
use blogread_core::response_cache::{self, ResponseCache};
use blogread_core::store::Store;
use blogread_core::testing::Dice;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    about = "Memory under a mixed soak: random public reads while a writer re-syncs, renames \
             and unpublishes posts; prints the server's resident memory"
)]
struct Cli {
    #[command(subcommand)]
    child: Option<Role>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Published posts in the project.
    #[arg(long, default_value_t = 2_000)]
    blogs: usize,
    /// Concurrent readers (keep-alive connections).
    #[arg(long, default_value_t = 16)]
    readers: usize,
    /// Writes a second (re-syncs, renames and unpublishes in turn).
    #[arg(long, default_value_t = 20)]
    writes_per_second: u32,
    /// How long the soak runs.
    #[arg(long, default_value_t = 120)]
    seconds: u64,
    /// The server's response cache in MiB.
    #[arg(long, default_value_t = response_cache::DEFAULT_CAPACITY_BYTES >> 20)]
    response_cache_mib: u64,
    /// The server's fragment cache in MiB.
    #[arg(long, default_value_t = fragment_cache::DEFAULT_CAPACITY_BYTES >> 20)]
    fragment_cache_mib: u64,
    /// Where the SQLite database goes (default: a new temporary folder).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Role {
    /// (internal) Serve the database on 127.0.0.1:0 and print the address.
    #[command(hide = true)]
    Serve {
        #[arg(long)]
        database_url: String,
        #[arg(long)]
        response_cache_mib: u64,
        #[arg(long)]
        fragment_cache_mib: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.child {
        Some(Role::Serve {
            database_url,
            response_cache_mib,
            fragment_cache_mib,
        }) => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(serve(&database_url, response_cache_mib, fragment_cache_mib));
        }
        None => {
            let args = &cli.run;
            harness::in_work_dir(args.work_dir.as_deref(), "soak", |dir| async move {
                run(args, &dir).await
            });
        }
    }
    ExitCode::SUCCESS
}

/// The child: the server as `serve` runs it (its request log on, to a discarded stderr).
async fn serve(url: &str, response_mib: u64, fragment_mib: u64) {
    let _log = blogread_server::telemetry::init(false);
    let store = blogread_core::store::open_store(url)
        .await
        .expect("open the database");
    let service = Service::new(store)
        .with_response_cache(ResponseCache::new(response_mib << 20))
        .with_fragment_cache(FragmentCache::new(fragment_mib << 20));
    let base = harness::serve(service).await;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", base.trim_start_matches("http://")).expect("stdout");
    out.flush().expect("stdout");
    drop(out);
    std::future::pending::<()>().await;
}

/// The child server process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One random public request of the mix.
fn request(dice: &mut Dice, blogs: u64, key: &str) -> Vec<u8> {
    let path = match dice.roll(10) {
        0..=3 => {
            let limit = [10, 50, 100][dice.roll(3)];
            let offset = dice.roll(blogs as usize);
            let category = match dice.roll(4) {
                0 => format!("&category={CATEGORY}"),
                1 => "&category=Ops".to_owned(),
                2 => format!("&category=made-up-{}", dice.roll(1_000_000)),
                _ => String::new(),
            };
            let content = if dice.roll(2) == 0 {
                "&include_content=true"
            } else {
                ""
            };
            format!("/blog/api/v1/public/blogs?limit={limit}&offset={offset}{category}{content}")
        }
        4..=8 => format!(
            "/blog/api/v1/public/blogs/{}",
            data::slug(dice.roll(blogs as usize))
        ),
        _ => "/blog/api/v1/public/blogs/sitemap".to_owned(),
    };
    get(&path, &[("Authorization", &format!("Bearer {key}"))])
}

async fn read_loop(
    addr: SocketAddr,
    key: String,
    blogs: u64,
    seed: u64,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
) {
    let mut dice = Dice(seed);
    let mut conn = KeepAlive::new(addr);
    while !stop.load(Ordering::Relaxed) {
        let req = request(&mut dice, blogs, &key);
        match conn.send(&req).await {
            Ok((200 | 404, _)) => done.fetch_add(1, Ordering::Relaxed),
            _ => failed.fetch_add(1, Ordering::Relaxed),
        };
    }
}

/// The writer: in turn a re-sync (a new body, published; an unpublished post comes back this
/// way), a rename (published under its other slug) and an unpublish, `per_second` a second.
async fn write_loop(
    service: Service,
    project: ProjectId,
    posts: Vec<BlogId>,
    per_second: u32,
    stop: Arc<AtomicBool>,
    writes: Arc<AtomicU64>,
) {
    let me = Caller::operator();
    let mut dice = Dice(0x0dd_b1a5);
    let mut unpublished: Vec<BlogId> = Vec::new();
    let mut renamed = std::collections::HashSet::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1) / per_second.max(1));
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        tick.tick().await;
        let at = dice.roll(posts.len());
        let id = posts[at];
        let result = match n % 3 {
            0 => {
                let id = unpublished.pop().unwrap_or(id);
                let links: Vec<String> = (0..5)
                    .map(|_| format!("[INTERNAL:{}]", data::slug(dice.roll(posts.len()))))
                    .collect();
                let input = BlogInput {
                    content: Some(data::post(&links)),
                    ..Default::default()
                };
                match service.edit_blog(&me, project, id, input).await {
                    Ok(_) => service.publish_blog(&me, project, id, None).await.map(drop),
                    Err(e) => Err(e),
                }
            }
            1 => {
                let slug = if renamed.remove(&at) {
                    data::slug(at)
                } else {
                    renamed.insert(at);
                    format!("{}-renamed", data::slug(at))
                };
                let input = BlogInput {
                    slug: Some(slug),
                    ..Default::default()
                };
                match service.edit_blog(&me, project, id, input).await {
                    Ok(_) => service.publish_blog(&me, project, id, None).await.map(drop),
                    Err(e) => Err(e),
                }
            }
            _ => {
                let r = service.unpublish_blog(&me, project, id).await.map(drop);
                if r.is_ok() {
                    unpublished.push(id);
                }
                r
            }
        };
        // A conflict (a post already unpublished, say) is part of the mix.
        if result.is_ok() {
            writes.fetch_add(1, Ordering::Relaxed);
        }
        n += 1;
    }
}

async fn run(args: &RunArgs, dir: &std::path::Path) {
    let db = dir.join("soak.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let url = format!("sqlite://{}", db.display());
    let store: Arc<dyn Store> = blogread_core::store::open_store(&url)
        .await
        .expect("open the database");
    let service = Service::new(store.clone());
    eprintln!("seeding {} posts…", args.blogs);
    let (key, project) = data::seed_project(&service, args.blogs)
        .await
        .expect("seed");
    // The posts' ids, in slug order (post-00000 first).
    let mut posts = Vec::with_capacity(args.blogs);
    let reader = Caller::public(&key);
    for offset in (0..args.blogs as u64).step_by(100) {
        let page = service
            .list_blogs(&reader, ListParams::new().limit(100).offset(offset), None)
            .await
            .expect("list")
            .into_value()
            .expect("a page")
            .value();
        posts.extend(
            page.blogs
                .into_iter()
                .map(|b| (b.fields.slug().to_string(), b.id)),
        );
    }
    posts.sort();
    let posts: Vec<BlogId> = posts.into_iter().map(|(_, id)| id).collect();

    let exe = std::env::current_exe().expect("this program");
    let mut child = Command::new(exe)
        .args([
            "serve",
            "--database-url",
            &url,
            "--response-cache-mib",
            &args.response_cache_mib.to_string(),
            "--fragment-cache-mib",
            &args.fragment_cache_mib.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("the server's address");
    let server = Server(child);
    let pid = server.0.id();
    let addr: SocketAddr = line.trim().parse().expect("an address");
    eprintln!(
        "server {pid} on {addr}: {} MiB after start-up; response cache {} MiB, fragment cache {} MiB; \
         {} readers, {} writes/s, {} s",
        procfs::status_kib(pid, "VmRSS").unwrap_or(0) / 1024,
        args.response_cache_mib,
        args.fragment_cache_mib,
        args.readers,
        args.writes_per_second,
        args.seconds
    );

    let stop = Arc::new(AtomicBool::new(false));
    let (done, failed, writes) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
    );
    let mut tasks = Vec::new();
    for r in 0..args.readers {
        tasks.push(tokio::spawn(read_loop(
            addr,
            key.clone(),
            args.blogs as u64,
            0x5eed + r as u64 * 7919,
            stop.clone(),
            done.clone(),
            failed.clone(),
        )));
    }
    tasks.push(tokio::spawn(write_loop(
        service.clone(),
        project,
        posts,
        args.writes_per_second,
        stop.clone(),
        writes.clone(),
    )));

    let started = Instant::now();
    let mut peak_sample = 0;
    let mut samples = Vec::new();
    let mut sampler = tokio::time::interval(Duration::from_millis(250));
    let mut next_print = 10;
    while started.elapsed() < Duration::from_secs(args.seconds) {
        sampler.tick().await;
        let rss = procfs::status_kib(pid, "VmRSS").unwrap_or(0);
        peak_sample = peak_sample.max(rss);
        samples.push(rss);
        let t = started.elapsed().as_secs();
        if t >= next_print {
            next_print += 10;
            println!(
                "{t:>4} s  RSS {:>6.1} MiB  reads {:>8}  writes {:>6}  failed {}",
                rss as f64 / 1024.0,
                done.load(Ordering::Relaxed),
                writes.load(Ordering::Relaxed),
                failed.load(Ordering::Relaxed)
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let hwm = procfs::status_kib(pid, "VmHWM").unwrap_or(0);
    for task in tasks {
        let _ = task.await;
    }
    let third = samples.len() / 3;
    let mean = |s: &[u64]| s.iter().sum::<u64>() as f64 / s.len().max(1) as f64 / 1024.0;
    println!(
        "peak resident memory (VmHWM) {:.1} MiB; mean RSS {:.1} MiB in the second third, {:.1} MiB in the last; \
         {} reads ({:.0}/s), {} writes, {} failed reads",
        hwm as f64 / 1024.0,
        mean(&samples[third..2 * third]),
        mean(&samples[2 * third..]),
        done.load(Ordering::Relaxed),
        done.load(Ordering::Relaxed) as f64 / args.seconds as f64,
        writes.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed)
    );
    drop(server);
    store.close().await;
}
