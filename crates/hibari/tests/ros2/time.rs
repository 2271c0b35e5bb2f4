//! Simulated time both ways: an rclpy `/clock` publisher (a simulator)
//! drives a hibari node's clock and timers, and a hibari one drives an
//! rclpy node's.
//!
//! `/clock` readers are best effort and keep one sample, so a time sent
//! before the reader matched is lost; each step therefore sends its time
//! again until the other side reads it (a simulator publishes all along).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hibari::msg::rosgraph_msgs::msg::Clock as ClockMsg;
use hibari::{ClockType, Parameter, QosProfile, Time};

use super::peer::{wait_until, Peer, LIMIT};
use super::spinner::Spinner;
use super::Rig;

const S: i64 = 1_000_000_000;

pub fn an_rclpy_clock_publisher_drives_a_hibari_nodes_sim_time(distro: &str) {
    let rig = Rig::new("hibari_sim");
    let node = &rig.node;
    assert!(
        node.set_parameter(Parameter::new("use_sim_time", true))
            .successful
    );
    let fired = Arc::new(Mutex::new(Vec::new()));
    let f = fired.clone();
    let clock = node.get_clock().clone();
    let _timer = node
        .create_timer(Duration::from_secs(1), move || {
            f.lock().unwrap().push(clock.now().nanoseconds())
        })
        .unwrap();
    let _spinner = Spinner::new(&[node]);
    let mut peer = rig.peer(distro, "clock_talk", "rclpy_clock", &[]);
    peer.expect("ready");
    let count = || fired.lock().unwrap().len();
    for (ns, fires) in [(S / 2, 0), (S, 1), (3 * S / 2, 1), (2 * S, 2)] {
        wait_until(
            LIMIT,
            &format!("the hibari node reading /clock = {ns}"),
            || {
                peer.send(&format!("clock {ns}"));
                std::thread::sleep(Duration::from_millis(20));
                node.now().nanoseconds() == ns
            },
        );
        wait_until(LIMIT, &format!("{fires} timer calls at {ns}"), || {
            count() >= fires
        });
    }
    // Simulated time stands still at 2 s: the 1 s timer waits.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(*fired.lock().unwrap(), vec![S, 2 * S]);
    assert_eq!(
        node.now(),
        Time::from_nanoseconds(2 * S, ClockType::RosTime)
    );
}

pub fn a_hibari_clock_publisher_drives_an_rclpy_nodes_sim_time(distro: &str) {
    let rig = Rig::new("hibari_simulator");
    let publisher = rig
        .node
        .create_publisher::<ClockMsg>("/clock", QosProfile::clock())
        .unwrap();
    let peer = rig.peer(distro, "sim_time", "rclpy_sim", &[]);
    peer.expect("ready");
    let mut ticks = Vec::new();
    for ns in [S / 2, S, 3 * S / 2, 2 * S] {
        let deadline = Instant::now() + LIMIT;
        let mut seen = false;
        while !seen {
            assert!(Instant::now() < deadline, "rclpy never read /clock = {ns}");
            let msg = ClockMsg {
                clock: Time::from_nanoseconds(ns, ClockType::RosTime).to_msg(),
            };
            publisher.publish(msg).unwrap();
            for line in lines_within(&peer, Duration::from_millis(50)) {
                if let Some(t) = line.strip_prefix("tick ") {
                    ticks.push(t.parse::<i64>().unwrap());
                }
                seen |= line == format!("now {ns}");
            }
        }
    }
    // rclpy's timer runs when its executor next looks: read what it said.
    let deadline = Instant::now() + LIMIT;
    while ticks.len() < 2 && Instant::now() < deadline {
        if let Some(t) = peer
            .next_line(LIMIT)
            .and_then(|l| l.strip_prefix("tick ").map(|t| t.parse::<i64>().unwrap()))
        {
            ticks.push(t);
        }
    }
    assert_eq!(
        ticks,
        vec![S, 2 * S],
        "rclpy's 1 s timer on hibari's /clock"
    );
}

/// What the peer says within `d`.
fn lines_within(peer: &Peer, d: Duration) -> Vec<String> {
    let until = Instant::now() + d;
    let mut lines = Vec::new();
    while Instant::now() < until {
        match peer.try_line() {
            Some(line) => lines.push(line),
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    lines
}
