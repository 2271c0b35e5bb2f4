//! An idle executor sleeps: over one second of spinning with nothing to do,
//! the process uses (next to) no CPU. Its own test binary, so that no other
//! test's work is counted.

#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Context, GuardConditionOptions, QosProfile, SingleThreadedExecutor};

/// User plus system CPU time of this process, from /proc/self/stat (in
/// clock ticks of 10 ms: Linux's `USER_HZ` is 100).
fn process_cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of stat(5) (utime, stime); the slice starts at field 3.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

#[test]
fn an_idle_executor_uses_next_to_no_cpu() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("idle").unwrap();
    let _sub = node
        .create_subscription("quiet", QosProfile::default(), |_: &RosString| {})
        .unwrap();
    let _timer = node.create_timer(Duration::from_secs(3600), || {}).unwrap();
    let _guard = node.create_guard_condition(GuardConditionOptions::default(), || {});
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();

    let before = process_cpu_time();
    let start = Instant::now();
    assert!(!executor.spin_until(|| false, Duration::from_secs(1)));
    let used = process_cpu_time() - before;
    assert!(start.elapsed() >= Duration::from_secs(1));
    assert!(
        used < Duration::from_millis(50),
        "idle spinning used {used:?} of CPU"
    );
}
