//! The images a post's body shows: the `src` of each `<img>` start tag, as a browser reads the
//! body (what the media usage of a post is kept from, `docs/media.md#usage`).
//!
//! The body is walked by the word count's skimmer (`word_count::skim`: the tokenizer's states
//! with the scanning pieces of `blogread_markup::html`), so a tag inside a comment, a
//! `<script>` or a `<textarea>` is no image, and the walk takes time linear in the body
//! whatever it holds. A browser's tree builder turns `<image>` into `<img>`; so does this.

use std::ops::Range;

use blogread_markup::html::{TagKind, TextState, text_state_after};

use crate::word_count::{Skimmer, decode_references, skim};

/// The `src` of every `<img>` of `html`, in body order, character references decoded and
/// leading and trailing ASCII white space removed (as a browser reads a URL). An `<img>`
/// without `src` gives nothing.
pub fn image_sources(html: &str) -> Vec<String> {
    let mut reader = Sources {
        html,
        found: Vec::new(),
    };
    skim(html, &mut reader);
    reader.found
}

/// The skimmer that keeps the sources.
struct Sources<'a> {
    html: &'a str,
    found: Vec<String>,
}

impl Skimmer for Sources<'_> {
    fn text(&mut self, _text: &str) {}

    fn text_with_references(&mut self, _text: &str) {}

    fn tag(&mut self, kind: TagKind, name: &[u8], src: Option<Range<usize>>) -> TextState {
        if kind == TagKind::End {
            return TextState::Data;
        }
        if matches!(name, b"img" | b"image")
            && let Some(value) = src.and_then(|range| self.html.get(range))
        {
            let url = decode_references(value, true);
            let url = url.trim_matches(|c: char| c.is_ascii_whitespace());
            if !url.is_empty() {
                self.found.push(url.to_owned());
            }
        }
        text_state_after(name)
    }
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

    use super::image_sources;

    #[test]
    fn the_sources_of_img_tags_are_found_in_body_order() {
        let body = r#"<p>Hi <img alt=x src="https://a.example/1.jpg"></p><IMG SRC=/2.png>
            <img src='  https://a.example/3.jpg?a=1&amp;b=2 '><img alt=none><image src="4.jpg">"#;
        assert_eq!(
            image_sources(body),
            [
                "https://a.example/1.jpg",
                "/2.png",
                "https://a.example/3.jpg?a=1&b=2",
                "4.jpg"
            ]
        );
    }

    #[test]
    fn images_in_comments_raw_text_and_other_attributes_are_not_images() {
        let body = r#"<!-- <img src=a.jpg> --><script>"<img src=b.jpg>"</script>
            <textarea><img src=c.jpg></textarea><a href="d.jpg" data-src="e.jpg">x</a>
            <img data-src=f.jpg><img src=g.jpg src=h.jpg>"#;
        assert_eq!(image_sources(body), ["g.jpg"]);
    }

    #[test]
    fn a_legacy_reference_before_an_equals_sign_stays_as_written_in_a_src() {
        assert_eq!(
            image_sources("<img src=\"x?a&copy=1&copy;\">"),
            ["x?a&copy=1\u{a9}"]
        );
    }

    /// The `src` of each `img` start tag as html5ever's tokenizer reads it (switching to the
    /// raw-text states the tree builder would), the reference the skimmer must match.
    fn html5ever_sources(html: &str) -> Vec<String> {
        struct Sink(RefCell<Vec<String>>);

        impl TokenSink for Sink {
            type Handle = ();

            fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
                let Token::TagToken(tag) = token else {
                    return TokenSinkResult::Continue;
                };
                if tag.kind != StartTag {
                    return TokenSinkResult::Continue;
                }
                let name: &str = &tag.name;
                if matches!(name, "img" | "image")
                    && let Some(src) = tag.attrs.iter().find(|a| &*a.name.local == "src")
                {
                    let url = src.value.trim_matches(|c: char| c.is_ascii_whitespace());
                    if !url.is_empty() {
                        self.0.borrow_mut().push(url.to_owned());
                    }
                }
                match blogread_markup::html::text_state_after(name.as_bytes()) {
                    blogread_markup::html::TextState::Data => TokenSinkResult::Continue,
                    blogread_markup::html::TextState::Rcdata { .. } => {
                        TokenSinkResult::RawData(RawKind::Rcdata)
                    }
                    blogread_markup::html::TextState::Rawtext { .. } => {
                        TokenSinkResult::RawData(RawKind::Rawtext)
                    }
                    blogread_markup::html::TextState::ScriptData => {
                        TokenSinkResult::RawData(RawKind::ScriptData)
                    }
                    blogread_markup::html::TextState::Plaintext => TokenSinkResult::Plaintext,
                }
            }
        }

        let tokenizer = Tokenizer::new(Sink(RefCell::new(Vec::new())), TokenizerOpts::default());
        let input = BufferQueue::default();
        input.push_back(StrTendril::from_slice(html));
        while let TokenizerResult::Script(()) = tokenizer.feed(&input) {}
        tokenizer.end();
        tokenizer.sink.0.take()
    }

    proptest! {
        #[test]
        fn the_sources_are_those_a_browser_tokenizer_reads(
            parts in proptest::collection::vec(
                proptest::sample::select(&[
                    "<img src=a.jpg>", "<IMG alt=x SRC='b.jpg'>", "<img src=\"c&amp;d.jpg\">",
                    "<img src=e.jpg src=f.jpg>", "<img", "<!--", "-->", "<script>", "</script>",
                    "<textarea>", "</textarea>", "<style>", "</style>", "<p>", "text", "&", "\"",
                    "'", ">", "<", "/", "<image src=g.png>", "<img src= h.jpg >", "=", " ",
                    "<img src=\"&copy=1\">", "<title>", "</title>", "<plaintext>",
                ][..]),
                0..24,
            )
        ) {
            let body: String = parts.concat();
            prop_assert_eq!(image_sources(&body), html5ever_sources(&body));
        }
    }

    #[test]
    fn a_body_of_many_tags_or_attributes_is_read_in_one_pass() {
        // Quadratic work (each attribute compared with the earlier ones) would take minutes.
        let body = "<img src=a.jpg alt=b title=c>".repeat(50_000);
        assert_eq!(image_sources(&body).len(), 50_000);
        let wide = format!("<img {} src=x.jpg>", "a=b ".repeat(200_000));
        assert_eq!(image_sources(&wide), ["x.jpg"]);
    }
}
