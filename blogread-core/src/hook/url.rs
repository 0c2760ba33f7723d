//! [`DeployHookUrl`]: a deploy hook URL that passed every save-time rule, and [`HookUrlError`],
//! which says which rule a refused URL broke.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use serde::Deserialize;
use url::{Host, Url};

use super::address::{AddressPolicy, is_global};
use super::resolver::Resolver;

/// The shortest deploy hook URL accepted, in characters
/// (`docs/deploy-hooks.md#what-is-refused-when-the-url-is-saved`).
pub const MIN_LENGTH: usize = 20;

/// Name suffixes reserved for local or internal networks: a host equal to one of these or ending
/// in `.` followed by one is refused.
const RESERVED_SUFFIXES: &[&str] = &[
    // RFC 6761 section 6.3.
    "localhost",
    // Multicast DNS, RFC 6762.
    "local",
    // Reserved for private use by ICANN (2024).
    "internal",
    // Common resolver default for the local machine and network.
    "localdomain",
    // Residential networks, RFC 8375.
    "home.arpa",
    // RFC 6761 section 6.4: guaranteed never to resolve.
    "invalid",
];

/// A deploy hook URL that passed every save-time rule of
/// `docs/deploy-hooks.md#what-is-refused-when-the-url-is-saved` (everything but
/// DNS, which [`DeployHookUrl::vet`] checks).
///
/// The URL is a credential: whoever has it can start builds. So this type has no `Display`, its
/// `Debug` shows only the scheme and host, and the whole URL is available only through
/// [`DeployHookUrl::expose_url`], to send it or to show it to a project admin.
#[derive(Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "String")]
pub struct DeployHookUrl {
    /// The URL exactly as it was given (and passed the rules), for storage and admin display.
    raw: String,
    /// The same URL as parsed by the WHATWG rules, which is what is judged and contacted.
    parsed: Url,
}

/// Why a deploy hook URL was refused. Each variant is one rule; its message tells the user what
/// to fix (`the deploy hook URL must use https (it uses http)`), and as a field error of a
/// request it names the field first (`deploy_hook_url: must use https (it uses http)`, see
/// [`HookUrlError::rule`]). Messages name the host at most, never the whole URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookUrlError {
    /// Shorter than [`MIN_LENGTH`] characters.
    TooShort {
        /// The length of the URL given, in characters.
        length: usize,
    },
    /// Contains a space, tab, line break or other whitespace, anywhere (nothing is trimmed).
    ContainsWhitespace,
    /// Not an absolute URL by the WHATWG URL standard.
    NotAUrl {
        /// What is wrong with it.
        reason: String,
    },
    /// The scheme is not `https`.
    NotHttps {
        /// The scheme given, lower-cased.
        scheme: String,
    },
    /// The host is an IP address that is not globally reachable.
    NonGlobalAddress {
        /// The address, after WHATWG normalisation (so `0x7f.1` is reported as `127.0.0.1`).
        address: IpAddr,
    },
    /// The host name is reserved for local or internal networks (`localhost`, `*.local`...).
    ReservedName {
        /// The host name.
        host: String,
        /// The reserved name it is or ends in, without a leading dot (`localhost`, `internal`...).
        suffix: &'static str,
    },
    /// The host name has a single label (`intranet`, `com.`), so it cannot be a public name.
    SingleLabelHost {
        /// The host name.
        host: String,
    },
    /// The host name does not resolve to any address.
    DoesNotResolve {
        /// The host name.
        host: String,
    },
    /// The DNS look-up of the host name did not finish within [`LOOKUP_TIMEOUT`].
    LookupTimedOut {
        /// The host name.
        host: String,
        /// The time-out, in seconds.
        seconds: u64,
    },
    /// The host name resolves to at least one address that is not globally reachable.
    ResolvesToNonGlobal {
        /// The host name.
        host: String,
        /// The first address found that is not allowed.
        address: IpAddr,
    },
}

impl HookUrlError {
    /// The rule the URL breaks, phrased to follow the field name (`must use https (it uses
    /// http)`, `host intranet.local is a local or internal name (.local); ...`).
    pub fn rule(&self) -> String {
        match self {
            HookUrlError::TooShort { length } => {
                format!("must be at least {MIN_LENGTH} characters long (this one has {length})")
            }
            HookUrlError::ContainsWhitespace => {
                "must not contain spaces, tabs or line breaks (check both ends of what you pasted)"
                    .to_owned()
            }
            HookUrlError::NotAUrl { reason } => format!("is not a valid absolute URL: {reason}"),
            HookUrlError::NotHttps { scheme } => format!("must use https (it uses {scheme})"),
            HookUrlError::NonGlobalAddress { address } => format!(
                "points at {address}, a private, internal or reserved address; use the public URL your hosting platform gave you"
            ),
            HookUrlError::ReservedName { host, suffix } => format!(
                "host {host} is a local or internal name (.{suffix}); use the public URL your hosting platform gave you"
            ),
            HookUrlError::SingleLabelHost { host } => format!(
                "host {host} is not a fully qualified public name; use the full host name your hosting platform gave you"
            ),
            HookUrlError::DoesNotResolve { host } => {
                format!("host {host} does not resolve to any address")
            }
            HookUrlError::LookupTimedOut { host, seconds } => format!(
                "host {host} did not resolve within {seconds} s (the DNS look-up timed out); check the name, or retry if DNS is slow"
            ),
            HookUrlError::ResolvesToNonGlobal { host, address } => format!(
                "host {host} resolves to {address}, a private, internal or reserved address"
            ),
        }
    }
}

impl fmt::Display for HookUrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rule = self.rule();
        match rule.strip_prefix("host ") {
            Some(rest) => write!(f, "the deploy hook URL's host {rest}"),
            None => write!(f, "the deploy hook URL {rule}"),
        }
    }
}

impl std::error::Error for HookUrlError {}

impl From<HookUrlError> for crate::error::FieldError {
    fn from(err: HookUrlError) -> Self {
        crate::error::FieldError::new("deploy_hook_url", err.rule())
    }
}

/// How long [`DeployHookUrl::vet`] waits for the DNS look-up of the host.
pub const LOOKUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

impl DeployHookUrl {
    /// Checks `input`, exactly as given (no trimming), against every save-time rule except DNS.
    ///
    /// Rules are checked in this order and the first broken one is reported: length, whitespace,
    /// URL syntax (control characters, WHATWG parse, empty host labels), scheme, then the host:
    /// an IP literal (after normalisation of decimal, hex, octal and short IPv4 forms and
    /// bracketed IPv6) must be globally reachable, a name must not be reserved for local use
    /// and must have more than one label. Userinfo (`https://a.com@10.0.0.1/`) plays no part:
    /// the real host is judged.
    pub fn parse(input: &str) -> Result<DeployHookUrl, HookUrlError> {
        let length = input.chars().count();
        if length < MIN_LENGTH {
            return Err(HookUrlError::TooShort { length });
        }
        if input.chars().any(char::is_whitespace) {
            return Err(HookUrlError::ContainsWhitespace);
        }
        // The URL parser silently strips leading and trailing control characters; judging the
        // string as sent means refusing them instead.
        if input.chars().any(char::is_control) {
            return Err(HookUrlError::NotAUrl {
                reason: "it contains control characters".to_owned(),
            });
        }
        let parsed = Url::parse(input).map_err(|e| HookUrlError::NotAUrl {
            reason: e.to_string(),
        })?;
        if parsed.scheme() != "https" {
            return Err(HookUrlError::NotHttps {
                scheme: parsed.scheme().to_owned(),
            });
        }
        match parsed.host() {
            None => {
                return Err(HookUrlError::NotAUrl {
                    reason: "it has no host".to_owned(),
                });
            }
            Some(Host::Ipv4(ip)) => check_literal(IpAddr::V4(ip))?,
            Some(Host::Ipv6(ip)) => check_literal(IpAddr::V6(ip))?,
            Some(Host::Domain(name)) => check_name(name)?,
        }
        Ok(DeployHookUrl {
            raw: input.to_owned(),
            parsed,
        })
    }

    /// The whole URL, exactly as it was given. It is a credential: send it, store it, show it to
    /// a project admin, never log it.
    pub fn expose_url(&self) -> &str {
        &self.raw
    }

    /// The host (a name, an IPv4 address, or a bracketed IPv6 address), safe to log.
    pub fn host(&self) -> &str {
        // `parse` refuses a URL without a host.
        self.parsed.host_str().unwrap_or_default()
    }

    /// The URL as parsed (normalised by the WHATWG rules): what a firing contacts.
    #[cfg(feature = "hooks")]
    pub(crate) fn parsed(&self) -> &Url {
        &self.parsed
    }

    /// The port to connect to: the one given, else 443.
    pub fn port(&self) -> u16 {
        self.parsed.port_or_known_default().unwrap_or(443)
    }

    /// Resolves the host and judges every address by `policy`. Returns the socket addresses that
    /// may be connected to (the port given, else 443), or the rule that refuses them.
    ///
    /// An IP-literal host is not looked up. A name that does not resolve, resolves to nothing,
    /// or resolves to ANY address the policy refuses is refused: one internal address among
    /// public ones is enough, since the connection could go to any of them.
    pub async fn vet(
        &self,
        resolver: &dyn Resolver,
        policy: AddressPolicy,
    ) -> Result<Vec<SocketAddr>, HookUrlError> {
        let port = self.port();
        let name = match self.parsed.host() {
            Some(Host::Ipv4(ip)) => return vet_literal(IpAddr::V4(ip), port, policy),
            Some(Host::Ipv6(ip)) => return vet_literal(IpAddr::V6(ip), port, policy),
            Some(Host::Domain(name)) => name,
            None => {
                return Err(HookUrlError::NotAUrl {
                    reason: "it has no host".to_owned(),
                });
            }
        };
        let does_not_resolve = || HookUrlError::DoesNotResolve {
            host: name.to_owned(),
        };
        let lookup = tokio::time::timeout(LOOKUP_TIMEOUT, resolver.lookup(name));
        let mut addresses = match lookup.await {
            Err(_elapsed) => {
                return Err(HookUrlError::LookupTimedOut {
                    host: name.to_owned(),
                    seconds: LOOKUP_TIMEOUT.as_secs(),
                });
            }
            Ok(Ok(addresses)) => addresses,
            Ok(Err(error)) => {
                tracing::debug!(host = name, %error, "deploy hook host does not resolve");
                return Err(does_not_resolve());
            }
        };
        let mut seen = std::collections::HashSet::new();
        addresses.retain(|ip| seen.insert(*ip));
        if addresses.is_empty() {
            return Err(does_not_resolve());
        }
        if let Some(&address) = addresses.iter().find(|ip| !policy.permits(**ip)) {
            return Err(HookUrlError::ResolvesToNonGlobal {
                host: name.to_owned(),
                address,
            });
        }
        Ok(addresses
            .into_iter()
            .map(|ip| SocketAddr::new(ip, port))
            .collect())
    }
}

fn check_literal(address: IpAddr) -> Result<(), HookUrlError> {
    if is_global(address) {
        Ok(())
    } else {
        Err(HookUrlError::NonGlobalAddress { address })
    }
}

fn vet_literal(
    address: IpAddr,
    port: u16,
    policy: AddressPolicy,
) -> Result<Vec<SocketAddr>, HookUrlError> {
    if policy.permits(address) {
        Ok(vec![SocketAddr::new(address, port)])
    } else {
        Err(HookUrlError::NonGlobalAddress { address })
    }
}

/// `name` is lower-case ASCII (the URL parser applies IDNA), possibly with trailing dots.
fn check_name(name: &str) -> Result<(), HookUrlError> {
    let bare = name.trim_end_matches('.');
    for suffix in RESERVED_SUFFIXES {
        let ends_with_suffix = bare
            .strip_suffix(suffix)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'));
        if ends_with_suffix {
            return Err(HookUrlError::ReservedName {
                host: name.to_owned(),
                suffix,
            });
        }
    }
    if bare.split('.').any(str::is_empty) && bare.contains('.') {
        return Err(HookUrlError::NotAUrl {
            reason: "its host name has an empty label".to_owned(),
        });
    }
    if !bare.contains('.') {
        return Err(HookUrlError::SingleLabelHost {
            host: name.to_owned(),
        });
    }
    Ok(())
}

impl fmt::Debug for DeployHookUrl {
    /// Scheme and host only: the path and query are the credential.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeployHookUrl")
            .field("scheme", &self.parsed.scheme())
            .field("host", &self.host())
            .finish_non_exhaustive()
    }
}

impl FromStr for DeployHookUrl {
    type Err = HookUrlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DeployHookUrl::parse(s)
    }
}

impl TryFrom<String> for DeployHookUrl {
    type Error = HookUrlError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        DeployHookUrl::parse(&value)
    }
}

impl TryFrom<&str> for DeployHookUrl {
    type Error = HookUrlError;

    fn try_from(value: &str) -> Result<Self, Self::Error> {
        DeployHookUrl::parse(value)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use async_trait::async_trait;

    use super::*;
    use crate::hook::resolver::StaticResolver;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn too_short(length: usize) -> HookUrlError {
        HookUrlError::TooShort { length }
    }
    fn not_a_url() -> HookUrlError {
        HookUrlError::NotAUrl {
            reason: String::new(),
        }
    }
    fn not_https(scheme: &str) -> HookUrlError {
        HookUrlError::NotHttps {
            scheme: scheme.to_owned(),
        }
    }
    fn non_global(address: &str) -> HookUrlError {
        HookUrlError::NonGlobalAddress {
            address: ip(address),
        }
    }
    fn reserved(host: &str, suffix: &'static str) -> HookUrlError {
        HookUrlError::ReservedName {
            host: host.to_owned(),
            suffix,
        }
    }
    fn single(host: &str) -> HookUrlError {
        HookUrlError::SingleLabelHost {
            host: host.to_owned(),
        }
    }
    use HookUrlError::ContainsWhitespace as WS;

    /// URLs refused at save time, each with the rule it must be refused by. For `NotAUrl` only
    /// the variant is compared (its reason comes from the URL parser).
    fn refused() -> Vec<(&'static str, HookUrlError)> {
        vec![
            // length
            ("", too_short(0)),
            ("https://a.io/", too_short(13)),
            ("https://x.co/h", too_short(14)),
            ("https://abcdefgh.io", too_short(19)),
            ("http://127.0.0.1/", too_short(17)),
            // whitespace, anywhere, nothing trimmed
            ("https://api.netlify.com/build_hooks/ abc", WS),
            ("https://api.netlify.com/build_hooks/\tabc", WS),
            ("https://api.netlify.com/build_hooks/abc\n", WS),
            ("https://api.netlify.com/build_hooks/abc\r", WS),
            (" https://api.netlify.com/build_hooks/abc", WS),
            ("https://api.netlify.com/build_hooks/abc ", WS),
            ("https://api.netlify.com /build_hooks/abc", WS),
            ("https://api.netlify.com/build_hooks/\u{a0}abc", WS),
            ("https://api.netlify.com/build_hooks/\u{2003}abc", WS),
            // not a URL
            ("api.netlify.com/build_hooks/abcdef", not_a_url()),
            ("https://[::1/build_hooks/abcdefgh", not_a_url()),
            ("https://1.2.3.4.5/build_hooks/abcd", not_a_url()),
            ("https://256.256.256.256/build_hooks", not_a_url()),
            ("https://:443/build_hooks/abcdefgh", not_a_url()),
            ("https://ex%00ample.com/hooks/abcde", not_a_url()),
            ("https://hooks.example.com/\u{0}abcdef", not_a_url()),
            ("\u{1}https://hooks.example.com/abcdef", not_a_url()),
            ("https://foo..example.com/hooks/abc", not_a_url()),
            ("https://[fe80::1%25eth0]/build_hooks", not_a_url()),
            // scheme
            ("http://api.netlify.com/build_hooks/abc", not_https("http")),
            ("HTTP://api.netlify.com/build_hooks/abc", not_https("http")),
            ("ftp://api.netlify.com/build_hooks/abc", not_https("ftp")),
            ("wss://api.netlify.com/build_hooks/abc", not_https("wss")),
            ("javascript:alert(1)//aaaaaaaaaaaa", not_https("javascript")),
            ("file:///etc/passwd/aaaaaaaaaaaa", not_https("file")),
            ("data:text/plain,aaaaaaaaaaaaaaaaaa", not_https("data")),
            ("http://10.0.0.7/build_hooks/abcdef", not_https("http")),
            // IP literals in every encoding the WHATWG parser accepts
            ("https://127.0.0.1/build_hooks/abc", non_global("127.0.0.1")),
            (
                "https://2130706433/build_hooks/abc",
                non_global("127.0.0.1"),
            ),
            ("https://0x7f.1/build_hooks/abcdef", non_global("127.0.0.1")),
            (
                "https://0177.0.0.1/build_hooks/abc",
                non_global("127.0.0.1"),
            ),
            ("https://127.1/build_hooks/abcdef", non_global("127.0.0.1")),
            (
                "https://0x7f000001/build_hooks/abc",
                non_global("127.0.0.1"),
            ),
            (
                "https://0x7F.0x0.0x0.0x1/build_hook",
                non_global("127.0.0.1"),
            ),
            (
                "https://017700000001/build_hooks/a",
                non_global("127.0.0.1"),
            ),
            (
                "https://127.0.0.1./build_hooks/abc",
                non_global("127.0.0.1"),
            ),
            (
                "https://%31%32%37.0.0.1/build_hooks/abc",
                non_global("127.0.0.1"),
            ),
            (
                "https://\u{ff11}\u{ff12}\u{ff17}.0.0.1/build_hooks",
                non_global("127.0.0.1"),
            ),
            (
                "https://127.0.0.1:8443/build_hooks/abc",
                non_global("127.0.0.1"),
            ),
            ("https://[::1]/build_hooks/abcdef", non_global("::1")),
            ("https://[0:0:0:0:0:0:0:1]/build_hooks", non_global("::1")),
            ("https://[::]/build_hooks/abcdefgh", non_global("::")),
            (
                "https://[::ffff:127.0.0.1]/build_hooks/abc",
                non_global("::ffff:127.0.0.1"),
            ),
            (
                "https://[::ffff:a00:7]/build_hooks/abc",
                non_global("::ffff:10.0.0.7"),
            ),
            (
                "https://[::7f00:1]/build_hooks/abcdef",
                non_global("::7f00:1"),
            ),
            (
                "https://[64:ff9b::a00:1]/build_hooks/abc",
                non_global("64:ff9b::a00:1"),
            ),
            (
                "https://[64:ff9b:1::808:808]/build_hooks",
                non_global("64:ff9b:1::808:808"),
            ),
            (
                "https://[2002:c0a8:0101::]/build_hooks/abc",
                non_global("2002:c0a8:101::"),
            ),
            (
                "https://10.0.0.7/build_hooks/abcdef",
                non_global("10.0.0.7"),
            ),
            (
                "https://10.255.255.255/build_hooks/abc",
                non_global("10.255.255.255"),
            ),
            (
                "https://172.16.5.4/build_hooks/abcdef",
                non_global("172.16.5.4"),
            ),
            (
                "https://172.31.255.255/build_hooks/abc",
                non_global("172.31.255.255"),
            ),
            (
                "https://192.168.1.1/build_hooks/abcdef",
                non_global("192.168.1.1"),
            ),
            (
                "https://100.64.0.1/build_hooks/abcdef",
                non_global("100.64.0.1"),
            ),
            (
                "https://169.254.169.254/latest/meta-data/",
                non_global("169.254.169.254"),
            ),
            (
                "https://0.0.0.0/build_hooks/abcdefgh",
                non_global("0.0.0.0"),
            ),
            ("https://0/build_hooks/abcdefghijklm", non_global("0.0.0.0")),
            (
                "https://0.1.2.3/build_hooks/abcdefgh",
                non_global("0.1.2.3"),
            ),
            (
                "https://192.0.0.8/build_hooks/abcdef",
                non_global("192.0.0.8"),
            ),
            (
                "https://192.0.0.170/build_hooks/abcd",
                non_global("192.0.0.170"),
            ),
            (
                "https://192.0.2.10/build_hooks/abcdef",
                non_global("192.0.2.10"),
            ),
            (
                "https://192.88.99.1/build_hooks/abcde",
                non_global("192.88.99.1"),
            ),
            (
                "https://198.18.0.1/build_hooks/abcdef",
                non_global("198.18.0.1"),
            ),
            (
                "https://198.19.255.1/build_hooks/abcde",
                non_global("198.19.255.1"),
            ),
            (
                "https://198.51.100.20/build_hooks/abcd",
                non_global("198.51.100.20"),
            ),
            (
                "https://203.0.113.5/build_hooks/abcdef",
                non_global("203.0.113.5"),
            ),
            (
                "https://240.0.0.1/build_hooks/abcdef",
                non_global("240.0.0.1"),
            ),
            (
                "https://255.255.255.255/build_hooks/a",
                non_global("255.255.255.255"),
            ),
            (
                "https://224.0.0.251/build_hooks/abcde",
                non_global("224.0.0.251"),
            ),
            (
                "https://239.255.255.250/build_hooks/a",
                non_global("239.255.255.250"),
            ),
            (
                "https://[fc00::1]/build_hooks/abcdef",
                non_global("fc00::1"),
            ),
            (
                "https://[fd12:3456::1]/build_hooks/abc",
                non_global("fd12:3456::1"),
            ),
            (
                "https://[fe80::1]/build_hooks/abcdef",
                non_global("fe80::1"),
            ),
            (
                "https://[2001:db8::1]/build_hooks/abc",
                non_global("2001:db8::1"),
            ),
            (
                "https://[ff02::1]/build_hooks/abcdef",
                non_global("ff02::1"),
            ),
            ("https://[100::1]/build_hooks/abcdefg", non_global("100::1")),
            (
                "https://[3fff::1]/build_hooks/abcdef",
                non_global("3fff::1"),
            ),
            (
                "https://[2001::1]/build_hooks/abcdef",
                non_global("2001::1"),
            ),
            (
                "https://[5f00::1]/build_hooks/abcdef",
                non_global("5f00::1"),
            ),
            // userinfo tricks: the real host is judged
            (
                "https://hooks.example.com@127.0.0.1/build_hooks/abc",
                non_global("127.0.0.1"),
            ),
            (
                "https://api.netlify.com:443@10.0.0.7/build_hooks",
                non_global("10.0.0.7"),
            ),
            (
                "https://user:pass@[::1]/build_hooks/abcdef",
                non_global("::1"),
            ),
            (
                "https://api.netlify.com@localhost/build_hooks",
                reserved("localhost", "localhost"),
            ),
            (
                "https://api.netlify.com%40@192.168.0.1/x/y/z",
                non_global("192.168.0.1"),
            ),
            // reserved names
            (
                "https://localhost/build_hooks/abcdef",
                reserved("localhost", "localhost"),
            ),
            (
                "https://localhost./build_hooks/abcdef",
                reserved("localhost.", "localhost"),
            ),
            (
                "https://LOCALHOST/build_hooks/abcdef",
                reserved("localhost", "localhost"),
            ),
            (
                "https://localhost:8443/build_hooks/abc",
                reserved("localhost", "localhost"),
            ),
            (
                "https://api.localhost/build_hooks/abc",
                reserved("api.localhost", "localhost"),
            ),
            (
                "https://printer.local/build_hooks/abc",
                reserved("printer.local", "local"),
            ),
            (
                "https://printer.local./build_hooks/ab",
                reserved("printer.local.", "local"),
            ),
            (
                "https://foo.internal/build_hooks/abc",
                reserved("foo.internal", "internal"),
            ),
            (
                "https://foo.internal./build_hooks/abc",
                reserved("foo.internal.", "internal"),
            ),
            (
                "https://foo.internal../build_hooks/ab",
                reserved("foo.internal..", "internal"),
            ),
            (
                "https://Foo.INTERNAL/build_hooks/abc",
                reserved("foo.internal", "internal"),
            ),
            (
                "https://metadata.google.internal/computeMetadata/v1/",
                reserved("metadata.google.internal", "internal"),
            ),
            (
                "https://router.localdomain/build_hooks",
                reserved("router.localdomain", "localdomain"),
            ),
            (
                "https://nas.home.arpa/build_hooks/abc",
                reserved("nas.home.arpa", "home.arpa"),
            ),
            (
                "https://home.arpa/build_hooks/abcdef",
                reserved("home.arpa", "home.arpa"),
            ),
            (
                "https://hooks.example.invalid/build",
                reserved("hooks.example.invalid", "invalid"),
            ),
            // single-label names
            ("https://intranet/build_hooks/abcdef", single("intranet")),
            ("https://com./build_hooks/abcdefgh", single("com.")),
            ("https://hooks/build_hooks/abcdefgh", single("hooks")),
            (
                "https://kubernetes:6443/build_hooks/abc",
                single("kubernetes"),
            ),
            (
                "https://notlocalhost/build_hooks/abc",
                single("notlocalhost"),
            ),
        ]
    }

    /// URLs that pass every save-time rule (no DNS involved).
    const ACCEPTED: &[&str] = &[
        "https://api.netlify.com/build_hooks/5f1c2d3e4b5a6978a1b2c3d4",
        "https://api.netlify.com/build_hooks/5f1c2d3e4b5a6978a1b2c3d4?trigger_title=blogread",
        "https://api.vercel.com/v1/integrations/deploy/prj_AbCdEf123456/xyzXYZ987",
        "https://api.cloudflare.com/client/v4/pages/webhooks/deploy_hooks/0a1b2c3d-4e5f-6789-abcd-ef0123456789",
        "https://api.render.com/deploy/srv-abc123def456?key=AbCdEfGhIjK",
        "https://hooks.example.com/build",
        "https://hooks.example.com./build",
        "https://abcdefghi.io",
        "https://8.8.8.8/build_hooks/abcdef",
        "https://1.1.1.1:8443/deploy/hook",
        "https://[2606:4700:4700::1111]/deploy/abc",
        "https://[::ffff:8.8.8.8]/deploy/hook/a",
        "https://[64:ff9b::808:808]/deploy/hook",
        "https://[2002:808:808::1]/deploy/hook",
        "https://192.0.0.9/deploy/hook/anycast",
        "https://user:token@ci.example.org/hook",
        "https://bücher.example.com/hook",
        "https://local.example.com/build",
        "https://api.mylocal.com/x/y/z",
        "https://x.notinternal/abc/abc",
        "https://my-localhost.com/deploy",
    ];

    #[test]
    fn refuses_every_save_time_rule() {
        let cases = refused();
        assert!(cases.len() >= 60, "only {} refusals", cases.len());
        for (input, expected) in cases {
            let got = DeployHookUrl::parse(input).expect_err(input);
            match (&got, &expected) {
                (HookUrlError::NotAUrl { .. }, HookUrlError::NotAUrl { .. }) => {}
                _ => assert_eq!(got, expected, "{input:?}"),
            }
        }
    }

    #[test]
    fn accepts_real_looking_hook_urls() {
        assert!(ACCEPTED.len() >= 15);
        for input in ACCEPTED {
            let url = DeployHookUrl::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(url.expose_url(), *input, "kept exactly as given");
        }
    }

    #[test]
    fn debug_shows_scheme_and_host_only() {
        let url =
            DeployHookUrl::parse("https://user:pw@api.netlify.com/build_hooks/s3cr3t?k=v").unwrap();
        let debug = format!("{url:?}");
        assert_eq!(
            debug,
            r#"DeployHookUrl { scheme: "https", host: "api.netlify.com", .. }"#
        );
        assert_eq!(url.host(), "api.netlify.com");
        assert_eq!(url.port(), 443);
    }

    #[test]
    fn error_messages_say_what_to_fix_and_never_contain_the_url() {
        let secret = "s3cr3t-t0ken";
        for input in [
            format!("http://api.netlify.com/build_hooks/{secret}"),
            format!("https://10.0.0.7/build_hooks/{secret}"),
            format!("https://foo.internal/build_hooks/{secret}"),
            format!("https://api.netlify.com/build_hooks/ {secret}"),
        ] {
            let message = DeployHookUrl::parse(&input).unwrap_err().to_string();
            assert!(message.starts_with("the deploy hook URL"), "{message}");
            assert!(!message.contains(secret), "{message}");
        }
        assert_eq!(
            DeployHookUrl::parse("http://api.netlify.com/build_hooks/x")
                .unwrap_err()
                .to_string(),
            "the deploy hook URL must use https (it uses http)"
        );
    }

    #[test]
    fn deserialises_through_the_same_check() {
        let ok: DeployHookUrl =
            serde_json::from_str(r#""https://api.netlify.com/build_hooks/abc""#).unwrap();
        assert_eq!(ok.host(), "api.netlify.com");
        let err = serde_json::from_str::<DeployHookUrl>(r#""https://10.0.0.7/build_hooks/abc""#)
            .unwrap_err();
        assert!(err.to_string().contains("10.0.0.7"));
    }

    const HOST: &str = "hooks.example.com";
    const URL: &str = "https://hooks.example.com/build_hooks/abc";

    #[tokio::test]
    async fn vet_passes_a_host_resolving_to_public_addresses() {
        let resolver = StaticResolver::new().with(HOST, [ip("75.2.60.5"), ip("2600:1f18::1")]);
        let url = DeployHookUrl::parse(URL).unwrap();
        let addrs = url.vet(&resolver, AddressPolicy::GlobalOnly).await.unwrap();
        assert_eq!(
            addrs,
            vec![
                "75.2.60.5:443".parse::<SocketAddr>().unwrap(),
                "[2600:1f18::1]:443".parse().unwrap()
            ]
        );
        let with_port = DeployHookUrl::parse("https://hooks.example.com:8443/build").unwrap();
        let addrs = with_port
            .vet(&resolver, AddressPolicy::GlobalOnly)
            .await
            .unwrap();
        assert_eq!(addrs[0], "75.2.60.5:8443".parse().unwrap());
    }

    /// Why [`URL`] is refused when [`HOST`] resolves to `addresses`.
    async fn refusal_resolving_to<const N: usize>(addresses: [IpAddr; N]) -> HookUrlError {
        let resolver = StaticResolver::new().with(HOST, addresses);
        DeployHookUrl::parse(URL)
            .unwrap()
            .vet(&resolver, AddressPolicy::GlobalOnly)
            .await
            .unwrap_err()
    }

    /// The refusal of [`HOST`] for resolving to 10.0.0.7.
    fn private_ten() -> HookUrlError {
        HookUrlError::ResolvesToNonGlobal {
            host: HOST.to_owned(),
            address: ip("10.0.0.7"),
        }
    }

    #[tokio::test]
    async fn vet_refuses_a_host_resolving_to_a_private_address() {
        let err = refusal_resolving_to([ip("10.0.0.7")]).await;
        assert_eq!(err, private_ten());
        assert!(err.to_string().contains("10.0.0.7"));
    }

    #[tokio::test]
    async fn vet_refuses_a_host_with_one_public_and_one_private_address() {
        let err = refusal_resolving_to([ip("75.2.60.5"), ip("10.0.0.7")]).await;
        assert_eq!(err, private_ten());
    }

    /// A DNS server that never answers.
    struct Silent;

    #[async_trait]
    impl Resolver for Silent {
        async fn lookup(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
            std::future::pending().await
        }
    }

    #[tokio::test(start_paused = true)]
    async fn vet_gives_up_on_a_silent_dns_after_5_s() {
        let url = DeployHookUrl::parse(URL).unwrap();
        let started = tokio::time::Instant::now();
        let err = url
            .vet(&Silent, AddressPolicy::GlobalOnly)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            HookUrlError::LookupTimedOut {
                host: HOST.to_owned(),
                seconds: 5
            }
        );
        assert_eq!(started.elapsed(), LOOKUP_TIMEOUT);
    }

    #[tokio::test(start_paused = true)]
    async fn saving_a_hook_whose_dns_never_answers_is_a_422_naming_the_time_out() {
        let f = crate::testing::Fixture::new(
            std::sync::Arc::new(crate::store::MemoryStore::new()),
            None,
        )
        .await;
        let service = f
            .service
            .clone()
            .with_hook_resolver(std::sync::Arc::new(Silent), AddressPolicy::GlobalOnly);
        let err = service
            .save_deploy_hook(&f.admin, f.project, URL.to_owned())
            .await
            .unwrap_err();
        let crate::Error::Invalid(field) = &err else {
            panic!("a 422, got {err:?}");
        };
        assert!(err.to_string().contains("timed out"), "{err}");
        assert!(
            format!("{field:?}").contains("deploy_hook_url"),
            "{field:?}"
        );
    }

    #[test]
    fn a_refused_url_names_the_field_once_then_the_rule() {
        let err = DeployHookUrl::parse("http://api.netlify.com/build_hooks/abc").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the deploy hook URL must use https (it uses http)"
        );
        assert_eq!(
            crate::error::FieldError::from(err).to_string(),
            "deploy_hook_url: must use https (it uses http)"
        );
        let err = HookUrlError::ReservedName {
            host: "build.local".into(),
            suffix: "local",
        };
        assert!(
            err.to_string()
                .starts_with("the deploy hook URL's host build.local is a local"),
            "{err}"
        );
        assert!(
            crate::error::FieldError::from(err)
                .to_string()
                .starts_with("deploy_hook_url: host build.local is a local"),
        );
    }

    #[tokio::test]
    async fn vet_refuses_a_host_that_does_not_resolve() {
        let url = DeployHookUrl::parse(URL).unwrap();
        let expected = HookUrlError::DoesNotResolve {
            host: HOST.to_owned(),
        };
        let nothing = StaticResolver::new();
        assert_eq!(
            url.vet(&nothing, AddressPolicy::GlobalOnly)
                .await
                .unwrap_err(),
            expected
        );
        let empty = StaticResolver::new().with(HOST, []);
        assert_eq!(
            url.vet(&empty, AddressPolicy::GlobalOnly)
                .await
                .unwrap_err(),
            expected
        );
    }

    #[tokio::test]
    async fn vet_allows_loopback_only_under_the_loopback_policy() {
        let url = DeployHookUrl::parse(URL).unwrap();
        let resolver = StaticResolver::new().with(HOST, [ip("127.0.0.1")]);
        assert!(matches!(
            url.vet(&resolver, AddressPolicy::GlobalOnly).await,
            Err(HookUrlError::ResolvesToNonGlobal { .. })
        ));
        assert_eq!(
            url.vet(&resolver, AddressPolicy::GlobalAndLoopback)
                .await
                .unwrap(),
            vec!["127.0.0.1:443".parse::<SocketAddr>().unwrap()]
        );
        resolver.insert(HOST, [ip("127.0.0.1"), ip("192.168.1.1")]);
        assert!(matches!(
            url.vet(&resolver, AddressPolicy::GlobalAndLoopback).await,
            Err(HookUrlError::ResolvesToNonGlobal { .. })
        ));
    }

    /// Counts look-ups, to show IP literals are never looked up.
    #[derive(Default)]
    struct Counting(AtomicUsize);

    #[async_trait]
    impl Resolver for Counting {
        async fn lookup(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(vec![ip("10.0.0.7")])
        }
    }

    #[tokio::test]
    async fn vet_does_not_look_up_an_ip_literal() {
        let resolver = Counting::default();
        let url = DeployHookUrl::parse("https://[2606:4700:4700::1111]/deploy/abc").unwrap();
        let addrs = url.vet(&resolver, AddressPolicy::GlobalOnly).await.unwrap();
        assert_eq!(
            addrs,
            vec!["[2606:4700:4700::1111]:443".parse::<SocketAddr>().unwrap()]
        );
        assert_eq!(resolver.0.load(Ordering::SeqCst), 0);
    }
}
