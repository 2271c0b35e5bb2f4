//! Services (std_srvs/SetBool) both ways, and QoS incompatibility seen as an
//! event on both sides.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::{QosPolicyKind, QosProfile, SingleThreadedExecutor};
use hibari_testkit::unique_topic;

use super::peer::{wait_until, Peer, LIMIT};
use super::Rig;

// ---- services: std_srvs/SetBool ----

pub fn two_rclpy_clients_get_only_their_own_replies_from_a_hibari_server(distro: &str) {
    let rig = Rig::new("hibari_server");
    let service = unique_topic("ros2_switch");
    // Requests served, of (true, false): where a missing reply was lost.
    let served = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let count = served.clone();
    let server = rig
        .node
        .create_service::<SetBool, _>(
            &service,
            QosProfile::services_default(),
            move |r: SetBool_Request| {
                count[usize::from(!r.data)].fetch_add(1, Ordering::Relaxed);
                SetBool_Response {
                    success: r.data,
                    message: format!("hibari:{}", r.data),
                }
            },
        )
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&rig.node).unwrap();
    let calls = "20";
    let mut yes = rig.peer(distro, "call", "rclpy_yes", &[&service, "true", calls]);
    let mut no = rig.peer(distro, "call", "rclpy_no", &[&service, "false", calls]);
    let spin_for = |peer: &Peer, prefix: &str| -> String {
        let deadline = Instant::now() + LIMIT;
        loop {
            executor.spin_once(Duration::from_millis(5));
            if let Some(line) = peer.try_line() {
                if line.starts_with(prefix) {
                    return line;
                }
            }
            if Instant::now() > deadline {
                peer.fail(&format!("no `{prefix}` line within {LIMIT:?}"));
            }
        }
    };
    spin_for(&yes, "matched");
    spin_for(&no, "matched");
    yes.go();
    no.go();
    let mut done = [None, None];
    let mut replies = [0, 0];
    let deadline = Instant::now() + LIMIT;
    while done.iter().any(Option::is_none) {
        executor.spin_once(Duration::from_millis(5));
        for ((slot, n), peer) in done.iter_mut().zip(&mut replies).zip([&yes, &no]) {
            while let Some(line) = peer.try_line() {
                if line.starts_with("reply ") {
                    *n += 1;
                } else if line.starts_with("done") {
                    *slot = Some(line);
                }
            }
        }
        if Instant::now() > deadline {
            let late = if done[0].is_none() { &yes } else { &no };
            late.fail(&format!(
                "not done within {LIMIT:?}: {done:?}, replies (true, false): {replies:?} of {calls}, \
                 requests served: {served:?}, replies the server failed to write: {}",
                server.failed_replies()
            ));
        }
    }
    // `done <replies> <wrong>`: every call answered, none with the other's value.
    assert_eq!(done[0].as_deref(), Some("done 20 0"), "{}", yes.stderr());
    assert_eq!(done[1].as_deref(), Some("done 20 0"), "{}", no.stderr());
}

pub fn a_hibari_client_calls_an_rclpy_server(distro: &str) {
    let rig = Rig::new("hibari_client");
    let service = unique_topic("ros2_switch");
    let peer = rig.peer(distro, "serve", "rclpy_server", &[&service]);
    peer.expect("ready");
    let client = rig
        .node
        .create_client::<SetBool>(&service, QosProfile::services_default())
        .unwrap();
    if !client.wait_for_service(LIMIT) {
        peer.fail("hibari's client never saw the rclpy server");
    }
    for n in 0..6 {
        let data = n % 2 == 0;
        let reply = client
            .call(SetBool_Request { data }, LIMIT)
            .unwrap_or_else(|e| peer.fail(&format!("call {n}: {e}")));
        assert!(reply.success == data, "call {n}: {reply:?}");
        let python = if data { "True" } else { "False" };
        assert_eq!(reply.message, format!("rclpy:{python}"));
    }
}

// ---- QoS incompatibility: reliable reader, best-effort writer ----

pub fn incompatible_qos_is_an_event_on_both_sides_hibari_writer(distro: &str) {
    let rig = Rig::new("hibari_offer");
    let topic = unique_topic("ros2_incompatible");
    let publisher = rig
        .node
        .create_publisher::<RosString>(&topic, QosProfile::default().best_effort())
        .unwrap();
    let peer = rig.peer(distro, "incompatible", "rclpy_request", &["reader", &topic]);
    assert_eq!(
        peer.expect("incompatible"),
        "incompatible RMW_QOS_POLICY_RELIABILITY"
    );
    wait_until(
        LIMIT,
        "hibari's publisher seeing the incompatible reader",
        || publisher.incompatible_qos_status().total_count > 0,
    );
    let status = publisher.incompatible_qos_status();
    assert_eq!(status.last_policy_kind, Some(QosPolicyKind::Reliability));
    assert_eq!(publisher.matched_subscriptions(), 0);
}

pub fn incompatible_qos_is_an_event_on_both_sides_rclpy_writer(distro: &str) {
    let rig = Rig::new("hibari_request");
    let topic = unique_topic("ros2_incompatible");
    let sub = rig
        .node
        .create_polled_subscription::<RosString>(&topic, QosProfile::default())
        .unwrap();
    let peer = rig.peer(distro, "incompatible", "rclpy_offer", &["writer", &topic]);
    assert_eq!(
        peer.expect("incompatible"),
        "incompatible RMW_QOS_POLICY_RELIABILITY"
    );
    wait_until(
        LIMIT,
        "hibari's subscription seeing the incompatible writer",
        || sub.incompatible_qos_status().total_count > 0,
    );
    let status = sub.incompatible_qos_status();
    assert_eq!(status.last_policy_kind, Some(QosPolicyKind::Reliability));
    assert_eq!(sub.matched_publishers(), 0);
}
