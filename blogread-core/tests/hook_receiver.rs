//! `HttpNotifier` against a real HTTPS receiver on loopback.
//!
//! The receiver is a minimal HTTP/1.1 server over tokio-rustls, with a certificate for
//! `hooks.example.com` issued by a CA made in the test (rcgen). The notifier trusts that CA,
//! resolves `hooks.example.com` to 127.0.0.1 through a `StaticResolver`, and is allowed loopback
//! targets explicitly. Nothing but loopback is ever contacted: the refused cases are refused
//! before any connection. No test sleeps: events are awaited through channels.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use blogread_core::hook::{
    AddressPolicy, DeployHookUrl, HttpNotifier, Notifier, Resolver, StaticResolver, USER_AGENT,
};
use blogread_core::testing::receiver::{
    Answer, Event, HOST, Receiver, loopback, loopback_resolver, test_notifier, test_pki,
};
use tokio::net::TcpListener;
use tokio_rustls::rustls::pki_types::CertificateDer;

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
