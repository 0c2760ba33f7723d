//! Identifiers: UUID v7 (time-ordered), rendered lower-case with hyphens.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A string that is not a UUID was given where an id was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} must be a UUID such as 0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f")]
pub struct IdError {
    /// What kind of id was expected ("project id", "blog id"...).
    pub what: &'static str,
}

macro_rules! uuid_id {
    ($(#[$meta:meta])* $name:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// A new, time-ordered (v7) id.
            pub fn generate() -> Self {
                Self(Uuid::now_v7())
            }

            /// Wraps an existing UUID (as read back from storage).
            pub fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            /// The id as a UUID.
            pub fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl FromStr for $name {
            type Err = IdError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self).map_err(|_| IdError { what: $what })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0.hyphenated(), f)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0.hyphenated())
            }
        }
    };
}

uuid_id!(
    /// The id of a project.
    ProjectId,
    "project id"
);
uuid_id!(
    /// The id of a blog post.
    BlogId,
    "blog id"
);
uuid_id!(
    /// The id of an agent key (the key itself is secret; its id is not).
    AgentKeyId,
    "agent key id"
);
uuid_id!(
    /// The id of a project admin token.
    AdminTokenId,
    "admin token id"
);
uuid_id!(
    /// The id of a stored credential of either kind (see
    /// [`StoredCredential`](super::StoredCredential)): an [`AgentKeyId`] or an
    /// [`AdminTokenId`] as a store keeps it.
    CredentialId,
    "credential id"
);
uuid_id!(
    /// The id of one deploy hook delivery in the delivery log.
    DeliveryId,
    "delivery id"
);
uuid_id!(
    /// The id of a stored image (a media item).
    MediaId,
    "media id"
);
uuid_id!(
    /// The id of a deploy hook firing recorded with the write that caused it, until it has
    /// been attempted.
    FiringId,
    "firing id"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_render_lowercase_with_hyphens() {
        let id: BlogId = "0192D1A4-7B1C-7CC3-9F7E-2B6A0C1D2E3F".parse().unwrap();
        assert_eq!(id.to_string(), "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f");
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "\"0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f\""
        );
    }

    #[test]
    fn generated_ids_are_version_7_and_time_ordered() {
        let a = ProjectId::generate();
        let b = ProjectId::generate();
        assert_eq!(a.as_uuid().get_version_num(), 7);
        assert!(a < b);
    }

    #[test]
    fn malformed_id_is_an_error_naming_the_id() {
        let err = "nope".parse::<ProjectId>().unwrap_err();
        assert_eq!(err.what, "project id");
    }
}
