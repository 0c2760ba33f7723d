//! `export` trusts no server, and no state folder it did not check: a value no file can hold,
//! a feed that never ends or a server that never finishes stop it with a clear error before
//! anything is written; a state folder of another project's key is refused unless a full read
//! is asked for; exported files whose manifest is elsewhere stop it with one error naming the
//! state folder it looked in. Against stub servers, in throw-away folders.
#![cfg(feature = "export")]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use blogread_client::export::{self, ExportError, ExportOptions, Format, FullRead, RenderError};
use blogread_client::{Client, Error};
use serde_json::json;
use support::feed::Site;
use support::*;

const KEY_A: &str = "pk_live_AAAAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const KEY_A_ROTATED: &str = "pk_live_RRRRrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr";
const KEY_B: &str = "pk_live_BBBBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/// Every file below `dir` (none when it does not exist), by path relative to it, with its
/// bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).unwrap().to_string_lossy();
                out.insert(rel.replace('\\', "/"), std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn site_with(epoch: &str, slugs: &[&str]) -> Site {
    let mut site = Site {
        epoch: epoch.to_owned(),
        ..Site::default()
    };
    for slug in slugs {
        site.publish(slug, &format!("Title of {slug}"));
    }
    site
}

fn client_with(stub: &Stub, key: &str) -> Client {
    Client::builder(&stub.base, key)
        .retry_policy(fast_retries())
        .build()
        .unwrap()
}

/// A site root (the state folder inside it, the output folder `content/blog`).
struct Root {
    dir: tempfile::TempDir,
}

impl Root {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn out(&self) -> PathBuf {
        self.path().join("content/blog")
    }
    fn state(&self) -> PathBuf {
        self.path().join(".blogread")
    }
    fn options(&self, format: Format) -> ExportOptions {
        ExportOptions::new(self.out(), format).state_dir(self.state())
    }
    /// The whole site: output and state.
    fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        snapshot(self.path())
    }
}

/// A changes feed whose one post is dated `published_at`.
fn feed_with_date(published_at: &'static str) -> impl Fn(usize, &Seen) -> Reply + Send + Sync {
    move |_, req| {
        if req.path() != "/blog/api/v1/public/changes" {
            return no_such_route(req);
        }
        let mut blog = detail("far-future");
        blog["published_at"] = json!(published_at);
        reply(
            200,
            json!({
                "changes": [
                    {"change": "upsert", "blog": detail("fine"), "aliases": []},
                    {"change": "upsert", "blog": blog, "aliases": []}
                ],
                "cursor": "c1",
                "has_more": false
            }),
        )
    }
}

#[tokio::test]
async fn a_post_dated_after_9999_stops_the_export_before_anything_is_written() {
    for format in [Format::Zola, Format::Hugo, Format::Html] {
        let stub = start_stub(feed_with_date("+10000-01-01T00:00:00Z")).await;
        let root = Root::new();
        let err = export::export(&client(&stub), &root.options(format), |_, _| {})
            .await
            .unwrap_err();
        assert!(
            matches!(
                &err,
                ExportError::Render(RenderError::DateOutOfRange { slug, field: "published_at", .. })
                    if slug == "far-future"
            ),
            "{format:?}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(
                "post `far-future`: published_at +10000-01-01T00:00:00Z is outside the years \
                 0000 to 9999"
            ) && message.ends_with("nothing was written"),
            "{message}"
        );
        assert!(
            root.snapshot().is_empty() && !root.out().exists() && !root.state().exists(),
            "{format:?}: no file, and neither folder made"
        );
    }
}

#[tokio::test]
async fn a_feed_that_never_ends_stops_at_the_page_cap_leaving_folder_and_cursor_as_they_were() {
    let site = Arc::new(Mutex::new(site_with("e1", &["a", "b"])));
    let served = site.clone();
    let stub = start_stub(move |_, req| served.lock().unwrap().serve(req)).await;
    let root = Root::new();
    let options = root.options(Format::Zola);
    export::export(&client(&stub), &options, |_, _| {})
        .await
        .unwrap();
    let before = root.snapshot();

    // The server now answers the saved cursor with pages that never end.
    let endless = start_stub(|i, _| {
        reply(
            200,
            json!({
                "changes": [{"change": "delete", "slug": "a"}],
                "cursor": format!("n{i}"),
                "has_more": true
            }),
        )
    })
    .await;
    let client = Client::builder(&endless.base, "pk_live_test")
        .max_pages(30)
        .build()
        .unwrap();
    let err = export::export(&client, &options, |_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ExportError::Client(Error::TooManyPages { limit: 30, .. })
        ),
        "{err:?}"
    );
    assert_eq!(endless.count(), 30);
    assert_eq!(
        root.snapshot(),
        before,
        "files, manifest and cursor untouched"
    );
}

#[tokio::test]
async fn an_export_past_its_deadline_stops_with_nothing_written() {
    // The server accepts and never answers; each attempt would wait its 30 s.
    let stub = start_raw(|_| Raw::Freeze).await;
    let root = Root::new();
    let options = root
        .options(Format::Zola)
        .deadline(Duration::from_millis(300));
    let err = export::export(&client(&stub), &options, |_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ExportError::Deadline { deadline } if *deadline == Duration::from_millis(300)),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("within its deadline of 300 ms; nothing was written")
            && message.contains("--deadline"),
        "{message}"
    );
    assert!(root.snapshot().is_empty() && !root.state().exists());
}

#[test]
fn the_default_deadline_of_an_export_is_30_minutes() {
    assert_eq!(export::DEFAULT_DEADLINE, Duration::from_secs(1800));
    let options = ExportOptions::new("out", Format::Zola);
    assert_eq!(options.deadline, Some(export::DEFAULT_DEADLINE));
    assert_eq!(options.deadline(None).deadline, None);
}

/// Two projects behind one server: the key picks the project, and each project's cursors
/// are bound to it (another's is 400), as the real server's are. `KEY_A_ROTATED` is project
/// A's new key.
async fn two_projects() -> (Stub, Arc<Mutex<Site>>, Arc<Mutex<Site>>) {
    let a = Arc::new(Mutex::new(site_with("project-a", &["a1", "a2", "a3"])));
    let b = Arc::new(Mutex::new(site_with("project-b", &["b1"])));
    let (sa, sb) = (a.clone(), b.clone());
    let stub =
        start_stub(
            move |_, req| match req.headers.get("authorization").map(String::as_str) {
                Some(auth) if auth == format!("Bearer {KEY_A}") => sa.lock().unwrap().serve(req),
                Some(auth) if auth == format!("Bearer {KEY_A_ROTATED}") => {
                    sa.lock().unwrap().serve(req)
                }
                Some(auth) if auth == format!("Bearer {KEY_B}") => sb.lock().unwrap().serve(req),
                _ => reply(401, json!({"detail": "API key matches no project"})),
            },
        )
        .await;
    (stub, a, b)
}

#[tokio::test]
async fn a_state_folder_of_another_projects_key_is_refused_unless_full() {
    let (stub, _, _) = two_projects().await;
    let root = Root::new();
    let options = root.options(Format::Zola);
    export::export(&client_with(&stub, KEY_A), &options, |_, _| {})
        .await
        .unwrap();
    let before = root.snapshot();
    assert_eq!(snapshot(&root.out()).len(), 3);

    // Project B's key in project A's site: the server refuses A's cursor.
    let b = client_with(&stub, KEY_B);
    let err = export::export(&b, &options, |_, _| {}).await.unwrap_err();
    match &err {
        ExportError::AnotherProject {
            state_dir,
            files,
            was,
            now,
            refused,
        } => {
            assert_eq!(state_dir, &root.state());
            assert_eq!(*files, 3);
            assert_eq!(
                (was.as_str(), now.as_str()),
                ("pk_live_AAAA", "pk_live_BBBB")
            );
            assert!(
                refused
                    .as_deref()
                    .unwrap()
                    .contains("not one of this project's"),
                "{refused:?}"
            );
        }
        other => panic!("not refused: {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains(&format!(
            "the state folder {} is of another project's export",
            root.state().display()
        )) && message.contains("exported with the public key pk_live_AAAA…")
            && message.contains("this export's key is pk_live_BBBB…")
            && message.contains("--full")
            && message.ends_with("Nothing was written"),
        "{message}"
    );
    assert_eq!(root.snapshot(), before, "not one file removed");

    // Asked for, the folder changes hands: project B's posts replace A's.
    let report = export::export(&b, &options.clone().full(true), |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.full_read, Some(FullRead::Asked));
    assert_eq!(report.removed, ["a1.md", "a2.md", "a3.md"]);
    assert_eq!(snapshot(&root.out()).keys().collect::<Vec<_>>(), ["b1.md"]);
    // From then on it is project B's state: incremental again, and A's key is the stranger.
    let report = export::export(&b, &options, |_, _| {}).await.unwrap();
    assert_eq!(report.full_read, None);
    let err = export::export(&client_with(&stub, KEY_A), &options, |_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ExportError::AnotherProject { was, .. } if was == "pk_live_BBBB"),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_rotated_key_is_taken_once_the_server_takes_the_saved_cursor() {
    let (stub, a, _) = two_projects().await;
    let root = Root::new();
    let options = root.options(Format::Hugo);
    std::fs::create_dir_all(root.path()).unwrap();
    std::fs::write(
        root.path().join("hugo.toml"),
        "[security]\nallowContent = ['! ^text/org$']\n",
    )
    .unwrap();
    export::export(&client_with(&stub, KEY_A), &options, |_, _| {})
        .await
        .unwrap();
    a.lock().unwrap().retitle("a2", "New title");
    let report = export::export(&client_with(&stub, KEY_A_ROTATED), &options, |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.full_read, None, "the cursor was taken: same project");
    assert_eq!(report.written, ["a2.html"]);
    // The new key is recorded: the old one would now be asked about in its turn.
    let manifest = std::fs::read_to_string(options.manifest_path().unwrap()).unwrap();
    assert!(manifest.contains("pk_live_RRRR"), "{manifest}");
    assert!(!manifest.contains(KEY_A_ROTATED), "never the key itself");
}

#[tokio::test]
async fn a_cursor_of_another_database_of_the_same_project_still_makes_a_full_read() {
    let (stub, a, _) = two_projects().await;
    let root = Root::new();
    let options = root.options(Format::Zola);
    export::export(&client_with(&stub, KEY_A), &options, |_, _| {})
        .await
        .unwrap();
    // The server's database was restored: the same key, cursors of the old one refused.
    a.lock().unwrap().epoch = "restored".to_owned();
    let report = export::export(&client_with(&stub, KEY_A), &options, |_, _| {})
        .await
        .unwrap();
    assert!(
        matches!(&report.full_read, Some(FullRead::CursorRefused { .. })),
        "{:?}",
        report.full_read
    );
}

#[tokio::test]
async fn files_of_another_key_without_a_saved_cursor_are_refused_unless_full() {
    let (stub, _, _) = two_projects().await;
    let root = Root::new();
    let options = root.options(Format::Html);
    export::export(&client_with(&stub, KEY_A), &options, |_, _| {})
        .await
        .unwrap();
    std::fs::remove_file(options.cursor_path().unwrap()).unwrap();
    let before = root.snapshot();
    let count = stub.count();
    let err = export::export(&client_with(&stub, KEY_B), &options, |_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ExportError::AnotherProject {
                refused: None,
                files: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("a rotated key"), "{err}");
    assert_eq!(stub.count(), count, "nothing asked: nothing could confirm");
    assert_eq!(root.snapshot(), before);
}

#[tokio::test]
async fn exported_files_without_their_manifest_stop_the_export_naming_the_state_folder() {
    let site = Arc::new(Mutex::new(site_with("e1", &["a", "b", "c"])));
    let served = site.clone();
    let stub = start_stub(move |_, req| served.lock().unwrap().serve(req)).await;
    for format in [Format::Zola, Format::Hugo, Format::Html] {
        let root = Root::new();
        if format == Format::Hugo {
            std::fs::write(
                root.path().join("hugo.toml"),
                "[security]\nallowContent = ['! ^text/org$']\n",
            )
            .unwrap();
        }
        export::export(&client(&stub), &root.options(format), |_, _| {})
            .await
            .unwrap();
        let before = root.snapshot();
        let requests = stub.count();

        // The same output folder, with a state folder that is not the one the export used.
        let elsewhere = root.path().join("content/.blogread");
        let options = ExportOptions::new(root.out(), format).state_dir(&elsewhere);
        let err = export::export(&client(&stub), &options, |_, _| {})
            .await
            .unwrap_err();
        let first = match format {
            Format::Zola => "a.md",
            Format::Hugo => "a.html",
            Format::Html => "a/index.html",
        };
        match &err {
            ExportError::StateNotFound {
                state_dir,
                manifest,
                count,
                first: f,
                ..
            } => {
                assert_eq!(state_dir, &elsewhere, "{format:?}");
                assert!(manifest.starts_with(&elsewhere), "{manifest:?}");
                assert_eq!((*count, f.as_str()), (3, first), "{format:?}");
            }
            other => panic!("{format:?}: {other:?}"),
        }
        let message = err.to_string();
        assert!(
            message.contains(&format!(
                "holds 3 files an earlier blogread export wrote ({first}, ...), but the state \
                 folder {} has no manifest listing them",
                elsewhere.display()
            )) && message.contains("--state-dir")
                && message.contains("site's root")
                && message.ends_with("Nothing was written"),
            "{message}"
        );
        assert!(!elsewhere.exists(), "no stray state folder");
        assert_eq!(root.snapshot(), before, "{format:?}");
        assert_eq!(stub.count(), requests, "the server is not even asked");
    }
}

#[tokio::test]
async fn the_state_folder_is_named_by_one_absolute_path() {
    let stub = start_stub(|_, req| serve(&[1], req)).await;
    let root = Root::new();
    export::export(&client(&stub), &root.options(Format::Zola), |_, _| {})
        .await
        .unwrap();
    // `<root>/content/../content/.state` spelled with `..`: named as the one path it is.
    let spelled = root.path().join("content/../content/.state");
    let options = ExportOptions::new(root.out(), Format::Zola).state_dir(&spelled);
    let err = export::export(&client(&stub), &options, |_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ExportError::StateNotFound { state_dir, .. } if *state_dir == root.path().join("content/.state")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_first_export_beside_the_users_own_content_goes_ahead_and_names_its_state_folder() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let root = Root::new();
    std::fs::create_dir_all(root.out()).unwrap();
    std::fs::write(
        root.out().join("about.md"),
        "+++\ntitle = \"About\"\n+++\nHello.\n",
    )
    .unwrap();
    std::fs::write(root.out().join("_index.md"), "+++\n+++\n").unwrap();
    let report = export::export(&client(&stub), &root.options(Format::Zola), |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.written, ["blog-1.md", "blog-2.md"]);
    assert_eq!(report.state_dir, root.state());
}
