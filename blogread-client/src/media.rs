//! The service's media files as the client sees them (`docs/media.md#urls-and-caching`):
//! which URLs name one ([`MediaUrl`]), and what a download gives ([`MediaFile`]), its bytes
//! checked against the name when the name says what they must be; and the client's download
//! of one ([`Client::download_media`]).

use std::fmt;

use reqwest::Url;
use sha2::{Digest, Sha256};

use crate::client::{Client, Exchange, Wanted};
use crate::error::{Error, Result, UrlKind};

/// The most bytes of one media file the client reads: 40 MiB. A master is at most 2,400 px on
/// a side (a PNG of that size with noise in every pixel is about 23 MiB), so no file of the
/// service comes near it; a longer answer is [`Error::MediaTooLarge`].
pub const MAX_MEDIA_BYTES: u64 = 40 * 1024 * 1024;

/// The widths of the variants the server makes, narrowest first (each only when narrower than
/// the master).
pub const VARIANT_WIDTHS: [u32; 3] = [480, 960, 1600];

/// The two formats the service stores: JPEG for opaque pictures, PNG for the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MediaFormat {
    /// `.jpg`, `image/jpeg`.
    Jpeg,
    /// `.png`, `image/png`.
    Png,
}

impl MediaFormat {
    /// The file name's extension, as the server spells it (`jpg`, `png`).
    pub fn extension(self) -> &'static str {
        match self {
            MediaFormat::Jpeg => "jpg",
            MediaFormat::Png => "png",
        }
    }

    /// The type the server serves it as (`image/jpeg`, `image/png`).
    pub fn content_type(self) -> &'static str {
        match self {
            MediaFormat::Jpeg => "image/jpeg",
            MediaFormat::Png => "image/png",
        }
    }

    fn of_extension(extension: &str) -> Option<Self> {
        match extension {
            "jpg" => Some(MediaFormat::Jpeg),
            "png" => Some(MediaFormat::Png),
            _ => None,
        }
    }
}

/// The URL of one of the service's media files, spelled exactly as the server spells them:
///
/// ```text
/// {public url}/media/{project id}/{sha256}.{jpg|png}          a master
/// {public url}/media/{project id}/{sha256}/w{width}.{jpg|png}  a variant (480, 960, 1600)
/// ```
///
/// with a lower-case hyphenated project id, 64 lower-case hex digits and a width without a
/// leading zero. A master's name is the SHA-256 of its bytes; a variant's is its master's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MediaUrl {
    /// Everything before the project id: `https://blog.example.com/media/`.
    prefix: String,
    project: String,
    sha256: String,
    format: MediaFormat,
    variant: Option<u32>,
}

impl MediaUrl {
    /// Reads `url` as a media URL, or says why it is not one. A query or fragment is refused:
    /// the server's URLs have none.
    pub fn parse(url: &str) -> std::result::Result<Self, &'static str> {
        if url.contains(['?', '#']) {
            return Err("a media URL has no query or fragment");
        }
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err("it is not an absolute http or https URL");
        };
        if !matches!(scheme, "http" | "https") {
            return Err("it is not an absolute http or https URL");
        }
        // The authority must be there, and the media path must follow it.
        let Some(slash) = rest.find('/') else {
            return Err(
                "its path does not name a media file (/media/{project id}/{sha256}.{jpg|png})",
            );
        };
        if slash == 0 || rest[..slash].contains('@') {
            return Err("it has no host, or has user information");
        }
        Self::of_path(url, scheme.len() + 3 + slash)
    }

    /// The media URL a body's `<img src>` names, if any: as [`MediaUrl::parse`], a query or
    /// fragment after the file name ignored (as the server's usage rule ignores it).
    pub fn in_body(src: &str) -> Option<Self> {
        let end = src.find(['?', '#']).unwrap_or(src.len());
        Self::parse(&src[..end]).ok()
    }

    /// The media path at the end of `url`, whose authority ends at `path_start`.
    fn of_path(url: &str, path_start: usize) -> std::result::Result<Self, &'static str> {
        const NOT_MEDIA: &str = "its path does not end in /media/{project id}/{sha256}.{jpg|png} or /media/{project id}/{sha256}/w{480|960|1600}.{jpg|png}";
        let path = &url[path_start..];
        let parts: Vec<&str> = path.rsplitn(5, '/').collect();
        let file_of = |name: &str| -> Option<(String, MediaFormat)> {
            let (stem, extension) = name.rsplit_once('.')?;
            Some((stem.to_owned(), MediaFormat::of_extension(extension)?))
        };
        // A variant: [w{width}.ext, sha256, project, "media", ...].
        if parts.len() >= 4 && parts[3] == "media" && parts[0].starts_with('w') {
            let (stem, format) = file_of(parts[0]).ok_or(NOT_MEDIA)?;
            let width: u32 = stem[1..].parse().map_err(|_| NOT_MEDIA)?;
            if !VARIANT_WIDTHS.contains(&width) || stem[1..] != width.to_string() {
                return Err(
                    "a variant's width is 480, 960 or 1600, written without a leading zero",
                );
            }
            return Self::checked(url, parts[1], parts[2], format, Some(width));
        }
        // A master: [sha256.ext, project, "media", ...].
        if parts.len() >= 3 && parts[2] == "media" {
            let (stem, format) = file_of(parts[0]).ok_or(NOT_MEDIA)?;
            return Self::checked(url, &stem, parts[1], format, None);
        }
        Err(NOT_MEDIA)
    }

    fn checked(
        url: &str,
        sha256: &str,
        project: &str,
        format: MediaFormat,
        variant: Option<u32>,
    ) -> std::result::Result<Self, &'static str> {
        if !is_sha256_hex(sha256) {
            return Err("its file is not named by 64 lower-case hex digits");
        }
        if !is_uuid(project) {
            return Err("its project id is not a lower-case hyphenated UUID");
        }
        let suffix = format!("{project}/");
        let at = url
            .rfind(&format!("/media/{suffix}"))
            .expect("the parts were found in the URL");
        Ok(MediaUrl {
            prefix: url[..at + "/media/".len()].to_owned(),
            project: project.to_owned(),
            sha256: sha256.to_owned(),
            format,
            variant,
        })
    }

    /// Everything before the project id, `/media/` included: `https://blog.example.com/media/`.
    /// Two URLs with the same prefix are files of the same service.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The project's id.
    pub fn project(&self) -> &str {
        &self.project
    }

    /// The master's SHA-256, 64 lower-case hex digits: the digest of this file's bytes for a
    /// master, of its master's for a variant.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The format.
    pub fn format(&self) -> MediaFormat {
        self.format
    }

    /// The width of the variant this URL names; `None` for a master.
    pub fn variant_width(&self) -> Option<u32> {
        self.variant
    }

    /// The URL of the master (this one when it is one).
    pub fn master(&self) -> MediaUrl {
        MediaUrl {
            variant: None,
            ..self.clone()
        }
    }

    /// The master's file name, named by its content: `{sha256}.{jpg|png}`.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.sha256, self.format.extension())
    }
}

impl fmt::Display for MediaUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (prefix, project, sha256, ext) = (
            &self.prefix,
            &self.project,
            &self.sha256,
            self.format.extension(),
        );
        match self.variant {
            None => write!(f, "{prefix}{project}/{sha256}.{ext}"),
            Some(width) => write!(f, "{prefix}{project}/{sha256}/w{width}.{ext}"),
        }
    }
}

/// Whether `s` is 64 lower-case hex digits.
pub(crate) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `s` is a UUID as the API writes it: lower-case hex in groups of 8-4-4-4-12.
fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => matches!(b, b'0'..=b'9' | b'a'..=b'f'),
        })
}

/// One media file as [`Client::download_media`](crate::Client::download_media) read it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MediaFile {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The SHA-256 of [`bytes`](Self::bytes), 64 lower-case hex digits. For a master it is the
    /// one its URL names (checked); for a variant it is only what was received.
    pub sha256: String,
    /// `image/jpeg` or `image/png`: the type its URL names, which the server said too.
    pub content_type: String,
}

/// The file `bytes` read from `url`, served as `content_type`: its type must be the one the
/// URL names, and a master's digest the one its name says.
pub(crate) fn checked_file(
    url: &MediaUrl,
    bytes: Vec<u8>,
    content_type: Option<&str>,
) -> Result<MediaFile> {
    let expected = url.format().content_type();
    let served = content_type
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if served != expected {
        return Err(Error::MediaTypeMismatch {
            url: url.to_string(),
            expected,
            served: content_type.unwrap_or("no Content-Type").to_owned(),
        });
    }
    let sha256 = hex::encode(Sha256::digest(&bytes));
    if url.variant_width().is_none() && sha256 != url.sha256() {
        return Err(Error::MediaDigestMismatch {
            url: url.to_string(),
            expected: url.sha256().to_owned(),
            actual: sha256,
        });
    }
    Ok(MediaFile {
        bytes,
        sha256,
        content_type: expected.to_owned(),
    })
}

impl Client {
    /// Downloads one of the service's media files (`docs/media.md#urls-and-caching`): a
    /// featured image's `url` or a variant's, or a media URL in a post's body. Retries,
    /// time-outs and the deadline work as for every other call (the key is sent too, though
    /// files need none); the ETag cache is not used (a file never changes: new bytes are a
    /// new name).
    ///
    /// - A URL that is not a media URL as the server spells it ([`MediaUrl::parse`]) is
    ///   [`Error::NotMediaUrl`], before any request.
    /// - At most [`MAX_MEDIA_BYTES`] (40 MiB) are read: a longer answer is
    ///   [`Error::MediaTooLarge`].
    /// - The answer's type must be the one the URL's extension names
    ///   ([`Error::MediaTypeMismatch`]); a 404 is [`Error::MediaNotFound`].
    /// - A **master**'s bytes must have the SHA-256 its name says, else
    ///   [`Error::MediaDigestMismatch`] naming the URL and both digests. A **variant** is named
    ///   by its master's digest, so its bytes cannot be checked by the name:
    ///   [`MediaFile::sha256`] is then only what was received. Download masters when the bytes
    ///   must be proven (as `blogread export` does: it downloads masters only).
    ///
    /// [`MediaUrl::parse`]: crate::MediaUrl::parse
    /// [`MAX_MEDIA_BYTES`]: crate::MAX_MEDIA_BYTES
    pub async fn download_media(&self, url: &str) -> Result<MediaFile> {
        let not_media = |reason| Error::NotMediaUrl {
            url: url.to_owned(),
            reason,
        };
        let media = MediaUrl::parse(url).map_err(not_media)?;
        let parsed = Url::parse(url).map_err(|_| not_media("it is not a valid URL"))?;
        let wanted = Wanted {
            accept: media.format().content_type(),
            max: MAX_MEDIA_BYTES,
        };
        let fetched = self
            .fetch(&self.call(), &parsed, None, UrlKind::Media, wanted)
            .await
            .map_err(|err| match err {
                // The client's answer limit does not apply here: say so, not to raise it.
                Error::AnswerTooLarge {
                    url,
                    limit,
                    declared,
                } => Error::MediaTooLarge {
                    url,
                    limit,
                    declared,
                },
                other => other,
            })?;
        match fetched {
            Exchange::Body {
                body, content_type, ..
            } => checked_file(&media, body, content_type.as_deref()),
            // `fetch` gives NotModified only to a conditional request.
            Exchange::NotModified => Err(Error::Api {
                status: 304,
                detail: "not modified, to a request that was not conditional".to_owned(),
            }),
        }
    }

    /// Where the service's media files are, as the client's base URL gives it:
    /// `{base url}/media/`. The files a server serves are there unless its `--public-url`
    /// names another address.
    pub fn media_prefix(&self) -> String {
        let mut url = self.blogs_url().clone();
        url.set_query(None);
        {
            let mut segments = url.path_segments_mut().expect("the blogs URL is a base");
            // `{base}/blog/api/v1/public/blogs`
            for _ in 0..5 {
                segments.pop();
            }
            segments.push("media").push("");
        }
        url.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";
    const PROJECT: &str = "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f";

    #[test]
    fn masters_and_variants_are_media_urls_and_print_back_as_given() {
        let master = format!("https://blog.example.com/media/{PROJECT}/{SHA}.jpg");
        let url = MediaUrl::parse(&master).unwrap();
        assert_eq!(url.prefix(), "https://blog.example.com/media/");
        assert_eq!((url.sha256(), url.project()), (SHA, PROJECT));
        assert_eq!(url.variant_width(), None);
        assert_eq!(url.to_string(), master);
        assert_eq!(url.file_name(), format!("{SHA}.jpg"));

        let variant = format!("http://127.0.0.1:8080/sub/media/{PROJECT}/{SHA}/w960.png");
        let url = MediaUrl::parse(&variant).unwrap();
        assert_eq!(url.prefix(), "http://127.0.0.1:8080/sub/media/");
        assert_eq!(url.variant_width(), Some(960));
        assert_eq!(url.format(), MediaFormat::Png);
        assert_eq!(url.to_string(), variant);
        assert_eq!(
            url.master().to_string(),
            format!("http://127.0.0.1:8080/sub/media/{PROJECT}/{SHA}.png")
        );
    }

    #[test]
    fn anything_but_the_servers_spelling_is_not_a_media_url() {
        let upper = SHA.to_uppercase();
        for bad in [
            format!("https://b.example/media/{PROJECT}/{SHA}.jpeg"),
            format!("https://b.example/media/{PROJECT}/{SHA}.gif"),
            format!("https://b.example/media/{PROJECT}/{upper}.jpg"),
            format!("https://b.example/media/{PROJECT}/{}.jpg", &SHA[1..]),
            format!(
                "https://b.example/media/{}/{SHA}.jpg",
                PROJECT.to_uppercase()
            ),
            format!("https://b.example/media/{PROJECT}/{SHA}/w0480.jpg"),
            format!("https://b.example/media/{PROJECT}/{SHA}/w500.jpg"),
            format!("https://b.example/media/{PROJECT}/{SHA}.jpg?x=1"),
            format!("https://b.example/media/{PROJECT}/{SHA}.jpg#a"),
            format!("https://b.example/files/{PROJECT}/{SHA}.jpg"),
            format!("ftp://b.example/media/{PROJECT}/{SHA}.jpg"),
            format!("/media/{PROJECT}/{SHA}.jpg"),
            format!("https://u@b.example/media/{PROJECT}/{SHA}.jpg"),
            format!("https:///media/{PROJECT}/{SHA}.jpg"),
            format!("https://b.example/media/{PROJECT}/x/{SHA}.jpg"),
            "https://b.example/a.jpg".to_owned(),
            String::new(),
        ] {
            assert!(MediaUrl::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bodys_src_may_carry_a_query_or_fragment() {
        let src = format!("https://b.example/media/{PROJECT}/{SHA}/w480.jpg?v=2#x");
        let url = MediaUrl::in_body(&src).unwrap();
        assert_eq!(url.variant_width(), Some(480));
        assert!(MediaUrl::in_body("https://b.example/a.jpg?x").is_none());
    }

    #[test]
    fn a_masters_bytes_must_have_the_digest_its_name_says() {
        let bytes = b"not really a picture".to_vec();
        let digest = hex::encode(Sha256::digest(&bytes));
        let good =
            MediaUrl::parse(&format!("https://b.example/media/{PROJECT}/{digest}.png")).unwrap();
        let file = checked_file(&good, bytes.clone(), Some("image/png")).unwrap();
        assert_eq!(file.sha256, digest);
        assert_eq!(file.content_type, "image/png");

        let lying =
            MediaUrl::parse(&format!("https://b.example/media/{PROJECT}/{SHA}.png")).unwrap();
        let err = checked_file(&lying, bytes.clone(), Some("image/png")).unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(err, Error::MediaDigestMismatch { .. }),
            "{message}"
        );
        assert!(message.contains(&lying.to_string()), "{message}");
        assert!(
            message.contains(SHA) && message.contains(&digest),
            "{message}"
        );
        // A variant is named by its master: what it holds cannot be checked by its name.
        let variant =
            MediaUrl::parse(&format!("https://b.example/media/{PROJECT}/{SHA}/w480.png")).unwrap();
        assert!(checked_file(&variant, bytes.clone(), Some("image/png")).is_ok());
        let err = checked_file(&good, bytes, Some("text/html")).unwrap_err();
        assert!(matches!(err, Error::MediaTypeMismatch { .. }), "{err}");
    }
}
