//! Writing pixels out: JPEG when opaque, PNG with transparency; no metadata of any kind.

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder};
use sha2::{Digest, Sha256};

use crate::error::MediaError;
use crate::kind::OutputKind;
use crate::limits::JPEG_QUALITY;
use crate::scale::Pixels;

/// One stored file: a master or a variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Its type.
    pub kind: OutputKind,
    /// The SHA-256 of [`Encoded::bytes`], lower-case hex.
    pub sha256: String,
}

/// The file of `pixels`: written from the pixels alone, so nothing of the upload but its
/// picture is in it.
pub(crate) fn encode(pixels: &Pixels) -> Result<Encoded, MediaError> {
    let (width, height) = (pixels.width(), pixels.height());
    let mut bytes = Vec::new();
    let failed = |e: image::ImageError| MediaError::Undecodable(format!("encoding failed: {e}"));
    let kind = if pixels.has_alpha() {
        PngEncoder::new_with_quality(&mut bytes, CompressionType::Default, FilterType::Adaptive)
            .write_image(pixels.data(), width, height, ExtendedColorType::Rgba8)
            .map_err(failed)?;
        OutputKind::Png
    } else {
        JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY)
            .write_image(pixels.data(), width, height, ExtendedColorType::Rgb8)
            .map_err(failed)?;
        OutputKind::Jpeg
    };
    let sha256 = hex::encode(Sha256::digest(&bytes));
    Ok(Encoded {
        bytes,
        width,
        height,
        kind,
        sha256,
    })
}
