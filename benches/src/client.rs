//! A lean HTTP/1.1 keep-alive load client: each connection sends one fixed request, reads the
//! whole answer (head parsed with `httparse`, body by `Content-Length`), and repeats until the
//! time is up. Latencies after the warm-up go into an HDR histogram. It does as little work per
//! request as a client can, so that on a machine where client and server share the cores, the
//! client's share is small and the same for every server it drives.
//!
//! Closed loop: each connection waits for its answer before sending again (no coordinated
//! omission correction), so the latency is the service time under that concurrency.

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One request to repeat, and the answer expected.
#[derive(Debug, Clone)]
pub struct Target {
    /// Server address (loopback).
    pub addr: SocketAddr,
    /// The whole request, head and (empty) body.
    pub request: Vec<u8>,
    /// Expected status.
    pub status: u16,
    /// Expected body length.
    pub body_len: usize,
}

/// A GET request with the given headers.
pub fn get(path: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (name, value) in headers {
        req.push_str(&format!("{name}: {value}\r\n"));
    }
    req.push_str("\r\n");
    req.into_bytes()
}

/// How long and how hard to drive a target.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// Concurrent keep-alive connections.
    pub connections: usize,
    /// Time not measured at the start (connections made, caches warm).
    pub warmup: Duration,
    /// Measured time.
    pub duration: Duration,
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct Stats {
    /// Answers received in the measured time.
    pub requests: u64,
    /// Answers with another status or body length than expected, and broken connections.
    pub errors: u64,
    /// The measured time.
    pub elapsed: Duration,
    /// Latency in microseconds.
    pub latency_us: Histogram<u64>,
}

impl Stats {
    /// Requests per second.
    pub fn rps(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// A latency quantile in milliseconds.
    pub fn latency_ms(&self, q: f64) -> f64 {
        self.latency_us.value_at_quantile(q) as f64 / 1000.0
    }

    /// Adds another run's counts and latencies.
    pub fn merge(&mut self, other: &Stats) {
        self.requests += other.requests;
        self.errors += other.errors;
        self.elapsed += other.elapsed;
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.latency_us.add(&other.latency_us);
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// An answer: status, head length and body length. `buf` holds head and body afterwards.
async fn exchange(stream: &mut TcpStream, request: &[u8], buf: &mut Vec<u8>) -> io::Result<Answer> {
    stream.write_all(request).await?;
    buf.clear();
    let (status, head, body) = loop {
        if buf.capacity() - buf.len() < 8 * 1024 {
            buf.reserve(64 * 1024);
        }
        if stream.read_buf(buf).await? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(buf) {
            Ok(httparse::Status::Complete(head)) => {
                let status = resp.code.unwrap_or(0);
                let mut body = None;
                for h in resp.headers.iter() {
                    if h.name.eq_ignore_ascii_case("content-length") {
                        body = std::str::from_utf8(h.value)
                            .ok()
                            .and_then(|v| v.trim().parse::<usize>().ok());
                    } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "chunked answers are not supported by the load client",
                        ));
                    }
                }
                let body = match (status, body) {
                    (_, Some(n)) => n,
                    (304 | 204, None) => 0,
                    _ => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "answer without Content-Length",
                        ));
                    }
                };
                break (status, head, body);
            }
            Ok(httparse::Status::Partial) => continue,
            Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
        }
    };
    let total = head + body;
    if buf.capacity() < total {
        buf.reserve(total - buf.len());
    }
    while buf.len() < total {
        if stream.read_buf(buf).await? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
    Ok(Answer { status, head, body })
}

struct Answer {
    status: u16,
    head: usize,
    body: usize,
}

/// A whole answer, for capturing what a server sends.
#[derive(Debug, Clone)]
pub struct Captured {
    /// Status.
    pub status: u16,
    /// Headers, as sent.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

impl Captured {
    /// A header's value (first of that name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` once on a new connection and returns the whole answer.
pub async fn fetch(addr: SocketAddr, request: &[u8]) -> io::Result<Captured> {
    let mut stream = TcpStream::connect(addr).await?;
    let mut buf = Vec::new();
    let a = exchange(&mut stream, request, &mut buf).await?;
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut resp = httparse::Response::new(&mut headers);
    resp.parse(&buf)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let headers = resp
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_owned(),
                String::from_utf8_lossy(h.value).into_owned(),
            )
        })
        .collect();
    Ok(Captured {
        status: a.status,
        headers,
        body: buf[a.head..a.head + a.body].to_vec(),
    })
}

/// One keep-alive connection that sends whatever it is given, reconnecting after an error
/// (for benchmarks whose requests differ from one to the next).
#[derive(Debug)]
pub struct KeepAlive {
    addr: SocketAddr,
    stream: Option<TcpStream>,
    buf: Vec<u8>,
}

impl KeepAlive {
    /// A connection to `addr`, made at the first request.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            stream: None,
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    /// Sends `request` and reads the whole answer: its status and body length.
    pub async fn send(&mut self, request: &[u8]) -> io::Result<(u16, usize)> {
        let mut stream = match self.stream.take() {
            Some(stream) => stream,
            None => {
                let stream = TcpStream::connect(self.addr).await?;
                let _ = stream.set_nodelay(true);
                stream
            }
        };
        let answer = exchange(&mut stream, request, &mut self.buf).await?;
        self.stream = Some(stream);
        Ok((answer.status, answer.body))
    }
}

async fn connection(target: &Target, start: Instant, load: Load) -> (u64, u64, Histogram<u64>) {
    let measured_from = start + load.warmup;
    let end = measured_from + load.duration;
    let mut hist = histogram();
    let (mut ok, mut errors) = (0, 0);
    let mut buf = Vec::with_capacity(64 * 1024);
    'connect: while Instant::now() < end {
        let Ok(mut stream) = TcpStream::connect(target.addr).await else {
            errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        loop {
            let sent = Instant::now();
            if sent >= end {
                break 'connect;
            }
            let answer = exchange(&mut stream, &target.request, &mut buf).await;
            let measured = sent >= measured_from;
            match answer {
                Ok(a) if a.status == target.status && a.body == target.body_len => {
                    if measured {
                        ok += 1;
                        let _ = hist.record(sent.elapsed().as_micros().max(1) as u64);
                    }
                }
                Ok(_) => {
                    if measured {
                        errors += 1;
                    }
                }
                Err(_) => {
                    if measured {
                        errors += 1;
                    }
                    continue 'connect;
                }
            }
        }
    }
    (ok, errors, hist)
}

/// Drives `target` with `load.connections` keep-alive connections for the warm-up and the
/// measured time; returns what the measured time saw.
pub async fn run(target: &Target, load: Load) -> Stats {
    let start = Instant::now();
    let tasks: Vec<_> = (0..load.connections)
        .map(|_| {
            let target = target.clone();
            tokio::spawn(async move { connection(&target, start, load).await })
        })
        .collect();
    let mut stats = Stats {
        requests: 0,
        errors: 0,
        elapsed: load.duration,
        latency_us: histogram(),
    };
    for task in tasks {
        match task.await {
            Ok((ok, errors, hist)) => {
                stats.requests += ok;
                stats.errors += errors;
                let _ = stats.latency_us.add(&hist);
            }
            Err(_) => stats.errors += 1,
        }
    }
    stats
}
