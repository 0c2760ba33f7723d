//! The body of a Hugo content file (`.html`, which Hugo does not run through Markdown).
//!
//! Hugo reads the body as text before it becomes the page (Hugo 0.168, `parser/pageparser`
//! and `hugolib`):
//!
//! - every `{{<` and `{{%` opens a shortcode, which runs to its `>}}` or `%}}` (a name Hugo does
//!   not know, or no closing delimiter at all, stops the build), except `{{</*` ... `*/>}}` and
//!   `{{%/*` ... `*/%}}`: a comment, shown as `{{<` ... `>}}` (or `{{%` ... `%}}`) with
//!   everything between kept as it is;
//! - the first `<!--more-->` is its summary divider, removed with the white space after it;
//! - `HAHAHUGOSHORTCODE` is the start of its placeholder for a rendered shortcode: any other is
//!   an error that stops the build;
//! - once `{{__hugo_ctx` is in the body, the white space before it at the start of a line is
//!   removed wherever `}}` follows it on that line.
//!
//! So the body is written:
//!
//! - each `{{<` with the text up to the first `>}}` after it as `{{</*` ... `*/>}}`, and the
//!   same for `{{%` and `%}}`: the comment gives back exactly the text as written, whatever it
//!   holds (`{{</* ... */>}}` included); an opener with no closing delimiter after it gets its
//!   `{` as `&#123;`;
//! - each `<!--more-->` broken (a comment's `-->` as `--!>`, elsewhere its `<` as `&lt;`);
//! - `HAHAHUGOSHORTCODE` with its `H` as `&#72;`; an indented `{{__hugo_ctx` with its `{` as
//!   `&#123;`;
//!
//! and where the browser would not decode such a reference (inside `<script>`, say), the change
//! is made all the same for what stops the build, and a [`Finding`] says so.

use memchr::memmem;

use super::edits::{Edits, Order};
use super::html::Places;
use super::{Finding, Problem, break_summary_divider, note};

/// `html` as the body of a Hugo content file (after the front matter), and what in it Hugo
/// cannot show exactly.
pub(crate) fn body(html: &str) -> (String, Vec<Finding>) {
    let bytes = html.as_bytes();
    let places = Places::of(html);
    let mut edits = Edits::default();
    let mut findings = Vec::new();

    for at in memmem::find_iter(bytes, b"<!--more-->") {
        break_summary_divider(
            &mut edits,
            &mut findings,
            &places,
            at,
            at + "<!--more-->".len(),
            "Hugo",
        );
    }

    for at in memmem::find_iter(bytes, b"HAHAHUGOSHORTCODE") {
        edits.replace_byte(at, "&#72;");
        note(
            &mut findings,
            &places,
            at,
            "HAHAHUGOSHORTCODE".len(),
            Problem::HugoPlaceholder,
            "&#72;",
        );
    }

    for at in memmem::find_iter(bytes, b"{{__hugo_ctx") {
        if !is_dedented(bytes, at) {
            continue;
        }
        let place = places.at(at).place;
        if place.decodes_references() || place.is_dropped() {
            edits.replace_byte(at, "&#123;");
        } else {
            findings.push(Finding {
                at,
                len: "{{__hugo_ctx".len(),
                place,
                problem: Problem::HugoContextMarker,
                written: "",
            });
        }
    }

    // Once a closing delimiter is missing after some point, it is missing after every later
    // one: remembered, so that a body of openers alone is read once.
    let mut unclosed = [false; 2];
    let mut at = 0;
    while let Some(found) = memmem::find(&bytes[at..], b"{{") {
        let open = at + found;
        let (close, kind): (&[u8], usize) = match bytes.get(open + 2) {
            Some(b'<') if !edits.replaces(open + 2) => (b">}}", 0),
            Some(b'%') => (b"%}}", 1),
            _ => {
                at = open + 1;
                continue;
            }
        };
        let found = if unclosed[kind] {
            None
        } else {
            memmem::find(&bytes[open + 3..], close)
        };
        unclosed[kind] = found.is_none();
        match found {
            Some(found) => {
                let close_at = open + 3 + found;
                edits.insert(open + 3, "/*", Order::Escape);
                edits.insert(close_at, "*/", Order::Escape);
                at = close_at + 3;
            }
            None => {
                edits.replace_byte(open, "&#123;");
                note(
                    &mut findings,
                    &places,
                    open,
                    3,
                    Problem::HugoUnclosed,
                    "&#123;",
                );
                at = open + 1;
            }
        }
    }

    findings.sort_by_key(|finding| finding.at);
    (edits.apply(html), findings)
}

/// Whether Hugo's `(?m)^[ \t]+({{__hugo_ctx[^\n]*}})` matches at the marker at `at`: white
/// space alone before it on its line, and `}}` after it on the line.
fn is_dedented(bytes: &[u8], at: usize) -> bool {
    let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |nl| nl + 1);
    let indent = &bytes[line_start..at];
    let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |nl| at + nl);
    !indent.is_empty()
        && indent.iter().all(|b| matches!(b, b' ' | b'\t'))
        && memmem::find(&bytes[at + 2..line_end], b"}}").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::body::html::Place;

    #[test]
    fn shortcode_look_alikes_become_hugo_comments() {
        let (out, findings) = body(
            "<p>{{% notice %}}x{{% /notice %}} {{< youtube abc >}} {{</* lit */>}} {{<>}}</p>\
             <script>var s = \"{{< x >}}\";</script>",
        );
        assert_eq!(
            out,
            "<p>{{%/* notice */%}}x{{%/* /notice */%}} {{</* youtube abc */>}} \
             {{</*/* lit */*/>}} {{</**/>}}</p><script>var s = \"{{</* x */>}}\";</script>"
        );
        assert!(findings.is_empty());
    }

    #[test]
    fn an_opener_without_a_closing_delimiter_is_broken() {
        let (out, findings) = body("<p>{{< never closed</p><script>{{% x</script>");
        assert_eq!(
            out,
            "<p>&#123;{< never closed</p><script>&#123;{% x</script>"
        );
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].problem, Problem::HugoUnclosed);
        assert_eq!(findings[0].place, Place::RawText { element: "script" });
    }

    #[test]
    fn summary_dividers_placeholders_and_markers_are_broken() {
        let (out, findings) = body(
            "<p>a</p><!--more--><p title=\"<!--more-->\">HAHAHUGOSHORTCODE-1-HBHB</p>\n  \
             {{__hugo_ctx pid=1}}\n<pre>{{__hugo_ctx}}</pre>",
        );
        assert_eq!(
            out,
            "<p>a</p><!--more--!><p title=\"&lt;!--more-->\">&#72;AHAHUGOSHORTCODE-1-HBHB</p>\n  \
             &#123;{__hugo_ctx pid=1}}\n<pre>{{__hugo_ctx}}</pre>"
        );
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn a_divider_that_opens_a_shortcode_is_broken_inside_the_comment() {
        let (out, _) = body("{{<!--more-->}}");
        assert_eq!(out, "{{</*!--more--!*/>}}");
    }
}
