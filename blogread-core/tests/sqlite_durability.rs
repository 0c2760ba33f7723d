//! Durability of the SQLite backend: a writer process is killed with SIGKILL in the middle of
//! a stream of publishes; every publish that had returned must be there afterwards, and the
//! database must pass `PRAGMA integrity_check`.
//!
//! The test re-runs its own binary as the writer: with `BLOGREAD_DURABILITY_WRITER` set to
//! a database URL, the `writer` test below publishes in a loop and prints
//! `published <project id> <slug>` right after each publish call has returned.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use blogread_core::domain::{BlogInput, Project, ProjectId, ProjectName, Timestamp};
use blogread_core::lifecycle;
use blogread_core::store::SqliteStore;
use blogread_core::store::prelude::*;
use sqlx::{Connection, SqliteConnection};

const WRITER_ENV: &str = "BLOGREAD_DURABILITY_WRITER";
/// Publishes to see returned before the kill.
const KILL_AFTER: usize = 300;

/// The writer half: does nothing unless started by the test below.
#[tokio::test]
async fn writer() {
    let Ok(url) = std::env::var(WRITER_ENV) else {
        return;
    };
    let store = SqliteStore::connect(&url).await.expect("open");
    let now = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
    let project = Project::new(ProjectName::parse("Durable").unwrap(), None, now);
    store.insert_project(&project).await.expect("project");
    let body = "<p>durable words</p>".repeat(400);
    for i in 0u64.. {
        let slug = format!("post-{i}");
        let blog = lifecycle::create(
            project.id,
            BlogInput {
                title: Some(format!("Post {i}")),
                slug: Some(slug.clone()),
                content: Some(body.clone()),
                categories: Some(vec!["Durability".into()]),
                ..Default::default()
            },
            now,
        )
        .expect("valid blog");
        store.insert_blog(&blog).await.expect("insert");
        store
            .update_blog(
                project.id,
                blog.id,
                blogread_core::store::BlogUpdate::new(
                    Box::new(move |b| lifecycle::publish(b, None, now)),
                    now,
                ),
            )
            .await
            .expect("publish");
        // println! flushes at the newline: the parent sees the line once it has returned.
        println!("published {} {slug}", project.id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_returned_publish_survives_a_kill_9_of_the_writer() {
    if std::env::var(WRITER_ENV).is_ok() {
        return; // this process is the writer
    }
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("durable.db").display());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "writer", "--nocapture", "--test-threads=1"])
        .env(WRITER_ENV, &url)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the writer");
    let stdout = child.stdout.take().unwrap();
    let mut returned: Vec<(ProjectId, String)> = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read the writer's output");
        let Some(rest) = line.strip_prefix("published ") else {
            continue;
        };
        let (project, slug) = rest.split_once(' ').expect("`published <project> <slug>`");
        returned.push((project.parse().unwrap(), slug.to_owned()));
        if returned.len() == KILL_AFTER {
            child.kill().expect("SIGKILL the writer"); // Child::kill is SIGKILL on Unix
            break;
        }
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "the writer was killed, not finished");
    assert_eq!(returned.len(), KILL_AFTER, "the writer stopped early");

    let mut conn = SqliteConnection::connect(&url).await.unwrap();
    let check: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(check, "ok");
    conn.close().await.unwrap();

    let store = SqliteStore::connect(&url)
        .await
        .expect("reopen after the crash");
    for (project, slug) in &returned {
        let blog = store
            .published_by_slug(*project, slug)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("publish of {slug} returned but is gone"));
        assert_eq!(blog.content.as_deref().map(str::len), Some(20 * 400));
    }
    // Whatever the kill interrupted is all or nothing: no blog is half-published.
    let (project, _) = &returned[0];
    let drafts = store
        .blogs(
            *project,
            Some(blogread_core::domain::BlogStatus::Draft),
            100,
            0,
        )
        .await
        .unwrap();
    assert!(
        drafts.total <= 1,
        "at most the one being published when killed"
    );
    let page = store
        .published_page(
            *project,
            &blogread_core::store::PageQuery {
                limit: 1,
                offset: 0,
                category: Some("durability".into()),
                include_content: false,
            },
        )
        .await
        .unwrap();
    let published = store.sitemap(*project, u32::MAX).await.unwrap().len() as u64;
    assert_eq!(
        page.total, published,
        "category rows match the published blogs"
    );
    let all = store
        .published_page(
            *project,
            &blogread_core::store::PageQuery {
                limit: 1,
                offset: 0,
                category: None,
                include_content: false,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        all.total, published,
        "the published count matches the published blogs"
    );
    assert!(published >= KILL_AFTER as u64);
}
