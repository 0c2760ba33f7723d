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

/// A site whose state folder exists and whose manifest lists `entries` (path, slug), and a
/// folder outside the site holding `index.html` and `post.md`, which no export may touch.
#[cfg(unix)]
struct LinkedSite {
    root: tempfile::TempDir,
    outside: tempfile::TempDir,
    options: ExportOptions,
}

#[cfg(unix)]
impl LinkedSite {
    fn new(format: Format, entries: &[(&str, &str)]) -> Self {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("index.html"), "outside").unwrap();
        std::fs::write(outside.path().join("post.md"), "outside").unwrap();
        let out = root.path().join("content/blog");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("notes.md"), "mine").unwrap();
        let options = ExportOptions::new(&out, format).state_dir(root.path().join(".blogread"));
        std::fs::create_dir_all(&options.state_dir).unwrap();
        if !entries.is_empty() {
            let files: serde_json::Map<String, serde_json::Value> = entries
                .iter()
                .map(|(rel, slug)| ((*rel).to_owned(), (*slug).into()))
                .collect();
            let manifest = serde_json::json!({"version": 1, "files": files});
            std::fs::write(options.manifest_path().unwrap(), manifest.to_string()).unwrap();
        }
        Self {
            root,
            outside,
            options,
        }
    }

    fn out(&self) -> &Path {
        &self.options.out
    }

    /// Makes `out/<name>` a symbolic link to `target` (relative to the outside folder).
    fn link(&self, name: &str, target: &str) -> PathBuf {
        let link = self.out().join(name);
        std::os::unix::fs::symlink(self.outside.path().join(target), &link).unwrap();
        link
    }

    /// Exports, expects a refusal naming `link`, and checks that nothing changed anywhere.
    async fn assert_refused(&self, stub: &Stub, link: &Path) {
        let before = (snapshot(self.root.path()), snapshot(self.outside.path()));
        let err = export::export(&client(stub), &self.options, &mut |_, _| {})
            .await
            .expect_err("refused");
        let message = err.to_string();
        match &err {
            ExportError::Symlink { link: l, .. } => assert_eq!(l, link, "{message}"),
            other => panic!("not refused for the link: {other}"),
        }
        assert!(
            message.contains(&link.display().to_string()),
            "names the link: {message}"
        );
        assert!(
            message.contains("replace the link"),
            "says what to do: {message}"
        );
        let after = (snapshot(self.root.path()), snapshot(self.outside.path()));
        assert_eq!(
            after, before,
            "nothing written or removed, inside or outside"
        );
        for name in ["index.html", "post.md"] {
            let text = std::fs::read_to_string(self.outside.path().join(name)).unwrap();
            assert_eq!(text, "outside", "{name} outside the site untouched");
        }
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_committed_symlinked_folder_and_a_manifest_entry_through_it_are_refused() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    // blog-9 is no longer published: the export would remove outside/index.html.
    let site = LinkedSite::new(Format::Html, &[("blog-9/index.html", "blog-9")]);
    let link = site.link("blog-9", "");
    site.assert_refused(&stub, &link).await;
    assert_eq!(stub.count(), 0, "refused before the API was asked");

    // blog-1 is published: the export would overwrite outside/index.html.
    let site = LinkedSite::new(Format::Html, &[("blog-1/index.html", "blog-1")]);
    let link = site.link("blog-1", "");
    site.assert_refused(&stub, &link).await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlinked_post_file_is_refused_and_its_target_untouched() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    // Owned and published (would be rewritten), owned and unpublished (would be removed).
    for (rel, slug) in [("blog-1.md", "blog-1"), ("blog-9.md", "blog-9")] {
        let site = LinkedSite::new(Format::Zola, &[(rel, slug)]);
        let link = site.link(rel, "post.md");
        site.assert_refused(&stub, &link).await;
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_where_a_new_blog_would_go_is_refused_before_anything_is_written() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    // Not in the manifest: found once the blog list is read, still before any write.
    let site = LinkedSite::new(Format::Html, &[("blog-9/index.html", "blog-9")]);
    std::fs::create_dir_all(site.out().join("blog-9")).unwrap();
    std::fs::write(site.out().join("blog-9/index.html"), "old").unwrap();
    let link = site.link("blog-2", "");
    site.assert_refused(&stub, &link).await;

    let site = LinkedSite::new(Format::Zola, &[]);
    let link = site.link("blog-1.md", "post.md");
    site.assert_refused(&stub, &link).await;
    assert!(!site.options.manifest_path().unwrap().exists());
}

#[cfg(unix)]
#[tokio::test]
async fn an_output_folder_that_is_itself_a_symlink_is_exported_into() {
    let published = std::sync::Arc::new(std::sync::Mutex::new(vec![2u64, 1]));
    let p = published.clone();
    let stub = start_stub(move |_, req| serve(&p.lock().unwrap(), req)).await;
    let root = tempfile::tempdir().unwrap();
    let real = tempfile::tempdir().unwrap();
    let out = root.path().join("public-blog");
    std::os::unix::fs::symlink(real.path(), &out).unwrap();
    let options = ExportOptions::new(&out, Format::Html).state_dir(root.path().join(".blogread"));
    let report = export::export(&client(&stub), &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.written, ["blog-1/index.html", "blog-2/index.html"]);
    assert!(real.path().join("blog-1/index.html").is_file());
    published.lock().unwrap().retain(|&i| i != 1);
    let report = export::export(&client(&stub), &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.removed, ["blog-1/index.html"]);
    assert!(!real.path().join("blog-1").exists());
    assert!(out.symlink_metadata().unwrap().is_symlink(), "link kept");
}
