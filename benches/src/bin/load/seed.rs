//! Seeding the load benchmark's SQL database before the servers start.

use super::*;

/// Seeds a SQL database from this process (so the server's memory is its own), or reuses a
/// database seeded earlier with the same spec: a SQLite file's `.seeded.json` beside it, a
/// PostgreSQL database's own seeding record, says so.
pub(super) fn seed_sql(url: &str, spec: Spec) -> Result<Seeded, String> {
    let sqlite_file = url
        .strip_prefix("sqlite://")
        .map(|p| PathBuf::from(p.split('?').next().unwrap_or(p)));
    let marker = sqlite_file
        .as_ref()
        .map(|f| f.with_extension("seeded.json"));
    if let Some(marker) = &marker
        && let Ok(text) = std::fs::read_to_string(marker)
        && let Ok(seeded) = serde_json::from_str::<Seeded>(&text)
        && seeded.spec == spec
    {
        eprintln!("reusing {} (seeded earlier)", shown_url(url));
        return Ok(seeded);
    }
    if let Some(file) = &sqlite_file {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let postgres = url.starts_with("postgres");
    if postgres {
        let record = rt
            .block_on(blogread_benches::harness::seeded_record(url))
            .map_err(|e| format!("reading {}: {e}", shown_url(url)))?;
        if let Some(record) = record {
            return match serde_json::from_str::<Seeded>(&record) {
                Ok(seeded) if seeded.spec == spec => {
                    eprintln!("reusing {} (seeded earlier)", shown_url(url));
                    Ok(seeded)
                }
                _ => Err(format!(
                    "{} was seeded earlier with another data set; give an empty database",
                    shown_url(url)
                )),
            };
        }
    }
    let seeded = rt.block_on(async {
        let store = blogread_core::store::open_store(url)
            .await
            .map_err(|e| blogread_server::config::open_failed(url, e))?;
        let service = Service::new(store);
        let started = std::time::Instant::now();
        let seeded = data::seed(&service, spec, |p| {
            eprintln!(
                "  project {p}/{} seeded ({:.0} s)",
                spec.projects,
                started.elapsed().as_secs_f64()
            )
        })
        .await
        .map_err(|e| format!("seeding {}: {e}", shown_url(url)))?;
        if postgres {
            // Otherwise autovacuum works through the fresh rows during the first measurements
            // (its CPU showed up as PostgreSQL's share of the cached reads).
            eprintln!("  VACUUM (ANALYZE), so that autovacuum stays idle while measuring");
            blogread_benches::harness::vacuum(url)
                .await
                .map_err(|e| format!("vacuuming {}: {e}", shown_url(url)))?;
            let record = serde_json::to_string(&seeded).map_err(|e| e.to_string())?;
            blogread_benches::harness::mark_seeded(url, &record)
                .await
                .map_err(|e| format!("marking {} seeded: {e}", shown_url(url)))?;
        }
        Ok::<_, String>(seeded)
    })?;
    if let Some(marker) = &marker {
        std::fs::write(
            marker,
            serde_json::to_vec(&seeded).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(seeded)
}
