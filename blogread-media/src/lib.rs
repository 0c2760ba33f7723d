//! blogread's image pipeline, for the images a project uploads to the service.
//!
//! An uploaded file is hostile input. [`process`] takes its bytes (and the type the client
//! declared, if any) and:
//!
//! 1. tells the type from the bytes ([`ImageKind::sniff`]): JPEG, PNG, GIF or WebP, nothing
//!    else; a declared type that disagrees is refused;
//! 2. reads the header only, and refuses a picture over [`limits::MAX_SIDE`] on a side or
//!    [`limits::MAX_PIXELS`] in all before anything is decoded;
//! 3. decodes under [`image::Limits`] (no allocation past [`limits::MAX_DECODE_BYTES`]),
//!    the first frame of an animation only, a decoder's panic caught as a refusal;
//! 4. turns the picture upright by its EXIF orientation;
//! 5. re-encodes it from its pixels alone: a master at most [`limits::MASTER_MAX_SIDE`] on
//!    its longest side (JPEG when opaque, PNG where there is transparency) and a variant at
//!    each of [`limits::VARIANT_WIDTHS`] narrower than the master. No metadata (EXIF with its
//!    GPS position, XMP, IPTC, comments, text chunks, embedded thumbnails) and none of the
//!    uploaded bytes survive.
//!
//! The crate does no I/O and keeps no state: the caller bounds how many run at once and for
//! how long (see `docs/media.md`).

mod encode;
mod error;
mod kind;
pub mod limits;
mod pipeline;
pub mod samples;
mod scale;

pub use encode::Encoded;
pub use error::MediaError;
pub use kind::{ImageKind, OutputKind};
pub use pipeline::{Processed, process};
