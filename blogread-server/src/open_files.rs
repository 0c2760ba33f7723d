//! The open-files limit a server needs, raised at start as far as the system allows.
//!
//! Every connection is a file descriptor, and an HTTP/1 connection writing a large image holds a
//! second one (the file it is sent from); the database, the media files being read, the
//! listeners and the log hold a few more. A shell or a container often starts a process with a
//! soft limit of 1,024, far below the 10,000 connections served by default: past it, `accept`
//! fails (the server waits and retries), and so do the opens of images and database files.
//! Like Go's runtime and nginx's `worker_rlimit_nofile`, the server raises its soft limit
//! towards what [`Limits::max_connections`](crate::Limits::max_connections) needs, up to the
//! hard limit, and says so when the hard limit is lower.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// Descriptors kept for everything but connections: the database's pool and files, images
/// being read or written, the listeners, the log, deploy hook requests.
pub const RESERVED: u64 = 256;

/// The descriptors `max_connections` connections may hold at once: two each (the connection,
/// and a file being sent from) and [`RESERVED`]. What the soft limit is raised to.
pub fn wanted(max_connections: usize) -> u64 {
    (max_connections as u64)
        .saturating_mul(2)
        .saturating_add(RESERVED)
}

/// The descriptors without which some of `max_connections` connections could not even be
/// accepted: one each and [`RESERVED`]. A limit under it is reported.
pub fn needed(max_connections: usize) -> u64 {
    (max_connections as u64).saturating_add(RESERVED)
}

/// What [`ensure`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenFiles {
    /// The soft limit was enough already (`None`: no limit).
    Enough(Option<u64>),
    /// The soft limit was raised.
    Raised {
        /// The soft limit before.
        from: u64,
        /// The soft limit now.
        to: u64,
    },
    /// The limit stays under what is needed: the hard limit is lower, or raising failed.
    Short {
        /// The soft limit now.
        limit: u64,
        /// What is needed ([`needed`]).
        needed: u64,
    },
}

/// The soft limit `current`, with the hard limit `maximum`, for `needed` descriptors: what it
/// should become (never lower than it is).
fn target(current: Option<u64>, maximum: Option<u64>, needed: u64) -> Option<u64> {
    let current = current?;
    if current >= needed {
        return None;
    }
    Some(maximum.map_or(needed, |max| max.min(needed)).max(current))
}

/// Raises the process's soft open-files limit to `wanted`, or as near as its hard limit
/// allows; never lowers it. Short when it stays under `needed`.
pub fn ensure(wanted: u64, needed: u64) -> OpenFiles {
    let limits = getrlimit(Resource::Nofile);
    let Some(to) = target(limits.current, limits.maximum, wanted) else {
        return OpenFiles::Enough(limits.current);
    };
    let from = limits.current.unwrap_or(u64::MAX);
    let raised = to > from
        && setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(to),
                maximum: limits.maximum,
            },
        )
        .is_ok();
    let now = if raised { to } else { from };
    match (now >= needed, raised) {
        (true, true) => OpenFiles::Raised { from, to: now },
        (true, false) => OpenFiles::Enough(Some(now)),
        (false, _) => OpenFiles::Short { limit: now, needed },
    }
}

/// [`ensure`] for `max_connections`, logged: raised at info, short as a warning that says what
/// to change.
pub fn ensure_for(max_connections: usize) -> OpenFiles {
    let outcome = ensure(wanted(max_connections), needed(max_connections));
    match outcome {
        OpenFiles::Enough(_) => {}
        OpenFiles::Raised { from, to } => {
            tracing::info!(
                from,
                to,
                "raised the open-files limit for --max-connections {max_connections}"
            );
        }
        OpenFiles::Short { limit, needed } => {
            tracing::warn!(
                limit,
                needed,
                "the open-files limit is under what --max-connections {max_connections} needs: past about {} connections, new ones wait; raise the hard limit (LimitNOFILE= in the systemd unit, ulimit -Hn) or lower --max-connections",
                limit.saturating_sub(RESERVED)
            );
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_descriptors_a_connection_are_wanted_and_one_needed_beside_the_reserve() {
        assert_eq!(wanted(10_000), 20_256);
        assert_eq!(wanted(1), 258);
        assert_eq!(wanted(usize::MAX), u64::MAX);
        assert_eq!(needed(10_000), 10_256);
    }

    #[test]
    fn the_soft_limit_is_raised_to_what_is_needed_up_to_the_hard_limit_and_never_lowered() {
        assert_eq!(target(Some(1024), Some(1_048_576), 20_256), Some(20_256));
        assert_eq!(target(Some(1024), Some(4096), 20_256), Some(4096));
        assert_eq!(target(Some(1024), None, 20_256), Some(20_256));
        assert_eq!(target(Some(65_536), Some(65_536), 20_256), None);
        assert_eq!(target(None, None, 20_256), None);
        // A hard limit under the soft one (not possible, but never a lowering).
        assert_eq!(target(Some(1024), Some(512), 20_256), Some(1024));
    }
}
