//! The manifest: which files in the output folder `blogread export` wrote, so that it removes
//! only those (a file the user put there is never touched). It lives in the state folder (see
//! [`ExportOptions::manifest_path`](super::ExportOptions::manifest_path)), not in the output
//! folder.

use std::collections::BTreeMap;
use std::io;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};

pub use super::types::ManifestError;
use super::types::parse_file_path;
use crate::client::KeyStamp;

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
}

impl Manifest {
    /// An empty manifest.
    pub fn new() -> Self {
        Self {
            version: VERSION,
            files: BTreeMap::new(),
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
