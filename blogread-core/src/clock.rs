//! Where the service gets the time from, so that tests can fix it.

use std::sync::Mutex;

use crate::domain::Timestamp;

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    /// Now, at whole-second precision.
    fn now(&self) -> Timestamp;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock that shows a set time until moved: for tests and for imports that replay history.
#[derive(Debug)]
pub struct ManualClock(Mutex<Timestamp>);

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: Timestamp) -> Self {
        Self(Mutex::new(start))
    }

    /// Sets the time.
    pub fn set(&self, to: Timestamp) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = to;
    }

    /// Moves the time forward by `seconds`.
    pub fn advance(&self, seconds: i64) {
        let mut now = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(next) = Timestamp::from_unix_seconds(now.unix_seconds() + seconds) {
            *now = next;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
