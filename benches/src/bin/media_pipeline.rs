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

use std::time::Instant;

use blogread_benches::harness::median;
use blogread_benches::{libvips, photo};
use clap::Parser;

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

/// The peak resident memory of this process so far (`VmHWM`), in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let args = Args::parse();
    let bytes = photo::photo(args.width, args.height, photo::CAMERA_QUALITY, 0);
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
        match libvips::thumbnails(&dir, &photo_path) {
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
        println!(
            "libvips: vipsthumbnail not found or failed ({})",
            libvips::INSTALL
        );
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
