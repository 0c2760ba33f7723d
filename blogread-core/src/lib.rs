//! blogread-core
#![forbid(unsafe_code)]
