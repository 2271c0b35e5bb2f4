//! The figures of a variant's runs: medians with min–max of send time,
//! completion and bridge CPU, the sink's latency, the RSS growth of each
//! run, and (`--records`) one `RECORD {json}` line per run.

use crate::procfs::delta_mib;
use crate::{client, record, Bench, Run};

/// Bytes of one publish op of `variant` (the one in the middle of the run).
fn op_size(variant: &str, n: u64) -> u64 {
    let word = if variant == "T4" { "héllo" } else { "hello" };
    let mut size = client::publish(n / 2, word).len();
    if variant == "W2" {
        // roslibjs adds an id and `"latch":false`.
        size += format!(r#","id":"publish:/chatter:{}","latch":false"#, n / 2).len();
    }
    size as u64
}

pub fn median(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// Prints the figures of `results` (runs of `variant` with `n` messages);
/// `context` names a special set-up (isolation). Returns the median
/// completion.
pub fn report(b: &Bench<'_>, variant: &str, n: u64, results: &[Run], context: &str) -> f64 {
    let runs = results.len();
    let send = median(results.iter().map(|r| r.send_s).collect());
    let done = median(results.iter().map(|r| r.completion_s).collect());
    let cpu = median(results.iter().map(|r| r.cpu_s).collect());
    let all = results
        .iter()
        .all(|r| r.received == n && r.in_order && r.exact);
    let lat = results[runs / 2].latency;
    let peak = results
        .iter()
        .map(|r| delta_mib(r.rss_before_kb, r.rss_peak_kb))
        .fold(f64::MIN, f64::max);
    let after = results
        .iter()
        .map(|r| delta_mib(r.rss_before_kb, r.rss_after_kb))
        .fold(f64::MIN, f64::max);
    let wait = results.iter().map(|r| r.sink_wait_ms).fold(0.0, f64::max);
    if b.out.json {
        println!(
            r#"{{"variant":"{variant}","n":{n},"runs":{runs},"context":"{context}","send_s":[{:.4},{:.4},{:.4}],"completion_s":[{:.4},{:.4},{:.4}],"all_delivered_in_order_exact":{all},"latency_us_p50_p99_max":[{:.0},{:.0},{:.0}],"bridge_cpu_s":{:.3},"rss_growth_mib_peak_after":[{peak:.1},{after:.1}]}}"#,
            send.0,
            send.1,
            send.2,
            done.0,
            done.1,
            done.2,
            lat.p50_us,
            lat.p99_us,
            lat.max_us,
            cpu.0
        );
    } else {
        println!(
            "{variant:<4} {n:>8}  send {:>7.3} s ({:.3}–{:.3})  completion {:>7.3} s ({:.3}–{:.3})  {:>9.0} msg/s  {}  latency p50 {:.0} µs p99 {:.0} µs max {:.0} µs  bridge CPU {:.2} s  RSS growth ≤ {peak:+.1} MiB during, ≤ {after:+.1} MiB after (sink queue wait ≤ {wait:.0} ms){}",
            send.0, send.1, send.2, done.0, done.1, done.2, n as f64 / done.0,
            if all { "all delivered, in order, exact" } else { "LOSS/ORDER/PAYLOAD PROBLEM" },
            lat.p50_us, lat.p99_us, lat.max_us, cpu.0,
            if context.is_empty() { String::new() } else { format!("  [{context}]") }
        );
        for r in results
            .iter()
            .filter(|r| r.received != n || !r.in_order || !r.exact)
        {
            println!(
                "      a run got {} of {n} (in order: {}, exact: {})",
                r.received, r.in_order, r.exact
            );
        }
    }
    if b.out.records {
        let series = record::Series {
            transport: record::transport(variant),
            language: record::language(variant),
            size_bytes: op_size(variant, n),
            n,
            context,
            setup: if b.sink_apart {
                "bridge in one process, native sink in another, client in a third"
            } else {
                "bridge + native sink in one process, client in another"
            },
        };
        for (rep, r) in results.iter().enumerate() {
            record::print(&series, rep, r);
        }
    }
    done.0
}
