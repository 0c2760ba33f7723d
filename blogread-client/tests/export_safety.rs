//! `export` keeps to its own files: a manifest lists only files an export writes, and nothing
//! is written or removed through a symbolic link below the output folder. Real files in
//! throw-away folders, against the stub server.
#![cfg(feature = "export")]

mod support;

use std::path::{Path, PathBuf};

use blogread_client::export::{self, ExportError, ExportOptions, Format, ManifestError};
use support::*;

/// Every file and folder under `dir` (symlinks listed, not followed) with its contents, so a
/// before/after comparison shows any write or removal.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    if dir.symlink_metadata().is_err() {
        return out;
    }
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = path.symlink_metadata().unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
                out.push((path, None));
            } else if meta.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.push((path, Some(target.into_os_string().into_encoded_bytes())));
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path, Some(bytes)));
            }
        }
    }
    out.sort();
    out
}

/// A site with an output folder holding the user's file and blog-9.md, which the manifest
/// (listing also `bad`) owns and whose blog is no longer published, so an export that went
/// ahead would write blog-1.md and blog-2.md and remove blog-9.md.
fn site_with_manifest_entry(root: &Path, bad: &str) -> ExportOptions {
    let out = root.join("content/blog");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.md"), "mine").unwrap();
    std::fs::write(out.join("blog-9.md"), "old text").unwrap();
    let options = ExportOptions::new(&out, Format::Zola).state_dir(root.join(".blogread"));
    let manifest_path = options.manifest_path().unwrap();
    std::fs::create_dir_all(manifest_path.parent().unwrap()).unwrap();
    let manifest = serde_json::json!({
        "version": 1,
        "files": {"blog-9.md": "blog-9", bad: "x"}
    });
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    options
}

#[tokio::test]
async fn a_manifest_entry_of_any_other_shape_is_refused_before_anything_is_written() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let client = client(&stub);
    for bad in [
        "",
        "/etc/passwd",
        "../outside.md",
        "a/../../outside.md",
        "./blog-9.md",
        "nested/deeper/index.html",
        "nested/post.md",
        "nested//index.html",
        "blog-9.md/",
        "post.txt",
        "post",
        "post.htm",
        "Post.md",
        "a--b.md",
        "a\\b.md",
        "..\\outside.md",
    ] {
        let root = tempfile::tempdir().unwrap();
        let options = site_with_manifest_entry(root.path(), bad);
        let before = snapshot(root.path());
        let err = export::export(&client, &options, &mut |_, _| {})
            .await
            .expect_err(bad);
        let message = err.to_string();
        assert!(
            matches!(err, ExportError::Manifest(ManifestError::Invalid { .. })),
            "{bad:?}: {message}"
        );
        assert!(
            message.contains(&format!("{bad:?}")),
            "names the entry: {message}"
        );
        let manifest_path = options.manifest_path().unwrap();
        assert!(
            message.contains(&manifest_path.display().to_string()),
            "names the manifest: {message}"
        );
        assert_eq!(
            snapshot(root.path()),
            before,
            "{bad:?}: nothing written or removed"
        );
    }
}

#[tokio::test]
async fn a_bad_manifest_entry_stops_the_export_before_the_output_folder_is_made() {
    let stub = start_stub(|_, req| serve(&[1], req)).await;
    let client = client(&stub);
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("public/blog");
    let options = ExportOptions::new(&out, Format::Html).state_dir(root.path().join(".blogread"));
    let manifest_path = options.manifest_path().unwrap();
    std::fs::create_dir_all(manifest_path.parent().unwrap()).unwrap();
    std::fs::write(
        &manifest_path,
        r#"{"version":1,"files":{"../../etc/index.html":"x"}}"#,
    )
    .unwrap();
    let err = export::export(&client, &options, &mut |_, _| {})
        .await
        .expect_err("refused");
    assert!(matches!(err, ExportError::Manifest(_)), "{err}");
    assert!(!out.exists(), "no folder made");
    assert_eq!(stub.count(), 0, "not even the API was asked");
}
