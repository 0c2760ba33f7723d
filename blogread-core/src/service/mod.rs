//! The [`Service`]: every operation of blogread, each deciding authorisation first, so that a
//! server is HTTP in, one call, HTTP out. One file per concern: [`projects`](self) settings,
//! credentials (`keys`), the deploy hook and its firings (`hooks`), blogs (`blogs`) and the
//! public reads (`public`).

mod blogs;
mod featured;
mod hooks;
mod keys;
mod link_answers;
mod links;
#[cfg(feature = "media")]
mod media;
mod projects;
mod public;
mod schedule;
mod sessions;

pub use blogs::{BlogWrite, ManagedBlogList};
pub use keys::{AdminTokenView, AgentKeyView, IssuedAdminToken, IssuedAgentKey, PublicKeyView};
pub use links::{
    BACKLINK_PLACEHOLDERS_SHOWN, Backlink, BacklinkFilter, BacklinkList, LinkEntry, LinkFilter,
    LinkReport, LinkSummary, LinkTargetView, READ_BATCH_BYTES, UNRESOLVED_SHOWN,
};
#[cfg(feature = "media")]
pub use media::{
    MEDIA_SWEEP_AGE, MediaList, MediaSetup, MediaUpload, MediaVariantView, MediaView, ServedMedia,
    Uploaded,
};
pub use projects::{ProjectList, ProjectUpdate};
pub use schedule::{GO_LIVE_WAIT, SCHEDULER_MAX_SLEEP};
pub use sessions::{IssuedSession, SignedIn};

use std::sync::Arc;
use std::time::Duration;

use crate::auth::{Access, Caller, Principal, authorize};
use crate::clock::{Clock, SystemClock};
use crate::domain::{OperatorToken, ProjectId, Timestamp};
use crate::error::Result;
use crate::firing::{Firings, UnavailableNotifier};
use crate::fragment_cache::FragmentCache;
use crate::hook::{AddressPolicy, Notifier, Resolver, SystemResolver};
use crate::response_cache::ResponseCache;
use crate::store::Store;

/// How long the changes feed keeps deletions unless told otherwise: 90 days.
pub const DEFAULT_CHANGE_RETENTION: Duration = Duration::from_secs(90 * 86_400);

/// The operations of blogread over a [`Store`].
#[derive(Clone)]
pub struct Service {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    operator: Option<OperatorToken>,
    notifier: Arc<dyn Notifier>,
    hook_resolver: Arc<dyn Resolver>,
    hook_policy: AddressPolicy,
    firings: Firings,
    responses: ResponseCache,
    fragments: FragmentCache,
    /// The store's ETag epoch, read once.
    etag_epoch: Arc<tokio::sync::OnceCell<String>>,
    /// Wakes the scheduler when this service schedules a blog.
    scheduler_wake: Arc<tokio::sync::Notify>,
    /// Turns of a project's public reads at recording a go-live.
    go_live_gate: Arc<schedule::GoLiveGate>,
    /// How long the changes feed keeps deletions.
    change_retention: Duration,
    /// When deletions older than that were last forgotten (Unix seconds).
    last_prune: Arc<std::sync::atomic::AtomicI64>,
    /// Where images are kept and how they are made, when the service keeps any.
    #[cfg(feature = "media")]
    media: Option<Arc<media::MediaSetup>>,
}

impl Service {
    /// A service over `store`, with the system clock, no operator token, and deploy hooks
    /// fired by an `HttpNotifier` that contacts only globally reachable addresses (feature
    /// `hooks`; without it, by [`Service::with_notifier`]'s notifier or not at all).
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            clock: Arc::new(SystemClock),
            operator: None,
            notifier: default_notifier(),
            hook_resolver: Arc::new(SystemResolver),
            hook_policy: AddressPolicy::GlobalOnly,
            firings: Firings::default(),
            responses: ResponseCache::default(),
            fragments: FragmentCache::default(),
            etag_epoch: Arc::default(),
            scheduler_wake: Arc::default(),
            go_live_gate: Arc::default(),
            change_retention: DEFAULT_CHANGE_RETENTION,
            last_prune: Arc::default(),
            #[cfg(feature = "media")]
            media: None,
        }
    }

    /// Replaces the notifier that fires deploy hooks (tests, custom transports).
    pub fn with_notifier(mut self, notifier: Arc<dyn Notifier>) -> Self {
        self.notifier = notifier;
        self
    }

    /// Replaces the resolver and address policy that judge a deploy hook URL when it is saved.
    /// [`AddressPolicy::GlobalOnly`] is the default and the only sensible choice outside tests.
    pub fn with_hook_resolver(
        mut self,
        resolver: Arc<dyn Resolver>,
        policy: AddressPolicy,
    ) -> Self {
        self.hook_resolver = resolver;
        self.hook_policy = policy;
        self
    }

    pub(crate) fn notifier(&self) -> &dyn Notifier {
        self.notifier.as_ref()
    }

    pub(crate) fn firings(&self) -> &Firings {
        &self.firings
    }

    pub(crate) fn scheduler_wake(&self) -> &tokio::sync::Notify {
        &self.scheduler_wake
    }

    pub(crate) fn go_live_gate(&self) -> &schedule::GoLiveGate {
        &self.go_live_gate
    }

    /// Waits until no deploy hook firing is in flight, at most `timeout` (a server drains
    /// with this on shutdown; tests await firings with it). True when none is left.
    pub async fn wait_for_firings(&self, timeout: Duration) -> bool {
        self.firings.wait_idle(timeout).await
    }

    /// Stops the service: waits for the deploy hook firings in flight, at least as long as
    /// the notifier's own time-out plus 2 s (so a slow firing still records its delivery),
    /// then closes the store. True when every firing finished.
    pub async fn stop(&self) -> bool {
        let grace = self.notifier().timeout() + std::time::Duration::from_secs(2);
        let drained = self.wait_for_firings(grace).await;
        if !drained {
            tracing::warn!(
                "deploy hook firings still in flight after {}s; stopping anyway",
                grace.as_secs()
            );
        }
        self.store.close().await;
        drained
    }

    /// Sets the operator token (from `BLOGREAD_ADMIN_TOKEN` in the server).
    pub fn with_operator_token(mut self, token: OperatorToken) -> Self {
        self.operator = Some(token);
        self
    }

    /// How long the changes feed keeps the slugs it deleted ([`DEFAULT_CHANGE_RETENTION`],
    /// 90 days, by default): a cursor older than that is answered 410 and the reader syncs
    /// from the start. The scheduler ([`Service::run_scheduler`]) forgets older ones hourly.
    pub fn with_change_retention(mut self, retention: Duration) -> Self {
        self.change_retention = retention;
        self
    }

    /// The changes feed's retention in whole days.
    pub(crate) fn change_retention_days(&self) -> u64 {
        self.change_retention.as_secs() / 86_400
    }

    /// Forgets the changes feed's deletions older than the retention; returns how many.
    pub async fn prune_changes(&self) -> Result<u64> {
        let now = self.now();
        let retention = i64::try_from(self.change_retention.as_secs()).unwrap_or(i64::MAX);
        let before = Timestamp::from_unix_seconds(now.unix_seconds().saturating_sub(retention))
            .unwrap_or(now);
        let pruned = self.store.prune_changes(before).await?;
        self.last_prune
            .store(now.unix_seconds(), std::sync::atomic::Ordering::Relaxed);
        Ok(pruned)
    }

    /// Whether the last [`Service::prune_changes`] was an hour ago or more.
    pub(crate) fn prune_due(&self) -> bool {
        let last = self.last_prune.load(std::sync::atomic::Ordering::Relaxed);
        self.now().unix_seconds().saturating_sub(last) >= 3600
    }

    /// Replaces the response cache of the public reads (the default holds up to
    /// [`crate::response_cache::DEFAULT_CAPACITY_BYTES`]; [`ResponseCache::disabled`] turns it
    /// off). Clones of a service share its cache.
    pub fn with_response_cache(mut self, cache: ResponseCache) -> Self {
        self.responses = cache;
        self
    }

    /// The response cache of the public reads.
    pub fn responses(&self) -> &ResponseCache {
        &self.responses
    }

    /// Replaces the per-post fragment cache behind the response cache (the default holds up
    /// to [`crate::fragment_cache::DEFAULT_CAPACITY_BYTES`]; [`FragmentCache::disabled`]
    /// turns it off, and every public answer is then made from the store's rows as a
    /// whole). Clones of a service share its cache.
    pub fn with_fragment_cache(mut self, cache: FragmentCache) -> Self {
        self.fragments = cache;
        self
    }

    /// The per-post fragment cache of the public reads.
    pub fn fragments(&self) -> &FragmentCache {
        &self.fragments
    }

    /// The store's ETag epoch (see
    /// [`DatabaseStore::etag_epoch`](crate::store::DatabaseStore::etag_epoch)), read on first
    /// use.
    pub(crate) async fn etag_epoch(&self) -> Result<&str> {
        self.etag_epoch
            .get_or_try_init(|| self.store.etag_epoch())
            .await
            .map(String::as_str)
    }

    /// Replaces the clock (tests, imports).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The store.
    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// Now, by the service's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    async fn authorize(
        &self,
        caller: &Caller,
        project: Option<ProjectId>,
        access: Access,
    ) -> Result<Principal> {
        authorize(
            self.store(),
            self.operator.as_ref(),
            caller,
            project,
            access,
        )
        .await
    }

    /// Checks that `caller` is the operator, for an operator-only endpoint that runs no other
    /// operation (a server's `/metrics`): unauthorised (401) without a management token or
    /// with one that matches nothing, forbidden (403) for a project admin token.
    pub async fn authorize_operator(&self, caller: &Caller) -> Result<()> {
        self.authorize(caller, None, Access::Operator)
            .await
            .map(|_| ())
    }

    /// Checks that the store answers (for health checks).
    pub async fn health(&self) -> Result<()> {
        self.store.ping().await
    }
}

/// The notifier of [`Service::new`]: HTTPS with the `hooks` feature; without it, one whose
/// every firing fails saying so (the delivery log shows why nothing was sent).
fn default_notifier() -> Arc<dyn Notifier> {
    #[cfg(feature = "hooks")]
    match crate::hook::HttpNotifier::new() {
        Ok(notifier) => Arc::new(notifier),
        Err(err) => {
            tracing::error!(error = %err, "deploy hooks cannot be fired");
            Arc::new(UnavailableNotifier(err.to_string()))
        }
    }
    #[cfg(not(feature = "hooks"))]
    Arc::new(UnavailableNotifier(
        "this build of blogread-core has no `hooks` feature: give the service a notifier with Service::with_notifier".to_owned(),
    ))
}
