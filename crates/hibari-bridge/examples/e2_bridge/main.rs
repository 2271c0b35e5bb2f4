//! E2 (shared/specs/bridge.md §5(b)): 100,000 small publishes through the
//! bridge to a native hibari subscriber.
//!
//! ```text
//! cargo run --release -p hibari-bridge --example e2_bridge -- [--variants W1,W2,T1,T2,T3,T4]
//!     [--n 100000] [--runs 5] [--linearity] [--isolation] [--json] [--records]
//! ```
//!
//! This process runs the bridge and the counting subscriber; each client
//! is a child process (this program again, `--client <variant>`; W2 is
//! roslibjs under Node, `tests/js/bench_roslibjs.mjs`). Per run:
//! the client advertises `/chatter`; once the sink sees the publisher the
//! client is told `go` and sends N `{"op":"publish",…}` messages, each
//! carrying its index and send time. Send time = first to last message
//! written and flushed by the client (its socket accepted them; on TCP the
//! kernel may still hold up to a socket buffer's worth); completion = first
//! message sent to the N-th received by the sink. All clocks are
//! CLOCK_MONOTONIC. One warm-up run, then `--runs` measured runs; medians
//! with min–max. Bridge CPU is the user+system time of the bridge's
//! threads over the run.
//!
//! The sink runs in a process of its own (`--sink-here`: in this one, as
//! before), on a domain of this run's own, so this process's figures are
//! the bridge's alone. Memory: this process's `VmRSS` is sampled every
//! 2 ms. Each run reports it before the run, its peak during the run and
//! its value once the client has left, as growth over "before". After each
//! variant's runs it prints §5(b)'s resource figures (settle.rs): the peak
//! growth over the idle baseline (read once the bridge is up, before any
//! client), the RSS 10 s after the last client left (when the bridge's
//! lingering publisher is due to expire, so its state is printed too) and
//! once that publisher has expired, each against the baseline ("within
//! 10%") and split into `RssAnon` and `RssShmem`. With `--sink-here` the
//! figures include the native sink's subscription queue (when the sink
//! falls behind, messages wait there; each run prints the longest wait).
//!
//! `--isolation` (I1): W1 runs alternate between solo and beside a client
//! that subscribes to a 50 MB/s topic and never reads; it prints both
//! completions, their ratio, and the stalled client's drops and queue
//! high-water marks against their bounds. `--records` prints one
//! `RECORD {json}` line per measured run for `hibari bench e2-bridge`.

mod apart;
mod client;
mod isolation;
mod procfs;
mod record;
mod report;
mod settle;
mod sink;

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari::{Context, SingleThreadedExecutor};
use hibari_bridge::{Bridge, BridgeConfig};

use procfs::{mib, status_kb, Rss, RssSampler};
pub use report::{median, report};

/// CLOCK_MONOTONIC in ns: comparable between this process and its children.
pub fn mono_ns() -> i64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec * 1_000_000_000 + t.tv_nsec
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// How the figures are printed.
#[derive(Clone, Copy)]
pub struct Output {
    pub json: bool,
    pub records: bool,
}

/// What a measurement needs.
pub struct Bench<'a> {
    pub bridge: &'a Bridge,
    pub sink: &'a RefCell<apart::Place>,
    pub rss: &'a RssSampler,
    pub out: Output,
    /// This process's resident memory once the bridge was up and idle.
    pub idle: Rss,
    /// Whether the sink runs in its own process.
    pub sink_apart: bool,
}

/// One run's figures.
pub struct Run {
    pub send_s: f64,
    pub completion_s: f64,
    pub received: u64,
    pub in_order: bool,
    pub exact: bool,
    pub latency: sink::Latency,
    pub cpu_s: f64,
    pub ctx_switches: u64,
    pub client_cpu_s: f64,
    pub rss_before_kb: u64,
    pub rss_peak_kb: u64,
    /// The peak of each part of the RSS during the run.
    pub rss_peak_parts: Rss,
    pub rss_after_kb: u64,
    /// When the bridge had dropped the client's connection.
    pub left_at: Instant,
    /// The longest a message waited in the native sink's subscription
    /// queue: this process's RSS holds that queue too.
    pub sink_wait_ms: f64,
}

pub fn run_once(b: &Bench<'_>, variant: &str, n: u64) -> Run {
    let mut sink = b.sink.borrow_mut();
    sink.reset(n);
    let mut command = if variant == "W2" {
        // roslibjs under Node (tests/js, after `npm ci` there).
        let js = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/js");
        let mut c = Command::new("node");
        c.current_dir(js).arg("bench_roslibjs.mjs");
        c.args([format!("ws://{}/", b.bridge.local_addr()), n.to_string()]);
        c
    } else {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args(["--client", variant, "--n", &n.to_string()])
            .args(["--ws", &b.bridge.local_addr().to_string()])
            .args(["--tcp", &b.bridge.tcp_addr().unwrap().to_string()]);
        c
    };
    let others = b.bridge.stats().clients.len();
    let rss_before_kb = b.rss.reset();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "advertised");
    sink.wait_matched();
    let (cpu0, ctx0) = (procfs::bridge_cpu(), procfs::bridge_ctx_switches());
    writeln!(stdin, "go").unwrap();
    let sent = lines.next().unwrap().unwrap();
    let t: Vec<i64> = sent
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    let outcome = sink.outcome();
    let cpu_s = procfs::bridge_cpu() - cpu0;
    let ctx_switches = procfs::bridge_ctx_switches().saturating_sub(ctx0);
    let client_cpu_s = procfs::process_cpu(child.id());
    let rss_peak_parts = b.rss.peak_parts();
    writeln!(stdin, "done").unwrap();
    let _ = child.wait();
    // The bridge sees the client leave and drops its connection.
    let gone = Instant::now() + Duration::from_secs(5);
    while b.bridge.stats().clients.len() > others && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(1));
    }
    let left_at = Instant::now();
    let rss_after_kb = status_kb("VmRSS:");
    Run {
        send_s: (t[1] - t[0]) as f64 / 1e9,
        completion_s: (outcome.last_rx - t[0]) as f64 / 1e9,
        received: outcome.received,
        in_order: outcome.in_order,
        exact: outcome.exact,
        latency: outcome.latency,
        cpu_s,
        ctx_switches,
        client_cpu_s,
        rss_before_kb,
        rss_peak_kb: rss_peak_parts.total,
        rss_peak_parts,
        rss_after_kb,
        left_at,
        sink_wait_ms: outcome.max_queue_wait_ns as f64 / 1e6,
    }
}

/// One warm-up run, then `runs` measured runs; returns the median completion.
fn measure(b: &Bench<'_>, variant: &str, n: u64, runs: usize) -> f64 {
    run_once(b, variant, n.min(10_000)); // warm-up
    let results: Vec<Run> = (0..runs).map(|_| run_once(b, variant, n)).collect();
    let done = report(b, variant, n, &results, "");
    settle::settle(b, variant, &results);
    done
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or("")
        .to_owned();
    format!("{cpu}, {cores} cores, {mem}")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(domain) = arg(&args, "--sink") {
        let capacity = args.last().unwrap().parse().unwrap();
        apart::serve(domain.parse().unwrap(), capacity);
        return;
    }
    if let Some(variant) = arg(&args, "--client") {
        let n: u64 = arg(&args, "--n").unwrap().parse().unwrap();
        client::run(
            &variant,
            &arg(&args, "--ws").unwrap(),
            &arg(&args, "--tcp").unwrap(),
            n,
        );
        return;
    }
    let out = Output {
        json: args.iter().any(|a| a == "--json"),
        records: args.iter().any(|a| a == "--records"),
    };
    let n: u64 = arg(&args, "--n").map_or(100_000, |v| v.parse().unwrap());
    let runs: usize = arg(&args, "--runs").map_or(5, |v| v.parse().unwrap());
    let variants = arg(&args, "--variants").unwrap_or_else(|| "W1,T1,T2,T3,T4".into());
    let linearity = args.iter().any(|a| a == "--linearity");
    let isolation = args.iter().any(|a| a == "--isolation");
    // The sink runs in its own process unless `--sink-here`.
    let sink_apart = !args.iter().any(|a| a == "--sink-here");

    // A domain of this run's own, reaching the sink's process.
    let domain = 3000 + std::process::id() % 1000;
    let context = if sink_apart {
        Context::with_domain(domain)
    } else {
        Context::builder().isolated().create().unwrap()
    };
    let config = BridgeConfig::default().port(0).tcp_port(Some(0));
    let bounds = (config.queue_depth, config.max_queued_bytes);
    let bridge = Bridge::start(&context, config).unwrap();
    let capacity = if linearity { 1_000_000 } else { n as usize };
    let executor = Arc::new(SingleThreadedExecutor::new());
    let place = if sink_apart {
        apart::Place::apart(domain, capacity)
    } else {
        let node = context.create_node("sink").unwrap();
        executor.add_node(&node).unwrap();
        apart::Place::Here(sink::Sink::new(&node, capacity))
    };
    let e = executor.clone();
    let spinner = std::thread::spawn(move || e.spin());
    std::thread::sleep(Duration::from_millis(200));
    let rss = RssSampler::start();
    let idle = Rss::now();
    let whose = if sink_apart {
        "bridge RSS idle (the sink runs in its own process)"
    } else {
        "bridge+sink RSS idle (with the sink's arrays)"
    };
    if !out.json {
        println!("machine: {}", machine());
        println!("{whose}: {:.1} MiB ({idle})", mib(idle.total));
    }
    let sink = RefCell::new(place);
    let b = Bench {
        bridge: &bridge,
        sink: &sink,
        rss: &rss,
        out,
        idle,
        sink_apart,
    };
    for variant in variants.split(',').filter(|v| !v.is_empty()) {
        measure(&b, variant, n, runs);
    }
    if linearity {
        for variant in ["W1", "T2"] {
            let small = measure(&b, variant, 100_000, 3);
            let big = measure(&b, variant, 1_000_000, 1);
            let _ = measure(&b, variant, 10_000, 3);
            println!("L1 {variant}: time(1M) / time(100k) = {:.2}", big / small);
        }
    }
    if isolation {
        isolation::run(&context, &b, n, runs, bounds);
    }
    settle::summary(&b);
    drop(rss);
    executor.cancel();
    spinner.join().unwrap();
}
