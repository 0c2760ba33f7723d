//! The store contract suite against the in-memory store.

use std::sync::Arc;

use blogread_core::store::{MemoryStore, Store};

fn memory() -> Option<Arc<dyn Store>> {
    Some(Arc::new(MemoryStore::new()))
}

blogread_core::store_contract_tests!(memory());
