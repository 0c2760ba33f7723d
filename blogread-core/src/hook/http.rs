//! [`HttpNotifier`]: the [`Notifier`] that POSTs to a deploy hook over HTTPS with reqwest and
//! rustls (feature `hooks`, on by default).

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use reqwest::StatusCode;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use tracing::Instrument;

use super::address::AddressPolicy;
use super::notifier::{DEFAULT_TIMEOUT, HookOutcome, Notifier, USER_AGENT};
use super::resolver::{Resolver, SystemResolver};
use super::url::{DeployHookUrl, HookUrlError};

/// Why an [`HttpNotifier`] could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NotifierBuildError {
    /// A root certificate given to [`HttpNotifierBuilder::add_root_certificate`] is neither a
    /// DER nor a PEM certificate.
    #[error("a root certificate given to the deploy hook notifier is not a DER or PEM certificate")]
    InvalidRootCertificate(#[source] reqwest::Error),
    /// The HTTP client could not be set up (for example, the TLS roots could not be loaded).
    #[error("the deploy hook HTTP client could not be set up")]
    Client(#[source] reqwest::Error),
}

/// A [`Notifier`] that POSTs over HTTPS with reqwest and rustls.
///
/// Every [`notify`](Notifier::notify) vets the URL's host with its [`Resolver`] and
/// [`AddressPolicy`] and refuses if any address is not allowed; the HTTP client then connects
/// only to the addresses vetted for that call (its DNS resolver answers from them alone), so DNS
/// cannot change between the check and the connection. Redirects are not followed, proxies from
/// the environment are ignored, no connection is reused between firings, and the whole firing is
/// bounded by one time-out ([`DEFAULT_TIMEOUT`] unless configured).
///
/// Build one and share it (it holds one HTTP client).
pub struct HttpNotifier {
    client: reqwest::Client,
    resolver: Arc<dyn Resolver>,
    vetted: Arc<VettedAddresses>,
    policy: AddressPolicy,
    timeout: Duration,
}

impl fmt::Debug for HttpNotifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpNotifier")
            .field("policy", &self.policy)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Configures an [`HttpNotifier`]. Defaults: the system resolver, global addresses only,
/// [`DEFAULT_TIMEOUT`], the platform's root certificates.
pub struct HttpNotifierBuilder {
    resolver: Arc<dyn Resolver>,
    timeout: Duration,
    root_certificates: Vec<Vec<u8>>,
    policy: AddressPolicy,
}

impl fmt::Debug for HttpNotifierBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpNotifierBuilder")
            .field("policy", &self.policy)
            .field("timeout", &self.timeout)
            .field("root_certificates", &self.root_certificates.len())
            .finish_non_exhaustive()
    }
}

impl HttpNotifier {
    /// The production notifier: system resolver, global addresses only, 10 s time-out, the
    /// platform's root certificates.
    pub fn new() -> Result<HttpNotifier, NotifierBuildError> {
        HttpNotifier::builder().build()
    }

    /// A builder starting from the production defaults.
    pub fn builder() -> HttpNotifierBuilder {
        HttpNotifierBuilder {
            resolver: Arc::new(SystemResolver),
            timeout: DEFAULT_TIMEOUT,
            root_certificates: Vec::new(),
            policy: AddressPolicy::GlobalOnly,
        }
    }

    /// The address policy every firing is judged by.
    pub fn policy(&self) -> AddressPolicy {
        self.policy
    }

    /// The time-out of one whole firing.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Vets, then POSTs. The caller bounds this with the time-out.
    async fn attempt(&self, url: &DeployHookUrl) -> Result<StatusCode, Failure> {
        let addresses = url
            .vet(self.resolver.as_ref(), self.policy)
            .await
            .map_err(Failure::Refused)?;
        let _admission = self.vetted.admit(url.host(), addresses);
        let sent = self
            .client
            .post(url.parsed().clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body("{}")
            .send()
            .await;
        match sent {
            // The body is not read: only the status matters, and the connection is not reused.
            Ok(response) => Ok(response.status()),
            Err(error) if error.is_timeout() => Err(Failure::TimedOut),
            Err(error) => Err(Failure::Unreachable(scrub(error, url))),
        }
    }
}

impl HttpNotifierBuilder {
    /// Resolves hosts with `resolver` instead of the system resolver.
    pub fn resolver(mut self, resolver: Arc<dyn Resolver>) -> HttpNotifierBuilder {
        self.resolver = resolver;
        self
    }

    /// Bounds each whole firing (DNS, connect, TLS, request, answer) by `timeout` instead of
    /// [`DEFAULT_TIMEOUT`].
    pub fn timeout(mut self, timeout: Duration) -> HttpNotifierBuilder {
        self.timeout = timeout;
        self
    }

    /// Also trusts the certificate authority `certificate` (DER or PEM bytes), on top of the
    /// platform's roots. Checked by [`build`](HttpNotifierBuilder::build).
    pub fn add_root_certificate(mut self, certificate: &[u8]) -> HttpNotifierBuilder {
        self.root_certificates.push(certificate.to_vec());
        self
    }

    /// FOR TESTS ONLY: additionally lets firings connect to loopback addresses (`127.0.0.0/8`
    /// and `::1`), and nothing else private, so a test can run its receiver on this machine.
    /// Never the default and never read from the environment; a production server must not
    /// call it.
    pub fn allow_loopback_targets_for_testing(mut self) -> HttpNotifierBuilder {
        self.policy = AddressPolicy::GlobalAndLoopback;
        self
    }

    /// Builds the notifier and its HTTP client.
    pub fn build(self) -> Result<HttpNotifier, NotifierBuildError> {
        let certificates = self
            .root_certificates
            .iter()
            .map(|bytes| {
                if bytes.trim_ascii_start().starts_with(b"-----BEGIN") {
                    reqwest::Certificate::from_pem(bytes)
                } else {
                    reqwest::Certificate::from_der(bytes)
                }
                .map_err(NotifierBuildError::InvalidRootCertificate)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let vetted = Arc::new(VettedAddresses::default());
        let mut client = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would resolve the host itself, out of reach of the vetting.
            .no_proxy()
            .https_only(true)
            // Each firing connects afresh to the addresses vetted for it.
            .pool_max_idle_per_host(0)
            .timeout(self.timeout)
            .dns_resolver(VettedResolver(Arc::clone(&vetted)));
        if !certificates.is_empty() {
            client = client.tls_certs_merge(certificates);
        }
        let client = client.build().map_err(NotifierBuildError::Client)?;
        Ok(HttpNotifier {
            client,
            resolver: self.resolver,
            vetted,
            policy: self.policy,
            timeout: self.timeout,
        })
    }
}

#[async_trait]
impl Notifier for HttpNotifier {
    fn timeout(&self) -> Duration {
        self.timeout
    }

    async fn notify(&self, url: &DeployHookUrl) -> HookOutcome {
        let span = tracing::info_span!("deploy_hook", host = url.host());
        async {
            let started = Instant::now();
            let attempt = tokio::time::timeout(self.timeout, self.attempt(url))
                .await
                .unwrap_or(Err(Failure::TimedOut));
            let outcome = outcome(attempt, url.host(), self.timeout, started.elapsed());
            // The firing logs its outcome once, with the project and trigger (info when it
            // succeeded, warning when it failed); here only the detail, for debugging.
            tracing::debug!(
                success = outcome.success,
                status = outcome.status_code,
                duration_ms = outcome.duration.as_millis(),
                message = %outcome.message,
                "deploy hook attempt finished"
            );
            outcome
        }
        .instrument(span)
        .await
    }
}

/// Why a firing got no HTTP answer.
enum Failure {
    /// The address rules (or DNS) refused the host; nothing was sent.
    Refused(HookUrlError),
    /// No connection or no answer; the detail is scrubbed of the URL.
    Unreachable(String),
    /// The time-out ran out.
    TimedOut,
}

fn outcome(
    attempt: Result<StatusCode, Failure>,
    host: &str,
    timeout: Duration,
    duration: Duration,
) -> HookOutcome {
    let (success, status_code, message) = match attempt {
        Ok(status) if status.is_success() => {
            (true, status.as_u16(), format!("{host} answered {status}"))
        }
        Ok(status) if status.is_redirection() => (
            false,
            status.as_u16(),
            format!(
                "redirect not followed: {host} answered {status}; save the URL it redirects to instead"
            ),
        ),
        Ok(status) => (
            false,
            status.as_u16(),
            format!("{host} answered {status}, not a success (2xx)"),
        ),
        Err(Failure::Refused(
            error @ (HookUrlError::DoesNotResolve { .. } | HookUrlError::LookupTimedOut { .. }),
        )) => (false, 0, format!("unreachable: {error}")),
        Err(Failure::Refused(error)) => {
            (false, 0, format!("refused by the address rules: {error}"))
        }
        Err(Failure::Unreachable(detail)) => (
            false,
            0,
            format!("unreachable: could not get an answer from {host}: {detail}"),
        ),
        Err(Failure::TimedOut) => (
            false,
            0,
            format!(
                "timed out: no answer from {host} within {} ms",
                timeout.as_millis()
            ),
        ),
    };
    HookOutcome {
        success,
        status_code,
        message,
        duration,
    }
}

/// The error and its causes as one line, without the URL (a credential). reqwest's own message
/// carries the URL, which `without_url` drops; the causes are checked too, to be sure.
fn scrub(error: reqwest::Error, url: &DeployHookUrl) -> String {
    let error = error.without_url();
    let mut parts = vec![error.to_string()];
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        parts.push(cause.to_string());
        source = cause.source();
    }
    parts
        .join(": ")
        .replace(url.expose_url(), url.host())
        .replace(url.parsed().as_str(), url.host())
}

/// The addresses vetted by the firings in flight, by host. The HTTP client's DNS resolver answers
/// only from here, so it connects only to vetted addresses.
#[derive(Debug, Default)]
struct VettedAddresses {
    next_id: AtomicU64,
    by_host: Mutex<HashMap<String, Vec<Admitted>>>,
}

/// One firing's vetted addresses, by admission id.
type Admitted = (u64, Vec<SocketAddr>);

fn host_key(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

impl VettedAddresses {
    /// Makes `addresses` the answer for `host` until the returned admission is dropped.
    fn admit(self: &Arc<Self>, host: &str, addresses: Vec<SocketAddr>) -> Admission {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let host = host_key(host);
        self.by_host
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(host.clone())
            .or_default()
            .push((id, addresses));
        Admission {
            table: Arc::clone(self),
            host,
            id,
        }
    }

    /// The addresses most recently vetted for `host` by a firing still in flight. Concurrent
    /// firings to one host may each use the other's addresses: all of them were vetted.
    fn lookup(&self, host: &str) -> Option<Vec<SocketAddr>> {
        self.by_host
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&host_key(host))
            .and_then(|entries| entries.last())
            .map(|(_, addresses)| addresses.clone())
    }
}

/// Keeps a firing's vetted addresses available to the HTTP client while it runs.
struct Admission {
    table: Arc<VettedAddresses>,
    host: String,
    id: u64,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut by_host = self
            .table
            .by_host
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(entries) = by_host.get_mut(&self.host) {
            entries.retain(|(id, _)| *id != self.id);
            if entries.is_empty() {
                by_host.remove(&self.host);
            }
        }
    }
}

/// The HTTP client's DNS resolver: answers only with vetted addresses, never asks DNS.
struct VettedResolver(Arc<VettedAddresses>);

impl Resolve for VettedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let found = self.0.lookup(name.as_str());
        Box::pin(async move {
            match found {
                Some(addresses) => Ok(Box::new(addresses.into_iter()) as Addrs),
                None => Err("no vetted addresses for this host".into()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vetted_addresses_answer_only_while_admitted() {
        let table = Arc::new(VettedAddresses::default());
        let a: SocketAddr = "75.2.60.5:443".parse().unwrap();
        let b: SocketAddr = "99.83.231.61:443".parse().unwrap();
        assert_eq!(table.lookup("hooks.example.com"), None);
        let first = table.admit("hooks.example.com", vec![a]);
        assert_eq!(table.lookup("HOOKS.example.com."), Some(vec![a]));
        let second = table.admit("hooks.example.com", vec![b]);
        assert_eq!(table.lookup("hooks.example.com"), Some(vec![b]));
        drop(second);
        assert_eq!(table.lookup("hooks.example.com"), Some(vec![a]));
        drop(first);
        assert_eq!(table.lookup("hooks.example.com"), None);
        assert!(table.by_host.lock().unwrap().is_empty());
    }

    #[test]
    fn outcome_messages_say_which_failure() {
        let d = Duration::from_millis(5);
        let t = DEFAULT_TIMEOUT;
        let h = "hooks.example.com";
        let ok = outcome(Ok(StatusCode::NO_CONTENT), h, t, d);
        assert!(ok.success);
        assert_eq!(ok.status_code, 204);
        let redirect = outcome(Ok(StatusCode::FOUND), h, t, d);
        assert!(!redirect.success && redirect.status_code == 302);
        assert!(redirect.message.contains("redirect not followed"));
        let timed_out = outcome(Err(Failure::TimedOut), h, t, d);
        assert_eq!(timed_out.status_code, 0);
        assert!(timed_out.message.starts_with("timed out"));
        let refused = outcome(
            Err(Failure::Refused(HookUrlError::ResolvesToNonGlobal {
                host: h.to_owned(),
                address: "10.0.0.7".parse().unwrap(),
            })),
            h,
            t,
            d,
        );
        assert!(refused.message.starts_with("refused by the address rules"));
        assert!(refused.message.contains("10.0.0.7"));
        assert_eq!(refused.duration, d);
    }

    #[test]
    fn user_agent_names_the_version() {
        assert_eq!(
            USER_AGENT,
            format!("blogread/{}", env!("CARGO_PKG_VERSION"))
        );
    }
}
