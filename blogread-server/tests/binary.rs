//! The real `blogread-server` binary, run as an operator runs it: `--version`, `backup`.

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

#[test]
fn backup_writes_a_checked_copy_and_never_overwrites_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("live.db").display());
    let (ok, _, err) = run(&[
        "--database-url",
        &url,
        "project",
        "create",
        "--name",
        "Kept",
    ]);
    assert!(ok, "{err}");
    let out = dir.path().join("backup.db");
    let out = out.to_str().unwrap();

    let (ok, stdout, stderr) = run(&["--database-url", &url, "backup", "--out", out]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("1 projects"), "{stdout}");
    assert!(stdout.contains("integrity_check: ok"), "{stdout}");
    let copy = format!("sqlite://{out}");
    let (ok, _, stderr) = run(&["--database-url", &copy, "migrate"]);
    assert!(ok, "the copy opens as a database: {stderr}");

    let before = std::fs::read(out).unwrap();
    let (ok, _, stderr) = run(&["--database-url", &url, "backup", "--out", out]);
    assert!(!ok, "an existing file is refused");
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(std::fs::read(out).unwrap(), before, "left as it was");
}

#[test]
fn backup_of_postgres_says_to_use_pg_dump_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("backup.dump");
    let (ok, _, stderr) = run(&[
        "--database-url",
        "postgres://blogread:s3cret@db.invalid/blogread",
        "backup",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("pg_dump"), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
    assert!(!out.exists());
}
