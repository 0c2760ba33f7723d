//! The public key check, batched: one query answers every check waiting at that moment.
//!
//! Every public read starts with one indexed query (key hash -> project, site URL, content
//! version). It cannot be cached in the process: a key rotated or revoked through another
//! instance must fail on the very next request. On PostgreSQL each query is a network round
//! trip and a wake-up of a PostgreSQL backend, and under load those round trips were most of
//! a cached read's cost. So checks that arrive while a query is running wait for the next
//! one, which answers all of them with `key_hash = ANY($1)`.
//!
//! Exactness is kept: a check is answered by a query that *starts after the check arrived*,
//! and a PostgreSQL statement sees every transaction committed before it starts. A check
//! that finds no query running starts one at once, so an idle server adds no delay.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use sqlx::Postgres;
use tokio::sync::oneshot;

use crate::domain::PublicProject;
use crate::error::{Error, Result, Unavailable, error_chain};
use crate::store::connection::ClosingPool;
use crate::store::sql::{PublicProjectRow, storage};

/// Most key hashes one query carries; more wait for the next one.
const MAX_BATCH: usize = 256;

/// What a waiting check receives: the answer, or the query's error (one error cannot be
/// handed to several waiters: the database's own conditions are copied, anything else is
/// passed on as text).
type Answer = std::result::Result<Option<PublicProject>, Failure>;

/// Why a batch query failed, in a form every waiter can get a copy of.
#[derive(Debug, Clone)]
enum Failure {
    Unavailable(Unavailable),
    Other(String),
}

/// Batches [`PostgresStore`](super::PostgresStore)'s public key checks.
#[derive(Debug)]
pub(super) struct KeyBatcher {
    pool: ClosingPool<Postgres>,
    queue: Mutex<Queue>,
}

#[derive(Debug, Default)]
struct Queue {
    waiting: Vec<(String, oneshot::Sender<Answer>)>,
    /// A drain task is running (it takes `waiting` before each query).
    draining: bool,
}

/// A key hash with the project it opens.
#[derive(sqlx::FromRow)]
struct KeyRow {
    key_hash: String,
    #[sqlx(flatten)]
    project: PublicProjectRow,
}

/// The error a check gets when the query that would answer it failed.
#[derive(Debug, thiserror::Error)]
#[error("the public key check failed: {0}")]
struct BatchFailed(String);

impl KeyBatcher {
    /// A batcher querying `pool`.
    pub(super) fn new(pool: ClosingPool<Postgres>) -> Arc<Self> {
        Arc::new(Self {
            pool,
            queue: Mutex::new(Queue::default()),
        })
    }

    /// The project that the key with this hash (lower-case hex) opens.
    pub(super) async fn check(self: &Arc<Self>, key_hash: String) -> Result<Option<PublicProject>> {
        let (tx, rx) = oneshot::channel();
        let start = {
            let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            queue.waiting.push((key_hash, tx));
            !std::mem::replace(&mut queue.draining, true)
        };
        if start {
            tokio::spawn(Arc::clone(self).drain());
        }
        match rx.await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(Failure::Unavailable(fault))) => Err(Error::Unavailable(fault)),
            Ok(Err(Failure::Other(message))) => Err(Error::storage(BatchFailed(message))),
            Err(_) => Err(Error::storage(BatchFailed(
                "the query answering it was cancelled (is the runtime shutting down?)".into(),
            ))),
        }
    }

    /// Runs queries until no check is waiting.
    async fn drain(self: Arc<Self>) {
        // Should this task be dropped mid-query (its runtime shutting down), the guard fails
        // the waiting checks and lets the next check start a new drain.
        let guard = DrainGuard(&self);
        loop {
            let batch = {
                let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
                if queue.waiting.is_empty() {
                    queue.draining = false;
                    break;
                }
                let cut = queue.waiting.len().min(MAX_BATCH);
                let rest = queue.waiting.split_off(cut);
                std::mem::replace(&mut queue.waiting, rest)
            };
            tracing::trace!(checks = batch.len(), "public key checks batched");
            let answers = self.query(&batch).await;
            for (hash, tx) in batch {
                let answer = match &answers {
                    Ok(found) => Ok(found.get(&hash).cloned()),
                    Err(Error::Unavailable(fault)) => Err(Failure::Unavailable(*fault)),
                    Err(e) => Err(Failure::Other(error_chain(e))),
                };
                // A check whose request went away no longer listens; nothing to do.
                let _ = tx.send(answer);
            }
        }
        std::mem::forget(guard);
    }

    async fn query(
        &self,
        batch: &[(String, oneshot::Sender<Answer>)],
    ) -> Result<HashMap<String, PublicProject>> {
        let mut hashes: Vec<&str> = batch.iter().map(|(h, _)| h.as_str()).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let rows: Vec<KeyRow> = sqlx::query_as(
            "SELECT k.key_hash, p.id, p.site_url, p.content_version, \
             (SELECT MIN(b.published_at) FROM blogs b \
              WHERE b.project_id = p.id AND b.status = 'scheduled') AS next_go_live \
             FROM public_keys k JOIN projects p ON p.id = k.project_id \
             WHERE k.key_hash = ANY($1)",
        )
        .bind(hashes)
        .fetch_all(&self.pool)
        .await
        .map_err(storage)?;
        Ok(rows
            .into_iter()
            .map(|row| (row.key_hash, row.project.into_public()))
            .collect())
    }
}

/// Fails the waiting checks and clears `draining` when a drain ends without finishing.
struct DrainGuard<'a>(&'a KeyBatcher);

impl Drop for DrainGuard<'_> {
    fn drop(&mut self) {
        let mut queue = self.0.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.draining = false;
        // Dropping the senders answers their checks with "cancelled".
        queue.waiting.clear();
    }
}
