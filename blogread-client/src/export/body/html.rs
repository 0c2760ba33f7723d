//! Where each byte of an HTML body is, as a browser's tokenizer reads it: text in which
//! character references are decoded (`&#123;` shows as `{` there), or a place that shows or keeps
//! bytes as written (raw text of `<script>` and `<style>`, comments, tag and attribute names).
//!
//! The export writes a generator's look-alikes differently in each: a character reference
//! where the browser decodes it, the generator's own escape or a warning elsewhere. So the
//! reading follows the tokenizer's states (tags and their attributes, comments and their odd
//! endings, RCDATA, RAWTEXT, script data with its `<!--` escapes, PLAINTEXT, CDATA) and plays
//! the part of the tree builder that switches them: the raw-text elements of the HTML namespace,
//! and SVG and MathML content, where `<script>` and `<style>` hold markup and `<![CDATA[` opens
//! a CDATA section. Each byte is looked at a bounded number of times.
//!
//! The tokenizer's pieces (where a tag, a comment, a raw-text element's or a script's text ends)
//! are `blogread_markup::html`'s, the ones the core's word count reads bodies with; this module
//! dispatches on what follows each `<`, plays the tree builder and records the places.

use std::sync::LazyLock;

use blogread_markup::html::{
    AttributePart, TagKind, TextState, bogus_comment_end, comment_end, raw_end_tag, script_end_tag,
    text_state_after,
};
use memchr::memmem;

/// What a byte of the body is part of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Text between tags: character references are decoded.
    Text,
    /// The text of `<title>` or `<textarea>`: character references are decoded, tags are not.
    Rcdata {
        /// The element.
        element: &'static str,
    },
    /// An attribute value, quoted or not: character references are decoded.
    AttributeValue,
    /// A start or end tag outside its attribute values: the tag name, attribute names, white
    /// space, `<`, `/` and `>`.
    Tag {
        /// Where the tag starts (its `<`).
        start: usize,
    },
    /// What the browser reads and then drops: a doctype inside a body, the attributes of an end
    /// tag, `</>`, a tag the body ends inside of.
    Dropped,
    /// The text of `<script>`, `<style>`, `<xmp>`, `<iframe>`, `<noembed>`, `<noframes>`,
    /// `<noscript>` or `<plaintext>`: kept as written.
    RawText {
        /// The element.
        element: &'static str,
    },
    /// A comment, `<!--` to `-->`.
    Comment,
    /// A bogus comment (`<!x ...>`, `<?x ...>`, `</ x>`), which the browser keeps as a comment.
    BogusComment,
    /// A CDATA section in SVG or MathML.
    Cdata,
}

impl Place {
    /// Whether a character reference written here shows as the character it stands for.
    pub(crate) fn decodes_references(self) -> bool {
        matches!(
            self,
            Place::Text | Place::Rcdata { .. } | Place::AttributeValue
        )
    }

    /// Whether the browser drops what is written here, so that any change to it (that keeps
    /// the token's end where it is) shows nothing different.
    pub(crate) fn is_dropped(self) -> bool {
        self == Place::Dropped
    }

    /// The place in words, for a warning: "inside <script>", "in a comment".
    pub(crate) fn describe(self) -> String {
        match self {
            Place::Text => "in text".to_owned(),
            Place::Rcdata { element } | Place::RawText { element } => {
                format!("inside <{element}>")
            }
            Place::AttributeValue => "in an attribute value".to_owned(),
            Place::Tag { .. } => "inside a tag (a tag or attribute name)".to_owned(),
            Place::Dropped => "in markup the browser drops".to_owned(),
            Place::Comment => "in a comment".to_owned(),
            Place::BogusComment => "in a bogus comment (`<!...>` or `<?...>`)".to_owned(),
            Place::Cdata => "in a CDATA section".to_owned(),
        }
    }
}

/// A run of bytes `start..end` in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// First byte.
    pub(crate) start: usize,
    /// Just after the last byte.
    pub(crate) end: usize,
    /// What the bytes are part of.
    pub(crate) place: Place,
}

/// The places of a whole body: spans in order, without gaps, covering every byte.
#[derive(Debug, Clone)]
pub(crate) struct Places {
    spans: Vec<Span>,
}

/// An `<img>` start tag of a body (or `<image>`, which a browser's tree builder turns into
/// one), as the browser reads it: where its first `src` value is and whether it gives a size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImageTag {
    /// The byte range of the first `src` attribute's value, without its quotes (character
    /// references not decoded).
    pub(crate) src: std::ops::Range<usize>,
    /// Whether the value is between quotes (then the quotes are the bytes just around `src`).
    pub(crate) quoted: bool,
    /// Whether the tag has a `width` or a `height` attribute.
    pub(crate) sized: bool,
}

/// The `<img>` tags of `html` that have a `src`, in body order: only those a browser reads as
/// tags (not inside a comment, a `<script>`, a `<textarea>`...), as the server's usage rule
/// counts them (`docs/media.md#usage`).
pub(crate) fn image_tags(html: &str) -> Vec<ImageTag> {
    let mut reader = Reader {
        bytes: html.as_bytes(),
        spans: Vec::new(),
        tree: Tree::default(),
        images: Some(Vec::new()),
    };
    reader.read();
    reader.images.unwrap_or_default()
}

impl Places {
    /// Reads `html`.
    pub(crate) fn of(html: &str) -> Self {
        let mut reader = Reader {
            bytes: html.as_bytes(),
            spans: Vec::new(),
            tree: Tree::default(),
            images: None,
        };
        reader.read();
        Places {
            spans: reader.spans,
        }
    }

    /// The span the byte at `offset` is in (the last span for an offset at or past the end,
    /// text for an empty body).
    pub(crate) fn at(&self, offset: usize) -> Span {
        let i = self.spans.partition_point(|span| span.start <= offset);
        self.spans.get(i.wrapping_sub(1)).copied().unwrap_or(Span {
            start: 0,
            end: 0,
            place: Place::Text,
        })
    }

    /// Every span, in order.
    #[cfg(test)]
    pub(crate) fn spans(&self) -> &[Span] {
        &self.spans
    }
}

/// A tag as read: its kind, lower-case name, attributes and where it ends.
#[derive(Debug, Default)]
struct Tag {
    name: Vec<u8>,
    self_closing: bool,
    /// Where the name ends (just after it).
    name_end: usize,
    /// Each attribute: the byte range of its name and of its value (without quotes).
    attributes: Vec<(std::ops::Range<usize>, Option<std::ops::Range<usize>>)>,
    /// Just after the `>`.
    end: usize,
}

static CDATA_END: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"]]>"));

/// The reader: the tokenizer's states, the spans found so far and the tree builder's part.
struct Reader<'a> {
    bytes: &'a [u8],
    spans: Vec<Span>,
    tree: Tree,
    /// The image tags read, when they are asked for.
    images: Option<Vec<ImageTag>>,
}

impl Reader<'_> {
    /// Records a span (each token its own: a comment's span is the whole comment).
    fn push(&mut self, start: usize, end: usize, place: Place) {
        if start < end {
            self.spans.push(Span { start, end, place });
        }
    }

    fn read(&mut self) {
        let bytes = self.bytes;
        let len = bytes.len();
        let mut state = TextState::Data;
        let mut pos = 0;
        while pos < len {
            match state {
                TextState::Data => {
                    let Some(lt) = memchr::memchr(b'<', &bytes[pos..]).map(|at| pos + at) else {
                        self.push(pos, len, Place::Text);
                        return;
                    };
                    self.push(pos, lt, Place::Text);
                    (state, pos) = self.markup(lt);
                }
                TextState::Rcdata { element } | TextState::Rawtext { element } => {
                    let place = match state {
                        TextState::Rcdata { .. } => Place::Rcdata { element },
                        _ => Place::RawText { element },
                    };
                    let Some(lt) = raw_end_tag(bytes, pos, element.as_bytes()) else {
                        self.push(pos, len, place);
                        return;
                    };
                    self.push(pos, lt, place);
                    (state, pos) = self.tag(lt, TagKind::End);
                }
                TextState::ScriptData => {
                    let Some(lt) = script_end_tag(bytes, pos) else {
                        self.push(pos, len, Place::RawText { element: "script" });
                        return;
                    };
                    self.push(pos, lt, Place::RawText { element: "script" });
                    (state, pos) = self.tag(lt, TagKind::End);
                }
                TextState::Plaintext => {
                    self.push(
                        pos,
                        len,
                        Place::RawText {
                            element: "plaintext",
                        },
                    );
                    return;
                }
            }
        }
    }

    /// Reads the markup that starts with the `<` at `lt` (in data); returns the state the text
    /// after it is read in and where that text starts.
    fn markup(&mut self, lt: usize) -> (TextState, usize) {
        let bytes = self.bytes;
        let len = bytes.len();
        let after = lt + 1;
        match bytes.get(after) {
            Some(b'!') => {
                let from = after + 1;
                let end = if bytes.get(from..from + 2) == Some(b"--") {
                    let end = comment_end(bytes, from + 2).unwrap_or(len);
                    self.push(lt, end, Place::Comment);
                    end
                } else if bytes
                    .get(from..from + 7)
                    .is_some_and(|word| word.eq_ignore_ascii_case(b"doctype"))
                {
                    let end = first_gt(bytes, from);
                    self.push(lt, end, Place::Dropped);
                    end
                } else if bytes.get(from..from + 7) == Some(b"[CDATA[") && self.tree.cdata_allowed()
                {
                    let end = CDATA_END
                        .find(&bytes[from..])
                        .map_or(len, |at| from + at + 3);
                    self.push(lt, end, Place::Cdata);
                    end
                } else {
                    let end = first_gt(bytes, from);
                    self.push(lt, end, Place::BogusComment);
                    end
                };
                (TextState::Data, end)
            }
            Some(b'/') => match bytes.get(after + 1) {
                Some(b) if b.is_ascii_alphabetic() => self.tag(lt, TagKind::End),
                Some(b'>') => {
                    self.push(lt, after + 2, Place::Dropped);
                    (TextState::Data, after + 2)
                }
                None => {
                    self.push(lt, len, Place::Text);
                    (TextState::Data, len)
                }
                Some(_) => {
                    let end = first_gt(bytes, after + 1);
                    self.push(lt, end, Place::BogusComment);
                    (TextState::Data, end)
                }
            },
            Some(b) if b.is_ascii_alphabetic() => self.tag(lt, TagKind::Start),
            Some(b'?') => {
                let end = first_gt(bytes, after);
                self.push(lt, end, Place::BogusComment);
                (TextState::Data, end)
            }
            // A `<` that starts nothing is text.
            _ => {
                self.push(lt, after, Place::Text);
                (TextState::Data, after)
            }
        }
    }

    /// Reads the tag whose `<` is at `lt`, records its spans and tells the tree builder;
    /// returns the state its text is read in and where that starts.
    fn tag(&mut self, lt: usize, kind: TagKind) -> (TextState, usize) {
        let name_start = match kind {
            TagKind::Start => lt + 1,
            TagKind::End => lt + 2,
        };
        let Some(tag) = read_tag(self.bytes, name_start) else {
            // The body ends inside the tag: the browser drops it.
            self.push(lt, self.bytes.len(), Place::Dropped);
            return (TextState::Data, self.bytes.len());
        };
        let tag_place = Place::Tag { start: lt };
        if kind == TagKind::Start
            && let Some(images) = &mut self.images
            && let Some(image) = image_tag(&tag, self.bytes)
        {
            images.push(image);
        }
        match kind {
            TagKind::Start => {
                let mut at = lt;
                for (_, value) in &tag.attributes {
                    if let Some(value) = value {
                        self.push(at, value.start, tag_place);
                        self.push(value.start, value.end, Place::AttributeValue);
                        at = value.end;
                    }
                }
                self.push(at, tag.end, tag_place);
            }
            TagKind::End => {
                // Only the name counts: the browser drops an end tag's attributes.
                self.push(lt, tag.name_end, tag_place);
                self.push(tag.name_end, tag.end - 1, Place::Dropped);
                self.push(tag.end - 1, tag.end, tag_place);
            }
        }
        let state = match kind {
            TagKind::Start => self.tree.start_tag(&tag, self.bytes),
            TagKind::End => {
                self.tree.end_tag(&tag.name);
                TextState::Data
            }
        };
        (state, tag.end)
    }
}

/// The image `tag` is, if it is an `<img>` (or `<image>`) with a `src`.
fn image_tag(tag: &Tag, bytes: &[u8]) -> Option<ImageTag> {
    if !matches!(tag.name.as_slice(), b"img" | b"image") {
        return None;
    }
    let name_is = |range: &std::ops::Range<usize>, name: &[u8]| {
        bytes[range.clone()].eq_ignore_ascii_case(name)
    };
    // The browser keeps the first of attributes of the same name.
    let (_, value) = tag
        .attributes
        .iter()
        .find(|(name, _)| name_is(name, b"src"))?;
    let src = value.clone()?;
    let quoted = src.start > 0
        && matches!(bytes[src.start - 1], b'"' | b'\'')
        && bytes.get(src.end) == Some(&bytes[src.start - 1]);
    let sized = tag
        .attributes
        .iter()
        .any(|(name, _)| name_is(name, b"width") || name_is(name, b"height"));
    Some(ImageTag { src, quoted, sized })
}

/// Just after the first `>` from `from` on (the end of a doctype or bogus comment), or the end.
fn first_gt(bytes: &[u8], from: usize) -> usize {
    bogus_comment_end(bytes, from).unwrap_or(bytes.len())
}

/// Reads a tag whose name starts at `name_start`: its name, attributes and end. `None` when the
/// body ends inside it.
fn read_tag(bytes: &[u8], name_start: usize) -> Option<Tag> {
    let mut tag = Tag::default();
    let attributes = &mut tag.attributes;
    let end =
        blogread_markup::html::read_tag(bytes, name_start, &mut tag.name, |part| match part {
            AttributePart::Name(name) => attributes.push((name, None)),
            AttributePart::Value(value) => {
                if let Some(last) = attributes.last_mut() {
                    last.1 = Some(value);
                }
            }
        })?;
    tag.self_closing = end.self_closing;
    tag.name_end = end.name_end;
    tag.end = end.end;
    Some(tag)
}

/// The namespace of an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Namespace {
    Html,
    Svg,
    MathMl,
}

/// An element open inside SVG or MathML content.
#[derive(Debug)]
struct Node {
    namespace: Namespace,
    /// Lower-case name.
    name: Vec<u8>,
    /// An HTML integration point (`<foreignObject>`, `<desc>` and `<title>` in SVG,
    /// `<annotation-xml encoding="text/html">`): start tags inside follow the HTML rules.
    html_integration_point: bool,
    /// A MathML text integration point (`<mi>`, `<mo>`, `<mn>`, `<ms>`, `<mtext>`).
    text_integration_point: bool,
}

/// The part of the tree builder the tokenizer's states depend on: which start tags switch it
/// into a raw-text state (HTML elements only) and whether `<![CDATA[` opens a CDATA section
/// (in SVG and MathML only). Outside SVG and MathML no element is tracked; inside, the open
/// elements are, HTML ones in integration points included, so that the end of the foreign
/// content is found.
#[derive(Debug, Default)]
struct Tree {
    open: Vec<Node>,
}

impl Tree {
    fn cdata_allowed(&self) -> bool {
        self.open
            .last()
            .is_some_and(|node| node.namespace != Namespace::Html)
    }

    /// A start tag: returns the state its text is read in.
    fn start_tag(&mut self, tag: &Tag, bytes: &[u8]) -> TextState {
        let name = tag.name.as_slice();
        loop {
            let html_rules = match self.open.last() {
                None => true,
                Some(node) => {
                    node.namespace == Namespace::Html
                        || node.html_integration_point
                        || (node.text_integration_point
                            && !matches!(name, b"mglyph" | b"malignmark"))
                        || (node.namespace == Namespace::MathMl
                            && node.name == b"annotation-xml"
                            && name == b"svg")
                }
            };
            if html_rules {
                return self.html_start_tag(tag);
            }
            if breaks_out_of_foreign_content(tag, bytes) {
                while self.open.last().is_some_and(|node| {
                    node.namespace != Namespace::Html
                        && !node.html_integration_point
                        && !node.text_integration_point
                }) {
                    self.open.pop();
                }
                continue;
            }
            let namespace = self.open.last().map_or(Namespace::Html, |n| n.namespace);
            if !tag.self_closing {
                self.open.push(Node {
                    namespace,
                    name: tag.name.clone(),
                    html_integration_point: is_html_integration_point(namespace, tag, bytes),
                    text_integration_point: namespace == Namespace::MathMl
                        && matches!(name, b"mi" | b"mo" | b"mn" | b"ms" | b"mtext"),
                });
            }
            return TextState::Data;
        }
    }

    /// A start tag under the HTML rules.
    fn html_start_tag(&mut self, tag: &Tag) -> TextState {
        let name = tag.name.as_slice();
        let namespace = match name {
            b"svg" => Namespace::Svg,
            b"math" => Namespace::MathMl,
            _ => {
                // The self-closing flag is ignored on HTML elements: `<script/>` runs to
                // `</script>`.
                let state = text_state_after(name);
                if !self.open.is_empty() && !is_void(name) {
                    self.open.push(Node {
                        namespace: Namespace::Html,
                        name: tag.name.clone(),
                        html_integration_point: false,
                        text_integration_point: false,
                    });
                }
                return state;
            }
        };
        if !tag.self_closing {
            self.open.push(Node {
                namespace,
                name: tag.name.clone(),
                html_integration_point: false,
                text_integration_point: false,
            });
        }
        TextState::Data
    }

    /// An end tag: closes the innermost open element of that name, if any is tracked.
    fn end_tag(&mut self, name: &[u8]) {
        if let Some(at) = self.open.iter().rposition(|node| node.name == name) {
            self.open.truncate(at);
        } else if matches!(name, b"p" | b"br")
            && self
                .open
                .last()
                .is_some_and(|node| node.namespace != Namespace::Html)
        {
            // `</p>` and `</br>` end foreign content, as the breakout start tags do.
            while self.open.last().is_some_and(|node| {
                node.namespace != Namespace::Html
                    && !node.html_integration_point
                    && !node.text_integration_point
            }) {
                self.open.pop();
            }
        }
    }
}

/// HTML elements that have no end tag.
fn is_void(name: &[u8]) -> bool {
    matches!(
        name,
        b"area"
            | b"base"
            | b"basefont"
            | b"bgsound"
            | b"br"
            | b"col"
            | b"embed"
            | b"frame"
            | b"hr"
            | b"image"
            | b"img"
            | b"input"
            | b"keygen"
            | b"link"
            | b"meta"
            | b"param"
            | b"source"
            | b"track"
            | b"wbr"
    )
}

/// The start tags that end SVG or MathML content (and `<font>` with a `color`, `face` or
/// `size` attribute).
fn breaks_out_of_foreign_content(tag: &Tag, bytes: &[u8]) -> bool {
    match tag.name.as_slice() {
        b"b" | b"big" | b"blockquote" | b"body" | b"br" | b"center" | b"code" | b"dd" | b"div"
        | b"dl" | b"dt" | b"em" | b"embed" | b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6"
        | b"head" | b"hr" | b"i" | b"img" | b"li" | b"listing" | b"menu" | b"meta" | b"nobr"
        | b"ol" | b"p" | b"pre" | b"ruby" | b"s" | b"small" | b"span" | b"strong" | b"strike"
        | b"sub" | b"sup" | b"table" | b"tt" | b"u" | b"ul" | b"var" => true,
        b"font" => tag.attributes.iter().any(|(name, _)| {
            let name = &bytes[name.clone()];
            [&b"color"[..], b"face", b"size"]
                .iter()
                .any(|n| name.eq_ignore_ascii_case(n))
        }),
        _ => false,
    }
}

/// Whether a foreign element opened by `tag` in `namespace` is an HTML integration point.
fn is_html_integration_point(namespace: Namespace, tag: &Tag, bytes: &[u8]) -> bool {
    match (namespace, tag.name.as_slice()) {
        (Namespace::Svg, b"foreignobject" | b"desc" | b"title") => true,
        (Namespace::MathMl, b"annotation-xml") => tag.attributes.iter().any(|(name, value)| {
            bytes[name.clone()].eq_ignore_ascii_case(b"encoding")
                && value.as_ref().is_some_and(|value| {
                    let value = &bytes[value.clone()];
                    value.eq_ignore_ascii_case(b"text/html")
                        || value.eq_ignore_ascii_case(b"application/xhtml+xml")
                })
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The place of the first byte of `needle` in `html`.
    fn place_of(html: &str, needle: &str) -> Place {
        let at = html.find(needle).expect("needle in html");
        Places::of(html).at(at).place
    }

    #[test]
    fn spans_cover_every_byte_in_order() {
        for html in [
            "",
            "plain",
            "<p a=\"1\" b='2' c=3 d>x</p><!-- c --><script>s</script><style>y</style>",
            "<a href=x",
            "<!--",
            "</",
            "<svg><![CDATA[x]]></svg>",
        ] {
            let places = Places::of(html);
            let mut at = 0;
            for span in places.spans() {
                assert_eq!(span.start, at, "{html:?}: {:?}", places.spans());
                assert!(span.end > span.start);
                at = span.end;
            }
            assert_eq!(at, html.len(), "{html:?}");
        }
    }

    #[test]
    fn text_attribute_values_and_rcdata_decode_references() {
        let html = "<p title=\"{{a}}\" data-x='{{b}}' y={{c}}>{{d}}</p><textarea>{{e}}</textarea>\
                    <title>{{f}}</title>";
        for needle in ["{{a", "{{b", "{{c", "{{d", "{{e", "{{f"] {
            assert!(
                place_of(html, needle).decodes_references(),
                "{needle}: {:?}",
                place_of(html, needle)
            );
        }
    }

    #[test]
    fn raw_text_comments_and_names_keep_bytes_as_written() {
        let html = "<script>{{a}}</script><style>{{b}}</style><!-- {{c}} --><p {{d}}=1>\
                    <noscript>{{e}}</noscript><xmp>{{f}}</xmp><!x {{g}}>";
        let expected = [
            ("{{a", Place::RawText { element: "script" }),
            ("{{b", Place::RawText { element: "style" }),
            ("{{c", Place::Comment),
            (
                "{{d",
                Place::Tag {
                    start: html.find("<p {{d").unwrap(),
                },
            ),
            (
                "{{e",
                Place::RawText {
                    element: "noscript",
                },
            ),
            ("{{f", Place::RawText { element: "xmp" }),
            ("{{g", Place::BogusComment),
        ];
        for (needle, place) in expected {
            assert_eq!(place_of(html, needle), place, "{needle}");
        }
    }

    #[test]
    fn script_escapes_decide_which_end_tag_ends_the_script() {
        let html = "<script><!--<script>x</script>{{a}}--></script>{{b}}";
        assert_eq!(place_of(html, "{{a"), Place::RawText { element: "script" });
        assert_eq!(place_of(html, "{{b"), Place::Text);
    }

    #[test]
    fn svg_and_mathml_hold_markup_where_html_has_raw_text() {
        let html = "<svg><style>{{a}}</style><script>{{b}}</script><![CDATA[{{c}}]]>\
                    <foreignObject><style>{{d}}</style></foreignObject></svg><style>{{e}}</style>\
                    <math><mi><script>{{f}}</script></mi><mo><b><![CDATA[{{g}}]]></b></mo></math>\
                    <svg/><script>{{h}}</script><svg><p><style>{{i}}</style>";
        assert_eq!(place_of(html, "{{a"), Place::Text);
        assert_eq!(place_of(html, "{{b"), Place::Text);
        assert_eq!(place_of(html, "{{c"), Place::Cdata);
        assert_eq!(place_of(html, "{{d"), Place::RawText { element: "style" });
        assert_eq!(place_of(html, "{{e"), Place::RawText { element: "style" });
        assert_eq!(place_of(html, "{{f"), Place::RawText { element: "script" });
        // Under an HTML element (here inside <mo>) there is no CDATA: a bogus comment.
        assert_eq!(place_of(html, "{{g"), Place::BogusComment);
        assert_eq!(place_of(html, "{{h"), Place::RawText { element: "script" });
        assert_eq!(place_of(html, "{{i"), Place::RawText { element: "style" });
    }

    #[test]
    fn comments_end_where_the_tokenizer_ends_them() {
        for (html, end) in [
            ("<!-->x", 5),
            ("<!--->x", 6),
            ("<!---->x", 7),
            ("<!-- a --!>x", 11),
            ("<!-- a <!-->x", 12),
            ("<!---!>x-->", 11),
            ("<!-- never", 10),
        ] {
            let places = Places::of(html);
            assert_eq!(
                places.at(0),
                Span {
                    start: 0,
                    end,
                    place: Place::Comment
                },
                "{html}"
            );
        }
    }

    #[test]
    fn end_tag_attributes_and_doctypes_are_dropped() {
        let html = "<p>x</p {{a}}><!DOCTYPE {{b}}></>";
        assert_eq!(place_of(html, "{{a"), Place::Dropped);
        assert_eq!(place_of(html, "{{b"), Place::Dropped);
        assert_eq!(place_of(html, "</>"), Place::Dropped);
        assert_eq!(place_of(html, "</p"), Place::Tag { start: 4 });
    }
}
