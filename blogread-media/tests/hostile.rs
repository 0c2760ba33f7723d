//! The pipeline against hostile uploads: files that lie about their type, bombs, polyglots,
//! truncated files, and pictures carrying metadata that must not survive. Every file is made
//! here, byte by byte where an encoder would not write it (the repository holds no binary).

use std::io::Cursor;

use blogread_media::{ImageKind, MediaError, OutputKind, Processed, limits, process};
use image::codecs::gif::GifEncoder;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{Delay, ExtendedColorType, Frame, ImageEncoder, Rgba, RgbaImage};

// ---- making files ----

/// An opaque RGB picture: the left half red, the right half blue.
fn halves(width: u32, height: u32) -> Vec<u8> {
    let mut data = Vec::with_capacity((width * height * 3) as usize);
    for _ in 0..height {
        for x in 0..width {
            data.extend_from_slice(if x < width / 2 {
                &[220, 20, 20]
            } else {
                &[20, 20, 220]
            });
        }
    }
    data
}

fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90)
        .write_image(
            &halves(width, height),
            width,
            height,
            ExtendedColorType::Rgb8,
        )
        .unwrap();
    out
}

fn png_rgb(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(
            &halves(width, height),
            width,
            height,
            ExtendedColorType::Rgb8,
        )
        .unwrap();
    out
}

fn png_rgba(width: u32, height: u32, alpha: u8) -> Vec<u8> {
    let data: Vec<u8> = (0..width * height)
        .flat_map(|_| [10, 200, 10, alpha])
        .collect();
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(&data, width, height, ExtendedColorType::Rgba8)
        .unwrap();
    out
}

/// A PNG chunk: length, type, data, CRC-32 of type and data.
fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    chunk.extend_from_slice(kind);
    chunk.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    chunk.extend_from_slice(&crc.finalize().to_be_bytes());
    chunk
}

/// A PNG whose header declares `width` × `height` (8-bit grey), with a few compressed bytes
/// of data: a bomb's header, which no decoder should get past.
fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    let mut file = b"\x89PNG\r\n\x1a\n".to_vec();
    file.extend(png_chunk(b"IHDR", &ihdr));
    // zlib: an empty stored block is enough to start; a decoder would need far more.
    file.extend(png_chunk(
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    ));
    file.extend(png_chunk(b"IEND", &[]));
    file
}

/// `png` with chunks inserted right after its header chunk.
fn png_with_chunks(png: &[u8], chunks: &[Vec<u8>]) -> Vec<u8> {
    // Signature (8) + IHDR (4 + 4 + 13 + 4).
    let at = 8 + 25;
    let mut file = png[..at].to_vec();
    for chunk in chunks {
        file.extend_from_slice(chunk);
    }
    file.extend_from_slice(&png[at..]);
    file
}

/// A JPEG segment: marker, length (itself included), data.
fn jpeg_segment(marker: u8, data: &[u8]) -> Vec<u8> {
    let mut segment = vec![0xFF, marker];
    segment.extend_from_slice(&((data.len() + 2) as u16).to_be_bytes());
    segment.extend_from_slice(data);
    segment
}

/// `jpeg` with segments inserted right after its start marker.
fn jpeg_with_segments(jpeg: &[u8], segments: &[Vec<u8>]) -> Vec<u8> {
    let mut file = jpeg[..2].to_vec();
    for segment in segments {
        file.extend_from_slice(segment);
    }
    file.extend_from_slice(&jpeg[2..]);
    file
}

/// A big-endian TIFF field of an IFD: tag, type, count, value (or offset).
fn tiff_field(tag: u16, kind: u16, count: u32, value: u32) -> Vec<u8> {
    let mut field = tag.to_be_bytes().to_vec();
    field.extend_from_slice(&kind.to_be_bytes());
    field.extend_from_slice(&count.to_be_bytes());
    field.extend_from_slice(&value.to_be_bytes());
    field
}

/// EXIF data (big-endian TIFF) with an orientation, a camera make and model, a date, a GPS
/// position and a thumbnail's pointers: what a phone writes.
fn exif(orientation: u16) -> Vec<u8> {
    const SHORT: u16 = 3;
    const LONG: u16 = 4;
    const ASCII: u16 = 2;
    const RATIONAL: u16 = 5;
    let make = b"SecretCam\0";
    let date = b"2026:11:27 10:00:00\0";
    // Layout: header (8), IFD0 at 8 with 5 fields (2 + 5 * 12 + 4 = 66), then the make (10),
    // the date (20), the GPS IFD (2 + 2 * 12 + 4 = 30), its latitude (24).
    let ifd0 = 8u32;
    let make_at = ifd0 + 66;
    let date_at = make_at + make.len() as u32;
    let gps_at = date_at + date.len() as u32;
    let latitude_at = gps_at + 30;
    let mut tiff = b"MM\0\x2a".to_vec();
    tiff.extend_from_slice(&ifd0.to_be_bytes());
    tiff.extend_from_slice(&5u16.to_be_bytes());
    tiff.extend(tiff_field(0x010F, ASCII, make.len() as u32, make_at));
    let mut orientation_field = tiff_field(0x0112, SHORT, 1, 0);
    orientation_field[8..10].copy_from_slice(&orientation.to_be_bytes());
    tiff.extend(orientation_field);
    tiff.extend(tiff_field(0x0132, ASCII, date.len() as u32, date_at));
    tiff.extend(tiff_field(0x8825, LONG, 1, gps_at));
    tiff.extend(tiff_field(0x0201, LONG, 1, 0)); // a thumbnail's offset
    tiff.extend_from_slice(&0u32.to_be_bytes());
    tiff.extend_from_slice(make);
    tiff.extend_from_slice(date);
    tiff.extend_from_slice(&2u16.to_be_bytes());
    let mut north = tiff_field(0x0001, ASCII, 2, 0);
    north[8..10].copy_from_slice(b"N\0");
    tiff.extend(north);
    tiff.extend(tiff_field(0x0002, RATIONAL, 3, latitude_at));
    tiff.extend_from_slice(&0u32.to_be_bytes());
    for (numerator, denominator) in [(51u32, 1u32), (30, 1), (2612, 100)] {
        tiff.extend_from_slice(&numerator.to_be_bytes());
        tiff.extend_from_slice(&denominator.to_be_bytes());
    }
    tiff
}

/// A phone's JPEG: EXIF (orientation, camera, date, GPS), XMP and a comment.
fn phone_jpeg(width: u32, height: u32, orientation: u16) -> Vec<u8> {
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend(exif(orientation));
    let xmp = b"http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>secret-xmp-location</x:xmpmeta>";
    jpeg_with_segments(
        &jpeg(width, height),
        &[
            jpeg_segment(0xE1, &app1),
            jpeg_segment(0xE1, xmp),
            jpeg_segment(0xFE, b"secret-comment"),
        ],
    )
}

/// A lossless WebP in the extended format with an EXIF chunk.
fn webp_with_exif(width: u32, height: u32) -> Vec<u8> {
    let rgba: Vec<u8> = halves(width, height)
        .chunks(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    let mut simple = Vec::new();
    WebPEncoder::new_lossless(&mut simple)
        .encode(&rgba, width, height, ExtendedColorType::Rgba8)
        .unwrap();
    let image_chunk = &simple[12..];
    let mut vp8x = vec![0x08, 0, 0, 0]; // the EXIF flag
    vp8x.extend_from_slice(&(width - 1).to_le_bytes()[..3]);
    vp8x.extend_from_slice(&(height - 1).to_le_bytes()[..3]);
    let mut exif_data = exif(1);
    if exif_data.len() % 2 == 1 {
        exif_data.push(0);
    }
    let mut body = b"WEBP".to_vec();
    body.extend_from_slice(b"VP8X");
    body.extend_from_slice(&10u32.to_le_bytes());
    body.extend_from_slice(&vp8x);
    body.extend_from_slice(image_chunk);
    body.extend_from_slice(b"EXIF");
    body.extend_from_slice(&(exif_data.len() as u32).to_le_bytes());
    body.extend_from_slice(&exif_data);
    let mut file = b"RIFF".to_vec();
    file.extend_from_slice(&(body.len() as u32).to_le_bytes());
    file.extend(body);
    file
}

fn gif_frames(count: usize, side: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = GifEncoder::new(&mut out);
        for i in 0..count {
            let shade = (i % 250) as u8;
            let frame = RgbaImage::from_pixel(side, side, Rgba([shade, 100, 100, 255]));
            encoder
                .encode_frame(Frame::from_parts(
                    frame,
                    0,
                    0,
                    Delay::from_numer_denom_ms(10, 1),
                ))
                .unwrap();
        }
    }
    out
}

// ---- checking results ----

/// Every stored file of `processed`: the master, then the variants.
fn files(processed: &Processed) -> impl Iterator<Item = &[u8]> {
    std::iter::once(processed.master.bytes.as_slice())
        .chain(processed.variants.iter().map(|v| v.bytes.as_slice()))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn assert_refused(result: Result<Processed, MediaError>, reason: &str) -> MediaError {
    match result {
        Ok(p) => panic!(
            "expected a refusal ({reason}), got {}×{}",
            p.master.width, p.master.height
        ),
        Err(err) => {
            assert_eq!(err.reason(), reason, "{err}");
            err
        }
    }
}

fn rgb_at(file: &[u8], x: u32, y: u32) -> [u8; 3] {
    let picture = image::load_from_memory(file).unwrap().into_rgb8();
    picture.get_pixel(x, y).0
}

// ---- types ----

#[test]
fn html_or_svg_sent_as_png_is_refused_as_unsupported() {
    for body in [
        &b"<!doctype html><script>alert(1)</script>"[..],
        &b"<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>"[..],
        &b"%PDF-1.7"[..],
    ] {
        let err = assert_refused(process(body, Some("image/png")), "unsupported_type");
        assert!(err.is_unsupported());
    }
}

#[test]
fn a_declared_type_that_disagrees_with_the_bytes_is_refused() {
    let err = assert_refused(process(&png_rgb(8, 8), Some("image/jpeg")), "type_mismatch");
    assert!(err.is_unsupported());
    assert!(err.to_string().contains("send it as image/png"), "{err}");
}

#[test]
fn without_a_declared_type_the_bytes_decide() {
    let processed = process(&png_rgb(8, 8), Some("application/octet-stream")).unwrap();
    assert_eq!(processed.source, ImageKind::Png);
    assert_eq!(process(&jpeg(8, 8), None).unwrap().source, ImageKind::Jpeg);
}

#[test]
fn an_empty_file_is_refused() {
    assert_refused(process(b"", None), "empty");
}

// ---- bombs ----

#[test]
fn a_small_png_declaring_65535_by_65535_is_refused_from_its_header() {
    let bomb = png_declaring(65_535, 65_535);
    assert!(bomb.len() < 100);
    let err = assert_refused(process(&bomb, Some("image/png")), "too_large");
    assert!(err.to_string().contains("65535 × 65535"), "{err}");
}

#[test]
fn a_png_over_forty_megapixels_is_refused_before_decoding() {
    // 10,000 × 10,000: 100 megapixels, each side under the side limit.
    assert_refused(process(&png_declaring(10_000, 10_000), None), "too_large");
    // Under the side limit, over the pixel limit.
    assert_refused(process(&png_declaring(8_000, 6_000), None), "too_large");
}

#[test]
fn a_progressive_jpeg_declaring_a_huge_frame_is_refused_from_its_header() {
    let mut file = jpeg(16, 16);
    let sof = file
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .expect("a baseline frame header");
    file[sof + 1] = 0xC2; // progressive
    // Height then width, after the length (2) and the precision (1).
    file[sof + 5..sof + 7].copy_from_slice(&60_000u16.to_be_bytes());
    file[sof + 7..sof + 9].copy_from_slice(&60_000u16.to_be_bytes());
    assert_refused(process(&file, Some("image/jpeg")), "too_large");
}

#[test]
fn a_gif_of_many_frames_keeps_its_first_frame() {
    let file = gif_frames(300, 32);
    let processed = process(&file, Some("image/gif")).unwrap();
    assert_eq!((processed.master.width, processed.master.height), (32, 32));
    assert_eq!(processed.master.kind, OutputKind::Jpeg);
    let [r, g, b] = rgb_at(&processed.master.bytes, 16, 16);
    assert!(
        r < 30 && g > 80 && b > 80,
        "the first frame's colour, got {r},{g},{b}"
    );
}

// ---- polyglots and broken files ----

#[test]
fn bytes_after_the_image_are_not_kept() {
    let mut file = png_rgb(16, 16);
    file.extend_from_slice(b"<script>alert('polyglot')</script>");
    let processed = process(&file, Some("image/png")).unwrap();
    for stored in files(&processed) {
        assert!(!contains(stored, b"<script>"));
    }
}

#[test]
fn a_gif_that_is_also_a_script_is_refused() {
    // `GIF89a=alert(1)//`: the "screen size" is the script's bytes, 24,893 pixels wide.
    let mut file = b"GIF89a=alert(1)//".to_vec();
    file.extend_from_slice(&[0; 32]);
    file.extend_from_slice(b";");
    let err = process(&file, Some("image/gif")).unwrap_err();
    assert!(matches!(err.reason(), "too_large" | "undecodable"), "{err}");
}

#[test]
fn truncated_files_are_refused() {
    let png = png_rgb(64, 64);
    assert_refused(process(&png[..png.len() / 2], None), "undecodable");
    let jpeg = jpeg(64, 64);
    assert_refused(process(&jpeg[..40], None), "undecodable");
    let gif = gif_frames(1, 16);
    assert_refused(process(&gif[..20], None), "undecodable");
}

// ---- metadata ----

#[test]
fn a_phones_jpeg_loses_its_gps_camera_date_xmp_and_comment() {
    let processed = process(&phone_jpeg(2_000, 1_000, 1), Some("image/jpeg")).unwrap();
    assert!(!processed.variants.is_empty());
    for stored in files(&processed) {
        for secret in [
            &b"Exif"[..],
            b"SecretCam",
            b"2026:11:27",
            b"xmpmeta",
            b"secret-xmp-location",
            b"secret-comment",
        ] {
            assert!(
                !contains(stored, secret),
                "{}",
                String::from_utf8_lossy(secret)
            );
        }
    }
}

#[test]
fn a_png_loses_its_text_chunks() {
    let file = png_with_chunks(
        &png_rgb(1_000, 20),
        &[
            png_chunk(b"tEXt", b"Comment\0secret-text-chunk"),
            png_chunk(
                b"iTXt",
                b"XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta>secret-itxt</x:xmpmeta>",
            ),
            png_chunk(b"eXIf", &exif(1)),
        ],
    );
    let processed = process(&file, Some("image/png")).unwrap();
    for stored in files(&processed) {
        for secret in [
            &b"secret-text-chunk"[..],
            b"secret-itxt",
            b"SecretCam",
            b"tEXt",
            b"eXIf",
        ] {
            assert!(
                !contains(stored, secret),
                "{}",
                String::from_utf8_lossy(secret)
            );
        }
    }
}

#[test]
fn a_webp_loses_its_exif() {
    let file = webp_with_exif(600, 40);
    let processed = process(&file, Some("image/webp")).unwrap();
    assert_eq!(processed.source, ImageKind::Webp);
    assert_eq!(processed.variants.len(), 1);
    for stored in files(&processed) {
        assert!(!contains(stored, b"SecretCam"));
        assert!(!contains(stored, b"Exif"));
    }
}

#[test]
fn an_orientation_6_photo_comes_out_turned_with_its_sides_swapped() {
    let processed = process(&phone_jpeg(40, 20, 6), None).unwrap();
    assert_eq!((processed.master.width, processed.master.height), (20, 40));
    // Turned a quarter clockwise: the left (red) half is now the top half.
    let [r, _, b] = rgb_at(&processed.master.bytes, 10, 5);
    assert!(r > 150 && b < 100, "top is red, got r={r} b={b}");
    let [r, _, b] = rgb_at(&processed.master.bytes, 10, 35);
    assert!(b > 150 && r < 100, "bottom is blue, got r={r} b={b}");
}

// ---- what is made ----

#[test]
fn a_large_picture_is_scaled_to_the_master_size_with_narrower_variants() {
    let processed = process(&png_rgb(2_600, 100), None).unwrap();
    let master = &processed.master;
    assert_eq!((master.width, master.height), (limits::MASTER_MAX_SIDE, 92));
    let sizes: Vec<(u32, u32)> = processed
        .variants
        .iter()
        .map(|v| (v.width, v.height))
        .collect();
    assert_eq!(sizes, [(480, 18), (960, 37), (1_600, 61)]);
    for file in files(&processed) {
        let decoded = image::load_from_memory(file).unwrap();
        assert!(decoded.width() <= limits::MASTER_MAX_SIDE);
    }
}

#[test]
fn variants_are_made_only_narrower_than_the_master() {
    let processed = process(&png_rgb(900, 30), None).unwrap();
    let widths: Vec<u32> = processed.variants.iter().map(|v| v.width).collect();
    assert_eq!(widths, [480]);
    assert!(
        process(&png_rgb(480, 30), None)
            .unwrap()
            .variants
            .is_empty()
    );
}

#[test]
fn transparency_is_kept_as_png_and_an_opaque_picture_becomes_jpeg() {
    let transparent = process(&png_rgba(600, 10, 128), None).unwrap();
    assert_eq!(transparent.master.kind, OutputKind::Png);
    assert!(
        transparent
            .variants
            .iter()
            .all(|v| v.kind == OutputKind::Png)
    );
    let decoded = image::load_from_memory(&transparent.master.bytes)
        .unwrap()
        .into_rgba8();
    assert_eq!(decoded.get_pixel(3, 3).0[3], 128);
    // An alpha channel with every pixel opaque is no transparency.
    let opaque = process(&png_rgba(600, 10, 255), None).unwrap();
    assert_eq!(opaque.master.kind, OutputKind::Jpeg);
}

#[test]
fn the_same_bytes_give_the_same_files() {
    let file = phone_jpeg(1_000, 600, 6);
    let first = process(&file, None).unwrap();
    let second = process(&file, None).unwrap();
    assert_eq!(first, second);
    assert_eq!(first.master.sha256.len(), 64);
    assert_ne!(first.master.sha256, first.variants[0].sha256);
}

#[test]
fn a_master_is_a_file_its_own_decoder_reads_back_at_its_size() {
    let processed = process(&webp_with_exif(300, 200), None).unwrap();
    let reader = image::ImageReader::new(Cursor::new(&processed.master.bytes))
        .with_guessed_format()
        .unwrap();
    assert_eq!(reader.format(), Some(image::ImageFormat::Jpeg));
    assert_eq!(reader.into_dimensions().unwrap(), (300, 200));
}
