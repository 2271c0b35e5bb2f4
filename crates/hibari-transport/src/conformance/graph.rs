//! The graph: what one participant announces, the others see.

use std::sync::Arc;

use super::{eventually, Rig, TransportFactory, Waiter, PATIENCE};
use crate::{EndpointKind, GraphSnapshot, NodeInfo, QosProfile, ReaderOptions, WriterOptions};

fn has_node(g: &GraphSnapshot, node: &NodeInfo) -> bool {
    g.nodes.contains(node)
}

/// A node announced on one participant, and its writer and reader (with
/// their node, topic, type and QoS), appear in another participant's graph,
/// whose watch fires; they disappear when dropped.
pub fn the_graph_shows_other_participants_nodes_and_endpoints(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "graph");
    let waiter = Arc::new(Waiter::default());
    let watch = rig.b.watch_graph(waiter.clone());
    let seen = waiter.calls();
    let node = NodeInfo::new("/conformance", "grapher");
    let token = rig.a.announce_node(&node);
    let qos = QosProfile::sensor_data();
    let w = rig
        .a
        .create_writer(&rig.spec(qos), &WriterOptions::default().node(node.clone()))
        .expect("create a writer");
    let r = rig
        .a
        .create_reader(
            &rig.spec(QosProfile::default()),
            &ReaderOptions::default().node(node.clone()),
        )
        .expect("create a reader");
    let (wid, rid) = (w.id(), r.id());
    let found = |g: &GraphSnapshot, kind: EndpointKind, id| {
        g.endpoints
            .iter()
            .find(|e| e.kind == kind && e.id == id)
            .cloned()
    };
    assert!(
        eventually(|| {
            let g = rig.b.graph();
            has_node(&g, &node)
                && found(&g, EndpointKind::Writer, wid).is_some()
                && found(&g, EndpointKind::Reader, rid).is_some()
        }),
        "the other participant never saw the node and its endpoints: {:?}",
        rig.b.graph()
    );
    let g = rig.b.graph();
    let we = found(&g, EndpointKind::Writer, wid).expect("writer listed");
    assert_eq!(we.spec, rig.spec(qos));
    assert_eq!(we.node.as_ref(), Some(&node));
    let re = found(&g, EndpointKind::Reader, rid).expect("reader listed");
    assert_eq!(re.spec, rig.spec(QosProfile::default()));
    assert!(
        waiter.wait_past(seen, PATIENCE) > seen,
        "the graph watch never fired"
    );
    // The announcing participant lists its own too.
    let own = rig.a.graph();
    assert!(has_node(&own, &node) && found(&own, EndpointKind::Writer, wid).is_some());
    drop(w);
    drop(token);
    assert!(
        eventually(|| {
            let g = rig.b.graph();
            !has_node(&g, &node)
                && found(&g, EndpointKind::Writer, wid).is_none()
                && found(&g, EndpointKind::Reader, rid).is_some()
        }),
        "a dropped node or writer stayed in the graph: {:?}",
        rig.b.graph()
    );
    drop(watch);
}
