//! `log` records reach a node's logger (console and `/rosout`) once the
//! bridge is installed. Its own test binary: the `log` logger is global to
//! the process.

use std::time::{Duration, Instant};

use hibari::logging::{forward_log_records, LogBridgeError};
use hibari::msg::rcl_interfaces::msg::Log;
use hibari::{Context, QosProfile};

#[test]
fn log_records_become_ros_records_of_child_loggers_at_their_level() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("bridged").unwrap();
    let rosout = node
        .create_polled_subscription::<Log>("/rosout", QosProfile::rosout())
        .unwrap();
    forward_log_records(node.get_logger()).unwrap();
    assert_eq!(
        forward_log_records(node.get_logger()),
        Err(LogBridgeError::AlreadySet)
    );
    log::debug!(target: "cam::driver", "below INFO: dropped");
    log::info!(target: "cam::driver", "exposure {} us", 250);
    log::trace!("below INFO: dropped");
    log::error!("lost frame");
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while got.len() < 2 && Instant::now() < deadline {
        match rosout.take() {
            Some((m, _)) => got.push((m.level, m.name, m.msg, m.line > 0)),
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    assert_eq!(
        got,
        [
            (
                20,
                "bridged.cam.driver".into(),
                "exposure 250 us".into(),
                true
            ),
            (40, "bridged.log_bridge".into(), "lost frame".into(), true),
        ]
    );
}
