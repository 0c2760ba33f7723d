//! Images end to end, as a site and an attacker meet them: the real `blogread-server serve`
//! binary on loopback, uploads sent as raw multipart bodies over HTTP/1.1 (with a length and
//! chunked) and HTTP/2, the files served with their headers, and every hostile upload and
//! path answered with its 4xx, nothing stored, the server serving on.

mod support;

use std::time::Duration;

use bytes::Bytes;
use poem::http;
use sha2::Digest;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const BOUNDARY: &str = "blogread-test-boundary-7c1e";

/// A whole HTTP/1.1 answer: status, head (lower-cased names) and body bytes.
struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("a JSON body ({e}): {}", self.text()))
    }

    fn text(&self) -> String {
        format!("{}\n\n{}", self.head, String::from_utf8_lossy(&self.body))
    }
}

/// Sends one request on a new connection (`Connection: close`) and reads the answer whole
/// (until the server closes; a HEAD answer has no body whatever its `Content-Length`).
async fn send(server: &Server, head: &str, body: &[u8]) -> Answer {
    let mut stream = server.connect().await;
    let mut request = format!("{head}Host: blogread\r\nConnection: close\r\n");
    if !body.is_empty() {
        request.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("send the head");
    stream.write_all(body).await.expect("send the body");
    read_all(&mut stream).await
}

async fn read_all(stream: &mut TcpStream) -> Answer {
    let mut bytes = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut bytes))
        .await
        .expect("an answer")
        .expect("read the answer");
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("a head: {}", String::from_utf8_lossy(&bytes)));
    let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    Answer {
        status,
        head,
        body: bytes[end + 4..].to_vec(),
    }
}

/// A multipart body: a `file` part (with `file_type`, if any) and an `alt` part, if any.
fn multipart(file: &[u8], file_type: Option<&str>, alt: Option<&str>) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"upload\"\r\n"
    )
    .into_bytes();
    if let Some(t) = file_type {
        body.extend_from_slice(format!("Content-Type: {t}\r\n").as_bytes());
    }
    body.extend_from_slice(b"\r\n");
    body.extend_from_slice(file);
    body.extend_from_slice(b"\r\n");
    if let Some(alt) = alt {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"alt\"\r\n\r\n{alt}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// A project with an admin token: its id and `Bearer` value.
async fn project(server: &Server) -> (String, String) {
    let body = br#"{"name": "Media"}"#;
    let made = send(
        server,
        &format!(
            "POST /api/v1/projects HTTP/1.1\r\nAuthorization: Bearer {OPERATOR_TOKEN}\r\nContent-Type: application/json\r\n"
        ),
        body,
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let token = send(
        server,
        &format!(
            "POST /api/v1/projects/{id}/admin-tokens HTTP/1.1\r\nAuthorization: Bearer {OPERATOR_TOKEN}\r\n"
        ),
        b"",
    )
    .await;
    assert_eq!(token.status, 201, "{}", token.text());
    let token = token.json()["token"].as_str().unwrap().to_owned();
    (id, format!("Bearer {token}"))
}

async fn upload(server: &Server, project: &str, auth: &str, body: &[u8]) -> Answer {
    send(
        server,
        &format!(
            "POST /api/v1/projects/{project}/media HTTP/1.1\r\nAuthorization: {auth}\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        ),
        body,
    )
    .await
}

/// An API upload to `project` with the header lines `extra` (its `Authorization`, say) that
/// declares a 100,000-byte body and sends only its first line: an upload held in progress.
fn held_upload(project: &str, extra: &str) -> String {
    format!(
        "POST /api/v1/projects/{project}/media HTTP/1.1\r\nHost: blogread\r\n{extra}Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: 100000\r\n\r\n--{BOUNDARY}\r\n"
    )
}

/// A connection that sent [`held_upload`].
async fn hold_upload(server: &Server, project: &str, extra: &str) -> TcpStream {
    let mut held = server.connect().await;
    held.write_all(held_upload(project, extra).as_bytes())
        .await
        .expect("send the upload's start");
    held
}

async fn get(server: &Server, method: &str, path: &str, extra: &str) -> Answer {
    send(server, &format!("{method} {path} HTTP/1.1\r\n{extra}"), b"").await
}

/// The path part of an absolute URL the server gave.
/// `project`'s media list, read with `auth` (a `Bearer` value).
async fn list_media(server: &Server, project: &str, auth: &str) -> Answer {
    get(
        server,
        "GET",
        &format!("/api/v1/projects/{project}/media"),
        &format!("Authorization: {auth}\r\n"),
    )
    .await
}

/// The server's metrics, read with the operator token.
async fn metrics(server: &Server) -> String {
    let answer = get(
        server,
        "GET",
        "/metrics",
        &format!("Authorization: Bearer {OPERATOR_TOKEN}\r\n"),
    )
    .await;
    String::from_utf8_lossy(&answer.body).into_owned()
}

fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").expect("an absolute URL").1;
    &rest[rest.find('/').expect("a path")..]
}

/// Every file below the server's media folder.
fn stored_files(server: &Server) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path.display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(&server.media_dir(), &mut out);
    out
}

/// A PNG chunk: length, type, data, CRC-32 of type and data.
fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    chunk.extend_from_slice(kind);
    chunk.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    chunk.extend_from_slice(&crc.finalize().to_be_bytes());
    chunk
}

/// A small PNG whose header declares `width` × `height`.
fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(png_chunk(b"IHDR", &ihdr));
    png.extend(png_chunk(
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    ));
    png.extend(png_chunk(b"IEND", &[]));
    png
}

#[tokio::test]
async fn an_image_is_uploaded_served_with_its_headers_and_deleted() {
    let server = Server::start_as_operator(&[]);
    let (id, admin) = project(&server).await;
    let photo = blogread_media::samples::jpeg(1800, 1200, 11);
    let made = upload(
        &server,
        &id,
        &admin,
        &multipart(&photo, Some("image/jpeg"), Some("Harbour")),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text());
    let item = made.json();
    assert_eq!(item["alt"], "Harbour");
    assert_eq!(item["content_type"], "image/jpeg");
    assert_eq!(
        (item["width"].as_u64(), item["height"].as_u64()),
        (Some(1800), Some(1200))
    );
    let sha = item["sha256"].as_str().unwrap().to_owned();
    let url = item["url"].as_str().unwrap().to_owned();
    assert_eq!(url, format!("http://{}/media/{id}/{sha}.jpg", server.addr));
    let widths: Vec<u64> = item["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["width"].as_u64().unwrap())
        .collect();
    assert_eq!(widths, [480, 960, 1600]);

    // The same bytes again: the same item, 200.
    let again = upload(&server, &id, &admin, &multipart(&photo, None, None)).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["id"], item["id"]);

    let served = get(&server, "GET", path_of(&url), "").await;
    assert_eq!(served.status, 200, "{}", served.head);
    assert_eq!(hex::encode(sha2::Sha256::digest(&served.body)), sha);
    assert_eq!(served.header("content-type"), Some("image/jpeg"));
    assert_eq!(
        served.header("content-length"),
        Some(served.body.len().to_string().as_str())
    );
    assert_eq!(served.header("etag"), Some(format!("\"{sha}\"").as_str()));
    assert_eq!(
        served.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(served.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(
        served.header("content-security-policy"),
        Some("default-src 'none'; sandbox")
    );
    assert_eq!(served.header("set-cookie"), None);
    let head = get(&server, "HEAD", path_of(&url), "").await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("content-length"),
        served.header("content-length")
    );
    assert_eq!(head.header("etag"), served.header("etag"));
    let unchanged = get(
        &server,
        "GET",
        path_of(&url),
        &format!("If-None-Match: \"{sha}\"\r\n"),
    )
    .await;
    assert_eq!(unchanged.status, 304);
    assert!(unchanged.body.is_empty());
    // A file larger than a read's chunk is sent whole, chunk after chunk.
    let noise = blogread_media::samples::noise_png(700, 700, 9);
    let big = upload(&server, &id, &admin, &multipart(&noise, None, None)).await;
    assert_eq!(big.status, 201, "{}", big.text());
    assert!(big.json()["bytes"].as_u64().unwrap() > 3 * 256 * 1024);
    let big_served = get(
        &server,
        "GET",
        path_of(big.json()["url"].as_str().unwrap()),
        "",
    )
    .await;
    assert_eq!(big_served.status, 200);
    assert_eq!(
        hex::encode(sha2::Sha256::digest(&big_served.body)),
        big.json()["sha256"].as_str().unwrap()
    );
    let variant_url = item["variants"][0]["url"].as_str().unwrap();
    let variant = get(&server, "GET", path_of(variant_url), "").await;
    assert_eq!(variant.status, 200);
    assert_eq!(
        variant.body.len() as u64,
        item["variants"][0]["bytes"].as_u64().unwrap()
    );

    let item_path = format!(
        "/api/v1/projects/{id}/media/{}",
        item["id"].as_str().unwrap()
    );
    let edited = send(
        &server,
        &format!("PATCH {item_path} HTTP/1.1\r\nAuthorization: {admin}\r\nContent-Type: application/json\r\n"),
        br#"{"alt": "The harbour at dawn"}"#,
    )
    .await;
    assert_eq!(edited.status, 200, "{}", edited.text());
    assert_eq!(edited.json()["alt"], "The harbour at dawn");
    let list = list_media(&server, &id, &admin).await;
    assert_eq!(list.json()["total"], 2);
    // Newest first: the noise, then the photo.
    assert_eq!(list.json()["media"][0]["id"], big.json()["id"]);
    assert_eq!(list.json()["media"][1]["alt"], "The harbour at dawn");

    // A post using it as its featured image: listed in `used_by`, and the delete is refused.
    let post = send(
        &server,
        &format!("POST /api/v1/projects/{id}/blogs HTTP/1.1\r\nAuthorization: {admin}\r\nContent-Type: application/json\r\n"),
        serde_json::json!({"title": "Harbour days", "slug": "harbour-days", "featured_image_url": url})
            .to_string()
            .as_bytes(),
    )
    .await;
    assert_eq!(post.status, 201, "{}", post.text());
    let read = get(
        &server,
        "GET",
        &item_path,
        &format!("Authorization: {admin}\r\n"),
    )
    .await;
    assert_eq!(
        read.json()["used_by"],
        serde_json::json!([{"id": post.json()["id"], "title": "Harbour days", "slug": "harbour-days"}])
    );

    // Published, the post shows it as its featured image, with its size and alt text; an
    // alt edit shows in the public answer at once.
    let blog_path = format!(
        "/api/v1/projects/{id}/blogs/{}",
        post.json()["id"].as_str().unwrap()
    );
    let published = send(
        &server,
        &format!("POST {blog_path}/publish HTTP/1.1\r\nAuthorization: {admin}\r\nContent-Type: application/json\r\n"),
        b"{}",
    )
    .await;
    assert_eq!(published.status, 200, "{}", published.text());
    let key = send(
        &server,
        &format!("POST /api/v1/projects/{id}/public-key HTTP/1.1\r\nAuthorization: {admin}\r\n"),
        b"",
    )
    .await;
    assert_eq!(key.status, 201, "{}", key.text());
    let key = format!(
        "Authorization: Bearer {}\r\n",
        key.json()["key"].as_str().unwrap()
    );
    let public = get(
        &server,
        "GET",
        "/blog/api/v1/public/blogs/harbour-days",
        &key,
    )
    .await;
    assert_eq!(public.status, 200, "{}", public.text());
    let shown = &public.json()["featured_image"];
    assert_eq!(shown["url"], serde_json::json!(url));
    assert_eq!(
        (shown["width"].clone(), shown["height"].clone()),
        (read.json()["width"].clone(), read.json()["height"].clone())
    );
    assert_eq!(shown["alt"], "The harbour at dawn");
    assert_eq!(shown["variants"][0]["url"], serde_json::json!(variant_url));
    let edited = send(
        &server,
        &format!("PATCH {item_path} HTTP/1.1\r\nAuthorization: {admin}\r\nContent-Type: application/json\r\n"),
        br#"{"alt": "The harbour at noon"}"#,
    )
    .await;
    assert_eq!(edited.status, 200, "{}", edited.text());
    let etag = public.header("etag").unwrap().to_owned();
    let again = get(
        &server,
        "GET",
        "/blog/api/v1/public/blogs/harbour-days",
        &format!("{key}If-None-Match: {etag}\r\n"),
    )
    .await;
    assert_eq!(again.status, 200, "the alt edit changed the answer");
    assert_eq!(again.json()["featured_image"]["alt"], "The harbour at noon");

    let refused = get(
        &server,
        "DELETE",
        &item_path,
        &format!("Authorization: {admin}\r\n"),
    )
    .await;
    assert_eq!(refused.status, 409, "{}", refused.text());
    let detail = refused.json()["detail"].as_str().unwrap().to_owned();
    assert!(
        detail.contains("\"Harbour days\"") && detail.contains("remove it"),
        "{detail}"
    );
    assert_eq!(get(&server, "GET", path_of(&url), "").await.status, 200);
    let post_path = format!(
        "/api/v1/projects/{id}/blogs/{}",
        post.json()["id"].as_str().unwrap()
    );
    let gone = get(
        &server,
        "DELETE",
        &post_path,
        &format!("Authorization: {admin}\r\n"),
    )
    .await;
    assert_eq!(gone.status, 204, "{}", gone.text());

    let deleted = get(
        &server,
        "DELETE",
        &item_path,
        &format!("Authorization: {admin}\r\n"),
    )
    .await;
    assert_eq!(deleted.status, 204, "{}", deleted.text());
    assert_eq!(get(&server, "GET", path_of(&url), "").await.status, 404);
    assert_eq!(
        get(&server, "GET", path_of(variant_url), "").await.status,
        404
    );
    let files = stored_files(&server);
    let big_sha = big.json()["sha256"].as_str().unwrap().to_owned();
    assert!(
        files.iter().all(|f| f.contains(&big_sha)),
        "only the other image's files are left: {files:?}"
    );
}

/// A served file of 64 KiB or more is sent from the file on disk (`sendfile`), its head
/// before it: what arrives must be the stored file, byte for byte, the first time it is read
/// and from the server's cache after, several answers on one keep-alive connection, and over
/// HTTP/2 (which sends from memory).
#[tokio::test]
async fn a_large_file_sent_from_disk_arrives_whole_on_keep_alive_and_http2() {
    let server = Server::start_as_operator(&[]);
    let (id, admin) = project(&server).await;
    let photo = blogread_media::samples::jpeg(1800, 1200, 11);
    let made = upload(&server, &id, &admin, &multipart(&photo, None, None)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let item = made.json();
    let sha = item["sha256"].as_str().unwrap().to_owned();
    let bytes = item["bytes"].as_u64().unwrap();
    assert!(
        bytes >= 64 * 1024,
        "a master of {bytes} bytes is large enough"
    );
    let path = path_of(item["url"].as_str().unwrap()).to_owned();

    // Three answers on one connection, the last closing it: read until the server closes,
    // then cut by their lengths.
    let mut stream = server.connect().await;
    let get = format!("GET {path} HTTP/1.1\r\nHost: blogread\r\n\r\n");
    let last = format!("GET {path} HTTP/1.1\r\nHost: blogread\r\nConnection: close\r\n\r\n");
    stream.write_all(get.as_bytes()).await.unwrap();
    stream.write_all(get.as_bytes()).await.unwrap();
    stream.write_all(last.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut received))
        .await
        .expect("the answers")
        .expect("read the answers");
    let mut rest = &received[..];
    for n in 0..3 {
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("answer {n} has a head"));
        let head = String::from_utf8_lossy(&rest[..end]).to_lowercase();
        assert!(head.starts_with("http/1.1 200"), "answer {n}: {head}");
        assert!(head.contains(&format!("content-length: {bytes}")), "{head}");
        let body = &rest[end + 4..end + 4 + bytes as usize];
        assert_eq!(hex::encode(sha2::Sha256::digest(body)), sha, "answer {n}");
        rest = &rest[end + 4 + bytes as usize..];
    }
    assert!(rest.is_empty(), "nothing after the three answers");

    let (client, connection) = server.h2().await;
    tokio::spawn(connection);
    let mut client = client.ready().await.expect("ready");
    let request = http::Request::get(format!("http://{}{path}", server.addr))
        .body(())
        .unwrap();
    let (response, _) = client.send_request(request, true).expect("send");
    let response = response.await.expect("an answer");
    assert_eq!(response.status(), 200);
    let served = h2_body(response.into_body()).await;
    assert_eq!(hex::encode(sha2::Sha256::digest(&served)), sha);
}

#[tokio::test]
async fn hostile_uploads_answer_their_4xx_store_nothing_and_the_server_serves_on() {
    let server = Server::start_as_operator(&[]);
    let (id, admin) = project(&server).await;
    let (other, other_admin) = project(&server).await;
    let photo = blogread_media::samples::jpeg(64, 48, 1);
    let mut polyglot_gif = b"GIF89a/*".to_vec();
    polyglot_gif.extend_from_slice(b"*/=1;alert(document.domain)//");
    let mut truncated = blogread_media::samples::png(200, 200, 2, 255);
    truncated.truncate(truncated.len() / 2);
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "HTML sent as a PNG",
            multipart(
                b"<!doctype html><script>alert(1)</script>",
                Some("image/png"),
                None,
            ),
            415,
        ),
        (
            "SVG sent as a PNG",
            multipart(
                br#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>"#,
                Some("image/png"),
                None,
            ),
            415,
        ),
        (
            "a JPEG declared as a PNG",
            multipart(&photo, Some("image/png"), None),
            415,
        ),
        (
            "a GIF that is a script",
            multipart(&polyglot_gif, None, None),
            422,
        ),
        (
            "a PNG declaring 65535 x 65535",
            multipart(&png_declaring(65_535, 65_535), None, None),
            422,
        ),
        (
            "a PNG declaring 100 megapixels",
            multipart(&png_declaring(10_000, 10_000), None, None),
            422,
        ),
        ("a truncated PNG", multipart(&truncated, None, None), 422),
        ("an empty file", multipart(b"", None, None), 422),
        (
            "an alt text over 1000 characters",
            multipart(&photo, None, Some(&"a".repeat(1001))),
            422,
        ),
        (
            "no file part",
            format!("--{BOUNDARY}--\r\n").into_bytes(),
            400,
        ),
    ];
    for (what, body, status) in cases {
        let answer = upload(&server, &id, &admin, &body).await;
        assert_eq!(answer.status, status, "{what}: {}", answer.text());
        assert!(
            answer.json()["detail"].is_string(),
            "{what}: {}",
            answer.text()
        );
    }
    // Not multipart at all.
    let json = send(
        &server,
        &format!("POST /api/v1/projects/{id}/media HTTP/1.1\r\nAuthorization: {admin}\r\nContent-Type: application/json\r\n"),
        b"{}",
    )
    .await;
    assert_eq!(json.status, 415, "{}", json.text());
    // Another project's credential.
    let foreign = upload(&server, &id, &other_admin, &multipart(&photo, None, None)).await;
    assert_eq!(foreign.status, 403, "{}", foreign.text());
    let list = list_media(&server, &id, &admin).await;
    assert_eq!(list.json()["total"], 0);
    assert!(
        stored_files(&server).is_empty(),
        "{:?}",
        stored_files(&server)
    );
    // The server serves on, and takes a good upload.
    let good = upload(
        &server,
        &other,
        &other_admin,
        &multipart(&photo, None, None),
    )
    .await;
    assert_eq!(good.status, 201, "{}", good.text());
}

#[tokio::test]
async fn an_upload_over_20_mib_is_refused_as_it_streams_whatever_its_framing() {
    let server = Server::start_as_operator(&[]);
    let (id, admin) = project(&server).await;
    let head = format!(
        "POST /api/v1/projects/{id}/media HTTP/1.1\r\nHost: blogread\r\nAuthorization: {admin}\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
    );

    // A declared length over the cap: refused before a byte of the body is read.
    let mut stream = server.connect().await;
    stream
        .write_all(format!("{head}Content-Length: {}\r\n\r\n", 21 * MIB).as_bytes())
        .await
        .unwrap();
    let (answer, body) = read_response(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(body.contains("20 MiB"), "{body}");

    // Chunked, no length: refused once 20 MiB have arrived.
    let stream = server.connect().await;
    let (mut read, mut write) = stream.into_split();
    let chunked = format!("{head}Transfer-Encoding: chunked\r\n\r\n");
    let sender = tokio::spawn(async move {
        let _ = write.write_all(chunked.as_bytes()).await;
        let chunk = format!("10000\r\n{}\r\n", "0".repeat(0x10000));
        for _ in 0..(64 * MIB / 0x10000) {
            if write.write_all(chunk.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    tokio::time::timeout(PATIENCE, async {
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = read.read(&mut buf).await.expect("read");
            assert!(n > 0, "closed before answering");
            got.extend_from_slice(&buf[..n]);
        }
    })
    .await
    .expect("an answer");
    assert!(
        got.starts_with(b"HTTP/1.1 413"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    sender.abort();

    // HTTP/2 without a content-length.
    let (client, connection) = server.h2().await;
    tokio::spawn(connection);
    let mut client = client.ready().await.expect("ready");
    let request = http::Request::post(format!("http://{}/api/v1/projects/{id}/media", server.addr))
        .header("authorization", &admin)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(())
        .unwrap();
    let (response, mut body) = client.send_request(request, false).expect("send");
    let sender = tokio::spawn(async move {
        let chunk = Bytes::from(vec![0u8; 64 * 1024]);
        let mut sent = 0;
        while sent < 200 * MIB {
            body.reserve_capacity(chunk.len());
            match std::future::poll_fn(|cx| body.poll_capacity(cx)).await {
                Some(Ok(n)) if n > 0 => {
                    if body
                        .send_data(chunk.slice(..n.min(chunk.len())), false)
                        .is_err()
                    {
                        break;
                    }
                    sent += n.min(chunk.len());
                }
                Some(Ok(_)) => {}
                _ => break,
            }
        }
    });
    let response = tokio::time::timeout(PATIENCE, response)
        .await
        .expect("an answer before the body ends")
        .expect("a response");
    assert_eq!(response.status(), 413);
    sender.abort();

    // It held no more than the cap for each: the peak stays far below what was sent.
    let peak_mib = server.memory_kib("VmHWM") / 1024;
    assert!(peak_mib < 120, "peak RSS {peak_mib} MiB");
    assert!(stored_files(&server).is_empty());
    let mut stream = server.connect().await;
    assert!(get_healthz(&mut stream).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn a_served_file_has_one_name_and_no_link_is_followed() {
    let server = Server::start_as_operator(&[]);
    let (id, admin) = project(&server).await;
    let (other, _) = project(&server).await;
    let made = upload(
        &server,
        &id,
        &admin,
        &multipart(&blogread_media::samples::jpeg(600, 400, 3), None, None),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text());
    let sha = made.json()["sha256"].as_str().unwrap().to_owned();
    assert_eq!(
        get(&server, "GET", &format!("/media/{id}/{sha}.jpg"), "")
            .await
            .status,
        200
    );
    let upper = sha.to_uppercase();
    for path in [
        format!("/media/{id}/../{id}/{sha}.jpg"),
        format!("/media/{id}/%2e%2e/{id}/{sha}.jpg"),
        format!("/media/{id}/{sha}%2fw480.jpg"),
        format!("/media/{id}/{sha}/w480%2Ejpg"),
        format!("/media/{id}/{upper}.jpg"),
        format!("/media/{}/{sha}.jpg", id.to_uppercase()),
        format!("/media/{other}/{sha}.jpg"),
        format!("/media/{id}/{sha}/w481.jpg"),
        format!("/media/{id}/{sha}/w0480.jpg"),
        format!("/media/{id}/{sha}.png"),
        format!("/media/{id}/{sha}.jpg.exe"),
        format!("/media/{id}"),
        "/media/..%2f..%2fetc%2fpasswd".to_owned(),
    ] {
        let answer = get(&server, "GET", &path, "").await;
        assert_eq!(answer.status, 404, "{path}: {}", answer.text());
    }
    // A link planted in the media folder, named as a file would be: not followed.
    let planted = "ab".repeat(32);
    std::os::unix::fs::symlink(
        "/etc/passwd",
        server.media_dir().join(&id).join(format!("{planted}.jpg")),
    )
    .unwrap();
    let answer = get(&server, "GET", &format!("/media/{id}/{planted}.jpg"), "").await;
    assert_ne!(answer.status, 200, "{}", answer.text());
    assert!(!String::from_utf8_lossy(&answer.body).contains("root:"));
    // A planted link in place of another project's folder.
    std::os::unix::fs::symlink(
        server.media_dir().join(&id),
        server.media_dir().join(&other),
    )
    .unwrap();
    let answer = get(&server, "GET", &format!("/media/{other}/{sha}.jpg"), "").await;
    assert_ne!(answer.status, 200, "{}", answer.text());
}

#[tokio::test]
async fn uploads_past_the_cap_in_progress_are_503_with_retry_after() {
    let server = Server::start_as_operator(&["--max-uploads", "1"]);
    let (id, admin) = project(&server).await;
    // One upload in progress: its head and part of its body sent, the rest held back.
    let auth = format!("Authorization: {admin}\r\n");
    let hold = || hold_upload(&server, &id, &auth);
    let mut held = hold().await;
    // The server has taken it once an upload on another connection is refused; until then
    // (the two connections race), an upload is taken, and the held one, if it came second,
    // is answered 503 itself: hold a new one.
    let photo = multipart(&blogread_media::samples::jpeg(32, 32, 4), None, None);
    let busy = tokio::time::timeout(PATIENCE, async {
        loop {
            let answer = upload(&server, &id, &admin, &photo).await;
            if answer.status == 503 {
                return answer;
            }
            assert!(matches!(answer.status, 200 | 201), "{}", answer.text());
            let mut buf = [0u8; 64];
            if !matches!(held.try_read(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock) {
                held = hold().await;
            }
        }
    })
    .await
    .expect("the held upload takes the one place");
    assert_eq!(busy.header("retry-after"), Some("1"));
    assert!(busy.json()["detail"].as_str().unwrap().contains("uploads"));
    drop(held);
    // Once it is gone, uploads are taken again.
    let answer = tokio::time::timeout(PATIENCE, async {
        loop {
            let answer = upload(&server, &id, &admin, &photo).await;
            if answer.status != 503 {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the place is given back");
    assert!(matches!(answer.status, 200 | 201), "{}", answer.text());
}

#[tokio::test]
async fn a_stalled_upload_is_answered_408_counted_and_gives_its_place_back() {
    let server = Server::start_as_operator(&["--max-uploads", "1", "--body-timeout", "1"]);
    let (id, admin) = project(&server).await;
    // The one place taken by an upload that sends part of its body and then nothing.
    let mut held = hold_upload(&server, &id, &format!("Authorization: {admin}\r\n")).await;
    let (head, body) = read_response(&mut held).await;
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    let detail: serde_json::Value = serde_json::from_str(&body).unwrap();
    let detail = detail["detail"].as_str().unwrap();
    assert!(
        detail.contains("too slowly") && detail.contains("nothing was stored"),
        "{detail}"
    );
    // Its place is back: the next upload is taken at once, and is the only item.
    let photo = multipart(&blogread_media::samples::jpeg(32, 32, 4), None, None);
    let answer = upload(&server, &id, &admin, &photo).await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    let list = list_media(&server, &id, &admin).await;
    assert_eq!(list.json()["media"].as_array().unwrap().len(), 1);
    let text = metrics(&server).await;
    let line = "blogread_media_uploads_refused_total{reason=\"body_too_slow\"} 1";
    assert!(text.contains(line), "{line} in:\n{text}");
}

#[tokio::test]
async fn an_upload_whose_caller_may_not_upload_is_refused_before_its_body_and_holds_no_place() {
    let server = Server::start_as_operator(&["--max-uploads", "1"]);
    let (id, admin) = project(&server).await;
    let (_, other_admin) = project(&server).await;
    let head = held_upload;
    // Each sends its head and the start of a 100,000-byte body, and is answered without
    // sending the rest; their connections stay open meanwhile.
    let mut held = Vec::new();
    for (head, status, said) in [
        (head(&id, ""), 401, "missing credentials"),
        (
            head(
                &id,
                "Authorization: Bearer sk_admin_not-a-token-of-this-server\r\n",
            ),
            401,
            "",
        ),
        (
            head(&id, &format!("Authorization: {other_admin}\r\n")),
            403,
            "",
        ),
        (
            head("not-a-project", &format!("Authorization: {admin}\r\n")),
            404,
            "",
        ),
    ] {
        let mut stream = server.connect().await;
        stream.write_all(head.as_bytes()).await.unwrap();
        let (answer, body) = read_response(&mut stream).await;
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{answer}\n{body}"
        );
        let detail: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(detail["detail"].as_str().unwrap().contains(said), "{body}");
        held.push(stream);
    }
    // The Media page's form without a session: back to the page (which asks to sign in).
    let photo = multipart(&blogread_media::samples::jpeg(32, 32, 4), None, None);
    let mut page = server.connect().await;
    page.write_all(
        format!(
            "POST /admin/projects/{id}/media HTTP/1.1\r\nHost: blogread\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\r\n",
            photo.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    page.write_all(&photo).await.unwrap();
    let (answer, _) = read_response(&mut page).await;
    assert!(answer.starts_with("HTTP/1.1 303"), "{answer}");
    assert!(
        answer.contains(&format!("/admin/projects/{id}/media")),
        "{answer}"
    );
    // None of them holds the one place: an upload that may is taken at once.
    let answer = upload(&server, &id, &admin, &photo).await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    drop(held);
}

#[tokio::test]
async fn one_project_holds_at_most_half_the_upload_places() {
    // Two places: one project may hold one.
    let server = Server::start_as_operator(&["--max-uploads", "2"]);
    let (a, a_admin) = project(&server).await;
    let (b, b_admin) = project(&server).await;
    let held = hold_upload(&server, &a, &format!("Authorization: {a_admin}\r\n")).await;
    // Once the held upload has its place, the project's next one is refused (until then the
    // two race, and the other may be taken).
    let photo = multipart(&blogread_media::samples::jpeg(32, 32, 4), None, None);
    let busy = tokio::time::timeout(PATIENCE, async {
        loop {
            let answer = upload(&server, &a, &a_admin, &photo).await;
            if answer.status == 503 {
                return answer;
            }
            assert!(matches!(answer.status, 200 | 201), "{}", answer.text());
        }
    })
    .await
    .expect("the held upload takes the project's share");
    assert_eq!(busy.header("retry-after"), Some("1"));
    let detail = busy.json()["detail"].as_str().unwrap().to_owned();
    assert!(detail.contains("this project has 1"), "{detail}");
    // The other project's upload takes the other place.
    let answer = upload(&server, &b, &b_admin, &photo).await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    drop(held);
}

#[tokio::test]
async fn two_servers_on_one_postgresql_and_one_bucket_serve_each_others_images() {
    let Some((database_url, _database)) = blogread_core::testing::databases::fresh_database().await
    else {
        assert!(
            std::env::var_os("BLOGREAD_REQUIRE_POSTGRES").is_none(),
            "BLOGREAD_REQUIRE_POSTGRES is set but no PostgreSQL is configured"
        );
        return;
    };
    let s3 = blogread_core::testing::s3_server::S3Server::start();
    let media_url = s3.url("site-images");
    let flags = ["--media-url", media_url.as_str()];
    let one = Server::start_on(&database_url, &flags, &s3.env(), true);
    let other = Server::start_on(&database_url, &flags, &s3.env(), true);
    let (id, admin) = project(&one).await;
    let photo = blogread_media::samples::png(1000, 700, 21, 90);
    let made = upload(&one, &id, &admin, &multipart(&photo, None, Some("Shared"))).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let item = made.json();
    let sha = item["sha256"].as_str().unwrap().to_owned();
    assert_eq!(item["content_type"], "image/png");
    // Served by the other server, from the bucket.
    let path = format!("/media/{id}/{sha}.png");
    let served = get(&other, "GET", &path, "").await;
    assert_eq!(served.status, 200, "{}", served.head);
    assert_eq!(hex::encode(sha2::Sha256::digest(&served.body)), sha);
    let variant = get(&other, "GET", &format!("/media/{id}/{sha}/w960.png"), "").await;
    assert_eq!(variant.status, 200, "{}", variant.head);
    // The same bytes through the other server: the same item.
    let again = upload(&other, &id, &admin, &multipart(&photo, None, None)).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["id"], item["id"]);
    // Deleted through the other, gone from both.
    let deleted = get(
        &other,
        "DELETE",
        &format!(
            "/api/v1/projects/{id}/media/{}",
            item["id"].as_str().unwrap()
        ),
        &format!("Authorization: {admin}\r\n"),
    )
    .await;
    assert_eq!(deleted.status, 204, "{}", deleted.text());
    assert_eq!(get(&one, "GET", &path, "").await.status, 404);
    assert!(
        stored_files(&one).is_empty(),
        "nothing was written to a folder"
    );
}

#[tokio::test]
async fn a_kill_during_uploads_loses_no_acknowledged_item_and_leaves_no_row_without_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}", dir.path().join("blogread.db").display());
    let media_dir = dir.path().join("media");
    let flags = ["--media-dir", media_dir.to_str().unwrap()];
    let server = Server::start_on(&database_url, &flags, &[], true);
    let (id, admin) = project(&server).await;
    // Uploads of distinct pictures, four at a time, until the server is killed.
    let acknowledged = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let addr = server.addr;
    let uploaders: Vec<_> = (0..4u32)
        .map(|lane| {
            let (id, admin, acknowledged) = (id.clone(), admin.clone(), acknowledged.clone());
            tokio::spawn(async move {
                for n in 0u32.. {
                    let photo = blogread_media::samples::jpeg(900, 600, lane * 10_000 + n);
                    let body = multipart(&photo, None, None);
                    let Ok(mut stream) = TcpStream::connect(addr).await else {
                        return;
                    };
                    let head = format!(
                        "POST /api/v1/projects/{id}/media HTTP/1.1\r\nHost: blogread\r\nConnection: close\r\nAuthorization: {admin}\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    );
                    if stream.write_all(head.as_bytes()).await.is_err()
                        || stream.write_all(&body).await.is_err()
                    {
                        return;
                    }
                    let mut answer = Vec::new();
                    if stream.read_to_end(&mut answer).await.is_err() {
                        return;
                    }
                    let text = String::from_utf8_lossy(&answer);
                    if !text.starts_with("HTTP/1.1 201") {
                        return;
                    }
                    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
                    let item: serde_json::Value = serde_json::from_str(body).unwrap();
                    acknowledged
                        .lock()
                        .unwrap()
                        .push(item["sha256"].as_str().unwrap().to_owned());
                }
            })
        })
        .collect();
    // Kill it (SIGKILL) once a few uploads were acknowledged, while others are under way.
    tokio::time::timeout(PATIENCE, async {
        while acknowledged.lock().unwrap().len() < 6 {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("uploads are acknowledged");
    drop(server);
    for uploader in uploaders {
        let _ = uploader.await;
    }
    let acknowledged = acknowledged.lock().unwrap().clone();

    // Over the same database and folder: every acknowledged item is there, and every item
    // listed serves its master and variants.
    let again = Server::start_on(&database_url, &flags, &[], true);
    let list = get(
        &again,
        "GET",
        &format!("/api/v1/projects/{id}/media?limit=100"),
        &format!("Authorization: {admin}\r\n"),
    )
    .await;
    assert_eq!(list.status, 200, "{}", list.text());
    let listed: Vec<serde_json::Value> = list.json()["media"].as_array().unwrap().clone();
    let listed_shas: Vec<&str> = listed
        .iter()
        .map(|m| m["sha256"].as_str().unwrap())
        .collect();
    for sha in &acknowledged {
        assert!(
            listed_shas.contains(&sha.as_str()),
            "acknowledged {sha} was lost"
        );
    }
    for item in &listed {
        let urls = std::iter::once(item["url"].as_str().unwrap()).chain(
            item["variants"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["url"].as_str().unwrap()),
        );
        for url in urls {
            let served = get(&again, "GET", path_of(url), "").await;
            assert_eq!(served.status, 200, "a row without its file: {url}");
        }
    }
}

#[tokio::test]
async fn uploads_and_refusals_are_counted_in_the_metrics() {
    let server = Server::start_as_operator(&[]);
    let (id, admin) = project(&server).await;
    let photo = blogread_media::samples::jpeg(600, 400, 5);
    assert_eq!(
        upload(&server, &id, &admin, &multipart(&photo, None, None))
            .await
            .status,
        201
    );
    assert_eq!(
        upload(&server, &id, &admin, &multipart(&photo, None, None))
            .await
            .status,
        200
    );
    let refused = upload(&server, &id, &admin, &multipart(b"<svg/>", None, None)).await;
    assert_eq!(refused.status, 415);
    let text = metrics(&server).await;
    for line in [
        "blogread_media_uploads_total{outcome=\"created\"} 1",
        "blogread_media_uploads_total{outcome=\"existing\"} 1",
        "blogread_media_uploads_refused_total{reason=\"unsupported_type\"} 1",
    ] {
        assert!(text.contains(line), "{line} in:\n{text}");
    }
    assert!(text.contains("blogread_media_processing_seconds"), "{text}");
}
