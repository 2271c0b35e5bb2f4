//! What one node has in the graph: its publishers, subscriptions, service
//! servers and clients by name and type, as rclpy's
//! `get_*_names_and_types_by_node` return them (`ros2 node info` is built on
//! them). A service server is the reader of its request topic, a client the
//! writer of it, as ROS 2 derives them.

use std::collections::BTreeMap;

use hibari_transport::{EndpointKind, GraphEndpoint};

use crate::node::graph::{names_and_types, service_of, service_type};
use crate::node::Node;

/// Which of a node's endpoints a query wants.
#[derive(Clone, Copy)]
enum Want {
    Topics(EndpointKind),
    Services(EndpointKind),
}

impl Node {
    fn by_node(&self, name: &str, namespace: &str, want: Want) -> BTreeMap<String, Vec<String>> {
        let g = self.graph();
        let of_node = |e: &&GraphEndpoint| {
            e.node
                .as_ref()
                .is_some_and(|n| n.name == name && n.namespace == namespace)
        };
        match want {
            Want::Topics(kind) => names_and_types(
                g.endpoints
                    .iter()
                    .filter(of_node)
                    .filter(|e| e.kind == kind && service_of(&e.spec.topic).is_none())
                    .map(|e| (e.spec.topic.clone(), e.spec.type_name.as_str())),
            ),
            Want::Services(kind) => {
                let found: Vec<(String, String)> = g
                    .endpoints
                    .iter()
                    .filter(of_node)
                    .filter(|e| e.kind == kind && e.spec.topic.starts_with("rq/"))
                    .filter_map(|e| {
                        Some((service_of(&e.spec.topic)?, service_type(&e.spec.type_name)))
                    })
                    .collect();
                names_and_types(found.iter().map(|(n, t)| (n.clone(), t.as_str())))
            }
        }
    }

    /// The topics node `name` in `namespace` publishes, with their types.
    pub fn get_publisher_names_and_types_by_node(
        &self,
        name: &str,
        namespace: &str,
    ) -> BTreeMap<String, Vec<String>> {
        self.by_node(name, namespace, Want::Topics(EndpointKind::Writer))
    }

    /// The topics node `name` in `namespace` subscribes to, with their types.
    pub fn get_subscriber_names_and_types_by_node(
        &self,
        name: &str,
        namespace: &str,
    ) -> BTreeMap<String, Vec<String>> {
        self.by_node(name, namespace, Want::Topics(EndpointKind::Reader))
    }

    /// The services node `name` in `namespace` serves, with their types.
    pub fn get_service_names_and_types_by_node(
        &self,
        name: &str,
        namespace: &str,
    ) -> BTreeMap<String, Vec<String>> {
        self.by_node(name, namespace, Want::Services(EndpointKind::Reader))
    }

    /// The services node `name` in `namespace` is a client of, with their types.
    pub fn get_client_names_and_types_by_node(
        &self,
        name: &str,
        namespace: &str,
    ) -> BTreeMap<String, Vec<String>> {
        self.by_node(name, namespace, Want::Services(EndpointKind::Writer))
    }
}
