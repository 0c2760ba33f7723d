//! A stub HTTP server on 127.0.0.1:0 that answers what each test scripts and records every
//! request it saw, and canned API answers.
#![allow(dead_code)]

pub mod feed;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use blogread_client::{Client, RetryPolicy};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A request as the stub saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub target: String,
    pub headers: HashMap<String, String>,
}

impl Seen {
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
    pub fn query(&self, name: &str) -> Option<String> {
        let q = self.target.split_once('?')?.1;
        q.split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_owned())
    }
}

/// What the stub answers.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

pub fn reply(status: u16, body: serde_json::Value) -> Reply {
    Reply {
        status,
        headers: vec![],
        body: body.to_string(),
    }
}

pub type Handler = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

pub struct Stub {
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Stub {
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
    pub fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

/// Starts a stub whose `handler` gets the 0-based index of each request and the request.
pub async fn start_stub(handler: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Stub {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let handler: Arc<Handler> = Arc::new(handler);
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let handler = handler.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut reader = BufReader::new(read);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let target = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let mut headers = HashMap::new();
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let h = h.trim_end();
                        if h.is_empty() {
                            break;
                        }
                        if let Some((k, v)) = h.split_once(':') {
                            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
                        }
                    }
                    let req = Seen { target, headers };
                    let index = {
                        let mut log = log.lock().unwrap();
                        log.push(req.clone());
                        log.len() - 1
                    };
                    let r = handler(index, &req);
                    let body = if r.status == 304 {
                        String::new()
                    } else {
                        r.body
                    };
                    let mut out = format!(
                        "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                        r.status,
                        body.len()
                    );
                    for (k, v) in r.headers {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str("\r\n");
                    out.push_str(&body);
                    if write.write_all(out.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Stub { base, seen }
}

pub fn fast_retries() -> RetryPolicy {
    RetryPolicy::new()
        .max_attempts(4)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(5))
}

pub fn client(stub: &Stub) -> Client {
    Client::builder(&stub.base, "pk_live_test")
        .retry_policy(fast_retries())
        .build()
        .unwrap()
}

pub fn summary(i: u64) -> serde_json::Value {
    json!({
        "id": format!("00000000-0000-7000-8000-{i:012}"),
        "title": format!("Blog {i}"),
        "slug": format!("blog-{i}"),
        "excerpt": "", "meta_title": "", "meta_description": "",
        "featured_image_url": null,
        "categories": [], "tags": [], "featured_image": null,
        "published_at": "2026-11-21T09:30:00Z"
    })
}

pub fn detail(slug: &str) -> serde_json::Value {
    json!({
        "id": "00000000-0000-7000-8000-000000000001",
        "title": format!("Title of {slug}"), "slug": slug, "excerpt": "", "meta_title": "", "meta_description": "",
        "featured_image_url": null, "categories": [], "tags": [], "featured_image": null, "featured_image": null,
        "published_at": "2026-11-21T09:30:00Z", "content": "<p>x</p>",
        "updated_at": "2026-11-21T09:30:00Z", "word_count": 1
    })
}

/// A list page of blogs `ids` (newest first) with the given `total`.
pub fn page(ids: &[u64], total: u64, offset: u64) -> serde_json::Value {
    json!({
        "blogs": ids.iter().map(|&i| summary(i)).collect::<Vec<_>>(),
        "total": total, "limit": 100, "offset": offset
    })
}

pub fn sitemap_of(ids: &[u64]) -> serde_json::Value {
    json!({
        "blogs": ids.iter().map(|i| json!({
            "slug": format!("blog-{i}"),
            "published_at": "2026-11-21T09:30:00Z",
            "updated_at": "2026-11-21T09:30:00Z"
        })).collect::<Vec<_>>(),
        "total": ids.len()
    })
}

/// Serves `blogs` (newest first) as a server without the changes feed would: pages by
/// limit/offset, sitemap, single blogs, and a 404 from its router for the feed.
pub fn serve(blogs: &[u64], req: &Seen) -> Reply {
    if req.path() == "/blog/api/v1/public/changes" {
        return no_such_route(req);
    }
    if req.path().ends_with("/sitemap") {
        return reply(200, sitemap_of(blogs));
    }
    if let Some(slug) = req.path().strip_prefix("/blog/api/v1/public/blogs/") {
        return if blogs.iter().any(|i| format!("blog-{i}") == slug) {
            reply(200, detail(slug))
        } else {
            reply(404, json!({"detail": "no published blog has this slug"}))
        };
    }
    let offset: usize = req.query("offset").map_or(0, |o| o.parse().unwrap());
    let limit: usize = req.query("limit").map_or(50, |l| l.parse().unwrap());
    let end = (offset + limit).min(blogs.len());
    let slice = if offset < blogs.len() {
        &blogs[offset..end]
    } else {
        &[]
    };
    let mut body = page(slice, blogs.len() as u64, offset as u64);
    if req.query("include_content").as_deref() == Some("true") {
        for item in body["blogs"].as_array_mut().unwrap() {
            let slug = item["slug"].as_str().unwrap().to_owned();
            item["categories"] = json!(["News", "news", "Deep Dives"]);
            item["content"] = json!(format!(
                "<p>Body of {slug}. See <a href=\"/blog/{}/\">the first</a>.</p>",
                format!("blog-{}", blogs.last().unwrap())
            ));
        }
    }
    reply(200, body)
}

/// What the raw stub does with one request.
pub enum Raw {
    /// Writes these bytes as the whole answer (they may lie about the length), then closes.
    Send(String),
    /// Reads the request and never answers, holding the connection open.
    Freeze,
    /// Writes these bytes (an answer's head, say), then holds the connection open and sends
    /// nothing more.
    SendThenFreeze(String),
    /// Writes `head`, then `chunk` as HTTP/1.1 chunks for as long as the client reads: a body
    /// that never ends, without a `Content-Length`.
    Endless {
        /// The status line and headers, ending with the empty line.
        head: String,
        /// The data of each chunk.
        chunk: String,
    },
}

/// The head of an answer with `status` whose body comes in chunks (no `Content-Length`).
pub fn chunked_head(status: u16) -> String {
    format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
    )
}

/// A stub that reads each request's head and does what `script(index)` says, one request per
/// connection: for faults a real server cannot produce (half bodies, frozen sockets).
pub async fn start_raw(script: impl Fn(usize) -> Raw + Send + Sync + 'static) -> Stub {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let script = Arc::new(script);
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let script = script.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut reader = BufReader::new(read);
                let mut line = String::new();
                if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                    return;
                }
                let target = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let mut headers = HashMap::new();
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let h = h.trim_end();
                    if h.is_empty() {
                        break;
                    }
                    if let Some((k, v)) = h.split_once(':') {
                        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
                    }
                }
                let index = {
                    let mut log = log.lock().unwrap();
                    log.push(Seen { target, headers });
                    log.len() - 1
                };
                match script(index) {
                    Raw::Send(bytes) => {
                        let _ = write.write_all(bytes.as_bytes()).await;
                        let _ = write.shutdown().await;
                    }
                    Raw::Freeze => {
                        // Hold both halves until the client gives up and the test ends.
                        let _hold = (reader, write);
                        std::future::pending::<()>().await;
                    }
                    Raw::SendThenFreeze(bytes) => {
                        let _ = write.write_all(bytes.as_bytes()).await;
                        let _hold = (reader, write);
                        std::future::pending::<()>().await;
                    }
                    Raw::Endless { head, chunk } => {
                        let framed = format!("{:x}\r\n{chunk}\r\n", chunk.len());
                        if write.write_all(head.as_bytes()).await.is_err() {
                            return;
                        }
                        // Until the client hangs up.
                        while write.write_all(framed.as_bytes()).await.is_ok() {}
                    }
                }
            });
        }
    });
    Stub { base, seen }
}

/// A complete HTTP/1.1 answer with a JSON body.
pub fn http_answer(status: u16, extra_headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra_headers}connection: close\r\n\r\n{body}",
        body.len()
    )
}

/// As [`serve`], with a strong `ETag` per answer (a hash of the body) and 304 to a matching
/// `If-None-Match`, as the real server does.
pub fn serve_with_etags(blogs: &[u64], req: &Seen) -> Reply {
    use std::hash::{Hash, Hasher};
    let mut r = serve(blogs, req);
    if r.status != 200 {
        return r;
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    r.body.hash(&mut hasher);
    let etag = format!("\"{:016x}\"", hasher.finish());
    if req.headers.get("if-none-match") == Some(&etag) {
        r.status = 304;
    }
    r.headers.push(("etag", etag));
    r
}

/// The router's 404 of a server that has no route for the request's path.
pub fn no_such_route(req: &Seen) -> Reply {
    reply(
        404,
        json!({"detail": format!("no endpoint at GET {}; the API is described at /openapi.json", req.path())}),
    )
}
