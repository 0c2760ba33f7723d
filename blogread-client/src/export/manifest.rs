//! The manifest: which files in the output folder `blogread export` wrote, so that it removes
//! only those (a file the user put there is never touched). It lives in the state folder (see
//! [`ExportOptions::manifest_path`](super::ExportOptions::manifest_path)), not in the output
//! folder.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};

pub use super::types::ManifestError;
use super::types::parse_file_path;
use crate::key_stamp::KeyStamp;

const VERSION: u32 = 1;

/// The manifest file: the [`Manifest`] and, beside it, the key of the export that wrote it
/// (kept by the export only; [`Manifest::load`] ignores it and [`Manifest::save`] writes
/// none, and an older blogread ignores it too).
#[derive(Serialize, Deserialize)]
struct ManifestFile {
    #[serde(flatten)]
    manifest: Manifest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    public_key: Option<KeyStamp>,
}

/// What one export wrote: relative path (with `/`) to the slug it holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version of this file.
    pub version: u32,
    /// The files, by path relative to the output folder, with the slug each holds.
    pub files: BTreeMap<String, String>,
    /// The images the exported posts use, by path relative to the folder the images go in
    /// (the site's static folder, or the output folder for plain HTML): each exactly
    /// `media/<sha256>.<jpg|png>` ([`is_media_file`]). Not written when empty, so a manifest
    /// without images reads and digests as an older blogread's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub media: BTreeMap<String, MediaEntry>,
}

/// One image of the site, as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MediaEntry {
    /// The master's URL it came from, whose name is its digest.
    pub url: String,
    /// Its length in bytes: a file the export wrote of this length is taken as the right one
    /// without reading it again (its name is its digest).
    pub bytes: u64,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The posts that use it, by slug.
    pub posts: BTreeSet<String>,
    /// The file was already there, with the right bytes, when the export first needed it: it
    /// is not the export's, and is never removed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub found: bool,
}

impl Manifest {
    /// An empty manifest.
    pub fn new() -> Self {
        Self {
            version: VERSION,
            files: BTreeMap::new(),
            media: BTreeMap::new(),
        }
    }

    /// Reads the manifest file at `path`; none yet is an empty one. A symbolic link at `path`
    /// is an error (the manifest is read and replaced only as a file). A manifest that does not
    /// parse, or lists any path other than a file an export writes (see [`is_export_file`]),
    /// is an error rather than a guess, so nothing is written or removed on its word.
    pub fn load(path: &Path) -> Result<Self, ManifestError> {
        Self::load_stamped(path).map(|(manifest, _)| manifest)
    }

    /// [`Manifest::load`], with the key of the export that saved it, if it recorded one.
    pub(super) fn load_stamped(path: &Path) -> Result<(Self, Option<KeyStamp>), ManifestError> {
        refuse_link(path)?;
        let path = path.to_owned();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Self::new(), None)),
            Err(source) => return Err(ManifestError::Io { path, source }),
        };
        let invalid = |reason: String| ManifestError::Invalid {
            path: path.clone(),
            reason,
        };
        let ManifestFile {
            manifest,
            public_key,
        } = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if manifest.version != VERSION {
            return Err(invalid(format!("version {}", manifest.version)));
        }
        if let Some(bad) = manifest.files.keys().find(|p| !is_export_file(p)) {
            return Err(invalid(format!(
                "it lists {bad:?}, which is not a file an export writes: every entry must be \
                 `<slug>.md`, `<slug>.html` or `<slug>/index.html`, the slug made of lower-case \
                 letters, digits and single hyphens. Remove that entry (the export then leaves \
                 that file alone), or restore the manifest from version control"
            )));
        }
        if let Some((bad, why)) = manifest
            .media
            .iter()
            .find_map(|(rel, entry)| media_refusal(rel, entry).map(|why| (rel, why)))
        {
            return Err(invalid(format!(
                "its image entry {bad:?} {why}: every image entry must be \
                 `media/<sha256>.<jpg|png>` (64 lower-case hex digits), with the URL of the \
                 service's master of that name and the slugs of the posts using it. Remove that \
                 entry (the export then leaves that file alone), or restore the manifest from \
                 version control"
            )));
        }
        Ok((manifest, public_key))
    }

    /// Writes the manifest to the file `path` atomically (its folder must exist), through a
    /// temporary file created exclusively. A symbolic link at `path` is an error.
    pub fn save(&self, path: &Path) -> Result<(), ManifestError> {
        self.save_stamped(path, None)
    }

    /// [`Manifest::save`], recording the key of the export that wrote the files.
    pub(super) fn save_stamped(
        &self,
        path: &Path,
        public_key: Option<&KeyStamp>,
    ) -> Result<(), ManifestError> {
        refuse_link(path)?;
        let path = path.to_owned();
        let bytes = match public_key {
            None => self.to_bytes(),
            Some(key) => {
                let file = ManifestFile {
                    manifest: self.clone(),
                    public_key: Some(key.clone()),
                };
                let mut json = serde_json::to_vec_pretty(&file).expect("a manifest serialises");
                json.push(b'\n');
                json
            }
        };
        crate::cache::write_atomically(&path, &bytes)
            .map_err(|source| ManifestError::Io { path, source })
    }

    /// The bytes [`save`](Self::save) writes.
    pub(super) fn to_bytes(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec_pretty(self).expect("a manifest serialises");
        json.push(b'\n');
        json
    }

    /// The paths this manifest owns that `next` does not: the files to remove.
    pub fn stale<'a>(&'a self, next: &Manifest) -> Vec<&'a str> {
        self.files
            .keys()
            .filter(|p| !next.files.contains_key(*p))
            .map(String::as_str)
            .collect()
    }

    /// Whether this manifest owns `path`.
    pub fn owns(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }
}

/// An error if `path` is a symbolic link: a manifest is read and written only as a file.
fn refuse_link(path: &Path) -> Result<(), ManifestError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(ManifestError::Io {
            path: path.to_owned(),
            source: io::Error::other(
                "is a symbolic link, and the export reads and replaces its manifest only as a \
                 file; replace the link with a copy of the file it points to",
            ),
        }),
        _ => Ok(()),
    }
}

/// Whether `path` is an image file an export writes: exactly `media/<sha256>.jpg` or
/// `media/<sha256>.png`, with 64 lower-case hex digits, relative to the folder images go in.
pub fn is_media_file(path: &str) -> bool {
    path.strip_prefix("media/")
        .and_then(|file| file.rsplit_once('.'))
        .is_some_and(|(stem, ext)| {
            matches!(ext, "jpg" | "png") && crate::media::is_sha256_hex(stem)
        })
}

/// Why a manifest's image entry cannot be taken at its word, if it cannot.
fn media_refusal(rel: &str, entry: &MediaEntry) -> Option<&'static str> {
    if !is_media_file(rel) {
        return Some("is not an image file an export writes");
    }
    match crate::MediaUrl::parse(&entry.url) {
        Ok(url) if url.variant_width().is_none() && rel == format!("media/{}", url.file_name()) => {
        }
        _ => return Some("does not name the master it came from"),
    }
    if entry
        .posts
        .iter()
        .any(|slug| !crate::slug::is_valid_slug(slug))
    {
        return Some("names a post by something else than a slug");
    }
    None
}

/// Whether `path` is a file an export writes, the only entries a manifest may list: exactly
/// `<slug>.md` (Zola), `<slug>.html` (Hugo) or `<slug>/index.html` (HTML), with a slug of
/// lower-case ASCII letters and digits in groups joined by single hyphens (at most 200 bytes:
/// the server's slug pattern). So no entry is absolute, has `.` or `..`, a backslash, an empty or
/// a deeper part, or another extension. Every format's shape is accepted whatever the format
/// of the current export, so that switching formats on one output folder still removes the
/// files of the earlier format.
pub fn is_export_file(path: &str) -> bool {
    parse_file_path(path).is_some_and(|(_, slug)| crate::slug::is_valid_slug(slug))
}

/// A relative path of normal components only (no `..`, no root, no prefix, not empty). A
/// weaker test than [`is_export_file`], which is the one a manifest's entries must pass.
pub fn is_safe_relative(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && !path.contains('\\')
        && p.components().all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(paths: &[&str]) -> Manifest {
        let mut m = Manifest::new();
        for p in paths {
            m.files
                .insert((*p).to_owned(), p.trim_end_matches(".md").to_owned());
        }
        m
    }

    #[test]
    fn stale_is_what_the_old_export_wrote_and_the_new_one_does_not() {
        let old = m(&["a.md", "b.md", "c.md"]);
        let new = m(&["a.md", "c.md", "d.md"]);
        assert_eq!(old.stale(&new), vec!["b.md"]);
        assert!(new.stale(&new).is_empty());
        assert!(old.owns("a.md") && !old.owns("user.md"));
    }

    #[test]
    fn unsafe_paths_are_refused() {
        for bad in [
            "",
            "../x.md",
            "/etc/passwd",
            "a/../../b",
            "./a.md",
            "a\\..\\b",
        ] {
            assert!(!is_safe_relative(bad), "{bad}");
        }
        for good in ["a.md", "hello/index.html"] {
            assert!(is_safe_relative(good), "{good}");
        }
    }

    /// Entries that pass the weaker relative-path test, or none at all, but are not a file an
    /// export writes.
    pub(crate) const NOT_EXPORT_FILES: &[&str] = &[
        "",
        "/etc/passwd",
        "/abs.md",
        "../x.md",
        "..md",
        "a/../b.md",
        "a/../index.html",
        "./a.md",
        "a/./index.html",
        "a/b.md",
        "a/b.html",
        "a/b/index.html",
        "a//index.html",
        "a.md/",
        "a/",
        "a/index.md",
        "a/index.htm",
        "a/other.html",
        "a.txt",
        "a",
        "a.htm",
        "a.MD",
        "a.md.md",
        ".md",
        ".html",
        "/index.html",
        "index.html/",
        "A.md",
        "a--b.md",
        "-a.md",
        "a-.md",
        "a b.md",
        "a\\b.md",
        "a\\index.html",
        "..\\x.md",
        "é.md",
    ];

    #[test]
    fn only_the_three_shapes_the_renderer_writes_are_export_files() {
        for bad in NOT_EXPORT_FILES {
            assert!(!is_export_file(bad), "{bad:?}");
        }
        let long = "a".repeat(201);
        assert!(!is_export_file(&format!("{long}.md")));
        let longest = "a".repeat(200);
        for good in [
            "a.md",
            "hello-world.html",
            "2026-recap/index.html",
            "index.html",
            "index.md",
            "index/index.html",
            &format!("{longest}.md"),
        ] {
            assert!(is_export_file(good), "{good:?}");
        }
    }

    #[test]
    fn every_file_the_renderer_writes_is_an_export_file_of_its_format_and_slug() {
        use crate::export::Format;
        for format in [Format::Zola, Format::Hugo, Format::Html] {
            for slug in ["a", "hello-world", "2026-recap", "index"] {
                let path = crate::export::render::file_path(format, slug);
                assert!(is_export_file(&path), "{path}");
                assert_eq!(
                    crate::export::types::parse_file_path(&path),
                    Some((format, slug)),
                    "{path}"
                );
            }
        }
    }

    #[test]
    fn round_trips_and_rejects_tampering() {
        let dir = std::env::temp_dir().join(format!("blogread-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("export.manifest.json");
        assert_eq!(Manifest::load(&path).unwrap(), Manifest::new());
        let saved = m(&["a.md", "b/index.html"]);
        saved.save(&path).unwrap();
        assert_eq!(Manifest::load(&path).unwrap(), saved);

        std::fs::write(&path, r#"{"version":1,"files":{"../../outside":"x"}}"#).unwrap();
        assert!(matches!(
            Manifest::load(&path),
            Err(ManifestError::Invalid { .. })
        ));
        std::fs::write(&path, "garbage").unwrap();
        assert!(matches!(
            Manifest::load(&path),
            Err(ManifestError::Invalid { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_manifest_listing_anything_but_an_export_file_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("export.manifest.json");
        for bad in NOT_EXPORT_FILES {
            let text = serde_json::json!({"version": 1, "files": {"a.md": "a", *bad: "x"}});
            std::fs::write(&path, text.to_string()).unwrap();
            let err = Manifest::load(&path).expect_err(bad);
            let message = err.to_string();
            assert!(matches!(err, ManifestError::Invalid { .. }), "{message}");
            assert!(message.contains(&format!("{bad:?}")), "{message}");
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(
                message.contains("<slug>/index.html"),
                "says what is allowed: {message}"
            );
        }
    }

    #[test]
    fn image_entries_are_exactly_media_sha256_jpg_or_png_naming_their_master() {
        let sha = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";
        let project = "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f";
        assert!(is_media_file(&format!("media/{sha}.jpg")));
        assert!(is_media_file(&format!("media/{sha}.png")));
        for bad in [
            format!("media/{sha}.gif"),
            format!("media/{}.jpg", sha.to_uppercase()),
            format!("media/{}.jpg", &sha[1..]),
            format!("media/../{sha}.jpg"),
            format!("/media/{sha}.jpg"),
            format!("static/media/{sha}.jpg"),
            format!("media/{sha}/w480.jpg"),
            format!("{sha}.jpg"),
            "media/".to_owned(),
        ] {
            assert!(!is_media_file(&bad), "{bad}");
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("export.manifest.json");
        let url = format!("https://b.example/media/{project}/{sha}.jpg");
        let entry = |rel: &str, url: &str, post: &str| {
            serde_json::json!({"version": 1, "files": {}, "media": {rel: {
                "url": url, "bytes": 10, "width": 4, "height": 3, "posts": [post]}}})
        };
        std::fs::write(
            &path,
            entry(&format!("media/{sha}.jpg"), &url, "a").to_string(),
        )
        .unwrap();
        let loaded = Manifest::load(&path).unwrap();
        assert_eq!(loaded.media[&format!("media/{sha}.jpg")].width, 4);
        let other = "0".repeat(64);
        for (rel, url, post) in [
            (format!("../{sha}.jpg"), url.clone(), "a"),
            (format!("media/{other}.jpg"), url.clone(), "a"),
            (format!("media/{sha}.png"), url.clone(), "a"),
            (
                format!("media/{sha}.jpg"),
                url.replace(".jpg", "/w480.jpg"),
                "a",
            ),
            (format!("media/{sha}.jpg"), url.clone(), "../a"),
        ] {
            std::fs::write(&path, entry(&rel, &url, post).to_string()).unwrap();
            let err = Manifest::load(&path).expect_err(&rel);
            assert!(matches!(err, ManifestError::Invalid { .. }), "{err}");
            assert!(
                err.to_string().contains("media/<sha256>.<jpg|png>"),
                "{err}"
            );
        }
        // A manifest without images is written as an older blogread wrote it.
        assert!(
            !String::from_utf8(Manifest::new().to_bytes())
                .unwrap()
                .contains("media")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_manifest_that_is_a_symlink_is_neither_read_nor_replaced() {
        let state = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("elsewhere.json");
        let original = r#"{"version":1,"files":{"a.md":"a"}}"#;
        std::fs::write(&target, original).unwrap();
        let path = state.path().join("export.manifest.json");
        std::os::unix::fs::symlink(&target, &path).unwrap();

        for err in [
            Manifest::load(&path).expect_err("not read"),
            Manifest::new().save(&path).expect_err("not replaced"),
        ] {
            let message = err.to_string();
            assert!(matches!(err, ManifestError::Io { .. }), "{message}");
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(message.contains("symbolic link"), "{message}");
        }
        assert!(path.symlink_metadata().unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), original);
    }
}
