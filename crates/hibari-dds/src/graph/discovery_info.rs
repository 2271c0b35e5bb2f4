//! `ros_discovery_info`: this participant's nodes and their endpoints, for
//! every ROS 2 participant of the domain, and everyone else's, for this
//! participant's graph.
//!
//! As rmw does (`init_rmw_context_impl.cpp`): the topic is literally
//! `ros_discovery_info`, type `rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_`,
//! keyless; the writer is reliable, transient local, keep last 1 (late
//! joiners get the current state), the reader reliable, transient local,
//! keep all. The full state is published on every change of our nodes or
//! endpoints.

use std::sync::{Arc, Mutex, Weak};

use hibari_cdr::Message;
use hibari_transport::EndpointKind;
use rustdds::mio1::Interest;
use rustdds::no_key::{DataReader, DataWriter};
use rustdds::policy;
use rustdds::{QosPolicyBuilder, TopicKind};

use super::entities::{NodeEntities, ParticipantEntitiesInfo};
use crate::participant::{lock, Shared};
use crate::wire::raw::{RawAdapter, RawCdr};

/// The topic and its DDS type.
pub const TOPIC: &str = "ros_discovery_info";
pub const TYPE: &str = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_";

/// The mio token of the `ros_discovery_info` reader.
pub(crate) const TOKEN: usize = 2;

/// Creates the writer and reader; failures leave the graph without node
/// names (endpoints still show), never the transport without topics.
pub(crate) fn start(shared: &Arc<Shared>) -> Option<DataReader<RawCdr, RawAdapter>> {
    let history = |h| {
        QosPolicyBuilder::new()
            .reliability(policy::Reliability::Reliable {
                max_blocking_time: rustdds::Duration::from_millis(100),
            })
            .durability(policy::Durability::TransientLocal)
            .history(h)
            .build()
    };
    let wqos = history(policy::History::KeepLast { depth: 1 });
    let rqos = history(policy::History::KeepAll);
    let p = &shared.participant;
    let topic = p
        .create_topic(TOPIC.into(), TYPE.into(), &wqos, TopicKind::NoKey)
        .ok()?;
    let writer: DataWriter<RawCdr, RawAdapter> = shared
        .publisher
        .create_datawriter_no_key(&topic, Some(wqos))
        .ok()?;
    let mut reader: DataReader<RawCdr, RawAdapter> = shared
        .subscriber
        .create_datareader_no_key(&topic, Some(rqos))
        .ok()?;
    shared
        .registry
        .register(&mut reader, rustdds::mio1::Token(TOKEN), Interest::READABLE)
        .ok()?;
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let writer = Mutex::new(writer);
    shared.graph.set_publisher(Box::new(move || {
        if let Some(shared) = weak.upgrade() {
            let info = local_entities(&shared);
            if let Ok(cdr) = info.to_cdr() {
                let _ = lock(&writer).write(RawCdr(cdr.into()), None);
            }
        }
    }));
    shared.graph.changed();
    Some(reader)
}

/// Our participant's entities: each announced node with the GIDs of its
/// endpoints.
pub(crate) fn local_entities(shared: &Shared) -> ParticipantEntitiesInfo {
    let mut gid = shared.guid().to_bytes();
    gid[12..].copy_from_slice(&[0, 0, 1, 0xc1]);
    let nodes = shared.graph.local_nodes();
    let locals = lock(&shared.locals);
    let nodes = nodes
        .into_iter()
        .map(|n| {
            let mut e = NodeEntities {
                namespace: n.namespace.clone(),
                name: n.name.clone(),
                ..NodeEntities::default()
            };
            for (guid, l) in locals.iter() {
                if l.node.as_ref() == Some(&n) {
                    match l.kind {
                        EndpointKind::Reader => e.readers.push(guid.to_bytes()),
                        EndpointKind::Writer => e.writers.push(guid.to_bytes()),
                    }
                }
            }
            e
        })
        .collect();
    ParticipantEntitiesInfo { gid, nodes }
}

/// Reads what arrived on `ros_discovery_info` into the graph.
pub(crate) fn drain(shared: &Shared, reader: &mut DataReader<RawCdr, RawAdapter>) {
    let own = shared.guid();
    while let Ok(Some(sample)) = reader.take_next_sample() {
        let writer = sample.sample_info().writer_guid();
        if writer.prefix == own.prefix {
            continue;
        }
        let Ok(info) = ParticipantEntitiesInfo::from_cdr(&sample.value().0[..]) else {
            continue;
        };
        shared
            .graph
            .remote_entities(crate::participant::prefix_of(writer), info);
    }
}
