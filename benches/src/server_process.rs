//! The release `blogread-server` binary run as a child process, as an operator runs it: `serve`
//! on a SQLite file in a work folder, its media folder beside it, an operator token read from a
//! file (`BLOGREAD_ADMIN_TOKEN_FILE`), a free loopback port, and its address read from the
//! `listening on http://ADDR` line of its log.
//!
//! Timing the real binary (rather than the server's library in the benchmark's own process)
//! keeps the benchmark's threads, allocations and runtime apart from the server's, as they
//! are apart from nginx's, and measures the build an operator runs.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long the server may take to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The command that builds the binary these benchmarks start.
pub const BUILD: &str = "cargo build --release -p blogread-server --bin blogread-server";

/// A running `blogread-server serve`, killed when dropped.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    addr: SocketAddr,
    operator_token: String,
    media_dir: PathBuf,
}

/// How to start the server.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The `blogread-server` binary.
    pub binary: PathBuf,
    /// The work folder: the database, the media folder and the token file go here.
    pub dir: PathBuf,
    /// More arguments of `serve` (such as `--max-uploads 8`).
    pub extra_args: Vec<String>,
    /// `RUST_LOG` for the server; `None` leaves its default (`info`: a line per request).
    pub log_filter: Option<String>,
}

/// The release binary built beside the running benchmark (both are in the same target
/// folder's `release/`), which is where [`BUILD`] puts it.
pub fn default_binary() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("blogread-server")))
        .unwrap_or_else(|| PathBuf::from("blogread-server"))
}

/// A token of 64 hex digits, different at each run (the standard library's hasher keys are
/// random per process); a benchmark's token needs to be long, not strong.
fn new_token() -> String {
    use std::hash::{BuildHasher, RandomState};
    let state = RandomState::new();
    (0..4u64)
        .map(|i| format!("{:016x}", state.hash_one((i, std::process::id()))))
        .collect()
}

impl ServerProcess {
    /// Starts the server and waits for its address. Lines it logs at `WARN` or `ERROR`
    /// afterwards are copied to this process's stderr; the rest (the request log) is read
    /// and dropped, so that the server never waits on a full pipe.
    pub fn start(options: &ServerOptions) -> Result<Self, String> {
        if !options.binary.is_file() {
            return Err(format!(
                "no server binary at {}: build it first with `{BUILD}` (same CARGO_TARGET_DIR)",
                options.binary.display()
            ));
        }
        std::fs::create_dir_all(&options.dir).map_err(|e| e.to_string())?;
        let token = new_token();
        let token_file = options.dir.join("operator-token");
        std::fs::write(&token_file, &token).map_err(|e| e.to_string())?;
        let media_dir = options.dir.join("media");
        let database = options.dir.join("blogread.db");
        let mut command = Command::new(&options.binary);
        command
            .arg("--database-url")
            .arg(format!("sqlite://{}", database.display()))
            .args(["serve", "--listen", "127.0.0.1:0", "--media-dir"])
            .arg(&media_dir)
            .args(&options.extra_args)
            .env("BLOGREAD_ADMIN_TOKEN_FILE", &token_file)
            .env_remove("BLOGREAD_ADMIN_TOKEN")
            .env_remove("BLOGREAD_LOG_JSON")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        match &options.log_filter {
            Some(filter) => command.env("RUST_LOG", filter),
            None => command.env_remove("RUST_LOG"),
        };
        let mut child = command
            .spawn()
            .map_err(|e| format!("starting {}: {e}", options.binary.display()))?;
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || read_log(stderr, tx));
        let addr = match rx.recv_timeout(START_TIMEOUT) {
            Ok(Ok(addr)) => addr,
            Ok(Err(lines)) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the server did not start:\n{lines}"));
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("the server printed no address within a minute".to_owned());
            }
        };
        Ok(Self {
            child,
            addr,
            operator_token: token,
            media_dir,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Its process id, for [`crate::procfs`].
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The operator token it was started with.
    pub fn operator_token(&self) -> &str {
        &self.operator_token
    }

    /// Its media folder (`--media-dir`).
    pub fn media_dir(&self) -> &Path {
        &self.media_dir
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads the server's log: sends its address once the `listening on` line comes (or every
/// line so far if the log ends first), then keeps reading.
fn read_log(stderr: impl std::io::Read, tx: mpsc::Sender<Result<SocketAddr, String>>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stderr);
    let mut line = String::new();
    let mut before = String::new();
    let mut told = false;
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if !told {
            if let Some(addr) = listening_address(&line) {
                told = true;
                let _ = tx.send(Ok(addr));
            } else {
                before.push_str(&line);
            }
        } else if line.contains(" WARN ") || line.contains(" ERROR ") {
            eprint!("server: {line}");
        }
    }
    if !told {
        let _ = tx.send(Err(before));
    }
}

/// The address of a `listening on http://ADDR` log line.
fn listening_address(line: &str) -> Option<SocketAddr> {
    let rest = &line[line.find("listening on http://")? + "listening on http://".len()..];
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '"')
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_is_read_from_the_log_line() {
        let line = "2026-11-27T15:00:00.000Z  INFO blogread_server: listening on http://127.0.0.1:41234 database_url=sqlite://x\n";
        assert_eq!(
            listening_address(line),
            Some("127.0.0.1:41234".parse().unwrap())
        );
        assert_eq!(listening_address("starting\n"), None);
    }
}
