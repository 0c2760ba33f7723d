//! The store contract suite against SQLite: each case on a fresh database file in its own
//! temporary directory (removed when the case ends), plus SQLite-specific checks.

use std::sync::Arc;

use blogread_core::store::prelude::*;
use blogread_core::store::{SqliteStore, open_store};
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

/// A database made by an earlier release (the first three migrations, with a published post,
/// its slug and category rows) upgrades in place: the rebuild of the blogs table for scheduled
/// publishing keeps every row and every reference to it.
#[tokio::test]
async fn a_database_from_before_scheduling_upgrades_with_its_posts_slugs_and_categories() {
    use blogread_core::domain::{BlogId, BlogInput, ProjectId};
    use blogread_core::store::PageQuery;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let old_migrations = dir.path().join("migrations");
    std::fs::create_dir(&old_migrations).unwrap();
    let source = std::path::Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .expect("cargo sets CARGO_MANIFEST_DIR when it runs a test"),
    )
    .join("migrations/sqlite");
    for name in [
        "0001_initial.sql",
        "0002_etag_epoch.sql",
        "0003_pending_firings.sql",
    ] {
        std::fs::copy(source.join(name), old_migrations.join(name)).unwrap();
    }
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true)
        .foreign_keys(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    sqlx::migrate::Migrator::new(old_migrations.as_path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    let project = "0190a000-0000-7000-8000-000000000001";
    let blog = "0190a000-0000-7000-8000-000000000002";
    for statement in [
        format!(
            "INSERT INTO projects (id, name, created_at, content_version, published_count) \
             VALUES ('{project}', 'Old', 1700000000, 3, 1)"
        ),
        format!(
            "INSERT INTO blogs (id, project_id, status, created_at, updated_at, published_at, \
             published_updated_at, pub_title, pub_slug, pub_excerpt, pub_meta_title, \
             pub_meta_description, pub_featured_image_url, pub_categories, pub_tags, title, slug, \
             excerpt, meta_title, meta_description, featured_image_url, categories, tags, \
             pub_content, content) VALUES ('{blog}', '{project}', 'published', 1700000000, \
             1700000000, 1700000000, 1700000000, 'Hello', 'hello', '', '', '', NULL, '[\"News\"]', \
             '[]', 'Hello', 'hello', '', '', '', NULL, '[\"News\"]', '[]', '<p>hi</p>', '<p>hi</p>')"
        ),
        format!(
            "INSERT INTO blog_slugs (project_id, slug, blog_id) VALUES ('{project}', 'hello', '{blog}')"
        ),
        format!(
            "INSERT INTO blog_categories (blog_id, project_id, category_key, published_at) \
             VALUES ('{blog}', '{project}', 'news', 1700000000)"
        ),
    ] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
            .execute(&pool)
            .await
            .unwrap();
    }
    pool.close().await;

    let store = SqliteStore::connect(&format!("sqlite://{}", path.display()))
        .await
        .expect("the upgrade runs");
    let project = ProjectId::from_uuid(uuid::Uuid::parse_str(project).unwrap());
    let page = store
        .published_page(
            project,
            &PageQuery {
                limit: 10,
                offset: 0,
                category: Some("news".into()),
                include_content: true,
            },
        )
        .await
        .unwrap();
    assert_eq!(page.total, 1, "category rows kept");
    assert_eq!(page.blogs[0].content.as_deref(), Some("<p>hi</p>"));
    let taken = blogread_core::lifecycle::create(
        project,
        BlogInput {
            title: Some("Again".into()),
            slug: Some("hello".into()),
            ..Default::default()
        },
        blogread_core::domain::Timestamp::now(),
    )
    .unwrap();
    assert!(
        matches!(
            store.insert_blog(&taken).await,
            Err(blogread_core::Error::Conflict(_))
        ),
        "slug rows kept"
    );
    store
        .delete_blog(
            project,
            BlogId::from_uuid(uuid::Uuid::parse_str(blog).unwrap()),
            blogread_core::domain::Timestamp::now(),
        )
        .await
        .unwrap();
    store
        .insert_blog(&taken)
        .await
        .expect("the slug went with its blog: the reference holds");
    store.close().await;
}

/// Bodies published before link templates existed (no row in `blog_templates`) are resolved in
/// full until the next start compiles them; the answers are the same before and after.
#[tokio::test]
async fn bodies_without_a_template_are_compiled_at_start_up_and_answer_the_same() {
    use blogread_core::testing::Fixture;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("templates.db");
    let url = format!("sqlite://{}", path.display());
    let store = Arc::new(SqliteStore::connect(&url).await.unwrap());
    let f = Fixture::new(store.clone(), Some("https://www.example.com")).await;
    f.published("target", "Target", "<p>t</p>").await;
    f.published(
        "linker",
        "Linker",
        "<p>See [INTERNAL:target] and <a href=\"[INTERNAL:gone]\">this</a>.</p>",
    )
    .await;
    let read = |f: &Fixture| {
        let (service, key) = (f.service.clone(), f.key());
        async move {
            service
                .get_blog(&key, "linker", None)
                .await
                .unwrap()
                .into_value()
                .unwrap()
                .value()
                .content
        }
    };
    let compiled = read(&f).await;
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let templates = |pool: &sqlx::SqlitePool| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM blog_templates WHERE template <> ''")
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(
        templates(&pool).await,
        1,
        "the linker's body was compiled at publish"
    );

    sqlx::query("DELETE FROM blog_templates")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(
        read(&f).await,
        compiled,
        "resolved in full without its template"
    );
    store.close().await;

    let reopened = SqliteStore::connect(&url).await.unwrap();
    assert_eq!(templates(&pool).await, 1, "compiled again at start-up");
    reopened.close().await;
    pool.close().await;
    assert!(compiled.contains("<a href=\"https://www.example.com/blog/target/\">Target</a>"));
}

/// Templates stored by a version before word counts were kept (`v1`) get their count at the
/// next start, once: the database is then marked, and reads answer the same throughout.
#[tokio::test]
async fn templates_stored_without_word_counts_get_them_at_start_up() {
    use blogread_core::testing::Fixture;

    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("counts.db").display());
    let store = Arc::new(SqliteStore::connect(&url).await.unwrap());
    let f = Fixture::new(store.clone(), None).await;
    f.published("target", "Target Post", "<p>t</p>").await;
    f.published("linker", "Linker", "<p>One [INTERNAL:target] two.</p>")
        .await;
    let read = |f: &Fixture| {
        let (service, key) = (f.service.clone(), f.key());
        async move {
            let blog = service
                .get_blog(&key, "linker", None)
                .await
                .unwrap()
                .into_value()
                .unwrap()
                .value();
            (blog.content, blog.word_count)
        }
    };
    let answer = read(&f).await;
    assert_eq!(answer.1, 4, "one, two and the two words of the title");

    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
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
    // As the previous version stored it, in a database marked as maybe holding such.
    let old = current.replacen("v2 2", "v1", 1);
    sqlx::query("UPDATE blog_templates SET template = $1 WHERE template <> ''")
        .bind(&old)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE blogread_meta SET templates_version = 1")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(
        read(&f).await,
        answer,
        "a v1 template is read, counted in full"
    );
    store.close().await;

    let reopened = SqliteStore::connect(&url).await.unwrap();
    assert_eq!(stored().await, current, "upgraded at start-up");
    let version: i64 = sqlx::query_scalar("SELECT templates_version FROM blogread_meta")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(version, 2, "marked, so the next start reads no template");
    reopened.close().await;
    pool.close().await;
}

/// A database from before the slug index (its table and migration record gone, the lists
/// kept) gains the index from the lists when it is opened.
#[tokio::test]
async fn a_database_from_before_the_slug_index_indexes_its_stored_lists() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("slugs.db").display());
    let store: Arc<dyn Store> = Arc::new(SqliteStore::connect(&url).await.unwrap());
    let raw = url.clone();
    use blogread_core::testing::contract::{
        BEFORE_THE_SLUG_INDEX, the_slug_index_migration_indexes_the_stored_lists,
    };
    the_slug_index_migration_indexes_the_stored_lists(
        store,
        || async move {
            let pool = sqlx::SqlitePool::connect(&raw).await.unwrap();
            sqlx::raw_sql(BEFORE_THE_SLUG_INDEX)
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        },
        || async move { Arc::new(SqliteStore::connect(&url).await.unwrap()) as Arc<dyn Store> },
    )
    .await;
}

/// SQLite finds a key in a b-tree by comparing whole records, and reads the whole of a record
/// that overflows its page to compare it: a b-tree the placeholder index searches must not
/// hold a body's placeholder list (up to a few MiB). When `blog_placeholders` was such a table
/// (without row ids, and with a covering index holding the list) and the slug rows' foreign
/// key referred to it, indexing a body naming 24,000 distinct slugs looked its own list up
/// once per slug: 10.9 s holding the only writer. Now the lists are found by row id, and the
/// keys of the index hold only small values.
#[tokio::test]
async fn no_searched_key_of_the_placeholder_index_holds_a_list() {
    use rusqlite::Connection;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.db");
    let store = SqliteStore::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    store.close().await;
    let conn = Connection::open(&path).unwrap();
    let without_rowid: bool = conn
        .query_row(
            "SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_schema WHERE name = 'blog_placeholders'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert!(!without_rowid, "the lists are found by row id");
    let mut indexes = conn
        .prepare("SELECT name FROM pragma_index_list('blog_placeholders')")
        .unwrap();
    let names: Vec<String> = indexes
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(names.len() >= 2, "{names:?}");
    for name in names {
        let columns: Vec<String> = conn
            .prepare("SELECT name FROM pragma_index_info(?1)")
            .unwrap()
            .query_map([&name], |row| row.get::<_, Option<String>>(0))
            .unwrap()
            .filter_map(|c| c.unwrap())
            .collect();
        assert!(
            !columns.iter().any(|c| c == "placeholders"),
            "{name} holds the lists: {columns:?}"
        );
    }
    let referring: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema s, pragma_foreign_key_list(s.name) f \
             WHERE s.type = 'table' AND f.\"table\" = 'blog_placeholders'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(referring, 0, "no foreign key looks a list's row up");
}

/// A body naming many distinct slugs is indexed whole: each slug once, found by its slug.
#[tokio::test]
async fn a_body_naming_thousands_of_distinct_slugs_is_indexed_whole() {
    use blogread_core::testing::Fixture;

    let (store, _dir) = fresh_sqlite().await;
    let f = Fixture::new(store.clone(), None).await;
    let body: String = (0..5000)
        .map(|i| format!("<p>[INTERNAL:slug-{i}]</p>"))
        .collect();
    f.published("many", "Many", &body).await;
    let mut slugs = store.linked_slugs(f.project).await.unwrap();
    slugs.sort();
    assert_eq!(slugs.len(), 5000);
    let keys = store
        .link_body_keys(f.project, Some(&[Some("slug-4999".to_owned())]))
        .await
        .unwrap();
    assert_eq!(keys.len(), 2, "the working copy and the published one");
    assert!(keys.iter().all(|k| k.placeholders == 5000), "{keys:?}");
}
