//! What an export records of the public key it used ([`KeyStamp`]).

/// What an export records of the public key it used, so that a later export with another
/// key knows the state folder may be another project's: the key's first 12 characters (what
/// the server's logs show of a key, enough for a person to tell keys apart) and a digest of
/// the whole key (to compare; a prefix alone could be shared). Neither gives the key away,
/// so a manifest holding them may be committed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(not(feature = "export"), allow(dead_code))]
pub(crate) struct KeyStamp {
    /// The key's first 12 characters (`pk_live_abcd`).
    pub(crate) prefix: String,
    /// The first 16 hex digits of SHA-256 over a label and the key.
    pub(crate) sha256: String,
}

impl KeyStamp {
    /// The stamp of `key`.
    pub(crate) fn of(key: &str) -> Self {
        use sha2::{Digest, Sha256};
        let prefix: String = key.chars().take(12).collect();
        let digest = Sha256::new()
            .chain_update(b"blogread export key\0")
            .chain_update(key.as_bytes())
            .finalize();
        Self {
            prefix,
            sha256: hex::encode(&digest[..8]),
        }
    }

    /// Whether both stamps are of the same key.
    #[cfg_attr(not(feature = "export"), allow(dead_code))]
    pub(crate) fn same_key(&self, other: &KeyStamp) -> bool {
        self.sha256 == other.sha256
    }
}

impl std::fmt::Display for KeyStamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}…", self.prefix)
    }
}
