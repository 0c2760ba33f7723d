//! The text states the tokenizer reads an element's content in, and where the text of an
//! RCDATA or RAWTEXT element ends.

use std::sync::LazyLock;

use memchr::memmem;

use super::ends_tag_name;

static END_TAG_OPEN: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"</"));

/// The state the tokenizer reads text in, as the tree builder switches it after a start tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextState {
    /// Markup and character references.
    Data,
    /// Text with character references, up to the element's end tag (`<textarea>`, `<title>`).
    Rcdata {
        /// The (lower-case) name of the element whose end tag ends the text.
        element: &'static str,
    },
    /// Text as is, up to the element's end tag (`<style>`, `<xmp>`, ...).
    Rawtext {
        /// The (lower-case) name of the element whose end tag ends the text.
        element: &'static str,
    },
    /// Script text, whose `<!--` ... `-->` escapes decide which `</script>` ends it
    /// ([`script_end_tag`](super::script_end_tag)).
    ScriptData,
    /// Text as is, to the end of the body.
    Plaintext,
}

/// The state the tokenizer reads the text after this HTML start tag (`name` lower-case) in, as
/// a tree builder switches it (HTML namespace, scripting enabled, as in a browser running
/// scripts: `<noscript>` holds raw text). The self-closing flag does not matter: browsers
/// ignore it on HTML elements, so `<script/>` still runs to `</script>`.
pub fn text_state_after(name: &[u8]) -> TextState {
    match name {
        b"script" => TextState::ScriptData,
        b"style" => TextState::Rawtext { element: "style" },
        b"noscript" => TextState::Rawtext {
            element: "noscript",
        },
        b"xmp" => TextState::Rawtext { element: "xmp" },
        b"iframe" => TextState::Rawtext { element: "iframe" },
        b"noembed" => TextState::Rawtext { element: "noembed" },
        b"noframes" => TextState::Rawtext {
            element: "noframes",
        },
        b"textarea" => TextState::Rcdata {
            element: "textarea",
        },
        b"title" => TextState::Rcdata { element: "title" },
        b"plaintext" => TextState::Plaintext,
        _ => TextState::Data,
    }
}

/// The `<` of the end tag that ends the text of an RCDATA or RAWTEXT `element` (lower-case)
/// starting at `from`: the first `</element` (any case) followed by white space, `/` or `>`.
/// Anything else that starts with `</` is text. `None` when the text runs to the end.
pub fn raw_end_tag(bytes: &[u8], from: usize, element: &[u8]) -> Option<usize> {
    let mut at = from;
    loop {
        let lt = at + END_TAG_OPEN.find(bytes.get(at..)?)?;
        let name_start = lt + 2;
        let name_end = name_start + element.len();
        if bytes
            .get(name_start..name_end)
            .is_some_and(|name| name.eq_ignore_ascii_case(element))
            && bytes.get(name_end).copied().is_some_and(ends_tag_name)
        {
            return Some(lt);
        }
        at = lt + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_text_ends_at_its_own_end_tag_in_any_case() {
        let end = |html: &str| raw_end_tag(html.as_bytes(), 0, b"textarea");
        assert_eq!(end("a</textareax>b</TEXTAREA >c"), Some(14));
        assert_eq!(end("a</p></textarea/>"), Some(5));
        assert_eq!(end("</textarea>"), Some(0));
        assert_eq!(end("a</textarea"), None);
        assert_eq!(end("a</b>"), None);
    }

    #[test]
    fn only_the_raw_text_elements_switch_the_text_state() {
        assert_eq!(text_state_after(b"script"), TextState::ScriptData);
        assert_eq!(
            text_state_after(b"style"),
            TextState::Rawtext { element: "style" }
        );
        assert_eq!(
            text_state_after(b"title"),
            TextState::Rcdata { element: "title" }
        );
        assert_eq!(text_state_after(b"plaintext"), TextState::Plaintext);
        assert_eq!(text_state_after(b"p"), TextState::Data);
        assert_eq!(text_state_after(b"svg"), TextState::Data);
    }
}
