//! The store contract suite against PostgreSQL. Each case creates its own database
//! (`blogread_test_<uuid>`) on the server named by `BLOGREAD_TEST_POSTGRES_URL` and drops it
//! when the case ends, so runs never see each other's rows. Without the variable each case
//! prints that it was skipped and passes, unless `BLOGREAD_REQUIRE_POSTGRES=1`, which makes a
//! missing server a failure. `scripts/with-postgres` provides a throw-away server.

use std::io::Write as _;
use std::sync::Arc;

use blogread_core::store::{PostgresStore, Store, open_store};
use sqlx::{Connection, Executor, PgConnection};

/// Drops the test database when the case ends, passed or failed.
struct DropDatabase {
    admin_url: String,
    name: String,
}

impl Drop for DropDatabase {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Drop runs inside the test's runtime, which cannot block on itself: use a thread
        // with a runtime of its own. WITH (FORCE) ends connections the pool still holds.
        let done = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime")
                .block_on(async move {
                    let mut admin = PgConnection::connect(&admin_url).await?;
                    admin
                        .execute(sqlx::AssertSqlSafe(format!(
                            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                        )))
                        .await?;
                    admin.close().await
                })
        })
        .join();
        if !matches!(done, Ok(Ok(()))) {
            eprintln!("could not drop test database {}: {done:?}", self.name);
        }
    }
}

fn server_url() -> Option<String> {
    match std::env::var("BLOGREAD_TEST_POSTGRES_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ if std::env::var("BLOGREAD_REQUIRE_POSTGRES").as_deref() == Ok("1") => panic!(
            "BLOGREAD_REQUIRE_POSTGRES=1 but BLOGREAD_TEST_POSTGRES_URL is not set: \
             run the tests under scripts/with-postgres"
        ),
        _ => {
            // Straight to stderr, past the test harness's capture, so that the skip shows.
            // The harness names each test's thread after the test.
            let case = std::thread::current().name().unwrap_or("a case").to_owned();
            let _ = writeln!(
                std::io::stderr(),
                "skipped {case}: BLOGREAD_TEST_POSTGRES_URL is not set (run under scripts/with-postgres)"
            );
            None
        }
    }
}

/// A fresh, empty database on the test server, with its URL and its guard.
async fn fresh_database() -> Option<(String, DropDatabase)> {
    let admin_url = server_url()?;
    let name = format!("blogread_test_{}", uuid::Uuid::now_v7().simple());
    let mut admin = PgConnection::connect(&admin_url)
        .await
        .expect("connect to BLOGREAD_TEST_POSTGRES_URL");
    // The name is ours (a UUID), not user input: it may be spliced into the statement.
    admin
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .await
        .expect("create test database");
    admin.close().await.ok();
    let mut url = url::Url::parse(&admin_url).expect("BLOGREAD_TEST_POSTGRES_URL is a URL");
    url.set_path(&name);
    Some((url.into(), DropDatabase { admin_url, name }))
}

async fn postgres() -> Option<(Arc<dyn Store>, DropDatabase)> {
    let (url, guard) = fresh_database().await?;
    let store = PostgresStore::connect(&url)
        .await
        .expect("open PostgreSQL store");
    Some((Arc::new(store), guard))
}

blogread_core::store_contract_tests!(guarded postgres().await);

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
