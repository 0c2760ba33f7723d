//! # blogread-core
//!
//! The framework-agnostic heart of blogread.
#![forbid(unsafe_code)]

pub mod auth;
pub mod clock;
pub mod domain;
pub mod error;
pub mod lifecycle;
pub mod links;
pub mod read;
pub mod service;
pub mod store;
pub mod word_count;

pub use error::{Error, Result};
pub use service::Service;

#[cfg(any(test, feature = "test-util"))]
pub mod testing;
