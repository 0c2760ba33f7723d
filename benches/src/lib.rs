//! Benchmarks for blogread: criterion micro-benchmarks under `benches/benches/`, and the load
//! benchmark (`src/bin/load.rs`, run by `benches/run-load`) that drives the real server and a
//! floor server answering the same bytes from memory; the media benchmarks
//! (`media_pipeline`, `media_serving`, `media_upload`), which start the release server binary
//! and compare it with libvips and nginx. See `benches/README.md`.
#![forbid(unsafe_code)]

pub mod client;
pub mod data;
pub mod floor;
pub mod harness;
pub mod libvips;
pub mod management;
pub mod nginx;
pub mod photo;
pub mod procfs;
pub mod server_process;
