//! The wire types of the changes feed (`docs/public-api.md#changes-feed`): what changed in a
//! project's public answers since a cursor.
//!
//! A caller keeps the [`ChangeCursor`] of its last read (it serialises to a plain string) and
//! asks [`Client::changes_since`](crate::Client::changes_since) for everything after it;
//! applying the [`Change`]s in order to what it read before gives exactly what a full read
//! returns now.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

use crate::types::BlogDetail;

/// Where a read of the changes feed ended, and the next one starts: the `cursor` of a
/// [`ChangePage`].
///
/// Opaque: only the server that gave it knows what it means (it is bound to the project and
/// to the database). It serialises to and from its string, so a caller can store it in a file
/// or a database, and [`FromStr`] / [`Display`](fmt::Display) give the same string:
///
/// ```
/// use blogread_client::ChangeCursor;
/// let cursor: ChangeCursor = "c1.AAAAAAAAAAo".parse().unwrap();
/// assert_eq!(cursor.to_string(), "c1.AAAAAAAAAAo");
/// assert_eq!(serde_json::to_string(&cursor).unwrap(), r#""c1.AAAAAAAAAAo""#);
/// assert!("".parse::<ChangeCursor>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ChangeCursor(String);

/// The longest cursor the client accepts, in bytes: far above what a server sends, low enough
/// that a hostile answer cannot make every later URL huge.
pub const MAX_CURSOR_LEN: usize = 1024;

/// Why a string is not a [`ChangeCursor`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// The string is empty.
    #[error("a changes cursor is never empty")]
    Empty,
    /// The string is longer than [`MAX_CURSOR_LEN`].
    #[error("a changes cursor is at most {MAX_CURSOR_LEN} bytes; this one has {0}")]
    TooLong(usize),
    /// The string holds a character other than printable ASCII (space and controls
    /// included).
    #[error(
        "a changes cursor is printable ASCII without spaces; this one holds {0:?} (was it \
         copied whole?)"
    )]
    Character(char),
}

impl ChangeCursor {
    /// The cursor's string, as the server sent it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ChangeCursor {
    type Error = CursorError;

    fn try_from(text: String) -> Result<Self, CursorError> {
        if text.is_empty() {
            return Err(CursorError::Empty);
        }
        if text.len() > MAX_CURSOR_LEN {
            return Err(CursorError::TooLong(text.len()));
        }
        if let Some(c) = text.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(CursorError::Character(c));
        }
        Ok(Self(text))
    }
}

impl FromStr for ChangeCursor {
    type Err = CursorError;

    fn from_str(text: &str) -> Result<Self, CursorError> {
        Self::try_from(text.to_owned())
    }
}

impl From<ChangeCursor> for String {
    fn from(cursor: ChangeCursor) -> String {
        cursor.0
    }
}

impl fmt::Display for ChangeCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One entry of the changes feed. Apply the entries in the order the feed gives them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "lowercase")]
#[non_exhaustive]
// Nearly every entry is an upsert: boxing the post would add an allocation to each and save
// memory only on the few deletes.
#[allow(clippy::large_enum_variant)]
pub enum Change {
    /// A published post, in its current state: new, changed (its own fields, its resolved body
    /// because a post it links to changed, or its former slugs), or renamed. Write it at
    /// `blog.slug`, with `aliases` as its former slugs (replacing whatever it had).
    Upsert {
        /// The post, exactly as [`Client::get`](crate::Client::get) returns it.
        blog: BlogDetail,
        /// The post's former slugs, each a redirect to its current one, in the order of
        /// [`Client::redirects`](crate::Client::redirects) (newest rename first). Every one
        /// matches the slug grammar.
        #[serde(deserialize_with = "slugs")]
        aliases: Vec<String>,
    },
    /// A slug that named a published post and no longer does (the post was unpublished,
    /// deleted, or renamed: then an upsert at its new slug names this one among its
    /// `aliases`). Remove what was written for it.
    Delete {
        /// The slug, which matches the slug grammar.
        #[serde(deserialize_with = "crate::slug::deserialize")]
        slug: String,
    },
}

impl Change {
    /// The slug the entry is about: the upserted post's current slug, or the deleted one.
    pub fn slug(&self) -> &str {
        match self {
            Change::Upsert { blog, .. } => &blog.slug,
            Change::Delete { slug } => slug,
        }
    }
}

/// Deserialises a list of slugs, refusing any outside the grammar.
fn slugs<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    struct Slug(#[serde(deserialize_with = "crate::slug::deserialize")] String);
    Ok(Vec::<Slug>::deserialize(deserializer)?
        .into_iter()
        .map(|Slug(s)| s)
        .collect())
}

/// One answer of the changes feed (`GET /blog/api/v1/public/changes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChangePage {
    /// The entries, in the order to apply them.
    pub changes: Vec<Change>,
    /// Where the next request starts.
    pub cursor: ChangeCursor,
    /// Whether more entries follow at once (ask again with `cursor`).
    pub has_more: bool,
}

/// Everything the feed held after a cursor, read to its end by
/// [`Client::changes_since`](crate::Client::changes_since).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Changes {
    /// Every entry of every page, in order. Apply them in this order: a post changed while
    /// the pages were read shows up again later with its newer state.
    pub changes: Vec<Change>,
    /// The cursor to keep for the next read.
    pub cursor: ChangeCursor,
    /// How many pages (requests) the read took.
    pub pages: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    const DETAIL: &str = r#"{"id":"0190a1b2-0000-7000-8000-000000000001","title":"Hello","slug":"hello","excerpt":"","meta_title":"","meta_description":"","featured_image_url":null,"categories":[],"tags":[],"featured_image":null,"published_at":"2026-11-21T09:30:00Z","content":"<p>Hi</p>","updated_at":"2026-11-22T10:00:00Z","word_count":1}"#;

    fn page(entries: &str) -> String {
        format!(r#"{{"changes":[{entries}],"cursor":"c-2","has_more":false}}"#)
    }

    #[test]
    fn a_page_round_trips_byte_for_byte() {
        let text = page(&format!(
            r#"{{"change":"upsert","blog":{DETAIL},"aliases":["old-hello"]}},{{"change":"delete","slug":"gone"}}"#
        ));
        let decoded: ChangePage = serde_json::from_str(&text).unwrap();
        assert_eq!(decoded.changes.len(), 2);
        assert_eq!(decoded.changes[0].slug(), "hello");
        assert!(
            matches!(&decoded.changes[0], Change::Upsert { aliases, .. } if aliases == &["old-hello"])
        );
        assert_eq!(
            decoded.changes[1],
            Change::Delete {
                slug: "gone".into()
            }
        );
        assert_eq!(decoded.cursor.as_str(), "c-2");
        assert_eq!(serde_json::to_string(&decoded).unwrap(), text);
    }

    #[test]
    fn slugs_outside_the_grammar_do_not_decode_anywhere_in_an_entry() {
        for bad in ["../x", "A", "a/b", ""] {
            let alias = page(&format!(
                r#"{{"change":"upsert","blog":{DETAIL},"aliases":[{bad:?}]}}"#
            ));
            assert!(serde_json::from_str::<ChangePage>(&alias).is_err(), "{bad}");
            let delete = page(&format!(r#"{{"change":"delete","slug":{bad:?}}}"#));
            assert!(
                serde_json::from_str::<ChangePage>(&delete).is_err(),
                "{bad}"
            );
            let blog = DETAIL.replace(r#""slug":"hello""#, &format!(r#""slug":{bad:?}"#));
            let upsert = page(&format!(
                r#"{{"change":"upsert","blog":{blog},"aliases":[]}}"#
            ));
            assert!(
                serde_json::from_str::<ChangePage>(&upsert).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_entry_of_an_unknown_kind_does_not_decode() {
        // Skipping it would make the result differ from a full read without a word.
        let text = page(r#"{"change":"move","slug":"a"}"#);
        assert!(serde_json::from_str::<ChangePage>(&text).is_err());
        let text = page(&format!(r#"{{"change":"upsert","blog":{DETAIL}}}"#));
        assert!(
            serde_json::from_str::<ChangePage>(&text).is_err(),
            "an upsert without its aliases"
        );
    }

    #[test]
    fn a_cursor_is_printable_ascii_of_bounded_length() {
        for good in ["a", "c1.AAAA_-~=", &"x".repeat(MAX_CURSOR_LEN)] {
            let cursor: ChangeCursor = good.parse().unwrap();
            assert_eq!(cursor.as_str(), good);
            let json = serde_json::to_string(&cursor).unwrap();
            assert_eq!(serde_json::from_str::<ChangeCursor>(&json).unwrap(), cursor);
        }
        assert_eq!("".parse::<ChangeCursor>(), Err(CursorError::Empty));
        assert_eq!(
            "x".repeat(MAX_CURSOR_LEN + 1).parse::<ChangeCursor>(),
            Err(CursorError::TooLong(MAX_CURSOR_LEN + 1))
        );
        for (bad, c) in [("a b", ' '), ("a\nb", '\n'), ("é", 'é')] {
            assert_eq!(bad.parse::<ChangeCursor>(), Err(CursorError::Character(c)));
        }
        // The same check when it comes from JSON: a page with such a cursor does not decode.
        assert!(serde_json::from_str::<ChangeCursor>(r#""a b""#).is_err());
    }
}
