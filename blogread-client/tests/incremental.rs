//! `export` with the changes feed, against a stub serving a model project: a saved cursor
//! makes the next export ask only for what changed and write only that, the folder always
//! ends byte for byte as a fresh full export into an empty folder, and each reason to read
//! everything instead is taken and reported.
#![cfg(feature = "export")]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use blogread_client::Client;
use blogread_client::export::{self, ExportOptions, ExportReport, Format, FullRead, Manifest};
use support::feed::Site;
use support::*;

const FEED: &str = "/blog/api/v1/public/changes";

/// A model project behind a stub, and a site folder to export into.
struct Fixture {
    site: Arc<Mutex<Site>>,
    stub: Stub,
    client: Client,
    root: tempfile::TempDir,
}

impl Fixture {
    async fn new(site: Site) -> Self {
        let site = Arc::new(Mutex::new(site));
        let served = site.clone();
        let stub = start_stub(move |_, req| served.lock().unwrap().serve(req)).await;
        let client = client(&stub);
        Self {
            site,
            stub,
            client,
            root: tempfile::tempdir().unwrap(),
        }
    }

    fn site(&self) -> std::sync::MutexGuard<'_, Site> {
        self.site.lock().unwrap()
    }

    fn options(&self, format: Format) -> ExportOptions {
        ExportOptions::new(self.root.path().join("out"), format)
            .state_dir(self.root.path().join(".blogread"))
    }

    fn out(&self) -> PathBuf {
        self.root.path().join("out")
    }

    async fn export(&self, options: &ExportOptions) -> ExportReport {
        export::export(&self.client, options, |_, _| {})
            .await
            .unwrap()
    }

    /// Exports incrementally, returning the report and the requests the export made.
    async fn export_seen(&self, options: &ExportOptions) -> (ExportReport, Vec<Seen>) {
        let before = self.stub.count();
        let report = self.export(options).await;
        (report, self.stub.seen().split_off(before))
    }

    /// What a fresh full export of the project into an empty folder writes.
    async fn fresh(&self, format: Format) -> BTreeMap<String, Vec<u8>> {
        let dir = tempfile::tempdir().unwrap();
        let options = ExportOptions::new(dir.path().join("out"), format)
            .state_dir(dir.path().join(".blogread"));
        let report = self.export(&options).await;
        assert!(report.full_read.is_some());
        snapshot(&options.out)
    }

    /// Asserts that the output folder is exactly what a fresh full export writes.
    async fn assert_as_fresh(&self, format: Format) {
        let ours = snapshot(&self.out());
        let fresh = self.fresh(format).await;
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            fresh.keys().collect::<Vec<_>>(),
            "{format:?}: the same files"
        );
        for (rel, bytes) in &fresh {
            assert!(
                ours[rel] == *bytes,
                "{format:?}: {rel} differs:\n{}\n---- fresh:\n{}",
                String::from_utf8_lossy(&ours[rel]),
                String::from_utf8_lossy(bytes)
            );
        }
    }

    fn cursor_saved(&self, format: Format) -> bool {
        self.options(format).cursor_path().unwrap().exists()
    }
}

/// Every file below `dir`, by path relative to it with `/`, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn site_with(slugs: &[&str]) -> Site {
    let mut site = Site::default();
    for slug in slugs {
        site.publish(slug, &format!("Title of {slug}"));
    }
    site
}

const FORMATS: [Format; 3] = [Format::Zola, Format::Hugo, Format::Html];

#[tokio::test]
async fn an_export_with_a_saved_cursor_asks_only_for_changes_and_writes_only_changed_files() {
    let f = Fixture::new(site_with(&["a", "b", "c"])).await;
    let options = f.options(Format::Zola);
    let first = f.export(&options).await;
    assert_eq!(first.full_read, Some(FullRead::NoCursor));
    assert_eq!((first.blogs, first.changes, first.written.len()), (3, 3, 3));
    assert!(f.cursor_saved(Format::Zola));
    let untouched = std::fs::metadata(f.out().join("a.md"))
        .unwrap()
        .modified()
        .unwrap();

    f.site().retitle("b", "A new title");
    let (report, seen) = f.export_seen(&options).await;
    assert_eq!(report.full_read, None);
    assert_eq!(report.changes, 1);
    assert_eq!(report.blogs, 3);
    assert_eq!(report.written, ["b.md"]);
    assert!(report.unchanged.is_empty() && report.removed.is_empty());
    // One request: the feed, from the saved cursor; no list, no single blog.
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].path(), FEED);
    assert_eq!(seen[0].query("since").as_deref(), Some("e1.3"));
    assert_eq!(
        std::fs::metadata(f.out().join("a.md"))
            .unwrap()
            .modified()
            .unwrap(),
        untouched,
        "an unchanged post's file is not even rewritten"
    );
    assert!(
        std::fs::read_to_string(f.out().join("b.md"))
            .unwrap()
            .contains("title = \"A new title\"")
    );
    f.assert_as_fresh(Format::Zola).await;

    // A new post and a post whose answer changed because of it (a link resolved).
    f.site().publish("d", "Fourth");
    f.site().touch("a");
    let (report, seen) = f.export_seen(&options).await;
    assert_eq!((report.changes, report.blogs), (2, 4));
    assert_eq!(report.written, ["a.md", "d.md"]);
    assert_eq!(seen[0].query("since").as_deref(), Some("e1.4"));
    f.assert_as_fresh(Format::Zola).await;

    // Nothing changed: one request, nothing written.
    let (report, seen) = f.export_seen(&options).await;
    assert_eq!((report.changes, seen.len()), (0, 1));
    assert!(report.written.is_empty() && report.unchanged.is_empty());
    f.assert_as_fresh(Format::Zola).await;
}

#[tokio::test]
async fn unpublished_and_deleted_posts_lose_their_files_and_nothing_else_is_touched() {
    for format in FORMATS {
        let f = Fixture::new(site_with(&["a", "b", "c"])).await;
        let options = f.options(format);
        std::fs::create_dir_all(f.out()).unwrap();
        std::fs::write(f.out().join("mine.txt"), "the user's").unwrap();
        f.export(&options).await;
        f.site().unpublish("b");
        let report = f.export(&options).await;
        assert_eq!(report.full_read, None);
        let gone = file_of(format, "b");
        assert_eq!(report.removed, [gone.as_str()], "{format:?}");
        assert!(report.written.is_empty(), "{format:?}");
        assert!(!f.out().join(&gone).exists());
        if format == Format::Html {
            assert!(!f.out().join("b").exists(), "its folder goes too");
        }
        assert_eq!(
            std::fs::read_to_string(f.out().join("mine.txt")).unwrap(),
            "the user's"
        );
        let manifest = Manifest::load(&options.manifest_path().unwrap()).unwrap();
        assert!(!manifest.owns(&gone), "{format:?}");
        std::fs::remove_file(f.out().join("mine.txt")).unwrap();
        f.assert_as_fresh(format).await;
    }
}

/// The file the export writes for the post at `slug`.
fn file_of(format: Format, slug: &str) -> String {
    match format {
        Format::Zola => format!("{slug}.md"),
        Format::Hugo => format!("{slug}.html"),
        Format::Html => format!("{slug}/index.html"),
    }
}

#[tokio::test]
async fn a_renamed_post_moves_and_keeps_its_old_addresses() {
    for format in FORMATS {
        let f = Fixture::new(site_with(&["a", "b"])).await;
        let options = f.options(format);
        f.export(&options).await;

        f.site().rename("a", "a2");
        let report = f.export(&options).await;
        assert_eq!(
            (report.full_read.as_ref(), report.changes),
            (None, 2),
            "{format:?}"
        );
        match format {
            Format::Zola | Format::Hugo => {
                let ext = if format == Format::Zola { "md" } else { "html" };
                assert_eq!(report.removed, [format!("a.{ext}")]);
                assert_eq!(report.written, [format!("a2.{ext}")]);
                let text = std::fs::read_to_string(f.out().join(format!("a2.{ext}"))).unwrap();
                assert!(text.contains(r#"aliases = ["/blog/a/"]"#), "{text}");
            }
            Format::Html => {
                // The old address becomes a redirect page.
                assert!(report.removed.is_empty());
                assert_eq!(report.written, ["a/index.html", "a2/index.html"]);
                let page = std::fs::read_to_string(f.out().join("a/index.html")).unwrap();
                assert!(page.contains("url=../a2/"), "{page}");
            }
        }
        f.assert_as_fresh(format).await;

        // Again, the rename's delete coming after its upsert this time: both old addresses
        // lead to the newest.
        f.site().rename("a2", "a3");
        f.site().restamp_deletion("a2");
        f.export(&options).await;
        f.assert_as_fresh(format).await;
        // And back to the first slug, which stops being an alias.
        f.site().rename("a3", "a");
        f.export(&options).await;
        f.assert_as_fresh(format).await;
        // Unpublished: every address goes.
        f.site().unpublish("a");
        f.export(&options).await;
        f.assert_as_fresh(format).await;
        assert_eq!(
            snapshot(&f.out()).keys().collect::<Vec<_>>(),
            [&file_of(format, "b")],
            "{format:?}"
        );
    }
}

#[tokio::test]
async fn an_alias_taken_over_by_a_new_post_changes_hands_in_either_order() {
    for post_first in [true, false] {
        let f = Fixture::new(site_with(&["p", "x"])).await;
        f.site().rename("p", "p2"); // p2 keeps "p" as an alias: a redirect page at p/
        let options = f.options(Format::Html);
        f.export(&options).await;
        assert!(
            std::fs::read_to_string(f.out().join("p/index.html"))
                .unwrap()
                .contains("url=../p2/")
        );

        // A new post takes the slug "p": p2 loses the alias. The model stamps p2 first; to
        // have the new post's entry first, p2 is stamped again afterwards.
        f.site().publish("p", "The new p");
        if !post_first {
            f.site().touch("p2");
        }
        let report = f.export(&options).await;
        assert_eq!(report.full_read, None);
        let page = std::fs::read_to_string(f.out().join("p/index.html")).unwrap();
        assert!(
            page.contains("The new p"),
            "post_first={post_first}: {page}"
        );
        let manifest = Manifest::load(&options.manifest_path().unwrap()).unwrap();
        assert_eq!(manifest.files["p/index.html"], "p");
        f.assert_as_fresh(Format::Html).await;
    }
}

#[tokio::test]
async fn a_post_changed_while_the_feed_is_paged_ends_in_its_newest_state() {
    let site = Site {
        page_size: 1,
        ..site_with(&["a", "b", "c"])
    };
    let site = Arc::new(Mutex::new(site));
    let served = site.clone();
    // The second page's request retitles "a", which the first page already gave.
    let stub = start_stub(move |_, req| {
        let mut site = served.lock().unwrap();
        if req.path() == FEED && req.query("since").as_deref() == Some("e1.1") {
            site.retitle("a", "Retitled while paging");
        }
        site.serve(req)
    })
    .await;
    let f = Fixture {
        site,
        client: client(&stub),
        stub,
        root: tempfile::tempdir().unwrap(),
    };
    let options = f.options(Format::Hugo);
    let report = f.export(&options).await;
    assert_eq!(report.changes, 4, "a, b, c, then a again");
    assert_eq!(report.blogs, 3);
    let a = std::fs::read_to_string(f.out().join("a.html")).unwrap();
    assert!(a.contains("Retitled while paging"), "{a}");
    f.assert_as_fresh(Format::Hugo).await;
}

#[tokio::test]
async fn without_a_saved_cursor_or_with_full_every_post_is_read() {
    let f = Fixture::new(site_with(&["a", "b"])).await;
    let options = f.options(Format::Zola);
    let (report, seen) = f.export_seen(&options).await;
    assert_eq!(report.full_read, Some(FullRead::NoCursor));
    // The full read is the feed's initial sync: one request, no cursor.
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].path(), seen[0].query("since")), (FEED, None));

    let (report, seen) = f.export_seen(&options.clone().full(true)).await;
    assert_eq!(report.full_read, Some(FullRead::Asked));
    assert_eq!(report.unchanged.len(), 2);
    assert_eq!(seen[0].query("since"), None);
    // ...and saves a cursor again, so the next one is incremental.
    assert!(f.cursor_saved(Format::Zola));
    assert_eq!(f.export(&options).await.full_read, None);
}

#[tokio::test]
async fn an_expired_cursor_makes_a_full_read_and_a_new_cursor() {
    let f = Fixture::new(site_with(&["a", "b"])).await;
    let options = f.options(Format::Zola);
    f.export(&options).await;
    {
        let mut site = f.site();
        site.unpublish("a");
        site.publish("c", "C");
        site.oldest = site.seq; // the deletion of "a" is no longer told
    }
    let (report, seen) = f.export_seen(&options).await;
    assert!(
        matches!(&report.full_read, Some(FullRead::CursorExpired { detail }) if detail.contains("older than")),
        "{:?}",
        report.full_read
    );
    assert_eq!(seen.len(), 2, "the refused cursor, then the initial sync");
    assert_eq!(seen[1].query("since"), None);
    assert_eq!(
        report.removed,
        ["a.md"],
        "a full read still removes what is gone"
    );
    f.assert_as_fresh(Format::Zola).await;
    assert_eq!(f.export(&options).await.full_read, None);
}

#[tokio::test]
async fn a_cursor_of_another_database_makes_a_full_read() {
    let f = Fixture::new(site_with(&["a"])).await;
    let options = f.options(Format::Zola);
    f.export(&options).await;
    f.site().epoch = "e2".to_owned();
    let report = f.export(&options).await;
    assert!(
        matches!(&report.full_read, Some(FullRead::CursorRefused { .. })),
        "{:?}",
        report.full_read
    );
    assert_eq!(f.export(&options).await.full_read, None);
}

#[tokio::test]
async fn a_server_without_the_feed_gets_a_full_read_through_the_list_and_no_cursor() {
    for format in FORMATS {
        let f = Fixture::new(site_with(&["a", "b", "c"])).await;
        f.site().rename("b", "b2");
        let options = f.options(format);
        f.export(&options).await;
        assert!(f.cursor_saved(format));

        // The server loses the feed (an older version is deployed).
        f.site().feed = false;
        f.site().retitle("a", "Changed");
        let (report, seen) = f.export_seen(&options).await;
        let url = format!("{}{FEED}", f.stub.base);
        assert_eq!(
            report.full_read,
            Some(FullRead::NoFeed { url }),
            "{format:?}"
        );
        assert_eq!(seen[0].path(), FEED);
        assert!(
            seen.iter()
                .any(|s| s.path() == "/blog/api/v1/public/blogs/a")
        );
        assert!(
            !f.cursor_saved(format),
            "{format:?}: no cursor without a feed"
        );
        assert_eq!(report.changes, 0);
        // The full read through the list writes what the feed's full read writes.
        let through_list = snapshot(&f.out());
        f.site().feed = true;
        assert_eq!(through_list, f.fresh(format).await, "{format:?}");

        // The feed is back: a full read through it, then incremental again.
        assert_eq!(f.export(&options).await.full_read, Some(FullRead::NoCursor));
        assert_eq!(f.export(&options).await.full_read, None);
        f.assert_as_fresh(format).await;
    }
}

#[tokio::test]
async fn a_folder_that_is_not_what_the_cursor_describes_gets_a_full_read() {
    let f = Fixture::new(site_with(&["a", "b"])).await;
    let zola = f.options(Format::Zola);
    f.export(&zola).await;

    // Files the last export wrote are gone (a cleaned folder, a fresh checkout).
    std::fs::remove_file(f.out().join("a.md")).unwrap();
    let report = f.export(&zola).await;
    assert_eq!(
        report.full_read,
        Some(FullRead::FilesMissing {
            count: 1,
            first: "a.md".into()
        })
    );
    assert_eq!(report.written, ["a.md"]);
    assert_eq!(
        report.full_read.unwrap().to_string(),
        "1 file the last export wrote is missing from the output folder (a.md)"
    );

    // The manifest is not the one the cursor was saved with (restored from elsewhere).
    let manifest_path = zola.manifest_path().unwrap();
    let mut manifest = Manifest::load(&manifest_path).unwrap();
    manifest.files.remove("b.md");
    manifest.save(&manifest_path).unwrap();
    let report = f.export(&zola).await;
    assert_eq!(report.full_read, Some(FullRead::ManifestChanged));
    // b.md, which the manifest no longer owned, is the user's now: a conflict.
    assert_eq!(report.conflicts, ["b.md"]);
    assert!(!f.cursor_saved(Format::Zola), "no cursor after a conflict");
    std::fs::remove_file(f.out().join("b.md")).unwrap();
    assert_eq!(f.export(&zola).await.full_read, Some(FullRead::NoCursor));
    f.assert_as_fresh(Format::Zola).await;

    // Another format into the same folder.
    let html = f.options(Format::Html);
    let report = f.export(&html).await;
    assert_eq!(
        report.full_read,
        Some(FullRead::FormatChanged { was: "zola".into() })
    );
    assert_eq!(report.removed, ["a.md", "b.md"]);
    f.assert_as_fresh(Format::Html).await;

    // A cursor file that does not parse.
    std::fs::write(html.cursor_path().unwrap(), "{").unwrap();
    let report = f.export(&html).await;
    assert!(
        matches!(&report.full_read, Some(FullRead::CursorFile { .. })),
        "{:?}",
        report.full_read
    );
    assert_eq!(f.export(&html).await.full_read, None);
}

#[tokio::test]
async fn a_conflict_leaves_no_cursor_so_the_post_is_written_once_the_file_is_gone() {
    let f = Fixture::new(site_with(&["a"])).await;
    let options = f.options(Format::Zola);
    f.export(&options).await;
    std::fs::write(f.out().join("b.md"), "the user's").unwrap();
    f.site().publish("b", "B");
    let report = f.export(&options).await;
    assert_eq!(report.full_read, None);
    assert_eq!(report.conflicts, ["b.md"]);
    assert_eq!(report.blogs, 1);
    assert_eq!(
        std::fs::read_to_string(f.out().join("b.md")).unwrap(),
        "the user's"
    );
    assert!(!f.cursor_saved(Format::Zola));

    // Nothing changes on the server; the user moves the file away.
    std::fs::remove_file(f.out().join("b.md")).unwrap();
    let report = f.export(&options).await;
    assert_eq!(report.full_read, Some(FullRead::NoCursor));
    assert_eq!(report.written, ["b.md"]);
    f.assert_as_fresh(Format::Zola).await;
}

#[cfg(unix)]
#[tokio::test]
async fn an_export_that_fails_while_writing_leaves_no_cursor() {
    let f = Fixture::new(site_with(&["a", "b"])).await;
    let options = f.options(Format::Zola);
    f.export(&options).await;
    let cursor_before = std::fs::read(options.cursor_path().unwrap()).unwrap();

    // A read that fails leaves the cursor and the files as they were.
    f.site().retitle("a", "A2");
    f.site().retitle("b", "B2");
    let before = snapshot(&f.out());
    let down = start_stub(|_, _| reply(503, serde_json::json!({"detail": "down"}))).await;
    let err = export::export(&client(&down), &options, |_, _| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("503"), "{err}");
    assert_eq!(
        std::fs::read(options.cursor_path().unwrap()).unwrap(),
        cursor_before
    );
    assert_eq!(snapshot(&f.out()), before);

    // b.md replaced by a folder: writing it fails after a.md is written.
    std::fs::remove_file(f.out().join("b.md")).unwrap();
    std::fs::create_dir(f.out().join("b.md")).unwrap();
    let err = export::export(&f.client, &options, |_, _| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("b.md"), "{err}");
    assert!(
        std::fs::read_to_string(f.out().join("a.md"))
            .unwrap()
            .contains("A2"),
        "the export got as far as a.md"
    );
    assert!(
        !f.cursor_saved(Format::Zola),
        "a cursor saved now would skip b's change"
    );
    std::fs::remove_dir(f.out().join("b.md")).unwrap();
    let report = f.export(&options).await;
    assert_eq!(report.full_read, Some(FullRead::NoCursor));
    f.assert_as_fresh(Format::Zola).await;
}
