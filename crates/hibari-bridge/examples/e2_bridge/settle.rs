//! What the bridge's memory does once its clients have left (§5(b):
//! "RSS after disconnect within 10% of the idle baseline").
//!
//! The bridge keeps a client's publisher 10 s after its last client left
//! (rosbridge's `unregister_timeout`, bridge.md P3), and that publisher
//! holds a shared-memory buffer. "10 s after the client disconnects" is
//! therefore the very moment the publisher expires: a reading then could
//! fall on either side. So each variant reports two labelled points after
//! its last run: at 10 s after the bridge saw the client leave, with the
//! publisher's state at that instant (`lingering` or `expired`), and once
//! the publisher has expired (plus 0.5 s). Each point gives `VmRSS` and
//! its parts: `RssAnon` is what the allocator holds, `RssShmem` is shared
//! memory (the publisher's buffer), `RssFile` is mostly this program's code.
//!
//! What `RssAnon` keeps over idle once the publisher is gone is the
//! allocator's, not the bridge's: under heaptrack the live heap after
//! W1 and T2 was back within ~20 KiB of its idle value, while glibc's
//! malloc kept about 0.5 MiB of freed memory at the top of two threads'
//! arenas (see `READ_CHUNK` in src/conn.rs for why not more). `RssFile`
//! grows by the code the first client ran. Run with
//! `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072` to see the figures
//! with glibc's thresholds fixed.

use std::time::{Duration, Instant};

use crate::procfs::{delta_mib, mib, Rss};
use crate::{Bench, Run};

/// How far `now` is over the idle baseline `idle`, in percent.
fn over(idle: u64, now: u64) -> f64 {
    (now as f64 / idle as f64 - 1.0) * 100.0
}

/// Whether the bridge still has a publisher, from the count of its
/// publishers before and after a reading and the shared memory then. An
/// expired publisher's buffer is unmapped by the shared-memory transport's
/// own thread a moment later, so `RssShmem` can lag the publisher's end.
fn publisher_state(before: usize, after: usize, shmem_kb: u64, idle: Rss) -> &'static str {
    match (before > 0, after > 0) {
        (true, true) => "publisher lingering",
        (false, false) if shmem_kb > idle.shmem + 64 => {
            "publisher expired, its shared memory not yet unmapped"
        }
        (false, false) => "publisher expired",
        _ => "publisher expired during the reading",
    }
}

/// §5(b)'s resource figures for a variant after its runs: the peak growth
/// over the idle baseline during the runs, the RSS 10 s after the last
/// client left, and the RSS once the lingering publisher expired; each
/// against the baseline ("within 10%"). They are the bridge's alone when
/// the sink runs apart.
pub fn settle(b: &Bench<'_>, variant: &str, results: &[Run]) {
    let peak = results
        .iter()
        .map(|r| r.rss_peak_parts)
        .fold(Rss::default(), Rss::max);
    let left_at = results
        .iter()
        .map(|r| r.left_at)
        .max()
        .unwrap_or_else(Instant::now);
    let at = left_at + Duration::from_secs(10);
    std::thread::sleep(at.saturating_duration_since(Instant::now()));
    let before = b.bridge.stats().published_topics;
    let at_10s = Rss::now();
    let state_10s = publisher_state(
        before,
        b.bridge.stats().published_topics,
        at_10s.shmem,
        b.idle,
    );
    let gone = Instant::now() + Duration::from_secs(15);
    while b.bridge.stats().published_topics > 0 && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(10));
    }
    let left = b.bridge.stats().published_topics;
    std::thread::sleep(Duration::from_millis(500));
    let expired = Rss::now();
    let expired_label = if left == 0 {
        "once its publisher expired (+0.5 s)"
    } else {
        "25 s after the client left, its PUBLISHER STILL THERE"
    };
    let idle = b.idle;
    let whose = if b.sink_apart {
        "bridge"
    } else {
        "bridge+sink"
    };
    if b.out.json {
        let parts = |r: Rss| {
            format!(
                "[{:.1},{:.1},{:.1}]",
                mib(r.total),
                mib(r.anon),
                mib(r.shmem)
            )
        };
        println!(
            r#"{{"variant":"{variant}","rss":"{whose}","rss_mib_total_anon_shmem":{{"idle":{},"peak":{},"after_10s":{},"after_publishers_expired":{}}},"peak_growth_mib":{:.1},"after_10s_over_idle":{:.3},"after_10s_state":"{state_10s}","after_publishers_expired_over_idle":{:.3}}}"#,
            parts(idle),
            parts(peak),
            parts(at_10s),
            parts(expired),
            delta_mib(idle.total, peak.total),
            at_10s.total as f64 / idle.total as f64,
            expired.total as f64 / idle.total as f64,
        );
        return;
    }
    let verdict = |r: Rss| {
        let pct = over(idle.total, r.total);
        let within = if pct <= 10.0 { "within" } else { "NOT within" };
        format!(
            "{:.1} MiB ({pct:+.1}%, {within} 10% of idle; {r})",
            mib(r.total)
        )
    };
    println!(
        "{variant:<4} {whose} RSS: idle {:.1} MiB ({idle}); peak growth {:+.1} MiB (peak anon {:.1} MiB, shmem {:.1} MiB)",
        mib(idle.total),
        delta_mib(idle.total, peak.total),
        mib(peak.anon),
        mib(peak.shmem),
    );
    println!(
        "{variant:<4} {whose} RSS 10 s after the client left ({state_10s}): {}",
        verdict(at_10s)
    );
    println!(
        "{variant:<4} {whose} RSS {expired_label}: {}",
        verdict(expired)
    );
}

/// The closing line: this process's idle and peak (`VmHWM`) RSS over the
/// whole program, and its RSS 3 s after the last client left.
pub fn summary(b: &Bench<'_>) {
    let peak_kb = crate::procfs::status_kb("VmHWM:");
    std::thread::sleep(Duration::from_secs(3));
    let after = Rss::now();
    let whose = if b.sink_apart {
        "bridge"
    } else {
        "bridge+sink"
    };
    println!(
        "{whose} RSS: idle {:.1} MiB, peak {:.1} MiB (growth {:+.1} MiB), 3 s after the last client left {:.1} MiB ({:+.1} MiB; {after})",
        mib(b.idle.total),
        mib(peak_kb),
        delta_mib(b.idle.total, peak_kb),
        mib(after.total),
        delta_mib(b.idle.total, after.total),
    );
}
