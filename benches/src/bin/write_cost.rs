//! What a write costs, on SQLite or PostgreSQL, through the core's service (the calls the
//! management API makes):
//!
//! - `distinct-slugs`: create + publish of one post whose body names N distinct
//!   `[INTERNAL:…]` slugs (none of them a post), against the same count naming one slug: a
//!   write's time must grow with the body, so the two rows stay within a small factor and
//!   the time per slug stays flat as N grows.
//! - `project-size`: create + publish of the same post (~1.5 KB, five links) in a project of
//!   1,000, 10,000 and 50,000 published posts: median and p99 of the pair at each size.
//! - `seed-api`: seeding one project through the real server's management API (HTTP on
//!   loopback, create then publish with a `published_at`, 8 clients): the rate of each tenth.
//!
//! ```sh
//! cargo run --release -p blogread-benches --bin write_cost -- distinct-slugs
//! scripts/with-postgres sh -c 'cargo run --release -p blogread-benches --bin write_cost -- \
//!     distinct-slugs --database-url "$BLOGREAD_TEST_POSTGRES_URL"'
//! ```
//!
//! Results are in `benches/README.md` (Write cost).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use blogread_benches::harness::{self, median};
use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogInput, ProjectId, Timestamp};
use blogread_core::store::Store;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(about = "What a write costs: by distinct slugs in its body, and by project size")]
struct Cli {
    /// The database (`postgres://…`: a new, empty one; default a new SQLite file in the work
    /// folder).
    #[arg(long, global = true)]
    database_url: Option<String>,
    /// Where the SQLite database goes (default: a new temporary folder).
    #[arg(long, global = true)]
    work_dir: Option<PathBuf>,
    #[command(subcommand)]
    bench: Bench,
}

#[derive(Debug, Subcommand)]
enum Bench {
    /// Create + publish of bodies naming N distinct slugs, and N times one slug.
    DistinctSlugs {
        /// The slug counts, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = [1_000, 10_000, 24_000, 50_000, 80_000])]
        counts: Vec<usize>,
        /// Repetitions of each (the median is shown).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
    },
    /// Create + publish of the same post at each project size (the project grows between
    /// sizes, seeded through the store).
    ProjectSize {
        /// The project sizes, comma-separated, ascending.
        #[arg(long, value_delimiter = ',', default_values_t = [1_000, 10_000, 50_000])]
        sizes: Vec<usize>,
        /// Create + publish pairs timed at each size.
        #[arg(long, default_value_t = 200)]
        samples: usize,
    },
    /// Seeding one project through the real server's management API over HTTP.
    SeedApi {
        /// Posts to seed.
        #[arg(long, default_value_t = 50_000)]
        posts: usize,
        /// Concurrent clients.
        #[arg(long, default_value_t = 8)]
        clients: usize,
        /// Which posts a post's five links name: `earlier` (posts already seeded, as a blog
        /// links to its archive) or `any` (any post of the whole run, most not yet written:
        /// the later a post, the more earlier posts wait for its slug, and its publish
        /// stamps those).
        #[arg(long, value_enum, default_value_t = LinksTo::Earlier)]
        links_to: LinksTo,
    },
}

/// Which posts the seeded posts' links name.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LinksTo {
    /// Posts seeded before this one.
    Earlier,
    /// Any post of the run.
    Any,
}

fn main() {
    let cli = Cli::parse();
    let cli = &cli;
    harness::in_work_dir(cli.work_dir.as_deref(), "write-cost", |dir| async move {
        let store = open(cli, &dir).await;
        let service = Service::new(store);
        match &cli.bench {
            Bench::DistinctSlugs { counts, repeat } => {
                distinct_slugs(&service, counts, *repeat).await
            }
            Bench::ProjectSize { sizes, samples } => {
                let postgres = cli
                    .database_url
                    .as_deref()
                    .filter(|u| u.starts_with("postgres"));
                project_size(&service, sizes, *samples, postgres).await
            }
            Bench::SeedApi {
                posts,
                clients,
                links_to,
            } => seed_api(service, *posts, *clients, *links_to).await,
        }
    });
}

async fn open(cli: &Cli, dir: &Path) -> Arc<dyn Store> {
    let url = match &cli.database_url {
        Some(url) => url.clone(),
        None => {
            let db = dir.join("blogread.db");
            let _ = std::fs::remove_file(&db);
            format!("sqlite://{}", db.display())
        }
    };
    blogread_core::store::open_store(&url)
        .await
        .expect("open the database")
}

async fn new_project(service: &Service, name: &str) -> ProjectId {
    service
        .create_project(&Caller::operator(), name.to_owned(), None)
        .await
        .expect("project")
        .id
}

/// Creates and publishes a post with `body` in `project`; the time of both calls.
async fn create_publish(
    service: &Service,
    project: ProjectId,
    slug: &str,
    body: String,
) -> Duration {
    let me = Caller::operator();
    let started = Instant::now();
    let blog = service
        .create_blog(
            &me,
            project,
            BlogInput {
                title: Some(format!("Post {slug}")),
                slug: Some(slug.to_owned()),
                content: Some(body),
                ..Default::default()
            },
        )
        .await
        .expect("create");
    service
        .publish_blog(&me, project, blog.id, None)
        .await
        .expect("publish");
    started.elapsed()
}

async fn distinct_slugs(service: &Service, counts: &[usize], repeat: usize) {
    let project = new_project(service, "distinct slugs").await;
    println!(
        "{:>8}  {:>12}  {:>12}  {:>14}  {:>10}",
        "slugs", "distinct", "one slug", "per slug", "ratio"
    );
    let mut made = 0;
    for &n in counts {
        let mut distinct = Vec::new();
        let mut same = Vec::new();
        for _ in 0..repeat {
            made += 1;
            // About 20 bytes a placeholder: a body of 80,000 is 1.6 MB, under the 2 MiB cap.
            let body: String = (0..n).map(|i| format!("[INTERNAL:m{made}x{i}] ")).collect();
            distinct
                .push(create_publish(service, project, &format!("distinct-{made}"), body).await);
            let body: String = (0..n).map(|_| "[INTERNAL:m-one] ".to_owned()).collect();
            same.push(create_publish(service, project, &format!("same-{made}"), body).await);
        }
        let (d, s) = (median(distinct), median(same));
        println!(
            "{n:>8}  {:>10.1}ms  {:>10.1}ms  {:>12.2}us  {:>10.2}",
            d.as_secs_f64() * 1e3,
            s.as_secs_f64() * 1e3,
            d.as_secs_f64() * 1e6 / n as f64,
            d.as_secs_f64() / s.as_secs_f64()
        );
    }
}

/// A post of about 1.5 KB with five internal links to posts among the first `linkable`.
fn small_post(i: usize, linkable: usize) -> String {
    let mut body = String::with_capacity(1600);
    for k in 0..5 {
        let target = (i.wrapping_mul(7919) + k * 104_729) % linkable.max(1);
        body.push_str(&format!(
            "<h2>Part {k}</h2><p>Teams that deploy often <strong>recover faster</strong> and \
             learn sooner; see [INTERNAL:{}] for the numbers &amp; the background. Smaller \
             pull requests, reviewed within the hour, and feature flags.</p>\n",
            blogread_benches::data::slug(target)
        ));
    }
    body
}

/// The input of post `i`.
fn small_input(i: usize, linkable: usize) -> BlogInput {
    BlogInput {
        title: Some(format!("Post {i}")),
        slug: Some(blogread_benches::data::slug(i)),
        content: Some(small_post(i, linkable)),
        categories: Some(vec![
            if i.is_multiple_of(3) {
                "Engineering"
            } else {
                "Ops"
            }
            .to_owned(),
        ]),
        ..Default::default()
    }
}

/// Grows `project` to `to` published posts (from `from`), through the store, by the
/// lifecycle rules.
async fn grow(service: &Service, project: ProjectId, from: usize, to: usize) {
    let now = Timestamp::now();
    for i in from..to {
        let mut blog = blogread_core::lifecycle::create(project, small_input(i, to), now)
            .expect("a valid post");
        let at = Timestamp::from_unix_seconds(1_700_000_000 + 60 * i as i64).expect("in range");
        blogread_core::lifecycle::publish(&mut blog, Some(at), now).expect("publish");
        service.store().insert_blog(&blog).await.expect("insert");
        if (i + 1).is_multiple_of(10_000) {
            eprintln!("  {} posts", i + 1);
        }
    }
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

/// `postgres`: the database's URL when it is PostgreSQL, vacuumed after each growth (as the
/// load benchmark does after seeding: otherwise autovacuum and fresh statistics move the
/// figures while they are taken).
async fn project_size(service: &Service, sizes: &[usize], samples: usize, postgres: Option<&str>) {
    let project = new_project(service, "project size").await;
    println!(
        "{:>8}  {:>12}  {:>12}  {:>14}",
        "posts", "median", "p99", "median / first"
    );
    let mut have = 0;
    let mut first = None;
    let mut made = 0usize;
    for &size in sizes {
        eprintln!("growing the project to {size} posts…");
        grow(service, project, have, size).await;
        have = size;
        if let Some(url) = postgres {
            harness::vacuum(url).await.expect("VACUUM (ANALYZE)");
        }
        let mut times = Vec::with_capacity(samples);
        for _ in 0..samples {
            made += 1;
            // The same shape of post each time, linking into the project.
            let input = small_input(1_000_000 + made, 1_000);
            let me = Caller::operator();
            let started = Instant::now();
            let blog = service
                .create_blog(&me, project, input)
                .await
                .expect("create");
            service
                .publish_blog(&me, project, blog.id, None)
                .await
                .expect("publish");
            times.push(started.elapsed());
            // Taken out again, so that the project keeps its size.
            service
                .delete_blog(&me, project, blog.id)
                .await
                .expect("delete");
        }
        times.sort();
        let median = percentile(&times, 0.5);
        let first = *first.get_or_insert(median);
        println!(
            "{size:>8}  {:>10.2}ms  {:>10.2}ms  {:>14.2}",
            median.as_secs_f64() * 1e3,
            percentile(&times, 0.99).as_secs_f64() * 1e3,
            median.as_secs_f64() / first.as_secs_f64()
        );
    }
}

/// One management API call: method, URL, bearer token and JSON body; the answer's status
/// and JSON.
async fn call(
    http: &reqwest::Client,
    url: String,
    token: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let resp = http
        .post(url)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    let status = resp.status().as_u16();
    let bytes = resp.bytes().await.expect("a body");
    (status, serde_json::from_slice(&bytes).unwrap_or_default())
}

async fn seed_api(service: Service, posts: usize, clients: usize, links_to: LinksTo) {
    let project = new_project(&service, "seeded through the API").await;
    let key = service
        .create_agent_key(&Caller::operator(), project)
        .await
        .expect("an agent key")
        .key;
    let base = harness::serve(service).await;
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let done = Arc::new(std::sync::Mutex::new(Vec::with_capacity(posts)));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (next, done, base, key) = (next.clone(), done.clone(), base.clone(), key.clone());
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= posts {
                    break;
                }
                let linkable = match links_to {
                    LinksTo::Earlier => i,
                    LinksTo::Any => posts,
                };
                let input = small_input(i, linkable);
                let body = serde_json::json!({
                    "title": input.title,
                    "slug": input.slug,
                    "content": input.content,
                    "categories": input.categories,
                });
                let blogs = format!("{base}/api/v1/projects/{project}/blogs");
                let (status, created) = call(&http, blogs.clone(), &key, body).await;
                assert_eq!(status, 201, "{created}");
                let id = created["id"].as_str().expect("an id").to_owned();
                let at =
                    Timestamp::from_unix_seconds(1_700_000_000 + 60 * i as i64).expect("in range");
                let (status, published) = call(
                    &http,
                    format!("{blogs}/{id}/publish"),
                    &key,
                    serde_json::json!({"published_at": at.to_string()}),
                )
                .await;
                assert_eq!(status, 200, "{published}");
                let mut done = done.lock().expect("not poisoned");
                done.push(started.elapsed());
                if done.len().is_multiple_of(5_000) {
                    eprintln!("  {} posts", done.len());
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("a client");
    }
    let mut times = done.lock().expect("not poisoned").clone();
    times.sort();
    let total = times.last().copied().unwrap_or_default();
    println!(
        "seeded {posts} posts with {clients} clients in {:.1} s ({:.1} posts/s)",
        total.as_secs_f64(),
        posts as f64 / total.as_secs_f64()
    );
    println!("{:>6}  {:>12}  {:>16}", "tenth", "posts/s", "rate / first");
    let tenth = posts / 10;
    let mut first_rate = None;
    for t in 0..10 {
        let begin = if t == 0 {
            Duration::ZERO
        } else {
            times[t * tenth - 1]
        };
        let end = times[(t + 1) * tenth - 1];
        let rate = tenth as f64 / (end - begin).as_secs_f64();
        let first = *first_rate.get_or_insert(rate);
        println!("{:>6}  {rate:>12.1}  {:>16.2}", t + 1, rate / first);
    }
}
