//! One-way latency between two processes through the public API: a publisher
//! in this process, a view subscription spun by a `SingleThreadedExecutor`
//! in a child process, shared memory chosen by the context itself.
//!
//! ```text
//! cargo bench -p hibari --bench ipc_executor                         # same core
//! cargo bench -p hibari --bench ipc_executor -- --placement cross
//! cargo bench -p hibari --bench ipc_executor -- --samples 500 --sizes 64,6220800
//! ```
//!
//! Ping-pong, closed loop (the method of the transport-level bench,
//! `hibari-bench-ipc`, so its rows compare with these): the parent writes the
//! whole payload (a `UInt8MultiArray` of the given size) each time, puts its
//! `CLOCK_MONOTONIC` reading in the first 8 bytes and publishes — with
//! `publish(msg)` (the row then includes serializing the message into shared
//! memory, one copy) or into a loan (`+loan`: the payload written in place,
//! then stamped, as the transport-level bench does); the child's
//! executor wakes, its view callback reads the clock first thing and answers
//! with the one-way latency it saw (a `UInt64`); the parent's executor waits
//! for that answer before the next ping. So each row includes the payload
//! write's effect on the wake-up, the serialization into shared memory, the
//! wake-up of a sleeping executor (event) or its spinning (busy poll), its
//! look for work and the zero-copy view — everything a user's callback would
//! see, nothing more. Both processes are pinned: same core or two cores.

use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use hdrhistogram::Histogram;
use hibari::msg::std_msgs::msg::{UInt64, UInt8MultiArray};
use hibari::{Context, QosProfile, SingleThreadedExecutor, SubscriptionOptions};

const CHILD: &str = "HIBARI_IPC_EXECUTOR_CHILD";

fn mono_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn pin(core: usize) {
    let ids = core_affinity::get_core_ids().unwrap_or_default();
    if let Some(id) = ids.get(core % ids.len().max(1)) {
        core_affinity::set_for_current(*id);
    }
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// The child: answers every ping with the latency it measured.
fn child(busy: bool) {
    let ctx = Context::new().expect("context");
    let node = ctx.create_node("ipc_executor_child").unwrap();
    let pong = node
        .create_publisher::<UInt64>("/bench/pong", QosProfile::default())
        .unwrap();
    let _sub = node
        .create_view_subscription::<UInt8MultiArray, _>(
            "/bench/ping",
            SubscriptionOptions::new(QosProfile::default().keep_last(1)).busy_poll(busy),
            move |view, _info| {
                let now = mono_ns();
                let bytes = view.data.as_bytes();
                let sent = u64::from_le_bytes(bytes.array(0).unwrap_or_default());
                let _ = pong.publish(UInt64 {
                    data: now.saturating_sub(sent),
                });
            },
        )
        .unwrap();
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    exec.spin();
}

struct Row {
    size: usize,
    mode: &'static str,
    hist: Histogram<u64>,
}

fn run(size: usize, busy: bool, loan: bool, samples: u64, child_core: usize) -> Row {
    let domain = 150 + std::process::id() % 50;
    let ctx = Context::with_domain(domain);
    let node = ctx.create_node("ipc_executor").unwrap();
    let ping = node
        .create_publisher::<UInt8MultiArray>("/bench/ping", QosProfile::default().keep_last(1))
        .unwrap();
    let (tx, rx) = mpsc::channel::<u64>();
    let _sub = node
        .create_subscription(
            "/bench/pong",
            SubscriptionOptions::new(QosProfile::default()).busy_poll(busy),
            move |m: UInt64| tx.send(m.data).unwrap(),
        )
        .unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, if busy { "busy" } else { "event" })
        .env("HIBARI_IPC_EXECUTOR_CORE", child_core.to_string())
        .env("ROS_DOMAIN_ID", domain.to_string())
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn the child");
    assert!(ping.wait_for_subscribers(1, Duration::from_secs(20)));
    assert!(node.wait_for_graph(|_| _sub.matched_publishers() == 1, Duration::from_secs(20)));
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    let mut hist = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).unwrap();
    let mut msg = UInt8MultiArray {
        data: vec![0; size.max(8)],
        ..Default::default()
    };
    let header = UInt8MultiArray::default();
    let warmup = (samples / 10).max(20);
    for i in 0..warmup + samples {
        if loan {
            // The payload written in place in shared memory, then stamped.
            let (mut l, range) = ping.loan_message(&header, "data", size.max(8)).unwrap();
            let data = &mut l[range];
            data.fill(i as u8);
            data[..8].copy_from_slice(&mono_ns().to_le_bytes());
            l.send().unwrap();
        } else {
            msg.data.fill(i as u8); // the payload written every time
            msg.data[..8].copy_from_slice(&mono_ns().to_le_bytes());
            let sent = std::mem::take(&mut msg);
            msg = match ping.publish(sent) {
                Ok(()) => UInt8MultiArray {
                    data: vec![0; size.max(8)],
                    ..Default::default()
                },
                Err(e) => e.into_message().expect("message back"),
            };
        }
        let latency = loop {
            exec.spin_once(Duration::from_secs(5));
            if let Ok(l) = rx.try_recv() {
                break l;
            }
        };
        if i >= warmup {
            hist.record(latency.max(1)).unwrap();
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    Row {
        size,
        mode: match (busy, loan) {
            (false, false) => "event",
            (false, true) => "event+loan",
            (true, false) => "busy",
            (true, true) => "busy+loan",
        },
        hist,
    }
}

fn main() {
    if let Ok(mode) = std::env::var(CHILD) {
        let core = std::env::var("HIBARI_IPC_EXECUTOR_CORE")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        pin(core);
        child(mode == "busy");
        return;
    }
    let cross = arg("--placement").as_deref() == Some("cross");
    let samples: u64 = arg("--samples")
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000);
    let sizes: Vec<usize> = arg("--sizes")
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![64, 4096, 65_536, 921_600, 6_220_800]);
    pin(0);
    let child_core = usize::from(cross);
    println!(
        "public API, two processes, {} placement, {samples} samples after warm-up; one-way µs",
        if cross { "cross-core" } else { "same-core" }
    );
    println!(
        "{:>10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "size", "mode", "p50", "p90", "p99", "p99.9", "max"
    );
    for &size in &sizes {
        // Busy polling on one core would starve the other process.
        let modes: &[bool] = if cross { &[false, true] } else { &[false] };
        for (&busy, loan) in modes.iter().flat_map(|b| [(b, false), (b, true)]) {
            let r = run(size, busy, loan, samples, child_core);
            let q = |p: f64| r.hist.value_at_quantile(p) as f64 / 1000.0;
            println!(
                "{:>10} {:>10} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
                r.size,
                r.mode,
                q(0.5),
                q(0.9),
                q(0.99),
                q(0.999),
                r.hist.max() as f64 / 1000.0
            );
        }
    }
}
