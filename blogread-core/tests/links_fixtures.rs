//! Golden-file tests for internal-link resolution: every directory under
//! `tests/fixtures/links/` holds `input.html`, `context.json` and the exact `expected.html`.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use blogread_core::links::{LinkContext, referenced_slugs, resolve};
use serde::Deserialize;

/// `context.json`: the project's site URL and its published blogs (slug -> title).
#[derive(Deserialize)]
struct Context {
    site_url: Option<String>,
    published: HashMap<String, String>,
}

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/links");
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
}
