//! Where comments and bogus comments end.

use std::sync::LazyLock;

use memchr::memmem;

static DOUBLE_DASH: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"--"));

/// Just after the end of a comment whose text starts at `from` (just after `<!--`); `None` when
/// the body ends first (the comment then runs to the end). It ends at `<!-->` or `<!--->`, or
/// else at the first `-->` or `--!>`: in every comment state two dashes in a row lead to the
/// comment end state, where `>` (or `!>`) ends the comment.
pub fn comment_end(bytes: &[u8], from: usize) -> Option<usize> {
    match bytes.get(from..) {
        Some([b'>', ..]) => return Some(from + 1),
        Some([b'-', b'>', ..]) => return Some(from + 2),
        _ => {}
    }
    let mut at = from;
    while let Some(dashes) = DOUBLE_DASH.find(&bytes[at.min(bytes.len())..]) {
        let after = at + dashes + 2;
        match bytes.get(after..) {
            Some([b'>', ..]) => return Some(after + 1),
            Some([b'!', b'>', ..]) => return Some(after + 2),
            _ => at = at + dashes + 1,
        }
    }
    None
}

/// Just after the end of a bogus comment (`<!x ...>`, `<?x ...>`, `</ x>`) or a doctype whose
/// text starts at `from`: the first `>`. `None` when the body ends first.
pub fn bogus_comment_end(bytes: &[u8], from: usize) -> Option<usize> {
    let from = from.min(bytes.len());
    memchr::memchr(b'>', &bytes[from..]).map(|at| from + at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_end_where_the_tokenizer_ends_them() {
        for (html, end) in [
            ("<!-->x", Some(5)),
            ("<!--->x", Some(6)),
            ("<!---->x", Some(7)),
            ("<!-- a --!>x", Some(11)),
            ("<!-- a <!-->x", Some(12)),
            ("<!---!>x-->", Some(11)),
            ("<!-- a -- b -->", Some(15)),
            ("<!-- never", None),
            ("<!--", None),
        ] {
            assert_eq!(comment_end(html.as_bytes(), 4), end, "{html}");
        }
    }

    #[test]
    fn a_bogus_comment_ends_at_the_first_greater_than() {
        assert_eq!(bogus_comment_end(b"<!DOCTYPE \"a>b\">", 2), Some(13));
        assert_eq!(bogus_comment_end(b"<?x", 1), None);
        assert_eq!(bogus_comment_end(b"</", 3), None);
    }
}
