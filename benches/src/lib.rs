//! Benchmarks for blogread: criterion micro-benchmarks under `benches/benches/`, and the load
//! benchmark (`src/bin/load.rs`, run by `benches/run-load`) that drives the real server and a
//! floor server answering the same bytes from memory. See `benches/README.md`.
#![forbid(unsafe_code)]

pub mod client;
pub mod data;
pub mod floor;
pub mod harness;
pub mod libvips;
pub mod photo;
pub mod procfs;
