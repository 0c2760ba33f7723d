//! # blogread-client
//!
//! A typed client for the blogread public read API, for Rust static-site generators, and (with
//! the `cli` feature) the `blogread` command that exports published posts as content files for
//! Zola and Hugo.
//!
//! The client is still being built; this crate holds its place in the workspace.
#![forbid(unsafe_code)]
