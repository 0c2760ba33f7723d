//! Where an export keeps its state: the manifest and the ETag cache, in a state folder outside
//! the output folder (a generator publishes whatever is in a content folder), one pair of
//! files per output folder.

use std::io;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

/// The state folder's default: `.blogread` in the current directory, which is the site's root
/// when the export runs there (next to Zola's `config.toml` or Hugo's `hugo.toml`, outside
/// `content/`, `static/` and `public/`).
pub const DEFAULT_STATE_DIR: &str = ".blogread";

/// The longest readable part of a state file's name, in characters.
const READABLE_MAX: usize = 40;

/// The common start of the two state file names of the output folder `out`:
/// `export-<readable>-<hash>`.
///
/// Both paths are made absolute (against the current directory) and normalised lexically
/// (`.` and `..` resolved, symlinks not followed). The output folder is then named by its path
/// relative to the folder that holds the state folder (the site's root), or by its absolute path
/// when it is not inside that folder: a site checked out at another place keeps the same names,
/// so a committed manifest still applies. `<readable>` is that path's components joined with
/// `-` (characters other than ASCII letters, digits, `.`, `_` and `-` become `_`; at most the
/// last 40 characters; `root` when empty), and `<hash>` the first eight hex digits of its SHA-256, so folders whose readable parts agree still get their own files.
pub(crate) fn file_stem(state_dir: &Path, out: &Path) -> io::Result<String> {
    let state_dir = normalised(state_dir)?;
    let out = normalised(out)?;
    let (parts, key): (Vec<&[u8]>, Vec<u8>) = match state_dir
        .parent()
        .and_then(|root| out.strip_prefix(root).ok())
    {
        Some(relative) => {
            let parts: Vec<&[u8]> = relative
                .components()
                .map(|c| c.as_os_str().as_encoded_bytes())
                .collect();
            let key = parts.join(&b'/');
            (parts, key)
        }
        // Outside the site: the whole path, which starts with `/` (a relative key never
        // does, so the two kinds never collide).
        None => {
            let parts: Vec<&[u8]> = out
                .components()
                .filter(|c| !matches!(c, Component::RootDir))
                .map(|c| c.as_os_str().as_encoded_bytes())
                .collect();
            let mut key = b"/".to_vec();
            key.extend(parts.join(&b'/'));
            (parts, key)
        }
    };
    let hash = Sha256::digest(&key);
    let readable = readable(&parts);
    Ok(format!("export-{readable}-{}", hex::encode(&hash[..4])))
}

/// True when the state folder is the output folder or inside it (the generator would publish
/// the state).
pub(crate) fn is_inside(state_dir: &Path, out: &Path) -> io::Result<bool> {
    Ok(normalised(state_dir)?.starts_with(normalised(out)?))
}

/// `path`, absolute and with `.` and `..` resolved without touching the file system.
pub(crate) fn normalised(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                // `/..` is `/`: popping the root is a no-op.
                out.pop();
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

fn readable(parts: &[&[u8]]) -> String {
    let parts: Vec<String> = parts
        .iter()
        .map(|part| {
            String::from_utf8_lossy(part)
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        })
        .collect();
    let joined = parts.join("-");
    // ASCII only by now, so any byte offset is a character boundary.
    let tail = &joined[joined.len().saturating_sub(READABLE_MAX)..];
    let tail = tail.trim_start_matches(['-', '.']);
    if tail.is_empty() {
        "root".to_owned()
    } else {
        tail.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_folder_in_the_output_folder_is_recognised() {
        let out = Path::new("/site/public/blog");
        assert!(is_inside(Path::new("/site/public/blog/.blogread"), out).unwrap());
        assert!(is_inside(Path::new("/site/public/blog/x/../.blogread"), out).unwrap());
        assert!(is_inside(out, out).unwrap());
        assert!(!is_inside(Path::new("/site/.blogread"), out).unwrap());
        assert!(!is_inside(Path::new("/site/public/blog-state"), out).unwrap());
    }

    #[test]
    fn the_name_is_the_path_relative_to_the_site_root_readable_and_hashed() {
        let stem = file_stem(
            Path::new("/site/.blogread"),
            Path::new("/site/content/blog"),
        )
        .unwrap();
        assert!(stem.starts_with("export-content-blog-"), "{stem}");
        assert_eq!(stem.len(), "export-content-blog-".len() + 8);
        // The same site elsewhere: the same name.
        assert_eq!(
            file_stem(
                Path::new("/elsewhere/site/.blogread"),
                Path::new("/elsewhere/site/content/blog")
            )
            .unwrap(),
            stem
        );
        // Spellings of the same folder: the same name.
        for out in ["/site/content/blog/", "/site/./content/x/../blog"] {
            assert_eq!(
                file_stem(Path::new("/site/.blogread"), Path::new(out)).unwrap(),
                stem,
                "{out}"
            );
        }
    }

    #[test]
    fn different_folders_get_different_names() {
        let state = Path::new("/site/.blogread");
        let names: Vec<String> = [
            "/site/content/blog",
            "/site/content-blog",
            "/site/content/posts",
            "/other/content/blog",
            "/content/blog",
            "/site",
            "/",
        ]
        .iter()
        .map(|out| file_stem(state, Path::new(out)).unwrap())
        .collect();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(names[3].starts_with("export-other-content-blog-"));
        assert!(names[5].starts_with("export-root-"), "{}", names[5]);
    }

    #[test]
    fn the_readable_part_is_safe_and_short() {
        let stem = file_stem(
            Path::new("/s/.blogread"),
            Path::new("/s/a b/ünï/../c*d/very-long-folder-name-that-goes-on-and-on-and-on"),
        )
        .unwrap();
        let readable = stem
            .strip_prefix("export-")
            .unwrap()
            .rsplit_once('-')
            .unwrap()
            .0;
        assert!(readable.len() <= READABLE_MAX, "{readable}");
        assert!(readable.ends_with("goes-on-and-on-and-on"), "{readable}");
        assert!(
            stem.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')),
            "{stem}"
        );
        let stem = file_stem(Path::new("/s/.blogread"), Path::new("/s/a b/c*d")).unwrap();
        assert!(stem.starts_with("export-a_b-c_d-"), "{stem}");
    }
}
