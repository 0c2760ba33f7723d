//! `export` against the stub server: files, manifest, user files, removal, no rewrites, and
//! the state folder (outside the output folder, one manifest per output folder).
#![cfg(feature = "export")]

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use blogread_client::export::{self, ExportOptions, Format, Manifest};
use blogread_client::{Client, EtagCache};
use support::*;

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blogread-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk(dir)
        .into_iter()
        .map(|p| {
            p.strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test]
async fn zola_export_writes_parses_removes_and_leaves_user_files_alone() {
    let published = Arc::new(Mutex::new(vec![3u64, 2, 1]));
    let p = published.clone();
    let stub = start_stub(move |_, req| serve(&p.lock().unwrap(), req)).await;
    let client = client(&stub);
    let root = tempdir("zola");
    let out = root.join("content/blog");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("_index.md"), "+++\ntitle = \"Blog\"\n+++\n").unwrap();
    std::fs::write(out.join("notes.md"), "mine").unwrap();

    let options = ExportOptions::new(&out, Format::Zola).state_dir(root.join(".blogread"));
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.blogs, 3);
    assert_eq!(report.written.len(), 3);
    assert_eq!(
        files(&out),
        vec![
            "_index.md",
            "blog-1.md",
            "blog-2.md",
            "blog-3.md",
            "notes.md"
        ]
    );
    for slug in ["blog-1", "blog-2", "blog-3"] {
        let text = std::fs::read_to_string(out.join(format!("{slug}.md"))).unwrap();
        let rest = text.strip_prefix("+++\n").unwrap();
        let (front, _body) = rest.split_once("\n+++\n").unwrap();
        let front: toml::Table = front.parse().unwrap();
        assert_eq!(front["slug"].as_str(), Some(slug));
    }

    // Nothing changed: nothing rewritten.
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert!(report.written.is_empty());
    assert_eq!(report.unchanged.len(), 3);

    // blog-2 unpublished: its file goes, the user's files stay.
    published.lock().unwrap().retain(|&i| i != 2);
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.removed, vec!["blog-2.md"]);
    assert_eq!(
        files(&out),
        vec!["_index.md", "blog-1.md", "blog-3.md", "notes.md"]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.md")).unwrap(),
        "mine"
    );

    // A user's file where a newly published blog would go is a conflict, left untouched.
    std::fs::write(out.join("blog-4.md"), "user's own").unwrap();
    published.lock().unwrap().insert(0, 4);
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.conflicts, vec!["blog-4.md"]);
    assert_eq!(
        std::fs::read_to_string(out.join("blog-4.md")).unwrap(),
        "user's own"
    );
    // ...and is not removed when that blog goes again.
    published.lock().unwrap().retain(|&i| i != 4);
    export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert!(out.join("blog-4.md").exists());
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test]
async fn html_export_uses_folders_and_removes_them_when_emptied() {
    let published = Arc::new(Mutex::new(vec![2u64, 1]));
    let p = published.clone();
    let stub = start_stub(move |_, req| serve(&p.lock().unwrap(), req)).await;
    let client = client(&stub);
    let root = tempdir("html");
    let out = root.join("public/blog");
    let options = ExportOptions::new(&out, Format::Html).state_dir(root.join(".blogread"));
    export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert!(out.join("blog-1/index.html").exists());
    published.lock().unwrap().retain(|&i| i != 1);
    export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert!(!out.join("blog-1").exists());
    assert!(out.join("blog-2/index.html").exists());
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test]
async fn an_unchanged_export_with_a_cache_transfers_no_bodies() {
    // A stub with ETags: the tag is the body's length and first bytes, stable for equal bodies.
    let stub = start_stub(|_, req| {
        let mut r = serve(&[2, 1], req);
        let tag = format!(
            "\"{}-{}\"",
            r.body.len(),
            r.body.bytes().map(u64::from).sum::<u64>()
        );
        if req.headers.get("if-none-match") == Some(&tag) {
            r.status = 304;
        }
        r.headers.push(("etag", tag));
        r
    })
    .await;
    let root = tempdir("cache");
    let out = root.join("content/blog");
    let cache = EtagCache::new();
    let client = Client::builder(&stub.base, "pk_live_test")
        .with_etag_cache(cache.clone())
        .build()
        .unwrap();
    let options = ExportOptions::new(&out, Format::Hugo).state_dir(root.join(".blogread"));
    export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    let first = cache.stats();
    assert_eq!(first.not_modified, 0);
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    let second = cache.stats();
    assert_eq!(
        second.fetched, first.fetched,
        "no body on the second export"
    );
    assert_eq!(second.not_modified, first.fetched);
    assert_eq!(report.unchanged.len(), 2);
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test]
async fn export_leaves_no_state_in_the_output_folder() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let client = client(&stub);
    let root = tempdir("no-state");
    let state = root.join(".blogread");
    for (format, out, content) in [
        (Format::Zola, "content/zola", ["blog-1.md", "blog-2.md"]),
        (Format::Hugo, "content/hugo", ["blog-1.html", "blog-2.html"]),
        (
            Format::Html,
            "public/blog",
            ["blog-1/index.html", "blog-2/index.html"],
        ),
    ] {
        let out = root.join(out);
        let options = ExportOptions::new(&out, format).state_dir(&state);
        for _ in 0..2 {
            export::export(&client, &options, &mut |_, _| {})
                .await
                .unwrap();
            assert_eq!(files(&out), content, "{format:?}: only content");
        }
        // The manifest is in the state folder, and lists the content.
        let manifest_path = options.manifest_path().unwrap();
        assert_eq!(manifest_path.parent(), Some(state.as_path()));
        let manifest = Manifest::load(&manifest_path).unwrap();
        assert_eq!(
            manifest.files.keys().collect::<Vec<_>>(),
            content.iter().collect::<Vec<_>>()
        );
    }
    // One manifest per output folder, named after it; the export keeps no cache itself.
    let state_files = files(&state);
    assert_eq!(state_files.len(), 3, "{state_files:?}");
    for (name, prefix) in state_files.iter().zip([
        "export-content-hugo-",
        "export-content-zola-",
        "export-public-blog-",
    ]) {
        assert!(
            name.starts_with(prefix) && name.ends_with(".manifest.json"),
            "{name}"
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test]
async fn a_state_folder_inside_the_output_folder_is_refused_and_nothing_is_written() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let client = client(&stub);
    let root = tempdir("state-inside");
    let out = root.join("public/blog");
    // As `cd public/blog && blogread export --out .` would have it.
    let options = ExportOptions::new(&out, Format::Html).state_dir(out.join(".blogread"));
    let err = export::export(&client, &options, &mut |_, _| {})
        .await
        .expect_err("refused");
    assert!(
        matches!(err, export::ExportError::StateInOutput { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("--state-dir"),
        "says what to do: {err}"
    );
    assert!(!out.exists(), "nothing written");
    std::fs::remove_dir_all(&root).ok();
}

#[tokio::test]
async fn two_output_folders_keep_separate_state() {
    let published = Arc::new(Mutex::new(vec![2u64, 1]));
    let p = published.clone();
    let stub = start_stub(move |_, req| serve(&p.lock().unwrap(), req)).await;
    let client = client(&stub);
    let root = tempdir("two");
    let state = root.join(".blogread");
    // Both read `content-blog`: only the hash tells them apart.
    let a = ExportOptions::new(root.join("content/blog"), Format::Zola).state_dir(&state);
    let b = ExportOptions::new(root.join("content-blog"), Format::Zola).state_dir(&state);
    assert_ne!(a.manifest_path().unwrap(), b.manifest_path().unwrap());
    assert_ne!(a.cache_path().unwrap(), b.cache_path().unwrap());
    assert_ne!(a.manifest_path().unwrap(), a.cache_path().unwrap());
    for options in [&a, &b] {
        export::export(&client, options, &mut |_, _| {})
            .await
            .unwrap();
    }

    // blog-2 unpublished: exporting `a` removes it from `a` only.
    published.lock().unwrap().retain(|&i| i != 2);
    let report = export::export(&client, &a, &mut |_, _| {}).await.unwrap();
    assert_eq!(report.removed, vec!["blog-2.md"]);
    assert_eq!(files(&a.out), vec!["blog-1.md"]);
    assert_eq!(files(&b.out), vec!["blog-1.md", "blog-2.md"]);
    // ...and `b` still owns its copy, so its next export removes it there.
    let report = export::export(&client, &b, &mut |_, _| {}).await.unwrap();
    assert_eq!(report.removed, vec!["blog-2.md"]);
    assert!(report.conflicts.is_empty());
    assert_eq!(files(&b.out), vec!["blog-1.md"]);
    std::fs::remove_dir_all(&root).unwrap();
}
