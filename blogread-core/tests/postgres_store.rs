//! The store contract suite against PostgreSQL. Each case creates its own database
//! (`blogread_test_<uuid>`) on the server named by `BLOGREAD_TEST_POSTGRES_URL` and drops it
//! when the case ends, so runs never see each other's rows. Without the variable each case
//! prints that it was skipped and passes, unless `BLOGREAD_REQUIRE_POSTGRES=1`, which makes a
//! missing server a failure. `scripts/with-postgres` provides a throw-away server.

use blogread_core::store::prelude::*;
use blogread_core::store::{PostgresStore, open_store};
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

/// The store's connections plan each prepared statement once (a page's `LIMIT $n` made
/// PostgreSQL plan the public reads again at every execution), unless the URL says otherwise.
#[tokio::test]
async fn connections_use_generic_plans_unless_the_url_sets_the_plan_cache_mode() {
    use sqlx::Connection as _;

    let Some((url, _guard)) = fresh_database().await else {
        return;
    };
    let mode = |url: String| async move {
        let options = PostgresStore::connect_options(&url).unwrap();
        let mut conn = sqlx::postgres::PgConnection::connect_with(&options)
            .await
            .unwrap();
        let mode: String = sqlx::query_scalar("SHOW plan_cache_mode")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        mode
    };
    assert_eq!(mode(url.clone()).await, "force_generic_plan");
    let separator = if url.contains('?') { '&' } else { '?' };
    let own = format!("{url}{separator}options=-c%20plan_cache_mode%3Dforce_custom_plan");
    assert_eq!(
        mode(own).await,
        "force_custom_plan",
        "the URL's own setting wins"
    );
}

/// Checks that arrive together share queries (see `store/postgres/keys.rs`); each must still
/// get the answer for its own key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_key_checks_each_get_the_project_of_their_own_key() {
    use std::sync::Arc;

    use blogread_core::domain::SecretHash;
    use blogread_core::testing::Fixture;

    let Some((url, _guard)) = fresh_database().await else {
        return;
    };
    let store: Arc<dyn Store> = Arc::new(PostgresStore::connect(&url).await.unwrap());
    let a = Fixture::new(store.clone(), None).await;
    let b = a.another(None).await;
    let keys = [
        (a.public_key.clone(), Some(a.project)),
        (b.public_key.clone(), Some(b.project)),
        ("pk_live_not-a-key-of-anyone".to_owned(), None),
    ];
    let mut checks = tokio::task::JoinSet::new();
    for i in 0..300 {
        let (key, expected) = keys[i % keys.len()].clone();
        let store = store.clone();
        checks.spawn(async move {
            let found = store
                .project_by_public_key(&SecretHash::of(&key))
                .await
                .expect("the check is answered");
            assert_eq!(found.map(|p| p.id), expected, "check {i}");
        });
    }
    while let Some(done) = checks.join_next().await {
        done.expect("every check got its own answer");
    }

    // A rotation is seen by the very next check, batched or not.
    a.service
        .rotate_public_key(&blogread_core::auth::Caller::operator(), a.project)
        .await
        .unwrap();
    let old = store
        .project_by_public_key(&SecretHash::of(&a.public_key))
        .await
        .unwrap();
    assert_eq!(old, None, "the rotated key opens nothing");
}

#[tokio::test]
async fn key_check_on_a_closed_store_is_an_error_not_a_hang() {
    use blogread_core::domain::SecretHash;

    let Some((url, _guard)) = fresh_database().await else {
        return;
    };
    let store = PostgresStore::connect(&url).await.unwrap();
    store.close().await;
    let err = store
        .project_by_public_key(&SecretHash::of("pk_live_whatever"))
        .await
        .expect_err("the pool is closed");
    let cause = std::error::Error::source(&err).map(ToString::to_string);
    assert!(
        cause
            .as_deref()
            .is_some_and(|c| c.contains("public key check") && c.contains("closed")),
        "the cause says what failed, and why: {cause:?}"
    );
}

/// Templates stored by a version before word counts were kept (`v1`) get their count at the
/// next start, once (the SQLite twin: `sqlite_store.rs`).
#[tokio::test]
async fn templates_stored_without_word_counts_get_them_at_start_up() {
    use std::sync::Arc;

    use blogread_core::testing::Fixture;

    let Some((url, _guard)) = fresh_database().await else {
        return;
    };
    let store = Arc::new(PostgresStore::connect(&url).await.unwrap());
    let f = Fixture::new(store.clone(), None).await;
    f.published("target", "Target Post", "<p>t</p>").await;
    f.published("linker", "Linker", "<p>One [INTERNAL:target] two.</p>")
        .await;
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let stored = || {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, String>(
                "SELECT template FROM blog_templates WHERE template <> ''",
            )
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    let current = stored().await;
    assert!(current.starts_with("v2 2 target\n"), "{current}");
    sqlx::query("UPDATE blog_templates SET template = $1 WHERE template <> ''")
        .bind(current.replacen("v2 2", "v1", 1))
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE blogread_meta SET templates_version = 1")
        .execute(&pool)
        .await
        .unwrap();
    store.close().await;

    let reopened = Arc::new(PostgresStore::connect(&url).await.unwrap());
    assert_eq!(stored().await, current, "upgraded at start-up");
    let version: i32 = sqlx::query_scalar("SELECT templates_version FROM blogread_meta")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(version, 2);
    reopened.close().await;
    pool.close().await;
}

/// A database from before the slug index (its table and migration record gone, the lists
/// kept) gains the index from the lists when it is opened.
#[tokio::test]
async fn a_database_from_before_the_slug_index_indexes_its_stored_lists() {
    use std::sync::Arc;

    let Some((url, _guard)) = fresh_database().await else {
        return;
    };
    let store: Arc<dyn Store> = Arc::new(PostgresStore::connect(&url).await.unwrap());
    let raw = url.clone();
    use blogread_core::testing::contract::{
        BEFORE_THE_SLUG_INDEX, the_slug_index_migration_indexes_the_stored_lists,
    };
    the_slug_index_migration_indexes_the_stored_lists(
        store.clone(),
        || async move {
            let pool = sqlx::PgPool::connect(&raw).await.unwrap();
            sqlx::raw_sql(BEFORE_THE_SLUG_INDEX)
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        },
        || async move { Arc::new(PostgresStore::connect(&url).await.unwrap()) as Arc<dyn Store> },
    )
    .await;
    store.close().await;
}

/// A database restored from `pg_dump` with `pg_restore` (the commands the operations guide
/// gives), into the same database or a new one, is another database to every ETag and
/// changes-feed cursor issued before: it draws a new ETag epoch when a store opens it, once.
#[tokio::test]
async fn a_database_restored_from_a_dump_draws_a_new_etag_epoch_once() {
    let Some((url, _guard)) = fresh_database().await else {
        return;
    };
    let bindir = std::env::var("BLOGREAD_TEST_POSTGRES_BINDIR")
        .expect("scripts/with-postgres exports BLOGREAD_TEST_POSTGRES_BINDIR");
    let tool = |name: &str| std::path::Path::new(&bindir).join(name);
    let run = |command: &mut std::process::Command| {
        let out = command.output().expect("run a PostgreSQL tool");
        assert!(
            out.status.success(),
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let epoch_of = |url: String| async move {
        let store = PostgresStore::connect(&url).await.unwrap();
        let epoch = store.etag_epoch().await.unwrap();
        store.close().await;
        epoch
    };
    let live = epoch_of(url.clone()).await;
    assert_eq!(
        epoch_of(url.clone()).await,
        live,
        "a restart is the same database"
    );

    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("blogread.dump");
    run(std::process::Command::new(tool("pg_dump"))
        .args(["--format=custom", "--file"])
        .arg(&dump)
        .arg(&url));
    // Restored over the database itself...
    run(std::process::Command::new(tool("pg_restore"))
        .args(["--clean", "--if-exists", "--no-owner", "--dbname", &url])
        .arg(&dump));
    let restored = epoch_of(url.clone()).await;
    assert_ne!(restored, live, "a restore is another database");
    assert_eq!(epoch_of(url.clone()).await, restored, "once");
    // ...and into a new database.
    let Some((other, _other_guard)) = fresh_database().await else {
        return;
    };
    run(std::process::Command::new(tool("pg_restore"))
        .args(["--no-owner", "--dbname", &other])
        .arg(&dump));
    let elsewhere = epoch_of(other).await;
    assert!(elsewhere != live && elsewhere != restored);
}
