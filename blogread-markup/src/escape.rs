//! One HTML escaper family: each caller names the characters it escapes, so that every place
//! keeps the exact output it always had while sharing one loop.
//!
//! The replacements are always the same: `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;`. What
//! differs between places is which of the five characters they escape: text needs `&` and `<`
//! (and by habit `>`), a double-quoted attribute value `&` and `"`, and a value rewritten the way
//! `lol_html` writes one only `"`. The presets on [`Escapes`] name those sets by where they are
//! used.

use std::borrow::Cow;

/// A set of the characters to escape, among `&`, `<`, `>`, `"` and `'`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Escapes(u8);

impl Escapes {
    /// `&` as `&amp;`.
    pub const AMPERSAND: Escapes = Escapes(1);
    /// `<` as `&lt;`.
    pub const LESS_THAN: Escapes = Escapes(1 << 1);
    /// `>` as `&gt;`.
    pub const GREATER_THAN: Escapes = Escapes(1 << 2);
    /// `"` as `&quot;`.
    pub const DOUBLE_QUOTE: Escapes = Escapes(1 << 3);
    /// `'` as `&#39;`.
    pub const SINGLE_QUOTE: Escapes = Escapes(1 << 4);

    /// `&`, `<` and `>`: text content, including a body's source shown inside `<pre>`.
    pub const TEXT: Escapes = Escapes::AMPERSAND
        .and(Escapes::LESS_THAN)
        .and(Escapes::GREATER_THAN);
    /// `&` and `"`: a double-quoted attribute value.
    pub const ATTRIBUTE_VALUE: Escapes = Escapes::AMPERSAND.and(Escapes::DOUBLE_QUOTE);
    /// `&`, `<`, `>` and `"`: text content or a double-quoted attribute value.
    pub const TEXT_OR_ATTRIBUTE_VALUE: Escapes = Escapes::TEXT.and(Escapes::DOUBLE_QUOTE);
    /// All five: text content or an attribute value in either kind of quotes.
    pub const ALL: Escapes = Escapes::TEXT_OR_ATTRIBUTE_VALUE.and(Escapes::SINGLE_QUOTE);
    /// `&` and `<`: the text of `<textarea>` and `<title>` (escapable raw text), where
    /// character references are decoded but no tag starts.
    pub const ESCAPABLE_RAW_TEXT: Escapes = Escapes::AMPERSAND.and(Escapes::LESS_THAN);
    /// `<` and `>`: text that is already markup (its character references stay as written) and
    /// must not be read as a tag.
    pub const ANGLE_BRACKETS: Escapes = Escapes::LESS_THAN.and(Escapes::GREATER_THAN);

    /// Both sets together.
    #[must_use]
    pub const fn and(self, other: Escapes) -> Escapes {
        Escapes(self.0 | other.0)
    }

    /// What `b` is written as, if this set escapes it.
    fn replacement(self, b: u8) -> Option<&'static str> {
        let (bit, replacement) = match b {
            b'&' => (Escapes::AMPERSAND, "&amp;"),
            b'<' => (Escapes::LESS_THAN, "&lt;"),
            b'>' => (Escapes::GREATER_THAN, "&gt;"),
            b'"' => (Escapes::DOUBLE_QUOTE, "&quot;"),
            b'\'' => (Escapes::SINGLE_QUOTE, "&#39;"),
            _ => return None,
        };
        (self.0 & bit.0 != 0).then_some(replacement)
    }

    /// The offset of the first byte of `text` this set escapes.
    fn first_in(self, text: &str) -> Option<usize> {
        text.bytes().position(|b| self.replacement(b).is_some())
    }
}

/// Appends `text` to `out`, the characters in `escapes` escaped.
pub fn push_escaped(out: &mut String, text: &str, escapes: Escapes) {
    // Every escaped character is ASCII, so each offset cut at is a character boundary.
    let mut start = 0;
    for (at, b) in text.bytes().enumerate() {
        if let Some(replacement) = escapes.replacement(b) {
            out.push_str(&text[start..at]);
            out.push_str(replacement);
            start = at + 1;
        }
    }
    out.push_str(&text[start..]);
}

/// `text` with the characters in `escapes` escaped; borrowed when there is none to escape.
pub fn escape(text: &str, escapes: Escapes) -> Cow<'_, str> {
    let Some(first) = escapes.first_in(text) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    push_escaped(&mut out, &text[first..], escapes);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "<a title=\"Tom & Jerry's\">é</a>";

    #[test]
    fn each_preset_escapes_exactly_its_characters() {
        for (escapes, expected) in [
            (
                Escapes::ALL,
                "&lt;a title=&quot;Tom &amp; Jerry&#39;s&quot;&gt;é&lt;/a&gt;",
            ),
            (
                Escapes::TEXT_OR_ATTRIBUTE_VALUE,
                "&lt;a title=&quot;Tom &amp; Jerry's&quot;&gt;é&lt;/a&gt;",
            ),
            (
                Escapes::TEXT,
                "&lt;a title=\"Tom &amp; Jerry's\"&gt;é&lt;/a&gt;",
            ),
            (
                Escapes::ATTRIBUTE_VALUE,
                "<a title=&quot;Tom &amp; Jerry's&quot;>é</a>",
            ),
            (
                Escapes::ESCAPABLE_RAW_TEXT,
                "&lt;a title=\"Tom &amp; Jerry's\">é&lt;/a>",
            ),
            (
                Escapes::ANGLE_BRACKETS,
                "&lt;a title=\"Tom & Jerry's\"&gt;é&lt;/a&gt;",
            ),
            (
                Escapes::DOUBLE_QUOTE,
                "<a title=&quot;Tom & Jerry's&quot;>é</a>",
            ),
        ] {
            assert_eq!(escape(SAMPLE, escapes), expected, "{escapes:?}");
            let mut out = "kept ".to_owned();
            push_escaped(&mut out, SAMPLE, escapes);
            assert_eq!(out, format!("kept {expected}"), "{escapes:?}");
        }
    }

    #[test]
    fn text_without_anything_to_escape_is_borrowed() {
        assert!(matches!(
            escape("plain text, é", Escapes::ALL),
            Cow::Borrowed("plain text, é")
        ));
        assert!(matches!(
            escape("a < b", Escapes::ATTRIBUTE_VALUE),
            Cow::Borrowed(_)
        ));
        assert_eq!(escape("", Escapes::ALL), "");
    }

    #[test]
    fn escaping_is_one_pass_so_an_ampersand_it_writes_is_never_escaped_again() {
        assert_eq!(escape("&lt;\"", Escapes::ALL), "&amp;lt;&quot;");
        assert_eq!(escape("<<>>", Escapes::TEXT), "&lt;&lt;&gt;&gt;");
    }
}
