//! Link templates: a body compiled once, when it is published, so that a read fills in the
//! targets' URLs and titles instead of parsing the HTML again.
//!
//! # Compile at publish, link at read
//!
//! Resolution stays a read-time rule (a placeholder follows its target's state at the moment
//! of the read), but everything the resolver does apart from looking targets up depends on the
//! body alone. [`compile`] runs the very rewrite [`super::resolve`] runs, with a context in which
//! every referenced slug resolves to *markers* instead of a URL and a title. The output is the
//! template: the body as the resolver writes it, with a marker wherever target-dependent text
//! goes. Markers are characters of Unicode's private-use areas that the body does not contain
//! (a body that does is not compiled):
//!
//! - a URL hole (and how to escape the URL there: attribute value, `<title>`-like text,
//!   `<script>`-like text);
//! - a title hole (text-escaped);
//! - a group, written only when its slug resolves: the `<a href="URL">Title</a>` a text
//!   placeholder becomes, and the start and end tags of an `<a>` whose whole `href` is a
//!   placeholder (removed, content kept, when the target does not resolve).
//!
//! Each hole names its slug by index into the template's slug list, which is the set of slugs
//! the read looks up. [`LinkTemplate::fill`] copies the literal runs and writes each hole: no
//! HTML parsing, one pass over the template.
//!
//! # Why it is exact, and when it refuses
//!
//! The fill equals the resolver's output for every target state when the only thing target
//! state changes is the text at the markers, and groups. That is not so in a few places, which
//! [`compile`] refuses (the body then keeps going through the full resolver at read time):
//!
//! - a placeholder in a comment (the resolver drops the URL if it would form `-->`);
//! - a text placeholder inside an `<a>` whose `href` is a placeholder of another slug (it is a
//!   title while that anchor stands, a link when the anchor is removed);
//! - an attribute that the resolver drops when none of its placeholders resolve (found by the
//!   check below);
//! - bodies that hold marker characters, or whose rewrite fails.
//!
//! Every template is also checked when it is made: filled with every target resolving (titles
//! and a site URL full of characters that need escaping) and with none resolving, it must give
//! exactly what the resolver gives; otherwise it is refused. A differential property test
//! (`tests/links_template.rs`) compares fill and resolver on random bodies and target states.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use lol_html::end_tag;
use lol_html::html_content::{ContentType, Element};

use super::{
    Escape, LinkContext, contains_placeholder, push_text_escaped, push_url_escaped,
    referenced_slugs, resolve, rewrite, strip_leftover_openers,
};

/// The first byte of every marker's UTF-8 form (U+E000..=U+E007 are `EE 80 80..=87`).
const MARKER_LEAD: u8 = 0xEE;
/// Kinds of marker, the last byte of U+E000 + kind.
const TEXT_LINK: u8 = 0;
const ANCHOR_START: u8 = 1;
const ANCHOR_END: u8 = 2;
const CLOSE: u8 = 3;
const URL_ATTRIBUTE: u8 = 4;
const URL_ESCAPABLE_RAW_TEXT: u8 = 5;
const URL_RAW_TEXT: u8 = 6;
const TITLE: u8 = 7;
/// The slug index after a marker (all but [`CLOSE`]) is the character U+F0000 + index.
const INDEX_BASE: u32 = 0xF_0000;
/// Most distinct slugs a template may reference (the indices of plane 15's private-use area).
const MAX_SLUGS: usize = 0xFFFE;
/// The stored form's version tag: a template of another version is compiled again.
const STORED_VERSION: &str = "v1";

/// A body compiled for reading: see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTemplate {
    /// The referenced slugs (normalised); markers name them by index.
    slugs: Vec<String>,
    /// The resolver's output with markers.
    text: String,
}

/// What [`compile`] made of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compiled {
    /// No placeholder: the body is served as it is.
    Plain,
    /// A template to fill at read time.
    Template(LinkTemplate),
    /// Not compiled (see the module documentation): the body is resolved at read time.
    Refused,
}

impl Compiled {
    /// The template, when there is one.
    pub fn into_template(self) -> Option<LinkTemplate> {
        match self {
            Compiled::Template(template) => Some(template),
            Compiled::Plain | Compiled::Refused => None,
        }
    }
}

/// Compiles `body` into a [`LinkTemplate`] when it has placeholders and can be compiled.
///
/// ```
/// use blogread_core::links::{compile, resolve, LinkContext};
/// use std::collections::HashMap;
///
/// let body = "<p>See [INTERNAL:hello] and [INTERNAL:gone].</p>";
/// let template = compile(body).into_template().unwrap();
/// assert_eq!(template.slugs(), ["gone", "hello"]);
/// let ctx = LinkContext::new(
///     Some("https://example.com"),
///     HashMap::from([("hello".to_owned(), "Hello".to_owned())]),
/// );
/// assert_eq!(template.fill(&ctx), resolve(body, &ctx));
/// ```
pub fn compile(body: &str) -> Compiled {
    if !contains_placeholder(body) {
        return Compiled::Plain;
    }
    if body.chars().any(is_reserved) {
        return Compiled::Refused;
    }
    let mut referenced = BTreeSet::new();
    referenced_slugs(body, &mut referenced);
    if referenced.len() > MAX_SLUGS {
        return Compiled::Refused;
    }
    let slugs: Vec<String> = referenced.into_iter().collect();
    let index: HashMap<String, u32> = slugs.iter().cloned().zip(0u32..).collect();
    let titles: HashMap<String, String> = index
        .iter()
        .map(|(slug, &at)| {
            let mut title = String::new();
            push_marker(&mut title, TITLE, at);
            (slug.clone(), title)
        })
        .collect();
    let compiling = Arc::new(Compiling {
        index,
        refused: AtomicBool::new(false),
    });
    let ctx = LinkContext {
        compiling: Some(Arc::clone(&compiling)),
        ..LinkContext::new(None, titles)
    };
    let Ok(text) = rewrite(body, &ctx, body.len()) else {
        return Compiled::Refused;
    };
    if compiling.refused.load(Ordering::Relaxed) {
        return Compiled::Refused;
    }
    let template = LinkTemplate { slugs, text };
    if template.check_structure().is_none() || !template.fills_like_resolver(body) {
        return Compiled::Refused;
    }
    Compiled::Template(template)
}

impl LinkTemplate {
    /// The slugs the template references: the ones a read looks up.
    pub fn slugs(&self) -> &[String] {
        &self.slugs
    }

    /// The body with every placeholder resolved in `ctx`: byte for byte what
    /// [`super::resolve`] gives for the body the template was compiled from.
    pub fn fill(&self, ctx: &LinkContext) -> String {
        // Each slug's target once: its URL (unescaped) and title.
        let targets: Vec<Option<(String, &str)>> = self
            .slugs
            .iter()
            .map(|slug| {
                ctx.target(slug)
                    .map(|(current, title)| (ctx.url_for(current), title))
            })
            .collect();
        let text = &self.text;
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len() + 96 * self.slugs.len());
        let mut copied = 0;
        let mut skipping = false;
        for at in memchr::memchr_iter(MARKER_LEAD, bytes) {
            if at < copied {
                continue;
            }
            let Some(kind) = marker_kind(bytes, at) else {
                continue;
            };
            if !skipping {
                out.push_str(&text[copied..at]);
            }
            if kind == CLOSE {
                skipping = false;
                copied = at + 3;
                continue;
            }
            let index = slug_index(text, at + 3);
            copied = at + 7;
            let target = index.and_then(|i| targets.get(i)).and_then(Option::as_ref);
            match kind {
                TEXT_LINK | ANCHOR_START | ANCHOR_END => skipping = target.is_none(),
                _ if skipping => {}
                TITLE => {
                    if let Some((_, title)) = target {
                        push_text_escaped(&mut out, title);
                    }
                }
                _ => {
                    if let Some((url, _)) = target {
                        push_url_escaped(&mut out, url, url_escape(kind));
                    }
                }
            }
        }
        if !skipping && copied <= text.len() {
            out.push_str(&text[copied..]);
        }
        strip_leftover_openers(Cow::Owned(out)).into_owned()
    }

    /// The form kept in a database column: a version line with the slugs, then the text.
    pub fn to_stored(&self) -> String {
        let mut stored = String::with_capacity(self.text.len() + 16 * self.slugs.len() + 4);
        stored.push_str(STORED_VERSION);
        for slug in &self.slugs {
            stored.push(' ');
            stored.push_str(slug);
        }
        stored.push('\n');
        stored.push_str(&self.text);
        stored
    }

    /// Reads [`LinkTemplate::to_stored`]'s form back; `None` when it is not a template of this
    /// version or is not well formed (the body is then compiled again).
    pub fn from_stored(stored: &str) -> Option<Self> {
        let (header, text) = stored.split_once('\n')?;
        let mut words = header.split(' ');
        if words.next()? != STORED_VERSION {
            return None;
        }
        let slugs: Vec<String> = words
            .map(|slug| crate::domain::Slug::is_valid(slug).then(|| slug.to_owned()))
            .collect::<Option<_>>()?;
        let template = Self {
            slugs,
            text: text.to_owned(),
        };
        template.check_structure()?;
        Some(template)
    }

    /// Checks that every marker is whole and names a slug, that groups neither nest nor stay
    /// open, and that no title or link of one slug sits inside an anchor that stands only
    /// while another slug resolves (its form would depend on both).
    fn check_structure(&self) -> Option<()> {
        let bytes = self.text.as_bytes();
        let mut group: Option<(u8, usize)> = None;
        // Anchors whose start was met and not their end: how many per slug, and in all (counts,
        // so that each marker is checked in constant time however deep anchors nest).
        let mut open_anchors: HashMap<usize, usize> = HashMap::new();
        let mut open_total = 0usize;
        let mut after = 0;
        for at in memchr::memchr_iter(MARKER_LEAD, bytes) {
            if at < after {
                continue;
            }
            let Some(kind) = marker_kind(bytes, at) else {
                continue;
            };
            if kind == CLOSE {
                let (opened, index) = group.take()?;
                match opened {
                    ANCHOR_START => {
                        *open_anchors.entry(index).or_default() += 1;
                        open_total += 1;
                    }
                    ANCHOR_END => {
                        let open = open_anchors.get_mut(&index).filter(|n| **n > 0)?;
                        *open -= 1;
                        open_total -= 1;
                    }
                    _ => {}
                }
                after = at + 3;
                continue;
            }
            let index = slug_index(&self.text, at + 3).filter(|&i| i < self.slugs.len())?;
            after = at + 7;
            let inside_other_anchor =
                open_total > open_anchors.get(&index).copied().unwrap_or_default();
            match kind {
                TEXT_LINK | ANCHOR_START | ANCHOR_END => {
                    if group.is_some() || (kind == TEXT_LINK && open_total > 0) {
                        return None;
                    }
                    group = Some((kind, index));
                }
                TITLE if inside_other_anchor && group.is_none() => return None,
                _ => {}
            }
        }
        group.is_none().then_some(())
    }

    /// The template filled with every target resolving, and with none, equals the resolver's
    /// output for `body`.
    fn fills_like_resolver(&self, body: &str) -> bool {
        let titles: HashMap<String, String> = self
            .slugs
            .iter()
            .enumerate()
            .map(|(i, slug)| {
                (
                    slug.clone(),
                    format!("T{i} & <b>\"it's\"</b> [INTERNAL:x] é"),
                )
            })
            .collect();
        let all = LinkContext::new(Some("https://example.com/a&b\"<c>'/"), titles);
        let none = LinkContext::new(None, HashMap::new());
        [all, none]
            .iter()
            .all(|ctx| self.fill(ctx) == resolve(body, ctx))
    }
}

/// The kind of the marker whose first byte is at `at`, if a marker starts there.
fn marker_kind(bytes: &[u8], at: usize) -> Option<u8> {
    match bytes.get(at + 1..at + 3)? {
        [0x80, last @ 0x80..=0x87] => Some(last - 0x80),
        _ => None,
    }
}

/// The slug index written at `at` (U+F0000 + index), if one is there.
fn slug_index(text: &str, at: usize) -> Option<usize> {
    let c = text.get(at..at + 4)?.chars().next()?;
    let index = u32::from(c).checked_sub(INDEX_BASE)?;
    (index < MAX_SLUGS as u32).then_some(index as usize)
}

/// How a URL marker's URL is escaped.
fn url_escape(kind: u8) -> Escape {
    match kind {
        URL_ATTRIBUTE => Escape::Attribute,
        URL_ESCAPABLE_RAW_TEXT => Escape::EscapableRawText,
        URL_RAW_TEXT => Escape::RawText,
        _ => Escape::None,
    }
}

/// Characters a body must not hold to be compiled: the markers and the slug indices.
fn is_reserved(c: char) -> bool {
    matches!(u32::from(c), 0xE000..=0xE007 | 0xF_0000..=0xF_FFFF)
}

/// Writes a marker of `kind` naming slug `index`.
fn push_marker(out: &mut String, kind: u8, index: u32) {
    out.push(char::from_u32(0xE000 + u32::from(kind)).expect("private-use character"));
    out.push(char::from_u32(INDEX_BASE + index).expect("slug index within plane 15"));
}

/// Writes the marker that closes a group.
pub(super) fn push_close(out: &mut String) {
    out.push(char::from_u32(0xE000 + u32::from(CLOSE)).expect("private-use character"));
}

/// The state of one compilation, reached through the [`LinkContext`] the rewrite runs with.
#[derive(Debug)]
pub(super) struct Compiling {
    /// Slug -> its index in the template's slug list.
    index: HashMap<String, u32>,
    /// Set when the body holds something a template cannot express.
    refused: AtomicBool,
}

impl Compiling {
    fn index_of(&self, slug: &str) -> u32 {
        match self.index.get(slug) {
            Some(&at) => at,
            None => {
                // Only referenced slugs resolve while compiling; never reached.
                self.refuse();
                0
            }
        }
    }

    /// Gives up on this body.
    pub(super) fn refuse(&self) {
        self.refused.store(true, Ordering::Relaxed);
    }

    /// Opens the group of the link a text placeholder of `slug` becomes.
    pub(super) fn open_group(&self, out: &mut String, slug: &str) {
        push_marker(out, TEXT_LINK, self.index_of(slug));
    }

    /// Writes the marker of `slug`'s URL, escaped as `escape` says.
    pub(super) fn push_url_marker(&self, out: &mut String, slug: &str, escape: Escape) {
        let kind = match escape {
            Escape::Attribute => URL_ATTRIBUTE,
            Escape::EscapableRawText => URL_ESCAPABLE_RAW_TEXT,
            Escape::RawText => URL_RAW_TEXT,
            // Comments refuse compilation; the marker is written all the same.
            Escape::None => {
                self.refuse();
                URL_ATTRIBUTE
            }
        };
        push_marker(out, kind, self.index_of(slug));
    }

    /// Makes the start and end tags of an `<a>` whose whole `href` is a placeholder of `slug`
    /// conditional on `slug` resolving.
    pub(super) fn wrap_anchor(
        &self,
        el: &mut Element<'_, '_>,
        slug: &str,
    ) -> lol_html::HandlerResult {
        let index = self.index_of(slug);
        let mut open = String::new();
        push_marker(&mut open, ANCHOR_START, index);
        let mut close = String::new();
        push_close(&mut close);
        el.before(&open, ContentType::Html);
        if !el.can_have_content() {
            el.after(&close, ContentType::Html);
            return Ok(());
        }
        el.prepend(&close, ContentType::Html);
        let mut open_end = String::new();
        push_marker(&mut open_end, ANCHOR_END, index);
        el.on_end_tag(end_tag!(move |end| {
            end.before(&open_end, ContentType::Html);
            end.after(&close, ContentType::Html);
            Ok(())
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> LinkContext {
        LinkContext::new(
            Some("https://example.com"),
            HashMap::from([
                ("hello-world".to_owned(), "Hello, World".to_owned()),
                ("second-post".to_owned(), "Second <Post>".to_owned()),
            ]),
        )
    }

    fn template(body: &str) -> LinkTemplate {
        match compile(body) {
            Compiled::Template(template) => template,
            other => panic!("{body:?} did not compile: {other:?}"),
        }
    }

    #[test]
    fn a_body_without_placeholders_is_plain() {
        assert_eq!(compile("<p>nothing [to] see</p>"), Compiled::Plain);
    }

    #[test]
    fn every_placeholder_form_the_template_holds_fills_like_the_resolver() {
        for body in [
            "<p>Read [INTERNAL:hello-world] and [INTERNAL:draft].</p>",
            r#"<p><a href="[INTERNAL:hello-world]#x" class=c>the <em>post</em></a></p>"#,
            r#"<p><a href="[INTERNAL:draft]">kept text</a> after</p>"#,
            r#"<a href="[INTERNAL:second-post]">see [INTERNAL:second-post]</a>"#,
            r#"<a href="/x">inside [INTERNAL:hello-world] an anchor</a>"#,
            r#"<img alt="x [INTERNAL:hello-world] y" src=a>"#,
            "<script>let u = '[INTERNAL:hello-world]';</script>",
            "<title>[INTERNAL:second-post]</title><textarea>[INTERNAL:draft]</textarea>",
            "[[INTERNAL:draft]INTERNAL:hello-world] [INTERNAL:bad slug] [INTERNAL:x",
            r#"<a href="%5BINTERNAL:Hello-World%5D?q=1">x</a>"#,
        ] {
            let template = template(body);
            for ctx in [site(), LinkContext::new(None, HashMap::new())] {
                assert_eq!(template.fill(&ctx), resolve(body, &ctx), "{body}");
            }
        }
    }

    #[test]
    fn forms_whose_output_depends_on_more_than_the_markers_are_refused() {
        for body in [
            // A comment's URL could form `-->`.
            "<!-- [INTERNAL:hello-world] -->",
            // A title while the anchor stands, a link once it is removed.
            r#"<a href="[INTERNAL:draft]">see [INTERNAL:hello-world]</a>"#,
            // The attribute is dropped when the placeholder does not resolve.
            r#"<img alt="[INTERNAL:hello-world]">"#,
            // Marker characters in the body.
            "\u{e001}[INTERNAL:hello-world]",
        ] {
            assert_eq!(compile(body), Compiled::Refused, "{body}");
        }
    }

    #[test]
    fn the_stored_form_reads_back_and_damage_is_refused() {
        let template = template("<p>[INTERNAL:hello-world] [INTERNAL:second-post]</p>");
        let stored = template.to_stored();
        assert_eq!(LinkTemplate::from_stored(&stored), Some(template.clone()));
        assert_eq!(
            LinkTemplate::from_stored(&stored.replacen("v1", "v0", 1)),
            None
        );
        // A slug index beyond the list, an unclosed group.
        let fewer = stored.replacen(" second-post", "", 1);
        assert_eq!(LinkTemplate::from_stored(&fewer), None);
        let unclosed = stored.replacen('\u{e003}', "", 1);
        assert_eq!(LinkTemplate::from_stored(&unclosed), None);
    }

    #[test]
    fn an_alias_fills_with_the_current_slug_and_title() {
        let body = "<p>[INTERNAL:old-name]</p>";
        let ctx = site().with_aliases(HashMap::from([(
            "old-name".to_owned(),
            "hello-world".to_owned(),
        )]));
        assert_eq!(template(body).fill(&ctx), resolve(body, &ctx));
        assert!(template(body).fill(&ctx).contains("/blog/hello-world/"));
    }
}
