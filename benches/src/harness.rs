//! What the end-to-end benchmark binaries share: a work folder and a runtime to run in, the
//! real server on loopback, the vacuum and seeding mark of a PostgreSQL database, and the
//! median of timed runs.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The median of `times` (the upper one of an even count); `times` must not be empty.
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Runs `run` on a two-thread runtime with `work_dir`, or with a new folder of the temporary
/// directory named after `name` and the process (removed afterwards).
pub fn in_work_dir<F, Fut>(work_dir: Option<&Path>, name: &str, run: F)
where
    F: FnOnce(PathBuf) -> Fut,
    Fut: Future<Output = ()>,
{
    let dir = match work_dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::temp_dir().join(format!("blogread-{name}-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).expect("work folder");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run(dir.clone()));
    if work_dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Serves `service` with the real server on a free loopback port; returns its base URL.
pub async fn serve(service: blogread_core::Service) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let server = blogread_server::Server::new(service);
    tokio::spawn(server.serve(listener, std::future::pending::<()>()));
    base
}

/// `VACUUM (ANALYZE)` on the PostgreSQL database `url` names, after seeding it: otherwise
/// autovacuum works through the fresh rows during the first measurements, and index-only
/// scans visit the table until the visibility map is set.
pub async fn vacuum(url: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection as _;
    let mut conn = sqlx::postgres::PgConnection::connect(url).await?;
    sqlx::query("VACUUM (ANALYZE)").execute(&mut conn).await?;
    conn.close().await
}

/// The seeding record a PostgreSQL database holds in its table `blogread_bench_seeded` (the
/// JSON of what was seeded, see [`mark_seeded`]), if any: a later run on the same database
/// reuses the data instead of seeding again.
pub async fn seeded_record(url: &str) -> Result<Option<String>, sqlx::Error> {
    use sqlx::Connection as _;
    let mut conn = sqlx::postgres::PgConnection::connect(url).await?;
    let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
        .bind("blogread_bench_seeded")
        .fetch_one(&mut conn)
        .await?;
    let record = if exists {
        sqlx::query_scalar("SELECT record FROM blogread_bench_seeded")
            .fetch_optional(&mut conn)
            .await?
    } else {
        None
    };
    conn.close().await?;
    Ok(record)
}

/// Writes `record` (what was seeded) into the PostgreSQL database `url` names, beside the
/// seeded data, for [`seeded_record`].
pub async fn mark_seeded(url: &str, record: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection as _;
    let mut conn = sqlx::postgres::PgConnection::connect(url).await?;
    sqlx::query("CREATE TABLE IF NOT EXISTS blogread_bench_seeded (record text NOT NULL)")
        .execute(&mut conn)
        .await?;
    sqlx::query("DELETE FROM blogread_bench_seeded")
        .execute(&mut conn)
        .await?;
    sqlx::query("INSERT INTO blogread_bench_seeded (record) VALUES ($1)")
        .bind(record)
        .execute(&mut conn)
        .await?;
    conn.close().await
}
