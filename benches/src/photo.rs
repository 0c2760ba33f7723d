//! Photo-like JPEGs made on the spot, for the media benchmarks: smooth gradients with fine
//! deterministic noise, which a JPEG encoder compresses about as it does a camera's picture
//! (a flat or purely random picture would be far smaller or far larger).

use image::codecs::jpeg::JpegEncoder;
use image::{ExtendedColorType, ImageEncoder};

/// The JPEG quality a camera or phone writes at, which the upload benchmarks send.
pub const CAMERA_QUALITY: u8 = 90;

/// The noise of [`photo`]: pixels vary by up to ±12 around the gradients, about what a
/// 12-megapixel camera's JPEG at quality 90 holds (3.6 MiB for 4,000 × 3,000).
pub const CAMERA_NOISE: u32 = 24;

/// A `width` × `height` photo-like picture as a JPEG of `quality`, with [`CAMERA_NOISE`].
/// Different `seed`s give different bytes (and so different items on upload) of the same
/// size and look.
pub fn photo(width: u32, height: u32, quality: u8, seed: u64) -> Vec<u8> {
    photo_with_noise(width, height, quality, seed, CAMERA_NOISE)
}

/// [`photo`] with a noise of `noise` levels from lowest to highest (at least 1): less noise
/// compresses better, for a file of a given size at given dimensions.
pub fn photo_with_noise(width: u32, height: u32, quality: u8, seed: u64, noise: u32) -> Vec<u8> {
    let noise_range = u64::from(noise.max(1));
    let half = (noise_range / 2) as i32;
    // xorshift64 must not start at zero; the constant keeps seed 0 the picture the pipeline
    // bench always timed.
    let mut state = 0x2545_F491_4F6C_DD1Du64 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if state == 0 {
        state = 1;
    }
    let mut data = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let noise = (state % noise_range) as i32 - half;
            let r = (x * 255 / width) as i32 + noise;
            let g = (y * 255 / height) as i32 + noise;
            let b = (((x + y) / 8) % 256) as i32 + noise;
            data.extend([r, g, b].map(|c| c.clamp(0, 255) as u8));
        }
    }
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .write_image(&data, width, height, ExtendedColorType::Rgb8)
        .expect("an RGB picture encodes");
    out
}
