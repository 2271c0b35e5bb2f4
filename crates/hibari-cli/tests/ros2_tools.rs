//! `hibari topic|node|param|service` against stock ROS 2: real rclpy nodes
//! over Fast DDS from the PyPI wheels (scripts/ros2-peer.sh installs Jazzy
//! and Kilted; a missing venv fails the test with the command that installs
//! it). The command reaches them through its context's DDS participant, as
//! `ros2` would on the same robot.
//!
//! The rclpy side is crates/hibari/tests/ros2/rclpy_peer.py, started by the
//! interop tests' harness (crates/hibari/tests/ros2/peer.rs).

mod common;

#[allow(dead_code)]
#[path = "../../hibari/tests/ros2/peer.rs"]
mod ros2_peer;

use std::process::Command;
use std::time::Instant;

use common::{hibari, run, Run};
use hibari_testkit::lines::LineChild;
use hibari_testkit::{unique_topic, TestDomain};
use ros2_peer::{Peer, LIMIT};

/// `hibari <args>` in `domain`, killed after [`LIMIT`].
fn tool(domain: &TestDomain, args: &[&str]) -> Run {
    run(hibari(args)
        .env("ROS_DOMAIN_ID", domain.to_string())
        .timeout(LIMIT))
}

/// Runs a listing until its output satisfies `done` (DDS discovery of a
/// ROS 2 node takes a moment and there is no daemon that already knows).
fn until(domain: &TestDomain, args: &[&str], what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + LIMIT;
    loop {
        let run = tool(domain, args);
        let out = run.stdout_text();
        if run.code == Some(0) && done(&out) {
            return out;
        }
        // Not there yet (a bag file not written yet fails to open).
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(
            Instant::now() < deadline,
            "{what} never showed; last output:\n{out}"
        );
    }
}

fn tools_against_rclpy(distro: &str) {
    let domain = TestDomain::reserve();
    // Parameters of an rclpy node.
    let params = Peer::start(distro, domain.id(), "param_server", "ros_params", &[]);
    params.expect("ready");
    until(
        &domain,
        &["node", "list", "--spin-time", "1"],
        "the rclpy node",
        |o| o.lines().any(|l| l == "/ros_params"),
    );
    let got = tool(&domain, &["param", "get", "/ros_params", "rate"])
        .success()
        .stdout_text();
    assert_eq!(got, "Integer value is: 30\n");
    tool(&domain, &["param", "set", "/ros_params", "gain", "0.95"])
        .failure()
        .stderr_has(&["Setting parameter failed: gain above 0.9"]);
    let set = tool(&domain, &["param", "set", "/ros_params", "gain", "0.7"])
        .success()
        .stdout_text();
    assert_eq!(set, "Set parameter successful\n");
    assert_eq!(params.expect("set gain"), "set gain 0.7");
    let dump = tool(&domain, &["param", "dump", "/ros_params"])
        .success()
        .stdout_text();
    assert!(
        dump.contains("    names: [a, b]\n") && dump.contains("    gain: 0.7\n"),
        "{dump}"
    );

    // A service of an rclpy node.
    let service = unique_topic("ros_switch");
    let server = Peer::start(distro, domain.id(), "serve", "ros_server", &[&service]);
    server.expect("ready");
    let called = tool(
        &domain,
        &[
            "service",
            "call",
            &service,
            "std_srvs/srv/SetBool",
            "{data: true}",
        ],
    )
    .success()
    .stdout_text();
    assert!(
        called.contains("response:\n{success: true, message: rclpy:True}\n"),
        "{called}"
    );

    // A listener hears `topic pub`; `topic echo` hears a talker.
    let heard = unique_topic("ros_heard");
    let listener = Peer::start(
        distro,
        domain.id(),
        "listen",
        "ros_listener",
        &[&heard, "1", "reliable"],
    );
    let published = tool(
        &domain,
        &[
            "topic",
            "pub",
            "--once",
            &heard,
            "std_msgs/msg/String",
            "{data: from hibari}",
        ],
    )
    .success()
    .stdout_text();
    assert!(
        published.contains("publishing #1: {data: from hibari}"),
        "{published}"
    );
    assert_eq!(listener.expect("got"), "got from hibari");

    let said = unique_topic("ros_said");
    let mut talker = Peer::start(
        distro,
        domain.id(),
        "talk",
        "ros_talker",
        &[&said, "3", "reliable"],
    );
    let mut echo = Command::new(assert_cmd::cargo::cargo_bin("hibari"));
    echo.args(["topic", "echo", "--once", &said, "std_msgs/msg/String"])
        .env("ROS_DOMAIN_ID", domain.to_string());
    let echo = LineChild::spawn(echo).unwrap();
    talker.expect("matched");
    talker.go();
    assert_eq!(echo.next_line(LIMIT).unwrap(), "data: msg 0");
    assert_eq!(echo.next_line(LIMIT).unwrap(), "---");
    let info = until(
        &domain,
        &["topic", "info", "-v", &said],
        "the talker's endpoint",
        |o| o.contains("Node name: ros_talker"),
    );
    assert!(info.contains("Topic type hash: RIHS01_"), "{info}");
    talker.close_stdin();
}

/// `bag record` hears an rclpy talker (over DDS); `bag play` of that bag
/// reaches an rclpy listener.
fn bag_with_rclpy(distro: &str) {
    let domain = TestDomain::reserve();
    let dir = hibari_testkit::tempdir().unwrap();
    let out = dir.path().join("bag");
    let said = unique_topic("ros_recorded");
    let mut talker = Peer::start(
        distro,
        domain.id(),
        "talk",
        "ros_talker",
        &[&said, "5", "reliable"],
    );
    let mut record = Command::new(assert_cmd::cargo::cargo_bin("hibari"));
    record
        .args(["bag", "record", &said, "-o", out.to_str().unwrap()])
        .env("ROS_DOMAIN_ID", domain.to_string());
    let mut recorder = LineChild::spawn(record).unwrap();
    talker.expect("matched");
    talker.go();
    talker.expect("sent 5");
    // The recorder writes out what it has once a second: read the open file.
    until(
        &domain,
        &[
            "bag",
            "info",
            "--json",
            out.join("bag_0.mcap").to_str().unwrap(),
        ],
        "five recorded messages",
        |o| serde_json::from_str::<serde_json::Value>(o).is_ok_and(|j| j["message_count"] == 5),
    );
    let pid = recorder.child().id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + LIMIT;
    while recorder.child().try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "the recorder did not stop on SIGINT"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    talker.close_stdin();
    let info = tool(&domain, &["bag", "info", out.to_str().unwrap()])
        .success()
        .stdout_text();
    assert!(
        info.contains(&format!(
            "Topic: {said} | Type: std_msgs/msg/String | Count: 5"
        )),
        "{info}"
    );

    let heard = unique_topic("ros_replayed");
    let listener = Peer::start(
        distro,
        domain.id(),
        "listen",
        "ros_listener",
        &[&heard, "5", "reliable"],
    );
    let remap = format!("{said}:={heard}");
    tool(
        &domain,
        &[
            "bag",
            "play",
            out.to_str().unwrap(),
            "--remap",
            &remap,
            "--wait-for-subscribers",
        ],
    )
    .success();
    for i in 0..5 {
        assert_eq!(listener.expect("got"), format!("got msg {i}"));
    }
}

#[test]
fn jazzy_bag_record_and_play_with_rclpy() {
    bag_with_rclpy("jazzy")
}

#[test]
fn kilted_bag_record_and_play_with_rclpy() {
    bag_with_rclpy("kilted")
}

#[test]
fn jazzy_tools_against_rclpy() {
    tools_against_rclpy("jazzy")
}

#[test]
fn kilted_tools_against_rclpy() {
    tools_against_rclpy("kilted")
}
