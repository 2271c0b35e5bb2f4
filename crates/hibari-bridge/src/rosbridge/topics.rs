//! rosbridge's topic ops: advertise, unadvertise, publish, subscribe,
//! unsubscribe (bridge.md §1.2, checklist P1–P3, S1–S6).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use hibari::dynamic::{self, FromJsonOptions};
use hibari::interfaces::TypeName;
use hibari::{Publisher, QosProfile, Serialized};
use serde_json::{Map, Value as Json};

use super::args::{failed, normalize_type, Op, OpError};
use super::Session;
use crate::encode::Encoding;
use crate::hub::Sink;
use crate::outbox::RingSettings;

/// A topic a client publishes on.
pub(crate) struct ClientPub {
    ty: TypeName,
    publisher: Arc<Publisher<Serialized>>,
    resolved: String,
    ids: HashSet<String>,
}

/// One subscription of a client's to a topic (rosbridge's "sid"s merged).
#[derive(Default, Clone, Copy)]
struct SidParams {
    throttle_ms: u64,
    queue_length: u64,
    encoding: Option<Encoding>,
}

/// A client's subscription to one topic: its ring and its sids.
pub(crate) struct ClientSub {
    pub ring: u64,
    sids: HashMap<String, SidParams>,
    /// The topic as the client spelled it, if not resolved already.
    alias: Option<Arc<str>>,
}

impl Session {
    /// Refuses a topic `topics_glob` keeps out, with rosbridge's words
    /// (`action`: "subscription to", "advertisement of"…). Free when no
    /// `topics_glob` is set.
    fn check_topic(&self, given: &str, action: &str) -> Result<(), OpError> {
        if self.core.topic_globs.is_none() {
            return Ok(());
        }
        let resolved = self
            .core
            .resolve(given)
            .unwrap_or_else(|_| given.to_owned());
        if self.core.topic_allowed(given, &resolved) {
            return Ok(());
        }
        Err(OpError::Denied(format!(
            "No match found for topic, cancelling {action}: {given}"
        )))
    }

    /// Whether the registry defines the message type `type_name`.
    fn knows_message(&self, type_name: &str) -> bool {
        TypeName::parse(type_name).is_some_and(|t| self.core.registry.message(&t).is_some())
    }

    /// The graph's type of `topic` checked against the one the client gave
    /// (if any): the inferred or the given type, or why neither will do.
    fn topic_type(&self, topic: &str, given: Option<&str>) -> Result<String, OpError> {
        let given = match given {
            Some(g) => Some(normalize_type(g, "msg").ok_or_else(|| {
                failed(format!(
                    "`{g}` is not a message type name (write `pkg/msg/Type`)"
                ))
            })?),
            None => None,
        };
        let mut known = self.core.topic_types(topic);
        if let Some(t) = self.core.publishers.type_of(topic) {
            known.push(t);
        }
        if let Some(t) = self.core.hub.type_of(topic) {
            known.push(t);
        }
        known.sort();
        known.dedup();
        match (given, known.as_slice()) {
            // A type the graph does not vouch for must be one the bridge
            // knows, as rosbridge loads it (bridge.md E5).
            (Some(g), []) if !self.knows_message(&g) => Err(failed(format!(
                "unknown message type `{g}`: add its definition to the bridge's interface path"
            ))),
            (Some(g), []) => Ok(g),
            (Some(g), k) if k.contains(&g) => Ok(g),
            (Some(g), k) => Err(failed(format!(
                "type conflict on `{topic}`: it has type {}, not `{g}`",
                k.join(", ")
            ))),
            (None, [one]) => Ok(one.clone()),
            (None, []) => Err(failed(format!(
                "cannot infer the type of `{topic}`: nothing publishes or subscribes it; give a `type`"
            ))),
            (None, many) => Err(failed(format!(
                "cannot infer the type of `{topic}`: it has several ({}); give a `type`",
                many.join(", ")
            ))),
        }
    }

    pub(super) fn advertise(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let topic = op.str("topic")?;
        let given = op.str("type")?;
        let latch = op.opt_bool("latch")?.unwrap_or(false);
        let queue_size = op.opt_uint("queue_size")?.unwrap_or(100);
        let id = op.id_key()?;
        self.check_topic(topic, "advertisement of")?;
        self.register_publisher(topic, Some(given), &id, latch, queue_size)
    }

    fn register_publisher(
        &mut self,
        topic: &str,
        given: Option<&str>,
        id: &str,
        latch: bool,
        queue_size: u64,
    ) -> Result<(), OpError> {
        let resolved = self.core.resolve(topic).map_err(failed)?;
        let type_name = self.topic_type(&resolved, given)?;
        let ty = TypeName::parse(&type_name).ok_or_else(|| failed("bad type name"))?;
        if self.core.registry.message(&ty).is_none() {
            return Err(failed(format!(
                "unknown message type `{type_name}`: add its package to HIBARI_INTERFACE_PATH"
            )));
        }
        // rosbridge's publisher QoS: reliable, transient-local, depth
        // `queue_size`, lifespan 1 s; latched: depth 1, no lifespan.
        let qos = if latch {
            QosProfile::default().transient_local().keep_last(1)
        } else {
            QosProfile::default()
                .transient_local()
                .keep_last(queue_size.clamp(1, 1 << 20) as usize)
                .lifespan(Duration::from_secs(1))
        };
        let publisher = self
            .core
            .publishers
            .register(&self.core.node, self.id, id, &resolved, &type_name, qos)
            .map_err(failed)?;
        let entry = self
            .pubs
            .entry(topic.to_owned())
            .or_insert_with(|| ClientPub {
                ty,
                publisher,
                resolved,
                ids: HashSet::new(),
            });
        entry.ids.insert(id.to_owned());
        Ok(())
    }

    pub(super) fn unadvertise(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let topic = op.str("topic")?;
        let id = op.id()?.map(super::args::id_key);
        self.check_topic(topic, "unadvertisement of")?;
        let Some(entry) = self.pubs.get_mut(topic) else {
            return Ok(()); // rosbridge ignores unknown topics
        };
        let still = self.core.publishers.unregister(
            &self.core.runtime,
            self.core.config.unregister_timeout,
            self.id,
            &entry.resolved,
            id.as_deref(),
        );
        match &id {
            Some(id) => {
                entry.ids.remove(id);
            }
            None => entry.ids.clear(),
        }
        if !still || entry.ids.is_empty() {
            self.pubs.remove(topic);
        }
        Ok(())
    }

    pub(super) fn publish(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let topic = op.str("topic")?;
        // A topic with a publisher passed the check (the globs never
        // change), so only a first publish is checked.
        if !self.pubs.contains_key(topic) {
            self.check_topic(topic, "publish to")?;
            let latch = op.opt_bool("latch")?.unwrap_or(false);
            let queue_size = op.opt_uint("queue_size")?.unwrap_or(100);
            self.register_publisher(topic, None, "", latch, queue_size)?;
        }
        let Some(entry) = self.pubs.get(topic) else {
            return Ok(());
        };
        let empty = Json::Object(Map::new());
        let msg = op.get("msg").unwrap_or(&empty);
        let (sec, nanosec) = self.core.now();
        let options = FromJsonOptions::default().with_now(sec, nanosec);
        let value = dynamic::from_json_with(&*self.core.registry, &entry.ty, msg, &options)
            .map_err(|e| failed(format!("`{topic}`: {e}")))?;
        let bytes = dynamic::encode(&*self.core.registry, &entry.ty, &value)
            .map_err(|e| failed(format!("`{topic}`: {e}")))?;
        entry
            .publisher
            .publish(bytes)
            .map_err(|e| failed(format!("`{topic}`: {e}")))?;
        self.core.counters.published.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    pub(super) fn subscribe(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let topic = op.str("topic")?;
        let given = op.opt_str("type")?;
        let sid = op.id_key()?;
        let compression = op.opt_str("compression")?.unwrap_or("none");
        let encoding = Encoding::from_compression(compression).ok_or(OpError::InvalidArgument {
            op: "subscribe".into(),
            field: "compression",
            expected: "one of none, png, cbor, cbor-raw",
        })?;
        let params = SidParams {
            throttle_ms: op.opt_uint("throttle_rate")?.unwrap_or(0),
            queue_length: op.opt_uint("queue_length")?.unwrap_or(0),
            encoding: Some(encoding),
        };
        self.check_topic(topic, "subscription to")?;
        let resolved = self.core.resolve(topic).map_err(failed)?;
        let type_name = self.topic_type(&resolved, given)?;
        let alias: Option<Arc<str>> = (resolved != topic).then(|| Arc::from(topic));
        if let Some(sub) = self.subs.get_mut(&resolved) {
            sub.sids.insert(sid, params);
            let (settings, encoding) = self.merged(&resolved);
            let ring = self.subs[&resolved].ring;
            self.out.set_ring(ring, settings);
            self.core.hub.update(&resolved, ring, encoding, alias);
            return Ok(());
        }
        let ring = self.core.next_id();
        let mut sub = ClientSub {
            ring,
            sids: HashMap::new(),
            alias: alias.clone(),
        };
        sub.sids.insert(sid, params);
        self.subs.insert(resolved.clone(), sub);
        let (settings, encoding) = self.merged(&resolved);
        self.out.set_ring(ring, settings);
        let sink = Sink {
            ring,
            outbox: self.out.clone(),
            encoding,
            alias,
        };
        let attached = self.core.hub.attach(
            &self.core.node,
            &self.core.registry,
            &resolved,
            &type_name,
            sink,
        );
        if let Err(e) = attached {
            self.subs.remove(&resolved);
            self.out.remove_ring(ring);
            return Err(failed(e));
        }
        Ok(())
    }

    /// The ring settings and encoding of a topic's sids merged as rosbridge
    /// merges them: the smallest throttle and queue, the highest-ranked
    /// compression (TCP clients get JSON: they cannot frame binary).
    fn merged(&self, topic: &str) -> (RingSettings, Encoding) {
        let sids = &self.subs[topic].sids;
        let throttle = sids.values().map(|p| p.throttle_ms).min().unwrap_or(0);
        let queue = sids.values().map(|p| p.queue_length).min().unwrap_or(0);
        let mut encoding = sids
            .values()
            .filter_map(|p| p.encoding)
            .max_by_key(|e| e.rank())
            .unwrap_or(Encoding::Json);
        if self.tcp && matches!(encoding, Encoding::Cbor | Encoding::CborRaw) {
            encoding = Encoding::Json;
        }
        let settings = RingSettings {
            depth: if queue > 0 {
                queue as usize
            } else {
                self.core.config.queue_depth
            },
            throttle: Duration::from_millis(throttle),
            drop_too_soon: queue == 0,
        };
        (settings, encoding)
    }

    pub(super) fn unsubscribe(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let topic = op.str("topic")?;
        let id = op.id()?.map(super::args::id_key);
        let resolved = self.core.resolve(topic).map_err(failed)?;
        let Some(sub) = self.subs.get_mut(&resolved) else {
            return Ok(()); // rosbridge ignores unknown topics
        };
        match id {
            Some(id) => {
                sub.sids.remove(&id);
            }
            None => sub.sids.clear(),
        }
        if sub.sids.is_empty() {
            let ring = sub.ring;
            self.subs.remove(&resolved);
            self.core.hub.detach(&resolved, ring);
            self.out.remove_ring(ring);
        } else {
            let (settings, encoding) = self.merged(&resolved);
            let sub = &self.subs[&resolved];
            self.out.set_ring(sub.ring, settings);
            self.core
                .hub
                .update(&resolved, sub.ring, encoding, sub.alias.clone());
        }
        Ok(())
    }
}
