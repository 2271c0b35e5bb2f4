//! The bench's table and JSON.

use hdrhistogram::Histogram;
use serde_json::{json, Value};

use crate::run::{Outcome, Placement, Plan};

/// count, p50, p90, p99, p99.9, max — in ns.
struct Summary {
    count: u64,
    quantiles: [u64; 4],
    max: u64,
}

const QUANTILES: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

fn summarize(latencies_ns: &[u64]) -> Summary {
    // 1 ns to 100 s, 3 significant digits.
    let mut h = Histogram::<u64>::new_with_bounds(1, 100_000_000_000, 3)
        .expect("constant bounds are valid");
    for &ns in latencies_ns {
        h.saturating_record(ns.max(1));
    }
    Summary {
        count: h.len(),
        quantiles: QUANTILES.map(|q| h.value_at_quantile(q)),
        max: h.max(),
    }
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

fn rate(plan: &Plan) -> String {
    format!("{} Hz", plan.rate_hz)
}

fn cores(p: &Placement) -> String {
    format!(
        "{} (exec {}, pub {})",
        p.name, p.executor_core, p.publisher_core
    )
}

/// One run's two rows (from send, from source), with a header first if asked.
pub fn print_latency(placement: &Placement, plan: &Plan, o: &Outcome, header: bool) {
    if header {
        println!(
            "in-process publish → callback latency, µs (SingleThreadedExecutor on its own thread)"
        );
        println!(
            "{:<30} {:<13} {:<21} {:>8} {:>6} {:<7} {:>7} {:>7} {:>7} {:>7} {:>8} {:>6} {:>4}",
            "placement",
            "receiver",
            "message",
            "rate",
            "count",
            "from",
            "p50",
            "p90",
            "p99",
            "p99.9",
            "max",
            "copies",
            "lost"
        );
    }
    for (from, data) in [("send", &o.from_send), ("source", &o.from_source)] {
        let s = summarize(data);
        let [p50, p90, p99, p999] = s.quantiles.map(us);
        let (place, receiver, message, rate, copies, lost) = if from == "send" {
            (
                cores(placement),
                o.receiver.to_string(),
                o.message.to_string(),
                rate(plan),
                if o.checks_copies {
                    o.copies.to_string()
                } else {
                    "-".into()
                },
                o.lost.to_string(),
            )
        } else {
            Default::default()
        };
        println!(
            "{place:<30} {receiver:<13} {message:<21} {rate:>8} {:>6} {from:<7} {p50:>7} {p90:>7} {p99:>7} {p999:>7} {:>8} {copies:>6} {lost:>4}",
            s.count,
            us(s.max)
        );
    }
    if o.received < plan.messages || o.publish_errors > 0 {
        println!(
            "  ! received {} of {}, {} publish errors",
            o.received, plan.messages, o.publish_errors
        );
    }
}

fn summary_json(latencies_ns: &[u64]) -> Value {
    let s = summarize(latencies_ns);
    json!({
        "count": s.count,
        "p50_ns": s.quantiles[0],
        "p90_ns": s.quantiles[1],
        "p99_ns": s.quantiles[2],
        "p99_9_ns": s.quantiles[3],
        "max_ns": s.max,
    })
}

fn placement_json(p: &Placement) -> Value {
    json!({ "name": p.name, "executor_core": p.executor_core, "publisher_core": p.publisher_core })
}

/// One run as JSON.
pub fn latency_json(placement: &Placement, plan: &Plan, o: &Outcome) -> Value {
    json!({
        "placement": placement_json(placement),
        "receiver": o.receiver,
        "message": o.message,
        "payload_bytes": o.bytes,
        "rate_hz": plan.rate_hz,
        "messages": plan.messages,
        "warmup": plan.warmup,
        "pool": plan.pool,
        "spin_before_due_us": plan.spin_before.as_micros() as u64,
        "from_send": summary_json(&o.from_send),
        "from_source": summary_json(&o.from_source),
        "received": o.received,
        "copies": o.checks_copies.then_some(o.copies),
        "lost": o.lost,
        "publish_errors": o.publish_errors,
    })
}

/// The CPU runs' table.
pub fn print_cpu(runs: &[(Placement, Plan, Outcome)]) {
    let Some((_, plan, first)) = runs.first() else {
        return;
    };
    println!(
        "\nCPU: {} at {} for {} messages; the publisher sleeps between frames (no spin); \
         a pool of {} pre-filled frames is moved round (no pixel written during the run)",
        first.message,
        rate(plan),
        plan.messages,
        plan.pool
    );
    println!(
        "{:<30} {:>7} {:>12} {:>12} {:>11} {:>13} {:>14} {:>14} {:>9} {:>9} {:>6}",
        "placement",
        "wall s",
        "publisher ms",
        "executor ms",
        "% of a core",
        "process ms*",
        "pub vol/invol",
        "exec vol/invol",
        "µs/msg",
        "lat p50",
        "copies"
    );
    for (placement, plan, o) in runs {
        let Some(c) = &o.cpu else { continue };
        let both = c.publisher.cpu + c.executor.cpu;
        let wall = c.wall.as_secs_f64();
        println!(
            "{:<30} {:>7.2} {:>12.3} {:>12.3} {:>11.3} {:>13} {:>14} {:>14} {:>9.1} {:>9} {:>6}",
            cores(placement),
            wall,
            c.publisher.cpu.as_secs_f64() * 1e3,
            c.executor.cpu.as_secs_f64() * 1e3,
            both.as_secs_f64() / wall * 100.0,
            c.process.as_millis(),
            format!(
                "{}/{}",
                c.publisher.voluntary_switches, c.publisher.involuntary_switches
            ),
            format!(
                "{}/{}",
                c.executor.voluntary_switches, c.executor.involuntary_switches
            ),
            both.as_secs_f64() * 1e6 / plan.messages as f64,
            us(summarize(&o.from_send).quantiles[0]),
            o.copies,
        );
    }
    println!("* utime+stime of the whole process from /proc/self/stat, 10 ms resolution");
}

/// One CPU run as JSON.
pub fn cpu_json(placement: &Placement, plan: &Plan, o: &Outcome) -> Value {
    let Some(c) = &o.cpu else {
        return Value::Null;
    };
    let thread = |t: &crate::proc_stats::ThreadSample| {
        json!({
            "cpu_ns": t.cpu.as_nanos() as u64,
            "voluntary_switches": t.voluntary_switches,
            "involuntary_switches": t.involuntary_switches,
        })
    };
    let both = c.publisher.cpu + c.executor.cpu;
    json!({
        "placement": placement_json(placement),
        "message": o.message,
        "payload_bytes": o.bytes,
        "rate_hz": plan.rate_hz,
        "messages": plan.messages,
        "wall_ns": c.wall.as_nanos() as u64,
        "publisher": thread(&c.publisher),
        "executor": thread(&c.executor),
        "percent_of_a_core": both.as_secs_f64() / c.wall.as_secs_f64() * 100.0,
        "cpu_ns_per_message": both.as_nanos() as u64 / plan.messages.max(1) as u64,
        "process_utime_stime_ns": c.process.as_nanos() as u64,
        "from_send": summary_json(&o.from_send),
        "from_source": summary_json(&o.from_source),
        "copies": o.copies,
        "lost": o.lost,
    })
}
