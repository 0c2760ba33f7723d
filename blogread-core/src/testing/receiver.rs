//! A real HTTPS receiver on loopback for deploy hook tests: a minimal HTTP/1.1 server over
//! tokio-rustls with a certificate for [`HOST`] issued by a CA made for the test (rcgen). It
//! records each request; tests await what it saw through a channel, never by sleeping.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::hook::{DeployHookUrl, HttpNotifier, Resolver, StaticResolver};

/// The host name the test certificate is issued for; tests map it to 127.0.0.1.
pub const HOST: &str = "hooks.example.com";

/// 127.0.0.1.
pub fn loopback() -> IpAddr {
    IpAddr::from([127, 0, 0, 1])
}

/// A test CA and a server certificate for `hooks.example.com` issued by it.
pub struct TestPki {
    /// The CA certificate, PEM: give it to the notifier as a root.
    pub ca_pem: String,
    /// The receiver's TLS configuration.
    pub server_config: Arc<ServerConfig>,
}

/// Makes a fresh CA and a certificate for [`HOST`] issued by it.
pub fn test_pki() -> TestPki {
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
pub enum Answer {
    /// Answer with this status and no body.
    Status(u16),
    /// Answer 302 with this `Location`.
    Redirect(String),
    /// Read the request, then never answer.
    Never,
}

/// One request as the receiver saw it.
#[derive(Debug)]
pub struct Recorded {
    /// Request method.
    pub method: String,
    /// Request target.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl Recorded {
    /// A header's value by name, case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What happened at the receiver, in order.
#[derive(Debug)]
pub enum Event {
    /// A TCP connection was accepted from this peer.
    Accepted(SocketAddr),
    /// A whole request was read.
    Request(Recorded),
}

/// A running receiver and the events it reports.
pub struct Receiver {
    /// Where it listens.
    pub addr: SocketAddr,
    events: mpsc::UnboundedReceiver<Event>,
}

impl Receiver {
    /// Starts a receiver on 127.0.0.1:0 that answers every request with `answer`.
    pub async fn start(pki: &TestPki, answer: Answer) -> Receiver {
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

    /// The URL of `path` on this receiver, by [`HOST`].
    pub fn url_string(&self, path: &str) -> String {
        format!("https://{HOST}:{}{path}", self.addr.port())
    }

    /// [`Receiver::url_string`], parsed.
    pub fn url(&self, path: &str) -> DeployHookUrl {
        DeployHookUrl::parse(&format!("https://{HOST}:{}{path}", self.addr.port())).unwrap()
    }

    /// Awaits the next request, skipping connection events.
    pub async fn next_request(&mut self) -> Recorded {
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
    pub async fn drain(&mut self) -> Vec<Event> {
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
pub fn test_notifier(
    pki: &TestPki,
    resolver: Arc<dyn Resolver>,
    timeout: Duration,
) -> HttpNotifier {
    HttpNotifier::builder()
        .resolver(resolver)
        .timeout(timeout)
        .add_root_certificate(pki.ca_pem.as_bytes())
        .allow_loopback_targets_for_testing()
        .build()
        .unwrap()
}

/// A resolver that maps [`HOST`] to 127.0.0.1.
pub fn loopback_resolver() -> Arc<StaticResolver> {
    Arc::new(StaticResolver::new().with(HOST, [loopback()]))
}
