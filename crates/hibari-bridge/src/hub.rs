//! One hibari subscription per topic, shared by every client that wants it.
//!
//! A [`Feed`] is the bridge's generic subscription to one topic and the list
//! of client rings ("sinks") it feeds. Each sample is wrapped once in a
//! shared [`Sample`] and pushed to each sink's ring — a push never waits
//! and encodes nothing, so a slow client never slows the feed or the other
//! clients, and the executor thread never spends time on JSON. The sample
//! is decoded at most once and encoded at most once per encoding, by the
//! client writers that send it. The subscription goes when the last sink
//! does.
//!
//! The subscription's QoS adapts to the publishers present when it is made,
//! as rosbridge's does: reliable unless a publisher is best effort,
//! transient-local if a publisher is. A client joining a transient-local
//! feed gets the publishers' kept samples from a short-lived extra
//! subscription of its own, as rosbridge does, so each new client still
//! sees the latched message.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use hibari::interfaces::{Registry, TypeName};
use hibari::{
    CdrBytes, Durability, Node, QosProfile, Reliability, SampleInfo, Serialized, Subscription,
};

use crate::encode::{Encoding, Sample};
use crate::outbox::{Frame, Outbox};

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One client ring fed by a feed.
#[derive(Clone)]
pub(crate) struct Sink {
    pub ring: u64,
    pub outbox: Arc<Outbox>,
    pub encoding: Encoding,
    /// The topic as the client spelled it, when that is not the resolved
    /// name (its frames are then made for it alone).
    pub alias: Option<Arc<str>>,
}

pub(crate) struct Feed {
    pub topic: String,
    pub type_name: String,
    topic_arc: Arc<str>,
    ty: Option<Arc<TypeName>>,
    qos: QosProfile,
    registry: Arc<Registry>,
    /// Copied on write, so a sample is delivered without holding the lock.
    sinks: Mutex<Arc<Vec<Sink>>>,
}

impl Feed {
    fn new(
        topic: &str,
        type_name: &str,
        qos: QosProfile,
        registry: Arc<Registry>,
        sinks: Vec<Sink>,
    ) -> Feed {
        Feed {
            topic: topic.into(),
            type_name: type_name.into(),
            topic_arc: Arc::from(topic),
            ty: TypeName::parse(type_name).map(Arc::new),
            qos,
            registry,
            sinks: Mutex::new(Arc::new(sinks)),
        }
    }

    /// Queues the sample for every sink; nothing is encoded here.
    fn deliver(&self, bytes: CdrBytes, received_ns: i64) {
        let sinks = lock(&self.sinks).clone();
        if sinks.is_empty() {
            return;
        }
        let sample = Arc::new(Sample::new(
            self.topic_arc.clone(),
            self.ty.clone(),
            self.registry.clone(),
            bytes.to_vec(),
            received_ns,
        ));
        let now = Instant::now();
        for sink in sinks.iter() {
            let frame = Frame::Sample(sample.clone(), sink.encoding, sink.alias.clone());
            sink.outbox.push_data(sink.ring, frame, now);
        }
    }
}

/// Why a client could not be attached to a topic.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AttachError {
    #[error("`{topic}` is already subscribed as `{existing}`, not `{requested}`")]
    TypeConflict {
        topic: String,
        existing: String,
        requested: String,
    },
    #[error("cannot subscribe to `{topic}`: {reason}")]
    Subscribe { topic: String, reason: String },
}

struct Entry {
    feed: Arc<Feed>,
    _subscription: Subscription<Serialized>,
}

/// The feeds by resolved topic name.
#[derive(Default)]
pub(crate) struct Hub {
    feeds: Mutex<HashMap<String, Entry>>,
}

/// rosbridge's subscriber QoS: depth, reliable and volatile unless a
/// publisher present is best effort or transient-local.
fn adapted_qos(node: &Node, topic: &str) -> QosProfile {
    let mut qos = QosProfile::default().keep_last(100);
    for publisher in node.get_publishers_info_by_topic(topic).unwrap_or_default() {
        if publisher.qos.durability == Durability::TransientLocal {
            qos = qos.transient_local();
        }
        if publisher.qos.reliability == Reliability::BestEffort {
            qos = qos.best_effort();
        }
    }
    qos
}

impl Hub {
    /// Feeds `sink` from `topic` (resolved) of `type_name`, creating the
    /// subscription if this is the topic's first sink.
    pub fn attach(
        &self,
        node: &Node,
        registry: &Arc<Registry>,
        topic: &str,
        type_name: &str,
        sink: Sink,
    ) -> Result<(), AttachError> {
        let mut feeds = lock(&self.feeds);
        if let Some(entry) = feeds.get(topic) {
            let feed = entry.feed.clone();
            drop(feeds);
            if feed.type_name != type_name {
                return Err(AttachError::TypeConflict {
                    topic: topic.into(),
                    existing: feed.type_name.clone(),
                    requested: type_name.into(),
                });
            }
            let mut sinks = lock(&feed.sinks);
            let mut list: Vec<Sink> = sinks
                .iter()
                .filter(|s| s.ring != sink.ring)
                .cloned()
                .collect();
            list.push(sink.clone());
            *sinks = Arc::new(list);
            drop(sinks);
            if feed.qos.durability == Durability::TransientLocal {
                replay_history(node, &feed, &sink);
            }
            return Ok(());
        }
        let qos = adapted_qos(node, topic);
        let feed = Arc::new(Feed::new(
            topic,
            type_name,
            qos,
            registry.clone(),
            vec![sink],
        ));
        let f = feed.clone();
        let subscription = node
            .create_generic_subscription(
                topic,
                type_name,
                qos,
                move |bytes: CdrBytes, info: SampleInfo| {
                    f.deliver(bytes, info.reception_timestamp_ns);
                },
            )
            .map_err(|e| AttachError::Subscribe {
                topic: topic.into(),
                reason: e.to_string(),
            })?;
        feeds.insert(
            topic.into(),
            Entry {
                feed,
                _subscription: subscription,
            },
        );
        Ok(())
    }

    /// Changes the encoding (or alias) of `ring` on `topic`.
    pub fn update(&self, topic: &str, ring: u64, encoding: Encoding, alias: Option<Arc<str>>) {
        let feed = lock(&self.feeds).get(topic).map(|e| e.feed.clone());
        if let Some(feed) = feed {
            let mut sinks = lock(&feed.sinks);
            let list: Vec<Sink> = sinks
                .iter()
                .map(|s| {
                    let mut s = s.clone();
                    if s.ring == ring {
                        s.encoding = encoding;
                        s.alias = alias.clone();
                    }
                    s
                })
                .collect();
            *sinks = Arc::new(list);
        }
    }

    /// Stops feeding `ring` from `topic`; the subscription goes with the
    /// topic's last sink.
    pub fn detach(&self, topic: &str, ring: u64) {
        let mut feeds = lock(&self.feeds);
        let Some(entry) = feeds.get(topic) else {
            return;
        };
        let mut sinks = lock(&entry.feed.sinks);
        let list: Vec<Sink> = sinks.iter().filter(|s| s.ring != ring).cloned().collect();
        let empty = list.is_empty();
        *sinks = Arc::new(list);
        drop(sinks);
        if empty {
            let gone = feeds.remove(topic);
            drop(feeds);
            drop(gone); // the subscription is dropped outside the lock
        }
    }

    /// The type a topic is fed as, if it is.
    pub fn type_of(&self, topic: &str) -> Option<String> {
        lock(&self.feeds)
            .get(topic)
            .map(|e| e.feed.type_name.clone())
    }

    /// How many topics are fed now.
    pub fn len(&self) -> usize {
        lock(&self.feeds).len()
    }
}

/// Gives `sink` the samples the topic's transient-local publishers kept.
fn replay_history(node: &Node, feed: &Feed, sink: &Sink) {
    let Ok(late) = node.create_generic_polled_subscription(&feed.topic, &feed.type_name, feed.qos)
    else {
        return;
    };
    let only = Feed::new(
        &feed.topic,
        &feed.type_name,
        feed.qos,
        feed.registry.clone(),
        vec![sink.clone()],
    );
    while let Some((bytes, info)) = late.take() {
        only.deliver(bytes, info.reception_timestamp_ns);
    }
}
