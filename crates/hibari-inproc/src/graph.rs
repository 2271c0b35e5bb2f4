//! The in-process graph: the nodes announced in a domain and the endpoints
//! on its topics, with watchers told of every change.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use hibari_transport::{GraphEndpoint, GraphSnapshot, GraphToken, NodeInfo, Notify};

use crate::registry::Domain;
use crate::state::lock;

/// Announced nodes and graph watchers of one domain.
#[derive(Default)]
pub(crate) struct GraphState {
    next: AtomicU64,
    nodes: Mutex<Vec<(u64, NodeInfo)>>,
    watchers: Mutex<Vec<(u64, Arc<dyn Notify>)>>,
}

impl GraphState {
    /// Tells every watcher that the graph changed (no lock held while they run).
    pub fn changed(&self) {
        let watchers: Vec<Arc<dyn Notify>> = lock(&self.watchers)
            .iter()
            .map(|(_, n)| n.clone())
            .collect();
        for w in watchers {
            w.notify();
        }
    }
}

/// Retracts a node or a watch when dropped.
struct Retract {
    domain: Weak<Domain>,
    key: u64,
    node: bool,
}

impl Drop for Retract {
    fn drop(&mut self) {
        let Some(domain) = self.domain.upgrade() else {
            return;
        };
        let g = &domain.graph;
        if self.node {
            lock(&g.nodes).retain(|(k, _)| *k != self.key);
            g.changed();
        } else {
            lock(&g.watchers).retain(|(k, _)| *k != self.key);
        }
    }
}

impl Domain {
    pub fn announce_node(self: &Arc<Self>, node: &NodeInfo) -> GraphToken {
        let key = self.graph.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.graph.nodes).push((key, node.clone()));
        self.graph.changed();
        GraphToken::new(Retract {
            domain: Arc::downgrade(self),
            key,
            node: true,
        })
    }

    pub fn watch_graph(self: &Arc<Self>, notify: Arc<dyn Notify>) -> GraphToken {
        let key = self.graph.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.graph.watchers).push((key, notify));
        GraphToken::new(Retract {
            domain: Arc::downgrade(self),
            key,
            node: false,
        })
    }

    pub fn graph(&self) -> GraphSnapshot {
        let mut snapshot = GraphSnapshot {
            nodes: Vec::new(),
            endpoints: Vec::new(),
        };
        for (_, n) in lock(&self.graph.nodes).iter() {
            if !snapshot.nodes.contains(n) {
                snapshot.nodes.push(n.clone());
            }
        }
        self.for_each_endpoint(|kind, id, node, spec| {
            snapshot.endpoints.push(GraphEndpoint {
                kind,
                id,
                node: node.clone(),
                spec: spec.clone(),
            })
        });
        snapshot
            .endpoints
            .sort_by(|a, b| (&a.spec.topic, a.kind, a.id).cmp(&(&b.spec.topic, b.kind, b.id)));
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari_transport::conformance::Probe;
    use hibari_transport::{EndpointKind, EndpointSpec, QosProfile, ReaderOptions, WriterOptions};
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn nodes_and_endpoints_come_and_go_and_watchers_hear_of_it() {
        let d = Domain::private(0);
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let watch = d.watch_graph(Arc::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        }));
        let talker = NodeInfo::new("/", "talker");
        let token = d.announce_node(&talker);
        let spec = EndpointSpec::new::<Probe>("/chatter", QosProfile::sensor_data());
        let w = d.create_writer(&spec, &WriterOptions::default().node(talker.clone()));
        let r = d.create_reader(&spec, &ReaderOptions::default());
        let g = d.graph();
        assert_eq!(g.nodes, vec![talker.clone()]);
        assert_eq!(g.endpoints.len(), 2);
        assert_eq!(g.endpoints[0].kind, EndpointKind::Writer);
        assert_eq!(g.endpoints[0].node.as_ref(), Some(&talker));
        assert_eq!(g.endpoints[0].spec, spec);
        assert_eq!(g.endpoints[1].node, None);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        drop(w);
        drop(token);
        let g = d.graph();
        assert!(g.nodes.is_empty());
        assert_eq!(g.endpoints.len(), 1);
        assert_eq!(calls.load(Ordering::SeqCst), 5);
        drop(watch);
        drop(r);
        assert_eq!(calls.load(Ordering::SeqCst), 5);
    }
}
