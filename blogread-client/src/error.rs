//! The client's one error type.

/// What can go wrong talking to the public API.
///
/// Every message says what happened once, with its cause, and names the URL where one was
/// asked: [`source()`](std::error::Error::source) is `None` for every variant, so printers that
/// follow the chain (`anyhow`'s `{:#}`, say) do not print the cause twice. The underlying
/// `reqwest` or `serde_json` error is kept in the variant's `error` field for inspection.
///
/// `Unauthorized` and `NotFound` are their own variants because callers act on them: a
/// rotated or revoked key, a post that was unpublished (delete its page). A 404 that is not the
/// API saying "no published blog has this slug" is [`Error::EndpointNotFound`] instead: a wrong
/// base URL must never look like an unpublished post. The crate docs have a table of what each
/// fault gives.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// 401: the key is missing, wrong, rotated or revoked (never retried).
    #[error("unauthorized (401): {detail}")]
    Unauthorized {
        /// The server's explanation.
        detail: String,
    },
    /// 404 from [`Client::get`](crate::Client::get) with the API's own answer: no published
    /// blog has this slug (never retried). A generator may delete the post's page.
    #[error("not found (404): {detail}")]
    NotFound {
        /// The server's explanation.
        detail: String,
    },
    /// 404 that is not the API's "no published blog" answer, or any 404 on the list or the
    /// sitemap: nothing serves the public API at this URL, usually a wrong base URL (never
    /// retried).
    #[error(
        "no blogread public API at {url} (404: {detail}); check the base URL: it is the \
         server's root, without /blog/api/v1/public"
    )]
    EndpointNotFound {
        /// The URL asked.
        url: String,
        /// The server's `detail`, or the start of the body.
        detail: String,
    },
    /// 410 from the changes feed: the cursor is older than the deletions the server keeps, so
    /// the changes since it cannot all be told (never retried). Read the feed again from the
    /// start ([`Client::changes_since`](crate::Client::changes_since) with no cursor) and
    /// replace everything read before.
    #[error(
        "the changes cursor has expired (410: {detail}); sync from the start: read the feed \
         without a cursor and replace everything read with the old one"
    )]
    CursorExpired {
        /// The server's explanation.
        detail: String,
    },
    /// 400 from the changes feed to a request with a cursor: the server does not take it (it
    /// belongs to another project or another database, or is not a cursor; never retried).
    /// Read the feed again from the start, as for [`Error::CursorExpired`].
    #[error(
        "the server refused the changes cursor (400: {detail}); it belongs to another project \
         or database, or was damaged: sync from the start by reading the feed without a cursor"
    )]
    InvalidCursor {
        /// The server's explanation.
        detail: String,
    },
    /// 404 from the changes feed: the server has no changes feed (it predates it), or nothing
    /// serves the public API at this URL (never retried). Read every post instead
    /// ([`Client::all_blogs`](crate::Client::all_blogs)); if that fails too, the base URL is
    /// wrong.
    #[error(
        "no changes feed at {url} (404: {detail}); the server predates the feed: read every \
         post instead (or, if that fails too, check the base URL: it is the server's root, \
         without /blog/api/v1/public)"
    )]
    NoChangesFeed {
        /// The URL asked.
        url: String,
        /// The server's `detail`, or the start of the body.
        detail: String,
    },
    /// The changes feed said more entries follow but gave none, or gave its cursor back
    /// unchanged: following it would never end. The server breaks the feed's rules.
    #[error(
        "the changes feed at {url} said more entries follow but did not move on (no entries, or \
         the same cursor); stopped instead of asking for ever: report this to the server's \
         operators"
    )]
    FeedStalled {
        /// The URL asked last.
        url: String,
    },
    /// An answer was larger than [`ClientBuilder::max_answer_bytes`](crate::ClientBuilder::max_answer_bytes)
    /// (default 64 MiB): the client stopped reading it there, or did not start when its
    /// `Content-Length` said so (never retried: the server would send the same).
    #[error(
        "the answer from {url} is larger than {} ({limit} bytes), the most the client reads of          one answer{}; stopped reading it. No answer of a blogread server comes near that: if          this one is right, raise the limit (ClientBuilder::max_answer_bytes, or blogread          --max-answer-mib)",
        mib(*.limit),
        declared_length(.declared)
    )]
    AnswerTooLarge {
        /// The URL asked.
        url: String,
        /// The limit, in bytes.
        limit: u64,
        /// The length the answer declared (`Content-Length`), if it declared one.
        declared: Option<u64>,
    },
    /// A call that reads page after page ([`Client::changes_since`](crate::Client::changes_since),
    /// [`Client::all_blogs`](crate::Client::all_blogs) and the like) read
    /// [`ClientBuilder::max_pages`](crate::ClientBuilder::max_pages) pages and the server still
    /// said more follow.
    #[error(
        "stopped after {limit} pages at {url}: the server still said more follow, and one call          reads at most {limit} pages (a project of 100,000 posts needs a few thousand at most);          if the server is right, raise the limit (ClientBuilder::max_pages, or blogread          --max-pages)"
    )]
    TooManyPages {
        /// The URL asked last.
        url: String,
        /// The limit.
        limit: u32,
    },
    /// A call that reads page after page collected more than
    /// [`ClientBuilder::max_entries`](crate::ClientBuilder::max_entries) entries (changes, or
    /// blogs of the list).
    #[error(
        "stopped at {url}: the answers held more than {limit} entries, the most one call          collects (ten times a project of 100,000 posts); if the server is right, raise the          limit (ClientBuilder::max_entries, or blogread --max-entries)"
    )]
    TooManyEntries {
        /// The URL asked last.
        url: String,
        /// The limit.
        limit: u64,
    },
    /// Any other non-success status, after retries when the status is retried.
    #[error("server answered {status}: {detail}")]
    Api {
        /// The HTTP status code.
        status: u16,
        /// The server's `detail`, or the start of the body when it was not the JSON error shape.
        detail: String,
    },
    /// The request did not complete: connection refused, DNS, TLS, time-out of an attempt, a
    /// connection closed before the whole answer came (after retries). See
    /// [`is_timeout`](Self::is_timeout) and [`is_connect`](Self::is_connect).
    #[error(
        "could not reach the blogread server at {url} after {attempts} {}: {}",
        plural(.attempts),
        cause(.error)
    )]
    Transport {
        /// The URL asked.
        url: String,
        /// Attempts made, the first included.
        attempts: u32,
        /// The last attempt's error (its cause is in this error's message).
        error: reqwest::Error,
    },
    /// The call's deadline ([`ClientBuilder::deadline`](crate::ClientBuilder::deadline))
    /// passed: during an attempt, or before a retry whose wait would have passed it.
    #[error(
        "gave up on {url} after {attempts} {}: the deadline of {deadline:?} for one call passed{}",
        plural(.attempts),
        last_failure(.last)
    )]
    Deadline {
        /// The URL asked when the deadline passed.
        url: String,
        /// Attempts made at that URL, the one cut short included.
        attempts: u32,
        /// The deadline set.
        deadline: std::time::Duration,
        /// Why the last finished attempt failed, when one did.
        last: Option<Box<Error>>,
    },
    /// A 200 answer whose body is not the JSON the API documents (or names a slug outside the
    /// slug grammar).
    #[error("could not decode the answer from {url}: {error}")]
    Decode {
        /// The URL asked.
        url: String,
        /// What did not decode.
        error: serde_json::Error,
    },
    /// [`Client::get`](crate::Client::get) was given a slug no blog can have: outside the slug
    /// grammar (lower-case letters, digits, single hyphens) or a name the API keeps for an
    /// endpoint (`sitemap`, `redirects`). Nothing was sent.
    #[error("refusing to ask for the slug {slug:?}: {reason}; no request was sent")]
    InvalidSlug {
        /// The slug as given.
        slug: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// [`Client::download_media`](crate::Client::download_media) was given a URL that does
    /// not name one of the service's media files (see [`MediaUrl`](crate::MediaUrl)).
    /// Nothing was sent.
    #[error(
        "refusing to download {url:?}: {reason}; only the service's media URLs \
         ({{public url}}/media/{{project id}}/{{sha256}}.{{jpg|png}}, or a variant's \
         .../{{sha256}}/w{{width}}.{{jpg|png}}) are downloaded, as the server spells them"
    )]
    NotMediaUrl {
        /// The URL as given.
        url: String,
        /// Why it is not a media URL.
        reason: &'static str,
    },
    /// 404 to a media URL: no file has that name (the image was deleted, or the URL is not
    /// one the server gave); never retried.
    #[error(
        "no media file at {url} (404: {detail}); the image was deleted on the server, or the \
         URL is not one the server gave: take the post's current URL from the API"
    )]
    MediaNotFound {
        /// The URL asked.
        url: String,
        /// The server's `detail`, or the start of the body.
        detail: String,
    },
    /// A master's bytes do not have the SHA-256 its name says: the file was damaged or
    /// replaced on the way, or the server is not serving what it named (never retried).
    #[error(
        "the file downloaded from {url} is not the one its name says: its SHA-256 is {actual}, \
         the name says {expected}; nothing was kept. A proxy or cache on the way may be \
         changing images (check it), or the server's storage is damaged: report it to the \
         server's operators"
    )]
    MediaDigestMismatch {
        /// The URL asked.
        url: String,
        /// The digest the URL names.
        expected: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// A media file was larger than [`MAX_MEDIA_BYTES`](crate::MAX_MEDIA_BYTES) (40 MiB, twice
    /// the largest upload a server keeps): the client stopped reading it there, or did not
    /// start when its `Content-Length` said so (never retried).
    #[error(
        "the file at {url} is larger than {} ({limit} bytes), the most the client downloads of \
         one image{}; nothing was kept. No image a blogread server stores comes near that: the \
         URL may lead through a proxy or to another server; check the base URL",
        mib(*.limit),
        declared_length(.declared)
    )]
    MediaTooLarge {
        /// The URL asked.
        url: String,
        /// The limit, in bytes.
        limit: u64,
        /// The length the answer declared (`Content-Length`), if it declared one.
        declared: Option<u64>,
    },
    /// A media URL was answered with another type than the one its extension names (a
    /// proxy's HTML page, say).
    #[error(
        "{url} answered {served}, not the {expected} its name says; nothing was kept: check \
         the base URL and any proxy on the way"
    )]
    MediaTypeMismatch {
        /// The URL asked.
        url: String,
        /// The type the URL names.
        expected: &'static str,
        /// The `Content-Type` the answer had.
        served: String,
    },
    /// [`Client::all_blogs`](crate::Client::all_blogs) kept seeing the list change under it
    /// (blogs published or unpublished while it paged) and gave up instead of returning
    /// duplicates or gaps.
    #[error(
        "the published blogs kept changing while they were read ({attempts} attempts); try again"
    )]
    Changed {
        /// How many complete reads were tried.
        attempts: u32,
    },
    /// The base URL cannot address the API (not http(s), or not a base).
    #[error("invalid base URL `{url}`: {reason}")]
    InvalidBaseUrl {
        /// The URL as given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// The key or user agent cannot be sent in a header (control characters, say).
    #[error("invalid header value for {0}")]
    InvalidHeader(&'static str),
    /// The blocking client's runtime thread could not be started, or stopped.
    #[error("the blocking client's runtime: {0}")]
    Runtime(std::io::Error),
    /// The HTTP client could not be built (for example no TLS backend).
    #[error("could not build the HTTP client: {0}")]
    Build(reqwest::Error),
    /// The ETag cache file of [`ClientBuilder::etag_cache_file`](crate::ClientBuilder::etag_cache_file)
    /// could not be read or saved (a missing or unparsable file is not an error: it gives an
    /// empty cache).
    #[error("ETag cache file {}: {error}; fix its permissions or remove it", path.display())]
    CacheFile {
        /// The file.
        path: std::path::PathBuf,
        /// What failed.
        error: std::io::Error,
    },
}

/// `bytes` in MiB, as the CLI's `--max-answer-mib` takes it ("64 MiB", "0.5 MiB").
fn mib(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{:.2} MiB", bytes as f64 / MIB as f64)
    }
}

fn declared_length(declared: &Option<u64>) -> String {
    declared
        .map(|n| format!(" (it declared {n} bytes)"))
        .unwrap_or_default()
}

fn plural(n: &u32) -> &'static str {
    if *n == 1 { "attempt" } else { "attempts" }
}

fn last_failure(last: &Option<Box<Error>>) -> String {
    last.as_ref()
        .map(|e| format!(" (last failure: {e})"))
        .unwrap_or_default()
}

/// What went wrong in a transport error, once: "timed out", or the innermost cause
/// ("connection refused (os error 111)"), not reqwest's generic "error sending request".
fn cause(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return "timed out (no complete answer within the time-out of an attempt)".to_owned();
    }
    let mut innermost: &dyn std::error::Error = error;
    while let Some(next) = innermost.source() {
        innermost = next;
    }
    let text = innermost.to_string();
    let mut chars = text.chars();
    let text: String = match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "unknown transport error".to_owned(),
    };
    if error.is_body() || error.is_decode() {
        format!("the answer was cut short ({text})")
    } else {
        text
    }
}

impl Error {
    /// The HTTP status of an error answer, if the server answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Unauthorized { .. } => Some(401),
            Error::InvalidCursor { .. } => Some(400),
            Error::NotFound { .. }
            | Error::EndpointNotFound { .. }
            | Error::NoChangesFeed { .. }
            | Error::MediaNotFound { .. } => Some(404),
            Error::CursorExpired { .. } => Some(410),
            Error::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The server's `detail`, if the server answered with an error.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Error::Unauthorized { detail }
            | Error::NotFound { detail }
            | Error::CursorExpired { detail }
            | Error::InvalidCursor { detail }
            | Error::EndpointNotFound { detail, .. }
            | Error::NoChangesFeed { detail, .. }
            | Error::MediaNotFound { detail, .. }
            | Error::Api { detail, .. } => Some(detail),
            _ => None,
        }
    }

    /// Whether the call failed for lack of time: an attempt's time-out (after retries), or the
    /// call's deadline.
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Transport { error, .. } => error.is_timeout(),
            Error::Deadline { .. } => true,
            _ => false,
        }
    }

    /// Whether no connection could be made (refused, DNS, TLS handshake, connect time-out).
    pub fn is_connect(&self) -> bool {
        match self {
            Error::Transport { error, .. } => error.is_connect(),
            Error::Deadline {
                last: Some(last), ..
            } => last.is_connect(),
            _ => false,
        }
    }

    /// The URL the error is about, when a request was made.
    pub fn url(&self) -> Option<&str> {
        match self {
            Error::EndpointNotFound { url, .. }
            | Error::NoChangesFeed { url, .. }
            | Error::FeedStalled { url }
            | Error::AnswerTooLarge { url, .. }
            | Error::MediaTooLarge { url, .. }
            | Error::TooManyPages { url, .. }
            | Error::TooManyEntries { url, .. }
            | Error::Transport { url, .. }
            | Error::Deadline { url, .. }
            | Error::Decode { url, .. }
            | Error::NotMediaUrl { url, .. }
            | Error::MediaNotFound { url, .. }
            | Error::MediaDigestMismatch { url, .. }
            | Error::MediaTypeMismatch { url, .. } => Some(url),
            _ => None,
        }
    }

    /// Whether the changes feed must be read again from the start: the cursor expired (410)
    /// or was refused (400). The caller drops what it read with the old cursor and reads the
    /// feed without one.
    pub fn is_cursor_unusable(&self) -> bool {
        matches!(
            self,
            Error::CursorExpired { .. } | Error::InvalidCursor { .. }
        )
    }

    /// Builds the error for a non-success answer from its status and body, `url` being of the
    /// given kind.
    pub(crate) fn from_response(status: u16, body: &[u8], url: &str, kind: UrlKind) -> Self {
        let detail = detail_of(status, body);
        match (status, kind) {
            (401, _) => Error::Unauthorized { detail },
            (404, UrlKind::Blog) if is_unpublished_answer(body) => Error::NotFound { detail },
            (404, UrlKind::Changes { .. }) => Error::NoChangesFeed {
                url: url.to_owned(),
                detail,
            },
            (410, UrlKind::Changes { .. }) => Error::CursorExpired { detail },
            (400, UrlKind::Changes { cursor: true }) => Error::InvalidCursor { detail },
            (404, UrlKind::Media) => Error::MediaNotFound {
                url: url.to_owned(),
                detail,
            },
            (404, _) => Error::EndpointNotFound {
                url: url.to_owned(),
                detail,
            },
            _ => Error::Api { status, detail },
        }
    }
}

/// What a URL asked is, for what its error answers mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UrlKind {
    /// One blog's: a 404 with the API's own answer means "not published".
    Blog,
    /// The changes feed, with or without a cursor: 404 means no feed, 410 an expired cursor,
    /// and (with a cursor) 400 a refused one.
    Changes {
        /// Whether the request carried a cursor.
        cursor: bool,
    },
    /// A media file's: 404 means no file of that name.
    Media,
    /// Anything else (list, sitemap, redirects): every 404 means no API there.
    Other,
}

/// Whether a 404 body is the public API's own answer for a slug no published blog has:
/// exactly `{"detail": "no published blog ..."}`. A router's "no endpoint" answer, a proxy's
/// HTML page or another server's JSON is not.
fn is_unpublished_answer(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ErrorBody {
        detail: String,
    }
    serde_json::from_slice::<ErrorBody>(body)
        .is_ok_and(|b| b.detail.starts_with("no published blog"))
}

/// The `detail` of an error body, or a bounded, printable start of whatever else was sent (a
/// proxy's HTML page, say), or the status's reason phrase when the body is empty.
fn detail_of(status: u16, body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        detail: String,
    }
    if let Ok(e) = serde_json::from_slice::<ErrorBody>(body) {
        return e.detail;
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no detail")
            .to_owned();
    }
    const MAX: usize = 200;
    let mut out: String = text
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() > MAX {
        out.push('…');
    }
    out
}

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detail_is_taken_from_the_json_body() {
        let e = Error::from_response(401, br#"{"detail":"key revoked"}"#, "u", UrlKind::Other);
        assert!(matches!(&e, Error::Unauthorized { detail } if detail == "key revoked"));
        assert_eq!(e.status(), Some(401));
        let e = Error::from_response(503, br#"{"detail":"db down"}"#, "u", UrlKind::Other);
        assert_eq!(e.status(), Some(503));
        assert_eq!(e.detail(), Some("db down"));
    }

    #[test]
    fn non_json_bodies_are_bounded_and_empty_ones_named() {
        let e = Error::from_response(
            502,
            "<html>\nBad gateway</html>".repeat(50).as_bytes(),
            "u",
            UrlKind::Other,
        );
        let d = e.detail().unwrap();
        assert!(d.chars().count() <= 201);
        assert!(!d.contains('\n'));
        assert_eq!(
            Error::from_response(504, b"", "u", UrlKind::Other).detail(),
            Some("Gateway Timeout")
        );
    }

    #[test]
    fn only_the_apis_unpublished_answer_on_a_blog_url_is_not_found() {
        let answer = br#"{"detail":"no published blog with this slug in this project"}"#;
        let e = Error::from_response(404, answer, "http://x/b/p", UrlKind::Blog);
        assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
        // The same answer on the list or the sitemap: nothing is "unpublished" there.
        let e = Error::from_response(404, answer, "http://x/b/sitemap", UrlKind::Other);
        assert!(
            matches!(&e, Error::EndpointNotFound { url, .. } if url == "http://x/b/sitemap"),
            "{e:?}"
        );
        for other in [
            &br#"{"detail":"no endpoint at GET /x; the API is described at /openapi.json"}"#[..],
            b"<html>Not Found</html>",
            b"",
            br#"{"detail":"no published blog","extra":1}"#,
        ] {
            let e = Error::from_response(404, other, "http://x/b/p", UrlKind::Blog);
            assert!(matches!(e, Error::EndpointNotFound { .. }), "{e:?}");
            assert_eq!(e.status(), Some(404));
            assert!(e.to_string().contains("http://x/b/p"), "{e}");
            assert!(e.to_string().contains("base URL"), "{e}");
        }
    }

    #[test]
    fn no_error_repeats_its_cause_through_source() {
        let decode = serde_json::from_str::<u8>("x").unwrap_err();
        let errors = [
            Error::Decode {
                url: "http://x/u".into(),
                error: decode,
            },
            Error::Runtime(std::io::Error::other("no threads")),
            Error::CacheFile {
                path: "c.json".into(),
                error: std::io::Error::other("denied"),
            },
            Error::Deadline {
                url: "http://x/u".into(),
                attempts: 2,
                deadline: std::time::Duration::from_secs(1),
                last: Some(Box::new(Error::Api {
                    status: 503,
                    detail: "db down".into(),
                })),
            },
        ];
        for e in errors {
            use std::error::Error as _;
            assert!(e.source().is_none(), "{e}");
        }
    }
}
