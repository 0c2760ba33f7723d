//! The examples of `docs/content.md` are what the code does: every "stored / returned" row of
//! its internal-link tables is what [`links::resolve`] returns, and every row of its word count
//! table is what [`word_count`] counts. A change of the rules that forgets the docs fails here.

use std::collections::HashMap;

use blogread_core::links::{self, LinkContext};
use blogread_core::word_count::word_count;

/// `docs/content.md`.
fn content_md() -> String {
    // When it runs, not where it was built: a shared target folder may hold a binary built
    // from another checkout.
    let path = std::path::Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .expect("cargo sets CARGO_MANIFEST_DIR when it runs a test"),
    )
    .join("../docs/content.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The context the examples state: the site URL is `https://example.com`, `hello-world` is a
/// published post titled `Hello, World`, `second-post` one titled `Second Post`, and nothing
/// else is published.
fn example_context() -> LinkContext {
    let published = HashMap::from([
        ("hello-world".to_owned(), "Hello, World".to_owned()),
        ("second-post".to_owned(), "Second Post".to_owned()),
    ]);
    LinkContext::new(Some("https://example.com"), published)
}

/// The first code span of a table cell (its text between the first two backticks).
fn first_code_span(cell: &str) -> Option<&str> {
    let start = cell.find('`')? + 1;
    let len = cell[start..].find('`')?;
    Some(&cell[start..start + len])
}

/// The rows of every table whose header is `header` (its cells, trimmed), as their cells.
fn table_rows<'a>(markdown: &'a str, header: &[&str]) -> Vec<Vec<&'a str>> {
    let cells = |line: &'a str| -> Vec<&'a str> {
        line.trim()
            .trim_start_matches('|')
            .trim_end_matches('|')
            .split('|')
            .map(str::trim)
            .collect()
    };
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in markdown.lines() {
        if !line.trim_start().starts_with('|') {
            in_table = false;
            continue;
        }
        let row = cells(line);
        if row == header {
            in_table = true;
        } else if in_table && !row.iter().all(|c| c.chars().all(|ch| ch == '-')) {
            rows.push(row);
        }
    }
    rows
}

#[test]
fn internal_link_examples_in_the_docs_are_what_resolution_returns() {
    let markdown = content_md();
    let rows = table_rows(&markdown, &["stored", "returned"]);
    assert!(
        rows.len() >= 15,
        "the examples are found ({} rows)",
        rows.len()
    );
    let ctx = example_context();
    for row in rows {
        let stored = first_code_span(row[0]).expect("a stored body in backticks");
        let returned = first_code_span(row[1]).expect("a returned body in backticks");
        assert_eq!(
            links::resolve(stored, &ctx),
            returned,
            "docs/content.md: {stored}"
        );
    }
}

#[test]
fn word_count_examples_in_the_docs_are_what_the_count_returns() {
    let markdown = content_md();
    let rows = table_rows(&markdown, &["body", "`word_count`"]);
    assert!(
        rows.len() >= 5,
        "the examples are found ({} rows)",
        rows.len()
    );
    for row in rows {
        let body = first_code_span(row[0]).expect("a body in backticks");
        let count: u64 = row[1]
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .expect("the count starts the cell");
        assert_eq!(word_count(body), count, "docs/content.md: {body}");
    }
}
