//! blogread-core
#![forbid(unsafe_code)]

pub mod word_count;
