//! What a running bridge can tell about itself: its clients, their queues
//! and drops, and counters.

use std::net::SocketAddr;
use std::time::Duration;

/// Which protocol a client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Protocol {
    /// rosbridge v2 over WebSocket (no subprotocol offered).
    RosbridgeWebSocket,
    /// rosbridge v2 over TCP (ROS 1 framing: concatenated JSON).
    RosbridgeTcp,
    /// Foxglove WebSocket (`foxglove.websocket.v1` or `foxglove.sdk.v1`).
    Foxglove,
}

/// One connected client.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ClientStats {
    /// The bridge's id for it.
    pub id: u64,
    /// Its address.
    pub peer: SocketAddr,
    /// What it speaks.
    pub protocol: Protocol,
    /// How long it has been connected.
    pub connected_for: Duration,
    /// Data messages queued for it now.
    pub queued_messages: usize,
    /// Bytes of those.
    pub queued_bytes: usize,
    /// The most data messages ever queued for it at once: never more than
    /// the depths of its subscriptions.
    pub peak_queued_messages: usize,
    /// The most bytes of data ever queued for it at once: never more than
    /// [`BridgeConfig::max_queued_bytes`](crate::BridgeConfig::max_queued_bytes),
    /// or one message when that alone is larger.
    pub peak_queued_bytes: usize,
    /// Data messages dropped for it so far (its queues were full): a slow
    /// client loses its oldest messages, never slows anyone else.
    pub dropped: u64,
    /// Messages skipped by a `throttle_rate` without a queue.
    pub throttled: u64,
}

/// A snapshot of a bridge's state.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct BridgeStats {
    /// Connected clients, by id.
    pub clients: Vec<ClientStats>,
    /// Connections accepted since the start.
    pub connections: u64,
    /// Messages received from clients (ops, Foxglove messages).
    pub messages_in: u64,
    /// Messages published into hibari for clients.
    pub published: u64,
    /// Client messages that failed (bad input, unknown types, …).
    pub errors: u64,
    /// Topics the bridge subscribes to for its clients now.
    pub subscribed_topics: usize,
    /// Topics the bridge publishes for its clients now.
    pub published_topics: usize,
    /// Action goals clients sent (`send_action_goal`) that are still
    /// followed now: they go when they end or their client leaves.
    pub action_goals: u64,
}
