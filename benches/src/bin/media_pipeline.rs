//! The upload pipeline against libvips: one 12-megapixel JPEG made into a master (at most
//! 2,400 px) and its 480, 960 and 1,600 px variants, by `blogread_media::process` and by
//! `vipsthumbnail` (Debian's `libvips-tools`), side by side in one run; then the pipeline's
//! peak memory with one upload and with four at once.
//!
//! ```text
//! cargo run --release -p blogread-benches --bin media_pipeline -- --runs 5
//! ```
//!
//! The photo is made here (smooth gradients with fine noise, as a camera's JPEG compresses),
//! written at quality 90. libvips is run the way the pipeline works: the master from the
//! photo, each variant from the master, each written as a JPEG at the same quality with no
//! metadata. Without `vipsthumbnail` on the PATH only the pipeline is timed.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use clap::Parser;
use image::codecs::jpeg::JpegEncoder;
use image::{ExtendedColorType, ImageEncoder};

#[derive(Parser)]
#[command(about = "Times the upload pipeline against libvips on a 12-megapixel JPEG")]
struct Args {
    /// Runs of each side; the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Width of the photo.
    #[arg(long, default_value_t = 4_000)]
    width: u32,
    /// Height of the photo.
    #[arg(long, default_value_t = 3_000)]
    height: u32,
}

/// A photo-like picture: gradients and a little deterministic noise.
fn photo(width: u32, height: u32) -> Vec<u8> {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut data = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let noise = (seed % 24) as i32 - 12;
            let r = (x * 255 / width) as i32 + noise;
            let g = (y * 255 / height) as i32 + noise;
            let b = (((x + y) / 8) % 256) as i32 + noise;
            data.extend([r, g, b].map(|c| c.clamp(0, 255) as u8));
        }
    }
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90)
        .write_image(&data, width, height, ExtendedColorType::Rgb8)
        .expect("encodes");
    out
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The peak resident memory of this process so far (`VmHWM`), in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn vips_side(dir: &Path, photo: &Path) -> Option<Duration> {
    let master = dir.join("master.jpg");
    let thumbnail = |input: &Path, size: &str, out: &Path| {
        Command::new("vipsthumbnail")
            .arg(input)
            .args(["--size", size, "-o"])
            .arg(format!("{}[Q=82,strip]", out.display()))
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    let start = Instant::now();
    if !thumbnail(photo, "2400x2400", &master) {
        return None;
    }
    for width in [480, 960, 1_600] {
        let out = dir.join(format!("w{width}.jpg"));
        if !thumbnail(&master, &format!("{width}x"), &out) {
            return None;
        }
    }
    Some(start.elapsed())
}

fn main() {
    let args = Args::parse();
    let bytes = photo(args.width, args.height);
    let dir = std::env::temp_dir().join(format!("blogread-media-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let photo_path = dir.join("photo.jpg");
    std::fs::write(&photo_path, &bytes).expect("writes the photo");
    println!(
        "photo: {} × {} JPEG, {} KiB",
        args.width,
        args.height,
        bytes.len() / 1024
    );
    let before = peak_mib();
    let mut ours = Vec::new();
    for _ in 0..args.runs {
        let start = Instant::now();
        let processed = blogread_media::process(&bytes, Some("image/jpeg")).expect("processes");
        ours.push(start.elapsed());
        assert_eq!(processed.variants.len(), 3);
    }
    let ours = median(ours);
    let peak_one = peak_mib();
    println!(
        "blogread-media: median {:.0} ms over {} runs",
        ours.as_secs_f64() * 1e3,
        args.runs
    );
    println!("  peak resident memory: {peak_one:.0} MiB (before: {before:.0} MiB)");
    let mut theirs = Vec::new();
    for _ in 0..args.runs {
        match vips_side(&dir, &photo_path) {
            Some(t) => theirs.push(t),
            None => break,
        }
    }
    if theirs.len() == args.runs {
        let theirs = median(theirs);
        println!(
            "libvips (vipsthumbnail, 4 runs of the command): median {:.0} ms; ratio {:.2}",
            theirs.as_secs_f64() * 1e3,
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    } else {
        println!("libvips: vipsthumbnail not found or failed (apt-get install libvips-tools)");
    }
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| blogread_media::process(&bytes, Some("image/jpeg")).expect("processes"));
        }
    });
    println!(
        "four at once: {:.0} ms in all; peak resident memory {:.0} MiB",
        start.elapsed().as_secs_f64() * 1e3,
        peak_mib()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
