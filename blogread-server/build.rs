//! Build script of blogread-server: records the git commit the binary is built from, so that
//! `blogread-server --version` and the metrics' build info can say it.
//!
//! The commit is `BLOGREAD_GIT_COMMIT` when set (a build from a source archive can give it),
//! else `git rev-parse --short HEAD` when the sources are a git checkout and git is
//! installed, else `unknown`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BLOGREAD_GIT_COMMIT");
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let commit = match std::env::var("BLOGREAD_GIT_COMMIT") {
        Ok(commit) if !commit.trim().is_empty() => commit.trim().to_owned(),
        _ => {
            watch_head(&manifest_dir);
            git(&manifest_dir, &["rev-parse", "--short", "HEAD"])
                .unwrap_or_else(|| "unknown".to_owned())
        }
    };
    println!("cargo:rustc-env=BLOGREAD_GIT_COMMIT={commit}");
}

/// Asks cargo to run this script again when HEAD moves: when `HEAD` itself changes (a
/// checkout) and when the branch it names gets a new commit (its ref file, or `packed-refs`).
/// Only files that exist are named: cargo reruns a script on every build for a missing one.
fn watch_head(dir: &Path) {
    let Some(git_dir) = git(dir, &["rev-parse", "--absolute-git-dir"]) else {
        return;
    };
    let git_dir = PathBuf::from(git_dir);
    let common_dir = git(dir, &["rev-parse", "--git-common-dir"])
        .map(|d| absolute(dir, &d))
        .unwrap_or_else(|| git_dir.clone());
    let mut watched = vec![git_dir.join("HEAD"), common_dir.join("packed-refs")];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common_dir.join(&branch));
        watched.push(git_dir.join(&branch));
    }
    for path in watched.into_iter().filter(|p| p.is_file()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn absolute(base: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The trimmed output of a successful `git` command run in `dir`, if any.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_owned())
}
