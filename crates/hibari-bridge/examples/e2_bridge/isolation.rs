//! I1 (shared/specs/bridge.md §5(b)): does a stalled client slow another?
//!
//! W1 runs alternate between solo and beside a client (a child process)
//! that subscribes to a 50 MB/s topic (500 kB messages at 100 Hz from a
//! native publisher) and then never reads its socket. The alternation
//! spreads the machine's drift over both sides. Printed: the median
//! completion of each side and their ratio, the stalled client's drops and
//! the high-water marks of its queue against their bounds, and the RSS
//! growth while it was stalled.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari::msg::std_msgs::msg::UInt8MultiArray;
use hibari::{Context, Publisher, QosProfile};
use hibari_bridge::Protocol;

use crate::procfs::{delta_mib, mib};
use crate::{median, report, run_once, Bench, Run};

/// A stalled client and the firehose it subscribed to, until dropped.
struct Stall {
    child: std::process::Child,
    stop: Arc<AtomicBool>,
    firehose: Option<std::thread::JoinHandle<()>>,
}

impl Stall {
    fn start(b: &Bench<'_>, publisher: &Arc<Publisher<UInt8MultiArray>>) -> Stall {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--client", "stall", "--n", "0"])
            .args(["--ws", &b.bridge.local_addr().to_string(), "--tcp", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        assert_eq!(lines.next().unwrap().unwrap(), "subscribed");
        publisher.wait_for_subscribers(1, Duration::from_secs(5));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, p) = (stop.clone(), publisher.clone());
        let firehose = std::thread::spawn(move || {
            let payload = vec![42u8; 500_000];
            while !s.load(Ordering::Relaxed) {
                let _ = p.publish(UInt8MultiArray {
                    data: payload.clone(),
                    ..Default::default()
                });
                std::thread::sleep(Duration::from_millis(10)); // 100 Hz × 500 kB
            }
        });
        // Long enough for its queues and socket buffers to fill.
        std::thread::sleep(Duration::from_millis(700));
        Stall {
            child,
            stop,
            firehose: Some(firehose),
        }
    }

    /// Stops the firehose, prints what the bridge says of the stalled
    /// client, and lets it go.
    fn finish(mut self, b: &Bench<'_>, bounds: (usize, usize)) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(f) = self.firehose.take() {
            f.join().unwrap();
        }
        let mut dropped = 0;
        for c in b.bridge.stats().clients {
            if c.protocol != Protocol::RosbridgeWebSocket {
                continue;
            }
            dropped += c.dropped;
            if !b.out.json {
                println!(
                    "I1: stalled client #{}: {} dropped; queue now {} messages ({:.1} MiB), at most {} (bound {}) and {:.1} MiB (bound {:.1} MiB)",
                    c.id,
                    c.dropped,
                    c.queued_messages,
                    mib(c.queued_bytes as u64 / 1024),
                    c.peak_queued_messages,
                    bounds.0,
                    mib(c.peak_queued_bytes as u64 / 1024),
                    mib(bounds.1 as u64 / 1024),
                );
            }
        }
        dropped
    }
}

impl Drop for Stall {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(f) = self.firehose.take() {
            let _ = f.join();
        }
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = writeln!(stdin, "done");
        }
        let _ = self.child.wait();
    }
}

/// Runs I1 with W1 runs of `n` messages, `runs` on each side.
pub fn run(context: &Context, b: &Bench<'_>, n: u64, runs: usize, bounds: (usize, usize)) {
    let node = context.create_node("firehose").unwrap();
    let publisher = Arc::new(
        node.create_publisher::<UInt8MultiArray>("/firehose", QosProfile::default())
            .unwrap(),
    );
    println!("I1: W1 solo, and beside a client stalled on a 50 MB/s topic (alternating):");
    run_once(b, "W1", n.min(10_000)); // warm-up
    let mut solo: Vec<Run> = Vec::new();
    let mut beside: Vec<Run> = Vec::new();
    let mut growth: Vec<(f64, f64)> = Vec::new();
    let mut dropped = 0;
    for _ in 0..runs {
        solo.push(run_once(b, "W1", n));
        let before = b.rss.reset();
        let stall = Stall::start(b, &publisher);
        let mut r = run_once(b, "W1", n);
        // The whole stalled phase counts, from before the client came.
        r.rss_before_kb = before;
        r.rss_peak_kb = r.rss_peak_kb.max(b.rss.peak());
        dropped += stall.finish(b, bounds);
        beside.push(r);
        let gone = std::time::Instant::now() + Duration::from_secs(5);
        while !b.bridge.stats().clients.is_empty() && std::time::Instant::now() < gone {
            std::thread::sleep(Duration::from_millis(1));
        }
        growth.push((
            delta_mib(before, b.rss.peak()),
            delta_mib(before, crate::procfs::status_kb("VmRSS:")),
        ));
    }
    let alone = report(b, "W1", n, &solo, "I1 solo");
    let with = report(b, "W1", n, &beside, "I1 beside a stalled peer");
    let ratios = median(
        solo.iter()
            .zip(&beside)
            .map(|(s, w)| w.completion_s / s.completion_s)
            .collect(),
    );
    let peak = growth.iter().map(|g| g.0).fold(f64::MIN, f64::max);
    let after = growth.iter().map(|g| g.1).fold(f64::MIN, f64::max);
    println!(
        "I1: W1 completion {with:.3} s beside the stalled client vs {alone:.3} s solo ({:+.1}% of medians; per pair median {:+.1}%, {:+.1}% to {:+.1}%); the stalled client dropped {dropped} messages in all; RSS growth while it stalled ≤ {peak:+.1} MiB, ≤ {after:+.1} MiB after it left",
        (with / alone - 1.0) * 100.0,
        (ratios.0 - 1.0) * 100.0,
        (ratios.1 - 1.0) * 100.0,
        (ratios.2 - 1.0) * 100.0,
    );
}
