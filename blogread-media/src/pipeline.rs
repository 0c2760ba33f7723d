//! The pipeline: type, header, decode, upright, master and variants.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use image::{DynamicImage, ImageDecoder, ImageError, ImageReader, Limits};

use crate::encode::{Encoded, encode};
use crate::error::MediaError;
use crate::kind::ImageKind;
use crate::limits::{MASTER_MAX_SIDE, MAX_DECODE_BYTES, MAX_PIXELS, MAX_SIDE, VARIANT_WIDTHS};
use crate::scale::{Pixels, fit_within, scale_to, scaled_side};

/// What an upload becomes: its master and the variants narrower than it, widest last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Processed {
    /// The type the upload was.
    pub source: ImageKind,
    /// The master: upright, at most [`MASTER_MAX_SIDE`] on its longest side.
    pub master: Encoded,
    /// A variant at each of [`VARIANT_WIDTHS`] narrower than the master, in that order.
    pub variants: Vec<Encoded>,
}

/// Runs the pipeline on an upload's `bytes`, `declared` the type the client sent (a
/// `Content-Type`), if any. The same bytes always give the same files. A decoder's panic is
/// a refusal ([`MediaError::Undecodable`]), never the caller's panic.
///
/// Runs on the calling thread for as long as the picture takes (a 12-megapixel photo: a
/// fraction of a second on one core); call it from a bounded pool of blocking threads.
pub fn process(bytes: &[u8], declared: Option<&str>) -> Result<Processed, MediaError> {
    let source = ImageKind::of_upload(bytes, declared)?;
    // The closure reads only `bytes` and builds everything else itself: nothing it could
    // leave half-changed is seen after a panic.
    match catch_unwind(AssertUnwindSafe(|| run(bytes, source))) {
        Ok(result) => result,
        Err(_) => Err(MediaError::Undecodable("the decoder failed on it".into())),
    }
}

fn run(bytes: &[u8], source: ImageKind) -> Result<Processed, MediaError> {
    let picture = decode(bytes, source)?;
    let (width, height) = fit_within(picture.width(), picture.height(), MASTER_MAX_SIDE);
    let master = if (width, height) == (picture.width(), picture.height()) {
        picture
    } else {
        scale_to(&picture, width, height)?
    };
    let variants = VARIANT_WIDTHS
        .iter()
        .filter(|&&w| w < master.width())
        .map(|&w| {
            let h = scaled_side(master.height(), w, master.width());
            scale_to(&master, w, h).and_then(|v| encode(&v))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Processed {
        source,
        master: encode(&master)?,
        variants,
    })
}

/// Decodes the picture, judged by its header first, and turns it upright.
fn decode(bytes: &[u8], source: ImageKind) -> Result<Pixels, MediaError> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), source.format());
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(refusal)?;
    let (width, height) = decoder.dimensions();
    judge(width, height)?;
    // A broken orientation tag is no reason to refuse the picture: it stays as stored.
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut picture = DynamicImage::from_decoder(decoder).map_err(refusal)?;
    picture.apply_orientation(orientation);
    Ok(Pixels::from_image(picture))
}

/// Refuses a picture over the limits, by its header's size.
fn judge(width: u32, height: u32) -> Result<(), MediaError> {
    if width > MAX_SIDE || height > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(too_large(width, height));
    }
    if width == 0 || height == 0 {
        return Err(MediaError::Undecodable(format!(
            "its header declares {width} × {height} pixels"
        )));
    }
    Ok(())
}

fn too_large(width: u32, height: u32) -> MediaError {
    MediaError::TooLarge {
        width,
        height,
        max_side: MAX_SIDE,
        max_megapixels: MAX_PIXELS / 1_000_000,
    }
}

/// A decoder's error as a refusal: past the memory limit, the picture is too large; anything
/// else does not decode.
fn refusal(err: ImageError) -> MediaError {
    match err {
        ImageError::Limits(e) => MediaError::Undecodable(format!(
            "it needs more memory to decode than the limit allows ({e})"
        )),
        other => MediaError::Undecodable(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_side_rounds_and_is_never_zero() {
        assert_eq!(scaled_side(1000, 480, 2400), 200);
        assert_eq!(scaled_side(1, 480, 2400), 1);
        assert_eq!(scaled_side(3, 2, 4), 2);
    }

    #[test]
    fn sizes_over_the_limits_are_judged_from_the_header() {
        assert_eq!(judge(16_384, 10).unwrap_err().reason(), "too_large");
        assert_eq!(judge(10, 16_384).unwrap_err().reason(), "too_large");
        assert_eq!(judge(8_000, 6_000).unwrap_err().reason(), "too_large");
        assert!(judge(16_383, 2_000).is_ok());
        assert_eq!(judge(0, 5).unwrap_err().reason(), "undecodable");
    }
}
