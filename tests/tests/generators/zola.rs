//! What Zola 0.22 does to a content file, up to the HTML it puts into the page as
//! `page.content` (`components/content/src/front_matter/split.rs`,
//! `components/markdown/src/{lib.rs, shortcode/parser.rs, markdown.rs}`), for a site with no
//! shortcodes of its own:
//!
//! 1. the front matter is split off with Zola's pattern;
//! 2. when the content holds `{{` or `{%`, the shortcode pass runs, with Zola's own grammar
//!    (`zola_content.pest`) and Zola's handling of each rule: text as is, an escaped call
//!    without its `/* */`, a call (with or without body) fails the build, since the site knows
//!    no shortcode, and a parse error fails it too;
//! 3. pulldown-cmark renders the result with the options Zola enables (all of them, optional
//!    ones included: they change Markdown, never an HTML block), and the first HTML event that
//!    matches Zola's summary divider is replaced by its `continue-reading` span.

use std::sync::LazyLock;

use pest::Parser;
use pulldown_cmark::{Event, Options, html};
use regex::Regex;

#[derive(pest_derive::Parser)]
#[grammar = "tests/generators/zola_content.pest"]
struct ContentParser;

/// Zola's pattern for TOML front matter.
static TOML_FRONT_MATTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[[:space:]]*\+\+\+(\r?\n(?s).*?(?-s))\+\+\+[[:space:]]*(?:$|(?:\r?\n((?s).*(?-s))$))",
    )
    .unwrap()
});

/// Zola's summary divider.
static MORE_DIVIDER: LazyLock<Regex> = LazyLock::new(|| {
    regex::RegexBuilder::new(r#"<!--\s*more\s*-->"#)
        .case_insensitive(true)
        .dot_matches_new_line(true)
        .build()
        .unwrap()
});

const CONTINUE_READING: &str = "<span id=\"continue-reading\"></span>";

/// The front matter of the content file `file` as Zola reads it, and the content after it; or
/// why the build fails.
pub fn split(file: &str) -> Result<(toml::Table, &str), String> {
    let caps = TOML_FRONT_MATTER
        .captures(file)
        .ok_or("Couldn't find front matter")?;
    let front = caps.get(1).unwrap().as_str();
    let table = toml::from_str::<toml::Table>(front).map_err(|e| format!("front matter: {e}"))?;
    Ok((table, caps.get(2).map_or("", |m| m.as_str())))
}

/// The HTML Zola makes of the content file `file`, or why the build fails.
pub fn render(file: &str) -> Result<String, String> {
    let (_, content) = split(file)?;
    let content = if !content.contains("{{") && !content.contains("{%") {
        content.to_owned()
    } else {
        shortcode_pass(content)?
    };
    Ok(markdown(&content))
}

/// Zola's `parse_for_shortcodes` on a site without shortcodes.
pub fn shortcode_pass(content: &str) -> Result<String, String> {
    let mut pairs = ContentParser::parse(Rule::page, content).map_err(|e| e.to_string())?;
    let mut output = String::with_capacity(content.len());
    for p in pairs.next().unwrap().into_inner() {
        match p.as_rule() {
            Rule::text => output.push_str(p.as_span().as_str()),
            Rule::inline_shortcode | Rule::shortcode_with_body => {
                let name = p
                    .into_inner()
                    .flatten()
                    .find(|p| p.as_rule() == Rule::ident)
                    .map(|p| p.as_str().to_owned())
                    .unwrap_or_default();
                return Err(format!(
                    "Found usage of a shortcode named `{name}` but we do not know about"
                ));
            }
            Rule::ignored_inline_shortcode => output.push_str(
                &p.as_span()
                    .as_str()
                    .replacen("{{/*", "{{", 1)
                    .replacen("*/}}", "}}", 1),
            ),
            Rule::ignored_shortcode_with_body => {
                for p2 in p.into_inner() {
                    match p2.as_rule() {
                        Rule::ignored_sc_body_start | Rule::ignored_sc_body_end => output.push_str(
                            &p2.as_span()
                                .as_str()
                                .replacen("{%/*", "{%", 1)
                                .replacen("*/%}", "%}", 1),
                        ),
                        Rule::text_in_ignored_body_sc => output.push_str(p2.as_span().as_str()),
                        rule => unreachable!("in an ignored shortcode: {rule:?}"),
                    }
                }
            }
            Rule::EOI => {}
            rule => unreachable!("unexpected page rule: {rule:?}"),
        }
    }
    Ok(output)
}

/// pulldown-cmark with Zola's options, and Zola's summary divider.
pub fn markdown(content: &str) -> String {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_FOOTNOTES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    opts.insert(Options::ENABLE_HEADING_ATTRIBUTES);
    opts.insert(Options::ENABLE_SMART_PUNCTUATION);
    opts.insert(Options::ENABLE_DEFINITION_LIST);
    opts.insert(Options::ENABLE_GFM);
    let mut has_summary = false;
    let events = pulldown_cmark::Parser::new_ext(content, opts).map(|event| match event {
        Event::Html(text) | Event::InlineHtml(text)
            if !has_summary && MORE_DIVIDER.is_match(&text) =>
        {
            has_summary = true;
            Event::Html(CONTINUE_READING.into())
        }
        event => event,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

#[test]
fn the_model_does_what_zola_does_with_the_issues_examples() {
    assert!(
        render("+++\ntitle = \"a\"\n+++\n<p>{{ youtube(id=\"abc\") }}</p>\n")
            .unwrap_err()
            .contains("shortcode named `youtube`")
    );
    assert_eq!(
        render("+++\ntitle = \"a\"\n+++\n<p>{{/* c() */}}</p>\n").unwrap(),
        "<p>{{ c() }}</p>\n"
    );
    assert_eq!(
        render("+++\ntitle = \"a\"\n+++\n<p>{{ x }} {% if a %}</p>\n").unwrap(),
        "<p>{{ x }} {% if a %}</p>\n"
    );
    assert!(render("+++\ntitle = \"a\"\n+++\n<p>{% end %}</p>").is_err());
    // A blank line ends the HTML block: what follows is Markdown.
    let out = render("+++\ntitle = \"a\"\n+++\n<div>\n<script>a\n\n*b*</script>\n</div>").unwrap();
    assert!(out.contains("<em>b</em>"), "{out}");
    assert_eq!(
        render("+++\ntitle = \"a\"\n+++\n<div>x</div>\n<p>a</p><!-- more --><p>b</p>\n").unwrap(),
        "<div>x</div>\n<span id=\"continue-reading\"></span>"
    );
}
