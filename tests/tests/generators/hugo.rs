//! What Hugo 0.168 does to an HTML content file (`.html`, not run through Markdown), up to the
//! HTML it gives a page as `.Content`, for a site with no shortcodes of its own. A port of the
//! parts of `parser/pageparser/pagelexer*.go` and `hugolib/page__content.go` that act on such
//! a body:
//!
//! 1. the lexer goes from `{{` to `{{`: `{{<` and `{{%` open a shortcode (which fails the
//!    build here, as the site has none), except a comment `{{</* ... */>}}` (`{{%/* ... */%}}`),
//!    given back without `/*` and `*/` (and failing the build when it is not closed); the first
//!    `<!--more-->`, with the white space after it, is the summary divider;
//! 2. `{{__hugo_ctx` markers are dedented;
//! 3. placeholders (`HAHAHUGOSHORTCODE...HBHB`) are replaced: with no shortcode, any is an error;
//! 4. the summary divider leaves `\n\n\n\n` in the content.
//!
//! `scripts/with-hugo` runs the real Hugo on such files in the end-to-end tests.

use std::sync::LazyLock;

use regex::bytes::Regex;

/// Where `needle` first is in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The front matter of the content file `file` as Hugo reads it, and the content after it; or
/// why the build fails.
pub fn split(file: &str) -> Result<(toml::Table, &str), String> {
    let rest = file.strip_prefix("+++\n").ok_or("no TOML front matter")?;
    let end = rest.find("\n+++\n").ok_or("front matter not closed")?;
    let table =
        toml::from_str::<toml::Table>(&rest[..end]).map_err(|e| format!("front matter: {e}"))?;
    Ok((table, &rest[end + "\n+++\n".len()..]))
}

/// The content Hugo makes of the content file `file`, or why the build fails.
pub fn render(file: &str) -> Result<String, String> {
    let (_, content) = split(file)?;
    let (mut out, divider) = lex(content.as_bytes())?;
    if find(&out, b"{{__hugo_ctx").is_some() {
        static INDENTED: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"(?m)^[ \t]+(\{\{__hugo_ctx[^\n]*\}\})").unwrap());
        out = INDENTED.replace_all(&out, &b"$1"[..]).into_owned();
    }
    if let Some(at) = find(&out, b"HAHAHUGOSHORTCODE") {
        return Err(match find(&out[at..], b"HBHB") {
            Some(_) => "unknown shortcode token".to_owned(),
            None => "illegal state in content; shortcode token missing end delim".to_owned(),
        });
    }
    if divider {
        let at = find(&out, b"HUGOMORE42").expect("the divider is there");
        out.drain(at..at + "HUGOMORE42".len());
    }
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The main section lexer: the content with shortcode comments given back and the divider
/// replaced, and whether there was a divider.
fn lex(input: &[u8]) -> Result<(Vec<u8>, bool), String> {
    const DIVIDER: &[u8] = b"<!--more-->";
    let mut out = Vec::with_capacity(input.len());
    let mut pos = 0;
    let mut divider_checked = false;
    let mut divider = false;
    while pos < input.len() {
        let next_sc = find(&input[pos..], b"{{").map(|i| pos + i);
        let next_div = if divider_checked {
            None
        } else {
            find(&input[pos..], DIVIDER).map(|i| pos + i)
        };
        let at = match (next_sc, next_div) {
            (None, None) => {
                out.extend_from_slice(&input[pos..]);
                break;
            }
            (Some(a), None) | (None, Some(a)) => a,
            (Some(a), Some(b)) => a.min(b),
        };
        out.extend_from_slice(&input[pos..at]);
        pos = at;
        let rest = &input[pos..];
        if rest.starts_with(b"{{<") || rest.starts_with(b"{{%") {
            let (open, close): (&[u8], &[u8]) = if rest[2] == b'<' {
                (b"{{<", b">}}")
            } else {
                (b"{{%", b"%}}")
            };
            pos += 3;
            if !input[pos..].starts_with(b"/*") {
                return Err("a shortcode: the site has no template for it".to_owned());
            }
            let right = [&b"*/"[..], close].concat();
            let found = find(&input[pos..], &right);
            let Some(found) = found.filter(|&i| i > 1) else {
                return Err("comment must be closed".to_owned());
            };
            out.extend_from_slice(open);
            out.extend_from_slice(&input[pos + 2..pos + found]);
            out.extend_from_slice(close);
            pos += found + 2 + 3;
        } else if !divider_checked && rest.starts_with(DIVIDER) {
            divider_checked = true;
            divider = true;
            pos += DIVIDER.len();
            while input
                .get(pos)
                .is_some_and(|b| matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' '))
            {
                pos += 1;
            }
            out.extend_from_slice(b"\n\nHUGOMORE42\n\n");
        } else {
            out.push(input[pos]);
            pos += 1;
        }
    }
    Ok((out, divider))
}

#[test]
fn the_model_does_what_hugo_does_with_the_issues_examples() {
    let file = |body: &str| format!("+++\ntitle = \"a\"\n+++\n{body}");
    assert!(render(&file("<p>{{% notice %}}x{{% /notice %}}</p>")).is_err());
    assert!(render(&file("<p>{{< youtube abc >}}</p>")).is_err());
    assert_eq!(
        render(&file("<p>{{</* x */>}} {{%/* y */%}} {{ z }}</p>")).unwrap(),
        "<p>{{< x >}} {{% y %}} {{ z }}</p>"
    );
    assert!(render(&file("<p>{{</* never</p>")).is_err());
    assert_eq!(
        render(&file("<pre>a<!--more-->\n\n  b</pre><!--more-->")).unwrap(),
        "<pre>a\n\n\n\nb</pre><!--more-->"
    );
    assert!(render(&file("<p>HAHAHUGOSHORTCODE-x-HBHB</p>")).is_err());
    assert_eq!(
        render(&file("<pre>\n   {{__hugo_ctx pid=1}} x}}\n</pre>")).unwrap(),
        "<pre>\n{{__hugo_ctx pid=1}} x}}\n</pre>"
    );
}
