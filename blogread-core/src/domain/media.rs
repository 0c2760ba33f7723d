//! A project's stored images (`docs/media.md`): what each item is, as its row holds it. The
//! files themselves are kept by a media store (`blogread_core::media`, feature `media`).

use serde::{Deserialize, Serialize};

use super::{BlogId, MediaId, ProjectId, Timestamp};
use crate::error::FieldError;

/// The longest alt text, in characters.
pub const MAX_ALT_CHARS: usize = 1000;

/// The encoding of a stored image: the pipeline writes JPEG for opaque pictures, PNG where a
/// pixel is not opaque, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoredImageType {
    /// `image/jpeg`, `.jpg`.
    Jpeg,
    /// `image/png`, `.png`.
    Png,
}

impl StoredImageType {
    /// The media type served with it.
    pub fn media_type(self) -> &'static str {
        match self {
            StoredImageType::Jpeg => "image/jpeg",
            StoredImageType::Png => "image/png",
        }
    }

    /// The extension of its files, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            StoredImageType::Jpeg => "jpg",
            StoredImageType::Png => "png",
        }
    }

    /// The type of a media type as stored (`image/jpeg`, `image/png`).
    pub fn from_media_type(media_type: &str) -> Option<Self> {
        match media_type {
            "image/jpeg" => Some(StoredImageType::Jpeg),
            "image/png" => Some(StoredImageType::Png),
            _ => None,
        }
    }
}

/// The SHA-256 of a stored master: 64 lower-case hex digits, and it names the item's files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Sha256Hex(String);

impl Sha256Hex {
    /// The digest, when `text` is 64 lower-case hex digits (the one spelling accepted).
    pub fn parse(text: &str) -> Option<Self> {
        (text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| Self(text.to_owned()))
    }

    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest;
        Self(hex::encode(sha2::Sha256::digest(bytes)))
    }

    /// The hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Sha256Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An image's alt text: at most [`MAX_ALT_CHARS`] characters, with no control character but
/// line breaks and tabs. Empty means "no alt text yet".
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct AltText(String);

impl AltText {
    /// Checks `text` as an alt text (field `alt`).
    pub fn new(text: impl Into<String>) -> Result<Self, FieldError> {
        let text = text.into();
        let chars = text.chars().count();
        if chars > MAX_ALT_CHARS {
            return Err(FieldError::new(
                "alt",
                format!("must be at most {MAX_ALT_CHARS} characters (got {chars})"),
            ));
        }
        if text
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\t'))
        {
            return Err(FieldError::new(
                "alt",
                "must not contain control characters other than line breaks and tabs",
            ));
        }
        Ok(Self(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One smaller copy of an item, made at upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MediaVariant {
    /// Its width in pixels (480, 960 or 1600).
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Its size in bytes.
    pub bytes: u64,
}

/// A stored image as its row holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaItem {
    /// Its id.
    pub id: MediaId,
    /// The project it belongs to.
    pub project_id: ProjectId,
    /// The SHA-256 of the stored master; it names the item's files.
    pub sha256: Sha256Hex,
    /// How the master and the variants are encoded.
    pub content_type: StoredImageType,
    /// The master's width in pixels.
    pub width: u32,
    /// The master's height in pixels.
    pub height: u32,
    /// The master's size in bytes.
    pub bytes: u64,
    /// Its alt text.
    pub alt: AltText,
    /// Its smaller copies, narrowest first.
    pub variants: Vec<MediaVariant>,
    /// When it was uploaded.
    pub created_at: Timestamp,
}

impl MediaItem {
    /// The bytes its files hold: the master's and every variant's.
    pub fn stored_bytes(&self) -> u64 {
        self.bytes + self.variants.iter().map(|v| v.bytes).sum::<u64>()
    }

    /// Where its master (`width` `None`) or its variant `width` px wide is served, from the
    /// server's root: `/media/{project}/{sha256}.{ext}` or
    /// `/media/{project}/{sha256}/w{width}.{ext}`. Its public URL is the service's public
    /// URL followed by this.
    pub fn path(&self, width: Option<u32>) -> String {
        let ext = self.content_type.extension();
        match width {
            None => format!("/media/{}/{}.{ext}", self.project_id, self.sha256),
            Some(w) => format!("/media/{}/{}/w{w}.{ext}", self.project_id, self.sha256),
        }
    }
}

/// What storing an item's row did: inserted it, or found the project already holds an item
/// of the same bytes (an identical upload), which is answered instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaInsert {
    /// The row is new.
    Inserted(MediaItem),
    /// The project already had an item of these bytes: this one.
    Existing(MediaItem),
}

/// A page of a project's media, newest first, and how many items it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaPage {
    /// The page.
    pub items: Vec<MediaItem>,
    /// The project's items in all.
    pub total: u64,
}

/// A post that uses an item (`docs/media.md#usage`), as the management API names it: its id
/// and its working title and slug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaUser {
    /// The post.
    pub id: BlogId,
    /// Its working title.
    pub title: String,
    /// Its working slug.
    pub slug: String,
}

/// What deleting an item's row did (its files are the caller's to remove after a deletion).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaDeletion {
    /// The row is gone: the item as it was.
    Deleted(MediaItem),
    /// Posts use the item (never empty, in the order of [`MediaUser`] lists): nothing was
    /// deleted.
    InUse(Vec<MediaUser>),
}

/// A URL naming one of a project's stored images, as a post writes it: the public URL it
/// starts with (everything before `/media/{project_id}/`) and the item's digest. The master's
/// URL and each variant's name the same item.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MediaRef {
    /// The public URL the image was named under, such as `https://blog.example.com`: a use
    /// counts only where it is the service's own.
    pub base: String,
    /// The item's digest.
    pub sha256: Sha256Hex,
}

impl MediaRef {
    /// The image `url` names when it is a media URL of `project`
    /// (`{base}/media/{project}/{sha256}.{ext}` or `{base}/media/{project}/{sha256}/w{width}.{ext}`,
    /// `{ext}` `jpg` or `png`, in the one spelling the server serves, a query or fragment after
    /// it ignored) under an `http` or `https` base; `None` for any other URL.
    pub fn parse(url: &str, project: ProjectId) -> Option<Self> {
        let url = url.split(['?', '#']).next().unwrap_or_default();
        let marker = format!("/media/{project}/");
        let at = url.rfind(&marker)?;
        let base = &url[..at];
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return None;
        }
        let (stem, ext) = url[at + marker.len()..].rsplit_once('.')?;
        if !matches!(ext, "jpg" | "png") {
            return None;
        }
        let sha256 = match stem.split_once('/') {
            None => stem,
            Some((sha256, width)) => {
                let digits = width.strip_prefix('w')?;
                let well_formed = !digits.is_empty()
                    && !digits.starts_with('0')
                    && digits.bytes().all(|b| b.is_ascii_digit());
                if !well_formed {
                    return None;
                }
                sha256
            }
        };
        Some(Self {
            base: base.to_owned(),
            sha256: Sha256Hex::parse(sha256)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_media_ref_is_a_media_url_of_the_project_under_an_http_base() {
        let project = ProjectId::generate();
        let sha = "a".repeat(64);
        let want = |base: &str| {
            Some(MediaRef {
                base: base.to_owned(),
                sha256: Sha256Hex::parse(&sha).unwrap(),
            })
        };
        let parse = |url: String| MediaRef::parse(&url, project);
        assert_eq!(
            parse(format!("https://b.example/media/{project}/{sha}.jpg")),
            want("https://b.example")
        );
        assert_eq!(
            parse(format!(
                "http://b.example/blog/media/{project}/{sha}/w480.png?v=1#x"
            )),
            want("http://b.example/blog")
        );
        let other = ProjectId::generate();
        for url in [
            format!("https://b.example/media/{other}/{sha}.jpg"),
            format!("/media/{project}/{sha}.jpg"),
            format!("ftp://b.example/media/{project}/{sha}.jpg"),
            format!("https://b.example/media/{project}/{sha}.gif"),
            format!("https://b.example/media/{project}/{sha}/w0480.jpg"),
            format!("https://b.example/media/{project}/{sha}/480.jpg"),
            format!("https://b.example/media/{project}/{}.jpg", "A".repeat(64)),
        ] {
            assert_eq!(parse(url.clone()), None, "{url}");
        }
    }

    #[test]
    fn a_digest_is_64_lower_case_hex_digits_only() {
        let good = "a".repeat(64);
        assert!(Sha256Hex::parse(&good).is_some());
        assert!(Sha256Hex::parse(&"A".repeat(64)).is_none());
        assert!(Sha256Hex::parse(&"a".repeat(63)).is_none());
        assert!(Sha256Hex::parse(&format!("{}g", "a".repeat(63))).is_none());
        assert_eq!(
            Sha256Hex::of(b"").as_str(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn alt_text_is_at_most_1000_characters_without_control_characters() {
        assert!(AltText::new("é".repeat(1000)).is_ok());
        let long = AltText::new("a".repeat(1001)).unwrap_err();
        assert_eq!(long.field, "alt");
        assert!(long.rule.contains("1000"), "{}", long.rule);
        assert!(AltText::new("two\nlines\tand a tab").is_ok());
        assert!(AltText::new("bell\u{7}").is_err());
    }
}
