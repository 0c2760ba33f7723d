//! The blocking client's runtime: a current-thread tokio runtime driven, for as long as any
//! clone of the client lives, by a thread of its own.
//!
//! Every connection of the client's pool is made and driven there, so a pooled keep-alive
//! connection never belongs to a runtime that is not running: the async view
//! ([`blocking::Client::as_async`](crate::blocking::Client::as_async)) works on any other
//! runtime after a blocking call, and a blocking call works after the async view was used. The
//! runtime is dropped on its own thread when the last clone goes, never where the client is
//! dropped, so dropping a client inside an async context is fine.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use tokio::runtime::Handle;
use tokio::sync::oneshot;

/// A running runtime thread; stops it when dropped.
#[derive(Debug)]
pub(crate) struct IoRuntime {
    handle: Handle,
    /// Dropping the sender ends the thread's `block_on`; the thread then drops the runtime.
    _stop: oneshot::Sender<()>,
}

impl IoRuntime {
    /// Starts the thread.
    #[cfg_attr(not(feature = "blocking"), allow(dead_code))]
    pub(crate) fn start() -> std::io::Result<Arc<Self>> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("blogread-client".to_owned())
            .spawn(move || {
                runtime.block_on(async {
                    // Ends when the sender is dropped (Err) or used.
                    let _ = stopped.await;
                });
                // Outside `block_on`, on this thread: never in someone's async context.
                drop(runtime);
            })?;
        Ok(Arc::new(Self {
            handle,
            _stop: stop,
        }))
    }

    /// The runtime's handle, to spawn the client's HTTP exchanges on.
    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Runs `future` to completion on the calling thread, with this runtime's context entered
    /// (its timers and I/O are driven by the runtime's own thread).
    ///
    /// Unlike `Runtime::block_on`, this works inside another runtime's async context (it
    /// blocks that thread, as any blocking call does) and needs no `Send` bound: the future
    /// never leaves the calling thread.
    #[cfg_attr(not(feature = "blocking"), allow(dead_code))]
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _context = self.handle.enter();
        // Out of tokio's cooperative budget: inside a task of another runtime the budget of
        // that task would otherwise run out and make every poll here return Pending at once.
        let mut future = std::pin::pin!(tokio::task::unconstrained(future));
        let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            // A wake between the poll and here leaves a token, so park returns at once.
            std::thread::park();
        }
    }
}

/// Wakes the thread that waits in [`IoRuntime::block_on`].
struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}
