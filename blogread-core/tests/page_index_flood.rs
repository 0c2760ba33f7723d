//! A client that makes up categories costs the SQL store's page index nothing: 300,000 list
//! reads of distinct categories of one project (the flood that once grew a server by 34 MiB)
//! leave the server's heap within the index's bound, and nothing is held for them. One test
//! in its own binary, so that no other test allocates while the heap is measured.

use std::sync::Arc;

use blogread_core::domain::BlogInput;
use blogread_core::store::{PageQuery, SqliteStore, Store};
use blogread_core::testing::Fixture;

/// The page index's default bound, as `docs/operations.md#deep-pages` states it.
const DOCUMENTED_BOUND: u64 = 16 * 1024 * 1024;

/// Anonymous resident memory of this process (the heap), in bytes.
fn heap_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let line = status
        .lines()
        .find(|l| l.starts_with("RssAnon:"))
        .expect("RssAnon in /proc/self/status");
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_made_up_categories_holds_nothing_and_stays_within_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("flood.db").display());
    let store: Arc<dyn Store> = Arc::new(SqliteStore::connect(&url).await.unwrap());
    let f = Fixture::new(Arc::clone(&store), None).await;
    for i in 0..20 {
        let blog = f
            .draft_with(BlogInput {
                title: Some(format!("Post {i}")),
                slug: Some(format!("post-{i}")),
                categories: Some(vec!["real".into()]),
                ..Default::default()
            })
            .await;
        f.publish(&blog, None).await;
    }
    let project = f.project;
    let reader = Arc::clone(&store);
    let read = move |n: u64| {
        let store = Arc::clone(&reader);
        async move {
            let query = PageQuery {
                limit: 50,
                // Near the top, and deep (where the plain way would step over the offset).
                offset: if n.is_multiple_of(10) { 1000 } else { 0 },
                category: Some(format!("made-up-category-{n:07}")),
                include_content: false,
            };
            let page = store.published_page(project, &query).await.unwrap();
            assert_eq!((page.total, page.blogs.len()), (0, 0));
        }
    };
    // Warm up the connections and caches before measuring.
    for n in 0..2_000 {
        read(n).await;
    }
    let before = heap_bytes();
    const READS: u64 = 300_000;
    const TASKS: u64 = 4;
    let tasks: Vec<_> = (0..TASKS)
        .map(|t| {
            let read = read.clone();
            tokio::spawn(async move {
                for n in (t..READS).step_by(TASKS as usize) {
                    read(2_000 + n).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let grown = heap_bytes().saturating_sub(before);
    println!("300,000 made-up categories read: the heap grew by {grown} bytes");
    assert!(
        grown <= DOCUMENTED_BOUND,
        "grew by {grown} bytes; the page index's bound is {DOCUMENTED_BOUND}"
    );
    // The real category still pages as before.
    let real = PageQuery {
        limit: 5,
        offset: 0,
        category: Some("real".into()),
        include_content: false,
    };
    let page = store.published_page(f.project, &real).await.unwrap();
    assert_eq!((page.total, page.blogs.len()), (20, 5));
}
