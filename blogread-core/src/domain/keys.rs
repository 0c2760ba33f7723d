//! Credentials: the public key (`pk_live_`), agent keys (`sk_agent_`), project admin tokens
//! (`sk_admin_`) and the operator token.
//!
//! Every generated secret is its prefix followed by 32 bytes from the operating system's
//! cryptographically secure generator, as unpadded URL-safe base64 (43 characters). Secrets
//! redact themselves in `Debug` and have no `Display`: reading one takes an explicit
//! `expose_secret()`.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::TryRngCore as _;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq as _;

/// Length of the random part of a generated secret: 32 bytes as unpadded base64.
const RANDOM_LEN: usize = 43;

/// Why a string is not a credential of the expected kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The string does not start with the kind's prefix.
    #[error("a {kind} starts with `{prefix}`")]
    WrongPrefix {
        /// The kind of credential expected.
        kind: &'static str,
        /// Its prefix.
        prefix: &'static str,
    },
    /// The prefix is right but the rest is not 43 characters of URL-safe base64.
    #[error("this is not a well-formed {kind}")]
    Malformed {
        /// The kind of credential expected.
        kind: &'static str,
    },
    /// The operator token is shorter than 32 characters.
    #[error("the operator token must be at least 32 characters (got {len})")]
    OperatorTokenTooShort {
        /// The length given.
        len: usize,
    },
}

/// The SHA-256 digest of a secret, by which credentials are stored and looked up.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SecretHash([u8; 32]);

impl SecretHash {
    /// Hashes a secret.
    pub fn of(secret: &str) -> Self {
        Self(Sha256::digest(secret.as_bytes()).into())
    }

    /// The digest bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The digest as 64 lower-case hex digits (how the SQL stores keep it).
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Reads back 64 hex digits.
    pub fn from_hex(digits: &str) -> Option<Self> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(digits, &mut out).ok()?;
        Some(Self(out))
    }
}

impl fmt::Debug for SecretHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretHash({}…)", &self.to_hex()[..8])
    }
}

fn random_part() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .expect("the operating system's random number generator is available");
    URL_SAFE_NO_PAD.encode(bytes)
}

fn check_form(s: &str, prefix: &'static str, kind: &'static str) -> Result<(), KeyError> {
    let Some(rest) = s.strip_prefix(prefix) else {
        return Err(KeyError::WrongPrefix { kind, prefix });
    };
    let well_formed = rest.len() == RANDOM_LEN
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if well_formed {
        Ok(())
    } else {
        Err(KeyError::Malformed { kind })
    }
}

macro_rules! secret_key {
    ($(#[$meta:meta])* $name:ident, $prefix:literal, $kind:literal) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq)]
        pub struct $name(String);

        impl $name {
            /// The prefix every value of this kind starts with.
            pub const PREFIX: &'static str = $prefix;
            /// What this kind of credential is called in messages.
            pub const KIND: &'static str = $kind;

            /// A new random value from a cryptographically secure generator.
            pub fn generate() -> Self {
                Self(format!("{}{}", $prefix, random_part()))
            }

            /// Checks the form of a value received from a user (prefix and length).
            pub fn parse(s: &str) -> Result<Self, KeyError> {
                check_form(s, $prefix, $kind)?;
                Ok(Self(s.to_owned()))
            }

            /// The secret itself. Call only where the secret must be shown or sent.
            pub fn expose_secret(&self) -> &str {
                &self.0
            }

            /// The SHA-256 by which it is stored and looked up.
            pub fn hash(&self) -> SecretHash {
                SecretHash::of(&self.0)
            }

            /// The first 12 characters, safe to log or show in lists.
            pub fn display_prefix(&self) -> &str {
                &self.0[..12]
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({}…)", stringify!($name), self.display_prefix())
            }
        }
    };
}

secret_key!(
    /// A project's public API key: read-only access to its published blogs. Stored retrievably
    /// (Reveal: `docs/management-api.md#public-key`) and found by its hash.
    PublicKey,
    "pk_live_",
    "public key"
);
secret_key!(
    /// An agent key: content writes (blogs) of one project. Stored as SHA-256 only, shown once.
    AgentKey,
    "sk_agent_",
    "agent key"
);
secret_key!(
    /// A project admin token: everything under one project. Stored as SHA-256 only, shown once.
    AdminToken,
    "sk_admin_",
    "project admin token"
);
secret_key!(
    /// The id of an admin page session, kept in the browser's cookie. Stored as SHA-256 only.
    SessionId,
    "ss_admin_",
    "admin session"
);

/// The operator token: any string of at least 32 characters, configured at start-up and never
/// stored. It may do everything, including creating projects.
#[derive(Clone)]
pub struct OperatorToken(String);

impl OperatorToken {
    /// The shortest operator token accepted.
    pub const MIN_LEN: usize = 32;

    /// Accepts a configured operator token.
    pub fn new(token: impl Into<String>) -> Result<Self, KeyError> {
        let token = token.into();
        let len = token.chars().count();
        if len < Self::MIN_LEN {
            return Err(KeyError::OperatorTokenTooShort { len });
        }
        Ok(Self(token))
    }

    /// Compares a presented token with this one in constant time.
    pub fn matches(&self, presented: &str) -> bool {
        // Compare digests so that the comparison does not reveal the length either.
        SecretHash::of(presented)
            .as_bytes()
            .ct_eq(SecretHash::of(&self.0).as_bytes())
            .into()
    }

    /// The token itself, for the one place that prints it (`demo`).
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for OperatorToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OperatorToken(…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_key_starts_with_pk_live_and_has_32_random_bytes() {
        let key = PublicKey::generate();
        assert!(key.expose_secret().starts_with("pk_live_"));
        assert_eq!(key.expose_secret().len(), 8 + 43);
        assert_ne!(key, PublicKey::generate());
        assert!(PublicKey::parse(key.expose_secret()).is_ok());
    }

    #[test]
    fn agent_key_and_admin_token_have_their_prefixes() {
        assert!(
            AgentKey::generate()
                .expose_secret()
                .starts_with("sk_agent_")
        );
        assert!(
            AdminToken::generate()
                .expose_secret()
                .starts_with("sk_admin_")
        );
    }

    #[test]
    fn public_key_is_never_an_agent_key_nor_the_reverse() {
        let agent = AgentKey::generate();
        assert!(matches!(
            PublicKey::parse(agent.expose_secret()),
            Err(KeyError::WrongPrefix { .. })
        ));
        let public = PublicKey::generate();
        assert!(AgentKey::parse(public.expose_secret()).is_err());
    }

    #[test]
    fn malformed_key_with_right_prefix_is_rejected() {
        assert_eq!(
            PublicKey::parse("pk_live_short"),
            Err(KeyError::Malformed { kind: "public key" })
        );
    }

    #[test]
    fn secrets_redact_themselves_in_debug() {
        let key = AgentKey::generate();
        let shown = format!("{key:?}");
        assert!(!shown.contains(key.expose_secret()));
        assert!(shown.contains(&key.expose_secret()[..12]));
        let op = OperatorToken::new("x".repeat(40)).unwrap();
        assert!(!format!("{op:?}").contains("xxxx"));
    }

    #[test]
    fn operator_token_needs_32_characters_and_compares_exactly() {
        assert!(OperatorToken::new("short").is_err());
        let op = OperatorToken::new("a".repeat(32)).unwrap();
        assert!(op.matches(&"a".repeat(32)));
        assert!(!op.matches(&"a".repeat(33)));
    }

    #[test]
    fn secret_hash_round_trips_through_hex() {
        let h = SecretHash::of("pk_live_x");
        assert_eq!(SecretHash::from_hex(&h.to_hex()), Some(h));
        assert_eq!(h.to_hex().len(), 64);
        assert_eq!(h.to_hex(), h.to_hex().to_lowercase());
    }

    #[test]
    fn secret_hash_from_hex_takes_exactly_64_hex_digits() {
        let hex = SecretHash::of("pk_live_x").to_hex();
        assert_eq!(SecretHash::from_hex(&hex[..62]), None);
        assert_eq!(SecretHash::from_hex(&format!("{hex}00")), None);
        // `u8::from_str_radix` would take "+f" as 15; a digest is digits only.
        let signed = format!("+f{}", &hex[2..]);
        assert_eq!(SecretHash::from_hex(&signed), None);
        assert_eq!(SecretHash::from_hex(&"zz".repeat(32)), None);
    }
}
