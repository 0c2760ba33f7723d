//! The first build after a publish: one project of published posts (~8 KB each, five
//! placeholders, the benches data set), the real server on loopback with its default caches,
//! (and the fragment cache's, or `--fragment-cache-mib`), and a site build's read of the whole project through the client (every page of 100 with
//! content, `Client::all_blogs_with_content`, a new client each time, as a new build process
//! is). Timed right after publishing one new post (the response cache holds nothing of the
//! project then: the first build after a publish) and again with nothing changed (every page
//! cached). On SQLite by default, on PostgreSQL with `--database-url`. Run it in release
//! (see `benches/README.md#first-build-after-a-publish`):
//!
//! ```sh
//! cargo run --release -p blogread-benches --bin first_build
//! scripts/with-postgres sh -c 'cargo run --release -p blogread-benches --bin first_build -- --database-url "$BLOGREAD_TEST_POSTGRES_URL"'
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use blogread_benches::data;
use blogread_benches::harness::{self, median};
use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::BlogInput;
use blogread_core::store::Store;
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    about = "The first build after a publish: a whole project read right after a publish, \
                   against the same read with every page cached"
)]
struct Cli {
    /// Published posts in the project.
    #[arg(long, default_value_t = 1_000)]
    blogs: usize,
    /// Publishes measured (the median is shown).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// The database to seed and serve (`postgres://…`, emptied of nothing: give a new one);
    /// default: a new SQLite file in the work folder.
    #[arg(long)]
    database_url: Option<String>,
    /// The server's fragment cache in MiB (0 turns it off; default: the server's).
    #[arg(long, default_value_t = blogread_core::fragment_cache::DEFAULT_CAPACITY_BYTES >> 20)]
    fragment_cache_mib: u64,
    /// Where the SQLite database goes (default: a new temporary folder).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

/// One build's read of the whole project: its time and the posts it read.
async fn build(base: &str, key: &str) -> (Duration, usize) {
    let client = blogread_client::Client::new(base, key).expect("client");
    let started = Instant::now();
    let blogs = client
        .all_blogs_with_content()
        .await
        .expect("every post with its body");
    (started.elapsed(), blogs.len())
}

fn main() {
    let cli = Cli::parse();
    let cli = &cli;
    harness::in_work_dir(cli.work_dir.as_deref(), "first-build", |dir| async move {
        run(cli, &dir).await
    });
}

async fn run(cli: &Cli, dir: &std::path::Path) {
    let url = match &cli.database_url {
        Some(url) => url.clone(),
        None => {
            let db = dir.join("blogread.db");
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
            }
            format!("sqlite://{}", db.display())
        }
    };
    let store: Arc<dyn Store> = blogread_core::store::open_store(&url)
        .await
        .expect("open the database");
    let service = Service::new(store.clone()).with_fragment_cache(
        blogread_core::fragment_cache::FragmentCache::new(cli.fragment_cache_mib << 20),
    );
    eprintln!("seeding {} posts…", cli.blogs);
    let (key, project) = data::seed_project(&service, cli.blogs).await.expect("seed");
    if url.starts_with("postgres") {
        harness::vacuum(&url).await.expect("vacuum");
    }

    let base = harness::serve(service.clone()).await;

    // One build to warm what a running server has warm (connections, page cache).
    build(&base, &key).await;
    let (mut after_publish, mut cached) = (Vec::new(), Vec::new());
    let mut read = 0;
    for n in 0..cli.repeat {
        let me = Caller::operator();
        let blog = service
            .create_blog(
                &me,
                project,
                BlogInput {
                    title: Some(format!("A new post {n}")),
                    slug: Some(format!("bench-new-{n}")),
                    content: Some(data::post(&[])),
                    ..Default::default()
                },
            )
            .await
            .expect("create");
        service
            .publish_blog(&me, project, blog.id, None)
            .await
            .expect("publish");
        let (time, posts) = build(&base, &key).await;
        after_publish.push(time);
        read = posts;
        cached.push(build(&base, &key).await.0);
    }
    let (after_publish, cached) = (median(after_publish), median(cached));
    let backend = if url.starts_with("postgres") {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    println!(
        "{backend}, {read} posts, pages of 100 with content, fragment cache {} MiB: first build \
         after a publish {:.0} ms, the same build again {:.0} ms ({:.1}x)",
        cli.fragment_cache_mib,
        after_publish.as_secs_f64() * 1e3,
        cached.as_secs_f64() * 1e3,
        after_publish.as_secs_f64() / cached.as_secs_f64()
    );
    store.close().await;
}
