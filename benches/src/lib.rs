//! Benchmarks for blogread: criterion micro-benchmarks under `benches/benches/` and, later, the
//! load benchmark against a floor server. See `benches/README.md`.
#![forbid(unsafe_code)]
