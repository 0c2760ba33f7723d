//! The storage seam by topic: one trait a topic, each implemented by a backend's room of that
//! topic, and [`Store`](super::Store), the store whole, which is every one of them.
//!
//! Every method is one atomic operation. Backends map a missing row to the `Ok(None)` /
//! `NotFound` the method documents and a uniqueness violation to [`crate::Error::Conflict`].

use std::collections::HashMap;

use async_trait::async_trait;

use super::link_sources::{BodyKey, BodyPlaceholders, LinkTargetSources};
use super::{
    BlogUpdate, ChangeQuery, ChangeRead, KeyWrite, ManagedPage, PageKeys, PageQuery, PostKey,
    ProjectChange, ProjectPage, PublishedPage,
};
use crate::domain::{
    AdminSession, AltText, Blog, BlogId, BlogStatus, CredentialId, CredentialKind, Delivery,
    MediaDeletion, MediaId, MediaInsert, MediaItem, MediaPage, MediaUser, PendingFiring, Project,
    ProjectId, PublicProject, PublishedBlog, Redirect, SecretHash, Sha256Hex, SitemapEntry,
    StoredCredential, StoredPublicKey, Timestamp, Trigger,
};
use crate::error::Result;

/// The database as a whole: whether it answers, closing it, and the value that tells it from
/// every other database.
#[async_trait]
pub trait DatabaseStore: Send + Sync {
    /// Checks that the backend answers.
    async fn ping(&self) -> Result<()>;

    /// Closes the store's connections (SQLite: the last one checkpoints the WAL into the
    /// database file). Nothing may use the store afterwards. The default does nothing.
    async fn close(&self) {}

    /// A random value fixed when the database was created, mixed into every ETag so that a
    /// new database can never answer 304 to a tag an older one issued.
    async fn etag_epoch(&self) -> Result<String>;
}

/// Projects and their settings.
#[async_trait]
pub trait ProjectStore: Send + Sync {
    /// Inserts a new project.
    async fn insert_project(&self, project: &Project) -> Result<()>;
    /// A project by id.
    async fn project(&self, id: ProjectId) -> Result<Option<Project>>;
    /// Every project, oldest first.
    async fn projects(&self) -> Result<Vec<Project>>;
    /// One page of every project, oldest first (by creation time, then id), and how many
    /// projects there are.
    async fn project_page(&self, limit: u32, offset: u64) -> Result<ProjectPage>;
    /// Changes the fields `change` names, and only those, in one atomic step (two concurrent
    /// changes of different fields both apply); returns the project as changed (`NotFound`
    /// when absent). A site URL change bumps the content version, since it changes every
    /// resolved link.
    async fn update_project(&self, id: ProjectId, change: &ProjectChange) -> Result<Project>;
}

/// The credentials of a project: its public key, found by hash before every public read, and
/// its agent keys and admin tokens (one record type of a [`CredentialKind`]), kept by hash
/// only.
#[async_trait]
pub trait CredentialStore: Send + Sync {
    /// The project's public key, if any.
    async fn public_key(&self, project: ProjectId) -> Result<Option<StoredPublicKey>>;
    /// Generates or rotates the public key (see [`KeyWrite`]).
    async fn put_public_key(
        &self,
        project: ProjectId,
        key: &StoredPublicKey,
        mode: KeyWrite,
    ) -> Result<()>;
    /// Revokes the public key; true when there was one.
    async fn delete_public_key(&self, project: ProjectId) -> Result<bool>;
    /// The project a public key belongs to, by the key's hash: one indexed look-up that also
    /// returns what a read needs (site URL, content version). It runs before every public
    /// read, so it is the hot path of a backend; and it must see every change committed
    /// before it was called, by any process (a rotated or revoked key fails on the very next
    /// request), so its answer is never kept across calls. The SQLite backend answers it on
    /// the calling thread, the PostgreSQL backend batches the calls that arrive together.
    async fn project_by_public_key(&self, hash: &SecretHash) -> Result<Option<PublicProject>>;
    /// Stores a new agent key or admin token (`Conflict` when one of its kind has its id or
    /// hash; `NotFound` when its project is absent).
    async fn insert_credential(&self, record: &StoredCredential) -> Result<()>;
    /// The project's credentials of `kind`, oldest first.
    async fn credentials(
        &self,
        kind: CredentialKind,
        project: ProjectId,
    ) -> Result<Vec<StoredCredential>>;
    /// Deletes credential `id` of `kind`; true when it existed in that project. Deleting an
    /// admin token deletes the admin sessions signed in with it in the same step.
    async fn delete_credential(
        &self,
        kind: CredentialKind,
        project: ProjectId,
        id: CredentialId,
    ) -> Result<bool>;
    /// The credential of `kind` with this hash.
    async fn credential_by_hash(
        &self,
        kind: CredentialKind,
        hash: &SecretHash,
    ) -> Result<Option<StoredCredential>>;
}

/// The admin pages' sessions, each signed in with the operator token or an admin token.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Stores a new admin session and, in the same step, forgets every session that expired
    /// at or before the new one's creation time. A session signed in with an admin token
    /// ends when that token is deleted ([`CredentialStore::delete_credential`] deletes its
    /// sessions).
    async fn insert_admin_session(&self, session: &AdminSession) -> Result<()>;
    /// A session by the hash of its id, expired or not (the caller compares the expiry).
    async fn admin_session(&self, hash: &SecretHash) -> Result<Option<AdminSession>>;
    /// Deletes a session; true when it existed.
    async fn delete_admin_session(&self, hash: &SecretHash) -> Result<bool>;
}

/// A project's posts as the management API writes and reads them: each write one
/// transaction applying a change the lifecycle rules computed, and the go-live of scheduled
/// posts.
#[async_trait]
pub trait PostStore: Send + Sync {
    /// Inserts a new blog (`Conflict` when its slug is taken in the project).
    async fn insert_blog(&self, blog: &Blog) -> Result<()>;
    /// A blog by id within a project.
    async fn blog(&self, project: ProjectId, id: BlogId) -> Result<Option<Blog>>;
    /// One page of the project's management list, optionally of one status, newest created
    /// first.
    async fn blogs(
        &self,
        project: ProjectId,
        status: Option<BlogStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<ManagedPage>;
    /// Applies `change` to the blog in one transaction and returns the blog as written and
    /// the event. Slug history is kept in the same transaction: when a published blog's
    /// published slug changes, the old one becomes an alias of the blog (created now); an
    /// alias is freed when any blog publishes that slug, and when its blog is deleted.
    /// `NotFound` when absent; `Conflict` when the new slug is taken. When the change reports
    /// an event, the project's content version is bumped in the same transaction.
    async fn update_blog(
        &self,
        project: ProjectId,
        id: BlogId,
        update: BlogUpdate,
    ) -> Result<(Blog, Option<Trigger>)>;
    /// The projects that have scheduled blogs whose go-live time is at or before `now`: the
    /// go-lives not recorded yet.
    async fn projects_due(&self, now: Timestamp) -> Result<Vec<ProjectId>>;
    /// Records the go-live of every scheduled blog of `project` whose time has come at `now`
    /// (see [`crate::lifecycle::go_live`]), all in one transaction, set-based (one statement
    /// publishes them all): each becomes published, frees the aliases its slug names, gets its
    /// category rows, and records one `published` firing when the project has a deploy hook;
    /// the content version is bumped once. Returns how many went live: 0 when none was due,
    /// or when another writer (another instance) recorded them first: a go-live is recorded
    /// once.
    async fn go_live(&self, project: ProjectId, now: Timestamp) -> Result<u64>;
    /// The earliest go-live time of every project's scheduled blogs, if any: when the
    /// scheduler wakes next.
    async fn next_go_live(&self) -> Result<Option<Timestamp>>;
    /// Deletes a blog and returns it as it was (`NotFound` when absent). Deleting a published
    /// blog bumps the content version in the same transaction and records its firing at
    /// `at`.
    async fn delete_blog(&self, project: ProjectId, id: BlogId, at: Timestamp) -> Result<Blog>;
}

/// The public reads of published posts: each read the public API needs is one call that a
/// SQL backend answers with one query.
#[async_trait]
pub trait PublicStore: Send + Sync {
    /// One page of published blogs and the total after the filter.
    async fn published_page(&self, project: ProjectId, query: &PageQuery) -> Result<PublishedPage>;
    /// The keys of one page of published blogs (the page [`PublicStore::published_page`] reads for
    /// the same query, whose `include_content` it ignores) and the total, without reading a
    /// body.
    async fn published_page_keys(&self, project: ProjectId, query: &PageQuery) -> Result<PageKeys>;
    /// The key of the published blog with this published slug, without reading its body.
    async fn published_key_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PostKey>>;
    /// Those of `ids` that are published blogs of the project, in no particular order, each
    /// with the key read in the same statement, with their bodies when `include_content`
    /// (as [`PublicStore::published_page`] reads them).
    async fn published_by_ids(
        &self,
        project: ProjectId,
        ids: &[BlogId],
        include_content: bool,
    ) -> Result<Vec<(PostKey, PublishedBlog)>>;
    /// The published blog with this published slug, with its content.
    async fn published_by_slug(
        &self,
        project: ProjectId,
        slug: &str,
    ) -> Result<Option<PublishedBlog>>;
    /// The aliases of the project's published blogs (old published slugs, see
    /// [`PostStore::update_blog`]), newest rename first (then by alias), at most `cap`.
    async fn redirects(&self, project: ProjectId, cap: u32) -> Result<Vec<Redirect>>;
    /// For those of `slugs` that are aliases of a published blog of the project: the alias ->
    /// (the blog's current published slug, its published title). Link resolution asks it for
    /// the placeholders [`PublicStore::published_titles`] did not answer.
    async fn published_aliases(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, (String, String)>>;
    /// The newest `cap` published blogs' sitemap entries.
    async fn sitemap(&self, project: ProjectId, cap: u32) -> Result<Vec<SitemapEntry>>;
    /// Published title by published slug, for those of `slugs` that name a published blog of
    /// the project: the one look-up link resolution makes per request.
    async fn published_titles(
        &self,
        project: ProjectId,
        slugs: &[String],
    ) -> Result<HashMap<String, String>>;
}

/// The changes feed (`docs/public-api.md#changes-feed`) and its retention.
#[async_trait]
pub trait ChangeStore: Send + Sync {
    /// One page of the project's changes feed (`docs/public-api.md#changes-feed`): the
    /// published posts whose change number puts them after `query.after` (each in its state
    /// now) and the slugs lost by later changes, in change order, up to the project's last
    /// change when the read began. Every write that changes public answers takes the next
    /// number of its project's sequence in its own transaction and stamps it on every
    /// published post whose answer or aliases it changed: the post written, and every
    /// published post whose body names a slug whose resolution it changed (found through
    /// the slugs the post's link template references); a public slug it takes from the
    /// published posts is kept as a deletion with the number.
    async fn changes(&self, project: ProjectId, query: &ChangeQuery) -> Result<ChangeRead>;
    /// Forgets the deletions recorded before `before` (the feed's retention), raising each
    /// project's floor to the highest change number forgotten. Returns how many.
    async fn prune_changes(&self, before: Timestamp) -> Result<u64>;
}

/// The deploy hook, its delivery log, and the firings recorded with the writes that cause
/// them: [`PostStore::update_blog`] and [`PostStore::delete_blog`] record a [`PendingFiring`]
/// in their own transaction when the write causes a visible-content event and the project
/// has a deploy hook.
#[async_trait]
pub trait FiringStore: Send + Sync {
    /// The saved deploy hook URL, if any.
    async fn deploy_hook(&self, project: ProjectId) -> Result<Option<String>>;
    /// Saves, replaces (`Some`) or clears (`None`) the deploy hook URL.
    async fn set_deploy_hook(&self, project: ProjectId, url: Option<&str>) -> Result<()>;
    /// Appends to the delivery log, keeping the newest
    /// [`crate::domain::delivery::DELIVERY_LOG_LEN`].
    async fn record_delivery(&self, project: ProjectId, delivery: &Delivery) -> Result<()>;
    /// The delivery log, newest first.
    async fn deliveries(&self, project: ProjectId) -> Result<Vec<Delivery>>;

    /// Claims the recorded firings not yet attempted, of `project` or of every project,
    /// marking them claimed at `now` in the same step: each firing is claimed once, whoever
    /// asks at the same moment.
    async fn claim_firings(
        &self,
        project: Option<ProjectId>,
        now: Timestamp,
    ) -> Result<Vec<PendingFiring>>;
    /// Firings claimed before `claimed_before` and never completed: their process died while
    /// attempting them.
    async fn stale_firings(&self, claimed_before: Timestamp) -> Result<Vec<PendingFiring>>;
    /// Forgets a firing and, if it was still recorded, appends `delivery` to the log, in one
    /// transaction (so a delivery is recorded once even when two processes complete it).
    /// Returns whether the firing was still recorded.
    async fn complete_firing(
        &self,
        firing: &PendingFiring,
        delivery: Option<&Delivery>,
    ) -> Result<bool>;
}

/// What the links report and a post's links and backlinks read: the link targets, and the
/// placeholders of the stored bodies.
#[async_trait]
pub trait LinkStore: Send + Sync {
    /// Every post of `project` as a link target, and every alias (old public slug) with its
    /// post: what the project-wide links report judges placeholders against.
    async fn link_targets(&self, project: ProjectId) -> Result<LinkTargetSources>;

    /// What judging placeholders naming `slugs` needs, and the posts `ids`: every post of
    /// `project` whose working or public slug is one of `slugs`, or that holds an alias in
    /// `slugs`, and the posts `ids`; every alias in `slugs`, and every alias of the posts
    /// `ids`. A post's judgement of its own links, and a post's backlinks, read through it:
    /// what they read grows with what the post names, never with the project.
    async fn link_targets_named(
        &self,
        project: ProjectId,
        slugs: &[String],
        ids: &[BlogId],
    ) -> Result<LinkTargetSources>;

    /// The distinct slugs named by the placeholders of the bodies of `project`'s posts, as
    /// `links::report::placeholders` reads them (`None` for a malformed placeholder), in no
    /// particular order.
    async fn linked_slugs(&self, project: ProjectId) -> Result<Vec<Option<String>>>;

    /// The bodies of `project`'s posts that hold placeholders (each post's working copy,
    /// and its published or scheduled snapshot), named with the size of their stored lists:
    /// every one (`naming` is `None`), or only those holding one that names a slug of
    /// `naming` (see [`names_any`](super::names_any)). In no particular order.
    async fn link_body_keys(
        &self,
        project: ProjectId,
        naming: Option<&[Option<String>]>,
    ) -> Result<Vec<BodyKey>>;

    /// The placeholders of the bodies `keys` names (those of `project` that still hold
    /// any), as `links::report::placeholders` lists them, in no particular order. A report
    /// reads the keys first, then their lists a batch at a time, so that what it holds stays
    /// bounded whatever the project holds.
    ///
    /// The report reads the targets, the keys and the bodies apart (the SQL stores read
    /// each with one statement): a write between them shows in the next report, and a body
    /// whose post is not among the targets is left out of it.
    async fn link_bodies(
        &self,
        project: ProjectId,
        keys: &[BodyKey],
    ) -> Result<Vec<BodyPlaceholders>>;
}

/// A project's stored images: one row an item, saying what it is (its files are kept by a
/// media store, written before the row and removed after it). At most one item per project
/// has a given SHA-256: an identical upload finds the item already there.
#[async_trait]
pub trait MediaStore: Send + Sync {
    /// Stores `item`'s row, unless its project already holds an item of the same SHA-256:
    /// then that item is returned as [`MediaInsert::Existing`] and nothing is written (two
    /// identical uploads at once give one row; one of them learns it inserted it).
    /// `NotFound(Project)` when the project is absent.
    ///
    /// A new item can change public answers: a published post that names it under
    /// `public_url` as its featured image (named before the item existed, or again after it
    /// was deleted) shows it from now on. In the same step, those posts take one new number
    /// of the project's change sequence, the content version moves once, and one firing
    /// (`updated`, at the item's upload time) is recorded when the project has a deploy hook.
    async fn insert_media(&self, item: &MediaItem, public_url: &str) -> Result<MediaInsert>;
    /// Item `id` of `project`.
    async fn media(&self, project: ProjectId, id: MediaId) -> Result<Option<MediaItem>>;
    /// The item of `project` whose master has this SHA-256.
    async fn media_by_sha256(
        &self,
        project: ProjectId,
        sha256: &Sha256Hex,
    ) -> Result<Option<MediaItem>>;
    /// One page of `project`'s items, newest first (by upload time, then id), and how many
    /// it has.
    async fn media_page(&self, project: ProjectId, limit: u32, offset: u64) -> Result<MediaPage>;
    /// Replaces the alt text of item `id` of `project`; the item as changed, or `None` when
    /// there is no such item.
    ///
    /// The alt text is part of the public answer of every published post that shows the item
    /// as its featured image under `public_url`: when it changes, in the same step, those
    /// posts take one new number of the project's change sequence, the content version moves
    /// once, and one firing (`updated`, at `at`) is recorded when the project has a deploy
    /// hook. The same alt text again changes nothing.
    async fn set_media_alt(
        &self,
        project: ProjectId,
        id: MediaId,
        alt: &AltText,
        public_url: &str,
        at: Timestamp,
    ) -> Result<Option<MediaItem>>;
    /// The items of `project` among `sha256s` (in no particular order; a digest no item has
    /// is left out): what the public answers show of the featured images they name.
    async fn media_by_digests(
        &self,
        project: ProjectId,
        sha256s: &[Sha256Hex],
    ) -> Result<Vec<MediaItem>>;
    /// Deletes item `id`'s row unless a post uses it under `public_url` (see
    /// [`MediaStore::media_users`]): then nothing is deleted and the posts are answered
    /// ([`MediaDeletion::InUse`]). `None` when there is no such item. The check and the delete
    /// are one step against every post write: a post saved at the same moment either is
    /// seen using the item (which stays) or is written after the row is gone. The item's files
    /// are the caller's to remove, after this.
    async fn delete_media(
        &self,
        project: ProjectId,
        id: MediaId,
        public_url: &str,
    ) -> Result<Option<MediaDeletion>>;
    /// The posts of `project` that use each of `sha256s` under `public_url` (the service's
    /// public URL, as the items' URLs start): whose working copy or held snapshot (published
    /// or scheduled) names the image as its featured image or in an `<img src>` of its body.
    /// Every post write keeps what its post uses in its own transaction. Each list is ordered
    /// by title, then id; a digest no post uses has no entry.
    async fn media_users(
        &self,
        project: ProjectId,
        public_url: &str,
        sha256s: &[Sha256Hex],
    ) -> Result<HashMap<Sha256Hex, Vec<MediaUser>>>;
    /// The project and SHA-256 of every item of every project (what the sweep keeps), each
    /// with the bytes its files hold (master and variants).
    async fn media_digests(&self) -> Result<HashMap<(ProjectId, Sha256Hex), u64>>;
}
