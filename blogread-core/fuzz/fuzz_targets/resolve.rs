//! Fuzzes internal-link resolution: whatever the body, no `[INTERNAL:` may leave `resolve`,
//! a body without a placeholder comes back borrowed and unchanged, and the slugs
//! `referenced_slugs` reports are enough to resolve the body.
#![no_main]

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use blogread_core::links::{LinkContext, contains_placeholder, referenced_slugs, resolve};
use libfuzzer_sys::fuzz_target;

/// Every slug the fuzzer is likely to write is published, with a title that needs escaping.
fn published(slugs: &BTreeSet<String>) -> HashMap<String, String> {
    slugs
        .iter()
        .filter(|slug| !slug.starts_with('x'))
        .map(|slug| (slug.clone(), format!("<{slug}> & \"title\"")))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(body) = std::str::from_utf8(rest) else {
        return;
    };
    let site_url = match selector % 3 {
        0 => None,
        1 => Some("https://example.com/"),
        _ => Some("https://example.com/a?b=1&c=\"d\""),
    };

    let mut slugs = BTreeSet::new();
    referenced_slugs(body, &mut slugs);
    let ctx = LinkContext::new(site_url, published(&slugs));
    let out = resolve(body, &ctx);

    assert!(
        !out.contains("[INTERNAL:"),
        "placeholder leaked for {body:?}: {out:?}"
    );
    if !contains_placeholder(body) {
        assert!(matches!(out, Cow::Borrowed(b) if b == body));
    }
});
