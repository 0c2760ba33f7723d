//! Scanning an HTML body as a browser's tokenizer reads it, without building anything: where a
//! tag ends and what its name and attributes are, where a comment or a bogus comment ends, and
//! where the text of a raw-text element or a script ends. Each piece follows the tokenizer's
//! states of the HTML standard; the caller plays the part of the tree builder (which start tag
//! switches the tokenizer into which text state: [`text_state_after`]) and decides what to do
//! with each token.
//!
//! Every function takes the body's bytes and an offset, returns offsets into the same bytes
//! (or `None` when the body ends first), moves only forward and looks at each byte a bounded
//! number of times, so a whole body is read in time linear in its length.

mod comment;
mod script;
mod tag;
mod text;

pub use comment::{bogus_comment_end, comment_end};
pub use script::script_end_tag;
pub use tag::{AttributePart, TagEnd, read_tag};
pub use text::{TextState, raw_end_tag, text_state_after};

/// Whether a tag opens or closes an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// A start tag, `<name ...>`.
    Start,
    /// An end tag, `</name ...>`.
    End,
}

/// White space between tag parts (a CR counts: the tokenizer's input turns it into a LF).
pub fn is_tag_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// What ends a tag name in the raw-text end-tag and script-escape states.
pub(crate) fn ends_tag_name(b: u8) -> bool {
    is_tag_space(b) || b == b'/' || b == b'>'
}

/// Where the run of ASCII letters that starts at `from` ends.
pub(crate) fn letters_end(bytes: &[u8], from: usize) -> usize {
    from + bytes.get(from..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_alphabetic()).count()
    })
}
