//! The ROS graph as this participant sees it.
//!
//! Endpoints come from two places: this participant's own writers and
//! readers, and every remote one SEDP discovered (with topic, type, RIHS01
//! hash from USER_DATA, and QoS). Which node an endpoint belongs to, and
//! which nodes exist, come from `ros_discovery_info` ([`discovery_info`]):
//! every participant publishes its nodes and their endpoints' GIDs there, as
//! ROS 2 does, and this participant reads everyone's. Only ROS topics are
//! listed (`rt/`, `rq/`, `rr/`; bare DDS topics are not part of the graph).
//! A participant that leaves (or whose lease expires) takes its nodes and
//! endpoints with it.

pub mod discovery_info;
pub mod entities;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hibari_transport::{EndpointSpec, GraphEndpoint, GraphSnapshot, GraphToken, NodeInfo, Notify};

use crate::participant::{lock, Shared};
use crate::wire::names;
use entities::ParticipantEntitiesInfo;

/// A participant's GUID prefix.
pub(crate) type Prefix = [u8; 12];

/// Nodes, remote participants' entity lists and graph watchers.
#[derive(Default)]
pub(crate) struct GraphState {
    inner: Mutex<Inner>,
    /// Publishes this participant's entities when they change (set once the
    /// `ros_discovery_info` writer exists).
    publish: Mutex<Option<Box<dyn Fn() + Send + Sync>>>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    nodes: Vec<(u64, NodeInfo)>,
    remote: HashMap<Prefix, ParticipantEntitiesInfo>,
    watchers: HashMap<u64, Arc<dyn Notify>>,
}

impl GraphState {
    /// Something changed: republish our entities, wake the watchers.
    pub fn changed(&self) {
        let publish = lock(&self.publish);
        if let Some(p) = publish.as_ref() {
            p();
        }
        drop(publish);
        self.wake();
    }

    /// Wakes the watchers only (a remote change).
    pub fn wake(&self) {
        let watchers: Vec<_> = lock(&self.inner).watchers.values().cloned().collect();
        for w in watchers {
            w.notify();
        }
    }

    pub fn set_publisher(&self, publish: Box<dyn Fn() + Send + Sync>) {
        *lock(&self.publish) = Some(publish);
    }

    pub fn participant_lost(&self, prefix: Prefix) {
        if lock(&self.inner).remote.remove(&prefix).is_some() {
            self.wake();
        }
    }

    pub fn remote_entities(&self, prefix: Prefix, info: ParticipantEntitiesInfo) {
        let changed = lock(&self.inner).remote.insert(prefix, info.clone()) != Some(info);
        if changed {
            self.wake();
        }
    }

    /// Our announced nodes (each once).
    pub fn local_nodes(&self) -> Vec<NodeInfo> {
        let mut out: Vec<NodeInfo> = Vec::new();
        for (_, n) in &lock(&self.inner).nodes {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        out
    }
}

/// Keeps a node announced; retracts it when dropped.
struct NodeGuard {
    shared: Arc<Shared>,
    key: u64,
}

impl Drop for NodeGuard {
    fn drop(&mut self) {
        lock(&self.shared.graph.inner)
            .nodes
            .retain(|(k, _)| *k != self.key);
        self.shared.graph.changed();
    }
}

struct WatchGuard {
    shared: Arc<Shared>,
    key: u64,
}

impl Drop for WatchGuard {
    fn drop(&mut self) {
        lock(&self.shared.graph.inner).watchers.remove(&self.key);
    }
}

pub(crate) fn announce_node(shared: &Arc<Shared>, node: &NodeInfo) -> GraphToken {
    let key = {
        let mut g = lock(&shared.graph.inner);
        g.next += 1;
        let key = g.next;
        g.nodes.push((key, node.clone()));
        key
    };
    shared.graph.changed();
    GraphToken::new(NodeGuard {
        shared: shared.clone(),
        key,
    })
}

pub(crate) fn watch_graph(shared: &Arc<Shared>, notify: Arc<dyn Notify>) -> GraphToken {
    let key = {
        let mut g = lock(&shared.graph.inner);
        g.next += 1;
        let key = g.next;
        g.watchers.insert(key, notify);
        key
    };
    GraphToken::new(WatchGuard {
        shared: shared.clone(),
        key,
    })
}

pub(crate) fn snapshot(shared: &Shared) -> GraphSnapshot {
    let mut snap = GraphSnapshot {
        nodes: shared.graph.local_nodes(),
        endpoints: Vec::new(),
    };
    for l in lock(&shared.locals).values() {
        snap.endpoints.push(GraphEndpoint {
            kind: l.kind,
            id: l.core.id,
            node: l.node.clone(),
            spec: l.core.spec.clone(),
        });
    }
    let g = lock(&shared.graph.inner);
    let mut owner: HashMap<[u8; 16], NodeInfo> = HashMap::new();
    for info in g.remote.values() {
        for n in &info.nodes {
            let node = NodeInfo::new(n.namespace.clone(), n.name.clone());
            for gid in n.readers.iter().chain(&n.writers) {
                owner.insert(*gid, node.clone());
            }
            if !snap.nodes.contains(&node) {
                snap.nodes.push(node);
            }
        }
    }
    drop(g);
    for (guid, r) in lock(&shared.remotes).iter() {
        let Some(topic) = names::topic_from_dds(&r.dds_topic) else {
            continue;
        };
        snap.endpoints.push(GraphEndpoint {
            kind: r.kind,
            id: r.id,
            node: owner.get(&guid.to_bytes()).cloned(),
            spec: EndpointSpec {
                topic,
                type_name: names::type_from_dds(&r.dds_type),
                type_hash: r.type_hash.clone(),
                qos: r.qos,
            },
        });
    }
    snap
}
