//! [`DdsTransport`]: hibari's `Transport` over one DDS participant.

use std::sync::Arc;

use hibari_transport::{
    DomainId, EndpointCreateError, EndpointId, EndpointKind, EndpointSpec, GraphSnapshot,
    GraphToken, NodeInfo, Notify, Reader, ReaderOptions, Transport, Writer, WriterOptions,
};
use rustdds::mio1::{Interest, Token};
use rustdds::{QosPolicies, RTPSEntity, TopicKind, GUID};

use super::{lock, Local, ReaderSlot, Remote, Shared};
use crate::endpoint::reader::{capacity, DdsReader, ReaderCore};
use crate::endpoint::state::EndpointCore;
use crate::endpoint::writer::DdsWriter;
use crate::options::{DdsOpenError, DdsOptions};
use crate::service::{self, ClientPair, Pair, ReaderRole, WriterRole};
use crate::wire::{names, qos};

/// hibari's DDS-RTPS transport: one DDS participant in one domain (see the
/// crate documentation for what reaches whom).
pub struct DdsTransport {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for DdsTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DdsTransport")
            .field("domain", &self.shared.domain)
            .finish_non_exhaustive()
    }
}

impl DdsTransport {
    /// Opens a DDS participant in ROS domain `domain` (0..=232).
    pub fn open(domain: DomainId, options: DdsOptions) -> Result<DdsTransport, DdsOpenError> {
        Ok(DdsTransport {
            shared: Shared::open(domain, options)?,
        })
    }

    /// The options it was opened with.
    pub fn options(&self) -> &DdsOptions {
        &self.shared.options
    }

    /// The participant's GUID (16 bytes; its GID as ROS 2 shows it ends in
    /// `00 00 01 c1`).
    pub fn participant_guid(&self) -> [u8; 16] {
        self.shared.guid().to_bytes()
    }

    /// How many datagrams this participant received and dropped as malformed
    /// (not RTPS, truncated, or submessages that do not parse). A malformed
    /// datagram is discarded whole; everything else goes on.
    pub fn malformed_message_count(&self) -> u64 {
        self.shared.participant.malformed_message_count()
    }
}

fn validate(spec: &EndpointSpec) -> Result<(), EndpointCreateError> {
    spec.qos
        .validate()
        .map_err(EndpointCreateError::InvalidQos)?;
    if spec.topic.is_empty() || spec.topic.contains('\0') {
        return Err(EndpointCreateError::InvalidTopic {
            topic: spec.topic.clone(),
        });
    }
    Ok(())
}

/// The endpoint USER_DATA: ROS 2's `typehash=` and, when hibari chose the
/// id, `hibariid=` (so peers report the same id for it).
fn user_data(spec: &EndpointSpec, id: Option<EndpointId>) -> String {
    let mut s = String::new();
    if !spec.type_hash.is_empty() {
        s.push_str(&format!("typehash={};", spec.type_hash));
    }
    if let Some(id) = id {
        s.push_str(&format!("hibariid={id};"));
    }
    // SEDP carries no history; hibari peers read it from here (0 = keep all).
    s.push_str(&format!("history={};", spec.qos.depth()));
    s
}

fn unsupported(e: impl std::fmt::Display) -> EndpointCreateError {
    EndpointCreateError::Unsupported(format!("DDS: {e}"))
}

impl DdsTransport {
    fn topic(
        &self,
        spec: &EndpointSpec,
        q: &QosPolicies,
    ) -> Result<rustdds::Topic, EndpointCreateError> {
        self.shared
            .participant
            .create_topic(
                names::topic_to_dds(&spec.topic),
                names::type_to_dds(&spec.type_name),
                q,
                TopicKind::NoKey,
            )
            .map_err(unsupported)
    }

    /// Incompatible remotes discovered before this endpoint existed.
    fn check_known(&self, core: &EndpointCore, kind: EndpointKind, dds_topic: &str) {
        let remotes: Vec<(GUID, Remote)> = lock(&self.shared.remotes)
            .iter()
            .filter(|(_, r)| r.kind != kind && r.dds_topic == dds_topic)
            .map(|(g, r)| (*g, r.clone()))
            .collect();
        for (g, r) in remotes {
            if let Err(why) = super::routing::judge(&core.spec, kind == EndpointKind::Writer, &r) {
                core.incompatible(g, r.id, why);
            }
        }
    }

    /// The client pair of a request writer or reply reader: the other half
    /// created on the same node for the same service, if it is waiting.
    fn pair(&self, node: &Option<NodeInfo>, dds_topic: &str, writer: bool) -> Pair {
        let service = dds_topic
            .strip_prefix("rq/")
            .and_then(|s| s.strip_suffix("Request"))
            .or_else(|| {
                dds_topic
                    .strip_prefix("rr/")
                    .and_then(|s| s.strip_suffix("Reply"))
            })
            .unwrap_or(dds_topic)
            .to_owned();
        let mut pending = lock(&self.shared.pairs);
        let key = (node.clone(), service);
        let waiting = pending.entry(key).or_default();
        // The oldest pair missing this half.
        let found = waiting.iter().position(|p| {
            let p = lock(p);
            if writer {
                p.writer.is_none()
            } else {
                p.reader.is_none()
            }
        });
        match found {
            Some(i) => waiting.remove(i),
            None => {
                let p: Pair = Arc::new(std::sync::Mutex::new(ClientPair::default()));
                waiting.push(p.clone());
                p
            }
        }
    }
}

impl Transport for DdsTransport {
    fn kind(&self) -> &'static str {
        "dds"
    }

    fn domain_id(&self) -> DomainId {
        self.shared.domain
    }

    fn create_writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<Box<dyn Writer>, EndpointCreateError> {
        validate(spec)?;
        let when_full = options.when_full;
        let q = qos::to_dds(&spec.qos, &options.limits, Some(when_full))
            .with_user_data(user_data(spec, options.id));
        let topic = self.topic(spec, &q)?;
        let dds_topic = names::topic_to_dds(&spec.topic);
        let mut locals = lock(&self.shared.locals);
        let dds = self
            .shared
            .publisher
            .create_datawriter_no_key(&topic, Some(q))
            .map_err(unsupported)?;
        let guid = dds.guid();
        let id = options.id.unwrap_or(EndpointId(guid.to_bytes()));
        let core = Arc::new(EndpointCore::new(id, guid, spec.clone()));
        let role = if service::is_request(&dds_topic) {
            let pair = self.pair(&options.node, &dds_topic, true);
            lock(&pair).writer = Some((id, guid));
            WriterRole::Request(pair)
        } else if service::is_reply(&dds_topic) {
            WriterRole::Reply
        } else {
            WriterRole::Plain
        };
        locals.insert(
            guid,
            Local {
                kind: EndpointKind::Writer,
                core: core.clone(),
                node: options.node.clone(),
                dds_topic: dds_topic.clone(),
            },
        );
        drop(locals);
        self.check_known(&core, EndpointKind::Writer, &dds_topic);
        self.shared.graph.changed();
        Ok(Box::new(DdsWriter {
            shared: self.shared.clone(),
            core,
            dds,
            when_full,
            role,
        }))
    }

    fn create_reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<Box<dyn Reader>, EndpointCreateError> {
        validate(spec)?;
        let q = qos::to_dds(&qos::engine_reader(&spec.qos), &options.limits, None)
            .with_user_data(user_data(spec, options.id));
        let topic = self.topic(spec, &q)?;
        let dds_topic = names::topic_to_dds(&spec.topic);
        let mut locals = lock(&self.shared.locals);
        let mut dds = self
            .shared
            .subscriber
            .create_datareader_no_key(&topic, Some(q))
            .map_err(unsupported)?;
        let guid = dds.guid();
        let id = options.id.unwrap_or(EndpointId(guid.to_bytes()));
        let core = Arc::new(EndpointCore::new(id, guid, spec.clone()));
        let role = if service::is_request(&dds_topic) {
            ReaderRole::Request
        } else if service::is_reply(&dds_topic) {
            let pair = self.pair(&options.node, &dds_topic, false);
            lock(&pair).reader = Some(guid);
            ReaderRole::Reply(pair)
        } else {
            ReaderRole::Plain
        };
        let rcore = Arc::new(ReaderCore::new(
            core.clone(),
            capacity(spec, options.limits.max_samples),
            role,
        ));
        let token = self.shared.next_token();
        self.shared
            .registry
            .register(&mut dds, Token(token), Interest::READABLE)
            .map_err(unsupported)?;
        locals.insert(
            guid,
            Local {
                kind: EndpointKind::Reader,
                core: core.clone(),
                node: options.node.clone(),
                dds_topic: dds_topic.clone(),
            },
        );
        lock(&self.shared.readers).insert(
            token,
            ReaderSlot {
                dds,
                core: rcore.clone(),
            },
        );
        drop(locals);
        self.check_known(&core, EndpointKind::Reader, &dds_topic);
        self.shared.graph.changed();
        // Samples that arrived before registration.
        super::pump::drain_reader(&self.shared, token);
        Ok(Box::new(DdsReader {
            shared: self.shared.clone(),
            token,
            core: rcore,
        }))
    }

    fn announce_node(&self, node: &NodeInfo) -> GraphToken {
        crate::graph::announce_node(&self.shared, node)
    }

    fn graph(&self) -> GraphSnapshot {
        crate::graph::snapshot(&self.shared)
    }

    fn watch_graph(&self, notify: Arc<dyn Notify>) -> GraphToken {
        crate::graph::watch_graph(&self.shared, notify)
    }
}
