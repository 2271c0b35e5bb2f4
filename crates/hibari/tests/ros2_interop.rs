//! hibari and real ROS 2 nodes, both ways, through hibari's public API: a
//! context of a test's own domain (its DDS participant found by itself)
//! against rclpy nodes of Jazzy (rclpy 7.1, Fast DDS 2.14) and Kilted
//! (rclpy 9.1, Fast DDS 3.2) from the PyPI wheels (scripts/ros2-peer.sh).
//!
//! Every check runs once per distro (`jazzy::…`, `kilted::…`). The rclpy side
//! is tests/ros2/rclpy_peer.py, one role per process, given the domain in
//! `ROS_DOMAIN_ID`; topics are unique per test. A missing venv fails the test
//! with the command that installs it. Waits are bounded and fail with what
//! they waited for and the peer's stderr.
//!
//! These tests live in the `hibari` crate, not in hibari-dds: they exercise
//! what users run (the context combining in-process, shared memory and DDS),
//! and `hibari` depends on `hibari-dds`, so hibari-dds's own tests could reach
//! the public API only through a dev-dependency cycle.

#[path = "ros2/actions.rs"]
mod actions;
#[path = "ros2/graph.rs"]
mod graph;
#[path = "ros2/lifecycle.rs"]
mod lifecycle;
#[path = "ros2/logging.rs"]
mod logging;
#[path = "ros2/parameters.rs"]
mod parameters;
#[path = "ros2/peer.rs"]
mod peer;
#[path = "ros2/services.rs"]
mod services;
#[path = "support/spinner.rs"]
mod spinner;
#[path = "ros2/time.rs"]
mod time;
#[path = "ros2/topics.rs"]
mod topics;

use hibari::{Context, Node};
use hibari_testkit::TestDomain;
use peer::Peer;

/// A domain of the test's own and a context of it (all transports).
struct Rig {
    node: Node,
    _context: Context,
    domain: TestDomain,
}

impl Rig {
    fn new(node: &str) -> Rig {
        let domain = TestDomain::reserve();
        let context = Context::builder().domain(domain.id()).create().unwrap();
        let node = context.create_node(node).unwrap();
        Rig {
            node,
            _context: context,
            domain,
        }
    }

    fn peer(&self, distro: &str, role: &str, node: &str, args: &[&str]) -> Peer {
        Peer::start(distro, self.domain.id(), role, node, args)
    }
}

/// Every check once per distro.
macro_rules! distro {
    ($distro:ident) => {
        mod $distro {
            const D: &str = stringify!($distro);
            #[test]
            fn string_reliable_hibari_to_rclpy() {
                super::topics::strings_hibari_to_rclpy(D, true)
            }
            #[test]
            fn all_acked_waits_for_an_rclpy_subscription() {
                super::topics::all_acked_waits_for_an_rclpy_subscription(D)
            }
            #[test]
            fn string_reliable_rclpy_to_hibari() {
                super::topics::strings_rclpy_to_hibari(D, true)
            }
            #[test]
            fn string_best_effort_hibari_to_rclpy() {
                super::topics::strings_hibari_to_rclpy(D, false)
            }
            #[test]
            fn string_best_effort_rclpy_to_hibari() {
                super::topics::strings_rclpy_to_hibari(D, false)
            }
            #[test]
            fn image_1080p_30hz_hibari_to_rclpy_none_lost_bytes_exact() {
                super::topics::images_hibari_to_rclpy(D)
            }
            #[test]
            fn image_1080p_30hz_rclpy_to_hibari_none_lost_bytes_exact() {
                super::topics::images_rclpy_to_hibari(D)
            }
            #[test]
            fn transient_local_late_rclpy_joiner_gets_what_hibari_published() {
                super::topics::late_rclpy_joiner_gets_what_hibari_published(D)
            }
            #[test]
            fn transient_local_late_hibari_joiner_gets_what_rclpy_published() {
                super::topics::late_hibari_joiner_gets_what_rclpy_published(D)
            }
            #[test]
            fn graph_queries_show_the_other_side() {
                super::graph::each_graph_shows_the_other_side(D)
            }
            #[test]
            fn a_sigkilled_rclpy_node_leaves_hibaris_graph() {
                super::graph::a_killed_rclpy_node_leaves_hibaris_graph(D)
            }
            #[test]
            fn two_rclpy_clients_get_only_their_own_replies() {
                super::services::two_rclpy_clients_get_only_their_own_replies_from_a_hibari_server(
                    D,
                )
            }
            #[test]
            fn a_hibari_client_calls_an_rclpy_server() {
                super::services::a_hibari_client_calls_an_rclpy_server(D)
            }
            #[test]
            fn incompatible_qos_hibari_best_effort_writer_rclpy_reliable_reader() {
                super::services::incompatible_qos_is_an_event_on_both_sides_hibari_writer(D)
            }
            #[test]
            fn fibonacci_action_rclpy_client_hibari_server() {
                super::actions::an_rclpy_client_drives_a_hibari_server(D)
            }
            #[test]
            fn fibonacci_action_hibari_client_rclpy_server() {
                super::actions::a_hibari_client_drives_an_rclpy_server(D)
            }
            #[test]
            fn rosout_of_a_hibari_node_read_by_rclpy() {
                super::logging::an_rclpy_subscriber_reads_a_hibari_nodes_rosout(D)
            }
            #[test]
            fn parameters_rclpy_client_hibari_node() {
                super::parameters::an_rclpy_client_reads_and_sets_a_hibari_nodes_parameters(D)
            }
            #[test]
            fn parameters_hibari_client_rclpy_node() {
                super::parameters::a_hibari_client_reads_and_sets_an_rclpy_nodes_parameters(D)
            }
            #[test]
            fn lifecycle_rclpy_client_drives_a_hibari_node() {
                super::lifecycle::an_rclpy_client_drives_a_hibari_lifecycle_node(D)
            }
            #[test]
            fn lifecycle_hibari_client_drives_an_rclpy_node() {
                super::lifecycle::a_hibari_client_drives_an_rclpy_lifecycle_node(D)
            }
            #[test]
            fn sim_time_rclpy_clock_drives_a_hibari_node() {
                super::time::an_rclpy_clock_publisher_drives_a_hibari_nodes_sim_time(D)
            }
            #[test]
            fn sim_time_hibari_clock_drives_an_rclpy_node() {
                super::time::a_hibari_clock_publisher_drives_an_rclpy_nodes_sim_time(D)
            }
            #[test]
            fn incompatible_qos_rclpy_best_effort_writer_hibari_reliable_reader() {
                super::services::incompatible_qos_is_an_event_on_both_sides_rclpy_writer(D)
            }
        }
    };
}

distro!(jazzy);
distro!(kilted);
