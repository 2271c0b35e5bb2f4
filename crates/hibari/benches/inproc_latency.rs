//! In-process publish → callback latency and CPU, through the real executor.
//!
//! ```text
//! cargo bench -p hibari --bench inproc_latency              # ~70 s
//! cargo bench -p hibari --bench inproc_latency -- --quick   # ~20 s
//! cargo bench -p hibari --bench inproc_latency -- --placement cross --json out.json
//! ```
//!
//! A `SingleThreadedExecutor` spins the subscriber's node on its own thread;
//! the publisher runs on another; both are pinned (`core_affinity`), either
//! to the same core or to two cores. The publisher sends open loop at a fixed
//! rate: message k is due at `start + k / rate` whatever happened before.
//!
//! # What is timed
//!
//! Messages are made before the run: a pool of frames (64 for the 64-byte
//! message, 8 for the 1080p image, pixels written once) goes round — the
//! publisher takes one from the pool, writes down its buffer's address, waits
//! until the message is due (sleeping, then spinning the last 200 µs), and
//! calls `publish(frame)`; the callback (`FnMut(M, SampleInfo)`, owned) reads
//! the clock first thing, then checks the buffer address and sends the frame
//! back to the pool. Two latencies end at that first clock reading:
//!
//! - **from send**: from the due time. It includes all of `publish` (the one
//!   allocation of the payload cell, the writer's lock, the queue push, the
//!   wake-up), the executor thread's wake-up, its look for work, the take and
//!   the move out of the sample — and any lateness of the publisher itself.
//! - **from source**: from `SampleInfo::source_timestamp_ns`, stamped inside
//!   the writer before the push: the transport and executor part alone.
//!
//! Two kinds of rows frame the executor's: "bare Condvar" runs the same
//! schedule through a `Mutex` + `Condvar` between the two threads, without
//! hibari — the operating system's wake-up cost, which any executor that
//! sleeps when idle pays; "busy take()" (across cores only) replaces the
//! executor by a thread spinning on `Subscription::take`, which never sleeps
//! — what the transport costs without a wake-up.
//!
//! **copies** counts callbacks whose buffer was not the published one (0
//! means every message was moved, never cloned or serialized). The CPU run
//! sends 1080p frames at 30 Hz with the publisher only sleeping between
//! frames, and reads both threads' CPU time (/proc schedstat) and context
//! switches over the run; no pixel is written during it.
//!
//! Results: a table on stdout and JSON in `target/bench/inproc_latency.json`
//! (`$CARGO_TARGET_DIR/bench/…` when set; `--json PATH` to choose).

#[path = "inproc_latency/baseline.rs"]
mod baseline;
#[path = "inproc_latency/proc_stats.rs"]
mod proc_stats;
#[path = "inproc_latency/report.rs"]
mod report;
#[path = "inproc_latency/run.rs"]
mod run;

use std::time::Duration;

use hibari::msg::sensor_msgs::msg::Image;
use hibari::msg::std_msgs::msg::UInt8MultiArray;

use run::{run, Placement, Plan};

struct Args {
    quick: bool,
    placements: Vec<Placement>,
    json: std::path::PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let cores: Vec<usize> = core_affinity::get_core_ids()
        .unwrap_or_default()
        .iter()
        .map(|c| c.id)
        .collect();
    let (first, last) = match (cores.first(), cores.last()) {
        (Some(&f), Some(&l)) => (f, l),
        _ => return Err("no CPU core to pin to".into()),
    };
    let same = Placement {
        name: "same core",
        executor_core: last,
        publisher_core: last,
    };
    let cross = Placement {
        name: "across cores",
        executor_core: first,
        publisher_core: last,
    };
    // The workspace's target directory: crates/hibari → the workspace root.
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2);
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || {
            workspace
                .unwrap_or(std::path::Path::new("."))
                .join("target")
        },
        Into::into,
    );
    let mut args = Args {
        quick: false,
        placements: if first == last {
            vec![same]
        } else {
            vec![same, cross]
        },
        json: target.join("bench/inproc_latency.json"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => args.quick = true,
            "--bench" => {} // what `cargo bench` passes
            "--placement" => match it.next().as_deref() {
                Some("same") => args.placements = vec![same],
                Some("cross") if first != last => args.placements = vec![cross],
                Some("both") if first != last => args.placements = vec![same, cross],
                other => return Err(format!("--placement same|cross|both (got {other:?})")),
            },
            "--json" => args.json = it.next().ok_or("--json needs a path")?.into(),
            other => {
                return Err(format!(
                    "unknown argument {other}: --quick, --placement, --json"
                ))
            }
        }
    }
    Ok(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let secs = |normal: f64, quick: f64| if args.quick { quick } else { normal };
    let spin = Duration::from_micros(200);
    let plan = |rate_hz: f64, seconds: f64, warmup: usize, pool: usize| Plan {
        rate_hz,
        messages: (rate_hz * seconds) as usize,
        warmup,
        pool,
        spin_before: spin,
        measure_cpu: false,
        busy_take: false,
    };
    let machine = proc_stats::machine();
    println!("machine: {machine}");
    let mut latency = Vec::new();
    let mut cpu = Vec::new();
    for &placement in &args.placements {
        let floor = plan(1000.0, secs(10.0, 2.0), 200, 1);
        let outcome = baseline::run(placement, floor);
        report::print_latency(&placement, &floor, &outcome, latency.is_empty());
        latency.push(report::latency_json(&placement, &floor, &outcome));
        let busy = |p: Plan| Plan {
            busy_take: true,
            ..p
        };
        let mut runs = vec![
            (plan(1000.0, secs(10.0, 2.0), 200, 64), false),
            (plan(30.0, secs(10.0, 3.0), 5, 8), true),
            (plan(1000.0, secs(5.0, 2.0), 200, 8), true),
        ];
        // A receiver spinning on one core would starve a publisher on the same.
        if placement.executor_core != placement.publisher_core {
            runs.push((busy(plan(1000.0, secs(5.0, 2.0), 200, 64)), false));
            runs.push((busy(plan(1000.0, secs(5.0, 2.0), 200, 8)), true));
        }
        for (plan, image) in runs {
            let outcome = if image {
                run::<Image>(placement, plan)?
            } else {
                run::<UInt8MultiArray>(placement, plan)?
            };
            report::print_latency(&placement, &plan, &outcome, latency.is_empty());
            latency.push(report::latency_json(&placement, &plan, &outcome));
        }
        let cpu_plan = Plan {
            spin_before: Duration::ZERO,
            warmup: 0,
            measure_cpu: true,
            ..plan(30.0, secs(5.0, 2.0), 0, 8)
        };
        let outcome = run::<Image>(placement, cpu_plan)?;
        cpu.push((placement, cpu_plan, outcome));
    }
    report::print_cpu(&cpu);
    let json = serde_json::json!({
        "bench": "inproc_latency",
        "quick": args.quick,
        "machine": machine,
        "loadavg_after": proc_stats::machine()["loadavg"],
        "timed": "publisher thread: due time (or SampleInfo source timestamp) → first statement \
                  of the FnMut(M, SampleInfo) callback run by a SingleThreadedExecutor on its own \
                  thread; frames pre-made and recycled, pixels never written during a run",
        "latency": latency,
        "cpu": cpu.iter().map(|(p, plan, o)| report::cpu_json(p, plan, o)).collect::<Vec<_>>(),
    });
    if let Some(dir) = args.json.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&args.json, serde_json::to_string_pretty(&json)?)?;
    println!("\nJSON: {}", args.json.display());
    Ok(())
}
