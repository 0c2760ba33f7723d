//! A child process's memory and CPU time, read from `/proc` (Linux).

use std::fs;

/// A field of `/proc/PID/status` in KiB (`VmHWM`, `VmRSS`...).
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let text = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The peak resident set (`VmHWM`) in MiB.
pub fn peak_rss_mib(pid: u32) -> Option<f64> {
    status_kib(pid, "VmHWM").map(|k| k as f64 / 1024.0)
}

/// Resets the peak resident set to the current one (`echo 5 > /proc/PID/clear_refs`), so
/// that each phase reports its own peak. False when the kernel refused.
pub fn reset_peak(pid: u32) -> bool {
    fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

/// User plus system CPU time of the process so far, in seconds.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may contain spaces) close with ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / clock_ticks_per_second())
}

/// User plus system CPU time, in seconds, of every process this user can see whose command
/// name is `command` (e.g. `postgres`: the PostgreSQL server and all its backends). `None`
/// when there is none.
pub fn cpu_seconds_of_command(command: &str) -> Option<f64> {
    let mut total = None;
    for entry in fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let is_it = stat
            .find('(')
            .zip(stat.rfind(')'))
            .is_some_and(|(open, close)| stat.get(open + 1..close) == Some(command));
        if is_it && let Some(seconds) = cpu_seconds(pid) {
            *total.get_or_insert(0.0) += seconds;
        }
    }
    total
}

fn clock_ticks_per_second() -> f64 {
    // USER_HZ is 100 on every Linux architecture the benchmark runs on.
    100.0
}

/// The machine's load averages over 1, 5 and 15 minutes (`/proc/loadavg`), as `uptime`
/// prints them, for a benchmark to say how busy the machine was.
pub fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".to_owned())
}
