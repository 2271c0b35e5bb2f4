//! E2 (shared/specs/bridge.md §5(b)): 100,000 small publishes through the
//! bridge to a native hibari subscriber.
//!
//! ```text
//! cargo run --release -p hibari-bridge --example e2_bridge -- [--variants W1,W2,T1,T2,T3,T4]
//!     [--n 100000] [--runs 5] [--linearity] [--isolation] [--json]
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
//! threads over the run; RSS is this process's (bridge and sink).

mod client;
mod sink;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari::msg::std_msgs::msg::UInt8MultiArray;
use hibari::{Context, QosProfile, SingleThreadedExecutor};
use hibari_bridge::{Bridge, BridgeConfig};

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

fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// User+system seconds of this process's threads named `hibari-bridge*`.
fn bridge_cpu() -> f64 {
    let ticks = rustix::param::clock_ticks_per_second() as f64;
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.starts_with("hibari-bridge") {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let after = stat.rsplit(')').next().unwrap_or("");
        let f: Vec<&str> = after.split_whitespace().collect();
        // Fields 14 and 15 of stat; `after` starts at field 3.
        total += f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        total += f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    }
    total as f64 / ticks
}

struct Run {
    send_s: f64,
    completion_s: f64,
    received: u64,
    in_order: bool,
    exact: bool,
    latency_us: (f64, f64, f64),
    cpu_s: f64,
}

fn run_once(bridge: &Bridge, sink: &sink::Sink, variant: &str, n: u64) -> Run {
    sink.reset(n);
    let mut command = if variant == "W2" {
        // roslibjs under Node (tests/js, after `npm ci` there).
        let js = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/js");
        let mut c = Command::new("node");
        c.current_dir(js).arg("bench_roslibjs.mjs");
        c.args([format!("ws://{}/", bridge.local_addr()), n.to_string()]);
        c
    } else {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args(["--client", variant, "--n", &n.to_string()])
            .args(["--ws", &bridge.local_addr().to_string()])
            .args(["--tcp", &bridge.tcp_addr().unwrap().to_string()]);
        c
    };
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "advertised");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while sink.subscription.matched_publishers() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    let cpu0 = bridge_cpu();
    writeln!(stdin, "go").unwrap();
    let sent = lines.next().unwrap().unwrap();
    let t: Vec<i64> = sent
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    let received = sink.wait_all(Duration::from_secs(10));
    let cpu = bridge_cpu() - cpu0;
    writeln!(stdin, "done").unwrap();
    let _ = child.wait();
    let st = sink.state.lock().unwrap();
    let run = Run {
        send_s: (t[1] - t[0]) as f64 / 1e9,
        completion_s: (st.last_rx - t[0]) as f64 / 1e9,
        received,
        in_order: st.out_of_order == 0 && st.duplicates == 0,
        exact: st.bad_payloads == 0,
        latency_us: (0.0, 0.0, 0.0),
        cpu_s: cpu,
    };
    drop(st);
    Run {
        latency_us: sink.latencies(),
        ..run
    }
}

fn median(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn measure(
    bridge: &Bridge,
    sink: &sink::Sink,
    variant: &str,
    n: u64,
    runs: usize,
    json: bool,
) -> f64 {
    run_once(bridge, sink, variant, n.min(10_000)); // warm-up
    let results: Vec<Run> = (0..runs)
        .map(|_| run_once(bridge, sink, variant, n))
        .collect();
    let send = median(results.iter().map(|r| r.send_s).collect());
    let done = median(results.iter().map(|r| r.completion_s).collect());
    let cpu = median(results.iter().map(|r| r.cpu_s).collect());
    let all = results
        .iter()
        .all(|r| r.received == n && r.in_order && r.exact);
    let lat = results[results.len() / 2].latency_us;
    if json {
        println!(
            r#"{{"variant":"{variant}","n":{n},"runs":{runs},"send_s":[{:.4},{:.4},{:.4}],"completion_s":[{:.4},{:.4},{:.4}],"all_delivered_in_order_exact":{all},"latency_us_p50_p99_max":[{:.0},{:.0},{:.0}],"bridge_cpu_s":{:.3}}}"#,
            send.0, send.1, send.2, done.0, done.1, done.2, lat.0, lat.1, lat.2, cpu.0
        );
    } else {
        println!(
            "{variant:<4} {n:>8}  send {:>7.3} s ({:.3}–{:.3})  completion {:>7.3} s ({:.3}–{:.3})  {:>9.0} msg/s  {}  latency p50 {:.0} µs p99 {:.0} µs max {:.0} µs  bridge CPU {:.2} s",
            send.0, send.1, send.2, done.0, done.1, done.2, n as f64 / done.0,
            if all { "all delivered, in order, exact" } else { "LOSS/ORDER/PAYLOAD PROBLEM" },
            lat.0, lat.1, lat.2, cpu.0
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
    done.0
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
    let json = args.iter().any(|a| a == "--json");
    let n: u64 = arg(&args, "--n").map_or(100_000, |v| v.parse().unwrap());
    let runs: usize = arg(&args, "--runs").map_or(5, |v| v.parse().unwrap());
    let variants = arg(&args, "--variants").unwrap_or_else(|| "W1,T1,T2,T3,T4".into());
    let linearity = args.iter().any(|a| a == "--linearity");
    let isolation = args.iter().any(|a| a == "--isolation");

    let context = Context::builder().isolated().create().unwrap();
    let bridge =
        Bridge::start(&context, BridgeConfig::default().port(0).tcp_port(Some(0))).unwrap();
    let node = context.create_node("sink").unwrap();
    let capacity = if linearity { 1_000_000 } else { n as usize };
    let sink = sink::Sink::new(&node, capacity);
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let e = executor.clone();
    let spinner = std::thread::spawn(move || e.spin());
    std::thread::sleep(Duration::from_millis(200));
    let idle_kb = status_kb("VmRSS:");
    if !json {
        println!("machine: {}", machine());
        println!(
            "bridge RSS idle (with the sink's arrays): {} MiB",
            idle_kb / 1024
        );
    }
    let mut solo_w1 = None;
    for variant in variants.split(',') {
        let done = measure(&bridge, &sink, variant, n, runs, json);
        if variant == "W1" {
            solo_w1 = Some(done);
        }
    }
    if linearity {
        for variant in ["W1", "T2"] {
            let small = measure(&bridge, &sink, variant, 100_000, 3, json);
            let big = measure(&bridge, &sink, variant, 1_000_000, 1, json);
            let _ = measure(&bridge, &sink, variant, 10_000, 3, json);
            println!("L1 {variant}: time(1M) / time(100k) = {:.2}", big / small);
        }
    }
    if isolation {
        isolation_run(&context, &bridge, &sink, n, runs, json, solo_w1);
    }
    let peak_kb = status_kb("VmHWM:");
    std::thread::sleep(Duration::from_secs(3));
    let after_kb = status_kb("VmRSS:");
    println!(
        "bridge+sink RSS: idle {} MiB, peak {} MiB (growth {} MiB), 3 s after the last client left {} MiB",
        idle_kb / 1024,
        peak_kb / 1024,
        (peak_kb.saturating_sub(idle_kb)) / 1024,
        after_kb / 1024
    );
    executor.cancel();
    spinner.join().unwrap();
}

/// I1: a client subscribed to a 50 MB/s topic stops reading while W1 runs.
fn isolation_run(
    context: &Context,
    bridge: &Bridge,
    sink: &sink::Sink,
    n: u64,
    runs: usize,
    json: bool,
    solo: Option<f64>,
) {
    let node = context.create_node("firehose").unwrap();
    let publisher = node
        .create_publisher::<UInt8MultiArray>("/firehose", QosProfile::default())
        .unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--client", "stall", "--n", "0"])
        .args(["--ws", &bridge.local_addr().to_string(), "--tcp", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "subscribed");
    publisher.wait_for_subscribers(1, Duration::from_secs(5));
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let firehose = std::thread::spawn(move || {
        let payload = vec![42u8; 500_000];
        while !s.load(Ordering::Relaxed) {
            let _ = publisher.publish(UInt8MultiArray {
                data: payload.clone(),
                ..Default::default()
            });
            std::thread::sleep(Duration::from_millis(10)); // 100 Hz × 500 kB
        }
    });
    std::thread::sleep(Duration::from_secs(1));
    println!("I1: W1 while a client stalls on a 50 MB/s topic:");
    let with = measure(bridge, sink, "W1", n, runs, json);
    stop.store(true, Ordering::Relaxed);
    firehose.join().unwrap();
    let stats = bridge.stats();
    for c in &stats.clients {
        println!(
            "I1: client #{} {:?}: {} dropped, {} queued ({} KiB)",
            c.id,
            c.protocol,
            c.dropped,
            c.queued_messages,
            c.queued_bytes / 1024
        );
    }
    if let Some(solo) = solo {
        println!(
            "I1: W1 completion {with:.3} s with the stalled client vs {solo:.3} s solo ({:+.1}%)",
            (with / solo - 1.0) * 100.0
        );
    }
    writeln!(stdin, "done").unwrap();
    let _ = child.wait();
}
