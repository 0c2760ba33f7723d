//! The slug grammar (`docs/content.md#slugs`): lower-case ASCII letters and digits in words
//! joined by single hyphens, 1 to [`MAX_SLUG_LEN`] characters; and the names that match it but
//! that no post can have, since they name endpoints of the public API ([`RESERVED_SLUGS`]).
//!
//! A slug that matches the grammar is safe as a file name or a path segment as is.

/// The longest slug, in characters (all ASCII, so also in bytes).
pub const MAX_SLUG_LEN: usize = 200;

/// Names that match the slug grammar but that no post can have, since they name endpoints:
/// `sitemap` and `redirects` (below `/blogs/`) and `changes` (the changes feed).
pub const RESERVED_SLUGS: [&str; 3] = ["sitemap", "redirects", "changes"];

/// The rule of the grammar a string breaks, the first one in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlugError {
    /// The string is empty.
    Empty,
    /// The string is longer than [`MAX_SLUG_LEN`] bytes.
    TooLong,
    /// The string holds a byte other than `a-z`, `0-9` and `-`, or a hyphen that does not join
    /// two words (leading, trailing or doubled).
    Pattern,
}

/// Checks `slug` against the grammar; reserved names ([`RESERVED_SLUGS`]) match it.
pub fn check_slug(slug: &str) -> Result<(), SlugError> {
    if slug.is_empty() {
        return Err(SlugError::Empty);
    }
    if slug.len() > MAX_SLUG_LEN {
        return Err(SlugError::TooLong);
    }
    let mut previous_hyphen = true; // no leading hyphen
    for b in slug.bytes() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' => previous_hyphen = false,
            b'-' if !previous_hyphen => previous_hyphen = true,
            _ => return Err(SlugError::Pattern),
        }
    }
    if previous_hyphen {
        return Err(SlugError::Pattern);
    }
    Ok(())
}

/// Whether `slug` matches the slug grammar: 1 to 200 lower-case letters `a-z` and digits, in
/// words joined by single hyphens (`my-first-post`, `2026-recap`). Reserved names
/// ([`RESERVED_SLUGS`]) match the grammar.
///
/// ```
/// use blogread_markup::slug::is_valid_slug;
/// assert!(is_valid_slug("my-first-post"));
/// assert!(!is_valid_slug("My-Post"));
/// assert!(!is_valid_slug("a--b"));
/// assert!(!is_valid_slug("../etc"));
/// ```
pub fn is_valid_slug(slug: &str) -> bool {
    check_slug(slug).is_ok()
}

/// Whether `slug` is one of the [`RESERVED_SLUGS`].
pub fn is_reserved_slug(slug: &str) -> bool {
    RESERVED_SLUGS.contains(&slug)
}

/// Whether a post can be given `slug`: it matches the grammar and is not reserved.
pub fn is_writable_slug(slug: &str) -> bool {
    is_valid_slug(slug) && !is_reserved_slug(slug)
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
    fn the_first_broken_rule_is_named() {
        assert_eq!(check_slug(""), Err(SlugError::Empty));
        assert_eq!(check_slug(&"A".repeat(201)), Err(SlugError::TooLong));
        assert_eq!(check_slug("a_b"), Err(SlugError::Pattern));
        assert_eq!(check_slug("a-b"), Ok(()));
    }

    #[test]
    fn reserved_names_match_the_grammar_but_cannot_be_written() {
        for reserved in RESERVED_SLUGS {
            assert!(is_valid_slug(reserved), "{reserved}");
            assert!(is_reserved_slug(reserved), "{reserved}");
            assert!(!is_writable_slug(reserved), "{reserved}");
        }
        assert!(is_writable_slug("sitemap-2"));
        assert!(!is_writable_slug("Sitemap"));
    }
}
