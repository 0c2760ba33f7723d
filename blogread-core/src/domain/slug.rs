//! The slug of a blog: `^[a-z0-9]+(-[a-z0-9]+)*$`, 1 to 200 characters, unique within a project.

use std::fmt;
use std::str::FromStr;

use blogread_markup::slug::{self as grammar, MAX_SLUG_LEN, RESERVED_SLUGS, check_slug};
use serde::{Deserialize, Serialize};

use crate::error::FieldError;

/// Why a string is not a valid slug. Its message is a sentence about the slug (`slug must
/// not be empty`); as a field error of a request it becomes `slug: must not be empty`
/// ([`SlugError::rule`], `From<SlugError> for FieldError`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SlugError {
    /// The slug is empty.
    Empty,
    /// The slug is longer than [`Slug::MAX_LEN`].
    TooLong {
        /// The length given.
        len: usize,
    },
    /// The slug has characters or hyphens outside the allowed pattern.
    Pattern,
    /// `sitemap` and `redirects` address public endpoints and cannot name a blog.
    Reserved(&'static str),
}

impl SlugError {
    /// The rule the slug breaks, phrased to follow the field name (`must not be empty`).
    pub fn rule(&self) -> String {
        match self {
            SlugError::Empty => "must not be empty".to_owned(),
            SlugError::TooLong { len } => {
                format!("must be at most {} characters (got {len})", Slug::MAX_LEN)
            }
            SlugError::Pattern => "must be lower-case letters a-z and digits, in words joined by single hyphens (e.g. `my-first-post`)".to_owned(),
            SlugError::Reserved(slug) => format!(
                "`{slug}` is reserved (the path {} addresses {}); choose another",
                reserved_path(slug),
                reserved_endpoint(slug)
            ),
        }
    }
}

/// The public path a reserved slug would collide with.
fn reserved_path(slug: &str) -> String {
    match slug {
        "changes" => "/blog/api/v1/public/changes".to_owned(),
        other => format!("/blog/api/v1/public/blogs/{other}"),
    }
}

/// What that path serves.
fn reserved_endpoint(slug: &str) -> &'static str {
    match slug {
        "sitemap" => "the sitemap",
        "redirects" => "the redirects list",
        "changes" => "the changes feed (an exported site keeps its state beside it)",
        _ => "a public endpoint",
    }
}

impl fmt::Display for SlugError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slug {}", self.rule())
    }
}

impl std::error::Error for SlugError {}

impl From<SlugError> for FieldError {
    fn from(err: SlugError) -> Self {
        FieldError::new("slug", err.rule())
    }
}

/// A valid slug. It cannot hold a value outside the pattern, nor a reserved one (`sitemap`,
/// `redirects`) when written.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Slug(String);

impl PartialEq<str> for Slug {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Slug {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Slug {
    /// The longest slug allowed, in characters (the slug grammar's, shared with the client).
    pub const MAX_LEN: usize = MAX_SLUG_LEN;
    /// The slugs that name public endpoints (`/blogs/sitemap`, `/blogs/redirects`, and the
    /// changes feed's `changes`), refused on the write side (shared with the client).
    pub const RESERVED: [&'static str; 3] = RESERVED_SLUGS;

    /// Validates `s` as a slug to write.
    pub fn parse(s: &str) -> Result<Slug, SlugError> {
        check(s)?;
        if let Some(reserved) = Slug::RESERVED.iter().find(|r| **r == s) {
            return Err(SlugError::Reserved(reserved));
        }
        Ok(Slug(s.to_owned()))
    }

    /// Validates a slug read back from storage: the pattern only, since a slug reserved after
    /// it was written (`redirects` was allowed once) must still load.
    pub fn from_stored(s: &str) -> Result<Slug, SlugError> {
        check(s)?;
        Ok(Slug(s.to_owned()))
    }

    /// True when `s` is a valid slug to write, reserved ones excluded (no allocation).
    pub fn is_valid(s: &str) -> bool {
        grammar::is_writable_slug(s)
    }

    /// The slug as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Checks `s` against the slug grammar, naming the first rule it breaks in this crate's terms.
fn check(s: &str) -> Result<(), SlugError> {
    check_slug(s).map_err(|broken| match broken {
        grammar::SlugError::Empty => SlugError::Empty,
        grammar::SlugError::TooLong => SlugError::TooLong {
            len: s.chars().count(),
        },
        grammar::SlugError::Pattern => SlugError::Pattern,
    })
}

impl TryFrom<String> for Slug {
    type Error = SlugError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        check(&value)?;
        Ok(Slug(value))
    }
}

impl FromStr for Slug {
    type Err = SlugError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Slug::parse(s)
    }
}

impl From<Slug> for String {
    fn from(slug: Slug) -> String {
        slug.0
    }
}

impl AsRef<str> for Slug {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Slug({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_accepts_words_joined_by_single_hyphens() {
        for ok in ["a", "hello", "hello-world", "2026-recap", "a-b-c-1"] {
            assert!(Slug::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn slug_rejects_anything_outside_the_pattern() {
        for bad in [
            "Hello", "-a", "a-", "a--b", "a_b", "a b", "é", "a/b", "a.b", " a",
        ] {
            assert_eq!(Slug::parse(bad), Err(SlugError::Pattern), "{bad}");
        }
    }

    #[test]
    fn slug_length_is_one_to_two_hundred() {
        assert_eq!(Slug::parse(""), Err(SlugError::Empty));
        assert!(Slug::parse(&"a".repeat(200)).is_ok());
        assert_eq!(
            Slug::parse(&"a".repeat(201)),
            Err(SlugError::TooLong { len: 201 })
        );
    }

    #[test]
    fn slug_sitemap_is_reserved() {
        assert_eq!(Slug::parse("sitemap"), Err(SlugError::Reserved("sitemap")));
        assert_eq!(
            Slug::parse("redirects"),
            Err(SlugError::Reserved("redirects"))
        );
        assert!(
            Slug::from_stored("redirects").is_ok(),
            "an old row still loads"
        );
        assert_eq!(Slug::parse("changes"), Err(SlugError::Reserved("changes")));
        assert!(Slug::parse("sitemap-2").is_ok());
    }

    #[test]
    fn a_reserved_slug_error_names_the_public_path_it_collides_with() {
        let rule = |slug| Slug::parse(slug).unwrap_err().rule();
        assert!(
            rule("changes")
                .contains("the path /blog/api/v1/public/changes addresses the changes feed"),
            "{}",
            rule("changes")
        );
        assert!(rule("redirects").contains("the path /blog/api/v1/public/blogs/redirects "));
        assert!(rule("sitemap").contains("the path /blog/api/v1/public/blogs/sitemap "));
    }

    #[test]
    fn a_slug_error_names_the_field_once_then_the_rule() {
        let field = FieldError::from(Slug::parse("Bad").unwrap_err());
        assert_eq!(
            field.to_string(),
            "slug: must be lower-case letters a-z and digits, in words joined by single hyphens (e.g. `my-first-post`)"
        );
        let field = FieldError::from(Slug::parse("sitemap").unwrap_err());
        assert_eq!(
            field.to_string(),
            "slug: `sitemap` is reserved (the path /blog/api/v1/public/blogs/sitemap addresses the sitemap); choose another"
        );
        assert_eq!(SlugError::Empty.to_string(), "slug must not be empty");
    }

    #[test]
    fn slug_deserialises_through_the_same_check() {
        assert!(serde_json::from_str::<Slug>("\"Bad Slug\"").is_err());
        let s: Slug = serde_json::from_str("\"good-slug\"").unwrap();
        assert_eq!(s.as_str(), "good-slug");
    }
}
