//! The export-with-images benchmark: one project of 1,000 published posts on SQLite, each
//! with a featured image and two body images of its own (3,000 stored images of about 100 KB),
//! the real server on loopback, and `blogread export --format zola` (the client library's
//! export, as the command runs it) timed for the first export, which brings every image home,
//! and for the export after publishing one post with new images, which should fetch that
//! post's answer and its images only. Run it in release (see `benches/README.md`):
//!
//! ```sh
//! cargo run --release -p blogread-benches --bin export_images
//! ```
//!
//! The images are stored as the media store keeps them (files, then rows), not uploaded
//! through the image pipeline: what is measured is the export, and 3,000 decodes would take
//! longer than every export together.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use blogread_benches::data;
use blogread_benches::harness::median;
use blogread_client::export::{self, ExportOptions, Format, MediaMode};
use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{
    AltText, BlogInput, MediaId, MediaItem, ProjectId, Sha256Hex, StoredImageType, Timestamp,
};
use blogread_core::media::{ImagePool, LocalFolder, MediaFiles, MediaPath};
use blogread_core::service::MediaSetup;
use blogread_core::store::Store;
use blogread_media::OutputKind;
use clap::Parser;

#[derive(Debug, Parser)]
#[command(about = "Export with images: the first export against the export after one new post")]
struct Cli {
    /// Published posts in the project, each with a featured image and two body images.
    #[arg(long, default_value_t = 1_000)]
    blogs: usize,
    /// Repetitions of the incremental measurement (the median is shown).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Where the database, the images and the exports go (default: a new temporary folder).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

/// What one export did.
struct Run {
    time: Duration,
    answers: u64,
    images_downloaded: usize,
    images_kept: usize,
}

/// The side of the square noise PNGs: 160 × 160 RGBA of noise is about 100 KB.
const SIDE: u32 = 160;

/// Stores image number `n` of `project` (a PNG of noise, as the media store keeps an item:
/// the file, then the row) and answers its public URL.
async fn store_image(
    store: &Arc<dyn Store>,
    files: &LocalFolder,
    base: &str,
    project: ProjectId,
    n: u64,
) -> String {
    // Odd seeds: the noise generator makes a seed odd, so two neighbours would draw alike.
    let bytes = blogread_media::samples::noise_png(SIDE, SIDE, 2 * n + 1);
    let sha256 = Sha256Hex::of(&bytes);
    let path = MediaPath::master(project, sha256.as_str(), OutputKind::Png).expect("a digest");
    let item = MediaItem {
        id: MediaId::generate(),
        project_id: project,
        sha256,
        content_type: StoredImageType::Png,
        width: SIDE,
        height: SIDE,
        bytes: bytes.len() as u64,
        alt: AltText::new(format!("Image {n}")).expect("short"),
        variants: Vec::new(),
        created_at: Timestamp::now(),
    };
    files
        .put(&path, bytes.into())
        .await
        .expect("store the file");
    store
        .insert_media(&item, base)
        .await
        .expect("store the row");
    format!("{base}{}", item.path(None))
}

/// A published post of `project` showing `images`: the first as its featured image, the
/// others in its body.
async fn publish_with(service: &Service, project: ProjectId, slug: &str, images: &[String]) {
    let me = Caller::operator();
    let mut body = data::post(&[]);
    for url in &images[1..] {
        body.push_str(&format!("<p><img src=\"{url}\" alt=\"A picture\"></p>\n"));
    }
    let blog = service
        .create_blog(
            &me,
            project,
            BlogInput {
                title: Some(format!("Post {slug}")),
                slug: Some(slug.to_owned()),
                content: Some(body),
                featured_image_url: Some(Some(images[0].clone())),
                ..Default::default()
            },
        )
        .await
        .expect("create");
    service
        .publish_blog(&me, project, blog.id, None)
        .await
        .expect("publish");
}

async fn export_once(base: &str, key: &str, site: &Path) -> Run {
    let client = blogread_client::Client::new(base, key).expect("client");
    let options = ExportOptions::new(site.join("content/blog"), Format::Zola)
        .state_dir(site.join(".blogread"))
        .static_dir(site.join("static"))
        .media(MediaMode::Local);
    let started = Instant::now();
    let report = export::export(&client, &options, |_, _| {})
        .await
        .expect("export");
    Run {
        time: started.elapsed(),
        answers: client.cache_stats().fetched,
        images_downloaded: report.media.downloaded.len(),
        images_kept: report.media.kept.len(),
    }
}

fn main() {
    let cli = Cli::parse();
    let cli = &cli;
    blogread_benches::harness::in_work_dir(
        cli.work_dir.as_deref(),
        "export-images",
        |dir| async move { run(cli, &dir).await },
    );
}

async fn run(cli: &Cli, dir: &Path) {
    let db = dir.join("blogread.db");
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_dir_all(dir.join("media"));
    let store: Arc<dyn Store> =
        blogread_core::store::open_store(&format!("sqlite://{}", db.display()))
            .await
            .expect("open the database");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let files = LocalFolder::open(&dir.join("media")).expect("media folder");
    let setup = MediaSetup::new(
        Arc::new(files.clone()),
        ImagePool::new(1, Duration::from_secs(60)),
        &base,
    );
    let service = Service::new(Arc::clone(&store)).with_media(setup);
    let server = blogread_server::Server::new(service.clone());
    tokio::spawn(server.serve(listener, std::future::pending::<()>()));

    eprintln!("seeding {} posts with 3 images each…", cli.blogs);
    let (key, project) = data::seed_project(&service, 0).await.expect("project");
    let mut n = 0;
    let mut image_bytes = 0u64;
    for i in 0..cli.blogs {
        let mut images = Vec::new();
        for _ in 0..3 {
            images.push(store_image(&store, &files, &base, project, n).await);
            n += 1;
        }
        publish_with(&service, project, &format!("post-{i}"), &images).await;
        if i == 0 {
            let listed = service
                .media_list(
                    &Caller::operator(),
                    project,
                    blogread_core::read::ListParams::new(),
                )
                .await
                .expect("list");
            image_bytes = listed.media[0].item.bytes;
        }
    }
    eprintln!("{n} images of {image_bytes} bytes each stored");

    let site = dir.join("site");
    let _ = std::fs::remove_dir_all(&site);
    let first = export_once(&base, &key, &site).await;
    println!(
        "first export: {:.3} s, {} answers, {} images downloaded, {} kept",
        first.time.as_secs_f64(),
        first.answers,
        first.images_downloaded,
        first.images_kept
    );
    assert_eq!(first.images_downloaded, 3 * cli.blogs, "each image once");

    let mut runs = Vec::new();
    for r in 0..cli.repeat {
        let mut images = Vec::new();
        for _ in 0..3 {
            images.push(store_image(&store, &files, &base, project, n).await);
            n += 1;
        }
        publish_with(&service, project, &format!("new-{r}"), &images).await;
        let run = export_once(&base, &key, &site).await;
        println!(
            "after publishing one post with 3 new images: {:.3} s ({:.1} % of the first), {} answers, {} images downloaded, {} kept",
            run.time.as_secs_f64(),
            100.0 * run.time.as_secs_f64() / first.time.as_secs_f64(),
            run.answers,
            run.images_downloaded,
            run.images_kept
        );
        assert_eq!(run.images_downloaded, 3, "only the new post's images");
        runs.push(run.time);
    }
    let incremental = median(runs);
    println!(
        "median incremental: {:.3} s = {:.1} % of the first export (target: at most 10 %)",
        incremental.as_secs_f64(),
        100.0 * incremental.as_secs_f64() / first.time.as_secs_f64()
    );
}
