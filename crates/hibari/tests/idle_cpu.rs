//! An idle executor sleeps: over one second of spinning with nothing to do,
//! the process uses (next to) no CPU. Its own test binary, so that no other
//! test's work is counted.

#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Context, GuardConditionOptions, QosProfile, SingleThreadedExecutor};
use hibari_testkit::process_cpu_time;

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
