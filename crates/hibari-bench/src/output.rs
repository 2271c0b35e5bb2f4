//! The terminal table, JSON and CSV.

use std::fmt::Write as _;
use std::path::Path;

use crate::record::{Record, Report};
use crate::stats::spread;

/// Human size: `64 B`, `4 KiB`, `1 MiB`, `900 KiB`.
pub fn size_label(b: u64) -> String {
    match b {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1024 => format!("{:.0} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn rate_label(r: f64) -> String {
    if r == 0.0 {
        "max".into()
    } else {
        format!("{r:.0} Hz")
    }
}

/// Throughput of a series sent as fast as possible: messages per second,
/// or bytes per second from 64 KiB up; `-` for other series.
fn throughput_label(size_bytes: u64, msgs_s: Option<f64>) -> String {
    match msgs_s {
        None => "-".into(),
        Some(m) if size_bytes >= 1 << 16 => {
            let b = m * size_bytes as f64;
            match b >= 1e9 {
                true => format!("{:.2}GB/s", b / 1e9),
                false => format!("{:.0}MB/s", b / 1e6),
            }
        }
        Some(m) if m >= 1e6 => format!("{:.2}M/s", m / 1e6),
        Some(m) if m >= 1e3 => format!("{:.0}k/s", m / 1e3),
        Some(m) => format!("{m:.0}/s"),
    }
}

fn us(v: f64) -> String {
    match v {
        0.0 => "-".into(),
        v if v < 10.0 => format!("{v:.2}"),
        v if v < 10_000.0 => format!("{v:.0}"),
        v => format!("{:.1}k", v / 1000.0),
    }
}

/// Groups records of the same series (all repetitions), in first-seen order.
pub fn groups(records: &[Record]) -> Vec<Vec<&Record>> {
    let mut out: Vec<Vec<&Record>> = Vec::new();
    for r in records {
        let same = |g: &Vec<&Record>| {
            let a = g[0];
            a.experiment == r.experiment
                && a.system == r.system
                && a.transport == r.transport
                && a.setup == r.setup
                && a.size_bytes == r.size_bytes
                && a.rate_hz == r.rate_hz
                && a.published == r.published
                && a.language == r.language
        };
        match out.iter_mut().find(|g| same(g)) {
            Some(g) => g.push(r),
            None => out.push(vec![r]),
        }
    }
    out
}

fn cpu_label(g: &[&Record], f: fn(&Record) -> f64) -> String {
    let d: f64 = g.iter().map(|r| r.duration_s).sum();
    let c: f64 = g.iter().map(|r| f(r)).sum();
    if c == 0.0 {
        "-".into()
    } else if d > 0.0 {
        format!("{:.1}%", 100.0 * c / d)
    } else {
        format!("{:.3}s", c / g.len() as f64)
    }
}

/// The mean of a series' `vs_hibari` over its repetitions: `2.5x`, or `-`.
fn ratio(g: &[&Record]) -> String {
    let v: Vec<f64> = g.iter().filter_map(|r| r.vs_hibari).collect();
    match v.is_empty() {
        true => "-".into(),
        false => format!("{:.2}x", v.iter().sum::<f64>() / v.len() as f64),
    }
}

/// The table: one row per series, means over repetitions, the spread of p50
/// (max − min over mean) when there are several, and its p50 over hibari's
/// best in the same cell (`×hibari`: above 1, hibari is ahead); published
/// rows marked `pub`.
pub fn table(records: &[Record]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<13} {:<52} {:>8} {:>7} {:>9} {:>9} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6} {:>7}",
        "experiment",
        "series",
        "size",
        "rate",
        "recv/sent",
        "thruput",
        "p50 µs",
        "p99 µs",
        "max µs",
        "mean",
        "sd",
        "cpu pub",
        "cpu sub",
        "ctx",
        "spread",
        "×hibari"
    );
    for g in groups(records) {
        let a = g[0];
        let m = |f: fn(&Record) -> f64| spread(&g.iter().map(|r| f(r)).collect::<Vec<_>>()).0;
        let (_, p50_spread) = spread(&g.iter().map(|r| r.stats.p50_us).collect::<Vec<_>>());
        let sent: u64 = g.iter().map(|r| r.sent).sum();
        let recv: u64 = g.iter().map(|r| r.received).sum();
        let mut label = format!(
            "{}{} {} [{}]",
            if a.published { "pub: " } else { "" },
            a.who(),
            a.transport,
            a.setup
        );
        label.truncate(52);
        let _ = writeln!(
            t,
            "{:<13} {:<52} {:>8} {:>7} {:>9} {:>9} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6} {:>7}",
            a.experiment,
            label,
            size_label(a.size_bytes),
            rate_label(a.rate_hz),
            if sent == 0 {
                "-".into()
            } else {
                format!("{recv}/{sent}")
            },
            throughput_label(
                a.size_bytes,
                a.throughput().map(|_| m(|r| r.throughput().unwrap_or(0.0)))
            ),
            us(m(|r| r.stats.p50_us)),
            us(m(|r| r.stats.p99_us)),
            us(m(|r| r.stats.max_us)),
            us(m(|r| r.stats.mean_us)),
            us(m(|r| r.stats.stddev_us)),
            cpu_label(&g, |r| r.cpu_pub_s),
            cpu_label(&g, |r| r.cpu_sub_s),
            if a.published {
                "-".into()
            } else {
                format!("{:.0}", m(|r| r.ctx_switches as f64))
            },
            if g.len() > 1 {
                format!("{:.0}%", p50_spread * 100.0)
            } else {
                "-".into()
            },
            ratio(&g)
        );
    }
    t
}

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The file could not be written.
    #[error("write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// JSON encoding failed.
    #[error("encode JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The path that means standard output (`--json -`, `--csv -`).
pub const STDOUT: &str = "-";

/// Writes `text` to `path`, or to standard output when `path` is `-`.
fn write(path: &Path, text: &str) -> Result<(), WriteError> {
    if path.as_os_str() == STDOUT {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|source| WriteError::Io {
                path: "standard output".into(),
                source,
            });
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(dir);
    }
    // Beside it, then renamed over it: a run stopped while writing leaves
    // the file it wrote before, whole.
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let part = std::path::PathBuf::from(part);
    std::fs::write(&part, text)
        .and_then(|()| std::fs::rename(&part, path))
        .map_err(|source| {
            let _ = std::fs::remove_file(&part);
            WriteError::Io {
                path: path.display().to_string(),
                source,
            }
        })
}

/// Writes the report as JSON (records include per-message series) to
/// `path`, or to standard output when it is `-`.
pub fn write_json(path: &Path, report: &Report) -> Result<(), WriteError> {
    let mut text = serde_json::to_string_pretty(report)?;
    text.push('\n');
    write(path, &text)
}

/// The CSV columns, in order.
pub const CSV_COLUMNS: [&str; 27] = [
    "experiment",
    "system",
    "transport",
    "language",
    "setup",
    "size_bytes",
    "rate_hz",
    "rep",
    "sent",
    "received",
    "lost",
    "p50_us",
    "p90_us",
    "p99_us",
    "p999_us",
    "max_us",
    "mean_us",
    "stddev_us",
    "cpu_pub_s",
    "cpu_sub_s",
    "ctx_switches",
    "duration_s",
    "published",
    "vs_hibari",
    "throughput_msgs_s",
    "allocs_per_msg",
    "note",
];

/// Writes one CSV row per record to `path`, or to standard output when it
/// is `-`.
pub fn write_csv(path: &Path, records: &[Record]) -> Result<(), WriteError> {
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut t = CSV_COLUMNS.join(",");
    t.push('\n');
    for r in records {
        let s = &r.stats;
        let _ = writeln!(
            t,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            q(&r.experiment),
            q(&r.system),
            q(&r.transport),
            q(&r.language),
            q(&r.setup),
            r.size_bytes,
            r.rate_hz,
            r.rep,
            r.sent,
            r.received,
            r.lost,
            s.p50_us,
            s.p90_us,
            s.p99_us,
            s.p999_us,
            s.max_us,
            s.mean_us,
            s.stddev_us,
            r.cpu_pub_s,
            r.cpu_sub_s,
            r.ctx_switches,
            r.duration_s,
            r.published,
            r.vs_hibari.map(|v| v.to_string()).unwrap_or_default(),
            r.throughput().map(|v| v.to_string()).unwrap_or_default(),
            r.allocs_per_msg.map(|v| v.to_string()).unwrap_or_default(),
            q(&r.note)
        );
    }
    write(path, &t)
}
