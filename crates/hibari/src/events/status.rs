//! Querying a publisher's or subscription's [QoS events](crate::events).
//!
//! Every query first takes the events waiting in the transport and counts the
//! deadlines and leases that ran out by now, so it is current without an
//! executor. It does not reset the `*_change` fields: those count since the
//! event's callback last ran (or since creation, without a callback).

use hibari_transport::{Endpoint, EndpointId, Incompatibility};

use crate::events::monitor::Statuses;
use crate::events::{
    DeadlineMissedStatus, IncompatibleQosStatus, IncompatibleTypeStatus, LivelinessChangedStatus,
    LivelinessLostStatus, MatchedStatus, MessageLostStatus,
};
use crate::topic::pubsub::Publisher;
use crate::topic::subscription::Subscription;

impl<A> Publisher<A> {
    fn status<T>(&self, read: impl FnOnce(&Statuses) -> T) -> T {
        self.shared.events.query(&*self.shared.writer, false, read)
    }

    /// Subscriptions matched, now and ever.
    pub fn matched_status(&self) -> MatchedStatus {
        self.status(|s| s.matched.clone())
    }

    /// Subscriptions on the topic refused because they request QoS this
    /// publisher does not offer, and which policy failed last.
    pub fn incompatible_qos_status(&self) -> IncompatibleQosStatus {
        self.status(|s| s.incompatible_qos.clone())
    }

    /// Subscriptions on the topic refused because of their type.
    pub fn incompatible_type_status(&self) -> IncompatibleTypeStatus {
        self.status(|s| s.incompatible_type.clone())
    }

    /// Deadline periods that passed without a publish.
    pub fn offered_deadline_missed_status(&self) -> DeadlineMissedStatus {
        self.status(|s| s.deadline_missed.clone())
    }

    /// Lapses of a manual-by-topic lease.
    pub fn liveliness_lost_status(&self) -> LivelinessLostStatus {
        self.status(|s| s.liveliness_lost.clone())
    }

    /// The subscriptions on the topic that are not matched now, and why
    /// (every failed QoS policy, or the type).
    pub fn incompatible_peers(&self) -> Vec<(EndpointId, Incompatibility)> {
        self.shared.writer.status().incompatible
    }
}

impl<A> Subscription<A> {
    fn status<T>(&self, read: impl FnOnce(&Statuses) -> T) -> T {
        let reader = &*self.shared.reader;
        self.shared.events.query(reader, reader.queued() > 0, read)
    }

    /// Publishers matched, now and ever.
    pub fn matched_status(&self) -> MatchedStatus {
        self.status(|s| s.matched.clone())
    }

    /// Publishers on the topic refused because they offer weaker QoS than
    /// requested, and which policy failed last.
    pub fn incompatible_qos_status(&self) -> IncompatibleQosStatus {
        self.status(|s| s.incompatible_qos.clone())
    }

    /// Publishers on the topic refused because of their type.
    pub fn incompatible_type_status(&self) -> IncompatibleTypeStatus {
        self.status(|s| s.incompatible_type.clone())
    }

    /// Deadline periods that passed without a sample (samples still queued
    /// count as on time).
    pub fn requested_deadline_missed_status(&self) -> DeadlineMissedStatus {
        self.status(|s| s.deadline_missed.clone())
    }

    /// How many matched publishers are alive and not alive.
    pub fn liveliness_changed_status(&self) -> LivelinessChangedStatus {
        self.status(|s| s.liveliness_changed.clone())
    }

    /// Samples lost before they were taken (counted as they are taken).
    pub fn message_lost_status(&self) -> MessageLostStatus {
        self.status(|s| s.message_lost.clone())
    }

    /// The publishers on the topic that are not matched now, and why (every
    /// failed QoS policy, or the type).
    pub fn incompatible_peers(&self) -> Vec<(EndpointId, Incompatibility)> {
        Endpoint::status(&*self.shared.reader).incompatible
    }
}
