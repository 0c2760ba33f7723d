//! # blogread-markup
//!
//! The small pieces of HTML and naming that more than one blogread crate must get exactly the
//! same way, kept in one place so that a rule changes once:
//!
//! - [`html`]: scanning an HTML body as a browser's tokenizer reads it (tags and their
//!   attributes, comments, the raw-text elements and the script data states with their `<!--`
//!   escapes), without building anything. `blogread-core` counts words with it
//!   (`word_count`), `blogread-client`'s export finds where each byte of a body shows.
//! - [`escape`]: one HTML escaper family, for text and attribute values, each call site naming
//!   the characters it escapes ([`escape::Escapes`]). Used by `blogread-core`'s link resolution
//!   and sanitiser, `blogread-client`'s HTML export and `blogread-server`'s admin pages.
//! - [`slug`]: the slug grammar (lower-case words joined by single hyphens, at most
//!   [`slug::MAX_SLUG_LEN`] characters) and the names reserved for endpoints. `blogread-core`'s
//!   `Slug` type and link resolution check slugs with it; `blogread-client` checks the slugs it
//!   asks for and receives with it and re-exports it.
//!
//! The crate depends on `memchr` only: `blogread-client` stays light (no database driver, no
//! web framework) by depending on this crate rather than on `blogread-core`.

pub mod escape;
pub mod html;
pub mod slug;
