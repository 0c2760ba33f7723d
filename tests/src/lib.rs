//! End-to-end tests for blogread: real stores, real servers on loopback, real receivers.
//!
//! The tests live under `tests/tests/`; this library holds what they share.
#![forbid(unsafe_code)]
