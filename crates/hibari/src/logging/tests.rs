//! Levels, formats, conditions and /rosout.

use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

use super::console::{date, with_pattern};
use super::*;
use crate::msg::rcl_interfaces::msg::Log;
use crate::{Context, QosProfile, SingleThreadedExecutor};

const AT: Location<'static> = Location {
    file: "src/cam.rs",
    function: "cam::run",
    line: 7,
};

#[test]
fn lines_follow_the_rcutils_format() {
    let t = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
    let f = with_pattern("[{severity}] [{time}] [{name}]: {message}");
    assert_eq!(
        f.line(Severity::Info, "r1.cam", "hi", &AT, t),
        "[INFO] [1700000000.123456789] [r1.cam]: hi"
    );
    let f = with_pattern("{file_name}:{line_number} {function_name} {time_as_nanoseconds} {x} {");
    assert_eq!(
        f.line(Severity::Warn, "n", "m", &AT, t),
        "src/cam.rs:7 cam::run 1700000000123456789 {x} {"
    );
    assert_eq!(date(1_700_000_000_123), "2023-11-14 22:13:20.123");
}

#[test]
fn levels_come_from_the_logger_its_ancestors_or_the_default() {
    let mut c = LogConfig::default();
    c.log_level("cam:=debug").unwrap();
    c.log_level("warn").unwrap();
    assert_eq!(c.effective("cam"), Severity::Debug);
    assert_eq!(c.effective("cam.child"), Severity::Debug);
    assert_eq!(c.effective("other"), Severity::Warn);
    assert!(c.log_level("loud").is_err());
    assert!(c.log_level(":=info").is_err());
    assert_eq!(Severity::from_level(25), Some(Severity::Warn));
}

#[test]
fn once_skip_first_and_throttle_hold_per_call_site() {
    let site = CallSite::new();
    assert!(site.once() && !site.once());
    let site = CallSite::new();
    assert!(!site.skip_first() && site.skip_first());
    let site = CallSite::new();
    assert!(site.throttle(Duration::from_secs(60)));
    assert!(!site.throttle(Duration::from_secs(60)));
    assert!(site.throttle(Duration::ZERO));
}

#[test]
fn records_at_or_above_the_level_reach_rosout() {
    let c = Context::builder()
        .isolated()
        .args([
            "--ros-args",
            "--log-level",
            "r1.cam:=debug",
            "--disable-stdout-logs",
        ])
        .create()
        .unwrap();
    let cam = c.create_node_with_namespace("cam", "/r1").unwrap();
    let quiet = c.create_node("quiet").unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let watcher = c.create_node("watcher").unwrap();
    let _sub = watcher
        .create_subscription("/rosout", QosProfile::rosout(), move |m: Log| {
            s.lock().unwrap().push((m.name, m.level, m.msg, m.line > 0))
        })
        .unwrap();
    let logger = cam.get_logger();
    assert_eq!(logger.name(), "r1.cam");
    crate::debug!(logger, "rate {}", 30);
    crate::debug!(quiet.get_logger(), "not at INFO");
    crate::info!(quiet.get_logger(), "quiet says hi");
    for _ in 0..3 {
        crate::warn!(logger, once; "only once");
        crate::error!(logger.get_child("io"), skip_first; "after the first");
        crate::info!(logger, throttle = Duration::from_secs(60); "throttled");
    }
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&watcher).unwrap();
    while executor.spin_once(Duration::from_millis(100)) {}
    let s = |n: &str, l: Severity, m: &str| (n.to_string(), l as u8, m.to_string(), true);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            s("r1.cam", Severity::Debug, "rate 30"),
            s("quiet", Severity::Info, "quiet says hi"),
            s("r1.cam", Severity::Warn, "only once"),
            s("r1.cam", Severity::Info, "throttled"),
            s("r1.cam.io", Severity::Error, "after the first"),
            s("r1.cam.io", Severity::Error, "after the first"),
        ]
    );
}
