//! A PostgreSQL server for tests (feature `postgres`): the one `BLOGREAD_TEST_POSTGRES_URL`
//! names, and a fresh database of its own for each case, dropped when its guard is. This
//! knows no store, so the store's own tests can use it (`databases.rs` opens stores on it).

use std::io::Write as _;

use sqlx::{Connection, Executor, PgConnection};

/// Drops the test database when the case ends, passed or failed.
pub struct DropDatabase {
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

/// The PostgreSQL server to test against, from `BLOGREAD_TEST_POSTGRES_URL`; `None` (with a
/// note on stderr) when unset, a panic when `BLOGREAD_REQUIRE_POSTGRES=1` asks for it.
pub fn server_url() -> Option<String> {
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
pub async fn fresh_database() -> Option<(String, DropDatabase)> {
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
