//! Reading one placeholder: where `[INTERNAL:` (literal or percent-encoded) opens, what its
//! slug is once decoded and normalised, and what is left of an opener that is no placeholder.

use std::borrow::Cow;
use std::sync::LazyLock;

use blogread_markup::slug::is_writable_slug;
use memchr::memmem::Finder;

/// The literal opener of a placeholder.
pub(super) const OPENER: &[u8] = b"[INTERNAL:";
/// The keyword shared by the literal and the percent-encoded opener.
pub(super) const KEYWORD: &[u8] = b"INTERNAL:";
/// The longest placeholder body (between `[INTERNAL:` and `]`) that is looked at. A slug has at
/// most 200 characters; this leaves room for surrounding whitespace and percent-encoding.
pub(super) const MAX_BODY: usize = 1024;

/// Finds the literal opener.
pub(super) static OPENER_FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(OPENER));
/// Finds the keyword of either opener.
pub(super) static KEYWORD_FINDER: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(KEYWORD));

/// A placeholder found by [`parse_placeholder`].
pub(super) struct Placeholder {
    /// Byte offset just past what the placeholder covers (and what is replaced or removed).
    pub(super) end: usize,
    /// The normalised slug, or `None` when the placeholder is malformed.
    pub(super) slug: Option<String>,
}

/// Parses the placeholder that starts at `start` (where `input` holds `[INTERNAL:`).
pub(super) fn parse_placeholder(input: &str, start: usize) -> Placeholder {
    let body_start = start + OPENER.len();
    let bytes = input.as_bytes();
    let window = &bytes[body_start..bytes.len().min(body_start + MAX_BODY + 1)];
    match memchr::memchr3(b']', b'[', b'<', window) {
        Some(at) if window[at] == b']' => {
            let end = body_start + at + 1;
            Placeholder {
                end,
                slug: normalize_slug(&input[body_start..end - 1]),
            }
        }
        _ => {
            let run = bytes[body_start..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
                .count();
            Placeholder {
                end: body_start + run,
                slug: None,
            }
        }
    }
}

/// Parses an `href` value (already trimmed) that may be a placeholder: `None` when it does not
/// start with an opener; otherwise the normalised slug (`None` when malformed) and the raw text
/// after the closer. For [`referenced_slugs`] `value` runs to the end of the body, so what
/// follows the closer is not checked here but by [`parse_href_placeholder`]'s callers.
pub(super) fn href_placeholder_parts(value: &str) -> Option<(Option<String>, &str)> {
    let opener_len = if value.as_bytes().starts_with(OPENER) {
        OPENER.len()
    } else if value.len() >= 3
        && value.as_bytes()[..3].eq_ignore_ascii_case(b"%5b")
        && value.as_bytes()[3..].starts_with(KEYWORD)
    {
        3 + KEYWORD.len()
    } else {
        return None;
    };
    let body_and_rest = &value[opener_len..];
    let window = &body_and_rest.as_bytes()[..body_and_rest.len().min(MAX_BODY + 1)];
    let closer = window.iter().enumerate().find_map(|(at, &b)| match b {
        b']' => Some((at, 1)),
        b'%' if window
            .get(at + 1..at + 3)
            .is_some_and(|hex| hex.eq_ignore_ascii_case(b"5d")) =>
        {
            Some((at, 3))
        }
        _ => None,
    });
    let Some((at, closer_len)) = closer else {
        return Some((None, ""));
    };
    let slug = percent_decode(&body_and_rest[..at]).and_then(|body| normalize_slug(&body));
    Some((slug, &body_and_rest[at + closer_len..]))
}

/// Like [`href_placeholder_parts`], but a placeholder followed by anything other than nothing, a
/// `#fragment` or a `?query` is malformed.
pub(super) fn parse_href_placeholder(value: &str) -> Option<(Option<String>, &str)> {
    let (slug, rest) = href_placeholder_parts(value)?;
    if rest.is_empty() || rest.starts_with(['#', '?']) {
        Some((slug, rest))
    } else {
        Some((None, rest))
    }
}

/// Where the opener ending in the `INTERNAL:` found at `keyword_at` starts: at the `[` or the
/// `%5B`/`%5b` just before it.
pub(super) fn opener_before(bytes: &[u8], keyword_at: usize) -> Option<usize> {
    if keyword_at >= 1 && bytes[keyword_at - 1] == b'[' {
        Some(keyword_at - 1)
    } else if keyword_at >= 3 && bytes[keyword_at - 3..keyword_at].eq_ignore_ascii_case(b"%5b") {
        Some(keyword_at - 3)
    } else {
        None
    }
}

/// Decodes `%XX` escapes; `None` when the result is not UTF-8. A `%` not followed by two hex
/// digits is kept as is (it then makes the slug invalid).
pub(super) fn percent_decode(input: &str) -> Option<Cow<'_, str>> {
    if !input.contains('%') {
        return Some(Cow::Borrowed(input));
    }
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let decoded = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match decoded {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// Trims whitespace and lower-cases a placeholder body; `Some` when the result is a valid slug.
pub(super) fn normalize_slug(body: &str) -> Option<String> {
    let slug = body.trim().to_ascii_lowercase();
    is_valid_slug(&slug).then_some(slug)
}

/// A slug a post can have: the slug grammar (`docs/content.md#slugs`), reserved names excluded.
pub(super) fn is_valid_slug(slug: &str) -> bool {
    is_writable_slug(slug)
}

/// HTML's ASCII whitespace, which browsers strip around URLs.
pub(super) fn is_html_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0C')
}

/// The safety pass: removes every `[INTERNAL:` left, including ones that a removal forms from
/// the bytes around it, in one linear pass. Bytes are pushed onto an output stack and the opener
/// is popped as soon as it completes; a byte in the final output was pushed when everything
/// before it was already final, so no opener can remain.
pub(super) fn strip_leftover_openers(text: Cow<'_, str>) -> Cow<'_, str> {
    let Some(first) = OPENER_FINDER.find(text.as_bytes()) else {
        return text;
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..first]);
    for &b in &bytes[first..] {
        out.push(b);
        if b == b':' && out.ends_with(OPENER) {
            out.truncate(out.len() - OPENER.len());
        }
    }
    // Removing a whole ASCII sequence from UTF-8 leaves UTF-8; the lossy path never runs.
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}
