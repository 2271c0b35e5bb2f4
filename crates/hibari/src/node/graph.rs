//! Graph introspection: the nodes, topics, services and endpoints of the
//! domain, as ROS 2's `rclcpp::Node::get_*` calls show them.
//!
//! The graph is what the context's transport knows: every node and endpoint
//! of this process at once, and those of other processes and hosts as the
//! transport discovers them. Services are derived as ROS 2 does, from the
//! topics that carry them (`rq/<name>Request`, `rr/<name>Reply`); topic
//! listings leave those topics out.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari_transport::{EndpointId, EndpointKind, GraphEndpoint, GraphSnapshot, QosProfile};

use crate::node::names::NameError;
use crate::node::Node;
use crate::wait::Signal;

/// A publisher or subscription on a topic, as `ros2 topic info -v` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicEndpointInfo {
    /// The owning node's name (empty when unknown).
    pub node_name: String,
    /// The owning node's namespace (empty when unknown).
    pub node_namespace: String,
    /// The ROS type name.
    pub topic_type: String,
    /// The RIHS01 type hash (empty when the peer did not send one).
    pub topic_type_hash: String,
    /// Publisher or subscription.
    pub endpoint_type: EndpointKind,
    /// The endpoint's id (a publisher's is its samples' `publisher_id`).
    pub gid: EndpointId,
    /// Offered (publisher) or requested (subscription) QoS.
    pub qos: QosProfile,
}

impl From<&GraphEndpoint> for TopicEndpointInfo {
    fn from(e: &GraphEndpoint) -> Self {
        let (node_name, node_namespace) = match &e.node {
            Some(n) => (n.name.clone(), n.namespace.clone()),
            None => (String::new(), String::new()),
        };
        TopicEndpointInfo {
            node_name,
            node_namespace,
            topic_type: e.spec.type_name.clone(),
            topic_type_hash: e.spec.type_hash.clone(),
            endpoint_type: e.kind,
            gid: e.id,
            qos: e.spec.qos,
        }
    }
}

/// The service a request or reply topic carries: `rq/a/bRequest` → `/a/b`.
pub(super) fn service_of(topic: &str) -> Option<String> {
    let name = topic
        .strip_prefix("rq/")
        .and_then(|t| t.strip_suffix("Request"))
        .or_else(|| {
            topic
                .strip_prefix("rr/")
                .and_then(|t| t.strip_suffix("Reply"))
        })?;
    Some(format!("/{name}"))
}

/// `pkg/srv/Name_Request` → `pkg/srv/Name`.
pub(super) fn service_type(type_name: &str) -> String {
    type_name
        .strip_suffix("_Request")
        .or_else(|| type_name.strip_suffix("_Response"))
        .unwrap_or(type_name)
        .to_owned()
}

pub(super) fn names_and_types<'a>(
    entries: impl Iterator<Item = (String, &'a str)>,
) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, ty) in entries {
        let types = out.entry(name).or_default();
        if !types.iter().any(|t| t == ty) {
            types.push(ty.to_owned());
            types.sort();
        }
    }
    out
}

impl Node {
    /// The graph as the context's transport knows it now.
    pub fn graph(&self) -> GraphSnapshot {
        self.context().transport().graph()
    }

    /// Fully qualified names of every node in the domain (this one included).
    pub fn get_node_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .graph()
            .nodes
            .iter()
            .map(|n| n.fully_qualified_name())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// `(name, namespace)` of every node in the domain.
    pub fn get_node_names_and_namespaces(&self) -> Vec<(String, String)> {
        let mut names: Vec<(String, String)> = self
            .graph()
            .nodes
            .into_iter()
            .map(|n| (n.name, n.namespace))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Every topic with a publisher or subscription, and its types (more than
    /// one when endpoints disagree). Service topics are left out.
    pub fn get_topic_names_and_types(&self) -> BTreeMap<String, Vec<String>> {
        let g = self.graph();
        names_and_types(
            g.endpoints
                .iter()
                .filter(|e| service_of(&e.spec.topic).is_none())
                .map(|e| (e.spec.topic.clone(), e.spec.type_name.as_str())),
        )
    }

    /// Every service with a server or client, and its types (`pkg/srv/Name`).
    pub fn get_service_names_and_types(&self) -> BTreeMap<String, Vec<String>> {
        let g = self.graph();
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for e in &g.endpoints {
            if let Some(service) = service_of(&e.spec.topic) {
                let ty = service_type(&e.spec.type_name);
                let types = out.entry(service).or_default();
                if !types.contains(&ty) {
                    types.push(ty);
                    types.sort();
                }
            }
        }
        out
    }

    fn endpoints_on(
        &self,
        topic: &str,
        kind: EndpointKind,
    ) -> Result<Vec<TopicEndpointInfo>, NameError> {
        let topic = self.resolve_topic_name(topic)?;
        Ok(self
            .graph()
            .endpoints
            .iter()
            .filter(|e| e.kind == kind && e.spec.topic == topic)
            .map(TopicEndpointInfo::from)
            .collect())
    }

    /// The publishers of `topic` (resolved like a publisher's topic) with
    /// their nodes, types and QoS.
    pub fn get_publishers_info_by_topic(
        &self,
        topic: &str,
    ) -> Result<Vec<TopicEndpointInfo>, NameError> {
        self.endpoints_on(topic, EndpointKind::Writer)
    }

    /// The subscriptions of `topic` with their nodes, types and QoS.
    pub fn get_subscriptions_info_by_topic(
        &self,
        topic: &str,
    ) -> Result<Vec<TopicEndpointInfo>, NameError> {
        self.endpoints_on(topic, EndpointKind::Reader)
    }

    /// How many publishers `topic` has in the domain.
    pub fn count_publishers(&self, topic: &str) -> Result<usize, NameError> {
        Ok(self.get_publishers_info_by_topic(topic)?.len())
    }

    /// How many subscriptions `topic` has in the domain.
    pub fn count_subscribers(&self, topic: &str) -> Result<usize, NameError> {
        Ok(self.get_subscriptions_info_by_topic(topic)?.len())
    }

    /// Waits until `cond` holds for the graph, re-checking on every graph
    /// change (no polling); returns whether it held before `timeout`.
    pub fn wait_for_graph(
        &self,
        mut cond: impl FnMut(&GraphSnapshot) -> bool,
        timeout: Duration,
    ) -> bool {
        let deadline = Instant::now() + timeout;
        let signal = Arc::new(Signal::default());
        let s = signal.clone();
        let _watch = self
            .context()
            .transport()
            .watch_graph(Arc::new(move || s.notify()));
        loop {
            let seen = signal.generation();
            if cond(&self.graph()) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            signal.wait(seen, Some(deadline));
        }
    }

    /// Waits until a node named `fully_qualified_name` is in the graph.
    pub fn wait_for_node(&self, fully_qualified_name: &str, timeout: Duration) -> bool {
        self.wait_for_graph(
            |g| {
                g.nodes
                    .iter()
                    .any(|n| n.fully_qualified_name() == fully_qualified_name)
            },
            timeout,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_topics_map_to_services_and_types() {
        assert_eq!(
            service_of("rq/add_two_intsRequest").as_deref(),
            Some("/add_two_ints")
        );
        assert_eq!(service_of("rr/ns/srvReply").as_deref(), Some("/ns/srv"));
        assert_eq!(service_of("/chatter"), None);
        assert_eq!(
            service_type("std_srvs/srv/SetBool_Request"),
            "std_srvs/srv/SetBool"
        );
        assert_eq!(
            service_type("std_srvs/srv/SetBool_Response"),
            "std_srvs/srv/SetBool"
        );
    }
}
