//! blogread-core
#![forbid(unsafe_code)]

pub mod links;
