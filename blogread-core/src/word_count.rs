//! The `word_count` of a blog post, counted by the rules of `docs/content.md#word-count`.
//!
//! The body is read as a browser's HTML tokenizer reads it, so entities, raw-text elements and
//! malformed markup are handled as a browser would; the counter plays the small part of the tree
//! builder the count depends on: it switches the tokenizer into the raw-text states for the
//! elements a tree builder would (`<script>`, `<style>`, `<textarea>`, ...), it drops the text of
//! `<script>`, `<style>`, `<noscript>` and everything inside `<template>`, and it ends the current
//! word at the start and end tags of block elements. Words are counted as the text streams by;
//! nothing is buffered per word.
//!
//! # Why not html5ever's tokenizer
//!
//! The count used to run html5ever's tokenizer, which keeps every attribute of a tag and compares
//! each new attribute name with all earlier ones to drop duplicates: a tag with 150,000
//! attributes took seconds. The count needs neither attribute names nor values, so the skimmer
//! here follows the tokenizer's states with the scanning pieces of `blogread_markup::html` (the
//! same tag, comment, raw-text and script-escape rules, which the client's export reads bodies
//! with too; checked against html5ever by a property test here) and skips attributes, in time
//! linear in the body. Character references are decoded with html5ever's own entity table and
//! rules.

use std::borrow::Cow;
use std::ops::Range;

use blogread_markup::html::{
    AttributePart, TagKind, TextState, bogus_comment_end, comment_end, raw_end_tag, read_tag,
    script_end_tag, text_state_after,
};
use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// Counts the words of an HTML body (the rules: `docs/content.md#word-count`).
///
/// A word is a maximal run of characters that are not Unicode white space (`char::is_whitespace`,
/// so NBSP separates) and that holds at least one letter or digit (`char::is_alphanumeric`).
/// Entities are decoded first. The text of `<script>`, `<style>`, `<noscript>`, `<template>`
/// and comments is not counted, nor are attribute values. Block element boundaries (`<p>`,
/// `<li>`, `<br>`, ...) separate words; inline elements do not, so `<b>wo</b>rd` is one word.
///
/// Never panics; any string is accepted. Takes time linear in the length of `html`.
pub fn word_count(html: &str) -> u64 {
    let mut counter = Counter::default();
    skim(html, &mut counter);
    counter.words
}

/// The word counter, and the part of the tree builder the count depends on.
#[derive(Debug, Default)]
struct Counter {
    /// Words counted so far.
    words: u64,
    /// The current run of non-white-space characters already holds a letter or digit and has
    /// been counted.
    counted_run: bool,
    /// Inside the raw text of a `<script>`, `<style>` or `<noscript>`.
    in_ignored_raw_text: bool,
    /// Number of `<template>` elements open: their content is not part of the document text.
    template_depth: u32,
}

impl Counter {
    fn counting(&self) -> bool {
        !self.in_ignored_raw_text && self.template_depth == 0
    }

    fn end_word(&mut self) {
        self.counted_run = false;
    }

    fn char(&mut self, c: char) {
        if c.is_whitespace() {
            self.counted_run = false;
        } else if !self.counted_run && c.is_alphanumeric() {
            self.words += 1;
            self.counted_run = true;
        }
    }

    /// Text as it is (raw text, or data between character references).
    fn text(&mut self, text: &str) {
        if self.counting() {
            for c in text.chars() {
                self.char(c);
            }
        }
    }

    /// Text in which character references are decoded (data and RCDATA).
    fn text_with_references(&mut self, text: &str) {
        if !self.counting() {
            return;
        }
        let mut rest = text;
        while let Some(at) = memchr::memchr(b'&', rest.as_bytes()) {
            self.text(&rest[..at]);
            let after = &rest[at + 1..];
            match character_reference(after) {
                Some((decoded, consumed)) => {
                    decoded.into_iter().flatten().for_each(|c| self.char(c));
                    rest = &after[consumed..];
                }
                // Not a reference: the `&` is text, and so is what follows it.
                None => {
                    self.char('&');
                    rest = after;
                }
            }
        }
        self.text(rest);
    }

    /// A tag (`name` lower-case) was read; returns the state the text after it is read in.
    fn tag(&mut self, kind: TagKind, name: &[u8]) -> TextState {
        if self.in_ignored_raw_text {
            // In a raw-text state the tokenizer reads only the end tag that closes the element
            // (`</script>` after `<script>`); anything else in there was text.
            if kind == TagKind::End {
                self.in_ignored_raw_text = false;
            }
            return TextState::Data;
        }

        if name == b"template" {
            self.template_depth = match kind {
                TagKind::Start => self.template_depth.saturating_add(1),
                TagKind::End => self.template_depth.saturating_sub(1),
            };
            return TextState::Data;
        }

        if self.template_depth == 0 && is_block_boundary(name) {
            self.end_word();
        }

        if kind == TagKind::End {
            return TextState::Data;
        }
        // The switches a tree builder makes on these start tags (HTML namespace, scripting
        // enabled, so `<noscript>` is raw text). The self-closing flag is ignored, as browsers
        // ignore it on HTML elements: `<script/>` still runs to `</script>`.
        if is_ignored_raw_text(name) {
            self.in_ignored_raw_text = true;
        }
        text_state_after(name)
    }
}

/// What reads a body as [`skim`] walks it: the word count, and the image sources of a body
/// (`crate::image_sources`).
pub(crate) trait Skimmer {
    /// Text as it is (raw text, or data between character references).
    fn text(&mut self, text: &str);
    /// Text in which character references are decoded (data and RCDATA).
    fn text_with_references(&mut self, text: &str);
    /// A tag was read (`name` lower-case, `src` the byte range of the value of its first `src`
    /// attribute, references not decoded); returns the state the text after it is read in.
    fn tag(&mut self, kind: TagKind, name: &[u8], src: Option<Range<usize>>) -> TextState;
}

impl Skimmer for Counter {
    fn text(&mut self, text: &str) {
        Counter::text(self, text);
    }

    fn text_with_references(&mut self, text: &str) {
        Counter::text_with_references(self, text);
    }

    fn tag(&mut self, kind: TagKind, name: &[u8], _src: Option<Range<usize>>) -> TextState {
        Counter::tag(self, kind, name)
    }
}

/// Raw-text elements whose text is not part of the document's text.
fn is_ignored_raw_text(name: &[u8]) -> bool {
    matches!(name, b"script" | b"style" | b"noscript")
}

/// Elements whose start and end tags separate words (`docs/content.md#word-count`).
fn is_block_boundary(name: &[u8]) -> bool {
    matches!(
        name,
        b"p" | b"div"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"ul"
            | b"ol"
            | b"li"
            | b"dl"
            | b"dt"
            | b"dd"
            | b"table"
            | b"tr"
            | b"td"
            | b"th"
            | b"thead"
            | b"tbody"
            | b"tfoot"
            | b"caption"
            | b"blockquote"
            | b"pre"
            | b"figure"
            | b"figcaption"
            | b"section"
            | b"article"
            | b"header"
            | b"footer"
            | b"nav"
            | b"aside"
            | b"main"
            | b"hr"
            | b"br"
    )
}

/// Reads `html` as the tokenizer would and feeds its text and tags to `counter`. Every step
/// moves forward, and each byte is looked at a bounded number of times.
pub(crate) fn skim(html: &str, counter: &mut impl Skimmer) {
    let bytes = html.as_bytes();
    let mut name = Vec::new();
    let mut state = TextState::Data;
    let mut pos = 0;
    while pos < bytes.len() {
        match state {
            TextState::Data => {
                let Some(lt) = memchr::memchr(b'<', &bytes[pos..]).map(|at| pos + at) else {
                    counter.text_with_references(&html[pos..]);
                    return;
                };
                counter.text_with_references(&html[pos..lt]);
                match markup(bytes, lt, &mut name) {
                    Markup::Text(next) => pos = next,
                    Markup::Tag(kind, next, src) => {
                        state = counter.tag(kind, &name, src);
                        pos = next;
                    }
                    Markup::Eof => return,
                }
            }
            TextState::Rcdata { element } | TextState::Rawtext { element } => {
                let Some(lt) = raw_end_tag(bytes, pos, element.as_bytes()) else {
                    raw_text(counter, state, &html[pos..]);
                    return;
                };
                raw_text(counter, state, &html[pos..lt]);
                let Some(next) = end_tag_end(bytes, lt, &mut name) else {
                    return;
                };
                state = counter.tag(TagKind::End, element.as_bytes(), None);
                pos = next;
            }
            TextState::ScriptData => {
                let Some(lt) = script_end_tag(bytes, pos) else {
                    counter.text(&html[pos..]);
                    return;
                };
                counter.text(&html[pos..lt]);
                let Some(next) = end_tag_end(bytes, lt, &mut name) else {
                    return;
                };
                state = counter.tag(TagKind::End, b"script", None);
                pos = next;
            }
            TextState::Plaintext => {
                counter.text(&html[pos..]);
                return;
            }
        }
    }
}

/// Text of an RCDATA or RAWTEXT element.
fn raw_text(counter: &mut impl Skimmer, state: TextState, text: &str) {
    if matches!(state, TextState::Rcdata { .. }) {
        counter.text_with_references(text);
    } else {
        counter.text(text);
    }
}

/// Where the end tag whose `<` is at `lt` ends (just after its `>`); `None` when the body ends
/// first. Its attributes are skipped.
fn end_tag_end(bytes: &[u8], lt: usize, name: &mut Vec<u8>) -> Option<usize> {
    read_tag(bytes, lt + 2, name, |_| {}).map(|tag| tag.end)
}

/// What a `<` in data starts.
enum Markup {
    /// Nothing the count sees (a comment, a doctype, `</>`, or a `<` that is text, which is
    /// neither a letter nor white space): data goes on at this offset.
    Text(usize),
    /// A tag, whose lower-case name is in the name buffer; the text after it starts here; the
    /// byte range of its first `src` attribute's value, if it has one.
    Tag(TagKind, usize, Option<Range<usize>>),
    /// The body ends inside it (a tag cut short is dropped, a comment runs to the end).
    Eof,
}

impl Markup {
    /// Markup the count does not see that ends at `end`, or runs to the end of the body.
    fn unseen_until(end: Option<usize>) -> Markup {
        end.map_or(Markup::Eof, Markup::Text)
    }
}

/// Reads the markup that starts with the `<` at `lt`, writing a tag's name into `name`.
/// Attributes are skipped, never kept, but for where the first `src` one's value is (a
/// browser drops an attribute named as an earlier one of its tag).
fn markup(bytes: &[u8], lt: usize, name: &mut Vec<u8>) -> Markup {
    let after = lt + 1;
    let (kind, name_start) = match bytes.get(after) {
        Some(b'!') => {
            // A comment, or a doctype or bogus comment (both end at the first `>`).
            let from = after + 1;
            return Markup::unseen_until(if bytes.get(from..from + 2) == Some(b"--") {
                comment_end(bytes, from + 2)
            } else {
                bogus_comment_end(bytes, from)
            });
        }
        Some(b'/') => match bytes.get(after + 1) {
            Some(b) if b.is_ascii_alphabetic() => (TagKind::End, after + 1),
            Some(b'>') => return Markup::Text(after + 2),
            None => return Markup::Eof,
            Some(_) => return Markup::unseen_until(bogus_comment_end(bytes, after + 1)),
        },
        Some(b) if b.is_ascii_alphabetic() => (TagKind::Start, after),
        Some(b'?') => return Markup::unseen_until(bogus_comment_end(bytes, after)),
        Some(_) => return Markup::Text(after),
        None => return Markup::Eof,
    };
    let mut src = None;
    let mut seen_src = false;
    let mut naming_src = false;
    let tag = read_tag(bytes, name_start, name, |part| match part {
        AttributePart::Name(range) => {
            naming_src = !seen_src && bytes[range].eq_ignore_ascii_case(b"src");
            seen_src |= naming_src;
        }
        AttributePart::Value(range) => {
            if std::mem::take(&mut naming_src) {
                src = Some(range);
            }
        }
    });
    match tag {
        Some(tag) => Markup::Tag(kind, tag.end, src),
        None => Markup::Eof,
    }
}

/// Decodes the character reference that follows an `&` (`after` starts just after it) as
/// html5ever does in text: the characters it stands for and how many bytes of `after` it takes,
/// or `None` when the `&` starts none (it is then text, and so is what follows).
pub(crate) fn character_reference(after: &str) -> Option<([Option<char>; 2], usize)> {
    match after.as_bytes().first()? {
        b'#' => numeric_reference(after),
        b if b.is_ascii_alphanumeric() => named_reference(after),
        _ => None,
    }
}

/// `value` with its character references decoded: every one as in text, or, `in_attribute`,
/// as a browser decodes them in an attribute value, where a named reference without its `;`
/// followed by `=` or an ASCII letter or digit stays as written (`?a=1&copy=2` keeps its
/// `&copy`).
pub(crate) fn decode_references(value: &str, in_attribute: bool) -> Cow<'_, str> {
    if !value.contains('&') {
        return Cow::Borrowed(value);
    }
    let mut decoded = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = memchr::memchr(b'&', rest.as_bytes()) {
        decoded.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match character_reference(after) {
            Some((chars, consumed)) if !(in_attribute && stays_in_attribute(after, consumed)) => {
                decoded.extend(chars.into_iter().flatten());
                rest = &after[consumed..];
            }
            _ => {
                decoded.push('&');
                rest = after;
            }
        }
    }
    decoded.push_str(rest);
    Cow::Owned(decoded)
}

/// Whether the reference of `consumed` bytes at the start of `after` is a named one without
/// its `;` followed by `=` or an ASCII letter or digit: in an attribute it is not decoded.
fn stays_in_attribute(after: &str, consumed: usize) -> bool {
    let named = !after.starts_with('#');
    let terminated = after.as_bytes().get(consumed - 1) == Some(&b';');
    let next = after.as_bytes().get(consumed);
    named && !terminated && next.is_some_and(|b| *b == b'=' || b.is_ascii_alphanumeric())
}

/// `&name;` (or a legacy name without `;`): the longest name in the entity table that `after`
/// starts with. The table holds every prefix of every name, so the search stops at the first
/// character that no name continues with.
fn named_reference(after: &str) -> Option<([Option<char>; 2], usize)> {
    let mut found = None;
    for (at, c) in after.char_indices() {
        let len = at + c.len_utf8();
        match NAMED_ENTITIES.get(&after[..len]) {
            Some(&(0, _)) => {}
            Some(&(first, second)) => found = Some(((first, second), len)),
            None => break,
        }
    }
    let ((first, second), len) = found?;
    Some((
        [
            char::from_u32(first),
            char::from_u32(second).filter(|&c| c != '\0'),
        ],
        len,
    ))
}

/// `&#123;` or `&#x7b;` (the `;` optional), with the replacements of invalid values.
fn numeric_reference(after: &str) -> Option<([Option<char>; 2], usize)> {
    let bytes = after.as_bytes();
    let (base, digits_start) = match bytes.get(1) {
        Some(b'x' | b'X') => (16, 2),
        _ => (10, 1),
    };
    let mut value: u32 = 0;
    let mut too_big = false;
    let mut at = digits_start;
    while let Some(digit) = bytes.get(at).and_then(|&b| char::from(b).to_digit(base)) {
        value = value.wrapping_mul(base);
        if value > 0x10FFFF {
            too_big = true;
        }
        value = value.wrapping_add(digit);
        at += 1;
    }
    if at == digits_start {
        return None;
    }
    if bytes.get(at) == Some(&b';') {
        at += 1;
    }
    let c = match value {
        _ if too_big || value > 0x10FFFF => '\u{fffd}',
        0 | 0xD800..=0xDFFF => '\u{fffd}',
        0x80..=0x9F => C1_REPLACEMENTS[(value - 0x80) as usize]
            .or_else(|| char::from_u32(value))
            .unwrap_or('\u{fffd}'),
        _ => char::from_u32(value).unwrap_or('\u{fffd}'),
    };
    Some(([Some(c), None], at))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use html5ever::TokenizerResult;
    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::states::RawKind;
    use html5ever::tokenizer::{
        BufferQueue, StartTag, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
    };
    use proptest::prelude::*;

    use super::{Counter, TagKind, TextState, word_count};

    /// html5ever's tokenizer with the same counter as its sink: how the count was computed before
    /// it was made linear (html5ever compares each attribute name with all earlier ones of its
    /// tag), kept as the reference the skimmer must match.
    fn html5ever_word_count(html: &str) -> u64 {
        struct Sink(RefCell<Counter>);

        impl TokenSink for Sink {
            type Handle = ();

            fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
                let mut counter = self.0.borrow_mut();
                match token {
                    Token::CharacterTokens(text) => counter.text(&text),
                    Token::TagToken(tag) => {
                        let kind = if tag.kind == StartTag {
                            TagKind::Start
                        } else {
                            TagKind::End
                        };
                        return match counter.tag(kind, tag.name.as_bytes()) {
                            TextState::Data => TokenSinkResult::Continue,
                            TextState::Rcdata { .. } => TokenSinkResult::RawData(RawKind::Rcdata),
                            TextState::Rawtext { .. } => TokenSinkResult::RawData(RawKind::Rawtext),
                            TextState::ScriptData => TokenSinkResult::RawData(RawKind::ScriptData),
                            TextState::Plaintext => TokenSinkResult::Plaintext,
                        };
                    }
                    Token::EOFToken => counter.end_word(),
                    Token::NullCharacterToken
                    | Token::CommentToken(_)
                    | Token::DoctypeToken(_)
                    | Token::ParseError(_) => {}
                }
                TokenSinkResult::Continue
            }
        }

        let input = BufferQueue::default();
        input.push_back(StrTendril::from_slice(html));
        let tokenizer = Tokenizer::new(
            Sink(RefCell::new(Counter::default())),
            TokenizerOpts::default(),
        );
        while !input.is_empty() {
            if let TokenizerResult::Done = tokenizer.feed(&input) {
                break;
            }
        }
        tokenizer.end();
        tokenizer.sink.0.borrow().words
    }

    /// Markup on which a skimmer once counted differently from html5ever (the first eight were
    /// shrunk by a property test): comments closed by `--!>` or opened as `<!-->`/`<!--->`,
    /// raw-text elements whose end tags carry attributes, unterminated tags at the end.
    #[test]
    fn skimmer_counts_tricky_markup_like_html5ever() {
        for (html, words) in [
            ("<!----!><script -->a<p<ptwo words", 0),
            ("<!---><style -->a</p", 0),
            ("<!--<script>--!><p</p-->b", 1),
            ("<textarea ==<p =  ='>'<p", 0),
            ("<p--><!---><p</div]]>", 0),
            ("</script c=\"x y\"==\"'>' a", 0),
            ("<p--><!--><p</p-->", 0),
            ("<title -->x</title/-->", 1),
            ("<script><!--<script></script>x</script>y", 1),
            ("<script><!--<scriptx></script>x", 1),
            ("<script><!--</script>x", 1),
            ("<script><!-- --></script>x", 1),
            ("<textarea>a</textareax>b</TEXTAREA >c", 1),
            ("<xmp>a</xm", 1),
            ("<img alt=\"a>b\" c='d>e' f=g>h", 1),
            ("<img/a/b=c/>x", 1),
            ("a<!DOCTYPE x \"y>z\">b", 1),
            ("a<?php x?>b", 1),
            ("a</ x>b", 1),
            ("a&#x41;&#66&#0;&#x110000;&#128;b", 1),
            ("&amp&ampx &notin; &notit; &#; &#x; &", 3),
        ] {
            assert_eq!(html5ever_word_count(html), words, "reference, {html:?}");
            assert_eq!(word_count(html), words, "{html:?}");
        }
    }

    /// Pieces of markup that exercise every tokenizer state the count depends on.
    const PIECES: &[&str] = &[
        "<!--",
        "-->",
        "--!>",
        "<!-->",
        "<!--->",
        "<!-",
        "<!",
        "-",
        "--",
        "!",
        "<!DOCTYPE",
        "<?",
        "]]>",
        "<![CDATA[",
        "<script",
        "</script",
        "<SCRIPT",
        "</SCRIPT",
        "<!--<script>",
        "<style",
        "</style",
        "<textarea",
        "</textarea",
        "<title",
        "</title",
        "<xmp",
        "</xmp",
        "<noscript",
        "</noscript",
        "<template",
        "</template",
        "<plaintext",
        "<p",
        "</p",
        "<br",
        "<div",
        "</div",
        "<b",
        "</b",
        "<",
        "</",
        ">",
        "/",
        "/>",
        " ",
        "\n",
        "\r",
        "\t",
        "=",
        "==",
        "\"",
        "'",
        "'>'",
        " a",
        " c=\"x y\"",
        "a=b",
        "&amp;",
        "&amp",
        "&notin",
        "&not",
        "&#x41;",
        "&#65",
        "&#",
        "&#x",
        "&#0;",
        "&#128;",
        "&",
        ";",
        "two words",
        "x",
        "1",
        "é",
        "\u{a0}",
        "—",
        "\0",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn skimmer_counts_markup_pieces_like_html5ever(
            pieces in prop::collection::vec(prop::sample::select(PIECES), 0..40)
        ) {
            let html = pieces.concat();
            prop_assert_eq!(word_count(&html), html5ever_word_count(&html), "{:?}", html);
        }

        #[test]
        fn skimmer_counts_any_string_like_html5ever(html in any::<String>()) {
            prop_assert_eq!(word_count(&html), html5ever_word_count(&html), "{:?}", html);
        }

        #[test]
        fn skimmer_counts_markup_like_input_like_html5ever(
            html in r#"(<(/?)(script|style|template|noscript|title|textarea|p|b|br|plaintext)( a="x"| b='>'| c=d)?/?>|<!--|-->|--!>|&[a-z#0-9]*;?|[ a-z—\u{a0}<>&/!='"-]){0,40}"#
        ) {
            prop_assert_eq!(word_count(&html), html5ever_word_count(&html), "{:?}", html);
        }
    }

    #[test]
    fn plain_words_are_counted() {
        assert_eq!(word_count("one two  three\nfour\tfive"), 5);
        assert_eq!(word_count("  leading and trailing  "), 3);
    }

    #[test]
    fn empty_input_has_no_words() {
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("   \n\t "), 0);
        assert_eq!(word_count("<p></p><div><br></div>"), 0);
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(word_count("caf&eacute; &amp; bar"), 2);
        assert_eq!(word_count("a&nbsp;b"), 2);
        assert_eq!(word_count("a&#32;b&#x20;c"), 3);
        // A decoded letter joins its neighbours into one word.
        assert_eq!(word_count("na&iuml;ve"), 1);
        // An entity that decodes to punctuation only is no word.
        assert_eq!(word_count("&amp;"), 0);
    }

    #[test]
    fn nbsp_separates_words() {
        assert_eq!(word_count("a\u{a0}b"), 2);
        assert_eq!(word_count("a\u{2003}b\u{3000}c"), 3);
    }

    #[test]
    fn script_is_not_counted() {
        assert_eq!(word_count("a <script>var x = 'one two';</script> b"), 2);
        // The script's raw text may hold markup-looking strings; they are still script.
        assert_eq!(
            word_count("<script>document.write('<p>hi</p>')</script>ok"),
            1
        );
        assert_eq!(
            word_count("<script><!--<script>x</script>y--></script>ok"),
            1
        );
        assert_eq!(word_count("<SCRIPT type=text/javascript>x y</SCRIPT>z"), 1);
    }

    #[test]
    fn style_is_not_counted() {
        assert_eq!(word_count("<style>p { color: red }</style>text"), 1);
        assert_eq!(word_count("<style></p>a b</style>c"), 1);
    }

    #[test]
    fn template_is_not_counted() {
        assert_eq!(
            word_count("<template><p>hidden words</p></template>shown"),
            1
        );
        assert_eq!(
            word_count("<template><template>x</template>y</template>z"),
            1
        );
        // A script inside a template keeps its raw-text tokenization: the `</template>` in it is
        // script text and does not close the template.
        assert_eq!(
            word_count("<template><script></template></script>x</template>y"),
            1
        );
        // Block boundaries inside the template belong to its content, not to the document.
        assert_eq!(word_count("a<template><p></template>b"), 1);
        // A stray end tag does not make the depth go negative.
        assert_eq!(word_count("</template>a <template>b</template> c"), 2);
    }

    #[test]
    fn noscript_is_not_counted() {
        assert_eq!(word_count("<noscript>enable js</noscript>text"), 1);
        assert_eq!(word_count("<noscript><p>enable js</p></noscript>text"), 1);
    }

    #[test]
    fn comments_are_not_counted() {
        assert_eq!(word_count("a <!-- hidden words --> b"), 2);
        assert_eq!(word_count("<!---->x<!-- <p>y</p> -->"), 1);
        assert_eq!(word_count("<!DOCTYPE html>x"), 1);
    }

    #[test]
    fn block_boundaries_separate_words() {
        assert_eq!(word_count("<p>a</p><p>b</p>"), 2);
        assert_eq!(word_count("a<br>b"), 2);
        assert_eq!(word_count("a<br/>b</br>c"), 3);
        assert_eq!(word_count("<ul><li>a</li><li>b</li></ul>"), 2);
        assert_eq!(word_count("<h2>a</h2>b"), 2);
        assert_eq!(
            word_count("<table><tr><td>a</td><td>b</td></tr></table>"),
            2
        );
        assert_eq!(word_count("a<hr>b"), 2);
        assert_eq!(word_count("a<div>b</div>c"), 3);
        assert_eq!(word_count("<dl><dt>a</dt><dd>b</dd></dl>"), 2);
        assert_eq!(word_count("a<blockquote>b</blockquote>c"), 3);
        assert_eq!(
            word_count("<figure>a<figcaption>b</figcaption></figure>"),
            2
        );
        // End tags count as boundaries even when unmatched; tag names are case-insensitive.
        assert_eq!(word_count("a</P>b<LI>c"), 3);
    }

    #[test]
    fn inline_elements_do_not_separate_words() {
        assert_eq!(word_count("<b>wo</b>rd"), 1);
        assert_eq!(word_count("<a href=x>li</a>nk"), 1);
        assert_eq!(word_count("<em>a</em><strong>b</strong><span>c</span>"), 1);
        assert_eq!(word_count("un<img src=x>broken"), 1);
        // Removed text and comments neither separate nor join.
        assert_eq!(word_count("a<!-- -->b"), 1);
        assert_eq!(word_count("a<script> </script>b"), 1);
    }

    #[test]
    fn punctuation_only_tokens_are_not_words() {
        assert_eq!(word_count("a — b"), 2);
        assert_eq!(word_count("..."), 0);
        assert_eq!(word_count("a &mdash; b"), 2);
        assert_eq!(word_count("— … · ! ?"), 0);
        assert_eq!(word_count("(1)"), 1);
    }

    #[test]
    fn apostrophes_and_hyphens_stay_inside_words() {
        assert_eq!(word_count("don't"), 1);
        assert_eq!(word_count("state-of-the-art"), 1);
        assert_eq!(word_count("it&rsquo;s"), 1);
        assert_eq!(word_count("a—b"), 1);
    }

    #[test]
    fn non_ascii_words_are_counted() {
        // A run of CJK characters with no white space is one run, so one word.
        assert_eq!(word_count("日本語のテキスト"), 1);
        assert_eq!(word_count("日本語 テキスト"), 2);
        assert_eq!(word_count("café naïve Ωμέγα"), 3);
        assert_eq!(word_count("in 2026"), 2);
        assert_eq!(word_count("٣٤٥"), 1);
    }

    #[test]
    fn attribute_values_are_never_counted() {
        assert_eq!(word_count(r#"<img alt="two words">"#), 0);
        assert_eq!(
            word_count(r#"<a href="x" title="many more words">link</a>"#),
            1
        );
        assert_eq!(word_count(r#"<p class="a b c" data-x='d e'>f</p>"#), 1);
    }

    #[test]
    fn raw_text_elements_that_are_text_are_counted() {
        assert_eq!(word_count("<textarea><p>a &amp; b</p></textarea>"), 2);
        assert_eq!(word_count("<xmp><b>x</b> &amp;</xmp>"), 2);
        assert_eq!(word_count("<plaintext></plaintext> a <script>b"), 3);
    }

    #[test]
    fn malformed_markup_is_handled() {
        assert_eq!(word_count("<p>a<b>b</p>c</b>"), 2);
        assert_eq!(word_count("a < b"), 2);
        assert_eq!(word_count("a <b"), 1);
        assert_eq!(word_count("<p>unterminated <!-- comment"), 1);
        assert_eq!(word_count("x</>y"), 1);
        assert_eq!(word_count("&notanentity; &amp"), 1);
        assert_eq!(word_count("<<<>>> a"), 1);
        assert_eq!(word_count("a\0b"), 1);
        // Input that ends inside a character reference or a tag.
        assert_eq!(word_count("x caf&eacut"), 2);
        assert_eq!(word_count("a &amp"), 1);
        assert_eq!(word_count("y <a"), 1);
        assert_eq!(word_count("<p attr=\"unterminated>text"), 0);
    }

    #[test]
    fn unclosed_script_hides_the_rest() {
        assert_eq!(word_count("before <script> never closed <p>after</p>"), 1);
        assert_eq!(word_count("a<style>b"), 1);
        assert_eq!(word_count("a<template><p>b"), 1);
        assert_eq!(word_count("a<noscript>b"), 1);
        // `<script/>` is not self-closing in HTML.
        assert_eq!(word_count("a <script src=x /> b"), 1);
    }

    fn simple_count(text: &str) -> u64 {
        let words = text
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count();
        u64::try_from(words).expect("word count fits in u64")
    }

    proptest! {
        #[test]
        fn never_panics(html in any::<String>()) {
            let _ = word_count(&html);
        }

        #[test]
        fn never_panics_on_markup_like_input(
            html in r#"(<(/?)(script|style|template|noscript|p|b|br|textarea|plaintext)( a="x")?/?>|<!--|-->|&[a-z]*;?|[ a-z—\u{a0}<>&/!-]){0,40}"#
        ) {
            let _ = word_count(&html);
        }

        #[test]
        fn plain_text_counts_like_split_whitespace(text in "[^<&]*") {
            prop_assert_eq!(word_count(&text), simple_count(&text));
        }
    }
}
