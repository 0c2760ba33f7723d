//! The public read paths of the SQL stores on a realistic data set: 10 projects of 10,000
//! published blogs of about 8 KB each in one database, read in one of them (so every query
//! also has to skip the other projects' rows).
//!
//! - `list_50`: a list page of 50 without content, with its total;
//! - `page_100_content`: a page of 100 with content (before link resolution);
//! - `sitemap_5000`: the 5000-entry sitemap;
//! - `list_50_category`: a list page of 50 filtered by a category that a tenth of the blogs have.
//!
//! SQLite always runs; its seeded file is cached under the target directory
//! (`blogread-bench/store-*.db`), so only the first run pays for seeding. PostgreSQL runs
//! when `BLOGREAD_TEST_POSTGRES_URL` is set (e.g. under `scripts/with-postgres`), seeding a
//! fresh database `blogread_bench` on that server when it is not already seeded.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use blogread_core::domain::{
    Blog, BlogFields, BlogId, BlogInput, BlogState, Project, ProjectId, ProjectName,
    PublishedSnapshot, Timestamp,
};
use blogread_core::store::prelude::*;
use blogread_core::store::{PageQuery, PostgresStore, SqliteStore};
use criterion::{Criterion, criterion_group, criterion_main};
use tokio::runtime::Runtime;

const PROJECTS: u128 = 10;
const BLOGS_PER_PROJECT: u64 = 10_000;
/// Bump when the seeded data changes, so a stale cached file is not reused.
const SEED_VERSION: u32 = 3;

const SECTION: &str = r#"<h2 id="s{n}">Part {n}: shipping a static blog without a rebuild queue</h2>
<p>When we moved the documentation site to a static host, the first thing we noticed was how
long a single typo fix took to reach readers. A full rebuild ran for <strong>four minutes</strong>,
and the deploy hook fired once per save, so an editor fixing three typos in a row queued three
builds. This post walks through what we changed, what we measured, and what we&rsquo;d do
differently next time.</p>
<p>The short version: we keep the posts in a read-only JSON API, let the site fetch them at build
time, and trigger <em>one</em> rebuild per publish instead of one per keystroke. The long version
follows, with numbers from the last <a href="https://example.com/blog/metrics/">three months of
metrics</a> and a few caveats about caching &amp; invalidation.</p>
<ul>
  <li>Time from &ldquo;publish&rdquo; to the post being visible: median 38&nbsp;s, p95 71&nbsp;s.</li>
  <li>Builds per day: down from 140 to 23, a drop of roughly 84%.</li>
  <li>Failed builds caused by half-saved drafts: zero since the switch &mdash; drafts never leave the API.</li>
</ul>
<p>Internal links such as <a href="[INTERNAL:post-{n}]">an older post</a> are resolved when the
post is read, so renaming a post never leaves a broken link behind.</p>
"#;

fn body(i: u64) -> String {
    let sections: String = (1..=6)
        .map(|n| SECTION.replace("{n}", &(i + n).to_string()))
        .collect();
    format!("<article>\n{sections}</article>\n")
}

/// Deterministic project ids, so that a cached database can be read without a side file.
fn project_id(p: u128) -> ProjectId {
    ProjectId::from_uuid(uuid::Uuid::from_u128(
        0x0b10_6000_0000_7000_8000_0000_0000_0000 + p,
    ))
}

/// The project that is read; the others are there to be skipped.
fn read_project() -> ProjectId {
    project_id(PROJECTS / 2)
}

fn blog(project: ProjectId, i: u64) -> Blog {
    let published_at = Timestamp::from_unix_seconds(1_600_000_000 + i as i64 * 600).unwrap();
    let categories = vec![
        format!("Topic {}", i % 10),
        "Engineering".to_owned(),
        format!("Series {}", i % 100),
    ];
    let fields = BlogFields::new(BlogInput {
        content: Some(body(i)),
        excerpt: Some(
            "What we changed, what we measured, and what we would do differently.".into(),
        ),
        meta_title: Some(format!("Static blog part {i}")),
        meta_description: Some("A build pipeline story with numbers.".into()),
        featured_image_url: Some(Some(format!("https://cdn.example.com/img/{i}.png"))),
        categories: Some(categories),
        tags: Some(vec!["rust".into(), "static-sites".into()]),
        ..BlogInput::new(
            format!("Shipping a static blog, part {i}"),
            format!("post-{i}"),
        )
    })
    .expect("valid blog");
    Blog {
        id: BlogId::generate(),
        project_id: project,
        working: fields.clone(),
        state: BlogState::Published(Box::new(PublishedSnapshot {
            fields,
            published_at,
            updated_at: published_at,
        })),
        created_at: published_at,
        updated_at: published_at,
    }
}

/// Seeds every project through the store (one transaction per blog, `tasks` at once).
async fn seed(store: Arc<dyn Store>, tasks: u64) {
    let started = Instant::now();
    for p in 0..PROJECTS {
        let project = Project::from_stored(
            project_id(p),
            ProjectName::parse(format!("Bench project {p}")).unwrap(),
            None,
            Timestamp::from_unix_seconds(1_600_000_000).unwrap(),
        );
        store.insert_project(&project).await.expect("seed project");
        let workers: Vec<_> = (0..tasks)
            .map(|t| {
                let store = store.clone();
                tokio::spawn(async move {
                    for i in (t..BLOGS_PER_PROJECT).step_by(tasks as usize) {
                        store
                            .insert_blog(&blog(project.id, i))
                            .await
                            .expect("seed blog");
                    }
                })
            })
            .collect();
        for w in workers {
            w.await.unwrap();
        }
        eprintln!(
            "seeded project {}/{PROJECTS} ({:.0?} so far)",
            p + 1,
            started.elapsed()
        );
    }
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("blogread-bench")
}

async fn sqlite_store() -> Arc<dyn Store> {
    let dir = target_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("store-v{SEED_VERSION}.db"));
    if !path.exists() {
        let partial = dir.join(format!("store-v{SEED_VERSION}.db.partial"));
        for stale in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{stale}", partial.display()));
        }
        eprintln!("seeding {} (once; later runs reuse it)", path.display());
        let store = SqliteStore::connect(&format!("sqlite://{}", partial.display()))
            .await
            .unwrap();
        seed(Arc::new(store.clone()), 1).await;
        store.close().await;
        std::fs::rename(&partial, &path).unwrap();
    }
    Arc::new(
        SqliteStore::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap(),
    )
}

async fn postgres_store(server: &str) -> Arc<dyn Store> {
    use sqlx::{Connection, Executor, PgConnection};
    let mut url = url::Url::parse(server).expect("BLOGREAD_TEST_POSTGRES_URL is a URL");
    url.set_path("blogread_bench");
    let url = String::from(url);
    let mut admin = PgConnection::connect(server).await.unwrap();
    let exists: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = 'blogread_bench'")
            .fetch_optional(&mut admin)
            .await
            .unwrap();
    if exists.is_some() {
        let store = PostgresStore::connect(&url).await.unwrap();
        let seeded = store.project(project_id(PROJECTS - 1)).await.unwrap();
        let last = store.sitemap(project_id(PROJECTS - 1), 1).await.unwrap();
        if seeded.is_some() && !last.is_empty() {
            return Arc::new(store);
        }
        store.close().await;
        admin
            .execute("DROP DATABASE blogread_bench WITH (FORCE)")
            .await
            .unwrap();
    }
    admin
        .execute("CREATE DATABASE blogread_bench")
        .await
        .unwrap();
    admin.close().await.unwrap();
    eprintln!("seeding PostgreSQL database blogread_bench");
    let store = Arc::new(PostgresStore::connect(&url).await.unwrap());
    seed(store.clone(), 8).await;
    // Fresh statistics, as autovacuum would have gathered them by now in a running system.
    let mut conn = PgConnection::connect(&url).await.unwrap();
    conn.execute("VACUUM ANALYZE").await.unwrap();
    conn.close().await.unwrap();
    store
}

fn read_paths(c: &mut Criterion, rt: &Runtime, backend: &str, store: Arc<dyn Store>) {
    let project = read_project();
    let mut group = c.benchmark_group(format!("store_{backend}"));
    let list = PageQuery {
        limit: 50,
        offset: 0,
        category: None,
        include_content: false,
    };
    let page = rt.block_on(store.published_page(project, &list)).unwrap();
    assert_eq!((page.blogs.len(), page.total), (50, BLOGS_PER_PROJECT));
    group.bench_function("list_50", |b| {
        b.iter(|| {
            rt.block_on(store.published_page(project, black_box(&list)))
                .unwrap()
        })
    });
    let with_content = PageQuery {
        limit: 100,
        offset: 0,
        category: None,
        include_content: true,
    };
    let page = rt
        .block_on(store.published_page(project, &with_content))
        .unwrap();
    assert!(
        page.blogs
            .iter()
            .all(|b| b.content.as_ref().is_some_and(|c| c.len() > 7_000))
    );
    group.bench_function("page_100_content", |b| {
        b.iter(|| {
            rt.block_on(store.published_page(project, black_box(&with_content)))
                .unwrap()
        })
    });
    let sitemap = rt.block_on(store.sitemap(project, 5000)).unwrap();
    assert_eq!(sitemap.len(), 5000);
    group.bench_function("sitemap_5000", |b| {
        b.iter(|| {
            rt.block_on(store.sitemap(project, black_box(5000)))
                .unwrap()
        })
    });
    let category = PageQuery {
        category: Some(blogread_core::store::category_key("Topic 3")),
        ..list.clone()
    };
    let page = rt
        .block_on(store.published_page(project, &category))
        .unwrap();
    assert_eq!((page.blogs.len(), page.total), (50, BLOGS_PER_PROJECT / 10));
    group.bench_function("list_50_category", |b| {
        b.iter(|| {
            rt.block_on(store.published_page(project, black_box(&category)))
                .unwrap()
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sqlite = rt.block_on(sqlite_store());
    read_paths(c, &rt, "sqlite", sqlite);
    match std::env::var("BLOGREAD_TEST_POSTGRES_URL") {
        Ok(server) if !server.is_empty() => {
            let postgres = rt.block_on(postgres_store(&server));
            read_paths(c, &rt, "postgres", postgres);
        }
        _ => eprintln!("PostgreSQL benchmarks skipped: BLOGREAD_TEST_POSTGRES_URL is not set"),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
