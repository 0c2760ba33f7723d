//! Where script text ends: the script data states, with their `<!--` escapes.

use super::{ends_tag_name, letters_end};

/// Whether the `/` at `slash` starts `/script` (any case) followed by white space, `/` or `>`.
fn is_script_end_tag_at(bytes: &[u8], slash: usize) -> bool {
    let name_end = slash + 1 + b"script".len();
    bytes
        .get(slash + 1..name_end)
        .is_some_and(|name| name.eq_ignore_ascii_case(b"script"))
        && bytes.get(name_end).copied().is_some_and(ends_tag_name)
}

/// The script data states, with their `<!--` escapes.
#[derive(Debug, Clone, Copy)]
enum Script {
    Data,
    LessThan,
    EscapeStart,
    EscapeStartDash,
    Escaped,
    EscapedDash,
    EscapedDashDash,
    EscapedLessThan,
    DoubleEscaped,
    DoubleEscapedDash,
    DoubleEscapedDashDash,
    DoubleEscapedLessThan,
}

/// The `<` of the end tag that ends script text starting at `from`; `None` when the script runs
/// to the end of the body. Follows the tokenizer's script data states, so a `</script>` inside
/// `<!--<script>` ... `-->` does not end the script.
pub fn script_end_tag(bytes: &[u8], from: usize) -> Option<usize> {
    use Script::*;
    let mut state = Data;
    let mut at = from;
    loop {
        if let Data = state {
            at += memchr::memchr(b'<', bytes.get(at..)?)? + 1;
            state = LessThan;
        }
        let b = *bytes.get(at)?;
        // Where reading goes on: past `b`, unless `b` is read again in the next state.
        let mut next = at + 1;
        state = match (state, b) {
            (Data, b'<') => LessThan,
            (Data, _) => Data,
            (LessThan | EscapedLessThan, b'/') => {
                if is_script_end_tag_at(bytes, at) {
                    return Some(at - 1);
                }
                // `</` and the letters after it are text; the next byte is read again.
                next = letters_end(bytes, at + 1);
                if let LessThan = state { Data } else { Escaped }
            }
            (LessThan, b'!') => EscapeStart,
            (EscapeStart, b'-') => EscapeStartDash,
            (EscapeStartDash, b'-') => EscapedDashDash,
            (LessThan | EscapeStart | EscapeStartDash, _) => {
                next = at;
                Data
            }
            (EscapedLessThan, b) if b.is_ascii_alphabetic() => {
                // `<script` then white space, `/` or `>` starts a double escape; other letters
                // are text.
                let end = letters_end(bytes, at);
                if ends_tag_name(*bytes.get(end)?) {
                    next = end + 1;
                    if bytes[at..end].eq_ignore_ascii_case(b"script") {
                        DoubleEscaped
                    } else {
                        Escaped
                    }
                } else {
                    next = end;
                    Escaped
                }
            }
            (EscapedLessThan, _) => {
                next = at;
                Escaped
            }
            (Escaped | EscapedDash | EscapedDashDash, b'<') => EscapedLessThan,
            (EscapedDashDash, b'>') => Data,
            (EscapedDash | EscapedDashDash, b'-') => EscapedDashDash,
            (Escaped, b'-') => EscapedDash,
            (Escaped | EscapedDash | EscapedDashDash, _) => Escaped,
            (DoubleEscapedLessThan, b'/') => {
                // `</script` then white space, `/` or `>` ends the double escape.
                let end = letters_end(bytes, at + 1);
                if ends_tag_name(*bytes.get(end)?) {
                    next = end + 1;
                    if bytes[at + 1..end].eq_ignore_ascii_case(b"script") {
                        Escaped
                    } else {
                        DoubleEscaped
                    }
                } else {
                    next = end;
                    DoubleEscaped
                }
            }
            (DoubleEscapedLessThan, _) => {
                next = at;
                DoubleEscaped
            }
            (DoubleEscaped | DoubleEscapedDash | DoubleEscapedDashDash, b'<') => {
                DoubleEscapedLessThan
            }
            (DoubleEscapedDashDash, b'>') => Data,
            (DoubleEscapedDash | DoubleEscapedDashDash, b'-') => DoubleEscapedDashDash,
            (DoubleEscaped, b'-') => DoubleEscapedDash,
            (DoubleEscaped | DoubleEscapedDash | DoubleEscapedDashDash, _) => DoubleEscaped,
        };
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(script: &str) -> Option<usize> {
        script_end_tag(script.as_bytes(), 0)
    }

    #[test]
    fn script_text_ends_at_the_first_script_end_tag_outside_escapes() {
        assert_eq!(end("var x = '<p>';</script>"), Some(14));
        assert_eq!(end("x</SCRIPT >"), Some(1));
        assert_eq!(end("x</script/>"), Some(1));
        assert_eq!(end("x</scriptx></script>"), Some(11));
        assert_eq!(end("x</script"), None);
        assert_eq!(end("never closed"), None);
    }

    #[test]
    fn a_script_end_tag_inside_a_double_escape_is_script_text() {
        // `<!--<script>` opens a double escape: its `</script>` only closes it.
        let script = "<!--<script></script>x--></script>y";
        assert_eq!(end(script), Some(25));
        // A plain `<!--` escape does not hide the end tag.
        assert_eq!(end("<!--</script>x"), Some(4));
        assert_eq!(end("<!-- --></script>x"), Some(8));
        // `<scriptx>` is no double escape.
        assert_eq!(end("<!--<scriptx></script>x"), Some(13));
        assert_eq!(end("<!--<script></script>"), None);
    }
}
