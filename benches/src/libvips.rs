//! libvips as the yardstick of the upload pipeline: `vipsthumbnail` (Debian's
//! `libvips-tools`) making the sizes an upload makes, the way the pipeline makes them.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How to get the command when it is missing.
pub const INSTALL: &str = "apt-get install libvips-tools";

/// Whether `vipsthumbnail` can be run.
pub fn available() -> bool {
    Command::new("vipsthumbnail")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Makes from `photo` what an upload makes, in `dir`: a master at most 2,400 px on its
/// longest side, then the 480, 960 and 1,600 px wide variants from the master, each a JPEG
/// at quality 82 with no metadata. Four commands, so four process starts and the master
/// decoded three times: what a library call would not pay, which flatters the pipeline
/// somewhat. The time of all four; `None` when a command is missing or fails.
pub fn thumbnails(dir: &Path, photo: &Path) -> Option<Duration> {
    let master = dir.join("master.jpg");
    let thumbnail = |input: &Path, size: &str, out: &Path| {
        Command::new("vipsthumbnail")
            .arg(input)
            .args(["--size", size, "-o"])
            .arg(format!("{}[Q=82,strip]", out.display()))
            .status()
            .is_ok_and(|s| s.success())
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
