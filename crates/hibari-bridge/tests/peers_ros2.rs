//! roslibpy ↔ `hibari bridge` ↔ stock ROS 2 nodes: rclpy processes over
//! Fast DDS from the PyPI wheels (scripts/ros2-peer.sh installs Jazzy and
//! Kilted; a missing venv fails the test with the command that installs it).
//! The bridge runs on a context of the test's own domain, so it sees the ROS 2
//! topics through DDS, as in front of a real robot: roslibpy hears an rclpy
//! talker, and an rclpy listener hears roslibpy.
//!
//! The rclpy side is crates/hibari/tests/ros2/rclpy_peer.py, started by the
//! interop tests' harness (crates/hibari/tests/ros2/peer.rs); the roslibpy
//! side is tests/py/roslibpy_peer.py `ros2`. Every wait is bounded.

mod common;

#[allow(dead_code)]
#[path = "../../hibari/tests/ros2/peer.rs"]
mod ros2_peer;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use hibari::Context;
use hibari_bridge::{Bridge, BridgeConfig};
use hibari_testkit::{unique_topic, TestDomain};
use ros2_peer::{Peer, LIMIT};

/// A child process killed (and reaped) when dropped, as when a check fails.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn roslibpy_hears_an_rclpy_talker_and_an_rclpy_listener_hears_roslibpy(distro: &str) {
    let domain = TestDomain::reserve();
    let context = Context::builder().domain(domain.id()).create().unwrap();
    let bridge = Bridge::start(&context, BridgeConfig::default().port(0).tcp_port(None))
        .expect("the bridge starts");
    let (talked, listened) = (unique_topic("ros2_talker"), unique_topic("ros2_listener"));
    let count = "10";

    // roslibpy subscribes through the bridge; the bridge's DDS reader is
    // what the rclpy talker waits for.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/roslibpy_peer.py");
    let port = bridge.local_addr().port().to_string();
    let mut roslibpy = Reaped(
        Command::new(common::python())
            .arg(script)
            .args([&port, "ros2", &talked, &listened, count])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start roslibpy_peer.py"),
    );
    let stdout = roslibpy.0.stdout.take().unwrap();
    let mut stdin = roslibpy.0.stdin.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut roslibpy_says = |what: &str| {
        let got = lines.recv_timeout(LIMIT);
        if got.as_deref() != Ok(what) {
            let _ = roslibpy.0.kill();
            let mut err = String::new();
            if let Some(mut e) = roslibpy.0.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            panic!("roslibpy: expected `{what}`, got {got:?}\n--- stderr\n{err}");
        }
    };
    roslibpy_says("subscribed");

    let mut talker = Peer::start(
        distro,
        domain.id(),
        "talk",
        "rclpy_talker",
        &[&talked, count, "reliable"],
    );
    talker.expect("matched");
    talker.go();
    talker.expect("sent");
    roslibpy_says("heard");

    // roslibpy publishes (advertised through the bridge: a DDS writer the
    // rclpy listener matches) until the listener has heard `count`.
    let listener = Peer::start(
        distro,
        domain.id(),
        "listen",
        "rclpy_listener",
        &[&listened, count, "reliable"],
    );
    listener.expect("matched");
    let first = listener.expect("got");
    assert!(first.starts_with("got roslibpy "), "{first}");
    assert_eq!(listener.expect("done"), format!("done {count}"));
    let _ = writeln!(stdin, "stop").and_then(|()| stdin.flush());
    roslibpy_says("ok ros2");
    let status = roslibpy.0.wait().unwrap();
    assert!(status.success(), "roslibpy_peer.py ended with {status}");
    drop(talker);
}

#[test]
fn jazzy_roslibpy_through_the_bridge_to_rclpy_and_back() {
    roslibpy_hears_an_rclpy_talker_and_an_rclpy_listener_hears_roslibpy("jazzy")
}

#[test]
fn kilted_roslibpy_through_the_bridge_to_rclpy_and_back() {
    roslibpy_hears_an_rclpy_talker_and_an_rclpy_listener_hears_roslibpy("kilted")
}
