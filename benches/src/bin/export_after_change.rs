//! The incremental-export benchmark: one project of 10,000 published posts with internal
//! links (the benches data set) on SQLite, the real server on loopback, and `blogread export`
//! (the client library's export, as the command runs it) timed for a full export and for the
//! incremental export after each kind of change: a new post, a retitle of a post that three
//! posts name in their text, an unpublish of that post. Also the initial sync of the changes
//! feed against `all_blogs_with_content`. Run it in release (see `benches/README.md`):
//!
//! ```sh
//! cargo run --release -p blogread-benches --bin export_after_change
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use blogread_benches::data;
use blogread_benches::harness::{self, median};
use blogread_client::export::{self, ExportOptions, Format};
use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogId, BlogInput, ProjectId};
use blogread_core::store::Store;
use clap::Parser;

#[derive(Debug, Parser)]
#[command(about = "Incremental export: a full export against the export after one change")]
struct Cli {
    /// Published posts in the project.
    #[arg(long, default_value_t = 10_000)]
    blogs: usize,
    /// Repetitions of each measurement (the median is shown).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Where the database and the exports go (default: a new temporary folder).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

/// What one export did: its time and the answers it downloaded.
struct Run {
    time: Duration,
    downloaded: u64,
    changes: usize,
}

async fn export_once(base: &str, key: &str, out: &Path, state: &Path) -> Run {
    let client = blogread_client::Client::new(base, key).expect("client");
    let options = ExportOptions::new(out, Format::Zola).state_dir(state);
    let started = Instant::now();
    let report = export::export(&client, &options, |_, _| {})
        .await
        .expect("export");
    Run {
        time: started.elapsed(),
        downloaded: client.cache_stats().fetched,
        changes: report.changes,
    }
}

struct Author {
    service: Service,
    project: ProjectId,
    made: usize,
}

impl Author {
    async fn create(&mut self, slug: &str, title: &str, body: String) -> BlogId {
        self.made += 1;
        let me = Caller::operator();
        let blog = self
            .service
            .create_blog(
                &me,
                self.project,
                BlogInput {
                    title: Some(title.to_owned()),
                    slug: Some(slug.to_owned()),
                    content: Some(body),
                    ..Default::default()
                },
            )
            .await
            .expect("create");
        self.publish(blog.id).await;
        blog.id
    }

    async fn publish(&self, id: BlogId) {
        self.service
            .publish_blog(&Caller::operator(), self.project, id, None)
            .await
            .expect("publish");
    }

    async fn retitle(&self, id: BlogId, title: String) {
        self.service
            .edit_blog(
                &Caller::operator(),
                self.project,
                id,
                BlogInput {
                    title: Some(title),
                    ..Default::default()
                },
            )
            .await
            .expect("edit");
        self.publish(id).await;
    }

    async fn unpublish(&self, id: BlogId) {
        self.service
            .unpublish_blog(&Caller::operator(), self.project, id)
            .await
            .expect("unpublish");
    }
}

fn main() {
    let cli = Cli::parse();
    let cli = &cli;
    harness::in_work_dir(cli.work_dir.as_deref(), "incremental", |dir| async move {
        run(cli, &dir).await
    });
}

async fn run(cli: &Cli, dir: &Path) {
    let db = dir.join("blogread.db");
    let _ = std::fs::remove_file(&db);
    let store: Arc<dyn Store> =
        blogread_core::store::open_store(&format!("sqlite://{}", db.display()))
            .await
            .expect("open the database");
    let service = Service::new(store);
    eprintln!("seeding {} posts…", cli.blogs);
    let (key, project) = data::seed_project(&service, cli.blogs).await.expect("seed");
    let mut author = Author {
        service: service.clone(),
        project,
        made: 0,
    };
    // A post that three posts name in their text (links show its title).
    let target = author
        .create("bench-target", "The target", data::post(&[]))
        .await;
    for i in 0..3 {
        let links = vec!["[INTERNAL:bench-target]".to_owned()];
        author
            .create(&format!("bench-linker-{i}"), "A linker", data::post(&links))
            .await;
    }

    let base = harness::serve(service.clone()).await;

    // The full export: a new folder each time, no cursor.
    let mut full = Vec::new();
    let mut full_downloads = 0;
    for n in 0..cli.repeat {
        let run = export_once(
            &base,
            &key,
            &dir.join(format!("full-{n}/out")),
            &dir.join(format!("full-{n}/state")),
        )
        .await;
        full_downloads = run.downloaded;
        full.push(run.time);
    }
    let full = median(full);
    println!(
        "full export of {} posts: {:.3} s, {full_downloads} answers downloaded",
        cli.blogs + 4,
        full.as_secs_f64()
    );

    // The incremental exports, into the folder of the first full export.
    let (out, state) = (dir.join("full-0/out"), dir.join("full-0/state"));
    let nothing = export_once(&base, &key, &out, &state).await;
    report("nothing changed", &nothing, full);
    let mut rows: Vec<(&str, Vec<Run>)> = vec![
        ("after publishing one new post", Vec::new()),
        (
            "after retitling a post three posts name in text",
            Vec::new(),
        ),
        ("after unpublishing a post three posts link to", Vec::new()),
    ];
    for n in 0..cli.repeat {
        let slug = format!("bench-new-{n}");
        author.create(&slug, "A new post", data::post(&[])).await;
        rows[0].1.push(export_once(&base, &key, &out, &state).await);
        author
            .retitle(target, format!("The target, take {n}"))
            .await;
        rows[1].1.push(export_once(&base, &key, &out, &state).await);
        author.unpublish(target).await;
        rows[2].1.push(export_once(&base, &key, &out, &state).await);
        // Back, unmeasured, for the next round.
        author.publish(target).await;
        export_once(&base, &key, &out, &state).await;
    }
    for (what, runs) in rows {
        let time = median(runs.iter().map(|r| r.time).collect());
        let downloaded = runs.iter().map(|r| r.downloaded).max().unwrap_or(0);
        let changes = runs.iter().map(|r| r.changes).max().unwrap_or(0);
        report(
            what,
            &Run {
                time,
                downloaded,
                changes,
            },
            full,
        );
    }

    // The initial sync of the feed against reading every post with its body.
    let client = blogread_client::Client::new(&base, &key).expect("client");
    let mut sync = Vec::new();
    let mut all = Vec::new();
    for _ in 0..cli.repeat {
        let started = Instant::now();
        let changes = client.changes_since(None).await.expect("initial sync");
        sync.push(started.elapsed());
        assert!(changes.changes.len() > cli.blogs);
        let started = Instant::now();
        let blogs = client.all_blogs_with_content().await.expect("every post");
        all.push(started.elapsed());
        assert!(blogs.len() > cli.blogs);
    }
    println!(
        "initial sync of the changes feed: {:.3} s; all_blogs_with_content: {:.3} s",
        median(sync).as_secs_f64(),
        median(all).as_secs_f64()
    );
}

fn report(what: &str, run: &Run, full: Duration) {
    println!(
        "incremental export {what}: {:.3} s ({:.1} % of the full export), {} answers downloaded, {} changes",
        run.time.as_secs_f64(),
        100.0 * run.time.as_secs_f64() / full.as_secs_f64(),
        run.downloaded,
        run.changes
    );
}
