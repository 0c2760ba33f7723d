//! JSON serialisation of a 100-blog page with content (~0.9 MB), the way poem-openapi's `Json`
//! payload did it per request (typed value -> `serde_json::Value` tree -> bytes) and the way
//! the core does it once per ETag now (serde straight to bytes); and the whole list read with
//! content through the service, with the response cache off and warm.
//!
//! Run: `cargo bench -p blogread-benches --bench json -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::Arc;

use blogread_benches::data::{self, Spec};
use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::read::ListParams;
use blogread_core::response_cache::ResponseCache;
use blogread_core::store::MemoryStore;
use criterion::{Criterion, Throughput};
use poem_openapi::types::ToJSON;

/// The page the benchmark reads: 100 blogs with their bodies.
fn page_of_100() -> ListParams {
    ListParams::new().limit(100).with_content()
}

fn bench_json(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let spec = Spec {
        projects: 1,
        blogs_per_project: 200,
        links_per_post: 5,
    };
    let uncached =
        Service::new(Arc::new(MemoryStore::new())).with_response_cache(ResponseCache::disabled());
    let seeded = rt
        .block_on(data::seed(&uncached, spec, |_| {}))
        .expect("seed");
    let cached = uncached
        .clone()
        .with_response_cache(ResponseCache::default());
    let key = seeded.keys[0].clone();
    let creds = Caller::public(&key);
    let page = rt
        .block_on(uncached.list_blogs(&creds, page_of_100(), None))
        .expect("list")
        .into_value()
        .expect("fresh")
        .value();
    let bytes = serde_json::to_vec(&page).expect("serialise").len();
    let wire = blogread_server::api::public::BlogList::from(page.clone());

    let mut group = c.benchmark_group("json_page_100_with_content");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("poem_openapi_value_tree", |b| {
        b.iter(|| serde_json::to_vec(&black_box(&wire).to_json()).expect("serialise"))
    });
    group.bench_function("core_serde_to_vec", |b| {
        b.iter(|| serde_json::to_vec(black_box(&page)).expect("serialise"))
    });
    group.finish();

    let mut group = c.benchmark_group("list_100_with_content_read");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_function("uncached", |b| {
        b.to_async(&rt).iter(|| async {
            uncached
                .list_blogs(&creds, page_of_100(), None)
                .await
                .expect("ok")
        })
    });
    rt.block_on(cached.list_blogs(&creds, page_of_100(), None))
        .expect("warm");
    group.bench_function("cached", |b| {
        b.to_async(&rt).iter(|| async {
            cached
                .list_blogs(&creds, page_of_100(), None)
                .await
                .expect("ok")
        })
    });
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_json(&mut criterion);
    criterion.final_summary();
}
