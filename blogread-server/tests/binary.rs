//! The real `blogread-server` binary, run as an operator runs it: `--version`, `backup`,
//! `serve` with its operator token in a credential file and `--metrics-listen`, and `serve` as
//! `contrib/blogread.service` starts it.

use std::process::Command;

/// The commit `git` reports for the sources, as the build script records it.
fn source_commit() -> String {
    let out = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        // When it runs, not where it was built: a shared target folder may hold a binary
        // built from another checkout.
        .current_dir(
            std::env::var("CARGO_MANIFEST_DIR")
                .expect("cargo sets CARGO_MANIFEST_DIR when it runs a test"),
        )
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

/// The permission bits of the file at `path`.
#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The database and its backup hold every public key and deploy hook URL: only their owner
/// may read them, whatever the umask; a link planted at the backup's name is not followed.
#[cfg(unix)]
#[test]
fn the_database_and_its_backup_are_private_and_an_exposed_database_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("private.db");
    let url = format!("sqlite://{}", db.display());
    let server = serve(
        &["--database-url", &url, "serve", "--listen", "127.0.0.1:0"],
        &[],
        1,
    );
    assert_eq!(get(&server.addresses[0], "/healthz", None).0, 200);
    for file in ["private.db", "private.db-wal", "private.db-shm"] {
        assert_eq!(mode(&dir.path().join(file)), 0o600, "{file}");
    }
    drop(server);

    let out = dir.path().join("copy.db");
    let (ok, _, stderr) = run(&[
        "--database-url",
        &url,
        "backup",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(mode(&out), 0o600, "the backup");

    let target = dir.path().join("through-the-link.db");
    let link = dir.path().join("link.db");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (ok, _, stderr) = run(&[
        "--database-url",
        &url,
        "backup",
        "--out",
        link.to_str().unwrap(),
    ]);
    assert!(!ok && stderr.contains("already exists"), "{stderr}");
    assert!(!target.exists(), "nothing written through the link");

    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (ok, _, stderr) = run(&["--database-url", &url, "migrate"]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("other local users can read") && stderr.contains("chmod 600"),
        "{stderr}"
    );
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

/// A `blogread-server serve` process, killed when dropped.
struct Served {
    child: std::process::Child,
    /// Addresses the server logged, in order (`127.0.0.1:PORT`).
    addresses: Vec<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `serve` with `args` and reads its log until it has named `count` addresses it
/// listens on.
fn serve(args: &[&str], env: &[(&str, &str)], count: usize) -> Served {
    use std::io::BufRead;
    let mut command = Command::new(env!("CARGO_BIN_EXE_blogread-server"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("BLOGREAD_") {
            command.env_remove(name);
        }
    }
    let mut child = command
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().unwrap();
    let mut served = Served {
        child,
        addresses: Vec::new(),
    };
    let mut lines = std::io::BufReader::new(stderr).lines();
    while served.addresses.len() < count {
        let line = lines
            .next()
            .expect("the server logs where it listens before it stops")
            .unwrap();
        if let Some((_, rest)) = line.split_once("http://") {
            let addr: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                .collect();
            served.addresses.push(addr);
        }
    }
    // Keep draining the log so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    served
}

/// `GET path` over a new connection; the status and the body.
fn get(addr: &str, path: &str, token: Option<&str>) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connects");
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn serve_reads_its_token_from_a_credential_file_and_metrics_listen_needs_none() {
    let dir = tempfile::tempdir().unwrap();
    // As systemd's LoadCredential= hands it over: a file in $CREDENTIALS_DIRECTORY.
    let token = "credential-file-operator-token-0123456789";
    std::fs::write(dir.path().join("admin-token"), format!("{token}\n")).unwrap();
    let url = format!("sqlite://{}", dir.path().join("served.db").display());
    let credentials = dir.path().to_str().unwrap();
    let server = serve(
        &[
            "--database-url",
            &url,
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
        &[(
            "BLOGREAD_ADMIN_TOKEN_FILE",
            &format!("{credentials}/admin-token"),
        )],
        2,
    );
    let (api, metrics) = (&server.addresses[0], &server.addresses[1]);

    assert_eq!(
        get(api, "/metrics", None).0,
        401,
        "the API's address asks for the token"
    );
    let (status, body) = get(api, "/metrics", Some(token));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("blogread_build_info{"), "{body}");

    let (status, body) = get(metrics, "/metrics", None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("blogread_build_info{"), "{body}");
    assert!(
        body.contains("route=\"/metrics\""),
        "the API's requests so far are counted: {body}"
    );
    assert_eq!(
        get(metrics, "/healthz", None).0,
        404,
        "and nothing else there"
    );
    assert_eq!(get(metrics, "/api/v1/projects", None).0, 404);
}

/// The values of `key=` in a systemd unit, in order.
fn unit_values<'a>(unit: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("{key}=");
    unit.lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .collect()
}

/// The unit's command line and environment start a server that reads the operator token from
/// the credential systemd hands over (`LoadCredential=admin-token:...`, `%d/admin-token`), with
/// the unit's state directory, listen address and database moved into a temporary directory.
#[test]
fn the_systemd_unit_starts_a_server_that_reads_its_token_from_the_credential() {
    let unit = include_str!("../../contrib/blogread.service");
    let exec = unit_values(unit, "ExecStart");
    assert_eq!(exec.len(), 1, "one ExecStart=");
    let mut words = exec[0].split_whitespace();
    assert_eq!(words.next(), Some("/usr/local/bin/blogread-server"));
    let credential = unit_values(unit, "LoadCredential");
    assert_eq!(credential, ["admin-token:/etc/blogread/admin-token"]);
    for hardening in [
        "DynamicUser=yes",
        "StateDirectory=blogread",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=\n",
        "SystemCallFilter=@system-service",
        "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
    ] {
        assert!(unit.contains(hardening), "{hardening:?}");
    }

    let dir = tempfile::tempdir().unwrap();
    let credentials = dir.path().join("credentials");
    let state = dir.path().join("state");
    std::fs::create_dir_all(&credentials).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    let token = "systemd-credential-operator-token-0123456789";
    std::fs::write(credentials.join("admin-token"), format!("{token}\n")).unwrap();
    let localise = |text: &str| {
        text.replace("%d", credentials.to_str().unwrap())
            .replace("/var/lib/blogread", state.to_str().unwrap())
    };
    let args: Vec<String> = words.map(localise).collect();
    let mut env: Vec<(String, String)> = unit_values(unit, "Environment")
        .into_iter()
        .map(|assignment| {
            let (name, value) = assignment.split_once('=').expect("NAME=value");
            (name.to_owned(), localise(value))
        })
        .collect();
    assert!(
        env.iter()
            .any(|(n, v)| n == "BLOGREAD_DATABASE_URL" && v.contains(state.to_str().unwrap())),
        "the database lives in the state directory: {env:?}"
    );
    for (name, value) in &mut env {
        if name == "BLOGREAD_LISTEN" {
            *value = "127.0.0.1:0".to_owned();
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let server = serve(&args, &env, 1);
    let api = &server.addresses[0];
    assert_eq!(get(api, "/metrics", None).0, 401);
    assert_eq!(get(api, "/metrics", Some(token)).0, 200);
    assert_eq!(get(api, "/healthz", None).0, 200);
    assert!(
        state.join("blogread.db").exists(),
        "the database is in the state directory"
    );
}

/// A `blogread-server demo` process (killed when dropped) and what it printed.
struct Demo {
    _child: Served,
    /// The instructions, up to the `API reference` line.
    printed: String,
}

/// Starts `demo` on a free port over the SQLite database `db`, with no `BLOGREAD_*` variable
/// but `env`, and reads what it prints until the instructions end.
fn start_demo(db: &std::path::Path, env: &[(&str, &str)]) -> Demo {
    use std::io::BufRead;
    let mut command = Command::new(env!("CARGO_BIN_EXE_blogread-server"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("BLOGREAD_") {
            command.env_remove(name);
        }
    }
    let url = format!("sqlite://{}", db.display());
    let mut child = command
        .args(["--database-url", &url, "demo", "--listen", "127.0.0.1:0"])
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    // Keep draining the log so the server never blocks on a full pipe.
    std::thread::spawn(move || std::io::BufReader::new(stderr).lines().for_each(drop));
    let served = Served {
        child,
        addresses: Vec::new(),
    };
    let mut printed = String::new();
    let mut lines = std::io::BufReader::new(stdout).lines();
    loop {
        let line = lines
            .next()
            .expect("demo prints its instructions before it stops")
            .unwrap();
        printed.push_str(&line);
        printed.push('\n');
        if line.starts_with("API reference:") {
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    Demo {
        _child: served,
        printed,
    }
}

/// One printed example: its comment, the status it promises, the shell lines under it.
#[derive(Debug)]
struct Snippet {
    comment: String,
    expect: u16,
    lines: Vec<String>,
}

/// The examples `demo` printed: each a `# comment (expect NNN)` line followed by the shell
/// lines to paste, up to a blank line.
fn snippets(printed: &str) -> Vec<Snippet> {
    let mut snippets: Vec<Snippet> = Vec::new();
    let mut open = false;
    for line in printed.lines() {
        let text = line.trim();
        if let Some(comment) = text.strip_prefix("# ") {
            let expect = comment
                .rsplit_once("(expect ")
                .and_then(|(_, s)| s.strip_suffix(')'))
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("the comment says what to expect: {comment:?}"));
            snippets.push(Snippet {
                comment: comment.to_owned(),
                expect,
                lines: Vec::new(),
            });
            open = true;
        } else if text.is_empty() {
            open = false;
        } else if open {
            snippets.last_mut().unwrap().lines.push(text.to_owned());
        }
    }
    snippets
}

/// Runs a snippet's lines in one `bash`, as pasted (failing on the first failing command);
/// the status and body of the last answer `curl -i` showed.
fn paste(snippet: &Snippet) -> (u16, String) {
    let script = format!("set -euo pipefail\n{}\n", snippet.lines.join("\n"));
    let out = Command::new("bash")
        .args(["-c", &script])
        .output()
        .expect("bash runs (the printed commands are shell)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}: the commands failed: {}\n{stdout}",
        snippet.comment,
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout
        .rfind("HTTP/1.1 ")
        .unwrap_or_else(|| panic!("{}: no HTTP answer shown: {stdout}", snippet.comment));
    let answer = &stdout[last..];
    let status = answer[9..12].parse().expect("a status");
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The value after `label` on its line of the printed text.
fn printed_value<'a>(printed: &'a str, label: &str) -> &'a str {
    printed
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("`{label}` is printed"))
        .trim()
}

/// Pastes every printed example in order and checks that each answers as its comment says
/// (plus what some comments promise besides the status).
fn paste_all_and_check(printed: &str) {
    assert!(
        Command::new("curl").arg("--version").output().is_ok(),
        "curl must be installed: the test runs the commands as a user pastes them"
    );
    let key = printed_value(printed, "Public key:");
    let all = snippets(printed);
    assert!(all.len() >= 15, "the demo prints its examples: {all:#?}");
    for snippet in &all {
        let (status, body) = paste(snippet);
        assert_eq!(
            status, snippet.expect,
            "{}: answered {status}: {body}",
            snippet.comment
        );
        let url_ends = |tail: &str| {
            snippet
                .lines
                .iter()
                .any(|l| l.contains(&format!("{tail}'")))
        };
        if url_ends("/blogs/redirects") {
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            let first = &json["redirects"][0];
            let said = format!(
                "{} -> {}",
                first["from"].as_str().unwrap(),
                first["to"].as_str().unwrap()
            );
            assert!(
                snippet.comment.contains(&said),
                "the comment names the redirect the answer lists ({said}): {}",
                snippet.comment
            );
        }
        if snippet.comment.contains("its featured image") {
            // The post shows a stored image, with its size and alt text, and the image line
            // fetches that very image.
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            let image = &json["featured_image"];
            assert!(image["width"].as_u64().unwrap() > 0, "{body}");
            assert!(!image["alt"].as_str().unwrap().is_empty(), "{body}");
            let url = image["url"].as_str().unwrap();
            assert!(
                all.iter().any(|s| s
                    .lines
                    .iter()
                    .any(|l| l.contains(&format!("curl -sI '{url}'")))),
                "the image line fetches the featured image {url}"
            );
        }
        if url_ends("/public-key/rotate") {
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            let new = json["key"].as_str().unwrap();
            assert!(new.starts_with("pk_live_") && new != key, "{body}");
        }
    }
    let commented = |words: &str| all.iter().any(|s| s.comment.contains(words));
    assert!(commented("ETag"), "an ETag round trip is shown");
    assert!(all.iter().any(|s| s.expect == 304));
    assert!(commented("redirects"), "the redirects are shown");
    assert!(commented("from the service storage"), "an image is fetched");
}

#[test]
fn the_demo_prints_commands_that_answer_as_their_comments_say_when_pasted_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let demo = start_demo(&dir.path().join("demo.db"), &[]);
    paste_all_and_check(&demo.printed);
}

#[test]
fn a_second_demo_on_the_same_database_reuses_its_project_and_its_commands_hold_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let first = start_demo(&db, &[]);
    // The printed commands publish the draft and rotate the key.
    paste_all_and_check(&first.printed);
    let project = printed_value(&first.printed, "Project id:").to_owned();
    drop(first);

    let second = start_demo(&db, &[]);
    assert_eq!(printed_value(&second.printed, "Project id:"), project);
    assert!(
        second.printed.contains("already held the demo project"),
        "it says what it did: {}",
        second.printed
    );
    assert!(
        second
            .printed
            .contains("a token an earlier run\nprinted no longer works"),
        "and that the operator token is new: {}",
        second.printed
    );
    paste_all_and_check(&second.printed);

    let snippet = snippets(&second.printed)
        .into_iter()
        .find(|s| s.comment.starts_with("every project"))
        .expect("the projects are listed");
    let (_, body) = paste(&snippet);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["total"], 1, "one demo project, not two: {json}");
    assert_eq!(json["projects"][0]["id"], project.as_str());

    // With a configured operator token, the note about a new one is not printed.
    drop(second);
    let token = "a-configured-operator-token-0123456789";
    let third = start_demo(&db, &[("BLOGREAD_ADMIN_TOKEN", token)]);
    assert_eq!(printed_value(&third.printed, "Operator token:"), token);
    assert!(
        !third.printed.contains("no longer works"),
        "{}",
        third.printed
    );
}

/// Runs the binary in `dir` with `args` and the given `BLOGREAD_*` variables only.
fn run_in(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_blogread-server"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("BLOGREAD_") {
            command.env_remove(name);
        }
    }
    let out = command
        .current_dir(dir)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs");
    (out.status.success(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_start_refused_for_a_short_operator_token_leaves_no_database_behind() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["serve", "demo"] {
        let (ok, stderr) = run_in(
            dir.path(),
            &[command, "--listen", "127.0.0.1:0"],
            &[("BLOGREAD_ADMIN_TOKEN", "too-short")],
        );
        assert!(!ok, "{command} refuses");
        assert!(stderr.contains("refusing to start"), "{stderr}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{command} created {left:?}");
    }
}

#[test]
fn a_healthy_server_exports_the_store_error_counter_at_zero() {
    let server = serve(
        &[
            "--database-url",
            "memory:",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
        &[],
        2,
    );
    let (status, body) = get(&server.addresses[1], "/metrics", None);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("# TYPE blogread_store_errors_total counter"),
        "{body}"
    );
    assert!(
        body.contains("# HELP blogread_store_errors_total "),
        "{body}"
    );
    for kind in blogread_core::store::STORE_ERROR_KINDS {
        assert!(
            body.contains(&format!(
                "blogread_store_errors_total{{kind=\"{kind}\"}} 0\n"
            )),
            "{kind}: {body}"
        );
    }
}

/// Log lines are written by a worker thread through a buffer: a clean stop (SIGTERM) writes
/// every line logged before it, the request lines of a burst included.
#[test]
fn a_clean_stop_writes_every_buffered_log_line() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("blogread.db").display());
    let mut command = Command::new(env!("CARGO_BIN_EXE_blogread-server"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("BLOGREAD_") {
            command.env_remove(name);
        }
    }
    let mut child = command
        .args(["--database-url", &db, "serve", "--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the server says where it listens")
            .unwrap();
        if let Some((_, rest)) = line.split_once("http://") {
            break rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                .collect::<String>();
        }
    };
    let rest = std::thread::spawn(move || lines.map(Result::unwrap).collect::<Vec<_>>());
    const REQUESTS: usize = 300;
    for n in 0..REQUESTS {
        let (status, _) = get(&addr, &format!("/blog/api/v1/public/blogs?burst={n}"), None);
        assert_eq!(status, 401);
    }
    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(stopped.success());
    assert!(child.wait().unwrap().success(), "a clean stop");
    let logged = rest.join().unwrap();
    let requests = logged.iter().filter(|l| l.contains("burst=")).count();
    assert_eq!(requests, REQUESTS, "every request's line: {logged:#?}");
}
