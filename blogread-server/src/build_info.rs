//! What this binary is: its version and the git commit it was built from (recorded by the
//! build script; `unknown` when built outside a git checkout without `BLOGREAD_GIT_COMMIT`).
//! `blogread-server --version` prints them, and `/metrics` exports them as
//! `blogread_build_info{version, commit} 1`.

/// The crate version, e.g. `0.1.0`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The short git commit hash the binary was built from, or `unknown`.
pub const COMMIT: &str = env!("BLOGREAD_GIT_COMMIT");

/// What `--version` prints after the program name: `0.1.0 (commit 1a2b3c4)`.
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("BLOGREAD_GIT_COMMIT"),
    ")"
);
