//! Deploy hooks: the URL a project saves, the addresses it may reach, and the POST that asks its
//! hosting platform to rebuild.
//!
//! # Threat model
//!
//! A deploy hook URL is user input that makes the server open connections, so it is a
//! server-side request forgery risk, and it is a credential (whoever has it can start builds).
//! When the URL is saved, [`DeployHookUrl::parse`] refuses anything but a well-formed https URL
//! of at least 20 characters without whitespace whose host is neither a non-global IP literal
//! (in any encoding the WHATWG parser accepts, including IPv4-mapped, NAT64 and 6to4 forms) nor
//! a local name, and [`DeployHookUrl::vet`] refuses a host that does not resolve or resolves to
//! any non-global address ([`is_global`]). Before every firing, [`HttpNotifier`] vets again,
//! because DNS may have changed since the save, and its HTTP client then connects only to the
//! addresses vetted for that firing: a second look-up could be answered differently (DNS
//! rebinding) and reach an internal service. Redirects are not followed, for the same reason.
//! The URL is never logged, returned in an error or shown by `Debug`; only its host is.

mod address;
#[cfg(feature = "hooks")]
mod http;
mod notifier;
mod resolver;
mod url;

pub use address::{AddressPolicy, is_global};
#[cfg(feature = "hooks")]
pub use http::{HttpNotifier, HttpNotifierBuilder, NotifierBuildError};
pub use notifier::{DEFAULT_TIMEOUT, HookOutcome, Notifier, USER_AGENT};
pub use resolver::{Resolver, StaticResolver, SystemResolver};
pub use url::{DeployHookUrl, HookUrlError, LOOKUP_TIMEOUT, MIN_LENGTH};
