//! The SQL stores' page index under a flood of filters: a read of a held filter, and a read
//! of a new filter that must be held (evicting others once the index is full), on an empty
//! index and on a full one. With O(1) eviction the full index reads at the rate of the empty
//! one (a linear scan for the least recently used filter made a full index three times
//! slower, under one lock every category read of every project waited on).
#![forbid(unsafe_code)]

use std::hint::black_box;

use blogread_core::store::PageIndexBench;
use criterion::{Criterion, criterion_group, criterion_main};

/// The default bound of the index.
const BOUND: u64 = 16 * 1024 * 1024;

fn page_index(c: &mut Criterion) {
    let mut group = c.benchmark_group("page_index");
    // Each filter holds 8 marks (a list of about 1,000 blogs). An index that never fills
    // within a run (1 GiB), and a full one at the default bound.
    let roomy = PageIndexBench::new(1 << 30, 8);
    let full = PageIndexBench::new(BOUND, 8);
    let mut filled = 0u64;
    while full.bytes() < BOUND - BOUND / 64 {
        full.read(filled);
        filled += 1;
    }
    for (name, index, start) in [("not_full", &roomy, 0), ("full", &full, filled)] {
        let mut n = start;
        group.bench_function(format!("new_filter_{name}"), |b| {
            b.iter(|| {
                n += 1;
                black_box(index.read(n))
            })
        });
        group.bench_function(format!("held_filter_{name}"), |b| {
            b.iter(|| {
                // The most recently held filter: a hit.
                black_box(index.read(n))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, page_index);
criterion_main!(benches);
