//! The DDS participant behind a [`DdsTransport`]: one RustDDS
//! `DomainParticipant`, its publisher and subscriber, the tables of local
//! and discovered endpoints, and the event thread ([`pump`]) that moves
//! received samples and discovery events into them.

pub mod host;
pub(crate) mod pump;
mod transport;

#[cfg(test)]
mod tests;

pub use transport::DdsTransport;
pub(crate) mod routing;

pub(crate) use routing::prefix_of;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use hibari_transport::{DomainId, EndpointId, EndpointKind, NodeInfo, QosProfile};
use rustdds::mio1;
use rustdds::no_key::DataReader;
use rustdds::{
    DomainParticipant, DomainParticipantBuilder, Publisher, QosPolicies, Subscriber, GUID,
};

use crate::endpoint::reader::ReaderCore;
use crate::endpoint::state::EndpointCore;
use crate::graph::GraphState;
use crate::options::{DdsOpenError, DdsOptions, DiscoveryRange, MAX_DOMAIN};
use crate::wire::raw::{RawAdapter, RawCdr};

/// The mio token of the participant's status events.
pub(crate) const STATUS: mio1::Token = mio1::Token(0);
/// The mio token that wakes the event thread to look at its shutdown flag.
pub(crate) const WAKE: mio1::Token = mio1::Token(1);
/// The first token of a reader.
pub(crate) const FIRST_READER: usize = 16;

/// A local writer or reader, as routing and the graph see it.
pub(crate) struct Local {
    pub kind: EndpointKind,
    pub core: Arc<EndpointCore>,
    pub node: Option<NodeInfo>,
    /// The DDS topic name.
    pub dds_topic: String,
}

/// A discovered (remote) writer or reader.
#[derive(Clone, Debug)]
pub(crate) struct Remote {
    pub kind: EndpointKind,
    pub id: EndpointId,
    pub dds_topic: String,
    pub dds_type: String,
    pub type_hash: String,
    pub qos: QosProfile,
}

/// A client's node and service name.
pub(crate) type PairKey = (Option<NodeInfo>, String);

/// A reader the event thread drains.
pub(crate) struct ReaderSlot {
    pub dds: DataReader<RawCdr, RawAdapter>,
    pub core: Arc<ReaderCore>,
}

/// What the transport, its endpoints and the event thread share.
pub(crate) struct Shared {
    pub domain: DomainId,
    pub participant: DomainParticipant,
    pub publisher: Publisher,
    pub subscriber: Subscriber,
    pub registry: mio1::Registry,
    pub waker: mio1::Waker,
    pub shutdown: AtomicBool,
    next_token: AtomicUsize,
    pub readers: Mutex<HashMap<usize, ReaderSlot>>,
    pub locals: Mutex<HashMap<GUID, Local>>,
    pub remotes: Mutex<HashMap<GUID, Remote>>,
    pub graph: GraphState,
    /// The `ros_discovery_info` reader (the event thread drains it).
    pub discovery_reader: Mutex<Option<DataReader<RawCdr, RawAdapter>>>,
    pub options: DdsOptions,
    /// Client halves (request writer, reply reader) waiting for the other.
    pub pairs: Mutex<HashMap<PairKey, Vec<crate::service::Pair>>>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub fn open(domain: DomainId, options: DdsOptions) -> Result<Arc<Shared>, DdsOpenError> {
        if domain > MAX_DOMAIN {
            return Err(DdsOpenError::Domain { domain });
        }
        let tag = host::host_tag();
        let mut builder = DomainParticipantBuilder::new(domain as u16)
            .with_user_data(host::participant_user_data(&tag))
            .ignore_local_endpoints(!options.loopback)
            .with_endpoint_match_filter(routing::may_match);
        if !options.same_host_peers {
            let mine = tag.clone();
            builder = builder.with_participant_filter(move |p| {
                host::user_data_value(&p.user_data, "hibari") != Some(mine.as_str())
            });
        }
        // One locator per interface, loopback only when asked for: a peer
        // sends each datagram once (two locators made Fast DDS send every
        // fragment twice, see dds.md §6).
        builder = builder.advertise_loopback(false);
        let localhost = std::net::IpAddr::from([127, 0, 0, 1]);
        // Discovery scope as rmw_fastrtps sets it: LOCALHOST is unicast to
        // this host's well-known ports, no multicast; OFF is only the
        // static peers; static peers are added in every range.
        builder = match options.range {
            DiscoveryRange::Subnet => builder,
            DiscoveryRange::Localhost => builder
                .multicast_discovery(false)
                .with_initial_peers([localhost])
                .with_only_networks([localhost]),
            DiscoveryRange::Off => builder.multicast_discovery(false).same_host_loopback(false),
        };
        builder = builder.with_initial_peers(resolve(&options.static_peers));
        if options.send_rate > 0 {
            builder = builder.send_rate_limit(options.send_rate, crate::options::SEND_BURST);
        }
        if options.range != DiscoveryRange::Localhost && !options.interfaces.is_empty() {
            builder = builder.with_only_networks(options.interfaces.clone());
        }
        let participant = builder
            .build()
            .map_err(|e| DdsOpenError::Participant(e.to_string()))?;
        let qos = QosPolicies::qos_none();
        let publisher = participant
            .create_publisher(&qos)
            .map_err(|e| DdsOpenError::Participant(e.to_string()))?;
        let subscriber = participant
            .create_subscriber(&qos)
            .map_err(|e| DdsOpenError::Participant(e.to_string()))?;
        let poll = mio1::Poll::new()?;
        let registry = poll.registry().try_clone()?;
        let waker = mio1::Waker::new(poll.registry(), WAKE)?;
        let shared = Arc::new(Shared {
            domain,
            participant,
            publisher,
            subscriber,
            registry,
            waker,
            shutdown: AtomicBool::new(false),
            next_token: AtomicUsize::new(FIRST_READER),
            readers: Mutex::new(HashMap::new()),
            locals: Mutex::new(HashMap::new()),
            remotes: Mutex::new(HashMap::new()),
            graph: GraphState::default(),
            discovery_reader: Mutex::new(None),
            options,
            pairs: Mutex::new(HashMap::new()),
        });
        pump::start(&shared, poll)?;
        let reader = crate::graph::discovery_info::start(&shared);
        *lock(&shared.discovery_reader) = reader;
        Ok(shared)
    }

    pub fn next_token(&self) -> usize {
        self.next_token.fetch_add(1, Ordering::Relaxed)
    }

    /// The GUID prefix of this participant.
    pub fn guid(&self) -> GUID {
        use rustdds::RTPSEntity;
        self.participant.guid()
    }

    /// The id hibari knows a remote writer by (its GUID when undiscovered).
    pub fn remote_id(&self, guid: GUID) -> EndpointId {
        if let Some(r) = lock(&self.remotes).get(&guid) {
            return r.id;
        }
        if let Some(l) = lock(&self.locals).get(&guid) {
            return l.core.id;
        }
        EndpointId(guid.to_bytes())
    }
}

/// The addresses of `ROS_STATIC_PEERS` entries (IP addresses or host
/// names); names that do not resolve are left out.
fn resolve(peers: &[String]) -> Vec<std::net::IpAddr> {
    use std::net::ToSocketAddrs;
    let mut out = Vec::new();
    for p in peers {
        match p.parse::<std::net::IpAddr>() {
            Ok(ip) => out.push(ip),
            Err(_) => {
                if let Ok(addrs) = (p.as_str(), 0).to_socket_addrs() {
                    out.extend(addrs.map(|a| a.ip()).filter(|ip| ip.is_ipv4()));
                }
            }
        }
    }
    out
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.shutdown.store(true, Ordering::SeqCst);
        let _ = self.waker.wake();
    }
}
