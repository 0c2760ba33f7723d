//! The client's one error type.

/// What can go wrong talking to the public API.
///
/// The HTTP status and the server's `detail` (SPEC.md 7: every error body is
/// `{"detail": "..."}`) are kept. `Unauthorized` and `NotFound` are their own variants because
/// callers act on them: a rotated or revoked key, a post that was unpublished.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// 401: the key is missing, wrong, rotated or revoked (never retried).
    #[error("unauthorized (401): {detail}")]
    Unauthorized {
        /// The server's explanation.
        detail: String,
    },
    /// 404: no published blog has this slug (never retried).
    #[error("not found (404): {detail}")]
    NotFound {
        /// The server's explanation.
        detail: String,
    },
    /// Any other non-success status, after retries when the status is retried.
    #[error("server answered {status}: {detail}")]
    Api {
        /// The HTTP status code.
        status: u16,
        /// The server's `detail`, or the start of the body when it was not the JSON error shape.
        detail: String,
    },
    /// The request did not complete: connection refused, DNS, TLS, time-out, a broken body
    /// (after retries).
    #[error("could not reach the blogread server: {0}")]
    Transport(#[source] reqwest::Error),
    /// A 200 response whose body is not the JSON the API documents.
    #[error("could not decode the server's response: {0}")]
    Decode(#[source] serde_json::Error),
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
    /// The blocking client's runtime could not be started.
    #[error("could not start the blocking client's runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The HTTP client could not be built (for example no TLS backend).
    #[error("could not build the HTTP client: {0}")]
    Build(#[source] reqwest::Error),
}

impl Error {
    /// The HTTP status of an error answer, if the server answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Unauthorized { .. } => Some(401),
            Error::NotFound { .. } => Some(404),
            Error::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The server's `detail`, if the server answered with an error.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Error::Unauthorized { detail }
            | Error::NotFound { detail }
            | Error::Api { detail, .. } => Some(detail),
            _ => None,
        }
    }

    /// Builds the error for a non-success answer from its status and body.
    pub(crate) fn from_response(status: u16, body: &[u8]) -> Self {
        let detail = detail_of(status, body);
        match status {
            401 => Error::Unauthorized { detail },
            404 => Error::NotFound { detail },
            _ => Error::Api { status, detail },
        }
    }
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
        let e = Error::from_response(401, br#"{"detail":"key revoked"}"#);
        assert!(matches!(&e, Error::Unauthorized { detail } if detail == "key revoked"));
        assert_eq!(e.status(), Some(401));
        let e = Error::from_response(404, br#"{"detail":"no such blog"}"#);
        assert!(matches!(e, Error::NotFound { .. }));
        let e = Error::from_response(503, br#"{"detail":"db down"}"#);
        assert_eq!(e.status(), Some(503));
        assert_eq!(e.detail(), Some("db down"));
    }

    #[test]
    fn non_json_bodies_are_bounded_and_empty_ones_named() {
        let e = Error::from_response(502, "<html>\nBad gateway</html>".repeat(50).as_bytes());
        let d = e.detail().unwrap();
        assert!(d.chars().count() <= 201);
        assert!(!d.contains('\n'));
        assert_eq!(
            Error::from_response(504, b"").detail(),
            Some("Gateway Timeout")
        );
    }
}
