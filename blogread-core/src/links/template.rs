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

use blogread_markup::escape::{Escapes, push_escaped};
use lol_html::end_tag;
use lol_html::html_content::{ContentType, Element};

use crate::word_count::word_count;

use super::{
    Escape, LinkContext, contains_placeholder, push_url_escaped, referenced_slugs, resolve,
    rewrite, strip_leftover_openers,
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
/// The title marker's character (U+E000 + [`TITLE`]).
const TITLE_MARKER: &str = "\u{E007}";
/// The slug index after a marker (all but [`CLOSE`]) is the character U+F0000 + index.
const INDEX_BASE: u32 = 0xF_0000;
/// Most distinct slugs a template may reference (the indices of plane 15's private-use area).
const MAX_SLUGS: usize = 0xFFFE;
/// The stored form's version tag. A `v1` template (from before word counts were stored)
/// is still read, its filled bodies counted in full.
const STORED_VERSION: &str = "v2";
/// The version tag of templates stored without a word count.
const STORED_VERSION_WITHOUT_WORDS: &str = "v1";

/// A body compiled for reading: see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTemplate {
    /// The referenced slugs (normalised); markers name them by index.
    slugs: Vec<String>,
    /// The resolver's output with markers.
    text: String,
    /// The words of the body outside its title holes, when the words of a filled body are
    /// this plus the words of the titles written into it (see [`LinkTemplate::fill_counted`]);
    /// `None` when a read counts the filled body instead.
    words: Option<u64>,
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

    /// The slugs a public read of `body` (what this was compiled from) looks up: its
    /// template's, or for a body not compiled every slug its placeholders name (see
    /// [`super::referenced_slugs`]), sorted and without repeats. A write that changes what
    /// one of them resolves to changes the body's public answer.
    pub fn referenced_slugs(&self, body: &str) -> Vec<String> {
        match self {
            Compiled::Plain => Vec::new(),
            Compiled::Template(template) => {
                let mut slugs = template.slugs().to_vec();
                slugs.sort_unstable();
                slugs.dedup();
                slugs
            }
            Compiled::Refused => {
                let mut slugs = std::collections::BTreeSet::new();
                super::referenced_slugs(body, &mut slugs);
                slugs.into_iter().collect()
            }
        }
    }
}

/// A body and what [`compile`] made of it: compiled before a write's transaction by the
/// service (compiling is HTML rewriting plus a self-check, too long to hold a writer for), and
/// handed to the store, which keeps the template of whatever body it publishes.
#[derive(Debug, Clone)]
pub struct CompiledBody {
    body: String,
    compiled: Compiled,
}

impl CompiledBody {
    /// Compiles `body`.
    pub fn of(body: String) -> Self {
        let compiled = compile(&body);
        Self { body, compiled }
    }

    /// What `body` compiles to: this one's, when `body` is the body it was compiled from;
    /// `body` compiled now otherwise (the working copy was edited since, a rare race).
    pub fn for_body(this: Option<&Self>, body: &str) -> Compiled {
        match this {
            Some(compiled) if compiled.body == body => compiled.compiled.clone(),
            _ => compile(body),
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
    let mut template = LinkTemplate {
        slugs,
        text,
        words: None,
    };
    if template.check_structure().is_none() || !template.fills_like_resolver(body) {
        return Compiled::Refused;
    }
    template.count_words();
    Compiled::Template(template)
}

impl LinkTemplate {
    /// The slugs the template references: the ones a read looks up.
    pub fn slugs(&self) -> &[String] {
        &self.slugs
    }

    /// Whether a fill's word count is added up from the template's own words and the titles'
    /// (see [`LinkTemplate::fill_counted`]) rather than counted on the filled body.
    pub fn has_split_word_count(&self) -> bool {
        self.words.is_some()
    }

    /// The body with every placeholder resolved in `ctx`: byte for byte what
    /// [`super::resolve`] gives for the body the template was compiled from.
    pub fn fill(&self, ctx: &LinkContext) -> String {
        self.fill_counted_if(ctx, false).0
    }

    /// [`LinkTemplate::fill`] and the filled body's word count
    /// ([`crate::word_count::word_count`] of it). When the template was compiled with its
    /// words split (see `docs/operations.md#link-templates`), the count is the body's own words
    /// plus the words of the titles the fill writes, and the filled body is not read again.
    pub fn fill_counted(&self, ctx: &LinkContext) -> (String, u64) {
        let (body, words) = self.fill_counted_if(ctx, true);
        let words = words.unwrap_or_else(|| word_count(&body));
        (body, words)
    }

    fn fill_counted_if(&self, ctx: &LinkContext, count: bool) -> (String, Option<u64>) {
        // Each slug's target once: its URL (unescaped) and title.
        let targets: Vec<Option<(String, &str)>> = self
            .slugs
            .iter()
            .map(|slug| {
                ctx.target(slug)
                    .map(|(current, title)| (ctx.url_for(current), title))
            })
            .collect();
        let split = self.words.filter(|_| count);
        let mut title_words = 0u64;
        let out = self.render(
            |index| targets.get(index).is_some_and(Option::is_some),
            |out, hole| {
                let Some((url, title)) = targets.get(hole.index).and_then(Option::as_ref) else {
                    return;
                };
                match hole.escape {
                    None => {
                        let start = out.len();
                        push_escaped(out, title, Escapes::ALL);
                        if split.is_some() {
                            title_words = title_words.saturating_add(word_count(&out[start..]));
                        }
                    }
                    Some(escape) => push_url_escaped(out, url, escape),
                }
            },
        );
        let before = out.len();
        let out = strip_leftover_openers(Cow::Owned(out)).into_owned();
        // The split count holds for the bytes the fill wrote; the safety pass removing an
        // opener (formed by a title and the text around it) changes them.
        let words = split
            .filter(|_| out.len() == before)
            .map(|base| base.saturating_add(title_words));
        (out, words)
    }

    /// The template with its holes written by `write` (each only when `resolves` says its
    /// slug resolves) and each group kept only while its slug resolves: the one walk over
    /// the markers that fills and word-count probes share. The safety pass is the caller's.
    fn render(
        &self,
        resolves: impl Fn(usize) -> bool,
        mut write: impl FnMut(&mut String, Hole),
    ) -> String {
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
            copied = at + 7;
            let Some(index) = slug_index(text, at + 3).filter(|&i| resolves(i)) else {
                // A slug that does not resolve: its groups are left out, its holes empty.
                skipping |= matches!(kind, TEXT_LINK | ANCHOR_START | ANCHOR_END);
                continue;
            };
            match kind {
                TEXT_LINK | ANCHOR_START | ANCHOR_END => skipping = false,
                _ if skipping => {}
                TITLE => write(
                    &mut out,
                    Hole {
                        index,
                        escape: None,
                    },
                ),
                _ => write(
                    &mut out,
                    Hole {
                        index,
                        escape: Some(url_escape(kind)),
                    },
                ),
            }
        }
        if !skipping && copied <= text.len() {
            out.push_str(&text[copied..]);
        }
        out
    }

    /// Keeps the word count of the body outside its title holes when a fill's count may be
    /// added up from it (see [`LinkTemplate::fill_counted`]).
    fn count_words(&mut self) {
        self.words = self.split_word_count();
        if self.words.is_some() && !self.counts_like_the_filled_body() {
            self.words = None;
        }
    }

    /// A template stored without a word count (`v1`, by a version before counts were kept)
    /// in this version's stored form, its count worked out from the template alone; `None`
    /// for any other stored text (already this version's, `''`, or damaged).
    #[cfg_attr(
        not(any(feature = "sqlite", feature = "postgres")),
        allow(dead_code, reason = "used by the SQL stores only")
    )]
    pub(crate) fn upgraded_stored(stored: &str) -> Option<String> {
        let header = stored.split_once('\n')?.0;
        if header.split(' ').next()? != STORED_VERSION_WITHOUT_WORDS {
            return None;
        }
        let mut template = Self::from_stored(stored)?;
        template.count_words();
        Some(template.to_stored())
    }

    /// The words of the body outside its title holes, when they may be added to the words
    /// of the titles a fill writes to give the filled body's word count; `None` otherwise.
    ///
    /// The rules of `docs/content.md#word-count` count maximal runs of characters that are not
    /// white space and hold a letter or digit, in counted text. Adding is exact when every
    /// title hole is in counted text with character references decoded, every URL hole is
    /// outside counted text (attribute values, scripts), and no hole's run can join a run of
    /// the text around it that holds a letter or digit (or the run of another hole). Then a
    /// run that takes in a title's characters owes its letter or digit to the title alone;
    /// and groups, which are only tags and holes, change no run when left out. Four probes
    /// check this by filling every hole with stand-ins and counting:
    ///
    /// - holes as spaces give the base; titles as ` a ` add one word per title hole (each is
    ///   counted); URLs as ` a ` add none (none is counted);
    /// - every hole as `a`, without spaces, adds one per title hole too (no hole joins a word
    ///   around it or another hole);
    /// - titles as ` &#46; ` add none (references are decoded there: `&#46;` is `.`).
    ///
    /// Besides, a title hole may not follow an unfinished character reference (`&am` before
    /// a title `p;`), which no stand-in shows.
    fn split_word_count(&self) -> Option<u64> {
        let titles = self.text.match_indices(TITLE_MARKER).count() as u64;
        let probe = |title: &str, url: &str| {
            word_count(&self.render(
                |_| true,
                |out, hole| {
                    out.push_str(if hole.escape.is_none() { title } else { url });
                },
            ))
        };
        let base = probe(" ", " ");
        let additive = probe(" a ", " ") == base + titles
            && probe(" ", " a ") == base
            && probe("a", "a") == base + titles
            && probe(" &#46; ", " ") == base
            && !self.title_follows_a_reference_opening();
        additive.then_some(base)
    }

    /// Whether a title hole follows `&` and then only ASCII letters, digits or `#`: the start
    /// of a character reference that a title could finish.
    fn title_follows_a_reference_opening(&self) -> bool {
        let bytes = self.text.as_bytes();
        self.text.match_indices(TITLE_MARKER).any(|(at, _)| {
            // Linear overall: the scan stops at the first byte that is none of these, and a
            // marker (non-ASCII) ends it at the latest.
            let run = bytes[..at]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'#')
                .count();
            at.checked_sub(run + 1)
                .is_some_and(|amp| bytes[amp] == b'&')
        })
    }

    /// The check that keeps a split count: with every target resolving (escape-heavy titles)
    /// and with none, it equals the count of the filled body.
    fn counts_like_the_filled_body(&self) -> bool {
        let (all, none) = check_contexts(&self.slugs, false);
        [all, none].iter().all(|ctx| {
            let (body, words) = self.fill_counted_if(ctx, true);
            words == Some(word_count(&body))
        })
    }

    /// The form kept in a database column: a version line with the word count (`-` when not
    /// split) and the slugs, then the text.
    pub fn to_stored(&self) -> String {
        let mut stored = String::with_capacity(self.text.len() + 16 * self.slugs.len() + 24);
        stored.push_str(STORED_VERSION);
        stored.push(' ');
        match self.words {
            Some(words) => stored.push_str(&words.to_string()),
            None => stored.push('-'),
        }
        for slug in &self.slugs {
            stored.push(' ');
            stored.push_str(slug);
        }
        stored.push('\n');
        stored.push_str(&self.text);
        stored
    }

    /// Reads [`LinkTemplate::to_stored`]'s form back (this version's, or a `v1` one without a
    /// word count); `None` when it is not well formed.
    pub fn from_stored(stored: &str) -> Option<Self> {
        let (header, text) = stored.split_once('\n')?;
        let mut fields = header.split(' ');
        let words = match fields.next()? {
            STORED_VERSION => match fields.next()? {
                "-" => None,
                count => Some(count.parse().ok()?),
            },
            STORED_VERSION_WITHOUT_WORDS => None,
            _ => return None,
        };
        let slugs: Vec<String> = fields
            .map(|slug| crate::domain::Slug::is_valid(slug).then(|| slug.to_owned()))
            .collect::<Option<_>>()?;
        let template = Self {
            slugs,
            text: text.to_owned(),
            words,
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
        let (all, none) = check_contexts(&self.slugs, true);
        [all, none]
            .iter()
            .all(|ctx| self.fill(ctx) == resolve(body, ctx))
    }
}

/// A hole [`LinkTemplate::render`] asks to be written.
struct Hole {
    /// The slug's index in the template's list.
    index: usize,
    /// `None` for a title; how to escape a URL otherwise.
    escape: Option<Escape>,
}

/// The two contexts every template is checked in when it is made: every slug resolving, with
/// titles and a site URL full of characters that need escaping (and, `with_opener`, a
/// placeholder opener for the safety pass to remove); and none resolving.
fn check_contexts(slugs: &[String], with_opener: bool) -> (LinkContext, LinkContext) {
    let opener = if with_opener { "[INTERNAL:x]" } else { "x" };
    let titles: HashMap<String, String> = slugs
        .iter()
        .enumerate()
        .map(|(i, slug)| (slug.clone(), format!("T{i} & <b>\"it's\"</b> {opener} é")))
        .collect();
    (
        LinkContext::new(Some("https://example.com/a&b\"<c>'/"), titles),
        LinkContext::new(None, HashMap::new()),
    )
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
        assert!(
            stored.starts_with("v2 0 hello-world second-post\n"),
            "{stored}"
        );
        assert_eq!(
            LinkTemplate::from_stored(&stored.replacen("v2", "v0", 1)),
            None
        );
        assert_eq!(
            LinkTemplate::from_stored(&stored.replacen("v2 0", "v2 x", 1)),
            None
        );
        // A template stored before word counts were: read, its fills counted in full.
        let old = LinkTemplate::from_stored(&stored.replacen("v2 0", "v1", 1)).expect("v1");
        assert_eq!(old.slugs(), template.slugs());
        assert!(!old.has_split_word_count());
        assert_eq!(old.fill_counted(&site()), template.fill_counted(&site()));
        // A slug index beyond the list, an unclosed group.
        let fewer = stored.replacen(" second-post", "", 1);
        assert_eq!(LinkTemplate::from_stored(&fewer), None);
        let unclosed = stored.replacen('\u{e003}', "", 1);
        assert_eq!(LinkTemplate::from_stored(&unclosed), None);
    }

    /// The word count of a filled body: added up from the template's own words and the
    /// titles' where that is exact, counted in full where it is not, equal either way.
    fn assert_counts(body: &str, split: bool) {
        let template = template(body);
        assert_eq!(template.has_split_word_count(), split, "{body}");
        let titled = LinkContext::new(
            None,
            HashMap::from([
                ("hello-world".to_owned(), "lt; two words".to_owned()),
                ("second-post".to_owned(), "  ".to_owned()),
            ]),
        );
        for ctx in [site(), titled, LinkContext::new(None, HashMap::new())] {
            let resolved = resolve(body, &ctx);
            assert_eq!(
                template.fill_counted(&ctx),
                (resolved.to_string(), word_count(&resolved)),
                "{body}"
            );
        }
    }

    #[test]
    fn titles_set_apart_from_words_add_their_own_words() {
        for body in [
            "<p>See [INTERNAL:hello-world] and [INTERNAL:second-post].</p>",
            "<p>(<a href=\"[INTERNAL:hello-world]\">the post</a>) [INTERNAL:draft]</p>",
            "<ul><li>[INTERNAL:hello-world]<li>[INTERNAL:second-post]</ul>",
            "<img alt=\"x [INTERNAL:hello-world] y\" src=a> words",
            "<script>go('[INTERNAL:hello-world]')</script> text",
        ] {
            assert_counts(body, true);
        }
    }

    #[test]
    fn titles_that_could_join_a_word_or_a_reference_are_counted_in_full() {
        for body in [
            // A title joining the word before or after it, or another title.
            "<p>x[INTERNAL:hello-world] y</p>",
            "<p>See [INTERNAL:hello-world]'s page</p>",
            "<p>[INTERNAL:hello-world]-[INTERNAL:second-post]</p>",
            // A title finishing a character reference (`&` + `lt;`).
            "<p><a href=\"[INTERNAL:hello-world]\">&[INTERNAL:hello-world]</a></p>",
            "<p><a href=\"[INTERNAL:second-post]\">&#[INTERNAL:second-post]</a></p>",
            // A URL in counted text; a title in text that is not counted.
            "<textarea>[INTERNAL:hello-world]</textarea>",
            "<template>[INTERNAL:hello-world]</template> x",
        ] {
            assert_counts(body, false);
        }
    }

    #[test]
    fn a_template_stored_without_a_word_count_is_upgraded_to_one_with_it() {
        let template = template("<p>One [INTERNAL:hello-world] two.</p>");
        let stored = template.to_stored();
        assert!(stored.starts_with("v2 2 hello-world\n"), "{stored}");
        let old = stored.replacen("v2 2", "v1", 1);
        assert_eq!(LinkTemplate::upgraded_stored(&old), Some(stored.clone()));
        assert_eq!(
            LinkTemplate::upgraded_stored(&stored),
            None,
            "already upgraded"
        );
        assert_eq!(LinkTemplate::upgraded_stored(""), None);
        assert_eq!(LinkTemplate::upgraded_stored("v1 Not A Slug\nx"), None);
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
