//! The graph topics rosbridge publishes about its clients (bridge.md §1.6,
//! M3), in the bridge node's namespace, both transient-local (depth 1), so
//! a subscriber that comes later still gets the current value:
//!
//! - `client_count` (`std_msgs/msg/Int32`): how many clients are connected;
//! - `connected_clients` (`rosbridge_msgs/msg/ConnectedClients`): each
//!   client's IP address (without the port, as rosbridge's) and the wall
//!   time it connected, oldest first.
//!
//! Every client counts, rosbridge (WebSocket or TCP) and Foxglove. The
//! `rosbridge_msgs` definitions are added to the bridge's registry (unless
//! an interface folder already has them), so rosbridge clients can
//! subscribe to `/connected_clients` and native nodes can read it
//! generically. Both topics are published under one lock, so the last
//! value each holds is always the current one, whatever the order in which
//! clients come and go.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use hibari::dynamic;
use hibari::interfaces::{Registry, TypeName};
use hibari::msg::std_msgs::msg::Int32;
use hibari::{Node, Publisher, QosProfile, Serialized};
use serde_json::json;

use crate::hub::lock;

/// `rosbridge_msgs/msg/ConnectedClient`, as rosbridge_suite defines it.
const CONNECTED_CLIENT: &str = "string ip_address\nbuiltin_interfaces/Time connection_time\n";
/// `rosbridge_msgs/msg/ConnectedClients`.
const CONNECTED_CLIENTS: &str = "ConnectedClient[] clients\n";
/// The type of `connected_clients`.
pub(crate) const CONNECTED_CLIENTS_TYPE: &str = "rosbridge_msgs/msg/ConnectedClients";

/// Adds the `rosbridge_msgs` messages to `registry`, unless it has them.
pub(crate) fn add_types(registry: &mut Registry) {
    for (name, text) in [
        ("rosbridge_msgs/msg/ConnectedClient", CONNECTED_CLIENT),
        (CONNECTED_CLIENTS_TYPE, CONNECTED_CLIENTS),
    ] {
        let Some(ty) = TypeName::parse(name) else {
            continue;
        };
        if registry.message(&ty).is_none() {
            // Fixed, valid text: this cannot fail; if it did, the topic
            // would only go unpublished (see `publish`).
            let _ = registry.add_msg_text(ty, text, name);
        }
    }
}

/// id → (IP address, connection time `(sec, nanosec)`).
type Clients = BTreeMap<u64, (String, (i32, u32))>;

/// The clients as the graph topics list them.
pub(crate) struct ClientTopics {
    count: Publisher<Int32>,
    list: Publisher<Serialized>,
    ty: Option<TypeName>,
    registry: Arc<Registry>,
    clients: Mutex<Clients>,
}

impl ClientTopics {
    /// Creates both publishers and publishes "no clients".
    pub fn new(node: &Node, registry: Arc<Registry>) -> Result<Self, hibari::PublisherCreateError> {
        let count = node.create_publisher::<Int32>("client_count", QosProfile::latched(1))?;
        let list = node.create_generic_publisher(
            "connected_clients",
            CONNECTED_CLIENTS_TYPE,
            QosProfile::latched(1),
        )?;
        let topics = ClientTopics {
            count,
            list,
            ty: TypeName::parse(CONNECTED_CLIENTS_TYPE),
            registry,
            clients: Mutex::new(BTreeMap::new()),
        };
        topics.publish(&lock(&topics.clients));
        Ok(topics)
    }

    /// A client connected from `peer` at `time`.
    pub fn connected(&self, id: u64, peer: SocketAddr, time: (i32, u32)) {
        let mut clients = lock(&self.clients);
        clients.insert(id, (peer.ip().to_string(), time));
        self.publish(&clients);
    }

    /// A client left.
    pub fn disconnected(&self, id: u64) {
        let mut clients = lock(&self.clients);
        if clients.remove(&id).is_some() {
            self.publish(&clients);
        }
    }

    /// Publishes both topics (the caller holds the clients' lock).
    fn publish(&self, clients: &Clients) {
        let _ = self.count.publish(Int32 {
            data: clients.len().min(i32::MAX as usize) as i32,
        });
        let Some(ty) = &self.ty else { return };
        let list: Vec<_> = clients
            .values()
            .map(|(ip, (sec, nanosec))| {
                json!({"ip_address": ip, "connection_time": {"sec": sec, "nanosec": nanosec}})
            })
            .collect();
        let value = dynamic::from_json(&*self.registry, ty, &json!({ "clients": list }));
        let bytes = value
            .ok()
            .and_then(|v| dynamic::encode(&*self.registry, ty, &v).ok());
        if let Some(bytes) = bytes {
            let _ = self.list.publish(bytes);
        }
    }
}
