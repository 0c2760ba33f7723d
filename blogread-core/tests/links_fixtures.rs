//! Golden-file tests for internal-link resolution: every directory under
//! `tests/fixtures/links/` holds `input.html`, `context.json` and the exact `expected.html`;
//! posts with tags of 150,000 attributes are generated, with their expected output.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use blogread_core::links::{LinkContext, compile, referenced_slugs, resolve};
use blogread_core::word_count::word_count;
use serde::Deserialize;

/// `context.json`: the project's site URL and its published blogs (slug -> title).
#[derive(Deserialize)]
struct Context {
    site_url: Option<String>,
    published: HashMap<String, String>,
}

fn cases() -> Vec<PathBuf> {
    // When it runs, not where it was built: a shared target folder may hold a binary built
    // from another checkout.
    let root = Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .expect("cargo sets CARGO_MANIFEST_DIR when it runs a test"),
    )
    .join("tests/fixtures/links");
    let mut cases: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("reading {}: {e}", root.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_dir())
        .collect();
    cases.sort();
    cases
}

fn read(case: &Path, file: &str) -> String {
    let path = case.join(file);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Names the first line that differs, so a failure reads like a diff.
fn first_difference(expected: &str, actual: &str) -> String {
    let mut expected_lines = expected.split_inclusive('\n');
    let mut actual_lines = actual.split_inclusive('\n');
    for line in 1.. {
        match (expected_lines.next(), actual_lines.next()) {
            (None, None) => break,
            (e, a) if e == a => continue,
            (e, a) => return format!("line {line}:\n- {e:?}\n+ {a:?}"),
        }
    }
    "no line differs".to_owned()
}

#[test]
fn fixtures_resolve_to_expected_output() {
    let cases = cases();
    assert!(
        cases.len() >= 12,
        "expected at least 12 fixture cases, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut compiled = 0;
    for case in &cases {
        let name = case.file_name().expect("case name").to_string_lossy();
        let input = read(case, "input.html");
        let expected = read(case, "expected.html");
        let context: Context = serde_json::from_str(&read(case, "context.json"))
            .unwrap_or_else(|e| panic!("{name}/context.json: {e}"));

        // The caller looks up only the referenced slugs: fixtures must not depend on more.
        let mut referenced = BTreeSet::new();
        referenced_slugs(&input, &mut referenced);
        let published = context
            .published
            .into_iter()
            .filter(|(slug, _)| referenced.contains(slug))
            .collect();
        let ctx = LinkContext::new(context.site_url.as_deref(), published);

        let actual = resolve(&input, &ctx);
        // Compiled at publish, linked at read: the template fills to the same bytes.
        if let Some(template) = compile(&input).into_template() {
            compiled += 1;
            let filled = template.fill(&ctx);
            if filled != actual {
                failures.push(format!(
                    "case `{name}`: the template fills differently at {}",
                    first_difference(&actual, &filled)
                ));
            }
        }
        if actual != expected {
            failures.push(format!(
                "case `{name}` differs at {}\n--- expected\n{expected}\n+++ actual\n{actual}",
                first_difference(&expected, &actual)
            ));
        }
        assert!(
            !actual.contains("[INTERNAL:"),
            "case `{name}` leaks a placeholder"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        compiled >= 6,
        "only {compiled} fixtures compiled to a template"
    );
}

// Generated fixtures: posts with one tag of 150,000 attributes, as in the attacker's post
// (stored, each would be two files of one to seven megabytes that differ in a few bytes). Each
// took seconds to tens of seconds to resolve and count in a release build, because each attribute
// name was compared with every earlier one, when resolving links and in the word count's
// tokenizer, and each changed attribute was written back with a call that scans all of them.
// The expected outputs are what the resolver gave before (compared on 10,000 attributes).

/// Attributes per wide tag.
const WIDE: usize = 150_000;

/// Where the published blog `gallery` is linked to.
const GALLERY: &str = "https://blog.example.com/blog/gallery/";

/// `WIDE` attributes, the `i`th written by `attribute(i)`.
fn wide(attribute: impl Fn(usize) -> String) -> String {
    (0..WIDE).map(attribute).collect()
}

/// Resolves `input` as a request would (looking up only the slugs it references, in a project
/// where `gallery` is published) and checks the output and the word count of both.
fn check_wide(shape: &str, input: &str, expected: &str, words: u64) {
    let mut referenced = BTreeSet::new();
    referenced_slugs(input, &mut referenced);
    let published = HashMap::from([("gallery".to_owned(), "Gallery".to_owned())])
        .into_iter()
        .filter(|(slug, _)| referenced.contains(slug))
        .collect();
    let ctx = LinkContext::new(Some("https://blog.example.com"), published);

    let resolved = resolve(input, &ctx);
    if resolved != expected {
        panic!(
            "{shape}: the output differs at {}",
            first_difference(expected, &resolved)
        );
    }
    assert_eq!(word_count(input), words, "{shape}: words of the input");
    assert_eq!(word_count(&resolved), words, "{shape}: words of the output");
}

/// The attacker's post: one `<img>` with 150,000 attributes and a placeholder in its `alt`,
/// about 1 MB in all (48 s to read once).
#[test]
fn wide_image_with_a_placeholder_in_its_alt_resolves_and_counts() {
    let attributes = wide(|i| format!(" a{i}"));
    let post = |alt: &str, link: &str| {
        format!(
            "<h1>A wide image</h1>\n<p>Words before it.</p>\n\
             <img{attributes} alt=\"{alt}\">\n<p>And three after: {link}.</p>\n"
        )
    };
    let input = post("[INTERNAL:gallery]", "[INTERNAL:gallery]");
    assert!(input.len() > 1_000_000, "{}", input.len());
    let expected = post(GALLERY, &format!(r#"<a href="{GALLERY}">Gallery</a>"#));
    check_wide("image", &input, &expected, 10);
}

/// Every attribute holds a placeholder: each is resolved (4.2 MB in, 7.2 MB out).
#[test]
fn wide_tag_with_a_placeholder_in_every_attribute_resolves_each() {
    let input = format!(
        "<p>Many links.</p><img{}>after",
        wide(|i| format!(" a{i}=\"[INTERNAL:gallery]\""))
    );
    let expected = format!(
        "<p>Many links.</p><img{}>after",
        wide(|i| format!(" a{i}=\"{GALLERY}\""))
    );
    check_wide("every attribute resolved", &input, &expected, 3);
}

/// Every attribute is an unquoted placeholder to an unpublished blog: each is dropped.
#[test]
fn wide_tag_with_an_unresolved_placeholder_in_every_attribute_drops_each() {
    let input = format!(
        "<p>Many links.</p><img{}>after",
        wide(|i| format!(" a{i}=[INTERNAL:draft]"))
    );
    check_wide(
        "every attribute dropped",
        &input,
        "<p>Many links.</p><img>after",
        3,
    );
}

/// A link with a placeholder `href`, 150,000 bare attributes and a single-quoted placeholder
/// `title`.
#[test]
fn wide_anchor_resolves_its_href_and_title() {
    let attributes = wide(|i| format!(" a{i}"));
    let input = format!(
        "<a href=\"[INTERNAL:gallery]\"{attributes} title='[INTERNAL:gallery]'>the gallery</a>"
    );
    let expected = format!("<a href=\"{GALLERY}\"{attributes} title=\"{GALLERY}\">the gallery</a>");
    check_wide("anchor", &input, &expected, 2);
}

/// End tags with 150,000 attributes (after data and after script text) are kept as written,
/// and the text after them resolves.
#[test]
fn wide_end_tags_are_kept_and_the_text_after_them_resolves() {
    let attributes = wide(|i| format!(" a{i}"));
    let link = format!(r#"<a href="{GALLERY}">Gallery</a>"#);
    for (shape, element, words) in [("end tag", "p", 3), ("script end tag", "script", 2)] {
        let input = format!("<{element}>x</{element}{attributes}> y [INTERNAL:gallery]");
        let expected = format!("<{element}>x</{element}{attributes}> y {link}");
        check_wide(shape, &input, &expected, words);
    }
}

/// Attributes separated by `/` instead of spaces: the rewritten tag separates them by spaces, as
/// `lol_html` writes a tag it changed.
#[test]
fn wide_tag_with_slash_separated_attributes_is_rewritten_with_spaces() {
    let input = format!(
        "<img{}/alt=\"[INTERNAL:gallery]\"> y",
        wide(|i| format!("/a{i}"))
    );
    let expected = format!("<img{} alt=\"{GALLERY}\"> y", wide(|i| format!(" a{i}")));
    check_wide("slash-separated", &input, &expected, 1);
}
