//! What the tests of the real `blogread-server` binary share: starting it on loopback (killed
//! on drop), its log and memory, and raw HTTP/1.1 and HTTP/2 connections to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a test waits for something the server must do before it counts as never.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A mebibyte.
pub const MIB: usize = 1024 * 1024;

/// A `blogread-server serve` process on an in-memory store, killed on drop.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Everything the server wrote to stderr so far, and a signal for each new line.
    log: Arc<(Mutex<String>, Condvar)>,
    /// Its own folder, removed with it: the media folder (`media`, its `--media-dir`) and
    /// the operator token's file.
    pub dir: tempfile::TempDir,
}

/// The operator token of [`Server::start_as_operator`].
pub const OPERATOR_TOKEN: &str = "operator-token-for-the-binary-tests-0123456789";

impl Server {
    /// Starts `blogread-server --database-url memory: serve --listen 127.0.0.1:0 FLAGS`.
    pub fn start(flags: &[&str]) -> Server {
        Self::start_with(flags, false)
    }

    /// Like [`Server::start`], with [`OPERATOR_TOKEN`] as its operator token.
    pub fn start_as_operator(flags: &[&str]) -> Server {
        Self::start_with(flags, true)
    }

    fn start_with(flags: &[&str], operator: bool) -> Server {
        Self::start_on("memory:", flags, &[], operator)
    }

    /// Starts `blogread-server --database-url DATABASE_URL serve --listen 127.0.0.1:0 FLAGS`
    /// with the environment variables `env` and, when `operator`, [`OPERATOR_TOKEN`].
    pub fn start_on(
        database_url: &str,
        flags: &[&str],
        env: &[(&str, String)],
        operator: bool,
    ) -> Server {
        Self::start_through(&[], database_url, flags, env, operator)
    }

    /// Like [`Server::start`], the server started by the command `wrapper` (a program and its
    /// first arguments, e.g. a shell that sets limits and `exec`s the rest), which gets the
    /// server's program and arguments after its own.
    pub fn start_wrapped(wrapper: &[&str], flags: &[&str]) -> Server {
        Self::start_through(wrapper, "memory:", flags, &[], false)
    }

    fn start_through(
        wrapper: &[&str],
        database_url: &str,
        flags: &[&str],
        env: &[(&str, String)],
        operator: bool,
    ) -> Server {
        let dir = tempfile::tempdir().expect("a folder for the server");
        let token_file = dir.path().join("operator-token");
        std::fs::write(&token_file, OPERATOR_TOKEN).expect("write the token file");
        let program = env!("CARGO_BIN_EXE_blogread-server");
        let mut command = match wrapper {
            [] => Command::new(program),
            [first, rest @ ..] => {
                let mut command = Command::new(first);
                command.args(rest).arg(program);
                command
            }
        };
        if operator {
            command.env("BLOGREAD_ADMIN_TOKEN_FILE", &token_file);
        } else {
            command.env_remove("BLOGREAD_ADMIN_TOKEN_FILE");
        }
        command.envs(env.iter().map(|(k, v)| (k, v)));
        let media_dir = dir.path().join("media");
        let mut media = vec![std::ffi::OsStr::new("--media-dir"), media_dir.as_os_str()];
        if flags.contains(&"--media-url") || flags.contains(&"--media-dir") {
            media.clear();
        }
        let mut child = command
            .args([
                "--database-url",
                database_url,
                "serve",
                "--listen",
                "127.0.0.1:0",
            ])
            .args(media)
            .args(flags)
            .env_remove("BLOGREAD_ADMIN_TOKEN")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start blogread-server");
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = Arc::new((Mutex::new(String::new()), Condvar::new()));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        std::thread::spawn({
            let log = log.clone();
            move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if let Some((_, rest)) = line.split_once("listening on http://") {
                        let addr = rest.split_whitespace().next().unwrap_or_default();
                        let _ = addr_tx.send(addr.to_owned());
                    }
                    let (text, grown) = &*log;
                    let mut text = text.lock().unwrap();
                    text.push_str(&line);
                    text.push('\n');
                    grown.notify_all();
                }
            }
        });
        let addr = addr_rx
            .recv_timeout(PATIENCE)
            .expect("the server logs the address it listens on")
            .parse()
            .expect("a socket address");
        Server {
            child,
            addr,
            log,
            dir,
        }
    }

    /// The log once `ready` holds for it (waiting for the lines the server is still writing).
    pub fn log_when(&self, ready: impl Fn(&str) -> bool) -> String {
        let (text, grown) = &*self.log;
        let text = text.lock().unwrap();
        let (text, waited) = grown
            .wait_timeout_while(text, PATIENCE, |text| !ready(text))
            .unwrap();
        assert!(!waited.timed_out(), "the log never got there: {text}");
        text.clone()
    }

    /// Its open-files limits, soft and hard (`None`: unlimited), from `/proc/PID/limits`.
    pub fn open_files_limits(&self) -> (Option<u64>, Option<u64>) {
        let limits = std::fs::read_to_string(format!("/proc/{}/limits", self.child.id()))
            .expect("read /proc/PID/limits");
        let line = limits
            .lines()
            .find_map(|line| line.strip_prefix("Max open files"))
            .expect("a line for open files");
        let mut values = line.split_whitespace().map(|v| v.parse().ok());
        (values.next().flatten(), values.next().flatten())
    }

    /// A `/proc/PID/status` field in KiB (`VmRSS`, `VmHWM`).
    pub fn memory_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc/PID/status");
        status
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{field}:")))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc/PID/status"))
    }

    /// Its media folder.
    pub fn media_dir(&self) -> std::path::PathBuf {
        self.dir.path().join("media")
    }

    /// A new connection to it.
    pub async fn connect(&self) -> TcpStream {
        TcpStream::connect(self.addr).await.expect("connect")
    }

    /// A new HTTP/2 (prior knowledge) connection to it.
    pub async fn h2(&self) -> (h2::client::SendRequest<Bytes>, H2Connection) {
        let (client, connection) = h2::client::handshake(self.connect().await)
            .await
            .expect("HTTP/2 handshake (prior knowledge)");
        (client, connection)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The whole of an HTTP/2 answer's body, its flow-control capacity given back as it is read.
pub async fn h2_body(mut body: h2::RecvStream) -> Vec<u8> {
    let mut read = Vec::new();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.expect("read the answer");
        let _ = body.flow_control().release_capacity(chunk.len());
        read.extend_from_slice(&chunk);
    }
    read
}

/// An HTTP/2 client connection, to be driven by a task.
pub type H2Connection = h2::client::Connection<TcpStream, Bytes>;

/// Reads until the peer closes; true when it did (EOF or reset) within [`PATIENCE`].
pub async fn closed_by_peer(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    tokio::time::timeout(PATIENCE, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
}

/// Reads one HTTP/1.1 response with a `Content-Length` body; returns its head and body.
pub async fn read_response(stream: &mut TcpStream) -> (String, String) {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    tokio::time::timeout(PATIENCE, async {
        loop {
            if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse().ok())?
                    })
                    .unwrap_or(0);
                if bytes.len() >= end + 4 + length {
                    let body = String::from_utf8_lossy(&bytes[end + 4..end + 4 + length]);
                    return (head, body.into_owned());
                }
            }
            let n = stream.read(&mut buf).await.expect("read the response");
            assert!(n > 0, "the server closed before answering: {bytes:?}");
            bytes.extend_from_slice(&buf[..n]);
        }
    })
    .await
    .expect("an answer")
}

/// `GET /healthz` on `stream`; the answer's head.
pub async fn get_healthz(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: blogread\r\n\r\n")
        .await
        .expect("send a request");
    read_response(stream).await.0
}
