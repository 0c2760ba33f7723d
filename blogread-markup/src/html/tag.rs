//! Reading a tag: its name, its attributes and where it ends.

use std::ops::Range;

use super::is_tag_space;

/// The tokenizer's states inside a tag, after its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AttributeState {
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    Unquoted,
    AfterQuoted,
    SelfClosing,
}

/// A part of an attribute as [`read_tag`] reads it: the name comes first, then the value if
/// the attribute has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttributePart {
    /// The byte range of an attribute's name, as written.
    Name(Range<usize>),
    /// The byte range of the value of the attribute named last, without its quotes; character
    /// references in it are not decoded.
    Value(Range<usize>),
}

/// Where the parts of a tag [`read_tag`] read end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagEnd {
    /// Just after the tag name.
    pub name_end: usize,
    /// Just after the tag's `>`.
    pub end: usize,
    /// The tag ends with `/>` (which HTML elements ignore, SVG and MathML ones do not).
    pub self_closing: bool,
}

/// Reads the tag whose name starts at `name_start` (just after `<` or `</`): writes its name,
/// lower-case, into `name` (cleared first), hands each attribute's name and value to
/// `attribute` in order, and returns where it ends. `None` when the body ends inside the tag
/// (the browser then drops it).
///
/// Attribute names are not compared with each other, so a tag with many attributes is read in
/// time linear in its length.
pub fn read_tag(
    bytes: &[u8],
    name_start: usize,
    name: &mut Vec<u8>,
    mut attribute: impl FnMut(AttributePart),
) -> Option<TagEnd> {
    use AttributeState::*;
    name.clear();
    let mut at = name_start;
    let mut state = loop {
        match *bytes.get(at)? {
            b'>' => {
                return Some(TagEnd {
                    name_end: at,
                    end: at + 1,
                    self_closing: false,
                });
            }
            b'/' => break SelfClosing,
            b if is_tag_space(b) => break BeforeName,
            b => name.push(b.to_ascii_lowercase()),
        }
        at += 1;
    };
    let name_end = at;
    let ends_here = |end, self_closing| {
        Some(TagEnd {
            name_end,
            end,
            self_closing,
        })
    };
    at += 1;
    // The start of the attribute name or unquoted value being read.
    let mut open = 0;
    loop {
        let b = *bytes.get(at)?;
        let here = at;
        at += 1;
        state = match (state, b) {
            (BeforeValue, quote @ (b'"' | b'\'')) => {
                // A quoted value runs to its closing quote, `>` included.
                let close = at + memchr::memchr(quote, &bytes[at..])?;
                attribute(AttributePart::Value(at..close));
                at = close + 1;
                AfterQuoted
            }
            (Unquoted, b) if b == b'>' || is_tag_space(b) => {
                attribute(AttributePart::Value(open..here));
                if b == b'>' {
                    return ends_here(at, false);
                }
                BeforeName
            }
            (Name, b) if b == b'>' || b == b'/' || b == b'=' || is_tag_space(b) => {
                attribute(AttributePart::Name(open..here));
                match b {
                    b'>' => return ends_here(at, false),
                    b'/' => SelfClosing,
                    b'=' => BeforeValue,
                    _ => AfterName,
                }
            }
            (_, b'>') => return ends_here(at, state == SelfClosing),
            (BeforeName | AfterName | BeforeValue, b) if is_tag_space(b) => state,
            (AfterQuoted | SelfClosing, b) if is_tag_space(b) => BeforeName,
            (BeforeValue, _) => {
                open = here;
                Unquoted
            }
            (Unquoted | Name, _) => state,
            (AfterName, b'=') => BeforeValue,
            (BeforeName | AfterName | AfterQuoted | SelfClosing, b'/') => SelfClosing,
            // Any other byte, `=` included, starts a name (after a quoted value or a `/`, the
            // tokenizer reads it again in the before-name state, which does so).
            (BeforeName | AfterName | AfterQuoted | SelfClosing, _) => {
                open = here;
                Name
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the tag at the start of `html` (after its `<`): its name, its attributes as text
    /// (`name=value`, or `name` alone) and its end.
    fn read(html: &str) -> Option<(String, Vec<String>, TagEnd)> {
        let mut name = b"stale".to_vec();
        let mut attributes: Vec<String> = Vec::new();
        let end = read_tag(html.as_bytes(), 1, &mut name, |part| match part {
            AttributePart::Name(range) => attributes.push(html[range].to_owned()),
            AttributePart::Value(range) => {
                let last = attributes.last_mut().expect("a value follows its name");
                last.push('=');
                last.push_str(&html[range]);
            }
        })?;
        Some((String::from_utf8(name).unwrap(), attributes, end))
    }

    #[test]
    fn a_tag_gives_its_lower_case_name_attributes_and_end() {
        let html = "<IMG alt=\"a>b\" c='d>e' f=g h/>x";
        let (name, attributes, end) = read(html).unwrap();
        assert_eq!(name, "img");
        assert_eq!(attributes, ["alt=a>b", "c=d>e", "f=g", "h"]);
        assert_eq!(
            end,
            TagEnd {
                name_end: 4,
                end: html.len() - 1,
                self_closing: true
            }
        );
        let (name, attributes, end) = read("<p>").unwrap();
        assert_eq!((name.as_str(), attributes.len(), end.end), ("p", 0, 3));
        assert!(!end.self_closing);
    }

    #[test]
    fn odd_attributes_are_read_as_the_tokenizer_reads_them() {
        let (_, attributes, end) = read("<img/a/b=c/ =x==y>").unwrap();
        // An unquoted value runs to white space or `>`, `/` included; a name may start with `=`.
        assert_eq!(attributes, ["a", "b=c/", "=x==y"]);
        assert!(!end.self_closing);
        let (_, attributes, _) = read("<p a = 'b' c=\"\"d>").unwrap();
        assert_eq!(attributes, ["a=b", "c=", "d"]);
    }

    #[test]
    fn a_tag_the_body_ends_inside_is_none() {
        for html in ["<a", "<a b", "<a b=\"c>", "<a b='c' /"] {
            assert_eq!(read(html), None, "{html}");
        }
    }
}
