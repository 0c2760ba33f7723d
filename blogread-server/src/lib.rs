//! # blogread-server
//!
//! The reference server of blogread: it turns [`blogread_core`] into a running service that
//! answers the public read API (`/blog/api/v1/public`), the deploy hook endpoints and the
//! management API (`/api/v1`) over poem and poem-openapi.
//!
//! The HTTP endpoints are still being built; today this crate re-exports the core so that the
//! workspace shape is in place.
#![forbid(unsafe_code)]

pub use blogread_core as core;
