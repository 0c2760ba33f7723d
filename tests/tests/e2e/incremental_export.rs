//! The incremental export against the real server: random sequences of publishes, re-syncs
//! with new titles and new slugs, unpublishes, deletes and schedules, among posts whose bodies
//! link to each other, exported after every step in every format from the changes feed, end
//! byte for byte where a fresh full export into an empty folder ends.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use blogread_client::export::{self, ExportError, ExportOptions, Format, FullRead};
use blogread_core::clock::{Clock, ManualClock};
use blogread_core::domain::Timestamp;
use blogread_tests::{TestApp, TestProject, spawn_app, spawn_app_with};
use proptest::prelude::*;
use reqwest::Method;
use serde_json::json;

/// Few slugs, so that renames land on old slugs and aliases change hands.
const SLUGS: [&str; 5] = ["alpha", "beta", "gamma", "delta", "omega"];

const FORMATS: [Format; 3] = [Format::Zola, Format::Hugo, Format::Html];

/// One thing an author does. `post` picks one of the posts made so far (modulo their number).
#[derive(Debug, Clone)]
enum Step {
    /// A new post at `SLUGS[slug]` whose body links to `SLUGS[links]` (in text, where the
    /// link shows the target's title, and in an href), published now or scheduled.
    Create {
        slug: usize,
        links: Vec<usize>,
        schedule: bool,
    },
    /// A new title, published (a re-sync when the post is published).
    Retitle { post: usize, title: u8 },
    /// A new slug, published (a rename when the post is published).
    Rename { post: usize, slug: usize },
    /// Unpublished (when published).
    Unpublish { post: usize },
    /// Deleted, whatever its status.
    Delete { post: usize },
    /// Published again (an unpublished or draft post), now or scheduled.
    Publish { post: usize, schedule: bool },
    /// The clock moves on: scheduled posts whose time comes go live.
    Advance { minutes: u16 },
}

fn step() -> impl Strategy<Value = Step> {
    let slug = 0..SLUGS.len();
    prop_oneof![
        3 => (slug.clone(), proptest::collection::vec(slug.clone(), 0..3), any::<bool>())
            .prop_map(|(slug, links, schedule)| Step::Create { slug, links, schedule }),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(post, title)| Step::Retitle { post, title }),
        2 => (any::<usize>(), slug).prop_map(|(post, slug)| Step::Rename { post, slug }),
        1 => any::<usize>().prop_map(|post| Step::Unpublish { post }),
        1 => any::<usize>().prop_map(|post| Step::Delete { post }),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(post, schedule)| Step::Publish { post, schedule }),
        1 => (1u16..90).prop_map(|minutes| Step::Advance { minutes }),
    ]
}

/// The author's side: the server, the project, the posts made (by id) and the clock.
struct Author {
    app: TestApp,
    project: TestProject,
    clock: Arc<ManualClock>,
    posts: Vec<String>,
    made: usize,
}

impl Author {
    fn pick(&self, post: usize) -> Option<String> {
        (!self.posts.is_empty()).then(|| self.posts[post % self.posts.len()].clone())
    }

    /// Publishes `id` now, or an hour from now when `schedule`. A move the post's status does
    /// not allow (409) is skipped: the sequence goes on.
    async fn publish(&self, id: &str, schedule: bool) {
        let at = schedule.then(|| {
            Timestamp::from_unix_seconds(self.clock.now().unix_seconds() + 3600)
                .expect("in range")
                .to_string()
        });
        let r = self.app.publish(&self.project, id, at.as_deref()).await;
        assert!(matches!(r.status, 200 | 409), "{r:?}");
    }

    async fn patch(&self, id: &str, body: serde_json::Value) -> bool {
        let path = self.project.path(&format!("/blogs/{id}"));
        let r = self
            .app
            .send(Method::PATCH, &path, Some(&self.project.admin), Some(body))
            .await;
        // 409: the slug is another post's.
        assert!(matches!(r.status, 200 | 409), "{r:?}");
        r.status == 200
    }

    async fn apply(&mut self, step: &Step) {
        // Every step takes a second, so that times differ from step to step.
        self.clock.advance(1);
        match step {
            Step::Create {
                slug,
                links,
                schedule,
            } => {
                self.made += 1;
                let mut content = format!("<p>Post {}.</p>", self.made);
                for (i, link) in links.iter().enumerate() {
                    content.push_str(&format!(
                        "<p>See [INTERNAL:{0}], or <a href=\"[INTERNAL:{0}]#part-{i}\">there</a>.</p>",
                        SLUGS[*link]
                    ));
                }
                let body = json!({
                    "title": format!("Post {}", self.made),
                    "slug": SLUGS[*slug],
                    "content": content,
                    "categories": ["News"],
                });
                let r = self
                    .app
                    .send(
                        Method::POST,
                        &self.project.path("/blogs"),
                        Some(&self.project.admin),
                        Some(body),
                    )
                    .await;
                assert!(matches!(r.status, 201 | 409), "{r:?}");
                if r.status == 201 {
                    let id = r.json["id"].as_str().expect("id").to_owned();
                    self.publish(&id, *schedule).await;
                    self.posts.push(id);
                }
            }
            Step::Retitle { post, title } => {
                if let Some(id) = self.pick(*post)
                    && self
                        .patch(&id, json!({ "title": format!("Title {title}") }))
                        .await
                {
                    self.publish(&id, false).await;
                }
            }
            Step::Rename { post, slug } => {
                if let Some(id) = self.pick(*post)
                    && self.patch(&id, json!({ "slug": SLUGS[*slug] })).await
                {
                    self.publish(&id, false).await;
                }
            }
            Step::Unpublish { post } => {
                if let Some(id) = self.pick(*post) {
                    let path = self.project.path(&format!("/blogs/{id}/unpublish"));
                    let r = self
                        .app
                        .send(Method::POST, &path, Some(&self.project.admin), None)
                        .await;
                    assert!(matches!(r.status, 200 | 409), "{r:?}");
                }
            }
            Step::Delete { post } => {
                if let Some(id) = self.pick(*post) {
                    let path = self.project.path(&format!("/blogs/{id}"));
                    let r = self
                        .app
                        .send(Method::DELETE, &path, Some(&self.project.admin), None)
                        .await;
                    assert_eq!(r.status, 204, "{r:?}");
                    self.posts.retain(|p| *p != id);
                }
            }
            Step::Publish { post, schedule } => {
                if let Some(id) = self.pick(*post) {
                    self.publish(&id, *schedule).await;
                }
            }
            Step::Advance { minutes } => self.clock.advance(i64::from(*minutes) * 60),
        }
    }
}

/// Every file below `dir`, by path relative to it, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("below");
                let rel = rel.to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Each format in a folder of its own, with its own state.
fn options(root: &Path, name: &str, format: Format) -> ExportOptions {
    let dir = root.join(name).join(format!("{format:?}"));
    ExportOptions::new(dir.join("out"), format).state_dir(dir.join("state"))
}

/// Runs `steps`, exporting incrementally after each, and compares each format's folder with a
/// fresh full export at the end.
async fn run(steps: Vec<Step>) {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2026-03-01T08:00:00Z").expect("time"),
    ));
    let app = spawn_app_with({
        let clock = clock.clone();
        move |service| service.with_clock(clock)
    })
    .await;
    let project = app.new_project(Some("https://www.example.com")).await;
    let client = blogread_client::Client::new(&app.base, &project.key).expect("client");
    let mut author = Author {
        app,
        project,
        clock,
        posts: Vec::new(),
        made: 0,
    };
    let root = tempfile::tempdir().expect("temporary folder");

    for format in FORMATS {
        let report = export::export(&client, &options(root.path(), "ours", format), |_, _| {})
            .await
            .expect("first export");
        assert_eq!(report.full_read, Some(FullRead::NoCursor), "{format:?}");
    }
    for (n, step) in steps.iter().enumerate() {
        author.apply(step).await;
        for format in FORMATS {
            let report = export::export(&client, &options(root.path(), "ours", format), |_, _| {})
                .await
                .unwrap_or_else(|e| panic!("step {n} ({step:?}), {format:?}: {e}"));
            assert_eq!(
                report.full_read, None,
                "step {n} ({step:?}), {format:?}: only the changes are read"
            );
            assert!(report.conflicts.is_empty(), "{:?}", report.conflicts);
        }
    }
    for format in FORMATS {
        let fresh = options(root.path(), "fresh", format);
        let report = export::export(&client, &fresh, |_, _| {})
            .await
            .expect("fresh export");
        assert!(report.full_read.is_some());
        let ours = snapshot(&options(root.path(), "ours", format).out);
        let theirs = snapshot(&fresh.out);
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{format:?}: the same files after {steps:?}"
        );
        for (rel, bytes) in &theirs {
            assert!(
                ours[rel] == *bytes,
                "{format:?}: {rel} differs after {steps:?}:\n{}\n---- fresh:\n{}",
                String::from_utf8_lossy(&ours[rel]),
                String::from_utf8_lossy(bytes)
            );
        }
        std::fs::remove_dir_all(root.path().join("fresh")).expect("remove the fresh export");
    }
}

proptest! {
    // Each case starts a server on a new SQLite file and exports three formats after every
    // step: a few dozen cases cover the moves (PROPTEST_CASES raises it).
    #![proptest_config(ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    })]

    #[test]
    fn an_incremental_export_after_every_step_ends_as_a_fresh_full_export(
        steps in proptest::collection::vec(step(), 1..14)
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(run(steps));
    }
}

/// Publishes a post at each of `slugs` in `project`.
async fn publish_all(app: &TestApp, project: &TestProject, slugs: &[&str]) {
    for slug in slugs {
        app.published_blog(project, slug, "2026-01-01T10:00:00Z", json!({}))
            .await;
    }
}

/// A state folder written with one project's key is refused with another project's (the
/// server refuses the cursor, bound to its project), not one file removed; `full` takes it
/// over; a rotated key of the same project is taken, since the server takes its cursor.
#[tokio::test]
async fn a_state_folder_of_another_project_is_refused_unless_full() {
    let app = spawn_app().await;
    let a = app.new_project(None).await;
    let b = app.new_project(None).await;
    publish_all(&app, &a, &["alpha", "beta", "gamma"]).await;
    publish_all(&app, &b, &["omega"]).await;
    let root = tempfile::tempdir().expect("temporary folder");
    let options = ExportOptions::new(root.path().join("out"), Format::Zola)
        .state_dir(root.path().join("state"));
    let as_a = blogread_client::Client::new(&app.base, &a.key).expect("client");
    let as_b = blogread_client::Client::new(&app.base, &b.key).expect("client");
    export::export(&as_a, &options, |_, _| {})
        .await
        .expect("A's export");
    let before = snapshot(root.path());

    let err = export::export(&as_b, &options, |_, _| {})
        .await
        .expect_err("B's key in A's folder");
    match &err {
        ExportError::AnotherProject {
            files: 3,
            was,
            now,
            refused: Some(detail),
            ..
        } => {
            assert_eq!(was.as_str(), &a.key[..12]);
            assert_eq!(now.as_str(), &b.key[..12]);
            assert!(detail.contains("another project"), "{detail}");
        }
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(snapshot(root.path()), before, "nothing written or removed");

    // The same project with a rotated key: the server takes the cursor.
    let r = app
        .send(
            Method::POST,
            &a.path("/public-key/rotate"),
            Some(&a.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 201, "{r:?}");
    let rotated = r.json["key"].as_str().expect("key").to_owned();
    let as_a = blogread_client::Client::new(&app.base, &rotated).expect("client");
    let report = export::export(&as_a, &options, |_, _| {})
        .await
        .expect("A's rotated key");
    assert_eq!(report.full_read, None, "incremental: the same project");

    // B's key with a full read asked for: B's posts replace A's.
    let report = export::export(&as_b, &options.clone().full(true), |_, _| {})
        .await
        .expect("taken over");
    assert_eq!(report.removed, ["alpha.md", "beta.md", "gamma.md"]);
    assert_eq!(
        snapshot(&options.out).keys().collect::<Vec<_>>(),
        ["omega.md"]
    );
}

/// Exported files whose manifest is not in the state folder given stop the export before it
/// asks the server, with one error naming that folder, and no folder made.
#[tokio::test]
async fn exported_files_without_their_manifest_stop_the_export_naming_the_state_folder() {
    let app = spawn_app().await;
    let project = app.new_project(None).await;
    publish_all(&app, &project, &["alpha", "beta"]).await;
    let client = blogread_client::Client::new(&app.base, &project.key).expect("client");
    let root = tempfile::tempdir().expect("temporary folder");
    let out = root.path().join("content/blog");
    let ran_here = ExportOptions::new(&out, Format::Html).state_dir(root.path().join(".blogread"));
    export::export(&client, &ran_here, |_, _| {})
        .await
        .expect("first export");
    let before = snapshot(root.path());

    let elsewhere = root.path().join("content/.blogread");
    let options = ExportOptions::new(&out, Format::Html).state_dir(&elsewhere);
    let err = export::export(&client, &options, |_, _| {})
        .await
        .expect_err("no manifest there");
    assert!(
        matches!(&err, ExportError::StateNotFound { state_dir, count: 2, first, .. }
            if *state_dir == elsewhere && first == "alpha/index.html"),
        "{err:?}"
    );
    assert!(err.to_string().contains("--state-dir"), "{err}");
    assert!(!elsewhere.exists(), "no stray state folder");
    assert_eq!(snapshot(root.path()), before);
}
