//! The name of a stored file, built only from checked parts.

use std::fmt;

use blogread_media::OutputKind;
use blogread_media::limits::VARIANT_WIDTHS;

use crate::domain::ProjectId;

/// The path of a stored file, relative to the store's root: a master
/// (`{project_id}/{sha256}.{ext}`) or a variant (`{project_id}/{sha256}/w{width}.{ext}`).
/// It holds only a project id, 64 lower-case hex digits, a width the pipeline makes and `jpg`
/// or `png`: no `..`, no separator, nothing a client chose.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MediaPath {
    project: ProjectId,
    width: Option<u32>,
    kind: OutputKind,
    /// The whole path, rendered once when the path is made (serving one names it in a system
    /// call): the digest is at [`SHA256_AT`].
    relative: Box<str>,
}

/// Where the digest is in a rendered path: after the project id (36 characters) and its `/`.
const SHA256_AT: std::ops::Range<usize> = 37..37 + 64;

/// The path of a file: `{project}/{sha256}.{ext}`, or `{project}/{sha256}/w{width}.{ext}`
/// for a variant. Written piece by piece into a string of its exact length (the formatting
/// machinery was a visible part of serving a file).
fn rendered(project: ProjectId, sha256: &str, width: Option<u32>, kind: OutputKind) -> Box<str> {
    let mut id = [0; uuid::fmt::Hyphenated::LENGTH];
    let id = project.as_uuid().hyphenated().encode_lower(&mut id);
    let mut digits = itoa::Buffer::new();
    let width = width.map(|w| digits.format(w));
    let ext = kind.extension();
    let length = id.len() + 1 + sha256.len() + width.map_or(0, |w| 2 + w.len()) + 1 + ext.len();
    let mut path = String::with_capacity(length);
    path.push_str(id);
    path.push('/');
    path.push_str(sha256);
    if let Some(width) = width {
        path.push_str("/w");
        path.push_str(width);
    }
    path.push('.');
    path.push_str(ext);
    path.into_boxed_str()
}

/// Whether `text` is a SHA-256 as stored: 64 lower-case hex digits.
fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl MediaPath {
    /// The master of the item with digest `sha256` (64 lower-case hex digits) of `project`.
    pub fn master(project: ProjectId, sha256: &str, kind: OutputKind) -> Option<Self> {
        is_sha256(sha256).then(|| Self {
            project,
            width: None,
            kind,
            relative: rendered(project, sha256, None, kind),
        })
    }

    /// The variant `width` px wide (one the pipeline makes) of the item `sha256` of `project`.
    pub fn variant(project: ProjectId, sha256: &str, width: u32, kind: OutputKind) -> Option<Self> {
        (is_sha256(sha256) && VARIANT_WIDTHS.contains(&width)).then(|| Self {
            project,
            width: Some(width),
            kind,
            relative: rendered(project, sha256, Some(width), kind),
        })
    }

    /// The path a request names: `project` (a project id) and `rest` (`{sha256}.{ext}` or
    /// `{sha256}/w{width}.{ext}`), as sent; `None` for anything but the one spelling of a
    /// stored file (no `..`, no encoded character, no upper case, no other width).
    pub fn parse(project: &str, rest: &str) -> Option<Self> {
        let id: ProjectId = project.parse().ok()?;
        // One spelling only: the canonical one (hyphenated, lower case).
        let mut canonical = [0; uuid::fmt::Hyphenated::LENGTH];
        if id.as_uuid().hyphenated().encode_lower(&mut canonical) != project {
            return None;
        }
        let project = id;
        let (stem, ext) = rest.rsplit_once('.')?;
        let kind = OutputKind::from_extension(ext)?;
        match stem.split_once('/') {
            None => Self::master(project, stem, kind),
            Some((sha256, width)) => {
                let width = width.strip_prefix('w')?;
                if width.starts_with('0') || !width.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                Self::variant(project, sha256, width.parse().ok()?, kind)
            }
        }
    }

    /// The path relative to the root, `/`-separated (what [`fmt::Display`] writes).
    pub fn as_str(&self) -> &str {
        &self.relative
    }

    /// The project the file is of.
    pub fn project(&self) -> ProjectId {
        self.project
    }

    /// The item's digest (of its master).
    pub fn sha256(&self) -> &str {
        &self.relative[SHA256_AT]
    }

    /// The variant's width, `None` for the master.
    pub fn width(&self) -> Option<u32> {
        self.width
    }

    /// The file's type.
    pub fn kind(&self) -> OutputKind {
        self.kind
    }

    /// The folders the file is in, from the root: the project's, then the item's for a variant.
    pub(crate) fn folders(&self) -> Vec<String> {
        let mut folders = vec![self.project.to_string()];
        if self.width.is_some() {
            folders.push(self.sha256().to_owned());
        }
        folders
    }

    /// The file's own name in its folder.
    pub(crate) fn file_name(&self) -> String {
        match self.width {
            None => format!("{}.{}", self.sha256(), self.kind.extension()),
            Some(w) => format!("w{w}.{}", self.kind.extension()),
        }
    }
}

impl fmt::Display for MediaPath {
    /// The path relative to the root, `/`-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.relative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const PROJECT: &str = "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f";

    #[test]
    fn a_served_path_names_a_master_or_a_variant_the_pipeline_makes() {
        let master = MediaPath::parse(PROJECT, &format!("{SHA}.jpg")).unwrap();
        assert_eq!(master.to_string(), format!("{PROJECT}/{SHA}.jpg"));
        assert_eq!(master.width(), None);
        let variant = MediaPath::parse(PROJECT, &format!("{SHA}/w480.png")).unwrap();
        assert_eq!(variant.to_string(), format!("{PROJECT}/{SHA}/w480.png"));
        assert_eq!(variant.kind(), OutputKind::Png);
        // The rendered path is the walk's: its folders, then the file's name.
        for path in [&master, &variant] {
            let walked = format!("{}/{}", path.folders().join("/"), path.file_name());
            assert_eq!(path.as_str(), walked);
            assert_eq!(path.sha256(), SHA);
        }
    }

    #[test]
    fn a_path_is_rendered_as_formatting_would_render_it() {
        let project: ProjectId = PROJECT.parse().unwrap();
        for kind in [OutputKind::Jpeg, OutputKind::Png] {
            let ext = kind.extension();
            assert_eq!(
                &*rendered(project, SHA, None, kind),
                format!("{project}/{SHA}.{ext}")
            );
            for width in [0, 7, 10, 480, 1_000_000, u32::MAX] {
                assert_eq!(
                    &*rendered(project, SHA, Some(width), kind),
                    format!("{project}/{SHA}/w{width}.{ext}")
                );
            }
        }
    }

    #[test]
    fn any_other_spelling_of_a_served_path_is_refused() {
        let upper = SHA.to_ascii_uppercase();
        for (project, rest) in [
            (PROJECT, format!("{upper}.jpg")),
            (PROJECT, format!("{SHA}.jpeg")),
            (PROJECT, format!("{SHA}.JPG")),
            (PROJECT, format!("{SHA}/w481.jpg")),
            (PROJECT, format!("{SHA}/w0480.jpg")),
            (PROJECT, format!("{SHA}/w+480.jpg")),
            (PROJECT, format!("{SHA}/480.jpg")),
            (PROJECT, format!("../{SHA}.jpg")),
            (PROJECT, format!("{SHA}/../w480.jpg")),
            (PROJECT, format!("%2e%2e/{SHA}.jpg")),
            (PROJECT, format!("{SHA}%2fw480.jpg")),
            (PROJECT, format!("{}.jpg", &SHA[1..])),
            (PROJECT, format!("{SHA}.jpg/")),
            ("0192D1A4-7B1C-7CC3-9F7E-2B6A0C1D2E3F", format!("{SHA}.jpg")),
            ("0192d1a47b1c7cc39f7e2b6a0c1d2e3f", format!("{SHA}.jpg")),
            ("..", format!("{SHA}.jpg")),
        ] {
            assert_eq!(MediaPath::parse(project, &rest), None, "{project}/{rest}");
        }
    }
}
