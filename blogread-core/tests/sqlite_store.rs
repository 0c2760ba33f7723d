//! The store contract suite against SQLite: each case on a fresh database file in its own
//! temporary directory (removed when the case ends), plus SQLite-specific checks.

use std::sync::Arc;

use blogread_core::store::{SqliteStore, Store, open_store};
use blogread_core::testing::databases::fresh_sqlite;

blogread_core::store_contract_tests!(guarded Some(fresh_sqlite().await));

#[tokio::test]
async fn reopening_a_database_runs_no_migration_twice_and_keeps_the_data() {
    use blogread_core::domain::{Project, ProjectName, Timestamp};
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("nested.db").display());
    let project = Project::new(
        ProjectName::parse("Kept").unwrap(),
        None,
        Timestamp::from_unix_seconds(1_700_000_000).unwrap(),
    );
    let first = SqliteStore::connect(&url).await.unwrap();
    first.insert_project(&project).await.unwrap();
    first.close().await;
    for _ in 0..2 {
        let again = SqliteStore::connect(&url)
            .await
            .expect("migrations are idempotent");
        assert_eq!(
            again.project(project.id).await.unwrap(),
            Some(project.clone())
        );
        again.close().await;
    }
}

#[tokio::test]
async fn open_store_picks_the_backend_from_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("by-url.db");
    let store = open_store(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    store.ping().await.unwrap();
    assert!(path.exists(), "the file is created when missing");
    let store = open_store(&format!("sqlite:{}", dir.path().join("short.db").display()))
        .await
        .unwrap();
    store.ping().await.unwrap();
    let memory = open_store("sqlite::memory:").await.unwrap();
    memory.ping().await.unwrap();
    let in_process = open_store("memory:").await.unwrap();
    in_process.ping().await.unwrap();
    for bad in ["mysql://localhost/db", "blogread.db", ""] {
        let err = open_store(bad)
            .await
            .err()
            .expect("unsupported URL is a configuration error");
        assert!(
            matches!(err, blogread_core::Error::Config(ref m) if m.contains("sqlite://")),
            "{bad}: {err:?}"
        );
    }
}

#[tokio::test]
async fn the_in_memory_database_runs_the_contract_basics() {
    let store: Arc<dyn Store> = Arc::new(SqliteStore::connect("sqlite::memory:").await.unwrap());
    blogread_core::testing::contract::lifecycle_moves_report_their_events(store.clone()).await;
    blogread_core::testing::contract::category_filter_is_case_insensitive_with_filtered_total(
        store,
    )
    .await;
}
