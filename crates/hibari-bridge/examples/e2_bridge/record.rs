//! `RECORD {json}` lines for `hibari bench e2-bridge` (`--records`): one per
//! measured run, with the fields of `hibari_bench::record::Record` (its
//! latency statistics flattened). Other output lines are ignored by the
//! parser.

use serde_json::json;

use crate::Run;

/// What a series is: its transport label and client language.
pub struct Series<'a> {
    /// `rosbridge-ws W1`, `rosbridge-tcp T2`, …
    pub transport: String,
    pub language: &'a str,
    /// Bytes of one publish op as the client writes it.
    pub size_bytes: u64,
    pub n: u64,
    /// Extra words for the note (`with a stalled peer`, …).
    pub context: &'a str,
    /// Which processes hold what.
    pub setup: &'a str,
}

/// The transport label of a variant.
pub fn transport(variant: &str) -> String {
    match variant {
        v if v.starts_with('T') => format!("rosbridge-tcp {v}"),
        "W2" => "rosbridge-ws W2 (roslibjs)".into(),
        v => format!("rosbridge-ws {v}"),
    }
}

/// The client's language for a variant.
pub fn language(variant: &str) -> &'static str {
    if variant == "W2" {
        "javascript"
    } else {
        "rust"
    }
}

/// Prints the `RECORD` line of one run.
pub fn print(series: &Series<'_>, rep: usize, run: &Run) {
    let l = run.latency;
    let record = json!({
        "experiment": "e2-bridge",
        "system": "hibari",
        "transport": series.transport,
        "language": series.language,
        "size_bytes": series.size_bytes,
        "rate_hz": 0.0,
        "sent": series.n,
        "received": run.received,
        "lost": series.n.saturating_sub(run.received),
        "count": l.count,
        "p50_us": l.p50_us,
        "p90_us": l.p90_us,
        "p99_us": l.p99_us,
        "p999_us": l.p999_us,
        "max_us": l.max_us,
        "mean_us": l.mean_us,
        "stddev_us": l.stddev_us,
        "cpu_pub_s": run.client_cpu_s,
        "cpu_sub_s": run.cpu_s,
        "ctx_switches": run.ctx_switches,
        "published": false,
        "rep": rep,
        "setup": series.setup,
        "note": format!(
            "{}{}send {:.4} s, completion {:.4} s (first publish sent to the {}th received; duration_s); \
             in order: {}, byte-exact: {}; latency = sink receive - client send time; \
             cpu_pub_s = client process, cpu_sub_s = bridge threads, ctx_switches = bridge threads; \
             RSS {:.1} MiB before, peak {:+.1} MiB during, {:+.1} MiB after the client left \
             (this process; the sink's queue waited up to {:.0} ms)",
            series.context,
            if series.context.is_empty() { "" } else { "; " },
            run.send_s,
            run.completion_s,
            series.n,
            run.in_order,
            run.exact,
            crate::procfs::mib(run.rss_before_kb),
            crate::procfs::delta_mib(run.rss_before_kb, run.rss_peak_kb),
            crate::procfs::delta_mib(run.rss_before_kb, run.rss_after_kb),
            run.sink_wait_ms,
        ),
        "duration_s": run.completion_s,
    });
    println!("RECORD {record}");
}
