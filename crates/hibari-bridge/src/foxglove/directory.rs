//! What the bridge offers Foxglove clients, kept in step with the graph.
//!
//! A channel is a topic with at least one publisher, with its type,
//! `cdr` encoding and the `ros2msg` definition text from the registry; a
//! service is one with a server. Ids are the bridge's, given once per
//! (name, type) and reused only for that same pair, as the protocol asks.
//! When the graph changes the directory works out what came and went and
//! tells every Foxglove client (`advertise`/`unadvertise`,
//! `advertiseServices`/`unadvertiseServices`, and `connectionGraphUpdate`
//! to those that subscribed to it).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use hibari::EndpointKind;
use serde_json::{json, Value as Json};

use crate::core::Core;
use crate::hub::lock;
use crate::outbox::{Frame, Outbox};

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Channel {
    pub id: u32,
    pub topic: String,
    pub type_name: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ServiceEntry {
    pub id: u32,
    pub name: String,
    pub type_name: String,
}

/// The connection graph as Foxglove shows it: name → node names.
#[derive(Clone, Default, PartialEq)]
struct ConnectionGraph {
    published: BTreeMap<String, BTreeSet<String>>,
    subscribed: BTreeMap<String, BTreeSet<String>>,
    services: BTreeMap<String, BTreeSet<String>>,
}

pub(crate) struct FoxClient {
    pub outbox: Arc<Outbox>,
    pub wants_graph: bool,
}

#[derive(Default)]
struct State {
    ids: HashMap<(String, String), u32>,
    next_id: u32,
    channels: BTreeMap<u32, Channel>,
    services: BTreeMap<u32, ServiceEntry>,
    graph: ConnectionGraph,
    clients: HashMap<u64, FoxClient>,
}

/// The channels, services and Foxglove clients of a bridge.
#[derive(Default)]
pub(crate) struct Directory {
    state: Mutex<State>,
}

fn text(j: Json) -> Frame {
    Frame::Text(j.to_string().into())
}

impl State {
    fn id_for(&mut self, name: &str, type_name: &str) -> u32 {
        let next = &mut self.next_id;
        *self
            .ids
            .entry((name.to_owned(), type_name.to_owned()))
            .or_insert_with(|| {
                *next += 1;
                *next
            })
    }
}

/// What the graph offers now: `(topic, type)` of every topic with a
/// publisher, `(service, type)` of every service with a server, and the
/// connection graph.
struct Scan {
    topics: BTreeSet<(String, String)>,
    services: BTreeSet<(String, String)>,
    graph: ConnectionGraph,
}

/// Reads the graph.
fn scan(core: &Core) -> Scan {
    let snapshot = core.node.graph();
    let mut topics = BTreeSet::new();
    let mut services = BTreeSet::new();
    let mut graph = ConnectionGraph::default();
    for e in &snapshot.endpoints {
        let node = e
            .node
            .as_ref()
            .map(|n| n.fully_qualified_name())
            .unwrap_or_default();
        let topic = &e.spec.topic;
        if let Some(s) = topic
            .strip_prefix("rq/")
            .and_then(|t| t.strip_suffix("Request"))
        {
            let name = format!("/{s}");
            if e.kind == EndpointKind::Reader && core.service_allowed(&name, &name) {
                let ty = e.spec.type_name.trim_end_matches("_Request");
                services.insert((format!("/{s}"), ty.to_owned()));
                graph
                    .services
                    .entry(format!("/{s}"))
                    .or_default()
                    .insert(node);
            }
            continue;
        }
        // Names the access-control globs keep out are not offered at all.
        if topic.starts_with("rr/") || !core.topic_allowed(topic, topic) {
            continue;
        }
        if e.kind == EndpointKind::Writer {
            topics.insert((topic.clone(), e.spec.type_name.clone()));
            graph
                .published
                .entry(topic.clone())
                .or_default()
                .insert(node);
        } else {
            graph
                .subscribed
                .entry(topic.clone())
                .or_default()
                .insert(node);
        }
    }
    Scan {
        topics,
        services,
        graph,
    }
}

impl Directory {
    /// `advertise` of every channel now.
    pub fn advertise_all(&self, core: &Core) -> Frame {
        let s = lock(&self.state);
        text(
            json!({"op": "advertise", "channels": s.channels.values().map(|c| channel_json(core, c)).collect::<Vec<_>>()}),
        )
    }

    /// `advertiseServices` of every service now.
    pub fn advertise_services_all(&self, core: &Core) -> Frame {
        let s = lock(&self.state);
        text(
            json!({"op": "advertiseServices", "services": s.services.values().map(|v| service_json(core, v)).collect::<Vec<_>>()}),
        )
    }

    pub fn channel(&self, id: u32) -> Option<Channel> {
        lock(&self.state).channels.get(&id).cloned()
    }

    pub fn service(&self, id: u32) -> Option<ServiceEntry> {
        lock(&self.state).services.get(&id).cloned()
    }

    pub fn add_client(&self, id: u64, outbox: Arc<Outbox>) {
        lock(&self.state).clients.insert(
            id,
            FoxClient {
                outbox,
                wants_graph: false,
            },
        );
    }

    pub fn remove_client(&self, id: u64) {
        lock(&self.state).clients.remove(&id);
    }

    /// Turns connection-graph updates on or off for a client; on: it gets
    /// the whole graph at once.
    pub fn watch_graph(&self, id: u64, on: bool) {
        let mut s = lock(&self.state);
        let full = graph_update(&ConnectionGraph::default(), &s.graph);
        if let Some(c) = s.clients.get_mut(&id) {
            c.wants_graph = on;
            if on {
                c.outbox.push_control(full);
            }
        }
    }

    /// Sends a frame to every Foxglove client.
    pub fn broadcast(&self, frame: &Frame) {
        for c in lock(&self.state).clients.values() {
            c.outbox.push_control(frame.clone());
        }
    }

    /// Re-reads the graph and tells the clients what changed.
    pub fn refresh(&self, core: &Core) {
        let Scan {
            topics,
            services,
            graph,
        } = scan(core);
        let mut s = lock(&self.state);
        let mut channels = BTreeMap::new();
        for (topic, ty) in topics {
            let id = s.id_for(&topic, &ty);
            channels.insert(
                id,
                Channel {
                    id,
                    topic,
                    type_name: ty,
                },
            );
        }
        let mut new_services = BTreeMap::new();
        for (name, ty) in services {
            let id = s.id_for(&name, &ty);
            new_services.insert(
                id,
                ServiceEntry {
                    id,
                    name,
                    type_name: ty,
                },
            );
        }
        let mut frames = Vec::new();
        let gone: Vec<u32> = s
            .channels
            .keys()
            .filter(|id| !channels.contains_key(id))
            .copied()
            .collect();
        if !gone.is_empty() {
            frames.push(text(json!({"op": "unadvertise", "channelIds": gone})));
        }
        let came: Vec<Json> = channels
            .values()
            .filter(|c| !s.channels.contains_key(&c.id))
            .map(|c| channel_json(core, c))
            .collect();
        if !came.is_empty() {
            frames.push(text(json!({"op": "advertise", "channels": came})));
        }
        let gone: Vec<u32> = s
            .services
            .keys()
            .filter(|id| !new_services.contains_key(id))
            .copied()
            .collect();
        if !gone.is_empty() {
            frames.push(text(
                json!({"op": "unadvertiseServices", "serviceIds": gone}),
            ));
        }
        let came: Vec<Json> = new_services
            .values()
            .filter(|v| !s.services.contains_key(&v.id))
            .map(|v| service_json(core, v))
            .collect();
        if !came.is_empty() {
            frames.push(text(json!({"op": "advertiseServices", "services": came})));
        }
        let graph_frame = (graph != s.graph).then(|| graph_update(&s.graph, &graph));
        // Forget the ids of what is gone (a channel that comes back gets a
        // new one), so the table follows the graph, not its history.
        s.ids
            .retain(|_, id| channels.contains_key(id) || new_services.contains_key(id));
        s.channels = channels;
        s.services = new_services;
        s.graph = graph;
        for c in s.clients.values() {
            for f in &frames {
                c.outbox.push_control(f.clone());
            }
            if let (true, Some(g)) = (c.wants_graph, &graph_frame) {
                c.outbox.push_control(g.clone());
            }
        }
    }
}

fn channel_json(core: &Core, c: &Channel) -> Json {
    json!({
        "id": c.id,
        "topic": c.topic,
        "encoding": "cdr",
        "schemaName": c.type_name,
        "schema": core.schema_text(&c.type_name),
        "schemaEncoding": "ros2msg",
    })
}

fn service_json(core: &Core, v: &ServiceEntry) -> Json {
    let request = format!("{}_Request", v.type_name);
    let response = format!("{}_Response", v.type_name);
    let (req_schema, res_schema) = (core.schema_text(&request), core.schema_text(&response));
    json!({
        "id": v.id,
        "name": v.name,
        "type": v.type_name,
        "request": {"encoding": "cdr", "schemaName": request, "schemaEncoding": "ros2msg", "schema": req_schema},
        "response": {"encoding": "cdr", "schemaName": response, "schemaEncoding": "ros2msg", "schema": res_schema},
        "requestSchema": req_schema,
        "responseSchema": res_schema,
    })
}

fn graph_update(old: &ConnectionGraph, new: &ConnectionGraph) -> Frame {
    let list = |m: &BTreeMap<String, BTreeSet<String>>, key: &str| -> Vec<Json> {
        m.iter()
            .map(|(name, ids)| json!({"name": name, key: ids}))
            .collect()
    };
    let removed =
        |o: &BTreeMap<String, BTreeSet<String>>,
         n: &BTreeMap<String, BTreeSet<String>>|
         -> Vec<String> { o.keys().filter(|k| !n.contains_key(*k)).cloned().collect() };
    let mut removed_topics = removed(&old.published, &new.published);
    removed_topics.extend(removed(&old.subscribed, &new.subscribed));
    removed_topics.sort();
    removed_topics.dedup();
    text(json!({
        "op": "connectionGraphUpdate",
        "publishedTopics": list(&new.published, "publisherIds"),
        "subscribedTopics": list(&new.subscribed, "subscriberIds"),
        "advertisedServices": list(&new.services, "providerIds"),
        "removedTopics": removed_topics,
        "removedServices": removed(&old.services, &new.services),
    }))
}
