//! Domain types. Each validates on construction and cannot hold an invalid value.

pub mod blog;
pub mod changes;
pub mod credential;
pub mod delivery;
pub mod ids;
pub mod keys;
pub mod media;
pub mod project;
pub mod public;
pub mod session;
pub mod slug;
pub mod time;

pub use blog::{
    Blog, BlogFields, BlogInput, BlogState, BlogStatus, ManagedBlog, PublishedSnapshot,
};
pub use changes::{ChangeCursor, ChangeEntry, ChangeFeed, ChangePosition, CursorError};
pub use credential::{CredentialKind, CredentialLabel, StoredCredential};
pub use delivery::{Delivery, DeployHookTestResult, DeployHookView, PendingFiring, Trigger};
pub use ids::{
    AdminTokenId, AgentKeyId, BlogId, CredentialId, DeliveryId, FiringId, IdError, MediaId,
    ProjectId,
};
pub use keys::{AdminToken, AgentKey, KeyError, OperatorToken, PublicKey, SecretHash, SessionId};
pub use media::{
    AltText, MAX_ALT_CHARS, MediaDeletion, MediaInsert, MediaItem, MediaPage, MediaRef, MediaUser,
    MediaVariant, Sha256Hex, StoredImageType,
};
pub use project::{Project, ProjectName, PublicProject, SiteUrl, StoredPublicKey};
pub use public::{
    BlogDetail, BlogList, BlogListItem, FeaturedImage, FeaturedImageVariant, PublishedBlog,
    Redirect, Redirects, Sitemap, SitemapEntry,
};
pub use session::{ADMIN_SESSION_LIFETIME, AdminSession, FormToken, SessionCredential};
pub use slug::{Slug, SlugError};
pub use time::{Timestamp, TimestampError};
