//! The slug grammar, as the server's core defines it: lower-case ASCII letters and digits in
//! words joined by single hyphens, 1 to 200 characters.
//!
//! The client checks it twice: a slug asked for with [`Client::get`](crate::Client::get) must
//! match it (and must not be a name the API keeps for an endpoint) before any request is sent,
//! and every `slug` the server sends must match it or the answer does not decode. So the `slug`
//! of every value this crate returns is safe to use as a file name or a path segment as is.
//!
//! The grammar and the reserved names are `blogread_markup`'s, the ones the server's core checks
//! slugs with, so the two cannot drift apart; the crate re-exports them:
//!
//! ```
//! use blogread_client::{MAX_SLUG_LEN, RESERVED_SLUGS, is_valid_slug};
//! assert!(is_valid_slug("my-first-post"));
//! assert!(!is_valid_slug("My-Post"));
//! assert!(!is_valid_slug("a--b"));
//! assert!(!is_valid_slug("../etc"));
//! assert!(RESERVED_SLUGS.iter().all(|name| is_valid_slug(name)));
//! assert!(!is_valid_slug(&"a".repeat(MAX_SLUG_LEN + 1)));
//! ```

pub use blogread_markup::slug::{MAX_SLUG_LEN, RESERVED_SLUGS, is_valid_slug};

use blogread_markup::slug::is_reserved_slug;
use serde::{Deserialize, Deserializer};

/// Why `slug` cannot be asked for, if it cannot.
pub(crate) fn refusal(slug: &str) -> Option<&'static str> {
    if is_reserved_slug(slug) {
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
    fn reserved_names_and_names_outside_the_grammar_are_refused() {
        assert!(refusal("sitemap").is_some());
        assert!(refusal("redirects").is_some());
        assert!(refusal("Post").is_some());
        assert_eq!(refusal("my-post"), None);
    }
}
