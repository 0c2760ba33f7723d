//! A picture's size in pixels, read from its header (the service's masters are baseline or
//! progressive JPEGs and PNGs), and a variant's size as the service's pipeline makes it.

/// The width and height a JPEG's or PNG's header declares; `None` for anything else, or a
/// header cut short.
pub(crate) fn pixel_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        // The IHDR chunk comes first: length, type, width, height (big-endian).
        if bytes.get(12..16)? != b"IHDR" {
            return None;
        }
        let width = u32::from_be_bytes(bytes.get(16..20)?.try_into().ok()?);
        let height = u32::from_be_bytes(bytes.get(20..24)?.try_into().ok()?);
        return Some((width, height)).filter(|&(w, h)| w > 0 && h > 0);
    }
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    // The segments after the start of image, each `FF <marker> <length>`, up to a start of
    // frame, which holds the height and the width.
    let mut at = 2;
    loop {
        while *bytes.get(at)? != 0xFF {
            at += 1;
        }
        while *bytes.get(at)? == 0xFF {
            at += 1;
        }
        let marker = *bytes.get(at)?;
        at += 1;
        match marker {
            // Markers without a length.
            0x01 | 0xD0..=0xD7 => continue,
            // End of image, start of scan: no frame header before them.
            0xD9 | 0xDA => return None,
            _ => {}
        }
        let length = usize::from(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
        let is_frame = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_frame {
            let height = u16::from_be_bytes(bytes.get(at + 3..at + 5)?.try_into().ok()?);
            let width = u16::from_be_bytes(bytes.get(at + 5..at + 7)?.try_into().ok()?);
            return Some((u32::from(width), u32::from(height))).filter(|&(w, h)| w > 0 && h > 0);
        }
        at += length.max(2);
    }
}

/// The height of the variant `width` pixels wide of a `master_width` × `master_height`
/// master, rounded as the service's pipeline rounds it (`blogread-media`'s `scaled_side`): to
/// the nearest pixel, halves up, at least 1.
pub(crate) fn variant_height(master_width: u32, master_height: u32, width: u32) -> u32 {
    let from = u64::from(master_width.max(1));
    let scaled = (u64::from(master_height) * u64::from(width) + from / 2) / from;
    u32::try_from(scaled).unwrap_or(u32::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pngs_size_is_in_its_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1200u32.to_be_bytes());
        png.extend_from_slice(&800u32.to_be_bytes());
        assert_eq!(pixel_size(&png), Some((1200, 800)));
        assert_eq!(pixel_size(&png[..20]), None);
    }

    #[test]
    fn a_jpegs_size_is_in_its_frame_header_after_other_segments() {
        let mut jpeg = vec![0xFF, 0xD8];
        // An APP0 segment of 16 bytes, then a progressive frame header.
        jpeg.extend_from_slice(&[0xFF, 0xE0, 0x00, 0x10]);
        jpeg.extend_from_slice(&[0; 14]);
        jpeg.extend_from_slice(&[0xFF, 0xC2, 0x00, 0x11, 0x08, 0x03, 0x20, 0x04, 0xB0]);
        assert_eq!(pixel_size(&jpeg), Some((1200, 800)));
        // A Huffman table (C4) is no frame.
        let mut tables = vec![0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x04, 0, 0];
        tables.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x20]);
        assert_eq!(pixel_size(&tables), Some((32, 16)));
        assert_eq!(pixel_size(b"GIF89a"), None);
        assert_eq!(pixel_size(&[0xFF, 0xD8, 0xFF, 0xDA]), None);
    }

    #[test]
    fn a_variants_height_is_rounded_as_the_pipeline_rounds_it() {
        assert_eq!(variant_height(2400, 1600, 480), 320);
        assert_eq!(variant_height(1000, 333, 480), 160); // 159.84
        assert_eq!(variant_height(3, 1, 2), 1); // 0.67
        assert_eq!(variant_height(2000, 1, 480), 1); // never 0
        assert_eq!(variant_height(4, 1, 2), 1); // 0.5 rounds up
    }
}
