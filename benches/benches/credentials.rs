//! The credential look-up every public read starts with: `Service::public_project` (key
//! format checks, SHA-256 of the key, one store look-up by hash that also returns the content
//! version), through the in-memory store; and a malformed key, refused before the store.
//!
//! Run: `cargo bench -p blogread-benches --bench credentials -- --warm-up-time 1 --measurement-time 3`

use std::sync::Arc;

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::store::MemoryStore;
use criterion::Criterion;

fn bench_credentials(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let service = Service::new(Arc::new(MemoryStore::new()));
    let keys: Vec<String> = rt.block_on(async {
        let mut keys = Vec::new();
        for p in 0..10 {
            let project = service
                .create_project(
                    &Caller::operator(),
                    format!("p{p}"),
                    Some("https://www.example.com".into()),
                )
                .await
                .expect("project");
            keys.push(
                service
                    .generate_public_key(&Caller::operator(), project.id)
                    .await
                    .expect("key")
                    .key,
            );
        }
        keys
    });
    let header = format!("Bearer {}", keys[3]);
    let mut group = c.benchmark_group("credentials");
    group.bench_function("public_key_memory_store", |b| {
        b.to_async(&rt).iter(|| async {
            service
                .public_project(&Caller::from_authorization(Some(header.as_bytes())))
                .await
                .expect("valid key")
        })
    });
    group.bench_function("malformed_key_refused", |b| {
        b.to_async(&rt).iter(|| async {
            service
                .public_project(&Caller::from_authorization(Some(b"Bearer pk_live_short")))
                .await
                .expect_err("refused")
        })
    });
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_credentials(&mut criterion);
    criterion.final_summary();
}
