//! Fresh, throw-away databases for tests: a SQLite file in its own temporary directory, and
//! (feature `postgres`) a PostgreSQL database of its own on the server named by
//! `BLOGREAD_TEST_POSTGRES_URL`, dropped when its guard is. `scripts/with-postgres` provides
//! that server; without it PostgreSQL tests print that they were skipped, unless
//! `BLOGREAD_REQUIRE_POSTGRES=1` makes a missing server a failure.

#[cfg(feature = "sqlite")]
pub use sqlite::*;

#[cfg(feature = "postgres")]
pub use postgres::*;

#[cfg(feature = "sqlite")]
mod sqlite {
    use std::sync::Arc;

    use crate::store::{SqliteStore, Store};

    /// A store on a fresh SQLite file; the directory is removed when the guard is dropped.
    pub async fn fresh_sqlite() -> (Arc<dyn Store>, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("blogread.db").display());
        let store = SqliteStore::connect(&url).await.expect("open SQLite store");
        (Arc::new(store), dir)
    }
}

#[cfg(feature = "postgres")]
mod postgres {
    use std::sync::Arc;

    pub use super::super::postgres_server::{DropDatabase, fresh_database, server_url};
    use crate::store::{PostgresStore, Store};

    /// A store on a fresh PostgreSQL database, or `None` when no server is configured.
    pub async fn fresh_postgres() -> Option<(Arc<dyn Store>, DropDatabase)> {
        let (url, guard) = fresh_database().await?;
        let store = PostgresStore::connect(&url)
            .await
            .expect("open PostgreSQL store");
        Some((Arc::new(store), guard))
    }
}
