//! The server as an attacker meets it: the real `blogread-server serve` binary on loopback,
//! spoken to over HTTP/1.1 and HTTP/2 (h2c prior knowledge) through raw sockets, its memory
//! read from `/proc`.

mod support;

use bytes::Bytes;
use poem::http;
use std::process::Command;
use std::time::Duration;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn an_http2_body_without_length_is_refused_at_4_mib_and_memory_stays_bounded() {
    let server = Server::start(&[]);
    let (client, connection) = server.h2().await;
    tokio::spawn(connection);
    let mut client = client.ready().await.expect("the connection is ready");
    let request = http::Request::post(format!("http://{}/api/v1/projects", server.addr))
        .header("content-type", "application/json")
        .body(())
        .unwrap();
    let (response, mut body) = client
        .send_request(request, false)
        .expect("send the request head");
    // 300 MiB of zeros, no content-length: as fast as the server takes them.
    let sender = tokio::spawn(async move {
        let chunk = Bytes::from(vec![0u8; 64 * 1024]);
        let mut sent = 0;
        while sent < 300 * MIB {
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
        sent
    });
    let response = tokio::time::timeout(PATIENCE, response)
        .await
        .expect("an answer before the body ends")
        .expect("a response");
    assert_eq!(response.status(), 413);
    let text = h2_body(response.into_body()).await;
    let text = String::from_utf8_lossy(&text);
    assert!(
        text.contains("\"detail\"") && text.contains("4 MiB"),
        "{text}"
    );
    sender.abort();
    let peak_mib = server.memory_kib("VmHWM") / 1024;
    assert!(
        peak_mib < 64,
        "the server held at most the 4 MiB cap for the request, not the stream: peak RSS {peak_mib} MiB"
    );
}

#[tokio::test]
async fn an_http1_chunked_body_is_refused_at_4_mib() {
    let server = Server::start(&[]);
    let stream = server.connect().await;
    let (mut read, mut write) = stream.into_split();
    let sender = tokio::spawn(async move {
        let _ = write
            .write_all(
                b"POST /api/v1/projects HTTP/1.1\r\nHost: blogread\r\n\
                  Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
            )
            .await;
        let chunk = format!("10000\r\n{}\r\n", "0".repeat(0x10000));
        for _ in 0..(64 * MIB / 0x10000) {
            if write.write_all(chunk.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    tokio::time::timeout(PATIENCE, async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = read.read(&mut buf).await.expect("read");
            assert!(n > 0, "closed before answering");
            head.extend_from_slice(&buf[..n]);
        }
    })
    .await
    .expect("an answer");
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    sender.abort();
    let peak_mib = server.memory_kib("VmHWM") / 1024;
    assert!(peak_mib < 64, "peak RSS {peak_mib} MiB");
}

#[tokio::test]
async fn a_request_head_trickled_a_byte_at_a_time_is_cut_off_at_the_header_timeout() {
    let server = Server::start(&["--header-timeout", "1"]);
    for opening in [
        &b"GET /healthz HTTP/1.1\r\nHost: blogread\r\n"[..],
        // The HTTP/2 preface, trickled too.
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    ] {
        let stream = server.connect().await;
        let (mut read, mut write) = stream.into_split();
        let opening = opening.to_vec();
        let trickle = tokio::spawn(async move {
            for byte in opening.iter().chain(std::iter::repeat(&b'x')) {
                if write.write_all(&[*byte]).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        let mut buf = [0u8; 1024];
        let closed = tokio::time::timeout(PATIENCE, async {
            loop {
                match read.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        })
        .await;
        trickle.abort();
        assert!(closed.is_ok(), "the trickling client is disconnected");
    }
    // The server still serves others.
    let mut stream = server.connect().await;
    assert!(get_healthz(&mut stream).await.starts_with("HTTP/1.1 200"));
}

/// The head of a project creation (a body the handler reads) on HTTP/1.1, with `framing`.
fn create_project_head(framing: &str) -> String {
    format!(
        "POST /api/v1/projects HTTP/1.1\r\nHost: blogread\r\nAuthorization: Bearer {OPERATOR_TOKEN}\r\n\
         Content-Type: application/json\r\n{framing}\r\n"
    )
}

/// Asserts that `body` is JSON whose `detail` says a body was cut off for its pace.
fn assert_too_slow(body: &str) {
    let body: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
    let detail = body["detail"].as_str().expect("a detail");
    assert!(detail.contains("too slowly"), "{detail}");
}

/// Asserts that `head` and `body` are the 408 of a body cut off for its pace, its connection
/// closed.
fn assert_cut_off(head: &str, body: &str) {
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("connection: close"),
        "{head}"
    );
    assert_too_slow(body);
}

#[tokio::test]
async fn a_request_body_that_stops_is_answered_408_and_its_connection_closed() {
    let server = Server::start_as_operator(&["--body-timeout", "1"]);
    let mut stream = server.connect().await;
    // 1,000 bytes declared, 11 sent, then nothing.
    let head = create_project_head("Content-Length: 1000\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(br#"{"name": "a"#).await.unwrap();
    let (head, body) = read_response(&mut stream).await;
    assert_cut_off(&head, &body);
    assert!(
        closed_by_peer(&mut stream).await,
        "the connection is closed"
    );
    server.log_when(|log| log.contains("-> 408"));
    let mut other = server.connect().await;
    assert!(get_healthz(&mut other).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn a_chunked_body_trickled_under_the_minimum_rate_is_cut_off_though_it_never_pauses_long() {
    // A byte every 100 ms (10 a second) against at least 1,000 a second: never a pause near
    // the 1 s time-out, so only the rate can cut it off, once its allowance (the time-out
    // plus 1 ms a byte) is spent. Without the rate it would trickle on for ever.
    let server = Server::start_as_operator(&["--body-timeout", "1", "--min-body-rate", "1000"]);
    let mut stream = server.connect().await;
    let head = create_project_head("Transfer-Encoding: chunked\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut sent = 0;
    tokio::time::timeout(PATIENCE, async {
        loop {
            if stream.write_all(b"1\r\n \r\n").await.is_err() {
                return;
            }
            sent += 1;
            // The answer, when it comes, ends the trickle.
            if tokio::time::timeout(Duration::from_millis(100), stream.readable())
                .await
                .is_ok()
            {
                return;
            }
        }
    })
    .await
    .expect("the trickle is cut off");
    let (head, body) = read_response(&mut stream).await;
    assert_cut_off(&head, &body);
    assert!(sent < 100, "cut off after {sent} bytes");
}

#[tokio::test]
async fn an_http2_stream_whose_body_stops_is_answered_408_and_the_connection_serves_on() {
    let server = Server::start_as_operator(&["--body-timeout", "1"]);
    let (client, connection) = server.h2().await;
    tokio::spawn(connection);
    let mut client = client.ready().await.expect("the connection is ready");
    let request = http::Request::post(format!("http://{}/api/v1/projects", server.addr))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {OPERATOR_TOKEN}"))
        .body(())
        .unwrap();
    let (response, mut body) = client
        .send_request(request, false)
        .expect("send the request head");
    body.send_data(Bytes::from_static(br#"{"name": "a"#), false)
        .expect("send part of the body");
    let response = tokio::time::timeout(PATIENCE, response)
        .await
        .expect("an answer though the body never ends")
        .expect("a response");
    assert_eq!(response.status(), 408);
    assert_too_slow(&String::from_utf8_lossy(
        &h2_body(response.into_body()).await,
    ));
    // The connection's other streams go on.
    let mut client = client.ready().await.expect("the connection is still ready");
    let request = http::Request::get(format!("http://{}/healthz", server.addr))
        .body(())
        .unwrap();
    let (response, _) = client.send_request(request, true).unwrap();
    assert_eq!(response.await.expect("a response").status(), 200);
}

#[tokio::test]
async fn a_quiet_keep_alive_connection_outlives_the_header_timeout_and_closes_when_idle() {
    let server = Server::start(&["--header-timeout", "0.5", "--idle-timeout", "2"]);
    let mut stream = server.connect().await;
    assert!(get_healthz(&mut stream).await.starts_with("HTTP/1.1 200"));
    // Quiet for longer than the header time-out: still open, still served.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(get_healthz(&mut stream).await.starts_with("HTTP/1.1 200"));
    assert!(
        closed_by_peer(&mut stream).await,
        "closed after the idle time-out"
    );
}

#[tokio::test]
async fn a_request_head_over_16_kib_is_431_on_both_protocols() {
    let server = Server::start(&[]);
    let mut stream = server.connect().await;
    let fits = format!(
        "GET /healthz HTTP/1.1\r\nHost: blogread\r\nX-Pad: {}\r\n\r\n",
        "a".repeat(12 * 1024)
    );
    stream.write_all(fits.as_bytes()).await.unwrap();
    let (head, _) = read_response(&mut stream).await;
    assert!(
        head.starts_with("HTTP/1.1 200"),
        "a 12 KiB head is fine: {head}"
    );

    let mut stream = server.connect().await;
    let too_big = format!(
        "GET /healthz HTTP/1.1\r\nHost: blogread\r\nX-Pad: {}\r\n\r\n",
        "a".repeat(256 * 1024)
    );
    let _ = stream.write_all(too_big.as_bytes()).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");

    let (client, connection) = server.h2().await;
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let request = http::Request::get(format!("http://{}/healthz", server.addr))
        .header("x-pad", "a".repeat(20 * 1024))
        .body(())
        .unwrap();
    let (response, _) = client.send_request(request, true).unwrap();
    let response = tokio::time::timeout(PATIENCE, response)
        .await
        .expect("an answer")
        .expect("a response");
    assert_eq!(response.status(), 431);
}

#[tokio::test]
async fn http2_advertises_at_most_128_concurrent_streams() {
    let server = Server::start(&[]);
    let (client, mut connection) = server.h2().await;
    let request = http::Request::get(format!("http://{}/healthz", server.addr))
        .body(())
        .unwrap();
    let exchange = async {
        let mut client = client.ready().await.unwrap();
        let (response, _) = client.send_request(request, true).unwrap();
        response.await.unwrap().status()
    };
    // Drive the connection until the exchange is done: the server's SETTINGS came first.
    let status = tokio::select! {
        status = exchange => status,
        ended = &mut connection => panic!("the connection ended first: {ended:?}"),
    };
    assert_eq!(status, 200);
    assert_eq!(connection.max_concurrent_send_streams(), 128);
}

#[tokio::test]
async fn connections_past_the_cap_wait_until_one_closes() {
    let server = Server::start(&["--max-connections", "2"]);
    let mut first = server.connect().await;
    let mut second = server.connect().await;
    assert!(get_healthz(&mut first).await.starts_with("HTTP/1.1 200"));
    assert!(get_healthz(&mut second).await.starts_with("HTTP/1.1 200"));
    let mut third = server.connect().await; // completes in the kernel's backlog
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: blogread\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    assert!(
        tokio::time::timeout(Duration::from_millis(500), third.read(&mut buf))
            .await
            .is_err(),
        "the third connection is not served while two are open"
    );
    drop(first);
    let (head, _) = read_response(&mut third).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[tokio::test]
async fn no_password_of_the_database_url_reaches_the_output() {
    let output = Command::new(env!("CARGO_BIN_EXE_blogread-server"))
        .args([
            "--database-url",
            "postgres://blogread:hunter2-userinfo@127.0.0.1:1/blogread?password=hunter2-query",
            "migrate",
        ])
        .env("RUST_LOG", "debug")
        .output()
        .expect("run blogread-server");
    assert!(!output.status.success(), "nothing listens on port 1");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("127.0.0.1:1"), "the URL is named: {text}");
    assert!(!text.contains("hunter2"), "{text}");
}

#[tokio::test]
async fn the_log_never_holds_a_whole_credential_from_the_request_target() {
    let server = Server::start(&[]);
    let key = "pk_live_SECRETSECRETSECRETSECRETSECRETSECRETSECRE";
    let mut stream = server.connect().await;
    for target in [
        format!("/blog/api/v1/public/blogs?key={key}"),
        format!("/blog/api/v1/public/blogs?API_KEY={key}&limit=1"),
        format!("/blog/api/v1/public/blogs?token={key}"),
        format!("/blog/api/v1/public/blogs/{key}"),
        format!("/api/v1/projects?x={}", key.replace('_', "%5F")),
    ] {
        let request = format!("GET {target} HTTP/1.1\r\nHost: blogread\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let (head, _) = read_response(&mut stream).await;
        assert!(head.starts_with("HTTP/1.1 4"), "{head}");
    }
    drop(stream);
    let log = server.log_when(|log| log.matches(" -> 40").count() >= 5);
    assert!(log.contains("pk_live_SECR…"), "{log}");
    assert!(!log.contains("SECRETSECRET"), "{log}");
}

/// The server started by `sh` after `ulimits` (shell commands), serving `--max-connections
/// 1000`: up to 2,256 descriptors needed.
fn start_under_limits(ulimits: &str) -> Server {
    let script = format!("{ulimits} && exec \"$0\" \"$@\"");
    Server::start_wrapped(&["sh", "-c", &script], &["--max-connections", "1000"])
}

#[tokio::test]
async fn the_open_files_limit_is_raised_to_what_the_connections_need_up_to_the_hard_limit() {
    let server = start_under_limits("ulimit -S -n 300");
    // The hard limit stays as it was; the soft one is raised as the server starts to serve.
    let (_, hard) = server.open_files_limits();
    let expected = hard.map_or(2256, |hard| hard.min(2256));
    server.log_when(|log| {
        log.contains("raised the open-files limit") || log.contains("open-files limit is under")
    });
    assert_eq!(
        server.open_files_limits().0,
        Some(expected),
        "hard limit {hard:?}"
    );
    let mut stream = server.connect().await;
    assert!(get_healthz(&mut stream).await.starts_with("HTTP/1.1 200"));
}

#[test]
fn a_hard_open_files_limit_under_the_need_is_used_whole_and_reported() {
    let server = start_under_limits("ulimit -S -n 300 && ulimit -H -n 400");
    let log = server.log_when(|log| log.contains("open-files limit is under"));
    assert_eq!(server.open_files_limits(), (Some(400), Some(400)));
    assert!(
        log.contains("LimitNOFILE") && log.contains("--max-connections"),
        "{log}"
    );
}
