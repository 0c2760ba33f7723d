//! A post's body as each generator must be given it so that the built page shows exactly the
//! API's `content`, whatever the post says.
//!
//! Zola and Hugo read a content file's body before any browser does: both run a shortcode pass
//! over it as text, both take a marker for their summary divider, Zola then runs Markdown, Hugo
//! replaces its own placeholders. Text in a post that looks like any of these is written so that
//! the generator shows it as the browser would have shown the API's HTML:
//!
//! - with the generator's own escape where it gives the text back exactly (Hugo
//!   `{{</* ... */>}}` and `{{%/* ... */%}}`, Zola `{{/* ... */}}` and `{%/* ... */%}`), which
//!   works wherever the text is, inside `<script>` too;
//! - else with its first character as a character reference (`&#123;`, `&lt;`), which the
//!   browser decodes back in text and attribute values ([`html`] tells where that is);
//! - a comment's `-->` as `--!>`, which ends the comment just the same;
//! - and where neither can be, a [`Finding`]: the export writes the character reference anyway,
//!   so the site still builds, and warns.
//!
//! See [`zola`] and [`hugo`] for each generator's rules.

mod edits;
pub(crate) mod html;
pub(crate) mod hugo;
pub(crate) mod zola;

use html::Place;

/// Something in a body that the generator cannot show exactly, found while writing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Byte offset of the text in the body.
    pub(crate) at: usize,
    /// Length in bytes of the text (for the excerpt in the warning).
    pub(crate) len: usize,
    /// Where the text is.
    pub(crate) place: Place,
    /// What the generator would do with it.
    pub(crate) problem: Problem,
    /// What the export wrote in its place (its start).
    pub(crate) written: &'static str,
}

/// What a generator would do with a piece of text it cannot be given exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Zola shows an escaped shortcode (`{{/* name() */}}`, `{%/* name() */%}`) without its
    /// `/* */`.
    ZolaEscapedShortcode,
    /// A Zola body shortcode start or `{% end %}` without its partner: Zola stops the build.
    ZolaUnpaired,
    /// A Zola shortcode call whose argument holds `*/}}` or `*/%}`, so Zola's escape cannot
    /// give it back.
    ZolaEscapeInArgument,
    /// Nested too deeply for the export to tell whether Zola takes it for a shortcode.
    ZolaTooDeep,
    /// `</script>` (or `</style>`) would end the HTML block Zola's Markdown reads the body as.
    ZolaBlockEnd,
    /// `{{<` or `{{%` with no `>}}` or `%}}` after it: Hugo stops the build.
    HugoUnclosed,
    /// `HAHAHUGOSHORTCODE`, Hugo's placeholder for a shortcode: Hugo stops the build.
    HugoPlaceholder,
    /// `{{__hugo_ctx` after white space at the start of a line: Hugo removes that white space.
    HugoContextMarker,
    /// The generator takes it for its summary divider and replaces it.
    SummaryDivider {
        /// The generator.
        generator: &'static str,
    },
}

impl Problem {
    fn explain(self) -> String {
        match self {
            Problem::ZolaEscapedShortcode => {
                "Zola shows an escaped shortcode without its `/* */`".to_owned()
            }
            Problem::ZolaUnpaired => {
                "Zola stops the build at a body shortcode without its `{% end %}`, or an \
                 `{% end %}` without its start"
                    .to_owned()
            }
            Problem::ZolaEscapeInArgument => {
                "its argument holds `*/}}` or `*/%}`, so Zola's own escape cannot give it back, \
                 and Zola would run it as a shortcode"
                    .to_owned()
            }
            Problem::ZolaTooDeep => {
                "it is nested too deeply to tell whether Zola takes it for a shortcode".to_owned()
            }
            Problem::ZolaBlockEnd => {
                "Zola's Markdown would end the HTML block at this line and read what follows as \
                 Markdown"
                    .to_owned()
            }
            Problem::HugoUnclosed => {
                "Hugo stops the build at a shortcode opener with no closing `>}}` or `%}}`"
                    .to_owned()
            }
            Problem::HugoPlaceholder => {
                "Hugo takes it for one of its shortcode placeholders and stops the build".to_owned()
            }
            Problem::HugoContextMarker => {
                "Hugo removes the white space before it at the start of the line".to_owned()
            }
            Problem::SummaryDivider { generator } => {
                format!("{generator} takes it for its summary divider and removes it")
            }
        }
    }
}

impl Finding {
    /// The warning for this finding in `body`: the text, its line, where it is, why it cannot
    /// be shown exactly and what was written instead.
    pub(crate) fn message(&self, body: &str) -> (usize, String) {
        let line = 1 + memchr::memchr_iter(b'\n', &body.as_bytes()[..self.at]).count();
        let end = (self.at + self.len).min(body.len());
        let mut shown = end.min(self.at + 40);
        while !body.is_char_boundary(shown) {
            shown -= 1;
        }
        let mut excerpt = String::new();
        for c in body[self.at..shown].chars() {
            match c {
                '\n' => excerpt.push_str("\\n"),
                '\r' => excerpt.push_str("\\r"),
                '\t' => excerpt.push_str("\\t"),
                c => excerpt.push(c),
            }
        }
        if shown < end {
            excerpt.push_str("...");
        }
        let place = self.place.describe();
        let why = self.problem.explain();
        let message = match self.problem {
            Problem::HugoContextMarker => format!("`{excerpt}` {place}: {why}; written as it is"),
            _ => format!(
                "`{excerpt}` {place}: {why}; written with `{}` instead, which shows as written there",
                self.written
            ),
        };
        (line, message)
    }
}

/// Notes `problem` for the text at `at..at + len` unless the place shows the change made there
/// exactly (a character reference in text or an attribute value) or drops it.
fn note(
    findings: &mut Vec<Finding>,
    places: &html::Places,
    at: usize,
    len: usize,
    problem: Problem,
    written: &'static str,
) {
    let place = places.at(at).place;
    if !place.decodes_references() && !place.is_dropped() {
        findings.push(Finding {
            at,
            len,
            place,
            problem,
            written,
        });
    }
}

/// A summary divider found at `at..end` (`end` just after its `-->`): a comment ending there
/// gets `--!>`, which ends it just the same; elsewhere its `<` becomes `&lt;`, noted where the
/// browser does not decode it.
fn break_summary_divider(
    edits: &mut edits::Edits,
    findings: &mut Vec<Finding>,
    places: &html::Places,
    at: usize,
    end: usize,
    generator: &'static str,
) {
    let span = places.at(at);
    if span.place == Place::Comment && span.end == end {
        edits.insert(end - 1, "!", edits::Order::Text);
    } else {
        edits.replace_byte(at, "&lt;");
        note(
            findings,
            places,
            at,
            end - at,
            Problem::SummaryDivider { generator },
            "&lt;",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_shows_the_text_on_one_line_shortened_with_its_line_number() {
        let body = "<p>a</p>\n<script>\nf(`{{ f(s=\"*/}}\", t=\"a very long\nargument that goes on\") }}`);\n</script>";
        let (_, findings) = zola::body(body);
        assert_eq!(findings.len(), 1, "{findings:?}");
        let (line, message) = findings[0].message(body);
        assert_eq!(line, 3);
        assert_eq!(
            message,
            "`{{ f(s=\"*/}}\", t=\"a very long\\nargument t...` inside <script>: its argument holds \
             `*/}}` or `*/%}`, so Zola's own escape cannot give it back, and Zola would run it as \
             a shortcode; written with `&#123;` instead, which shows as written there"
        );
    }
}
