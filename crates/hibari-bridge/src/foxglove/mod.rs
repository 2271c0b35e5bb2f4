//! The Foxglove WebSocket protocol (bridge.md §3), chosen when a client
//! offers the subprotocol `foxglove.websocket.v1` or `foxglove.sdk.v1`.
//!
//! On connect the client gets `serverInfo`, then the channels and services
//! of the [`Directory`]. Subscribing to a channel attaches the client to the
//! topic's shared feed with its own subscription id: each message is the
//! CDR bytes as received, untouched, behind the 13-byte Message Data
//! header. Clients may advertise channels (`cdr`, or `json` converted
//! through the registry) and publish on them, call services (`cdr` or
//! `json`), and follow the connection graph; the server's time comes every
//! [`time_interval`](crate::BridgeConfig::time_interval).

pub(crate) mod directory;
mod ops;

pub(crate) use directory::Directory;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value as Json};

use crate::core::Core;
use crate::outbox::{Frame, Outbox};

/// The subprotocols this bridge speaks Foxglove under.
pub(crate) const SUBPROTOCOLS: [&str; 2] = ["foxglove.sdk.v1", "foxglove.websocket.v1"];

/// A channel a client advertised (to publish on).
pub(crate) struct ClientChannel {
    topic: String,
    resolved: String,
    json: bool,
    ty: Option<hibari::interfaces::TypeName>,
    publisher: Arc<hibari::Publisher<hibari::Serialized>>,
}

/// One Foxglove client.
pub(crate) struct FoxSession {
    core: Arc<Core>,
    id: u64,
    out: Arc<Outbox>,
    /// subscription id → (channel's topic, ring).
    subs: HashMap<u32, (String, u64)>,
    channels: HashMap<u32, ClientChannel>,
}

/// Foxglove status levels.
#[derive(Clone, Copy)]
pub(crate) enum StatusLevel {
    Error = 2,
}

impl FoxSession {
    /// Registers the client and sends it `serverInfo`, the channels and
    /// the services.
    pub fn start(core: Arc<Core>, id: u64, out: Arc<Outbox>) -> Self {
        let info = json!({
            "op": "serverInfo",
            "name": "hibari-bridge",
            "capabilities": ["clientPublish", "services", "connectionGraph", "time"],
            "supportedEncodings": ["cdr", "json"],
            "metadata": {"ROS_DISTRO": core.config.distro.as_str()},
            "sessionId": format!("{}.{:09}", core.now().0, core.now().1),
        });
        out.push_control(Frame::Text(info.to_string().into()));
        core.fox.add_client(id, out.clone());
        out.push_control(core.fox.advertise_all(&core));
        out.push_control(core.fox.advertise_services_all(&core));
        FoxSession {
            core,
            id,
            out,
            subs: HashMap::new(),
            channels: HashMap::new(),
        }
    }

    pub(crate) fn status(&self, level: StatusLevel, message: &str) {
        self.core
            .counters
            .errors
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let m = json!({"op": "status", "level": level as u8, "message": message});
        self.out.push_control(Frame::Text(m.to_string().into()));
    }

    /// A text frame: one JSON op.
    pub fn on_text(&mut self, bytes: &[u8]) {
        self.core
            .counters
            .messages_in
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match serde_json::from_slice::<Json>(bytes) {
            Ok(json) => {
                if let Err(e) = self.on_op(&json) {
                    self.status(StatusLevel::Error, &e);
                }
            }
            Err(e) => self.status(StatusLevel::Error, &format!("invalid JSON: {e}")),
        }
    }

    /// A binary frame: client message data or a service call.
    pub fn on_binary(&mut self, bytes: &[u8]) {
        self.core
            .counters
            .messages_in
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let outcome = match bytes.first() {
            Some(0x01) => self.client_message(&bytes[1..]),
            Some(0x02) => self.service_call(&bytes[1..]),
            Some(op) => Err(format!("unknown binary opcode {op:#04x}")),
            None => Err("empty binary message".into()),
        };
        if let Err(e) = outcome {
            self.status(StatusLevel::Error, &e);
        }
    }

    /// Undoes the client's subscriptions and channels.
    pub fn close(mut self) {
        for (_, (topic, ring)) in self.subs.drain() {
            self.core.hub.detach(&topic, ring);
        }
        for (id, c) in self.channels.drain() {
            self.core.publishers.unregister(
                &self.core.runtime,
                self.core.config.unregister_timeout,
                self.id,
                &c.resolved,
                Some(&format!("fox:{id}")),
            );
        }
        self.core.fox.remove_client(self.id);
    }
}
