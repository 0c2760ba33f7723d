//! The slug grammar, as the server's core defines it: lower-case ASCII letters and digits in
//! words joined by single hyphens, 1 to 200 characters.
//!
//! The client checks it twice: a slug asked for with [`Client::get`](crate::Client::get) must
//! match it (and must not be a name the API keeps for an endpoint) before any request is sent,
//! and every `slug` the server sends must match it or the answer does not decode. So the `slug`
//! of every value this crate returns is safe to use as a file name or a path segment as is.

use serde::{Deserialize, Deserializer};

/// The longest slug, in characters (all ASCII, so also in bytes).
pub const MAX_SLUG_LEN: usize = 200;

/// Names that match the slug grammar but that no post can have, since they name endpoints:
/// `sitemap` and `redirects` (below `/blogs/`) and `changes` (the changes feed).
/// [`Client::get`](crate::Client::get) refuses them.
pub const RESERVED_SLUGS: [&str; 3] = ["sitemap", "redirects", "changes"];

/// Whether `slug` matches the slug grammar: 1 to 200 lower-case letters `a-z` and digits, in
/// words joined by single hyphens (`my-first-post`, `2026-recap`). Reserved names
/// ([`RESERVED_SLUGS`]) match the grammar.
///
/// ```
/// use blogread_client::is_valid_slug;
/// assert!(is_valid_slug("my-first-post"));
/// assert!(!is_valid_slug("My-Post"));
/// assert!(!is_valid_slug("a--b"));
/// assert!(!is_valid_slug("../etc"));
/// ```
pub fn is_valid_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug.len() <= MAX_SLUG_LEN
        && slug.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Why `slug` cannot be asked for, if it cannot.
pub(crate) fn refusal(slug: &str) -> Option<&'static str> {
    if RESERVED_SLUGS.contains(&slug) {
        return Some("it names an endpoint of the API, never a blog");
    }
    if !is_valid_slug(slug) {
        return Some(
            "a slug is 1 to 200 lower-case letters a-z and digits, in words joined by single \
             hyphens (like `my-first-post`)",
        );
    }
    None
}

/// Deserialises a `slug` field, refusing anything outside the grammar.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let slug = String::deserialize(deserializer)?;
    if is_valid_slug(&slug) {
        Ok(slug)
    } else {
        Err(serde::de::Error::custom(format_args!(
            "the slug {slug:?} is outside the slug grammar (lower-case letters, digits, single \
             hyphens)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_grammar_is_lower_case_words_joined_by_single_hyphens() {
        for good in [
            "a",
            "hello-world",
            "2026-recap",
            "sitemap",
            &"a".repeat(200),
        ] {
            assert!(is_valid_slug(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "A",
            "a b",
            "a/b",
            "..",
            "a.md",
            "é",
            &"a".repeat(201),
        ] {
            assert!(!is_valid_slug(bad), "{bad}");
        }
    }

    #[test]
    fn reserved_names_and_names_outside_the_grammar_are_refused() {
        assert!(refusal("sitemap").is_some());
        assert!(refusal("redirects").is_some());
        assert!(refusal("Post").is_some());
        assert_eq!(refusal("my-post"), None);
    }
}
