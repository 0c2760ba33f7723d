//! Why an upload is refused.

use thiserror::Error;

/// Why the pipeline refused an upload; each says what to fix. [`MediaError::is_unsupported`]
/// tells a type refusal (HTTP 415) from a picture that cannot be taken (422).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MediaError {
    /// The bytes are none of the accepted types.
    #[error("the file is not a JPEG, PNG, GIF or WebP image (told by its bytes){0}")]
    UnsupportedType(String),
    /// The declared type disagrees with the bytes.
    #[error(
        "the file was declared as {declared} but its bytes are {actual}; send it as {actual_type} or without a type"
    )]
    TypeMismatch {
        /// The type the client declared.
        declared: String,
        /// What the bytes are, in words.
        actual: &'static str,
        /// The media type of what the bytes are.
        actual_type: &'static str,
    },
    /// The file is empty.
    #[error("the file is empty")]
    Empty,
    /// The header declares a picture over the limits.
    #[error(
        "the image is {width} × {height} pixels; at most {max_side} on a side and {max_megapixels} megapixels in all are accepted"
    )]
    TooLarge {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// [`crate::limits::MAX_SIDE`].
        max_side: u32,
        /// [`crate::limits::MAX_PIXELS`] in megapixels.
        max_megapixels: u64,
    },
    /// The bytes do not decode (truncated, corrupt, or past the decoder's limits).
    #[error("the image does not decode: {0}")]
    Undecodable(String),
}

impl MediaError {
    /// Whether the refusal is of the file's type (HTTP 415) rather than of the picture (422).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Self::UnsupportedType(_) | Self::TypeMismatch { .. })
    }

    /// A short, stable name of the reason, for metrics (`unsupported_type`, `type_mismatch`,
    /// `empty`, `too_large`, `undecodable`).
    pub fn reason(&self) -> &'static str {
        match self {
            Self::UnsupportedType(_) => "unsupported_type",
            Self::TypeMismatch { .. } => "type_mismatch",
            Self::Empty => "empty",
            Self::TooLarge { .. } => "too_large",
            Self::Undecodable(_) => "undecodable",
        }
    }
}
