//! Pictures made in code, for tests, the demo and the benchmarks (the repository holds no
//! binary file): a JPEG or PNG of any size whose pixels follow a `seed`, so that two seeds
//! give two different pictures (and two different stored items) and one seed always the
//! same bytes.

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::{ExtendedColorType, ImageEncoder};

/// The RGB pixels of a `width` × `height` picture: a diagonal gradient tinted by `seed`.
fn pixels(width: u32, height: u32, seed: u32) -> Vec<u8> {
    let tint = seed.wrapping_mul(2_654_435_761);
    let [r, g, b, _] = tint.to_le_bytes();
    let mut data = Vec::with_capacity(width as usize * height as usize * 3);
    for y in 0..height {
        for x in 0..width {
            let d = ((x + y) * 255 / (width + height).max(1)) as u8;
            data.extend_from_slice(&[d ^ r, d.wrapping_add(g), (255 - d) ^ b]);
        }
    }
    data
}

/// An opaque JPEG picture, `width` × `height` (each at least 1), quality 90.
pub fn jpeg(width: u32, height: u32, seed: u32) -> Vec<u8> {
    let (width, height) = (width.max(1), height.max(1));
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90)
        .write_image(
            &pixels(width, height, seed),
            width,
            height,
            ExtendedColorType::Rgb8,
        )
        .expect("encoding to memory does not fail");
    out
}

/// A PNG picture, `width` × `height` (each at least 1), with every pixel's alpha `alpha`
/// (255: opaque, stored as JPEG; less: stored as PNG).
pub fn png(width: u32, height: u32, seed: u32, alpha: u8) -> Vec<u8> {
    let (width, height) = (width.max(1), height.max(1));
    let rgb = pixels(width, height, seed);
    let rgba: Vec<u8> = rgb
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], alpha])
        .collect();
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(&rgba, width, height, ExtendedColorType::Rgba8)
        .expect("encoding to memory does not fail");
    out
}

/// A PNG of noise, `width` × `height`, every pixel's alpha 200 (so stored as PNG): nearly
/// incompressible, for files larger than a read's chunk.
pub fn noise_png(width: u32, height: u32, seed: u64) -> Vec<u8> {
    let (width, height) = (width.max(1), height.max(1));
    let mut state = seed | 1;
    let rgba: Vec<u8> = (0..width as usize * height as usize)
        .flat_map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let [r, g, b, ..] = state.to_le_bytes();
            [r, g, b, 200]
        })
        .collect();
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(&rgba, width, height, ExtendedColorType::Rgba8)
        .expect("encoding to memory does not fail");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_of_one_seed_are_the_same_bytes_and_of_two_seeds_differ() {
        assert_eq!(jpeg(40, 30, 1), jpeg(40, 30, 1));
        assert_ne!(jpeg(40, 30, 1), jpeg(40, 30, 2));
        assert_ne!(png(40, 30, 1, 128), png(40, 30, 2, 128));
        let processed = crate::process(&png(40, 30, 3, 100), None).unwrap();
        assert_eq!(processed.master.kind, crate::OutputKind::Png);
        assert_eq!((processed.master.width, processed.master.height), (40, 30));
    }
}
