//! `HttpNotifier` against a real HTTPS receiver on loopback.
//!
//! The receiver is a minimal HTTP/1.1 server over tokio-rustls, with a certificate for
//! `hooks.example.com` issued by a CA made in the test (rcgen). The notifier trusts that CA,
//! resolves `hooks.example.com` to 127.0.0.1 through a `StaticResolver`, and is allowed loopback
//! targets explicitly. Nothing but loopback is ever contacted: the refused cases are refused
//! before any connection. No test sleeps: events are awaited through channels.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use blogread_core::hook::{
    AddressPolicy, DeployHookUrl, HttpNotifier, Notifier, Resolver, StaticResolver, USER_AGENT,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

const HOST: &str = "hooks.example.com";

fn loopback() -> IpAddr {
    IpAddr::from([127, 0, 0, 1])
}

/// A test CA and a server certificate for `hooks.example.com` issued by it.
struct TestPki {
    ca_pem: String,
    server_config: Arc<ServerConfig>,
}

fn test_pki() -> TestPki {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
        KeyPair, KeyUsagePurpose,
    };
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "blogread test CA");
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);

    let mut leaf_params = CertificateParams::new(vec![HOST.to_owned()]).unwrap();
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, HOST);
    leaf_params.use_authority_key_identifier_extension = true;
    leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_cert = leaf_params.signed_by(&leaf_key, &issuer).unwrap();

    let server_config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf_cert.der().clone(), ca_cert.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
        )
        .unwrap();
    TestPki {
        ca_pem: ca_cert.pem(),
        server_config: Arc::new(server_config),
    }
}

/// What the receiver answers.
#[derive(Debug, Clone)]
enum Answer {
    Status(u16),
    Redirect(String),
    Never,
}

/// One request as the receiver saw it.
#[derive(Debug)]
struct Recorded {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What happened at the receiver, in order.
#[derive(Debug)]
enum Event {
    /// A TCP connection was accepted from this peer.
    Accepted(SocketAddr),
    /// A whole request was read.
    Request(Recorded),
}

struct Receiver {
    addr: SocketAddr,
    events: mpsc::UnboundedReceiver<Event>,
}

impl Receiver {
    async fn start(pki: &TestPki, answer: Answer) -> Receiver {
        let listener = TcpListener::bind((loopback(), 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, events) = mpsc::unbounded_channel();
        let acceptor = TlsAcceptor::from(Arc::clone(&pki.server_config));
        tokio::spawn(async move {
            loop {
                let Ok((stream, peer)) = listener.accept().await else {
                    return;
                };
                let _ = tx.send(Event::Accepted(peer));
                let tx = tx.clone();
                let acceptor = acceptor.clone();
                let answer = answer.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(stream).await else {
                        return;
                    };
                    let Some(request) = read_request(&mut tls).await else {
                        return;
                    };
                    let _ = tx.send(Event::Request(request));
                    let response = match answer {
                        Answer::Status(code) => format!(
                            "HTTP/1.1 {code} Test\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                        ),
                        Answer::Redirect(location) => format!(
                            "HTTP/1.1 302 Found\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                        ),
                        Answer::Never => {
                            // Hold the connection open without a word.
                            std::future::pending::<()>().await;
                            unreachable!()
                        }
                    };
                    let _ = tls.write_all(response.as_bytes()).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        Receiver { addr, events }
    }

    fn url(&self, path: &str) -> DeployHookUrl {
        DeployHookUrl::parse(&format!("https://{HOST}:{}{path}", self.addr.port())).unwrap()
    }

    /// Awaits the next request, skipping connection events.
    async fn next_request(&mut self) -> Recorded {
        loop {
            match self.events.recv().await.expect("receiver stopped") {
                Event::Accepted(_) => continue,
                Event::Request(r) => return r,
            }
        }
    }

    /// Everything the receiver saw since the last call, proven complete without sleeping: a
    /// marker connection is made, and since the listener accepts connections in order, every
    /// connection made before it has been reported by the time the marker is.
    async fn drain(&mut self) -> Vec<Event> {
        let marker = TcpStream::connect(self.addr).await.unwrap();
        let marker_addr = marker.local_addr().unwrap();
        let mut seen = Vec::new();
        loop {
            match self.events.recv().await.expect("receiver stopped") {
                Event::Accepted(peer) if peer == marker_addr => return seen,
                event => seen.push(event),
            }
        }
    }
}

/// Reads one HTTP/1.1 request: head up to the blank line, then `content-length` bytes of body.
async fn read_request<S: AsyncReadExt + Unpin>(stream: &mut S) -> Option<Recorded> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let mut chunk = [0u8; 1024];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8(buf[..head_end].to_vec()).ok()?;
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap_or(0));
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 1024];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Recorded {
        method,
        path,
        headers,
        body,
    })
}

/// A notifier for tests: loopback allowed, the test CA trusted, `hooks.example.com` -> 127.0.0.1.
fn test_notifier(pki: &TestPki, resolver: Arc<dyn Resolver>, timeout: Duration) -> HttpNotifier {
    HttpNotifier::builder()
        .resolver(resolver)
        .timeout(timeout)
        .add_root_certificate(pki.ca_pem.as_bytes())
        .allow_loopback_targets_for_testing()
        .build()
        .unwrap()
}

fn loopback_resolver() -> Arc<StaticResolver> {
    Arc::new(StaticResolver::new().with(HOST, [loopback()]))
}

const TIMEOUT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn one_post_per_notify_with_the_specified_headers_and_body() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let notifier = test_notifier(&pki, loopback_resolver(), TIMEOUT);
    assert_eq!(notifier.policy(), AddressPolicy::GlobalAndLoopback);
    let url = receiver.url("/build_hooks/s3cr3t?trigger=blogread");

    let outcome = notifier.notify(&url).await;
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(outcome.status_code, 200);
    assert!(!outcome.message.contains("s3cr3t"), "{}", outcome.message);

    let request = receiver.next_request().await;
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/build_hooks/s3cr3t?trigger=blogread");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("user-agent"), Some(USER_AGENT));
    assert!(USER_AGENT.starts_with("blogread/"));
    assert_eq!(
        request.header("host"),
        Some(format!("{HOST}:{}", receiver.addr.port()).as_str())
    );
    assert_eq!(request.body, b"{}");

    // A second notify is a second POST, on a connection of its own.
    let second = notifier.notify(&url).await;
    assert!(second.success);
    receiver.next_request().await;
    assert!(receiver.drain().await.is_empty());
}

#[tokio::test]
async fn a_500_is_a_failure_and_is_not_retried() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(500)).await;
    let notifier = test_notifier(&pki, loopback_resolver(), TIMEOUT);

    let outcome = notifier.notify(&receiver.url("/build_hooks/abc")).await;
    assert!(!outcome.success);
    assert_eq!(outcome.status_code, 500);
    assert!(outcome.message.contains("500"), "{}", outcome.message);

    let requests = receiver
        .drain()
        .await
        .into_iter()
        .filter(|e| matches!(e, Event::Request(_)))
        .count();
    assert_eq!(requests, 1);
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let pki = test_pki();
    let mut elsewhere = Receiver::start(&pki, Answer::Status(200)).await;
    let location = format!("https://{HOST}:{}/elsewhere", elsewhere.addr.port());
    let mut receiver = Receiver::start(&pki, Answer::Redirect(location)).await;
    let notifier = test_notifier(&pki, loopback_resolver(), TIMEOUT);

    let outcome = notifier.notify(&receiver.url("/build_hooks/abc")).await;
    assert!(!outcome.success);
    assert_eq!(outcome.status_code, 302);
    assert!(
        outcome.message.contains("redirect not followed"),
        "{}",
        outcome.message
    );
    assert!(!outcome.message.contains("/elsewhere"));

    receiver.next_request().await;
    assert!(
        elsewhere.drain().await.is_empty(),
        "the redirect target was contacted"
    );
}

#[tokio::test]
async fn a_receiver_that_never_answers_is_a_time_out() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Never).await;
    let notifier = test_notifier(&pki, loopback_resolver(), Duration::from_millis(500));
    assert_eq!(notifier.timeout(), Duration::from_millis(500));

    let outcome = notifier.notify(&receiver.url("/build_hooks/abc")).await;
    assert!(!outcome.success);
    assert_eq!(outcome.status_code, 0);
    assert!(outcome.message.contains("timed out"), "{}", outcome.message);
    assert!(outcome.duration >= Duration::from_millis(500));
    assert!(outcome.duration < TIMEOUT);
    // It did get the request: the time-out was waiting for the answer.
    receiver.next_request().await;
}

#[tokio::test]
async fn nothing_listening_is_unreachable() {
    let pki = test_pki();
    let port = {
        let listener = TcpListener::bind((loopback(), 0)).await.unwrap();
        listener.local_addr().unwrap().port()
    };
    let notifier = test_notifier(&pki, loopback_resolver(), TIMEOUT);
    let url = DeployHookUrl::parse(&format!("https://{HOST}:{port}/build_hooks/s3cr3t")).unwrap();

    let outcome = notifier.notify(&url).await;
    assert!(!outcome.success);
    assert_eq!(outcome.status_code, 0);
    assert!(
        outcome.message.starts_with("unreachable"),
        "{}",
        outcome.message
    );
    assert!(!outcome.message.contains("s3cr3t"), "{}", outcome.message);
}

#[tokio::test]
async fn a_certificate_not_issued_for_the_host_is_unreachable() {
    let pki = test_pki();
    let other_pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    // Trusts another CA only (on top of the platform roots, which do not know the test CA).
    let notifier = test_notifier(&other_pki, loopback_resolver(), TIMEOUT);

    let outcome = notifier.notify(&receiver.url("/build_hooks/abc")).await;
    assert!(!outcome.success);
    assert_eq!(outcome.status_code, 0);
    assert!(
        outcome.message.starts_with("unreachable"),
        "{}",
        outcome.message
    );
    let events = receiver.drain().await;
    assert!(events.iter().all(|e| matches!(e, Event::Accepted(_))));
}

#[tokio::test]
async fn the_default_notifier_refuses_loopback_without_connecting() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let notifier = HttpNotifier::builder()
        .resolver(loopback_resolver())
        .add_root_certificate(pki.ca_pem.as_bytes())
        .build()
        .unwrap();
    assert_eq!(notifier.policy(), AddressPolicy::GlobalOnly);

    let outcome = notifier.notify(&receiver.url("/build_hooks/abc")).await;
    assert!(!outcome.success);
    assert_eq!(outcome.status_code, 0);
    assert!(
        outcome.message.starts_with("refused by the address rules"),
        "{}",
        outcome.message
    );
    assert!(outcome.message.contains("127.0.0.1"), "{}", outcome.message);
    assert!(
        receiver.drain().await.is_empty(),
        "the receiver was contacted"
    );
}

#[tokio::test]
async fn dns_changed_to_a_private_address_after_vetting_is_refused_at_notify_time() {
    let pki = test_pki();
    let resolver = Arc::new(StaticResolver::new().with(HOST, [IpAddr::from([75, 2, 60, 5])]));
    let url = DeployHookUrl::parse("https://hooks.example.com/build_hooks/abc").unwrap();
    // Saved while it resolved to a public address...
    url.vet(resolver.as_ref(), AddressPolicy::GlobalOnly)
        .await
        .unwrap();
    // ...then DNS points it inside.
    resolver.insert(HOST, [IpAddr::from([10, 0, 0, 7])]);
    for notifier in [
        test_notifier(&pki, resolver.clone(), TIMEOUT),
        HttpNotifier::builder()
            .resolver(resolver.clone())
            .build()
            .unwrap(),
    ] {
        let outcome = notifier.notify(&url).await;
        assert!(!outcome.success);
        assert_eq!(outcome.status_code, 0);
        assert!(
            outcome.message.starts_with("refused by the address rules"),
            "{}",
            outcome.message
        );
        assert!(outcome.message.contains("10.0.0.7"), "{}", outcome.message);
    }
}

/// Answers loopback to the first look-up and a private address to every later one, as a
/// rebinding DNS server would.
struct Rebinding {
    lookups: Mutex<usize>,
}

#[async_trait]
impl Resolver for Rebinding {
    async fn lookup(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
        let mut lookups = self.lookups.lock().unwrap();
        *lookups += 1;
        Ok(vec![if *lookups == 1 {
            loopback()
        } else {
            IpAddr::from([10, 0, 0, 7])
        }])
    }
}

#[tokio::test]
async fn the_connection_goes_to_the_vetted_address_without_a_second_look_up() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(204)).await;
    let resolver = Arc::new(Rebinding {
        lookups: Mutex::new(0),
    });
    let notifier = test_notifier(&pki, resolver.clone(), TIMEOUT);

    let outcome = notifier.notify(&receiver.url("/build_hooks/abc")).await;
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(outcome.status_code, 204);
    assert_eq!(*resolver.lookups.lock().unwrap(), 1);
    receiver.next_request().await;

    // The next firing looks up again, gets the private address, and is refused.
    let outcome = notifier.notify(&receiver.url("/build_hooks/abc")).await;
    assert!(!outcome.success);
    assert!(outcome.message.contains("10.0.0.7"), "{}", outcome.message);
    assert!(receiver.drain().await.is_empty());
}

#[tokio::test]
async fn der_root_certificates_work_and_garbage_is_refused() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let der: CertificateDer<'static> = rustls_pem_to_der(&pki.ca_pem);
    let notifier = HttpNotifier::builder()
        .resolver(loopback_resolver())
        .add_root_certificate(der.as_ref())
        .allow_loopback_targets_for_testing()
        .build()
        .unwrap();
    assert!(notifier.notify(&receiver.url("/x/y/z/abc")).await.success);
    receiver.next_request().await;

    let garbage = HttpNotifier::builder()
        .add_root_certificate(
            b"-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n",
        )
        .build();
    assert!(garbage.is_err());
}

/// The DER inside a one-certificate PEM.
fn rustls_pem_to_der(pem: &str) -> CertificateDer<'static> {
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()
}
