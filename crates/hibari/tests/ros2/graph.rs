//! The graph both ways (rclpy's queries show hibari's node, hibari's show
//! rclpy's), and an rclpy node killed with SIGKILL leaving hibari's graph.

use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Message, QosProfile};
use hibari_testkit::unique_topic;

use super::peer::LIMIT;
use super::Rig;

// ---- the graph ----

pub fn each_graph_shows_the_other_side(distro: &str) {
    let rig = Rig::new("hibari_graph");
    let topic = unique_topic("ros2_from_hibari");
    let theirs = unique_topic("ros2_from_rclpy");
    let _publisher = rig
        .node
        .create_publisher::<RosString>(&topic, QosProfile::default())
        .unwrap();
    let peer = rig.peer(
        distro,
        "graph",
        "rclpy_graph",
        &["hibari_graph", &topic, &theirs],
    );
    // rclpy's view of hibari.
    let line = peer.expect("{");
    let seen: serde_json::Value = serde_json::from_str(&line).unwrap();
    let nodes = seen["nodes"].as_array().unwrap();
    assert!(
        nodes.contains(&serde_json::json!(["hibari_graph", "/"])),
        "rclpy's nodes: {nodes:?}"
    );
    assert_eq!(
        seen["topics"][&topic],
        serde_json::json!(["std_msgs/msg/String"]),
        "rclpy's topics: {}",
        seen["topics"]
    );
    let publishers = seen["publishers"].as_array().unwrap();
    assert_eq!(publishers.len(), 1, "{publishers:?}");
    let p = &publishers[0];
    assert_eq!(p["node_name"], "hibari_graph");
    assert_eq!(p["node_namespace"], "/");
    assert_eq!(p["topic_type"], "std_msgs/msg/String");
    assert_eq!(p["topic_type_hash"], RosString::TYPE_HASH);
    assert_eq!(p["reliability"], "RELIABLE");
    // hibari's view of rclpy.
    let node = &rig.node;
    assert!(
        node.wait_for_graph(
            |_| node
                .get_publishers_info_by_topic(&theirs)
                .unwrap()
                .iter()
                .any(|i| i.node_name == "rclpy_graph"),
            LIMIT
        ),
        "hibari's graph never showed rclpy_graph publishing {theirs}: nodes {:?}, topics {:?}",
        node.get_node_names(),
        node.get_topic_names_and_types()
    );
    assert!(node.get_node_names().contains(&"/rclpy_graph".to_string()));
    assert_eq!(
        node.get_topic_names_and_types()[&theirs],
        ["std_msgs/msg/String"]
    );
    let info = node.get_publishers_info_by_topic(&theirs).unwrap();
    assert_eq!(info[0].topic_type_hash, RosString::TYPE_HASH);
    assert_eq!(info[0].node_namespace, "/");
}

pub fn a_killed_rclpy_node_leaves_hibaris_graph(distro: &str) {
    let rig = Rig::new("hibari_watcher");
    let topic = unique_topic("ros2_doomed");
    let mut peer = rig.peer(distro, "linger", "rclpy_doomed", &[&topic]);
    peer.expect("ready");
    let node = &rig.node;
    // The node (ros_discovery_info) and its publisher (SEDP) arrive apart.
    let seen = node.wait_for_graph(
        |g| {
            g.nodes.iter().any(|n| n.name == "rclpy_doomed")
                && g.endpoints.iter().any(|e| e.spec.topic == topic)
        },
        LIMIT,
    );
    if !seen {
        peer.fail(&format!(
            "hibari's graph never showed /rclpy_doomed publishing {topic}: {:?}",
            node.get_node_names()
        ));
    }
    let killed = Instant::now();
    peer.kill();
    // Fast DDS's participant lease is 20 s; a guard well beyond it.
    let gone = node.wait_for_graph(
        |g| {
            !g.nodes.iter().any(|n| n.name == "rclpy_doomed")
                && !g.endpoints.iter().any(|e| e.spec.topic == topic)
        },
        Duration::from_secs(90),
    );
    assert!(
        gone,
        "/rclpy_doomed was still in hibari's graph 90 s after SIGKILL: {:?}",
        node.get_node_names()
    );
    eprintln!(
        "{distro}: /rclpy_doomed left hibari's graph {:.1} s after SIGKILL",
        killed.elapsed().as_secs_f64()
    );
}
