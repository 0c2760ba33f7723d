//! The DNS-resolver seam: how a deploy hook's host name becomes IP addresses.
//!
//! Save-time validation and every firing resolve the host through a [`Resolver`], judge every
//! address, and (when firing) connect only to the addresses judged. Tests and embedders inject a
//! [`StaticResolver`]; the server uses [`SystemResolver`].

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::sync::{PoisonError, RwLock};

use async_trait::async_trait;

/// Resolves a host name to IP addresses.
#[async_trait]
pub trait Resolver: Send + Sync {
    /// All addresses `host` resolves to. `host` is a domain name (never an IP literal), possibly
    /// with a trailing dot. An error or an empty list means it does not resolve.
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver (`getaddrinfo`, through [`tokio::net::lookup_host`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait]
impl Resolver for SystemResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        let addrs = tokio::net::lookup_host((host, 0)).await?;
        Ok(addrs.map(|a| a.ip()).collect())
    }
}

/// A fixed table of host names and their addresses, for tests and for embedding blogread where
/// DNS is not wanted. Names are matched case-insensitively, ignoring a trailing dot; a name not
/// in the table does not resolve. The table can be changed while in use (to simulate DNS
/// changing between save and firing).
#[derive(Debug, Default)]
pub struct StaticResolver {
    table: RwLock<HashMap<String, Vec<IpAddr>>>,
}

fn key(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

impl StaticResolver {
    /// An empty table: no name resolves.
    pub fn new() -> Self {
        Self::default()
    }

    /// This table with `host` resolving to `addrs` (builder form of [`StaticResolver::insert`]).
    pub fn with(self, host: &str, addrs: impl IntoIterator<Item = IpAddr>) -> Self {
        self.insert(host, addrs);
        self
    }

    /// Makes `host` resolve to `addrs`, replacing what it resolved to before.
    pub fn insert(&self, host: &str, addrs: impl IntoIterator<Item = IpAddr>) {
        let addrs = addrs.into_iter().collect();
        self.table
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key(host), addrs);
    }

    /// Makes `host` no longer resolve.
    pub fn remove(&self, host: &str) {
        self.table
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key(host));
    }
}

#[async_trait]
impl Resolver for StaticResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key(host))
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "name not in the static table"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn static_resolver_matches_names_loosely_and_can_change() {
        let r = StaticResolver::new().with("Hooks.Example.com", ["203.0.113.1".parse().unwrap()]);
        assert_eq!(
            r.lookup("hooks.example.com.").await.unwrap(),
            vec!["203.0.113.1".parse::<IpAddr>().unwrap()]
        );
        r.insert("hooks.example.com", ["10.0.0.7".parse().unwrap()]);
        assert_eq!(
            r.lookup("HOOKS.example.com").await.unwrap(),
            vec!["10.0.0.7".parse::<IpAddr>().unwrap()]
        );
        r.remove("hooks.example.com");
        assert!(r.lookup("hooks.example.com").await.is_err());
        assert!(r.lookup("other.example.com").await.is_err());
    }
}
