//! End-to-end: the real server on a random loopback port, driven only through HTTP.
//!
//! One test binary with modules (compiles once). Each test starts its own server over a fresh
//! store, so tests are independent and run in parallel.

#[path = "e2e/auth.rs"]
mod auth;
#[path = "e2e/bounded.rs"]
mod bounded;
#[path = "e2e/changes.rs"]
mod changes;
#[path = "e2e/client.rs"]
mod client;
#[path = "e2e/errors.rs"]
mod errors;
#[path = "e2e/faults.rs"]
mod faults;
#[path = "e2e/hooks.rs"]
mod hooks;
#[path = "e2e/incremental_export.rs"]
mod incremental_export;
#[path = "e2e/management.rs"]
mod management;
#[path = "e2e/media.rs"]
mod media;
#[path = "e2e/ops.rs"]
mod ops;
#[path = "e2e/public.rs"]
mod public;
#[path = "e2e/schedule.rs"]
mod schedule;
#[path = "e2e/site_build.rs"]
mod site_build;
#[path = "e2e/slugs.rs"]
mod slugs;

// The blogread-client static-site example, included for its `build_site` (its `main` unused).
#[path = "../../blogread-client/examples/static_site.rs"]
#[allow(dead_code)]
mod static_site;

// The blogread-client blocking example, included for its `run` (its `main` unused).
#[path = "../../blogread-client/examples/blocking_cache.rs"]
#[allow(dead_code)]
mod blocking_cache;
