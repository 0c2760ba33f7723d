//! The `word_count` of a blog post (SPEC.md 2.2), counted per DECISIONS.md section 5.
//!
//! The body is run through html5ever's tokenizer, so entities, raw-text elements and malformed
//! markup are handled as a browser would. The sink plays the small part of the tree builder the
//! count depends on: it switches the tokenizer into the raw-text states for the elements a tree
//! builder would (`<script>`, `<style>`, `<textarea>`, ...), it drops the text of `<script>`,
//! `<style>`, `<noscript>` and everything inside `<template>`, and it ends the current word at the
//! start and end tags of block elements. Words are counted as the text streams by; nothing is
//! buffered per word.

use std::cell::Cell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, EndTag, StartTag, Tag, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{LocalName, TokenizerResult, local_name};

/// Counts the words of an HTML body per DECISIONS.md section 5.
///
/// A word is a maximal run of characters that are not Unicode white space (`char::is_whitespace`,
/// so NBSP separates) and that holds at least one letter or digit (`char::is_alphanumeric`).
/// Entities are decoded first. The text of `<script>`, `<style>`, `<noscript>`, `<template>`
/// and comments is not counted, nor are attribute values. Block element boundaries (`<p>`,
/// `<li>`, `<br>`, ...) separate words; inline elements do not, so `<b>wo</b>rd` is one word.
///
/// Never panics; any string is accepted.
pub fn word_count(html: &str) -> u64 {
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let tokenizer = Tokenizer::new(Counter::default(), TokenizerOpts::default());
    // The sink never answers `Script`, so a single feed consumes the whole input; the loop only
    // guards against a future html5ever stopping early for another reason.
    while !input.is_empty() {
        if let TokenizerResult::Done = tokenizer.feed(&input) {
            break;
        }
    }
    tokenizer.end();
    tokenizer.sink.words.get()
}

/// The token sink: a word counter that also tracks which text is not counted.
#[derive(Default)]
struct Counter {
    /// Words counted so far.
    words: Cell<u64>,
    /// The current run of non-white-space characters already holds a letter or digit and has
    /// been counted.
    counted_run: Cell<bool>,
    /// Inside the raw text of a `<script>`, `<style>` or `<noscript>`.
    in_ignored_raw_text: Cell<bool>,
    /// Number of `<template>` elements open: their content is not part of the document text.
    template_depth: Cell<u32>,
}

impl Counter {
    fn counting(&self) -> bool {
        !self.in_ignored_raw_text.get() && self.template_depth.get() == 0
    }

    fn end_word(&self) {
        self.counted_run.set(false);
    }

    fn text(&self, text: &str) {
        if !self.counting() {
            return;
        }
        let mut words = self.words.get();
        let mut counted_run = self.counted_run.get();
        for c in text.chars() {
            if c.is_whitespace() {
                counted_run = false;
            } else if !counted_run && c.is_alphanumeric() {
                words += 1;
                counted_run = true;
            }
        }
        self.words.set(words);
        self.counted_run.set(counted_run);
    }

    fn tag(&self, tag: &Tag) -> TokenSinkResult<()> {
        if self.in_ignored_raw_text.get() {
            // In a raw-text state the tokenizer emits only the end tag that closes the element
            // (`</script>` after `<script>`); anything else in there arrived as characters.
            if tag.kind == EndTag {
                self.in_ignored_raw_text.set(false);
            }
            return TokenSinkResult::Continue;
        }

        if tag.name == local_name!("template") {
            let depth = self.template_depth.get();
            self.template_depth.set(match tag.kind {
                StartTag => depth.saturating_add(1),
                EndTag => depth.saturating_sub(1),
            });
            return TokenSinkResult::Continue;
        }

        if self.template_depth.get() == 0 && is_block_boundary(&tag.name) {
            self.end_word();
        }

        if tag.kind == EndTag {
            return TokenSinkResult::Continue;
        }
        // The switches a tree builder makes on these start tags (HTML namespace, scripting
        // enabled, so `<noscript>` is raw text). The self-closing flag is ignored, as browsers
        // ignore it on HTML elements: `<script/>` still runs to `</script>`.
        match raw_kind(&tag.name) {
            Some((kind, counted)) => {
                if !counted {
                    self.in_ignored_raw_text.set(true);
                }
                TokenSinkResult::RawData(kind)
            }
            None if tag.name == local_name!("plaintext") => TokenSinkResult::Plaintext,
            None => TokenSinkResult::Continue,
        }
    }
}

impl TokenSink for Counter {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        match token {
            Token::CharacterTokens(text) => self.text(&text),
            Token::TagToken(tag) => return self.tag(&tag),
            // U+0000 in data is dropped by the tree builder: it neither joins nor splits words.
            // Comments, doctypes and parse errors hold no document text.
            Token::NullCharacterToken
            | Token::CommentToken(_)
            | Token::DoctypeToken(_)
            | Token::ParseError(_) => {}
            Token::EOFToken => self.end_word(),
        }
        TokenSinkResult::Continue
    }
}

/// The tokenizer state a tree builder enters after this start tag, and whether its text is
/// counted.
fn raw_kind(name: &LocalName) -> Option<(RawKind, bool)> {
    Some(match *name {
        local_name!("script") => (RawKind::ScriptData, false),
        local_name!("style") | local_name!("noscript") => (RawKind::Rawtext, false),
        local_name!("xmp")
        | local_name!("iframe")
        | local_name!("noembed")
        | local_name!("noframes") => (RawKind::Rawtext, true),
        local_name!("textarea") | local_name!("title") => (RawKind::Rcdata, true),
        _ => return None,
    })
}

/// Elements whose start and end tags separate words (DECISIONS.md section 5).
fn is_block_boundary(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("p")
            | local_name!("div")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("ul")
            | local_name!("ol")
            | local_name!("li")
            | local_name!("dl")
            | local_name!("dt")
            | local_name!("dd")
            | local_name!("table")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("caption")
            | local_name!("blockquote")
            | local_name!("pre")
            | local_name!("figure")
            | local_name!("figcaption")
            | local_name!("section")
            | local_name!("article")
            | local_name!("header")
            | local_name!("footer")
            | local_name!("nav")
            | local_name!("aside")
            | local_name!("main")
            | local_name!("hr")
            | local_name!("br")
    )
}

#[cfg(test)]
mod tests {
    use super::word_count;
    use proptest::prelude::*;

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
