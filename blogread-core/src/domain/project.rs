//! Projects, what a public read needs of one, and its stored public key.

use serde::{Deserialize, Serialize};

use super::ids::ProjectId;
use super::keys::PublicKey;
use super::time::Timestamp;
use crate::domain::blog::absolute_http_url;
use crate::error::FieldError;

/// The longest project name, in characters.
pub const PROJECT_NAME_MAX: usize = 200;

/// A project's name: 1 to 200 characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ProjectName(String);

impl ProjectName {
    /// Validates a name.
    pub fn parse(name: impl Into<String>) -> Result<Self, FieldError> {
        let name = name.into();
        let len = name.chars().count();
        if len == 0 || len > PROJECT_NAME_MAX {
            return Err(FieldError::new(
                "name",
                format!("must be 1 to {PROJECT_NAME_MAX} characters (got {len})"),
            ));
        }
        Ok(Self(name))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ProjectName {
    type Error = FieldError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(value)
    }
}

impl From<ProjectName> for String {
    fn from(n: ProjectName) -> String {
        n.0
    }
}

/// The URL of the website connected to a project: an absolute http(s) URL, kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SiteUrl(String);

impl SiteUrl {
    /// Validates a site URL (absolute http or https, at most 2048 characters).
    pub fn parse(url: impl Into<String>) -> Result<Self, FieldError> {
        let url = url.into();
        if url.chars().count() > 2048 {
            return Err(FieldError::new(
                "site_url",
                "must be at most 2048 characters",
            ));
        }
        absolute_http_url("site_url", &url, "https://www.example.com")?;
        Ok(Self(url))
    }

    /// The URL as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for SiteUrl {
    type Error = FieldError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(value)
    }
}

impl From<SiteUrl> for String {
    fn from(u: SiteUrl) -> String {
        u.0
    }
}

/// A project, as stored and as the management API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Project {
    /// Id.
    pub id: ProjectId,
    /// Name.
    pub name: ProjectName,
    /// The connected website, used for internal links; null when none.
    pub site_url: Option<SiteUrl>,
    /// Creation time.
    pub created_at: Timestamp,
}

impl Project {
    /// A new project.
    pub fn new(name: ProjectName, site_url: Option<SiteUrl>, created_at: Timestamp) -> Self {
        Self {
            id: ProjectId::generate(),
            name,
            site_url,
            created_at,
        }
    }

    /// Rebuilds a project read back from storage.
    pub fn from_stored(
        id: ProjectId,
        name: ProjectName,
        site_url: Option<SiteUrl>,
        created_at: Timestamp,
    ) -> Self {
        Self {
            id,
            name,
            site_url,
            created_at,
        }
    }
}

/// What a public read needs to know about the project a public key belongs to, found with
/// one indexed look-up by key hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicProject {
    /// The project.
    pub id: ProjectId,
    /// Its site URL, for link resolution.
    pub site_url: Option<String>,
    /// A counter bumped in the same transaction as every write that changes what the public
    /// API returns for this project; the ETag is derived from it.
    pub content_version: u64,
    /// The earliest go-live time of the project's scheduled blogs, if any: once the clock
    /// reaches it, the read records the go-live before it answers (see
    /// [`crate::Service::go_live_due`]).
    pub next_go_live: Option<Timestamp>,
}

/// A stored public key (retrievable, so that Reveal can show it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPublicKey {
    /// The key.
    pub key: PublicKey,
    /// When it was generated.
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_url_must_be_absolute_http_and_is_kept_as_given() {
        assert!(SiteUrl::parse("example.com").is_err());
        assert!(SiteUrl::parse("mailto:a@b.c").is_err());
        let u = SiteUrl::parse("https://Example.com/blog-root/").unwrap();
        assert_eq!(u.as_str(), "https://Example.com/blog-root/");
    }

    #[test]
    fn a_bad_site_url_is_explained_with_a_site_address_as_the_example() {
        assert_eq!(
            SiteUrl::parse("example.com").unwrap_err().to_string(),
            "site_url: must be an absolute http or https URL such as https://www.example.com"
        );
    }

    #[test]
    fn project_name_is_1_to_200_characters() {
        assert!(ProjectName::parse("").is_err());
        assert!(ProjectName::parse("x".repeat(201)).is_err());
        assert!(ProjectName::parse("Acme blog").is_ok());
    }
}
