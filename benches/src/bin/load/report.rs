//! The load benchmark's report: the Markdown tables `benches/README.md` shows, from the
//! measurements `load.rs` took, and the whole-project read it reports beside them.

use super::*;

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or_else(String::new, |k| {
            format!(", {:.0} GiB", k as f64 / 1048576.0)
        });
    format!("{cores} cores ({cpu}){total}")
}

#[allow(clippy::too_many_arguments)]
pub(super) fn report(
    args: &RunArgs,
    url: &str,
    spec: &Spec,
    duration: f64,
    endpoints: &[Endpoint],
    captured: &[client::Captured],
    results: &[[Option<Measured>; 3]],
    startup_peak: Option<f64>,
    overall_peak: f64,
) -> String {
    let mut out = String::new();
    let date = chrono_like_now();
    out.push_str(&format!(
        "Load benchmark, {date}, commit {}\n\n\
         - machine: {}; **the 2 cores are shared by the client and the server under test**, \
         and the client is the same for blogread and the floor ({} keep-alive connections, {} \
         client threads, closed loop)\n\
         - data: {} projects x {} published blogs (~8 KB, {} internal links each), database \
         `{}`; blogread's response cache {} MiB\n\
         - each endpoint: {:.0} s warm-up + {:.0} s measured per server, {} round(s); the \
         floor is poem answering the bytes captured from blogread from memory\n\
         - blogread runs as `blogread-server serve` does (same runtime, middleware and `info` \
         request log, written to a discarded stderr)\n\n",
        args.commit,
        machine(),
        args.connections,
        args.client_threads,
        spec.projects,
        spec.blogs_per_project,
        spec.links_per_post,
        shown_url(url),
        args.response_cache_mib,
        args.warmup,
        duration,
        args.rounds,
    ));
    out.push_str(
        "| endpoint | body | blogread req/s | p50 ms | p99 ms | CPU µs/req | floor req/s | p50 ms | p99 ms | CPU µs/req | ratio | target | met | blogread peak RSS |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n",
    );
    for (i, e) in endpoints.iter().enumerate() {
        let (Some(b), Some(f), Some(floor_ref)) =
            (&results[i][0], &results[i][1], floor_of(e, i, results))
        else {
            continue;
        };
        let ratio = b.stats.rps() / floor_ref.stats.rps();
        let body = if e.if_none_match.is_some() {
            "304".to_owned()
        } else {
            human_bytes(captured[i].body.len())
        };
        let vs = if e.compare_with.is_some() {
            " (vs floor's 200)"
        } else {
            ""
        };
        let errors = if b.stats.errors + f.stats.errors > 0 {
            format!(" ⚠ errors {}/{}", b.stats.errors, f.stats.errors)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "| {}{errors} | {body} | {} | {} | {:.2}{vs} | ≥ {} | {} | {} |\n",
            e.name,
            rate_cells(b),
            rate_cells(f),
            ratio,
            e.target,
            if ratio >= e.target { "yes" } else { "**no**" },
            fmt_opt(b.peak_rss_mib, 1).to_owned() + " MiB",
        ));
    }
    out.push_str(&format!(
        "\nblogread server peak memory (VmHWM): {:.1} MiB during the runs (target < 150 MiB: {}); \
         {} MiB after start-up{}.\n",
        overall_peak,
        if overall_peak < 150.0 {
            "met"
        } else {
            "**missed**"
        },
        fmt_opt(startup_peak, 1),
        if url == "memory:" {
            " (the in-memory store holds the whole data set in the server process)"
        } else {
            ""
        }
    ));
    let db_cpu: Vec<String> = endpoints
        .iter()
        .zip(results)
        .filter_map(|(e, r)| {
            let us = r[0].as_ref()?.db_cpu_us_per_request?;
            Some(format!("{} {us:.0} µs", e.name))
        })
        .collect();
    if !db_cpu.is_empty() {
        out.push_str(&format!(
            "\nPostgreSQL server processes' CPU per blogread request (every local `postgres` \
             process, on the same 2 cores, not in the CPU column): {}.\n",
            db_cpu.join(", ")
        ));
    }
    if results.iter().any(|r| r[2].is_some()) {
        out.push_str(&cold_report(url, endpoints, results));
    }
    out
}

/// The floor measurement endpoint `i` is compared with: its own, or the row it names (the
/// 304 with the list's 200). `None` when that was not measured.
fn floor_of<'a>(
    e: &Endpoint,
    i: usize,
    results: &'a [[Option<Measured>; 3]],
) -> Option<&'a Measured> {
    results[e.compare_with.unwrap_or(i)][1].as_ref()
}

/// The cold table: each endpoint on the server whose response cache is off, beside the warm
/// (cached) server and the floor, with both ratios.
fn cold_report(url: &str, endpoints: &[Endpoint], results: &[[Option<Measured>; 3]]) -> String {
    let postgres = url.starts_with("postgres");
    let mut out = format!(
        "\n**Cold reads** (a second blogread server on the same database with \
         `--response-cache-mib 0`: every request makes its answer, as the first build after \
         a publish does, from the per-post fragments its warm-up filled, as a publish leaves \
         those of the posts it did not change) on {}.\n\n\
         | endpoint | cold req/s | p50 ms | p99 ms | CPU µs/req |{} warm req/s | floor req/s | cold ratio | warm ratio | cold target | met |\n\
         |---|---:|---:|---:|---:|{}---:|---:|---:|---:|---:|---|\n",
        if postgres { "PostgreSQL" } else { "SQLite" },
        if postgres {
            " PostgreSQL CPU µs/req |"
        } else {
            ""
        },
        if postgres { "---:|" } else { "" },
    );
    for (i, e) in endpoints.iter().enumerate() {
        let (Some(k), Some(_), Some(floor)) =
            (&results[i][2], &results[i][1], floor_of(e, i, results))
        else {
            continue;
        };
        let cold_ratio = k.stats.rps() / floor.stats.rps();
        let target = cold_target(e.name, postgres);
        let warm = results[i][0].as_ref();
        let warm_ratio = warm.map(|w| w.stats.rps() / floor.stats.rps());
        let errors = if k.stats.errors > 0 {
            format!(" ⚠ errors {}", k.stats.errors)
        } else {
            String::new()
        };
        let db = if postgres {
            format!(" {} |", fmt_opt(k.db_cpu_us_per_request, 0))
        } else {
            String::new()
        };
        out.push_str(&format!(
            "| {}{errors} | {} |{db} {} | {:.0} | {:.2} | {} | ≥ {target} | {} |\n",
            e.name,
            rate_cells(k),
            warm.map_or_else(|| "n/a".to_owned(), |w| format!("{:.0}", w.stats.rps())),
            floor.stats.rps(),
            cold_ratio,
            fmt_opt(warm_ratio, 2),
            if cold_ratio >= target {
                "yes"
            } else {
                "**no**"
            },
        ));
    }
    out
}

/// The cold target of endpoint `name`, a share of the floor's rate: the first reads after a
/// publish, with the fragments of the posts it did not change.
fn cold_target(name: &str, postgres: bool) -> f64 {
    match (name, postgres) {
        ("list 50, no content", false) => 0.30,
        ("list 100 with content", false) => 0.60,
        ("single blog", false) => 0.20,
        ("list 100 with content", true) => 0.50,
        (_, true) => 0.15,
        (_, false) => 0.25,
    }
}

/// A server's four cells of a results row: req/s, p50 ms, p99 ms, CPU µs per request.
fn rate_cells(m: &Measured) -> String {
    format!(
        "{:.0} | {:.2} | {:.2} | {}",
        m.stats.rps(),
        m.stats.latency_ms(0.5),
        m.stats.latency_ms(0.99),
        fmt_opt(m.cpu_us_per_request, 0)
    )
}

fn fmt_opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "n/a".into(), |v| format!("{v:.decimals$}"))
}

fn human_bytes(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{:.2} MiB", n as f64 / 1048576.0)
    } else {
        format!("{:.1} KiB", n as f64 / 1024.0)
    }
}

/// Today's date in UTC as `YYYY-MM-DD`, from the core's timestamp type.
fn chrono_like_now() -> String {
    let now = blogread_core::domain::Timestamp::now().to_string();
    now.get(..10).unwrap_or(&now).to_owned()
}

/// Two reads of one whole project through the client, as a site build does it.
pub(super) struct WholeRead {
    first: Duration,
    second: Duration,
    pages: u64,
}

impl WholeRead {
    pub(super) fn report(&self, blogs: usize, cache_mib: u64) -> String {
        let per_page = |d: Duration| d.as_secs_f64() * 1e3 / self.pages.max(1) as f64;
        format!(
            "\nRead the whole first project ({blogs} blogs, {} pages of 100 with content, \
             `Client::all_blogs_with_content`, one client): first read {:.2} s ({:.2} ms a \
             page), second read {:.2} s ({:.2} ms a page){}.\n",
            self.pages,
            self.first.as_secs_f64(),
            per_page(self.first),
            self.second.as_secs_f64(),
            per_page(self.second),
            if cache_mib == 0 {
                "; the response cache is off, so both reads are cold"
            } else {
                "; the second read is answered from the response cache where it holds the pages"
            },
        )
    }
}

pub(super) fn read_whole_project(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
    key: &str,
) -> Result<WholeRead, String> {
    let client = blogread_client::Client::builder(format!("http://{addr}"), key)
        .build()
        .map_err(|e| e.to_string())?;
    let mut pages = 0;
    let mut timed = || -> Result<Duration, String> {
        eprintln!("reading the whole first project through the client ...");
        let started = std::time::Instant::now();
        let mut count = 0;
        let blogs = rt
            .block_on(client.all_blogs_with_progress(true, |_, _| count += 1))
            .map_err(|e| format!("reading the whole project: {e}"))?;
        pages = count;
        if blogs.iter().any(|b| b.content.is_none()) {
            return Err("reading the whole project: a blog came without content".into());
        }
        Ok(started.elapsed())
    };
    let first = timed()?;
    let second = timed()?;
    Ok(WholeRead {
        first,
        second,
        pages,
    })
}
