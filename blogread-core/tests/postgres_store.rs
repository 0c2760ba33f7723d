//! The store contract suite against PostgreSQL. Each case creates its own database
//! (`blogread_test_<uuid>`) on the server named by `BLOGREAD_TEST_POSTGRES_URL` and drops it
//! when the case ends, so runs never see each other's rows. Without the variable each case
//! prints that it was skipped and passes, unless `BLOGREAD_REQUIRE_POSTGRES=1`, which makes a
//! missing server a failure. `scripts/with-postgres` provides a throw-away server.

use blogread_core::store::{PostgresStore, Store, open_store};
use blogread_core::testing::databases::{fresh_database, fresh_postgres};

blogread_core::store_contract_tests!(guarded fresh_postgres().await);

#[tokio::test]
async fn reconnecting_runs_no_migration_twice_and_keeps_the_data() {
    use blogread_core::domain::{Project, ProjectName, Timestamp};
    let Some((url, _guard)) = fresh_database().await else {
        return;
    };
    let project = Project::new(
        ProjectName::parse("Kept").unwrap(),
        None,
        Timestamp::from_unix_seconds(1_700_000_000).unwrap(),
    );
    let first = PostgresStore::connect(&url).await.unwrap();
    first.insert_project(&project).await.unwrap();
    first.close().await;
    for _ in 0..2 {
        let again = PostgresStore::connect(&url)
            .await
            .expect("migrations are idempotent");
        assert_eq!(
            again.project(project.id).await.unwrap(),
            Some(project.clone())
        );
        again.close().await;
    }
    let by_url = open_store(&url)
        .await
        .expect("open_store takes postgres://");
    by_url.ping().await.unwrap();
    let alias = url.replacen("postgres://", "postgresql://", 1);
    open_store(&alias)
        .await
        .expect("and postgresql://")
        .ping()
        .await
        .unwrap();
}
