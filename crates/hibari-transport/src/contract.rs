//! The traits every transport implements, and the types they exchange.
//!
//! See the crate documentation for the guarantees; the conformance suite
//! checks them.

use std::sync::Arc;
use std::time::Duration;

use hibari_cdr::CdrEncodeError;
use thiserror::Error;

use crate::compat::QosIncompatibility;
use crate::graph::{GraphSnapshot, GraphToken, NodeInfo};
use crate::loan::{LentSendError, Ticket, WriterLoan};
use crate::payload::{Payload, TypeAdapter};
use crate::qos::QosProfile;
use crate::sample::{EndpointId, SampleInfo};

/// A ROS domain: endpoints in different domains never see each other.
pub type DomainId = u32;

/// What a writer or reader is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EndpointSpec {
    /// The fully qualified topic name (`/robot1/chatter`), already expanded.
    pub topic: String,
    /// The ROS type name (`std_msgs/msg/String`).
    pub type_name: String,
    /// The RIHS01 type hash; empty when unknown (Humble), which then matches
    /// any hash of the same type name.
    pub type_hash: String,
    /// Offered (writer) or requested (reader) QoS.
    pub qos: QosProfile,
}

impl EndpointSpec {
    /// A spec for the ROS type `A::Ros` (a plain message or an adapter).
    pub fn new<A: TypeAdapter>(topic: impl Into<String>, qos: QosProfile) -> Self {
        EndpointSpec {
            topic: topic.into(),
            type_name: <A::Ros as hibari_cdr::Message>::TYPE_NAME.into(),
            type_hash: <A::Ros as hibari_cdr::Message>::TYPE_HASH.into(),
            qos,
        }
    }

    /// Whether a writer of `self` may serve a reader of `other` type-wise.
    pub fn same_type(&self, other: &EndpointSpec) -> bool {
        self.type_name == other.type_name
            && (self.type_hash.is_empty()
                || other.type_hash.is_empty()
                || self.type_hash == other.type_hash)
    }
}

/// What a write does when a reliable reader's queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenFull {
    /// Wait up to `timeout` for room, then fail with [`WriteError::Timeout`].
    Block {
        /// The longest a write waits (DDS's `max_blocking_time`).
        timeout: Duration,
    },
    /// Fail at once with [`WriteError::Full`].
    Fail,
}

impl Default for WhenFull {
    /// Block for up to 100 ms (DDS's default `max_blocking_time`).
    fn default() -> Self {
        WhenFull::Block {
            timeout: Duration::from_millis(100),
        }
    }
}

/// Bounds on what an endpoint keeps with `KeepAll` history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceLimits {
    /// The most samples kept.
    pub max_samples: usize,
    /// The most payload bytes kept, where the transport knows the size
    /// (serialized payloads; in-process values are counted by `max_samples`).
    pub max_bytes: usize,
}

impl Default for ResourceLimits {
    /// 10 000 samples, 256 MiB.
    fn default() -> Self {
        ResourceLimits {
            max_samples: 10_000,
            max_bytes: 256 << 20,
        }
    }
}

/// Transport-side settings of a writer that are not ROS QoS.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct WriterOptions {
    /// What to do when a reliable reader is full.
    pub when_full: WhenFull,
    /// Bounds of a keep-all transient-local history.
    pub limits: ResourceLimits,
    /// The writer's id (so one publisher has one id on every transport);
    /// random when `None`.
    pub id: Option<EndpointId>,
    /// The node the writer belongs to, as the graph shows it.
    pub node: Option<NodeInfo>,
}

impl WriterOptions {
    /// Sets [`node`](WriterOptions::node).
    pub fn node(mut self, node: NodeInfo) -> Self {
        self.node = Some(node);
        self
    }
    /// Sets [`when_full`](WriterOptions::when_full).
    pub fn when_full(mut self, when_full: WhenFull) -> Self {
        self.when_full = when_full;
        self
    }
    /// Sets [`limits`](WriterOptions::limits).
    pub fn limits(mut self, limits: ResourceLimits) -> Self {
        self.limits = limits;
        self
    }
    /// Sets [`id`](WriterOptions::id).
    pub fn id(mut self, id: EndpointId) -> Self {
        self.id = Some(id);
        self
    }
}

/// Transport-side settings of a reader that are not ROS QoS.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ReaderOptions {
    /// Bounds of a keep-all queue.
    pub limits: ResourceLimits,
    /// The reader's id; random when `None`.
    pub id: Option<EndpointId>,
    /// The node the reader belongs to, as the graph shows it.
    pub node: Option<NodeInfo>,
}

impl ReaderOptions {
    /// Sets [`node`](ReaderOptions::node).
    pub fn node(mut self, node: NodeInfo) -> Self {
        self.node = Some(node);
        self
    }
    /// Sets [`limits`](ReaderOptions::limits).
    pub fn limits(mut self, limits: ResourceLimits) -> Self {
        self.limits = limits;
        self
    }
    /// Sets [`id`](ReaderOptions::id).
    pub fn id(mut self, id: EndpointId) -> Self {
        self.id = Some(id);
        self
    }
}

/// Wakes whoever waits on an endpoint (an executor).
///
/// Called without any transport lock held, on whichever thread caused the
/// wake-up: a writer's, or one creating or dropping an endpoint. It should be
/// quick (set a flag, write an eventfd, unpark a thread). It may write and
/// take; a reliable write from a waker may wait for room like any other
/// (bounded by [`WhenFull`]), holding up the thread that fired the waker.
pub trait Notify: Send + Sync {
    /// Something happened: see [`Endpoint::set_notify`].
    fn notify(&self);

    /// An eventfd that waking also means writing 1 to, if this waker is
    /// backed by one (an executor waiting in `epoll`). A transport whose
    /// writers live in other processes hands this fd to them so they wake the
    /// waiting thread directly, in one hop; writing it must have the same
    /// effect as [`notify`](Notify::notify). The descriptor is borrowed from
    /// the waker: the transport duplicates it if it keeps it. `None` (the
    /// default): the transport calls `notify` itself.
    fn wake_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        None
    }
}

impl<F: Fn() + Send + Sync> Notify for F {
    fn notify(&self) {
        self()
    }
}

/// Why a peer on the same topic was not matched.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Incompatibility {
    /// The QoS policies that failed.
    Qos(QosIncompatibility),
    /// The peer uses another type (or another definition: a different hash).
    Type {
        /// The peer's type name.
        type_name: String,
        /// The peer's type hash.
        type_hash: String,
    },
}

impl std::fmt::Display for Incompatibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Incompatibility::Qos(q) => q.fmt(f),
            Incompatibility::Type {
                type_name,
                type_hash,
            } => write!(
                f,
                "incompatible type: the peer uses `{type_name}` ({type_hash}); \
                 both sides must use the same type and definition"
            ),
        }
    }
}

/// Something that happened to an endpoint, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndpointEvent {
    /// A peer was matched.
    Matched {
        /// The peer.
        peer: EndpointId,
    },
    /// A matched peer went away.
    Unmatched {
        /// The peer.
        peer: EndpointId,
    },
    /// A peer on the topic was not matched, and why. Both sides get one.
    Incompatible {
        /// The peer.
        peer: EndpointId,
        /// Why.
        why: Incompatibility,
    },
}

/// A snapshot of an endpoint's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EndpointStatus {
    /// Currently matched peers.
    pub matched: usize,
    /// Peers currently on the topic that could not be matched, and why.
    pub incompatible: Vec<(EndpointId, Incompatibility)>,
    /// Peers ever refused for QoS.
    pub incompatible_qos_total: u64,
    /// Peers ever refused for their type.
    pub incompatible_type_total: u64,
    /// Reader: samples lost (overflow or transport loss) since creation.
    pub lost_total: u64,
    /// Reader: samples dropped because their lifespan expired.
    pub expired_total: u64,
    /// Reader: samples queued. Writer: samples kept for late joiners.
    pub queued: usize,
    /// Events dropped because nobody took them (the event queue is bounded).
    pub events_dropped: u64,
}

/// A received sample.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The data.
    pub payload: Payload,
    /// Where and when it came from.
    pub info: SampleInfo,
}

/// Why an endpoint could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndpointCreateError {
    /// The QoS profile is not valid on its own.
    #[error("invalid QoS: {0}")]
    InvalidQos(String),
    /// The topic name is empty or holds a NUL.
    #[error("invalid topic name `{topic}`: expand it to a non-empty fully qualified name first")]
    InvalidTopic {
        /// The name given.
        topic: String,
    },
    /// The transport cannot serve this spec; another transport may.
    #[error("this transport cannot create the endpoint: {0}")]
    Unsupported(String),
}

/// Why a write failed. The sample reached no reader and consumed no sequence
/// number; the payload is handed back.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A reliable reader stayed full for the whole blocking time
    /// ([`WhenFull::Block`]). Retry later, make that reader take faster,
    /// deepen its history, or make it best effort.
    #[error("a reliable subscription stayed full for {timeout:?}: it takes too slowly; deepen its history, make it best effort, or retry")]
    Timeout {
        /// The sample, back.
        payload: Payload,
        /// How long the write waited.
        timeout: Duration,
    },
    /// A reliable reader is full and the writer is set to [`WhenFull::Fail`].
    #[error("a reliable subscription is full: retry after it takes, or block with a timeout")]
    Full {
        /// The sample, back.
        payload: Payload,
    },
    /// The payload had to be serialized and could not be.
    #[error("the sample cannot be serialized: {0}")]
    Encode(#[from] CdrEncodeError),
}

impl WriteError {
    /// The payload, if the error carries it.
    pub fn into_payload(self) -> Option<Payload> {
        match self {
            WriteError::Timeout { payload, .. } | WriteError::Full { payload } => Some(payload),
            WriteError::Encode(_) => None,
        }
    }
}

/// A transport for one domain: it creates writers and readers that match with
/// every compatible endpoint of the same domain and topic it can reach.
pub trait Transport: Send + Sync {
    /// A short name (`"inproc"`, `"shm"`, `"zenoh"`).
    fn kind(&self) -> &'static str;
    /// The domain this transport serves.
    fn domain_id(&self) -> DomainId;
    /// Creates a writer; matching starts at once.
    fn create_writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<Box<dyn Writer>, EndpointCreateError>;
    /// Creates a reader; matching starts at once.
    fn create_reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<Box<dyn Reader>, EndpointCreateError>;
    /// Makes `node` visible in the graph of every participant of the domain
    /// until the token is dropped.
    fn announce_node(&self, node: &NodeInfo) -> GraphToken;
    /// The nodes and endpoints this participant knows, its own included.
    fn graph(&self) -> GraphSnapshot;
    /// Calls `notify` whenever a node or endpoint appears in or leaves this
    /// participant's graph, until the token is dropped (no transport lock is
    /// held while it runs).
    fn watch_graph(&self, notify: Arc<dyn Notify>) -> GraphToken;
}

/// What writers and readers share: identity, matching and events.
pub trait Endpoint: Send + Sync {
    /// This endpoint's id (a writer's is the `publisher_id` of its samples).
    fn id(&self) -> EndpointId;
    /// What it was created for.
    fn spec(&self) -> &EndpointSpec;
    /// Currently matched peers.
    fn matched_count(&self) -> usize;
    /// A snapshot of counters and incompatible peers.
    fn status(&self) -> EndpointStatus;
    /// The oldest event not yet taken (non-blocking).
    fn take_event(&self) -> Option<EndpointEvent>;
    /// Sets (or clears) the waker. It is called when a reader's queue goes
    /// from empty to non-empty and whenever an event is queued; at once if
    /// samples or events are already pending. Calls may be coalesced and may
    /// be spurious: after a call, take until [`Reader::take`] returns `None`
    /// and [`take_event`](Endpoint::take_event) returns `None`.
    fn set_notify(&self, notify: Option<Arc<dyn Notify>>);
}

/// Writes samples to every matched reader.
pub trait Writer: Endpoint {
    /// Writes one sample to every matched reader, or to none.
    ///
    /// Assigns the next sequence number and the source timestamp. Best-effort
    /// readers never make it wait. When a reliable reader is full it waits or
    /// fails as [`WriterOptions::when_full`] says, and on failure hands the
    /// payload back, having delivered it nowhere. Wakers run after the write's
    /// locks are released, so they may write again.
    fn write(&self, payload: Payload) -> Result<(), WriteError>;

    /// Lends `len` bytes of the transport's own memory (a shared-memory
    /// chunk) to write a message's CDR bytes into in place, then
    /// [`send`](WriterLoan::send) them without a copy. `None` when the
    /// transport has no memory of its own to lend (the default): write a
    /// [`Payload`] instead.
    fn loan(&self, len: usize) -> Option<Result<WriterLoan<'_>, WriteError>> {
        let _ = len;
        None
    }

    /// Sends `bytes`, the first bytes of the memory this writer lent under
    /// `ticket` ([`WriterLoan::send`] calls it, once per loan). On failure
    /// the memory stays lent when nothing went out (`kept`). A writer that
    /// lends nothing is never called: a lender overrides this with
    /// [`loan`](Writer::loan) and [`give_back`](Writer::give_back).
    fn send_lent(&self, ticket: Ticket, bytes: &[u8]) -> Result<(), LentSendError> {
        let _ = (ticket, bytes);
        unreachable!("a writer that lends memory implements send_lent with loan")
    }

    /// Takes back the memory lent under `ticket`, unsent (a dropped
    /// [`WriterLoan`] calls it). The default has nothing to take back.
    fn give_back(&self, ticket: Ticket) {
        let _ = ticket;
    }

    /// Waits until every matched reliable reader has acknowledged every
    /// sample written so far, for at most `timeout`; `true` when they have
    /// (rclcpp's `Publisher::wait_for_all_acked`). Before a process that
    /// has just written exits, this is what keeps a reader that matched the
    /// writer late from missing the repairs. A transport that puts a sample
    /// in its readers' queues before `write` returns has nothing to wait for
    /// (the default: `true` at once); best-effort readers are not waited for.
    fn wait_for_all_acked(&self, timeout: Duration) -> bool {
        let _ = timeout;
        true
    }

    /// Matched readers that get a written [`Payload`] as it is, object
    /// and all: the in-process transport's (rclcpp's intra-process
    /// subscriptions). A transport that carries bytes has none (the
    /// default). A binding holding a message object of its own language
    /// hands the object over only when some are matched; otherwise it
    /// encodes it once, straight into the memory the transport carries.
    fn matched_in_process(&self) -> usize {
        0
    }
}

/// Receives samples; never blocks.
pub trait Reader: Endpoint {
    /// The oldest sample not yet taken, or `None` at once.
    fn take(&self) -> Option<Sample>;
    /// Samples queued (some may expire before they are taken).
    fn queued(&self) -> usize;
    /// Busy-poll mode: the caller will call [`take`](Reader::take) in a
    /// loop instead of sleeping until woken, trading a core for latency. A
    /// transport whose writers signal readers across processes stops
    /// signalling this one (no system call on either side); the waker still
    /// fires for events. Samples are delivered the same either way. The
    /// default does nothing (waking costs nothing worth saving in-process).
    fn set_busy_poll(&self, on: bool) {
        let _ = on;
    }
}
