//! Test support (feature `test-util`): a fixture that sets up a project with credentials over
//! any [`Store`], and the store contract suite that every backend runs
//! ([`crate::store_contract_tests!`]); with feature `media`, the media files contract suite
//! ([`crate::media_files_contract_tests!`]), and with feature `test-s3` an S3 server to run it
//! (and anything else that needs a bucket) against.

mod changes_contract;
pub mod contract;
mod credentials_contract;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub mod databases;
mod fragments_contract;
mod links_contract;
#[cfg(all(feature = "media", unix))]
mod media_contract;
#[cfg(feature = "media")]
pub mod media_files_contract;
#[cfg(all(feature = "media", unix))]
mod media_usage_contract;
#[cfg(feature = "postgres")]
pub mod postgres_server;
mod random_writes;
pub mod receiver;
#[cfg(feature = "test-s3")]
pub mod s3_server;

pub use random_writes::Dice;

use std::sync::Arc;

use crate::auth::Caller;
use crate::clock::ManualClock;
use crate::domain::{BlogId, BlogInput, ManagedBlog, OperatorToken, ProjectId, Timestamp};
use crate::service::Service;
use crate::store::Store;

/// The operator token fixtures use.
pub const OPERATOR_TOKEN: &str = "operator-token-for-tests-0123456789abcdef";

/// A service over a store with a fixed clock, one project, its public key and an admin token.
pub struct Fixture {
    /// The service under test.
    pub service: Service,
    /// The clock, to move time.
    pub clock: Arc<ManualClock>,
    /// The project.
    pub project: ProjectId,
    /// Its public key.
    pub public_key: String,
    /// The project's admin, presenting its admin token.
    pub admin: Caller,
    /// That admin token itself (to sign in with).
    pub admin_token: String,
    /// The operator, presenting the operator token.
    pub operator: Caller,
}

impl Fixture {
    /// Sets up a project (with `site_url`) over `store`, clock at 2026-01-01T00:00:00Z.
    pub async fn new(store: Arc<dyn Store>, site_url: Option<&str>) -> Self {
        let clock = Arc::new(ManualClock::new(
            Timestamp::parse("2026-01-01T00:00:00Z").expect("valid"),
        ));
        let service = Service::new(store)
            .with_clock(clock.clone())
            .with_operator_token(OperatorToken::new(OPERATOR_TOKEN).expect("long enough"));
        let operator = Caller::token(OPERATOR_TOKEN);
        let project = service
            .create_project(
                &operator,
                "Test project".into(),
                site_url.map(str::to_owned),
            )
            .await
            .expect("create project")
            .id;
        Self::for_project(service, clock, project).await
    }

    /// A second project on the same service (for isolation tests).
    pub async fn another(&self, site_url: Option<&str>) -> Self {
        let project = self
            .service
            .create_project(
                &self.operator,
                "Other project".into(),
                site_url.map(str::to_owned),
            )
            .await
            .expect("create project")
            .id;
        Self::for_project(self.service.clone(), self.clock.clone(), project).await
    }

    async fn for_project(service: Service, clock: Arc<ManualClock>, project: ProjectId) -> Self {
        let operator = Caller::token(OPERATOR_TOKEN);
        let admin = service
            .create_admin_token(&operator, project)
            .await
            .expect("admin token")
            .token;
        let admin_token = admin.clone();
        let admin = Caller::admin(admin);
        let public_key = service
            .generate_public_key(&admin, project)
            .await
            .expect("public key")
            .key;
        Self {
            service,
            clock,
            project,
            public_key,
            admin,
            admin_token,
            operator,
        }
    }

    /// A public reader presenting the project's public key.
    pub fn key(&self) -> Caller {
        Caller::public(&self.public_key)
    }

    /// Creates a draft.
    pub async fn draft(&self, slug: &str, title: &str, content: &str) -> ManagedBlog {
        self.draft_with(BlogInput {
            title: Some(title.into()),
            slug: Some(slug.into()),
            content: Some(content.into()),
            ..Default::default()
        })
        .await
    }

    /// Creates a draft from full input.
    pub async fn draft_with(&self, input: BlogInput) -> ManagedBlog {
        self.service
            .create_blog(&self.admin, self.project, input)
            .await
            .expect("create blog")
    }

    /// Publishes a blog (by id string), optionally at a given time.
    pub async fn publish(&self, blog: &ManagedBlog, at: Option<&str>) -> ManagedBlog {
        self.service
            .publish_blog(
                &self.admin,
                self.project,
                blog_id(blog),
                at.map(|t| Timestamp::parse(t).expect("valid time")),
            )
            .await
            .expect("publish")
            .blog
    }

    /// Creates and publishes, advancing the clock one second first so that each blog has its
    /// own `published_at`.
    pub async fn published(&self, slug: &str, title: &str, content: &str) -> ManagedBlog {
        self.clock.advance(1);
        let b = self.draft(slug, title, content).await;
        self.publish(&b, None).await
    }

    /// Tries to create an empty draft titled `title` at `slug`: the draft, or the error that
    /// refuses it (a conflict when the slug is taken).
    pub async fn try_draft(&self, slug: &str, title: &str) -> crate::error::Result<ManagedBlog> {
        self.service
            .create_blog(
                &self.admin,
                self.project,
                BlogInput {
                    title: Some(title.into()),
                    slug: Some(slug.into()),
                    ..Default::default()
                },
            )
            .await
    }

    /// Renames a blog's working copy to `slug`; a published blog's public slug stays until
    /// it is published again.
    pub async fn rename(&self, blog: &ManagedBlog, slug: &str) {
        self.service
            .edit_blog(
                &self.admin,
                self.project,
                blog_id(blog),
                BlogInput {
                    slug: Some(slug.into()),
                    ..Default::default()
                },
            )
            .await
            .expect("rename");
    }
}

/// The id of a managed blog.
pub fn blog_id(blog: &ManagedBlog) -> BlogId {
    blog.id
}
