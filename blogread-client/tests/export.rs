//! `export` against the stub server: files, manifest, user files, removal, no rewrites.
#![cfg(feature = "export")]

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use blogread_client::export::{self, ExportOptions, Format, MANIFEST_FILE};
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
    let out = tempdir("zola");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("_index.md"), "+++\ntitle = \"Blog\"\n+++\n").unwrap();
    std::fs::write(out.join("notes.md"), "mine").unwrap();

    let options = ExportOptions::new(&out, Format::Zola);
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.blogs, 3);
    assert_eq!(report.written.len(), 3);
    assert_eq!(
        files(&out),
        vec![
            MANIFEST_FILE,
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
        vec![
            MANIFEST_FILE,
            "_index.md",
            "blog-1.md",
            "blog-3.md",
            "notes.md"
        ]
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
    std::fs::remove_dir_all(&out).unwrap();
}

#[tokio::test]
async fn html_export_uses_folders_and_removes_them_when_emptied() {
    let published = Arc::new(Mutex::new(vec![2u64, 1]));
    let p = published.clone();
    let stub = start_stub(move |_, req| serve(&p.lock().unwrap(), req)).await;
    let client = client(&stub);
    let out = tempdir("html");
    let options = ExportOptions::new(&out, Format::Html);
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
    std::fs::remove_dir_all(&out).unwrap();
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
    let out = tempdir("cache");
    let cache = EtagCache::new();
    let client = Client::builder(&stub.base, "pk_live_test")
        .with_etag_cache(cache.clone())
        .build()
        .unwrap();
    let options = ExportOptions::new(&out, Format::Hugo);
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
    std::fs::remove_dir_all(&out).unwrap();
}
