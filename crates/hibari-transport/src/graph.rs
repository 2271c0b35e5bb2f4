//! The ROS graph as one participant sees it: nodes, and every writer and
//! reader with its node, topic, type and QoS.
//!
//! A transport keeps its own endpoints in its graph and learns other
//! participants' (other processes, other hosts) as it discovers them. The
//! runtime announces each node with [`Transport::announce_node`] and names an
//! endpoint's node in [`WriterOptions::node`](crate::WriterOptions::node) /
//! [`ReaderOptions::node`](crate::ReaderOptions::node); it merges the
//! snapshots of its transports (an endpoint present on several transports has
//! one id and is listed once). A [graph watch](Transport::watch_graph) fires
//! whenever a node or endpoint appears or goes away.
//!
//! Services are not a graph entity of their own: as in ROS 2, a service is
//! the reader of `rq/<name>Request` and the writer of `rr/<name>Reply`.

use std::any::Any;
use std::fmt;

use crate::contract::EndpointSpec;
use crate::sample::EndpointId;

/// A node as the graph shows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeInfo {
    /// The namespace, absolute (`/` or `/robot1`).
    pub namespace: String,
    /// The node's name (`talker`).
    pub name: String,
}

impl NodeInfo {
    /// A node `name` in `namespace`.
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        NodeInfo {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// `/robot1/talker` (or `/talker` in the root namespace).
    pub fn fully_qualified_name(&self) -> String {
        if self.namespace.ends_with('/') {
            format!("{}{}", self.namespace, self.name)
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

impl fmt::Display for NodeInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fully_qualified_name())
    }
}

/// Whether an endpoint writes or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndpointKind {
    /// A writer (a publisher, a service's reply writer, a client's request writer).
    Writer,
    /// A reader (a subscription, a service's request reader, a client's reply reader).
    Reader,
}

/// An endpoint as the graph shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphEndpoint {
    /// Writer or reader.
    pub kind: EndpointKind,
    /// Its id (a writer's is the `publisher_id` of its samples).
    pub id: EndpointId,
    /// The node it belongs to, when it was created with one.
    pub node: Option<NodeInfo>,
    /// Topic, type and QoS.
    pub spec: EndpointSpec,
}

/// What one participant knows of the graph at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphSnapshot {
    /// Announced nodes (a node may be listed once per participant that
    /// announced it; [`merge`](GraphSnapshot::merge) removes duplicates).
    pub nodes: Vec<NodeInfo>,
    /// Writers and readers.
    pub endpoints: Vec<GraphEndpoint>,
}

impl GraphSnapshot {
    /// Adds `other`'s nodes and endpoints that are not already here (an
    /// endpoint is the same when its kind and id are).
    pub fn merge(&mut self, other: GraphSnapshot) {
        for n in other.nodes {
            if !self.nodes.contains(&n) {
                self.nodes.push(n);
            }
        }
        for e in other.endpoints {
            if !self
                .endpoints
                .iter()
                .any(|x| x.kind == e.kind && x.id == e.id)
            {
                self.endpoints.push(e);
            }
        }
    }
}

/// Keeps a registration in the graph (an announced node, a graph watch);
/// dropping it retracts the registration.
pub struct GraphToken(#[allow(dead_code)] Box<dyn Any + Send + Sync>);

impl GraphToken {
    /// Wraps whatever retracts the registration when dropped.
    pub fn new(guard: impl Any + Send + Sync) -> Self {
        GraphToken(Box::new(guard))
    }
}

impl fmt::Debug for GraphToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GraphToken")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::QosProfile;

    fn ep(kind: EndpointKind, id: u8) -> GraphEndpoint {
        GraphEndpoint {
            kind,
            id: EndpointId([id; 16]),
            node: None,
            spec: EndpointSpec {
                topic: "/t".into(),
                type_name: "a/msg/B".into(),
                type_hash: String::new(),
                qos: QosProfile::default(),
            },
        }
    }

    #[test]
    fn merge_lists_each_node_and_endpoint_once() {
        let mut a = GraphSnapshot {
            nodes: vec![NodeInfo::new("/", "talker")],
            endpoints: vec![ep(EndpointKind::Writer, 1)],
        };
        a.merge(GraphSnapshot {
            nodes: vec![
                NodeInfo::new("/", "talker"),
                NodeInfo::new("/r", "listener"),
            ],
            endpoints: vec![
                ep(EndpointKind::Writer, 1),
                ep(EndpointKind::Reader, 1),
                ep(EndpointKind::Writer, 2),
            ],
        });
        assert_eq!(a.nodes.len(), 2);
        assert_eq!(a.endpoints.len(), 3);
        assert_eq!(a.nodes[1].fully_qualified_name(), "/r/listener");
        assert_eq!(a.nodes[0].to_string(), "/talker");
    }
}
