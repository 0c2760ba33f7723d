//! The links report on a project of 10,000 published posts (about 1.5 KB each, three
//! placeholders in each of their two bodies, one post in twenty linking to a slug that does
//! not exist): `GET .../links?state=broken` as the service answers it, on SQLite.
//!
//! - `broken_10000`: the first page (50) of the broken placeholders, with their total.
//! - `sources_10000`: the store's read of every target and every body's placeholders, which
//!   `state=all` reads (`state=broken` reads the bodies naming a broken slug only).
//!
//! Each run seeds a new SQLite file under the target directory (`blogread-bench/links.db`),
//! and, under `scripts/with-postgres`, a new PostgreSQL database (the `_postgres` figures).
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use blogread_core::domain::{
    Blog, BlogFields, BlogId, BlogInput, BlogState, PublishedSnapshot, Timestamp,
};
use blogread_core::read::ListParams;
use blogread_core::service::LinkFilter;
use blogread_core::store::{PostgresStore, SqliteStore, Store};
use blogread_core::testing::Fixture;
use blogread_core::testing::databases::{DropDatabase, fresh_database};
use criterion::{Criterion, criterion_group, criterion_main};
use tokio::runtime::Runtime;

const POSTS: u64 = 10_000;

fn body(i: u64) -> String {
    let broken = if i.is_multiple_of(20) {
        "typo-in-a-slug"
    } else {
        "post-1"
    };
    format!(
        r#"<article><h2>Part {i}</h2><p>When we moved the documentation site to a static host, the
first thing we noticed was how long a single typo fix took to reach readers. See
<a href="[INTERNAL:post-{prev}]">the previous part</a> and [INTERNAL:post-{next}] first.</p>
<p>The short version: we keep the posts in a read-only JSON API, let the site fetch them at
build time, and trigger <em>one</em> rebuild per publish instead of one per keystroke.</p>
<p>Numbers are in <a href="[INTERNAL:{broken}]#numbers">the metrics post</a>.</p>
<ul><li>Median time to visible: 38&nbsp;s.</li><li>Builds per day: 23.</li></ul></article>"#,
        prev = i.saturating_sub(1),
        next = (i + 1) % POSTS,
    )
}

fn blog(project: blogread_core::domain::ProjectId, i: u64) -> Blog {
    let at = Timestamp::from_unix_seconds(1_600_000_000 + i as i64 * 600).unwrap();
    let fields = BlogFields::new(BlogInput {
        title: Some(format!("Shipping a static blog, part {i}")),
        slug: Some(format!("post-{i}")),
        content: Some(body(i)),
        ..Default::default()
    })
    .expect("valid blog");
    Blog {
        id: BlogId::generate(),
        project_id: project,
        working: fields.clone(),
        state: BlogState::Published(Box::new(PublishedSnapshot {
            fields,
            published_at: at,
            updated_at: at,
        })),
        created_at: at,
        updated_at: at,
    }
}

fn db_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("blogread-bench");
    std::fs::create_dir_all(&dir).expect("bench directory");
    dir.join("links.db")
}

/// Seeds the project of the bench into `store`.
async fn seeded(store: Arc<dyn Store>) -> Fixture {
    let f = Fixture::new(Arc::clone(&store), Some("https://example.com")).await;
    for i in 0..POSTS {
        store
            .insert_blog(&blog(f.project, i))
            .await
            .expect("insert");
    }
    f
}

async fn sqlite() -> (Fixture, Arc<dyn Store>) {
    let path = db_path();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let url = format!("sqlite://{}", path.display());
    let store: Arc<dyn Store> = Arc::new(SqliteStore::connect(&url).await.expect("sqlite"));
    (seeded(Arc::clone(&store)).await, store)
}

/// On the PostgreSQL server `BLOGREAD_TEST_POSTGRES_URL` names (`scripts/with-postgres`
/// gives one), in a database of its own, dropped when the guard goes; vacuumed after the
/// seeding, as the load benchmark does, so that autovacuum stays idle while measuring and
/// the index-only scans find the visibility map set, as in a database that has run a while.
async fn postgres() -> Option<(Fixture, Arc<dyn Store>, DropDatabase)> {
    let (url, guard) = fresh_database().await?;
    let store: Arc<dyn Store> = Arc::new(PostgresStore::connect(&url).await.expect("postgres"));
    let f = seeded(Arc::clone(&store)).await;
    blogread_benches::harness::vacuum(&url)
        .await
        .expect("vacuum");
    Some((f, store, guard))
}

fn bench_store(c: &mut Criterion, rt: &Runtime, name: &str, f: &Fixture, store: &Arc<dyn Store>) {
    let params = || ListParams {
        limit: 50,
        ..Default::default()
    };
    let first = rt
        .block_on(
            f.service
                .links(&f.admin, f.project, LinkFilter::Broken, params()),
        )
        .expect("links");
    assert_eq!(
        first.total,
        POSTS / 20 * 2,
        "one broken link in each body of 1 post in 20"
    );
    c.bench_function(&format!("links_report/broken_10000{name}"), |b| {
        b.to_async(rt).iter(|| async {
            black_box(
                f.service
                    .links(&f.admin, f.project, LinkFilter::Broken, params())
                    .await
                    .expect("links"),
            )
        })
    });
    c.bench_function(&format!("links_report/sources_10000{name}"), |b| {
        b.to_async(rt).iter(|| async {
            let targets = store.link_targets(f.project).await.expect("targets");
            let keys = store.link_body_keys(f.project, None).await.expect("keys");
            let bodies = store.link_bodies(f.project, &keys).await.expect("bodies");
            black_box((targets, bodies))
        })
    });
}

fn links_report(c: &mut Criterion) {
    let rt = Runtime::new().expect("runtime");
    let (f, store) = rt.block_on(sqlite());
    bench_store(c, &rt, "", &f, &store);
    match rt.block_on(postgres()) {
        Some((f, store, _guard)) => {
            bench_store(c, &rt, "_postgres", &f, &store);
            rt.block_on(store.close());
        }
        None => eprintln!(
            "links_report: no BLOGREAD_TEST_POSTGRES_URL, the PostgreSQL figures are skipped \
             (run under scripts/with-postgres for them)"
        ),
    }
}

criterion_group!(benches, links_report);
criterion_main!(benches);
