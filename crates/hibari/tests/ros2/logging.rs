//! A hibari node's log records reach an rclpy `/rosout` subscriber (what
//! `rqt_console` and `ros2 topic echo /rosout` read), with ROS 2's levels.

use super::peer::{wait_until, LIMIT};
use super::Rig;

pub fn an_rclpy_subscriber_reads_a_hibari_nodes_rosout(distro: &str) {
    let rig = Rig::new("hibari_logger");
    let peer = rig.peer(distro, "rosout", "rclpy_rosout", &["hibari_logger", "3"]);
    peer.expect("ready");
    wait_until(
        LIMIT,
        "rclpy's /rosout subscription in hibari's graph",
        || rig.node.count_subscribers("/rosout").unwrap_or(0) > 0,
    );
    let logger = rig.node.get_logger();
    // (`once` and `throttle` hold per call site, so per process: the
    // unit tests check them; both distros run this function at once.)
    hibari::debug!(logger, "below the level: not sent");
    hibari::info!(logger, "camera at {} Hz", 30);
    hibari::warn!(logger, "exposure \"auto\"");
    hibari::error!(logger.get_child("io"), "lost frame");
    let lines: Vec<String> = (0..3).map(|_| peer.expect("log ")).collect();
    let file = file!();
    assert_eq!(
        lines,
        [
            format!("log 20 hibari_logger \"camera at 30 Hz\" {file} True"),
            format!("log 30 hibari_logger \"exposure \\\"auto\\\"\" {file} True"),
            format!("log 40 hibari_logger.io \"lost frame\" {file} True"),
        ]
    );
}
