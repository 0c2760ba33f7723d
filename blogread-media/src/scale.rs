//! A decoded picture's pixels, and scaling them.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::DynamicImage;

use crate::error::MediaError;

/// Upright pixels, eight bits a channel: RGB when opaque, RGBA where any pixel is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pixels {
    width: u32,
    height: u32,
    /// Whether there is an alpha channel (some pixel is not opaque).
    alpha: bool,
    /// Row after row, 3 or 4 bytes a pixel.
    data: Vec<u8>,
}

impl Pixels {
    /// The pixels of a decoded picture, kept with alpha only when some pixel is not opaque.
    pub(crate) fn from_image(picture: DynamicImage) -> Self {
        let (width, height) = (picture.width(), picture.height());
        if picture.color().has_alpha() {
            let rgba = picture.into_rgba8();
            if rgba.pixels().any(|p| p.0[3] != u8::MAX) {
                return Pixels {
                    width,
                    height,
                    alpha: true,
                    data: rgba.into_raw(),
                };
            }
            let rgb = DynamicImage::ImageRgba8(rgba).into_rgb8();
            return Pixels {
                width,
                height,
                alpha: false,
                data: rgb.into_raw(),
            };
        }
        Pixels {
            width,
            height,
            alpha: false,
            data: picture.into_rgb8().into_raw(),
        }
    }

    pub(crate) fn width(&self) -> u32 {
        self.width
    }

    pub(crate) fn height(&self) -> u32 {
        self.height
    }

    pub(crate) fn has_alpha(&self) -> bool {
        self.alpha
    }

    pub(crate) fn data(&self) -> &[u8] {
        &self.data
    }

    fn pixel_type(&self) -> PixelType {
        if self.alpha {
            PixelType::U8x4
        } else {
            PixelType::U8x3
        }
    }
}

/// The size of a `width` × `height` picture scaled down to at most `max` on its longest side
/// (unchanged when it fits).
pub(crate) fn fit_within(width: u32, height: u32, max: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest <= max {
        return (width, height);
    }
    (
        scaled_side(width, max, longest),
        scaled_side(height, max, longest),
    )
}

/// `pixels` scaled to `width` × `height` (Lanczos3; alpha premultiplied while scaling).
pub(crate) fn scale_to(pixels: &Pixels, width: u32, height: u32) -> Result<Pixels, MediaError> {
    let failed =
        |e: &dyn std::fmt::Display| MediaError::Undecodable(format!("scaling failed: {e}"));
    let source = ImageRef::new(
        pixels.width,
        pixels.height,
        &pixels.data,
        pixels.pixel_type(),
    )
    .map_err(|e| failed(&e))?;
    let mut scaled = Image::new(width, height, pixels.pixel_type());
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
    Resizer::new()
        .resize(&source, &mut scaled, &options)
        .map_err(|e| failed(&e))?;
    Ok(Pixels {
        width,
        height,
        alpha: pixels.alpha,
        data: scaled.into_vec(),
    })
}

/// `side` scaled by `to / from`, rounded, at least 1.
pub(crate) fn scaled_side(side: u32, to: u32, from: u32) -> u32 {
    let scaled = (u64::from(side) * u64::from(to) + u64::from(from) / 2) / u64::from(from);
    u32::try_from(scaled).unwrap_or(u32::MAX).max(1)
}
