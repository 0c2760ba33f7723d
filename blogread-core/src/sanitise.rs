//! The sanitiser of post previews: an author's HTML made fit to show to someone who trusts
//! the page it is shown in (the operator, on the admin pages), by an allowlist.
//!
//! What is kept: the elements of an ordinary post (headings, paragraphs, lists, tables,
//! quotes, links, images, inline formatting; the tag list of the ammonia sanitiser's
//! defaults), with the attributes each needs (`href`, `src`, `alt`, `title`, `lang`, inline
//! `style`, table spans...). URLs in `href`, `src` and `cite` must be relative or use `http`,
//! `https` or `mailto` (judged as a browser parses them, character references decoded), and
//! every link gets `rel="noopener noreferrer"`. Everything else goes: elements that load,
//! submit, navigate or run anything (`meta`, `base`, `link`, `form` and every form control,
//! `iframe`, `object`, `embed`, `style`, `script`, SVG and MathML...), with their content
//! when it is not text a reader sees; comments; the doctype; event handlers and any other
//! attribute. Formatting elements (`b`, `i`, `em`...) keep no attribute, so a browser's
//! reconstruction of them cannot be made to multiply (at most three alike are reopened).
//!
//! # Why not a tree-building sanitiser
//!
//! ammonia (html5ever's tree builder) is the usual choice, but its cost is not linear in the
//! body: 200 KB of nested `<div>` took 3.9 s (quadratic: each start tag scans the stack of
//! open elements), and `<div><b title="n"></div>` repeated 8,000 times (220 KB) built a 224 MB
//! document in 31 s (the tree builder reopens every distinct formatting element it has seen).
//! A body may hold 2 MiB, from an author the admin pages do not trust. This sanitiser is a
//! `lol_html` streaming pass (the rewriter of link resolution): no tree, time linear in the
//! body, output at most the body plus a few bytes a link. In strict mode `lol_html` stops
//! where it cannot tell how a browser would read the text (content whose parsing depends on
//! tree-builder state it does not model); the preview then shows the HTML source as text.
//!
//! The sanitiser is one of two walls: the admin pages also show the preview in a sandboxed
//! frame whose policy forbids script, forms and navigation (see `docs/admin-pages.md`).

use std::borrow::Cow;

use lol_html::html_content::{Comment, ContentType, Doctype, Element, TextChunk};
use lol_html::{HtmlRewriter, Settings, doc_comments, doc_text, doctype, element};

/// Elements kept, with their allowed attributes besides [`GENERIC_ATTRIBUTES`].
const KEPT: &[(&str, &[&str])] = &[
    ("a", &["href", "hreflang"]),
    ("abbr", &[]),
    ("acronym", &[]),
    ("area", &["alt", "coords", "shape", "href"]),
    ("article", &[]),
    ("aside", &[]),
    ("b", &[]),
    ("bdi", &[]),
    ("bdo", &["dir"]),
    ("blockquote", &["cite"]),
    ("br", &[]),
    ("caption", &[]),
    ("center", &[]),
    ("cite", &[]),
    ("code", &[]),
    ("col", &["align", "char", "charoff", "span"]),
    ("colgroup", &["align", "char", "charoff", "span"]),
    ("data", &["value"]),
    ("dd", &[]),
    ("del", &["cite", "datetime"]),
    ("details", &[]),
    ("dfn", &[]),
    ("div", &[]),
    ("dl", &[]),
    ("dt", &[]),
    ("em", &[]),
    ("figcaption", &[]),
    ("figure", &[]),
    ("footer", &[]),
    ("h1", &[]),
    ("h2", &[]),
    ("h3", &[]),
    ("h4", &[]),
    ("h5", &[]),
    ("h6", &[]),
    ("header", &[]),
    ("hgroup", &[]),
    ("hr", &["align", "size", "width"]),
    ("i", &[]),
    ("img", &["align", "alt", "height", "src", "width"]),
    ("ins", &["cite", "datetime"]),
    ("kbd", &[]),
    ("li", &[]),
    ("map", &["name"]),
    ("mark", &[]),
    ("nav", &[]),
    ("ol", &["start"]),
    ("p", &[]),
    ("pre", &[]),
    ("q", &["cite"]),
    ("rp", &[]),
    ("rt", &[]),
    ("rtc", &[]),
    ("ruby", &[]),
    ("s", &[]),
    ("samp", &[]),
    ("small", &[]),
    ("span", &[]),
    ("strike", &[]),
    ("strong", &[]),
    ("sub", &[]),
    ("summary", &[]),
    ("sup", &[]),
    ("table", &["align", "char", "charoff", "summary"]),
    ("tbody", &["align", "char", "charoff"]),
    (
        "td",
        &["align", "char", "charoff", "colspan", "headers", "rowspan"],
    ),
    ("tfoot", &["align", "char", "charoff"]),
    (
        "th",
        &[
            "align", "char", "charoff", "colspan", "headers", "rowspan", "scope",
        ],
    ),
    ("thead", &["align", "char", "charoff"]),
    ("time", &["datetime"]),
    ("tr", &["align", "char", "charoff"]),
    ("tt", &[]),
    ("u", &[]),
    ("ul", &[]),
    ("var", &[]),
    ("wbr", &[]),
];

/// Attributes any kept element may have (but the formatting elements).
const GENERIC_ATTRIBUTES: &[&str] = &["lang", "title", "style"];

/// The formatting elements of the HTML parser (but `a`, of which a browser reopens at most
/// one): kept without attributes, so that at most three alike are ever reopened.
const FORMATTING: &[&str] = &[
    "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Elements removed with their content: what a reader does not see as text (scripts, styles,
/// raw text, embedded documents and plug-ins, form controls, metadata, foreign content).
const REMOVED_WITH_CONTENT: &[&str] = &[
    "applet",
    "audio",
    "base",
    "basefont",
    "button",
    "canvas",
    "datalist",
    "dialog",
    "embed",
    "frame",
    "frameset",
    "head",
    "iframe",
    "input",
    "link",
    "math",
    "meta",
    "meter",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "optgroup",
    "option",
    "output",
    "param",
    "picture",
    "plaintext",
    "portal",
    "progress",
    "script",
    "select",
    "source",
    "style",
    "svg",
    "template",
    "textarea",
    "title",
    "track",
    "video",
    "xmp",
];

/// Attributes whose value is a URL.
const URL_ATTRIBUTES: &[&str] = &["href", "src", "cite"];

/// URL schemes a kept URL may have.
const SCHEMES: &[&str] = &["http", "https", "mailto"];

/// An element with more attributes than this loses its tags (a post's have a handful).
const MAX_ATTRIBUTES: usize = 64;

/// `html` as it is safe to show (see the module docs). Never panics; time linear in `html`.
pub fn preview_html(html: &str) -> String {
    let mut output = Vec::with_capacity(html.len() + 64);
    let settings = Settings::new()
        // Stop, rather than guess, where the text's meaning depends on what is not modelled.
        .with_strict(true)
        .append_element_content_handler(element!("*", |el: &mut Element<'_, '_>| {
            clean_element(el);
            Ok(())
        }))
        .append_document_content_handler(doc_comments!(|c: &mut Comment<'_>| {
            c.remove();
            Ok(())
        }))
        // A `<` or `>` a browser read as text stays text once what stood between it and the
        // next text is removed (`<` + a removed `<meta>` + `p>` must not become a tag).
        .append_document_content_handler(doc_text!(|t: &mut TextChunk<'_>| {
            if t.as_str().contains(['<', '>']) {
                let escaped = t.as_str().replace('<', "&lt;").replace('>', "&gt;");
                t.replace(&escaped, ContentType::Html);
            }
            Ok(())
        }))
        .append_document_content_handler(doctype!(|d: &mut Doctype<'_>| {
            d.remove();
            Ok(())
        }));
    let mut rewriter = HtmlRewriter::new(settings, |bytes: &[u8]| output.extend_from_slice(bytes));
    let done = rewriter
        .write(html.as_bytes())
        .and_then(|()| rewriter.end());
    match done {
        Ok(()) => String::from_utf8(output)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(_) => as_source(html),
    }
}

/// The HTML source of `html` as text to show, for a body the sanitiser would not guess about.
fn as_source(html: &str) -> String {
    let mut shown = String::with_capacity(html.len() + 128);
    shown.push_str(
        "<p><strong>This post's markup cannot be previewed safely; its HTML source is shown \
         instead.</strong></p><pre>",
    );
    for c in html.chars() {
        match c {
            '&' => shown.push_str("&amp;"),
            '<' => shown.push_str("&lt;"),
            '>' => shown.push_str("&gt;"),
            c => shown.push(c),
        }
    }
    shown.push_str("</pre>");
    shown
}

fn clean_element(el: &mut Element<'_, '_>) {
    if el.removed() {
        return;
    }
    let name = el.tag_name();
    if el.namespace_uri() != "http://www.w3.org/1999/xhtml" {
        el.remove();
        return;
    }
    let Some((_, allowed)) = KEPT.iter().find(|(kept, _)| *kept == name) else {
        if REMOVED_WITH_CONTENT.contains(&name.as_str()) {
            el.remove();
        } else {
            el.remove_and_keep_content();
        }
        return;
    };
    if el.attributes().len() > MAX_ATTRIBUTES {
        el.remove_and_keep_content();
        return;
    }
    let formatting = FORMATTING.contains(&name.as_str());
    let allowed_name =
        |n: &str| !formatting && (allowed.contains(&n) || GENERIC_ATTRIBUTES.contains(&n));
    let unwanted: Vec<String> = el
        .attributes()
        .iter()
        .filter(|attribute| {
            let name = attribute.name();
            !allowed_name(&name)
                || (URL_ATTRIBUTES.contains(&name.as_str()) && !url_allowed(&attribute.value()))
        })
        .map(|attribute| attribute.name())
        .collect();
    for attribute in unwanted {
        el.remove_attribute(&attribute);
    }
    // A name that is not a valid attribute name (`=x`, `<x`) cannot be removed by name:
    // then the element's tags go, its content stays.
    if !el.attributes().iter().all(|a| allowed_name(&a.name())) {
        el.remove_and_keep_content();
        return;
    }
    if name == "a" || name == "area" {
        // Only fails for an invalid name, which this is not.
        let _ = el.set_attribute("rel", "noopener noreferrer");
    }
}

/// Whether a URL attribute's `value` (as written, character references not decoded) is a
/// relative URL or one of [`SCHEMES`], judged as a browser reads it.
fn url_allowed(value: &str) -> bool {
    let decoded = decode_references(value);
    match url::Url::parse(&decoded) {
        Ok(url) => SCHEMES.contains(&url.scheme()),
        Err(url::ParseError::RelativeUrlWithoutBase) => true,
        Err(_) => false,
    }
}

/// `value` with every character reference decoded (more of them than a browser decodes in an
/// attribute, which can only make [`url_allowed`] stricter).
fn decode_references(value: &str) -> Cow<'_, str> {
    if !value.contains('&') {
        return Cow::Borrowed(value);
    }
    let mut decoded = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        decoded.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match crate::word_count::character_reference(after) {
            Some((chars, consumed)) => {
                decoded.extend(chars.into_iter().flatten());
                rest = &after[consumed..];
            }
            None => {
                decoded.push('&');
                rest = after;
            }
        }
    }
    decoded.push_str(rest);
    Cow::Owned(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_keeps_text_links_images_tables_and_inline_styles() {
        let body = "<h2>Title</h2><p style=\"color: red\">Hello <b>world</b> &amp; \
             <a href=\"https://example.com/blog/x/\">a link</a></p>\
             <img src=\"https://example.com/a.png\" alt=\"A\">\
             <table><tr><td colspan=\"2\">cell</td></tr></table><ul><li>one</li></ul>";
        let shown = preview_html(body);
        assert!(shown.contains("<h2>Title</h2>"), "{shown}");
        assert!(
            shown.contains("<p style=\"color: red\">Hello <b>world</b> &amp; "),
            "{shown}"
        );
        assert!(
            shown.contains(
                "<a href=\"https://example.com/blog/x/\" rel=\"noopener noreferrer\">a link</a>"
            ),
            "{shown}"
        );
        assert!(
            shown.contains("<img src=\"https://example.com/a.png\" alt=\"A\">"),
            "{shown}"
        );
        assert!(shown.contains("<td colspan=\"2\">cell</td>"), "{shown}");
        assert!(shown.contains("<ul><li>one</li></ul>"), "{shown}");
    }

    #[test]
    fn a_preview_drops_every_element_that_loads_submits_navigates_or_runs() {
        let attack = "<meta http-equiv=\"refresh\" content=\"0;url=http://other-host/phish\">\
            <base href=\"http://other-host/\"><link rel=\"stylesheet\" href=\"http://x/\">\
            <form method=\"post\" action=\"/admin/projects/p/key/revoke\">\
            <input type=\"hidden\" name=\"confirm\" value=\"yes\">\
            <input type=\"password\" name=\"token\"><textarea name=\"t\">typed</textarea>\
            <select name=\"s\"><option>o</option></select>\
            <button>Continue reading</button></form>\
            <iframe src=\"/admin/\"></iframe><object data=\"x\"></object><embed src=\"x\">\
            <style>body{display:none}</style><script>alert(1)</script>\
            <svg><script>alert(2)</script></svg><math><mi>x</mi></math>\
            <template><p>t</p></template><noscript><p>n</p></noscript>\
            <p onclick=\"alert(3)\" formaction=\"/x\">text</p><!-- a comment -->";
        let shown = preview_html(attack).to_ascii_lowercase();
        for tag in [
            "<meta",
            "<base",
            "<link",
            "<form",
            "<input",
            "<button",
            "<textarea",
            "<select",
            "<option",
            "<iframe",
            "<object",
            "<embed",
            "<style",
            "<script",
            "<svg",
            "<math",
            "<template",
            "<noscript",
            "<!--",
        ] {
            assert!(!shown.contains(tag), "{tag} in {shown}");
        }
        for gone in [
            "onclick",
            "formaction",
            "http-equiv",
            "alert(",
            "continue reading",
            "typed",
        ] {
            assert!(!shown.contains(gone), "{gone} in {shown}");
        }
        assert!(shown.contains("<p>text</p>"), "{shown}");
    }

    #[test]
    fn a_preview_keeps_only_relative_http_https_and_mailto_urls() {
        let shown = preview_html(
            "<a href=\"javascript:alert(1)\">j</a><a href=\"data:text/html,x\">d</a>\
             <a href=\"mailto:a@example.com\">m</a><a href=\"http://example.com/\">h</a>\
             <a href=\"/blog/x/\">r</a><img src=\"data:image/png;base64,AAAA\" alt=\"i\">\
             <a href=\"vbscript:x\">v</a><a href=\"  JaVaScRiPt:alert(1)\">k</a>\
             <a href=\"&#106;avascript:alert(1)\">e</a><a href=\"java&#x09;script:alert(1)\">t</a>\
             <a href=\"jav&Tab;ascript:alert(1)\">n</a><blockquote cite=\"javascript:x\">q</blockquote>",
        );
        let lower = shown.to_ascii_lowercase();
        for gone in [
            "javascript",
            "&#106;",
            "data:",
            "vbscript",
            "&tab;",
            "&#x09;",
        ] {
            assert!(!lower.contains(gone), "{gone} in {shown}");
        }
        assert!(shown.contains("href=\"mailto:a@example.com\""), "{shown}");
        assert!(shown.contains("href=\"http://example.com/\""), "{shown}");
        assert!(shown.contains("href=\"/blog/x/\""), "{shown}");
        assert!(shown.contains("<img alt=\"i\">"), "{shown}");
    }

    #[test]
    fn formatting_elements_keep_no_attributes_so_a_browser_cannot_multiply_them() {
        let shown =
            preview_html("<div><b title=\"1\" style=\"x\"></div><div><i lang=\"2\">x</i></div>");
        assert_eq!(shown, "<div><b></div><div><i>x</i></div>");
    }

    #[test]
    fn an_element_with_too_many_attributes_loses_its_tags_not_its_text() {
        let attributes: String = (0..10_000).map(|i| format!(" a{i}=\"1\"")).collect();
        let shown = preview_html(&format!("<p{attributes}>kept text</p><p title=\"t\">x</p>"));
        assert_eq!(shown, "kept text<p title=\"t\">x</p>");
    }

    #[test]
    fn a_body_whose_text_the_sanitiser_cannot_judge_is_shown_as_its_source() {
        // In a <select>, a browser's tree builder ignores tags lol_html cannot model: strict
        // mode stops there, and the preview shows the source as text.
        let shown = preview_html("<select><script>alert(1)</script></select>");
        if shown.contains("<pre>") {
            assert!(shown.contains("&lt;script&gt;"), "{shown}");
        }
        assert!(!shown.contains("<script"), "{shown}");
    }

    #[test]
    fn unterminated_raw_text_is_removed_to_the_end() {
        for body in [
            "<p>a</p><script>alert(1)",
            "<p>a</p><textarea><p>b",
            "<p>a</p><plaintext><script>alert(1)</script>",
            "<p>a</p><svg><p>b",
        ] {
            let shown = preview_html(body);
            assert!(shown.starts_with("<p>a</p>"), "{body}: {shown}");
            assert!(
                !shown.contains("alert") && !shown.contains("<p>b"),
                "{body}: {shown}"
            );
        }
    }

    #[test]
    fn deep_nesting_and_long_bodies_cost_no_more_than_their_length() {
        let deep = "<div><b title=\"x\">".repeat(100_000);
        let shown = preview_html(&deep);
        assert!(shown.len() <= deep.len(), "{}", shown.len());
        let long = "<p>word &amp; <a href=\"/x\">more</a></p>".repeat(50_000);
        let shown = preview_html(&long);
        assert!(shown.len() < long.len() * 2, "{}", shown.len());
    }

    /// A start tag: its name and its attributes (name, value).
    type Tag = (String, Vec<(String, String)>);

    /// Every start tag a browser's tokenizer finds in `html`: its name and attributes
    /// (character references decoded), read by html5ever as a browser reads it.
    fn start_tags(html: &str) -> Vec<Tag> {
        use std::cell::RefCell;

        use html5ever::TokenizerResult;
        use html5ever::tendril::StrTendril;
        use html5ever::tokenizer::{
            BufferQueue, StartTag, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
        };

        struct Sink(RefCell<Vec<Tag>>);

        impl TokenSink for Sink {
            type Handle = ();

            fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
                if let Token::TagToken(tag) = token
                    && tag.kind == StartTag
                {
                    let attributes = tag
                        .attrs
                        .iter()
                        .map(|a| (a.name.local.to_string(), a.value.to_string()))
                        .collect();
                    self.0.borrow_mut().push((tag.name.to_string(), attributes));
                }
                // No state switch is needed: a raw-text element in the output is already a
                // failure (none is kept).
                TokenSinkResult::Continue
            }
        }

        let input = BufferQueue::default();
        input.push_back(StrTendril::from_slice(html));
        let tokenizer = Tokenizer::new(Sink(RefCell::new(Vec::new())), TokenizerOpts::default());
        while !input.is_empty() {
            if let TokenizerResult::Done = tokenizer.feed(&input) {
                break;
            }
        }
        tokenizer.end();
        tokenizer.sink.0.take()
    }

    /// Pieces of hostile markup: raw-text and foreign elements, comments, CDATA, quotes,
    /// URLs of every scheme, event handlers, formatting elements with attributes.
    const PIECES: &[&str] = &[
        "<script>",
        "</script>",
        "<script",
        "<style>",
        "</style>",
        "<textarea>",
        "</textarea>",
        "<title>",
        "</title>",
        "<xmp>",
        "</xmp>",
        "<noscript>",
        "</noscript>",
        "<iframe>",
        "</iframe>",
        "<noembed>",
        "<noframes>",
        "<plaintext>",
        "<template>",
        "</template>",
        "<svg>",
        "</svg>",
        "<math>",
        "</math>",
        "<mi>",
        "<foreignObject>",
        "<select>",
        "</select>",
        "<option>",
        "<form action=/x>",
        "<input name=a>",
        "<button>",
        "<!--",
        "-->",
        "--!>",
        "<!-->",
        "<![CDATA[",
        "]]>",
        "<!DOCTYPE html>",
        "<?x?>",
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<b title=x>",
        "</b>",
        "<i>",
        "<a href=\"javascript:alert(1)\">",
        "<a href='https://e.com/'>",
        "<a href=&#106;avascript:x>",
        "</a>",
        "<img src=x onerror=alert(1)>",
        "<img src=\"data:x\" alt=\"",
        "<p title=\"",
        "<p title='",
        "\"",
        "'",
        ">",
        "<",
        "/",
        "=",
        "&",
        "&amp;",
        "&lt;",
        "text",
        " ",
        "\n",
        "<table>",
        "<td>",
        "<meta http-equiv=refresh content=0>",
        "<base href=/>",
        "<link rel=stylesheet href=x>",
        "<object>",
        "<embed>",
        "<p onclick=x style=y>",
        "<blockquote cite=vbscript:x>",
        "<image src=x>",
        "<custom-el onmouseover=x>",
        "<!",
        "</",
        "<?",
        "<SCRIPT>",
        "<StYlE>",
        "<p/",
        "<b =x>",
        "<i \"x>",
        "<a\thref=y>",
        "<a href=java&#x09;script:x>",
        "<area href=javascript:x>",
        "<math><mtext>",
        "<svg><foreignObject><p>",
        "<noscript><p title=\"</noscript><img>\">",
        "<p \u{0}>",
        "\u{0}",
        "<table><tr><script>",
        "<select><script>",
        "<template><script>",
    ];

    proptest::proptest! {
        /// Whatever the body, a browser reading the preview finds only kept elements, with only
        /// their allowed attributes, and no URL of another scheme.
        #[test]
        fn a_browser_finds_only_allowed_elements_attributes_and_urls_in_a_preview(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..40)
        ) {
            let body: String = pieces.concat();
            let shown = preview_html(&body);
            for (name, attributes) in start_tags(&shown) {
                let kept = KEPT.iter().find(|(kept, _)| *kept == name);
                proptest::prop_assert!(kept.is_some(), "<{}> in {:?} from {:?}", name, shown, body);
                let (_, allowed) = kept.unwrap();
                for (attribute, value) in attributes {
                    let formatting = FORMATTING.contains(&name.as_str());
                    proptest::prop_assert!(
                        (attribute == "rel" && (name == "a" || name == "area"))
                            || (!formatting
                                && (allowed.contains(&attribute.as_str())
                                    || GENERIC_ATTRIBUTES.contains(&attribute.as_str()))),
                        "{}={:?} on <{}> in {:?} from {:?}", attribute, value, name, shown, body
                    );
                    if URL_ATTRIBUTES.contains(&attribute.as_str()) {
                        let scheme_ok = match url::Url::parse(&value) {
                            Ok(url) => SCHEMES.contains(&url.scheme()),
                            Err(e) => e == url::ParseError::RelativeUrlWithoutBase,
                        };
                        proptest::prop_assert!(scheme_ok, "{}={:?} in {:?}", attribute, value, shown);
                    }
                }
            }
        }
    }
}
