//! An idle process with DDS on stays near zero CPU: the default context of a
//! ROS domain (in-process, shared memory and a DDS participant that announces
//! itself and its endpoints to ROS 2), a publisher and a subscription, and an
//! executor with nothing to do use next to no CPU over two seconds. Its own
//! test binary, so that no other test's work is counted.

#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Context, QosProfile, SingleThreadedExecutor};
use hibari_testkit::{process_cpu_time, TestDomain};

/// The local ports of this process's UDP sockets (IPv4), from /proc.
fn own_udp_ports() -> Vec<u32> {
    let inodes: Vec<String> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            Some(l.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let table = std::fs::read_to_string("/proc/self/net/udp").unwrap();
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let port = u32::from_str_radix(f.get(1)?.rsplit(':').next()?, 16).ok()?;
            inodes
                .iter()
                .any(|i| Some(&i.as_str()) == f.get(9))
                .then_some(port)
        })
        .collect()
}

#[test]
fn an_idle_process_with_dds_on_uses_next_to_no_cpu() {
    let domain = TestDomain::reserve();
    let context = Context::builder().domain(domain.id()).create().unwrap();
    let discovery_port = 7400 + 250 * domain.id();
    assert!(
        own_udp_ports().contains(&discovery_port),
        "the default context of domain {domain} bound no DDS discovery port ({discovery_port})"
    );
    let node = context.create_node("idle_dds").unwrap();
    let topic = format!("idle_dds_{}", std::process::id());
    let _publisher = node
        .create_publisher::<RosString>(&topic, QosProfile::default())
        .unwrap();
    let _sub = node
        .create_subscription(&topic, QosProfile::default(), |_: &RosString| {})
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    // Startup (the participant's first announcements) is not idleness.
    assert!(!executor.spin_until(|| false, Duration::from_millis(500)));

    let before = process_cpu_time();
    let start = Instant::now();
    assert!(!executor.spin_until(|| false, Duration::from_secs(2)));
    let used = process_cpu_time() - before;
    eprintln!("two idle seconds with DDS on: {used:?} of CPU");
    assert!(start.elapsed() >= Duration::from_secs(2));
    assert!(
        used < Duration::from_millis(100),
        "two idle seconds with DDS on used {used:?} of CPU"
    );
}
