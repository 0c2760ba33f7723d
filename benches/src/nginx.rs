//! nginx (Debian's `nginx` package) as the yardstick of serving stored images: a process of
//! its own with a configuration written here, serving the same media folder under `/media/`
//! with `sendfile`, and the same caching and safety headers blogread sends.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How to get nginx when it is missing.
pub const INSTALL: &str = "apt-get install -y nginx";

/// The nginx binary: `nginx` on the PATH, else Debian's `/usr/sbin/nginx` (not on a user's
/// PATH); `None` when there is neither.
pub fn binary() -> Option<PathBuf> {
    let works = |bin: &Path| {
        Command::new(bin)
            .arg("-v")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    [PathBuf::from("nginx"), PathBuf::from("/usr/sbin/nginx")]
        .into_iter()
        .find(|bin| works(bin))
}

/// A running nginx, stopped when dropped.
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    addr: SocketAddr,
}

/// The configuration: `workers` worker processes, an access log only with `access_log`
/// (`{dir}/access.log`, buffered: 64 KB, flushed at least every second), `sendfile` and
/// `tcp_nopush` on, keep-alive connections never closed by a request count (the load client
/// counts a closed connection as an error), and `root` the parent of the media folder, so
/// that `/media/{project}/{file}` is the same file blogread serves.
fn config(dir: &Path, root: &Path, addr: SocketAddr, workers: &str, access_log: bool) -> String {
    let access_log = if access_log {
        format!("{}/access.log combined buffer=64k flush=1s", dir.display())
    } else {
        "off".to_owned()
    };
    let dir = dir.display();
    let root = root.display();
    format!(
        r#"worker_processes {workers};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log {access_log};
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000000;
    keepalive_timeout 120s;
    server_tokens off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    types {{ image/jpeg jpg; image/png png; }}
    default_type application/octet-stream;
    server {{
        listen {addr};
        root {root};
        location /media/ {{
            add_header Cache-Control "public, max-age=31536000, immutable" always;
            add_header X-Content-Type-Options nosniff always;
            add_header Content-Security-Policy "default-src 'none'; sandbox" always;
        }}
    }}
}}
"#
    )
}

/// A free loopback port (bound, then let go: nginx binds it a moment later).
fn free_addr() -> std::io::Result<SocketAddr> {
    TcpListener::bind("127.0.0.1:0")?.local_addr()
}

impl Nginx {
    /// Starts `nginx` (in the foreground: `daemon off`) with its prefix, configuration and
    /// logs in `dir`, serving `media_dir` under `/media/`, with `workers` worker processes
    /// (a number or `auto`), with a buffered access log when `access_log`; returns once it
    /// accepts connections.
    pub fn start(
        bin: &Path,
        dir: &Path,
        media_dir: &Path,
        workers: &str,
        access_log: bool,
    ) -> Result<Self, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let root = media_dir
            .parent()
            .ok_or("the media folder has no parent folder")?;
        if media_dir.file_name() != Some("media".as_ref()) {
            return Err("nginx maps /media/ to a folder named `media`".to_owned());
        }
        let addr = free_addr().map_err(|e| e.to_string())?;
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config(dir, root, addr, workers, access_log))
            .map_err(|e| e.to_string())?;
        let child = Command::new(bin)
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(&conf)
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", bin.display()))?;
        let mut nginx = Self { child, addr };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            if let Ok(Some(status)) = nginx.child.try_wait() {
                let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
                return Err(format!("nginx exited ({status}): {log}"));
            }
            if Instant::now() > deadline {
                return Err("nginx did not accept connections within 10 s".to_owned());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(nginx)
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The master process's id (its workers are its children, named `nginx` too).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGKILL reaches the master only; SIGTERM (through `kill`, which every Debian has)
        // makes it stop its workers first.
        let stopped = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if stopped {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
