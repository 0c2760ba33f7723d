//! The body of a Zola content file.
//!
//! Zola renders a page's content in two steps (Zola 0.22, `components/markdown`):
//!
//! 1. A shortcode pass over the text, by the grammar in its `content.pest`: `{{ name(args) }}`
//!    and `{% name(args) %}` ... `{% end %}` are shortcode calls (a name Zola does not know stops
//!    the build), `{{/* name(args) */}}` and `{%/* name(args) */%}` ... `{%/* end */%}` are
//!    escaped calls, shown without their `/* */`, and a body start without its `{% end %}` (or an
//!    `{% end %}` alone) stops the build. Everything else, `{{ x }}` included (no argument list),
//!    is text the pass leaves alone.
//! 2. Markdown (pulldown-cmark), in which a blank line ends an HTML block and hands what
//!    follows to Markdown; and the first HTML line that matches `<!--\s*more\s*-->` is replaced
//!    by Zola's `<span id="continue-reading">`.
//!
//! So the body is written:
//!
//! - every call, with or without a body, as Zola's own escape (`{{/* ... */}}`,
//!   `{%/* ... */%}` ... `{%/* end */%}`), which the pass turns back into the text as written;
//!   the text inside an escaped body comes out as it is;
//! - every other point where the pass would act (an escaped call as written, a body start
//!   without its end, an end alone, a call whose argument holds `*/}}`) with its `{` as
//!   `&#123;`, so the pass leaves it alone and the browser shows `{` again, where it decodes
//!   references (a warning elsewhere);
//! - each summary-divider match broken, as for Hugo (a comment's `-->` as `--!>`);
//! - after `<script></script >`, on the same line as the body: a line starting with `<script`
//!   opens an HTML block that only a line holding `</script>` ends, so every line of the body,
//!   blank ones included, reaches the page untouched. Each `</script>` of the body becomes
//!   `</script >` (an end tag just the same) or `&lt;/script>` (in text that decodes it); when
//!   the body holds `</script>` where neither can be (inside a comment, say), `<style>` and
//!   `</style>` serve instead, unless they would need as many such changes.

use std::collections::HashMap;
use std::sync::LazyLock;

use memchr::memmem;
use regex::Regex;

use super::edits::{Edits, Order};
use super::html::{Place, Places};
use super::{Finding, Problem, break_summary_divider, note};

/// The start of the file's body: an empty `<script>` (or `<style>`) that opens the HTML block,
/// then the wrapper the body is in.
pub(crate) fn opener(block: &str) -> String {
    format!("<{block}></{block} ><div class=\"blogread-content\">")
}

/// `html` as the body of a Zola content file (after the front matter), and what in it Zola
/// cannot show exactly.
pub(crate) fn body(html: &str) -> (String, Vec<Finding>) {
    let places = Places::of(html);
    let mut edits = Edits::default();
    let mut findings = Vec::new();

    for found in SUMMARY_DIVIDER.find_iter(html) {
        break_summary_divider(
            &mut edits,
            &mut findings,
            &places,
            found.start(),
            found.end(),
            "Zola",
        );
    }

    escape_shortcodes(html, &places, &mut edits, &mut findings);

    let block = block_element(html, &places);
    let end_tag = format!("</{block}>");
    for at in memmem::find_iter(html.as_bytes(), end_tag.as_bytes()) {
        let span = places.at(at);
        if span.place.decodes_references() {
            edits.replace_byte(at, "&lt;");
        } else {
            // Neutral in a tag or where the browser drops it; a change elsewhere.
            edits.insert(at + end_tag.len() - 1, " ", Order::Text);
            if !matches!(span.place, Place::Tag { .. }) {
                note(
                    &mut findings,
                    &places,
                    at,
                    end_tag.len(),
                    Problem::ZolaBlockEnd,
                    " >",
                );
            }
        }
    }

    let mut out = opener(block);
    out.push_str(&edits.apply(html));
    out.push_str("</div>\n");
    findings.sort_by_key(|finding| finding.at);
    (out, findings)
}

/// Zola's summary divider, as Zola matches it.
static SUMMARY_DIVIDER: LazyLock<Regex> = LazyLock::new(|| {
    regex::RegexBuilder::new(r"<!--\s*more\s*-->")
        .case_insensitive(true)
        .dot_matches_new_line(true)
        .build()
        .expect("a valid pattern")
});

/// The element whose empty start opens the HTML block: `script`, unless the body holds
/// `</script>` where it cannot be changed without a warning (inside a comment, say) more often
/// than `</style>`. An empty `<script>` is the more inert of the two: a browser neither runs it
/// nor checks it against a content security policy, which it does for an empty `<style>`.
fn block_element(html: &str, places: &Places) -> &'static str {
    let warned = |end_tag: &str| {
        memmem::find_iter(html.as_bytes(), end_tag.as_bytes())
            .filter(|&at| {
                let place = places.at(at).place;
                !place.decodes_references()
                    && !place.is_dropped()
                    && !matches!(place, Place::Tag { .. })
            })
            .count()
    };
    if warned("</style>") < warned("</script>") {
        "style"
    } else {
        "script"
    }
}

/// Writes every point where Zola's shortcode pass would act so that the pass gives the text
/// back (see the module docs).
fn escape_shortcodes(html: &str, places: &Places, edits: &mut Edits, findings: &mut Vec<Finding>) {
    let mut grammar = Grammar::new(html.as_bytes());
    let hazards = grammar.hazards.clone();
    let mut from = 0;
    let mut leftover = |edits: &mut Edits, at: usize, len: usize, problem: Problem| {
        edits.replace_byte(at, "&#123;");
        note(findings, places, at, len, problem, "&#123;");
    };
    for at in hazards {
        if at < from {
            continue;
        }
        match grammar.construct(at) {
            Construct::Call { end } => {
                // `{{ name(args) }}` as `{{/* name(args) */}}`.
                if memmem::find(&html.as_bytes()[at + 2..end - 2], b"*/}}").is_some() {
                    leftover(edits, at, end - at, Problem::ZolaEscapeInArgument);
                    continue;
                }
                edits.insert(at + 2, "/*", Order::Escape);
                edits.insert(end - 2, "*/", Order::Escape);
                from = end;
            }
            Construct::BodyCall(body) => {
                // `{% name(args) %}...{% end %}` as `{%/* name(args) */%}...{%/* end */%}`.
                if memmem::find(&html.as_bytes()[at + 2..body.start_end - 2], b"*/%}").is_some() {
                    leftover(
                        edits,
                        at,
                        body.start_end - at,
                        Problem::ZolaEscapeInArgument,
                    );
                    continue;
                }
                edits.insert(at + 2, "/*", Order::Escape);
                edits.insert(body.start_end - 2, "*/", Order::Escape);
                edits.insert(body.end_start + 2, "/*", Order::Escape);
                edits.insert(body.end - 2, "*/", Order::Escape);
                from = body.end;
            }
            Construct::Escaped { end } => {
                leftover(edits, at, end - at, Problem::ZolaEscapedShortcode);
            }
            Construct::Unpaired { end } => leftover(edits, at, end - at, Problem::ZolaUnpaired),
            Construct::TooDeep => leftover(edits, at, 2, Problem::ZolaTooDeep),
        }
    }
}

/// How deeply arrays and body calls may nest before the export stops telling what they are.
const MAX_DEPTH: u32 = 32;

/// Too deeply nested to tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TooDeep;

/// The end of what matched, if anything did.
type Parsed = Result<Option<usize>, TooDeep>;

/// A body call as Zola parses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BodyCall {
    /// Just after the start's `%}`.
    start_end: usize,
    /// The `{` of the `{% end %}`.
    end_start: usize,
    /// Just after the end's `%}`.
    end: usize,
}

/// What Zola's pass does at a point where its text rule stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Construct {
    /// `{{ name(args) }}`, ending at `end`.
    Call { end: usize },
    /// `{% name(args) %}` ... `{% end %}`.
    BodyCall(BodyCall),
    /// `{{/* name(args) */}}`, or an escaped body call, whose start ends at `end`.
    Escaped { end: usize },
    /// A body start with no end, or an end alone (ending at `end`): a parse error.
    Unpaired { end: usize },
    /// Cannot tell.
    TooDeep,
}

/// Zola's shortcode grammar (`components/markdown/src/content.pest` in Zola 0.22), as a
/// parsing expression grammar with the same ordered choices and implicit white space, over the
/// body's bytes. Results are kept per position, so a body is read in time linear in its size
/// however its calls overlap; nesting deeper than [`MAX_DEPTH`] is not followed.
struct Grammar<'a> {
    b: &'a [u8],
    /// Every point where the text rule stops (some rule matches or cannot be told), in order.
    hazards: Vec<usize>,
    literals: HashMap<usize, Parsed>,
    calls: HashMap<usize, Parsed>,
    bodies: HashMap<(usize, bool), Result<Option<BodyCall>, TooDeep>>,
}

/// Pest's implicit white space in Zola's grammar.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Grammar<'a> {
    fn new(b: &'a [u8]) -> Self {
        let mut grammar = Grammar {
            b,
            hazards: Vec::new(),
            literals: HashMap::new(),
            calls: HashMap::new(),
            bodies: HashMap::new(),
        };
        let candidates: Vec<usize> = memchr::memchr_iter(b'{', b)
            .filter(|&at| matches!(b.get(at + 1), Some(b'{' | b'%')))
            .collect();
        grammar.hazards = candidates
            .into_iter()
            .filter(|&at| grammar.stops_text(at) != Ok(false))
            .collect();
        grammar
    }

    fn skip(&self, mut at: usize) -> usize {
        while self.b.get(at).copied().is_some_and(is_space) {
            at += 1;
        }
        at
    }

    fn starts(&self, at: usize, word: &[u8]) -> bool {
        self.b.get(at..at + word.len()) == Some(word)
    }

    /// `ident = @{ ('a'..'z' | 'A'..'Z' | "_") ~ ('a'..'z' | 'A'..'Z' | "_" | '0'..'9')* }`
    fn ident(&self, at: usize) -> Option<usize> {
        let first = *self.b.get(at)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let rest = self.b[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        Some(at + 1 + rest)
    }

    /// `"-"? ~ ("0" | '1'..'9' ~ '0'..'9'*)`, the integer part of `int` and `float`.
    fn integer(&self, at: usize) -> Option<usize> {
        let at = if self.b.get(at) == Some(&b'-') {
            at + 1
        } else {
            at
        };
        match self.b.get(at)? {
            b'0' => Some(at + 1),
            b'1'..=b'9' => Some(at + 1 + self.digits(at + 1)),
            _ => None,
        }
    }

    fn digits(&self, at: usize) -> usize {
        self.b.get(at..).map_or(0, |rest| {
            rest.iter().take_while(|b| b.is_ascii_digit()).count()
        })
    }

    /// `literal = { boolean | string | float | int | array }`
    fn literal(&mut self, at: usize, depth: u32) -> Parsed {
        if let Some(&known) = self.literals.get(&at) {
            return known;
        }
        let result = self.literal_uncached(at, depth);
        self.literals.insert(at, result);
        result
    }

    fn literal_uncached(&mut self, at: usize, depth: u32) -> Parsed {
        if self.starts(at, b"true") {
            return Ok(Some(at + 4));
        }
        if self.starts(at, b"false") {
            return Ok(Some(at + 5));
        }
        if let Some(&quote @ (b'"' | b'\'' | b'`')) = self.b.get(at) {
            return Ok(memchr::memchr(quote, &self.b[at + 1..]).map(|close| at + 1 + close + 1));
        }
        if let Some(whole) = self.integer(at) {
            // float: the integer part, then "." and at least one digit.
            if self.b.get(whole) == Some(&b'.') && self.digits(whole + 1) > 0 {
                return Ok(Some(whole + 1 + self.digits(whole + 1)));
            }
            return Ok(Some(whole));
        }
        if self.b.get(at) == Some(&b'[') {
            return self.array(at, depth + 1);
        }
        Ok(None)
    }

    /// `array = { "[" ~ (literal ~ ",")* ~ literal? ~ "]" }`
    fn array(&mut self, at: usize, depth: u32) -> Parsed {
        if depth > MAX_DEPTH {
            return Err(TooDeep);
        }
        let mut next = at + 1;
        loop {
            let start = self.skip(next);
            let Some(end) = self.literal(start, depth)? else {
                break;
            };
            let comma = self.skip(end);
            if self.b.get(comma) != Some(&b',') {
                break;
            }
            next = comma + 1;
        }
        let mut close = self.skip(next);
        if let Some(end) = self.literal(close, depth)? {
            close = self.skip(end);
        }
        Ok((self.b.get(close) == Some(&b']')).then_some(close + 1))
    }

    /// `kwarg = { ident ~ "=" ~ literal }`
    fn kwarg(&mut self, at: usize) -> Parsed {
        let Some(name) = self.ident(at) else {
            return Ok(None);
        };
        let equals = self.skip(name);
        if self.b.get(equals) != Some(&b'=') {
            return Ok(None);
        }
        let value = self.skip(equals + 1);
        self.literal(value, 0)
    }

    /// `sc_def = _{ ident ~ "(" ~ kwargs* ~ ")" }`, with
    /// `kwargs = _{ kwarg ~ ("," ~ kwarg)* }`.
    fn call(&mut self, at: usize) -> Parsed {
        if let Some(&known) = self.calls.get(&at) {
            return known;
        }
        let result = self.call_uncached(at);
        self.calls.insert(at, result);
        result
    }

    fn call_uncached(&mut self, at: usize) -> Parsed {
        let Some(name) = self.ident(at) else {
            return Ok(None);
        };
        let open = self.skip(name);
        if self.b.get(open) != Some(&b'(') {
            return Ok(None);
        }
        let mut next = open + 1;
        // kwargs*: groups of comma-separated kwargs, one after another.
        loop {
            let start = self.skip(next);
            let Some(mut end) = self.kwarg(start)? else {
                break;
            };
            loop {
                let comma = self.skip(end);
                if self.b.get(comma) != Some(&b',') {
                    break;
                }
                match self.kwarg(self.skip(comma + 1))? {
                    Some(after) => end = after,
                    None => break,
                }
            }
            next = end;
        }
        let close = self.skip(next);
        Ok((self.b.get(close) == Some(&b')')).then_some(close + 1))
    }

    /// `open ~ sc_def ~ close` (an inline call, escaped or not, or a body start).
    fn delimited_call(&mut self, at: usize, open: &[u8], close: &[u8]) -> Parsed {
        if !self.starts(at, open) {
            return Ok(None);
        }
        let name = self.skip(at + open.len());
        let Some(end) = self.call(name)? else {
            return Ok(None);
        };
        let after = self.skip(end);
        Ok(self.starts(after, close).then_some(after + close.len()))
    }

    /// `open ~ "end" ~ close` (a body end, escaped or not).
    fn delimited_end(&self, at: usize, open: &[u8], close: &[u8]) -> Option<usize> {
        if !self.starts(at, open) {
            return None;
        }
        let word = self.skip(at + open.len());
        if !self.starts(word, b"end") {
            return None;
        }
        let after = self.skip(word + 3);
        self.starts(after, close).then_some(after + close.len())
    }

    /// `inline_shortcode = !{ "{{" ~ sc_def ~ "}}" }`
    fn inline(&mut self, at: usize) -> Parsed {
        self.delimited_call(at, b"{{", b"}}")
    }

    /// `ignored_inline_shortcode = !{ "{{/*" ~ sc_def ~ "*/}}" }`
    fn ignored_inline(&mut self, at: usize) -> Parsed {
        self.delimited_call(at, b"{{/*", b"*/}}")
    }

    /// `sc_body_start`, or `ignored_sc_body_start` when `ignored`.
    fn body_start(&mut self, at: usize, ignored: bool) -> Parsed {
        if ignored {
            self.delimited_call(at, b"{%/*", b"*/%}")
        } else {
            self.delimited_call(at, b"{%", b"%}")
        }
    }

    /// `sc_body_end`, or `ignored_sc_body_end` when `ignored`.
    fn body_end(&self, at: usize, ignored: bool) -> Option<usize> {
        if ignored {
            self.delimited_end(at, b"{%/*", b"*/%}")
        } else {
            self.delimited_end(at, b"{%", b"%}")
        }
    }

    /// Whether the `text` rule stops at `at`: whether any of the six rules in its negative
    /// lookahead matches there.
    fn stops_text(&mut self, at: usize) -> Result<bool, TooDeep> {
        if self.b.get(at) != Some(&b'{') {
            return Ok(false);
        }
        let mut deep = false;
        for rule in 0..4 {
            let matched = match rule {
                0 => self.inline(at),
                1 => self.ignored_inline(at),
                2 => self.body_start(at, false),
                _ => self.body_start(at, true),
            };
            match matched {
                Ok(Some(_)) => return Ok(true),
                Ok(None) => {}
                Err(TooDeep) => deep = true,
            }
        }
        if self.body_end(at, false).is_some() || self.body_end(at, true).is_some() {
            return Ok(true);
        }
        if deep { Err(TooDeep) } else { Ok(false) }
    }

    /// The first point at or after `at` where the text rule stops, or the end.
    fn next_hazard(&self, at: usize) -> usize {
        let i = self.hazards.partition_point(|&h| h < at);
        self.hazards.get(i).copied().unwrap_or(self.b.len())
    }

    /// `shortcode_with_body`, or `ignored_shortcode_with_body` when `ignored`:
    /// `start ~ (!(end) ~ content)+ ~ end`.
    fn body_call(
        &mut self,
        at: usize,
        ignored: bool,
        depth: u32,
    ) -> Result<Option<BodyCall>, TooDeep> {
        if let Some(&known) = self.bodies.get(&(at, ignored)) {
            return known;
        }
        let result = self.body_call_uncached(at, ignored, depth);
        self.bodies.insert((at, ignored), result);
        result
    }

    fn body_call_uncached(
        &mut self,
        at: usize,
        ignored: bool,
        depth: u32,
    ) -> Result<Option<BodyCall>, TooDeep> {
        if depth > MAX_DEPTH {
            return Err(TooDeep);
        }
        let Some(start_end) = self.body_start(at, ignored)? else {
            return Ok(None);
        };
        let mut next = start_end;
        let mut items = 0;
        loop {
            if let Some(end) = self.body_end(next, ignored) {
                return Ok((items > 0).then_some(BodyCall {
                    start_end,
                    end_start: next,
                    end,
                }));
            }
            if next >= self.b.len() {
                return Ok(None);
            }
            next = match self.content(next, depth)? {
                Some(end) => end,
                None => return Ok(None),
            };
            items += 1;
        }
    }

    /// `content = _{ ignored_inline_shortcode | inline_shortcode |
    /// ignored_shortcode_with_body | shortcode_with_body | text }` at `at`.
    fn content(&mut self, at: usize, depth: u32) -> Parsed {
        if let Some(end) = self.ignored_inline(at)? {
            return Ok(Some(end));
        }
        if let Some(end) = self.inline(at)? {
            return Ok(Some(end));
        }
        if let Some(body) = self.body_call(at, true, depth + 1)? {
            return Ok(Some(body.end));
        }
        if let Some(body) = self.body_call(at, false, depth + 1)? {
            return Ok(Some(body.end));
        }
        // text = ${ (!(...) ~ ANY)+ }: at least one character, up to the next stop.
        if self.stops_text(at)? {
            return Ok(None);
        }
        Ok(Some(self.next_hazard(at + 1)))
    }

    /// What the pass does at the point `at`, where the text rule stops.
    fn construct(&mut self, at: usize) -> Construct {
        self.try_construct(at).unwrap_or(Construct::TooDeep)
    }

    fn try_construct(&mut self, at: usize) -> Result<Construct, TooDeep> {
        if let Some(end) = self.ignored_inline(at)? {
            return Ok(Construct::Escaped { end });
        }
        if let Some(end) = self.inline(at)? {
            return Ok(Construct::Call { end });
        }
        if let Some(body) = self.body_call(at, true, 0)? {
            return Ok(Construct::Escaped {
                end: body.start_end,
            });
        }
        if let Some(body) = self.body_call(at, false, 0)? {
            return Ok(Construct::BodyCall(body));
        }
        for ignored in [false, true] {
            if let Some(end) = self.body_start(at, ignored)? {
                return Ok(Construct::Unpaired { end });
            }
            if let Some(end) = self.body_end(at, ignored) {
                return Ok(Construct::Unpaired { end });
            }
        }
        Err(TooDeep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hazards(text: &str) -> Vec<usize> {
        Grammar::new(text.as_bytes()).hazards
    }

    #[test]
    fn calls_follow_zolas_grammar() {
        for call in [
            "{{ youtube() }}",
            "{{youtube()}}",
            "{{ youtube(id=\"abc\") }}",
            "{{ a(x=1, y='two', z=`three`, w=true, v=false, u=-1.5, t=0) }}",
            "{{ a(x=[1, [2, 3], \"s\",], y=[]) }}",
            "{{\n a(\n x = 1 ,\n y = 2\n )\n }}",
            // kwargs groups may follow each other without a comma.
            "{{ a(x=1 y=2) }}",
            "{{ a(x=1y=2) }}",
            "{{ a(x=truey=1) }}",
            "{{ a(s=\"}} {{ b() }}\") }}",
        ] {
            let mut grammar = Grammar::new(call.as_bytes());
            assert_eq!(grammar.inline(0), Ok(Some(call.len())), "{call}");
        }
        for not_a_call in [
            "{{ youtube }}",
            "{{ x }}",
            "{{ a(x=1,) }}",
            "{{ a(x) }}",
            "{{ a(x=01) }}",
            "{{ a(x=1.) }}",
            "{{ a(x=[,]) }}",
            "{{ a(x=\"open) }}",
            "{{ 1a() }}",
            "{{ a () } }",
            "{ { a() }}",
            "{{ a-b() }}",
        ] {
            let mut grammar = Grammar::new(not_a_call.as_bytes());
            assert_eq!(grammar.inline(0), Ok(None), "{not_a_call}");
        }
    }

    #[test]
    fn the_text_rule_stops_at_every_construct_start() {
        assert_eq!(hazards("a {{ x }} {{ f() }} b"), vec![10]);
        assert_eq!(hazards("{% end %} {%end%} {% endx %}"), vec![0, 10]);
        assert_eq!(hazards("{%/* end */%} {{/* f() */}}"), vec![0, 14]);
        assert_eq!(hazards("{{{ f() }}"), vec![1]);
        assert_eq!(hazards("{% f() %}"), vec![0]);
    }

    #[test]
    fn body_calls_nest_and_end_at_their_own_end() {
        let text = "{% a() %}x{% b() %}y{% end %}z{% end %}";
        let mut grammar = Grammar::new(text.as_bytes());
        assert_eq!(
            grammar.construct(0),
            Construct::BodyCall(BodyCall {
                start_end: 9,
                end_start: 30,
                end: text.len()
            })
        );
        // An empty body is no body: Zola stops there.
        let mut grammar = Grammar::new(b"{% a() %}{% end %}");
        assert_eq!(grammar.construct(0), Construct::Unpaired { end: 9 });
        // An escaped end inside a body it does not close is an error too.
        let mut grammar = Grammar::new(b"{% a() %}x{%/* end */%}y{% end %}");
        assert_eq!(grammar.construct(0), Construct::Unpaired { end: 9 });
    }

    #[test]
    fn deep_nesting_is_not_followed() {
        let deep = format!("{{{{ a(x={}1{}) }}}}", "[".repeat(100), "]".repeat(100));
        let mut grammar = Grammar::new(deep.as_bytes());
        assert_eq!(grammar.hazards, vec![0]);
        assert_eq!(grammar.construct(0), Construct::TooDeep);
        let shallow = format!("{{{{ a(x={}1{}) }}}}", "[".repeat(20), "]".repeat(20));
        let mut grammar = Grammar::new(shallow.as_bytes());
        assert_eq!(grammar.construct(0), Construct::Call { end: shallow.len() });
    }

    #[test]
    fn calls_are_escaped_the_rest_is_broken_with_a_reference() {
        let (out, findings) =
            body("<p>{{ youtube(id=\"abc\") }} {% note() %}x{% end %} {{/* c() */}} {% end %}</p>");
        assert_eq!(
            out,
            "<script></script ><div class=\"blogread-content\"><p>{{/* youtube(id=\"abc\") */}} \
             {%/* note() */%}x{%/* end */%} &#123;{/* c() */}} &#123;% end %}</p></div>\n"
        );
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn what_cannot_be_broken_where_it_is_is_found() {
        let (out, findings) = body("<script>var t = `{% end %}`;</script>");
        assert!(out.contains("`&#123;% end %}`"), "{out}");
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].problem, Problem::ZolaUnpaired);
        assert_eq!(findings[0].place, Place::RawText { element: "script" });
    }

    #[test]
    fn end_tags_of_the_block_element_are_changed_so_markdown_keeps_one_block() {
        let (out, findings) =
            body("<script>a\n\nb</script>\n<textarea></script></textarea><!-- </script> -->");
        assert!(
            out.starts_with("<style></style ><div"),
            "a </script> in a comment makes <style> the block element: {out}"
        );
        assert!(findings.is_empty(), "{findings:?}");
        // A script's own end tag becomes `</script >`, one in an attribute value `&lt;/script>`.
        let (out, findings) =
            body("<p>x</p>\n\n<script>a\n\nb</script><p title=\"</script>\" lang=\"</style>\">");
        assert_eq!(
            out,
            "<script></script ><div class=\"blogread-content\"><p>x</p>\n\n<script>a\n\nb\
             </script ><p title=\"&lt;/script>\" lang=\"</style>\"></div>\n"
        );
        assert!(findings.is_empty());
        let (_, findings) = body("<!-- </script> </style> -->");
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].problem, Problem::ZolaBlockEnd);
    }

    #[test]
    fn summary_dividers_are_broken() {
        let (out, findings) = body("<p>a</p><!-- more --><p title=\"<!--MORE-->\">b</p>");
        assert!(out.contains("<!-- more --!>"), "{out}");
        assert!(out.contains("title=\"&lt;!--MORE-->\""), "{out}");
        assert!(findings.is_empty());
    }
}
