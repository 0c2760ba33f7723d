//! The real `blogread-server` binary, run as an operator runs it: `--version`, `backup`,
//! `serve` with its operator token in a credential file and `--metrics-listen`, and `serve` as
//! `contrib/blogread.service` starts it.

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
