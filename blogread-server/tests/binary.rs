//! The real `blogread-server` binary, run as an operator runs it: `--version`.

use std::process::Command;

/// The commit `git` reports for the sources, as the build script records it.
fn source_commit() -> String {
    let out = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match out {
        Ok(out) if out.status.success() => String::from_utf8(out.stdout).unwrap().trim().to_owned(),
        _ => "unknown".to_owned(),
    }
}

#[test]
fn version_flag_prints_the_version_and_the_commit() {
    let (ok, stdout, stderr) = run(&["--version"]);
    assert!(ok, "{stderr}");
    let commit = blogread_server::build_info::COMMIT;
    assert_eq!(
        stdout.trim(),
        format!(
            "blogread-server {} (commit {commit})",
            env!("CARGO_PKG_VERSION")
        )
    );
    if std::env::var_os("BLOGREAD_GIT_COMMIT").is_none() {
        assert_eq!(commit, source_commit(), "the commit of the sources");
    }
}

/// Runs the binary with `args`, no `BLOGREAD_*` variable inherited; returns whether it
/// succeeded, its stdout and its stderr.
fn run(args: &[&str]) -> (bool, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_blogread-server"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("BLOGREAD_") {
            command.env_remove(name);
        }
    }
    let out = command.args(args).output().expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}
