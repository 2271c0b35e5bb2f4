//! `hibari topic hz|bw|delay`, run as the real binary against a publisher of
//! this test process: what they print, and that Ctrl-C ends them cleanly.

mod common;

use std::process::Command as StdCommand;
use std::time::Duration;

use common::domain::{interrupt, Fixture, LONG};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari_testkit::lines::LineChild;
use hibari_testkit::unique_topic;

fn hello() -> RosString {
    RosString {
        data: "hello world: 1".into(),
    }
}

#[test]
fn hz_and_bw_report_a_live_topic_and_end_cleanly_on_ctrl_c() {
    let f = Fixture::new();
    let topic = unique_topic("rate");
    let _pub = f.keep_publishing(&topic, hello);
    for verb in ["hz", "bw"] {
        let mut std_cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("hibari"));
        std_cmd
            .args(["topic", verb, &topic])
            .env("ROS_DOMAIN_ID", f.domain.to_string());
        let mut child = LineChild::spawn(std_cmd).unwrap();
        let mut first = child.next_line(LONG).unwrap();
        while first == "no new messages" {
            first = child.next_line(LONG).unwrap();
        }
        let detail = child.next_line(LONG).unwrap();
        if verb == "hz" {
            // 50 Hz published: a rate of 1/period, not of the period.
            let rate: f64 = first
                .strip_prefix("average rate: ")
                .unwrap()
                .parse()
                .unwrap();
            assert!(rate > 5.0 && rate < 500.0, "{first}");
            assert!(
                detail.starts_with("\tmin: ") && detail.contains(" window: "),
                "{detail}"
            );
        } else {
            assert!(
                first.contains("/s from ") && first.ends_with(" messages"),
                "{first}"
            );
            // "hello world: 1": 4 bytes of header, 4 of length, 15 of text.
            assert!(detail.contains("Message size mean: 23.00 B"), "{detail}");
        }
        let status = interrupt(&mut child);
        assert!(status.success(), "{verb} after Ctrl-C: {status}");
    }
}

#[test]
fn delay_reads_header_stamps_and_refuses_types_without_a_header() {
    let f = Fixture::new();
    let topic = unique_topic("stamped");
    // Stamped ten seconds in the past: the delay is that, not its sign or
    // another unit.
    let _pub = f.keep_publishing(&topic, || {
        let then = std::time::SystemTime::now() - Duration::from_secs(10);
        let t = then.duration_since(std::time::UNIX_EPOCH).unwrap();
        let mut scan = hibari::msg::sensor_msgs::msg::LaserScan::default();
        scan.header.stamp.sec = t.as_secs() as i32;
        scan.header.stamp.nanosec = t.subsec_nanos();
        scan
    });
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("hibari"));
    cmd.args(["topic", "delay", &topic])
        .env("ROS_DOMAIN_ID", f.domain.to_string());
    let mut child = LineChild::spawn(cmd).unwrap();
    let line = child.next_line(LONG).unwrap();
    let delay: f64 = line
        .strip_prefix("average delay: ")
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    assert!((9.5..40.0).contains(&delay), "{line}");
    assert!(child.next_line(LONG).unwrap().starts_with("\tmin: "));
    assert!(interrupt(&mut child).success());
    let plain = unique_topic("plain");
    let _plain = f.keep_publishing(&plain, hello);
    f.run(&["topic", "delay", &plain])
        .failure()
        .stderr_has(&["std_msgs/msg/String has no `header` field"]);
}
