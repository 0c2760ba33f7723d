//! What an upload may be, and what the pipeline makes of it.

/// The largest upload body, in bytes (20 MiB).
pub const MAX_UPLOAD_BYTES: usize = 20 * 1024 * 1024;

/// The most pixels on either side of an uploaded picture, judged from its header.
pub const MAX_SIDE: u32 = 16_383;

/// The most pixels of an uploaded picture in all (40 megapixels), judged from its header.
pub const MAX_PIXELS: u64 = 40_000_000;

/// The most a decode may allocate, in bytes: a picture of [`MAX_PIXELS`] at four bytes a
/// pixel, with room for the decoder's own buffers.
pub const MAX_DECODE_BYTES: u64 = MAX_PIXELS * 4 + 64 * 1024 * 1024;

/// The longest side of a stored master; a larger picture is scaled down to it.
pub const MASTER_MAX_SIDE: u32 = 2_400;

/// The widths of the variants, each made only when narrower than the master.
pub const VARIANT_WIDTHS: [u32; 3] = [480, 960, 1_600];

/// The quality of the JPEG encoder (1 to 100) for masters and variants.
pub const JPEG_QUALITY: u8 = 82;
