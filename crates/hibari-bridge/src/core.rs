//! What every connection of a bridge shares: its node, the interface
//! registry, the shared feeds and publishers, the advertised services, the
//! list of clients and the counters.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use hibari::action::GenericActionClient;
use hibari::interfaces::Registry;
use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::rcl_interfaces::msg::Log;
use hibari::{GenericClient, GenericServiceServer, Node, Publisher, QosProfile};

use crate::acl::{self, Globs};
use crate::config::BridgeConfig;
use crate::graph_topics::{self, ClientTopics};
use crate::hub::{lock, Hub};
use crate::outbox::Outbox;
use crate::publishers::Publishers;
use crate::stats::{ClientStats, Protocol};

/// A connected client, as the bridge lists it.
pub(crate) struct ClientEntry {
    pub peer: SocketAddr,
    pub protocol: Protocol,
    pub outbox: Arc<Outbox>,
    pub since: Instant,
}

/// A service a client advertised: the hibari server that forwards to it.
pub(crate) struct AdvertisedService {
    pub client: u64,
    pub _server: GenericServiceServer,
}

#[derive(Default)]
pub(crate) struct Counters {
    pub connections: AtomicU64,
    pub messages_in: AtomicU64,
    pub published: AtomicU64,
    pub errors: AtomicU64,
    /// Goals clients sent (`send_action_goal`) whose tasks still run.
    pub goals: AtomicU64,
}

pub(crate) struct Core {
    pub node: Node,
    pub registry: Arc<Registry>,
    pub config: BridgeConfig,
    pub runtime: tokio::runtime::Handle,
    pub hub: Hub,
    pub publishers: Publishers,
    pub services: Mutex<HashMap<String, AdvertisedService>>,
    /// Clients of services called through the bridge, kept for reuse.
    pub service_clients: Mutex<HashMap<(String, String), Arc<GenericClient>>>,
    /// Clients of actions used through the bridge, kept for reuse.
    action_clients: Mutex<HashMap<(String, String), Arc<GenericActionClient>>>,
    /// `config.topics_glob`, compiled once.
    pub topic_globs: Option<Globs>,
    /// `config.services_glob`, compiled once.
    service_globs: Option<Globs>,
    pub clients: Mutex<HashMap<u64, ClientEntry>>,
    pub counters: Counters,
    /// What Foxglove clients are offered.
    pub fox: crate::foxglove::Directory,
    ids: AtomicU64,
    /// rosbridge's `client_count` and `connected_clients` topics.
    client_topics: ClientTopics,
    /// The bridge's log, as every ROS 2 node has one (clients such as
    /// Lichtblick look for `/rosout` to recognise ROS 2).
    rosout: Publisher<Log>,
}

impl Core {
    pub fn new(
        node: Node,
        mut registry: Registry,
        config: BridgeConfig,
        runtime: tokio::runtime::Handle,
    ) -> Result<Core, hibari::PublisherCreateError> {
        graph_topics::add_types(&mut registry);
        let registry = Arc::new(registry);
        let client_topics = ClientTopics::new(&node, registry.clone())?;
        let rosout = node.create_publisher::<Log>("/rosout", QosProfile::rosout())?;
        let topic_globs = config.topics_glob.as_deref().map(Globs::new);
        let service_globs = config.services_glob.as_deref().map(Globs::new);
        Ok(Core {
            node,
            registry,
            config,
            runtime,
            hub: Hub::default(),
            publishers: Publishers::default(),
            services: Mutex::new(HashMap::new()),
            service_clients: Mutex::new(HashMap::new()),
            action_clients: Mutex::new(HashMap::new()),
            topic_globs,
            service_globs,
            clients: Mutex::new(HashMap::new()),
            counters: Counters::default(),
            fox: crate::foxglove::Directory::default(),
            ids: AtomicU64::new(1),
            client_topics,
            rosout,
        })
    }

    /// A fresh id (clients, rings, requests).
    pub fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }

    /// Writes a line to `/rosout` at INFO level.
    pub fn log(&self, msg: String) {
        let (sec, nanosec) = self.now();
        let _ = self.rosout.publish(Log {
            stamp: Time { sec, nanosec },
            level: Log::INFO,
            name: self.node.name().to_owned(),
            msg,
            ..Log::default()
        });
    }

    pub fn add_client(&self, id: u64, entry: ClientEntry) {
        self.counters.connections.fetch_add(1, Ordering::Relaxed);
        self.log(format!(
            "client {id} connected from {} ({:?})",
            entry.peer, entry.protocol
        ));
        let peer = entry.peer;
        lock(&self.clients).insert(id, entry);
        self.client_topics.connected(id, peer, self.now());
    }

    pub fn remove_client(&self, id: u64) {
        let mut clients = lock(&self.clients);
        if let Some(c) = clients.remove(&id) {
            self.log(format!(
                "client {id} ({}) disconnected; {} messages dropped for it",
                c.peer,
                c.outbox.dropped()
            ));
        }
        drop(clients);
        self.client_topics.disconnected(id);
    }

    pub fn client_stats(&self) -> Vec<ClientStats> {
        let mut out: Vec<ClientStats> = lock(&self.clients)
            .iter()
            .map(|(id, c)| {
                let (queued_messages, queued_bytes) = c.outbox.queued();
                let (peak_queued_messages, peak_queued_bytes) = c.outbox.peak();
                ClientStats {
                    id: *id,
                    peer: c.peer,
                    protocol: c.protocol,
                    connected_for: c.since.elapsed(),
                    queued_messages,
                    queued_bytes,
                    peak_queued_messages,
                    peak_queued_bytes,
                    dropped: c.outbox.dropped(),
                    throttled: c.outbox.throttled(),
                }
            })
            .collect();
        out.sort_by_key(|c| c.id);
        out
    }

    /// A client's topic or service name, resolved in the bridge node's
    /// namespace (so roslibjs' relative `rosapi/topics` works).
    pub fn resolve(&self, name: &str) -> Result<String, hibari::NameError> {
        self.node.resolve_topic_name(name)
    }

    /// Whether `topics_glob` lets a client reach `topic`, spelled `given`.
    pub fn topic_allowed(&self, given: &str, topic: &str) -> bool {
        acl::allows_both(self.topic_globs.as_ref(), given, topic)
    }

    /// Whether `services_glob` lets a client reach `service`, spelled `given`.
    pub fn service_allowed(&self, given: &str, service: &str) -> bool {
        acl::allows_both(self.service_globs.as_ref(), given, service)
    }

    /// The types `topic` has in the graph (the bridge's own endpoints
    /// included).
    pub fn topic_types(&self, topic: &str) -> Vec<String> {
        self.node
            .get_topic_names_and_types()
            .remove(topic)
            .unwrap_or_default()
    }

    /// The types of the servers of `service` in the graph (clients alone
    /// do not make a service callable).
    pub fn server_types(&self, service: &str) -> Vec<String> {
        let request_topic = format!("rq/{}Request", service.trim_start_matches('/'));
        let mut types: Vec<String> = self
            .node
            .graph()
            .endpoints
            .iter()
            .filter(|e| e.kind == hibari::EndpointKind::Reader && e.spec.topic == request_topic)
            .filter_map(|e| e.spec.type_name.strip_suffix("_Request").map(str::to_owned))
            .collect();
        types.sort();
        types.dedup();
        types
    }

    /// The types `service` has in the graph.
    pub fn service_types(&self, service: &str) -> Vec<String> {
        self.node
            .get_service_names_and_types()
            .remove(service)
            .unwrap_or_default()
    }

    /// The `(sec, nanosec)` of now, for `"now"` stamps.
    pub fn now(&self) -> (i32, u32) {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        (t.as_secs() as i32, t.subsec_nanos())
    }

    /// The message definition text of `type_name` (`ros2msg`, with its
    /// dependencies), empty when unknown.
    pub fn schema_text(&self, type_name: &str) -> String {
        hibari::interfaces::TypeName::parse(type_name)
            .and_then(|t| self.registry.msgdef_text(&t).ok())
            .unwrap_or_default()
    }

    /// A (cached) client of `service` typed `type_name`. The cache is
    /// bounded: past 256 clients, those whose service has no server any
    /// more are dropped.
    pub fn service_client(
        &self,
        service: &str,
        type_name: &str,
    ) -> Result<Arc<GenericClient>, hibari::ClientCreateError> {
        let key = (service.to_owned(), type_name.to_owned());
        let mut cache = lock(&self.service_clients);
        if let Some(c) = cache.get(&key) {
            return Ok(c.clone());
        }
        if cache.len() >= 256 {
            cache.retain(|_, c| c.service_is_ready());
        }
        drop(cache);
        let client = Arc::new(self.node.create_generic_client(
            service,
            type_name,
            QosProfile::services_default(),
        )?);
        lock(&self.service_clients).insert(key, client.clone());
        Ok(client)
    }

    /// A (cached) client of the action `action` typed `type_name`, and
    /// whether it was just made. Bounded as [`Core::service_client`] is:
    /// past 256 clients, those whose action has no server any more go.
    pub fn action_client(
        &self,
        action: &str,
        type_name: &str,
    ) -> Result<(Arc<GenericActionClient>, bool), hibari::action::ActionClientCreateError> {
        let key = (action.to_owned(), type_name.to_owned());
        let mut cache = lock(&self.action_clients);
        if let Some(c) = cache.get(&key) {
            return Ok((c.clone(), false));
        }
        if cache.len() >= 256 {
            cache.retain(|_, c| c.action_server_is_ready());
        }
        drop(cache);
        let client = Arc::new(self.node.create_generic_action_client(
            action,
            type_name,
            self.registry.clone(),
        )?);
        let client = lock(&self.action_clients)
            .entry(key)
            .or_insert(client)
            .clone();
        Ok((client, true))
    }
}
