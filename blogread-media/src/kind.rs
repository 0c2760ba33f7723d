//! The accepted types, told from the bytes; the types the pipeline writes.

use crate::error::MediaError;

/// An accepted upload type, as its bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// JPEG (`FF D8 FF`).
    Jpeg,
    /// PNG (its eight-byte signature).
    Png,
    /// GIF (`GIF87a` or `GIF89a`); only its first frame is kept.
    Gif,
    /// WebP (`RIFF`, a size, `WEBP`).
    Webp,
}

impl ImageKind {
    /// The type of `bytes` by their signature, if they are one of the accepted types.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(Self::Webp)
        } else {
            None
        }
    }

    /// The type of an upload: the bytes decide, and a declared type (a `Content-Type`, its
    /// parameters ignored) must agree with them. No declared type, or
    /// `application/octet-stream`, leaves it to the bytes.
    pub fn of_upload(bytes: &[u8], declared: Option<&str>) -> Result<Self, MediaError> {
        if bytes.is_empty() {
            return Err(MediaError::Empty);
        }
        let declared = declared
            .map(|d| {
                d.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .filter(|d| !d.is_empty() && d != "application/octet-stream");
        let Some(kind) = Self::sniff(bytes) else {
            return Err(MediaError::UnsupportedType(match declared {
                Some(d) => format!("; it was declared as {d}"),
                None => String::new(),
            }));
        };
        match declared {
            Some(d) if !kind.is_named_by(&d) => Err(MediaError::TypeMismatch {
                declared: d,
                actual: kind.name(),
                actual_type: kind.media_type(),
            }),
            _ => Ok(kind),
        }
    }

    /// Whether the media type `declared` (lower case, no parameters) names this type.
    fn is_named_by(self, declared: &str) -> bool {
        match self {
            Self::Jpeg => matches!(declared, "image/jpeg" | "image/jpg" | "image/pjpeg"),
            Self::Png => declared == "image/png",
            Self::Gif => declared == "image/gif",
            Self::Webp => declared == "image/webp",
        }
    }

    /// The type's name in words.
    pub fn name(self) -> &'static str {
        match self {
            Self::Jpeg => "a JPEG image",
            Self::Png => "a PNG image",
            Self::Gif => "a GIF image",
            Self::Webp => "a WebP image",
        }
    }

    /// The type's media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Jpeg => "image/jpeg",
            Self::Png => "image/png",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    /// The decoder's format.
    pub(crate) fn format(self) -> image::ImageFormat {
        match self {
            Self::Jpeg => image::ImageFormat::Jpeg,
            Self::Png => image::ImageFormat::Png,
            Self::Gif => image::ImageFormat::Gif,
            Self::Webp => image::ImageFormat::WebP,
        }
    }
}

/// A type the pipeline writes: JPEG for opaque pictures, PNG where there is transparency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputKind {
    /// JPEG.
    Jpeg,
    /// PNG.
    Png,
}

impl OutputKind {
    /// The media type, as served.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Jpeg => "image/jpeg",
            Self::Png => "image/png",
        }
    }

    /// The file name extension, as in the served URL (`jpg`, `png`).
    pub fn extension(self) -> &'static str {
        match self {
            Self::Jpeg => "jpg",
            Self::Png => "png",
        }
    }

    /// The type with extension `ext` (`jpg` or `png`), as a served URL names it.
    pub fn from_extension(ext: &str) -> Option<Self> {
        match ext {
            "jpg" => Some(Self::Jpeg),
            "png" => Some(Self::Png),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bytes_decide_the_type() {
        assert_eq!(
            ImageKind::sniff(b"\xFF\xD8\xFF\xE0rest"),
            Some(ImageKind::Jpeg)
        );
        assert_eq!(ImageKind::sniff(b"GIF89a..."), Some(ImageKind::Gif));
        assert_eq!(
            ImageKind::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageKind::Webp)
        );
        assert_eq!(ImageKind::sniff(b"<svg xmlns="), None);
        assert_eq!(ImageKind::sniff(b"RIFF\0\0\0\0WAVE"), None);
    }

    #[test]
    fn a_declared_type_must_agree_with_the_bytes() {
        let png = b"\x89PNG\r\n\x1a\n....";
        assert_eq!(
            ImageKind::of_upload(png, Some("image/PNG; x=y")),
            Ok(ImageKind::Png)
        );
        assert_eq!(ImageKind::of_upload(png, None), Ok(ImageKind::Png));
        assert_eq!(
            ImageKind::of_upload(png, Some("application/octet-stream")),
            Ok(ImageKind::Png)
        );
        let err = ImageKind::of_upload(png, Some("image/gif")).unwrap_err();
        assert!(err.is_unsupported());
        assert_eq!(err.reason(), "type_mismatch");
        let err = ImageKind::of_upload(b"<html>", Some("image/png")).unwrap_err();
        assert_eq!(err.reason(), "unsupported_type");
        assert!(err.to_string().contains("declared as image/png"), "{err}");
        assert_eq!(ImageKind::of_upload(b"", None), Err(MediaError::Empty));
    }
}
