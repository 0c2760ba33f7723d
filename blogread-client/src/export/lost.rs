//! Exported files whose state the export cannot find: an export run from another folder than
//! the last one (the state folder is `.blogread` in the current directory by default), or with
//! another `--state-dir`, finds no manifest, and every post's file would be a conflict. When
//! there is no manifest, the export looks at the output folder first and stops with one error
//! that names the state folder it looked in if it holds files only an export writes.
//!
//! A file counts when it has the shape of an export's file (`<slug>.md`, `<slug>.html`,
//! `<slug>/index.html`) and holds what only an export writes there: for Zola the body's
//! `<script></script ><div class="blogread-content">` opening (or `<style></style >`), for Hugo the `[params]` table
//! with `id`, `word_count` and `meta_title`, for plain HTML the `blogread:slug` meta tag or a
//! redirect page. A user's own content files do not look like that, so a first export beside
//! them goes ahead as before.

use std::path::Path;

use super::guard;
use super::types::{ExportError, Format, io_err, parse_file_path};
use crate::slug::is_valid_slug;

/// The most bytes of a file read to tell whether an export wrote it: the markers come
/// within the front matter or right after it.
const HEAD_BYTES: usize = 64 * 1024;

/// The files directly in `out` (and `<slug>/index.html` below it) that an export wrote, by
/// path relative to `out`, sorted. Nothing is followed through a symbolic link; a missing
/// folder holds none.
pub(super) fn exported_files(out: &Path) -> Result<Vec<String>, ExportError> {
    let entries = match std::fs::read_dir(out) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(out)(e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err(out))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let rel = if kind.is_dir() && is_valid_slug(&name) {
            format!("{name}/index.html")
        } else if kind.is_file() {
            name
        } else {
            // Links are never followed; anything else is no export's.
            continue;
        };
        let Some((format, slug)) = parse_file_path(&rel) else {
            continue;
        };
        if !is_valid_slug(slug) {
            continue;
        }
        if let Some(head) = guard::read_head(out, &rel, HEAD_BYTES)?
            && written_by_an_export(format, &String::from_utf8_lossy(&head))
        {
            found.push(rel);
        }
    }
    found.sort();
    Ok(found)
}

/// Whether `head`, the start of a file of `format`'s shape, is what an export writes.
fn written_by_an_export(format: Format, head: &str) -> bool {
    match format {
        Format::Zola => {
            head.starts_with("+++\n")
                && ["script", "style"].iter().any(|block| {
                    head.contains(&format!(
                        "+++\n<{block}></{block} ><div class=\"blogread-content\">"
                    ))
                })
        }
        Format::Hugo => {
            let Some(front) = head
                .strip_prefix("+++\n")
                .and_then(|rest| rest.split_once("\n+++\n"))
                .map(|(front, _)| front)
            else {
                return false;
            };
            front.contains("\n[params]\nid = ")
                && front.contains("\nword_count = ")
                && front.contains("\nmeta_title = ")
        }
        Format::Html => {
            head.starts_with("<!DOCTYPE html>")
                && (head.contains("<meta name=\"blogread:slug\" content=\"")
                    || head.contains("<title>Moved</title>\n<link rel=\"canonical\" href=\"../"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::render::{redirect_page, render};

    fn blog() -> crate::BlogDetail {
        serde_json::from_value(serde_json::json!({
            "id": "0190a1b2-0000-7000-8000-000000000001",
            "title": "T", "slug": "hello", "excerpt": "", "meta_title": "",
            "meta_description": "", "featured_image_url": "https://x/y.png",
            "categories": [], "tags": [],
            "published_at": "2026-11-21T09:30:00Z", "content": "<p>x</p>",
            "updated_at": "2026-11-22T10:00:00Z", "word_count": 1
        }))
        .unwrap()
    }

    #[test]
    fn every_file_an_export_writes_is_recognised_and_a_users_own_is_not() {
        for format in [Format::Zola, Format::Hugo, Format::Html] {
            let (_, text) = render(format, &blog());
            assert!(written_by_an_export(format, &text), "{format:?}");
        }
        // A Zola body opened with <style> (when its </script>s need it).
        let mut b = blog();
        b.content = "<!-- </script> --><script>x</script>".into();
        let (_, text) = render(Format::Zola, &b);
        assert!(text.contains("+++\n<style></style ><div"), "{text}");
        assert!(written_by_an_export(Format::Zola, &text));
        assert!(written_by_an_export(Format::Html, &redirect_page("hello")));
        for (format, users) in [
            (Format::Zola, "+++\ntitle = \"Mine\"\n+++\nHello *there*.\n"),
            (Format::Zola, "Hello"),
            (
                Format::Hugo,
                "+++\ntitle = \"Mine\"\n[params]\nauthor = \"me\"\n+++\n<p>x</p>\n",
            ),
            (Format::Html, "<!DOCTYPE html>\n<title>My page</title>\n"),
        ] {
            assert!(!written_by_an_export(format, users), "{users}");
        }
    }

    #[test]
    fn exported_files_are_found_by_shape_and_content_only() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        assert!(exported_files(&out.join("missing")).unwrap().is_empty());
        let (zola, text) = render(Format::Zola, &blog());
        std::fs::write(out.join(&zola), text).unwrap();
        let (html, text) = render(Format::Html, &blog());
        std::fs::create_dir(out.join("hello")).unwrap();
        std::fs::write(out.join(&html), text).unwrap();
        std::fs::write(out.join("mine.md"), "+++\ntitle = \"Mine\"\n+++\n").unwrap();
        // An export's text under a name no export writes.
        let (_, text) = render(Format::Zola, &blog());
        std::fs::write(out.join("Not A Slug.md"), &text).unwrap();
        std::fs::write(out.join("notes.txt"), &text).unwrap();
        assert_eq!(
            exported_files(out).unwrap(),
            ["hello.md", "hello/index.html"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_not_followed_to_look() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let (zola, text) = render(Format::Zola, &blog());
        std::fs::write(outside.path().join(&zola), text).unwrap();
        std::os::unix::fs::symlink(outside.path().join(&zola), dir.path().join(&zola)).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("post")).unwrap();
        assert!(exported_files(dir.path()).unwrap().is_empty());
    }
}
