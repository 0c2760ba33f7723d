//! The bounded pool uploads are processed on: at most a set number at a time (by default one
//! per core but one, so that a core is always left to answer requests), each with a time limit.
//!
//! A decode runs on a thread of its own and cannot be stopped half-way. A job past its time
//! limit is answered at once (the upload is refused), but it keeps its place in the pool until
//! its thread is done, so the bound holds whatever the uploads are.
//!
//! The thread runs under the idle scheduling class (`SCHED_IDLE`, on Linux), below every thread
//! that answers requests: a request thread that wakes takes the processor from a decode at
//! once, so public reads keep their latency while uploads run, and an upload only waits longer
//! on a busy machine. (Nice 10, tried first, still gave decodes a third of the processor and
//! multiplied the reads' p99 by four; see `docs/media.md#memory-and-time`.)

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use blogread_media::{MediaError, Processed};

/// Why a job of the pool gave no picture.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// The pipeline refused the upload.
    #[error(transparent)]
    Refused(#[from] MediaError),
    /// The job ran past the time limit.
    #[error("processing the image took longer than {0:?}; send a smaller image")]
    TimedOut(Duration),
    /// The job's thread ended without an answer (a panic the pipeline did not catch).
    #[error("processing the image failed")]
    Failed,
}

/// The pool: its places and the time limit of each job.
#[derive(Debug, Clone)]
pub struct ImagePool {
    places: Arc<Semaphore>,
    limit: Duration,
}

impl ImagePool {
    /// A pool of `places` jobs at a time (at least one), each limited to `limit`.
    pub fn new(places: usize, limit: Duration) -> Self {
        Self {
            places: Arc::new(Semaphore::new(places.max(1))),
            limit,
        }
    }

    /// A pool of one place per core but one (at least one place), each job limited to
    /// `limit`: on a 2-core machine, one decode at a time, and a core left for requests.
    pub fn per_core(limit: Duration) -> Self {
        Self::new(default_places(), limit)
    }

    /// Runs the pipeline on an upload: waits for a place, then processes `bytes` (declared as
    /// `declared`) on a blocking thread within the time limit.
    pub async fn process(
        &self,
        bytes: bytes::Bytes,
        declared: Option<String>,
    ) -> Result<Processed, PoolError> {
        self.run(move || blogread_media::process(&bytes, declared.as_deref()))
            .await
    }

    /// Runs `job` in a place of the pool, within the time limit.
    pub(crate) async fn run<F>(&self, job: F) -> Result<Processed, PoolError>
    where
        F: FnOnce() -> Result<Processed, MediaError> + Send + 'static,
    {
        let place = Arc::clone(&self.places)
            .acquire_owned()
            .await
            .map_err(|_| PoolError::Failed)?;
        let (answer, task) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("blogread-image".into())
            .spawn(move || {
                yield_to_requests();
                let result = job();
                // The place is given back when the job is done (not when it is answered, which
                // may be earlier: a time-out), and before its answer is sent.
                drop(place);
                let _ = answer.send(result);
            });
        if spawned.is_err() {
            return Err(PoolError::Failed);
        }
        match tokio::time::timeout(self.limit, task).await {
            Ok(Ok(result)) => result.map_err(PoolError::from),
            Ok(Err(_)) => Err(PoolError::Failed),
            Err(_) => Err(PoolError::TimedOut(self.limit)),
        }
    }

    /// How many places are free now.
    pub fn free_places(&self) -> usize {
        self.places.available_permits()
    }
}

/// How many decodes run at once by default: one per core but one, at least one.
fn default_places() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    cores.saturating_sub(1).max(1)
}

/// Puts the calling thread under the idle scheduling class, so that request threads come
/// first; nice 10 where that is refused. Best effort: elsewhere than Linux, the job runs as
/// it is.
fn yield_to_requests() {
    #[cfg(target_os = "linux")]
    {
        use thread_priority::{
            NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
            set_thread_priority_and_policy, thread_native_id,
        };
        let idle = set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
        );
        if idle.is_err() {
            let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    /// A job that waits until `release` sends (or is dropped), then refuses.
    fn held(release: mpsc::Receiver<()>) -> impl FnOnce() -> Result<Processed, MediaError> {
        move || {
            let _ = release.recv();
            Err(MediaError::Empty)
        }
    }

    #[tokio::test]
    async fn a_job_past_its_time_limit_is_refused_and_keeps_its_place_until_done() {
        let pool = ImagePool::new(1, Duration::from_millis(20));
        let (release, wait) = mpsc::channel();
        let answer = pool.run(held(wait)).await;
        assert_eq!(
            answer.unwrap_err(),
            PoolError::TimedOut(Duration::from_millis(20))
        );
        // Answered, but its thread still decodes: the place is still taken.
        assert_eq!(pool.free_places(), 0);
        release.send(()).unwrap();
        // Once done, the place is free again; the next job gets it.
        let next = pool.run(|| Err(MediaError::Empty)).await;
        assert_eq!(next.unwrap_err(), PoolError::Refused(MediaError::Empty));
        assert_eq!(pool.free_places(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_more_jobs_run_at_once_than_the_pool_has_places() {
        let pool = ImagePool::new(1, Duration::from_secs(60));
        let (release, wait) = mpsc::channel();
        let first = tokio::spawn({
            let pool = pool.clone();
            async move { pool.run(held(wait)).await }
        });
        // Wait until the first job holds the place.
        while pool.free_places() != 0 {
            tokio::task::yield_now().await;
        }
        let (started, was_started) = mpsc::channel();
        let second = tokio::spawn({
            let pool = pool.clone();
            async move {
                pool.run(move || {
                    started.send(()).unwrap();
                    Err(MediaError::Empty)
                })
                .await
            }
        });
        // The second job does not start while the first holds the only place.
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert!(was_started.try_recv().is_err());
        release.send(()).unwrap();
        assert!(first.await.unwrap().is_err());
        assert_eq!(
            second.await.unwrap().unwrap_err(),
            PoolError::Refused(MediaError::Empty)
        );
        assert!(was_started.try_recv().is_ok());
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn jobs_run_in_the_idle_scheduling_class_below_requests() {
        use thread_priority::{NormalThreadSchedulePolicy, ThreadSchedulePolicy};
        let pool = ImagePool::new(1, Duration::from_secs(60));
        let (seen, policy) = mpsc::channel();
        let _ = pool
            .run(move || {
                seen.send(thread_priority::thread_schedule_policy().unwrap())
                    .unwrap();
                Err(MediaError::Empty)
            })
            .await;
        assert_eq!(
            policy.recv().unwrap(),
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle)
        );
        // The caller's own thread is untouched.
        assert_eq!(
            thread_priority::thread_schedule_policy().unwrap(),
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Other)
        );
    }

    #[test]
    fn the_default_pool_leaves_a_core_to_requests() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let places = default_places();
        assert!(places >= 1);
        assert!(
            places < cores || cores == 1,
            "{places} places on {cores} cores"
        );
    }

    #[tokio::test]
    async fn a_real_upload_is_processed_in_the_pool() {
        let pool = ImagePool::per_core(Duration::from_secs(60));
        let refused = pool
            .process(
                bytes::Bytes::from_static(b"<svg/>"),
                Some("image/png".into()),
            )
            .await
            .unwrap_err();
        assert!(matches!(refused, PoolError::Refused(ref e) if e.is_unsupported()));
    }
}
