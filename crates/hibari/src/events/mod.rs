//! QoS events: what a publisher or subscription learns about its peers and
//! about the promises its QoS makes, as ROS 2 reports them
//! (`rclcpp::PublisherEventCallbacks`, `SubscriptionEventCallbacks`).
//!
//! | event | side | when | status |
//! |---|---|---|---|
//! | matched | both | a peer is matched or goes away | [`MatchedStatus`] |
//! | incompatible QoS | both | a peer on the topic offers/requests QoS that cannot match; the pair is not matched | [`IncompatibleQosStatus`] |
//! | incompatible type | both | a peer on the topic uses another type or definition | [`IncompatibleTypeStatus`] |
//! | offered deadline missed | publisher | a `deadline` period passed without a publish | [`DeadlineMissedStatus`] |
//! | requested deadline missed | subscription | a `deadline` period passed without a sample | [`DeadlineMissedStatus`] |
//! | liveliness lost | publisher | a manual-by-topic publisher did not publish or [assert](crate::Publisher::assert_liveliness) within its lease | [`LivelinessLostStatus`] |
//! | liveliness changed | subscription | a matched publisher became alive or not alive, or went away | [`LivelinessChangedStatus`] |
//! | message lost | subscription | samples were dropped before it took them (a full best-effort queue) | [`MessageLostStatus`] |
//!
//! Every status can be queried at any time ([`Publisher::matched_status`](crate::Publisher::matched_status),
//! [`Subscription::requested_deadline_missed_status`](crate::Subscription::requested_deadline_missed_status),
//! …): a query is brought up to date first, without an executor. An event
//! callback, given in [`PublisherOptions`](crate::PublisherOptions)/[`SubscriptionOptions`](crate::SubscriptionOptions), runs on
//! the executor spinning the endpoint's node, in the endpoint's callback
//! group, once per batch of changes: its status says what changed since the
//! callback last ran (`*_change` fields; totals since creation). Queries do not
//! reset the changes; with no callback of that kind they count from creation.
//!
//! # Deadlines and liveliness
//!
//! - A deadline clock starts with the first publish (publisher) or the first
//!   sample (subscription) — ROS topics have one instance, which exists from
//!   then on — and counts one miss per whole period without one, for as long
//!   as the endpoint lives (a publisher that stops or goes away keeps its
//!   subscriptions missing their deadline). A subscription measures samples by
//!   their reception timestamp as they are taken; a sample still waiting in
//!   the queue when a period ends (a polled subscription's, say) counts as on
//!   time.
//! - Automatic liveliness: a matched publisher is alive until it is unmatched
//!   (dropped, or — over a transport between processes — its process went
//!   away); it then leaves `alive_count` (`alive_count_change` −1), as in DDS,
//!   rather than becoming not alive.
//! - Manual-by-topic liveliness with a lease: a publisher is alive from its
//!   creation (for a subscription, from their match) while it publishes or
//!   [asserts](crate::Publisher::assert_liveliness) within its lease; when the lease lapses the publisher sees liveliness lost and its
//!   subscriptions see it move from `alive_count` to `not_alive_count`, until
//!   its next sample. A subscription times a publisher by the publisher's own
//!   lease when the publisher is in this process, else by the lease it
//!   requested. An assertion without a sample reaches only subscriptions in
//!   this process (the transport does not carry it), and a subscription
//!   notices a publisher coming back by assertion alone at its next sample,
//!   event or query rather than at once.
//! - Message loss is counted from each taken sample's
//!   [`lost_before`](crate::SampleInfo::lost_before).
//!
//! ```
//! use hibari::msg::std_msgs::msg::UInt64;
//! use hibari::{Context, QosPolicyKind, QosProfile, SubscriptionEventCallbacks, SubscriptionOptions};
//! use std::time::Duration;
//!
//! let node = Context::builder().isolated().create()?.create_node("monitor")?;
//! let every_100ms = QosProfile::default().deadline(Duration::from_millis(100));
//! let heartbeat = node.create_subscription(
//!     "heartbeat",
//!     SubscriptionOptions::new(every_100ms).event_callbacks(
//!         SubscriptionEventCallbacks::new()
//!             .on_deadline_missed(|s| eprintln!("{} heartbeats missed", s.total_count))
//!             .on_incompatible_qos(|s| eprintln!("refused: {:?}", s.last_incompatibility)),
//!     ),
//!     |_: &UInt64| {},
//! )?;
//! // This publisher promises no deadline: it is not matched, and both sides say why.
//! let publisher = node.create_publisher::<UInt64>("heartbeat", QosProfile::default())?;
//! assert_eq!(publisher.matched_subscriptions(), 0);
//! let why = heartbeat.incompatible_qos_status();
//! assert_eq!(why.last_policy_kind, Some(QosPolicyKind::Deadline));
//! assert_eq!(publisher.incompatible_qos_status().total_count, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use hibari_transport::{EndpointId, QosIncompatibility, QosPolicyKind};

pub(crate) mod liveliness;
pub(crate) mod monitor;
pub(crate) mod status;

/// Matches with peers: ROS 2's matched event (`rmw_matched_status_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MatchedStatus {
    /// Peers ever matched.
    pub total_count: u64,
    /// Peers matched since the callback last ran.
    pub total_count_change: u64,
    /// Peers matched now.
    pub current_count: usize,
    /// Change of `current_count` since the callback last ran.
    pub current_count_change: i64,
}

/// Peers refused for QoS (`rmw_qos_incompatible_event_status_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct IncompatibleQosStatus {
    /// Peers ever refused for QoS.
    pub total_count: u64,
    /// Refused since the callback last ran.
    pub total_count_change: u64,
    /// The first failed policy of the last refusal (rmw's `last_policy_kind`).
    pub last_policy_kind: Option<QosPolicyKind>,
    /// Every failed policy of the last refusal, explained.
    pub last_incompatibility: Option<QosIncompatibility>,
    /// The peer last refused.
    pub last_peer: Option<EndpointId>,
}

/// Peers refused because they use another type or definition
/// (`rmw_incompatible_type_status_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct IncompatibleTypeStatus {
    /// Peers ever refused for their type.
    pub total_count: u64,
    /// Refused since the callback last ran.
    pub total_count_change: u64,
    /// The type name of the peer last refused.
    pub last_type_name: Option<String>,
    /// Its type hash (empty when it did not give one).
    pub last_type_hash: Option<String>,
    /// The peer last refused.
    pub last_peer: Option<EndpointId>,
}

/// Deadline periods missed: offered (publisher) or requested (subscription).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeadlineMissedStatus {
    /// Periods missed since creation.
    pub total_count: u64,
    /// Missed since the callback last ran.
    pub total_count_change: u64,
}

/// A manual-by-topic publisher's lapses (`rmw_liveliness_lost_status_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LivelinessLostStatus {
    /// Times the lease lapsed.
    pub total_count: u64,
    /// Lapses since the callback last ran.
    pub total_count_change: u64,
}

/// The liveliness of a subscription's matched publishers
/// (`rmw_liveliness_changed_status_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LivelinessChangedStatus {
    /// Matched publishers alive now.
    pub alive_count: usize,
    /// Matched publishers whose lease lapsed.
    pub not_alive_count: usize,
    /// Change of `alive_count` since the callback last ran.
    pub alive_count_change: i64,
    /// Change of `not_alive_count` since the callback last ran.
    pub not_alive_count_change: i64,
}

/// Samples a subscription lost before taking them
/// (`rmw_message_lost_status_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageLostStatus {
    /// Samples lost since creation.
    pub total_count: u64,
    /// Lost since the callback last ran.
    pub total_count_change: u64,
}

pub(crate) type EventCallback<S> = Box<dyn FnMut(&S) + Send>;

/// Every event callback either side may have.
#[derive(Default)]
pub(crate) struct Callbacks {
    pub matched: Option<EventCallback<MatchedStatus>>,
    pub incompatible_qos: Option<EventCallback<IncompatibleQosStatus>>,
    pub incompatible_type: Option<EventCallback<IncompatibleTypeStatus>>,
    pub deadline_missed: Option<EventCallback<DeadlineMissedStatus>>,
    pub liveliness_lost: Option<EventCallback<LivelinessLostStatus>>,
    pub liveliness_changed: Option<EventCallback<LivelinessChangedStatus>>,
    pub message_lost: Option<EventCallback<MessageLostStatus>>,
}

impl Callbacks {
    fn names(&self) -> Vec<&'static str> {
        [
            ("matched", self.matched.is_some()),
            ("incompatible_qos", self.incompatible_qos.is_some()),
            ("incompatible_type", self.incompatible_type.is_some()),
            ("deadline_missed", self.deadline_missed.is_some()),
            ("liveliness_lost", self.liveliness_lost.is_some()),
            ("liveliness_changed", self.liveliness_changed.is_some()),
            ("message_lost", self.message_lost.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect()
    }
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident, $field:ident, $status:ty) => {
        $(#[$doc])*
        pub fn $name(mut self, callback: impl FnMut(&$status) + Send + 'static) -> Self {
            self.0.$field = Some(Box::new(callback));
            self
        }
    };
}

/// A publisher's event callbacks (rclcpp's `PublisherEventCallbacks`); each
/// runs on the executor spinning the publisher's node. See the
/// [module](self) for when each fires.
#[derive(Default)]
pub struct PublisherEventCallbacks(pub(crate) Callbacks);

impl PublisherEventCallbacks {
    /// No callbacks.
    pub fn new() -> Self {
        Self::default()
    }
    setter!(
        /// A subscription was matched or went away.
        on_matched, matched, MatchedStatus);
    setter!(
        /// A subscription on the topic requests QoS this publisher cannot offer.
        on_incompatible_qos, incompatible_qos, IncompatibleQosStatus);
    setter!(
        /// A subscription on the topic uses another type.
        on_incompatible_type, incompatible_type, IncompatibleTypeStatus);
    setter!(
        /// The publisher let a deadline period pass without publishing.
        on_deadline_missed, deadline_missed, DeadlineMissedStatus);
    setter!(
        /// The publisher's manual-by-topic lease lapsed.
        on_liveliness_lost, liveliness_lost, LivelinessLostStatus);
}

impl fmt::Debug for PublisherEventCallbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PublisherEventCallbacks")
            .field(&self.0.names())
            .finish()
    }
}

/// A subscription's event callbacks (rclcpp's `SubscriptionEventCallbacks`);
/// each runs on the executor spinning the subscription's node. See the
/// [module](self) for when each fires.
#[derive(Default)]
pub struct SubscriptionEventCallbacks(pub(crate) Callbacks);

impl SubscriptionEventCallbacks {
    /// No callbacks.
    pub fn new() -> Self {
        Self::default()
    }
    setter!(
        /// A publisher was matched or went away.
        on_matched, matched, MatchedStatus);
    setter!(
        /// A publisher on the topic offers QoS weaker than requested.
        on_incompatible_qos, incompatible_qos, IncompatibleQosStatus);
    setter!(
        /// A publisher on the topic uses another type.
        on_incompatible_type, incompatible_type, IncompatibleTypeStatus);
    setter!(
        /// A deadline period passed without a sample.
        on_deadline_missed, deadline_missed, DeadlineMissedStatus);
    setter!(
        /// A matched publisher became alive or not alive, or went away.
        on_liveliness_changed, liveliness_changed, LivelinessChangedStatus);
    setter!(
        /// Samples were lost before this subscription took them.
        on_message_lost, message_lost, MessageLostStatus);
}

impl fmt::Debug for SubscriptionEventCallbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SubscriptionEventCallbacks")
            .field(&self.0.names())
            .finish()
    }
}
