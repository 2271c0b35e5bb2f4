//! Domains and topics: who is on a topic, and matching.
//!
//! A domain maps topic names to topics; a topic lists its writers and
//! readers. Both locks are taken only when endpoints come and go — never on
//! the write path, which works from each writer's snapshot of its matched
//! readers. Lock order: domain → topic → writer's `publish` → writer's
//! matched list → reader's queue. Wakers run after every lock is released.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use hibari_transport::{
    check_compatibility, DomainId, EndpointId, EndpointKind, EndpointSpec, Incompatibility,
    NodeInfo, ReaderOptions, WriterOptions,
};

use crate::graph::GraphState;
use crate::reader::{InprocReader, ReaderShared};
use crate::state::{lock, wake_all, Wake};
use crate::writer::{InprocWriter, WriterShared};

pub(crate) struct Domain {
    pub id: DomainId,
    topics: Mutex<HashMap<String, Arc<Topic>>>,
    pub graph: GraphState,
}

pub(crate) struct Topic {
    state: Mutex<TopicState>,
}

#[derive(Default)]
struct TopicState {
    writers: Vec<Arc<WriterShared>>,
    readers: Vec<Arc<ReaderShared>>,
    /// Removed from its domain: endpoints must look the topic up again.
    dead: bool,
}

impl TopicState {
    fn is_empty(&self) -> bool {
        self.writers.is_empty() && self.readers.is_empty()
    }
}

/// The process-wide domains, shared by every `InprocTransport::open`.
fn domains() -> &'static Mutex<HashMap<DomainId, Weak<Domain>>> {
    static DOMAINS: OnceLock<Mutex<HashMap<DomainId, Weak<Domain>>>> = OnceLock::new();
    DOMAINS.get_or_init(Default::default)
}

impl Domain {
    /// The process's domain `id`, created on first use, dropped with its
    /// last transport and endpoint.
    pub fn shared(id: DomainId) -> Arc<Domain> {
        let mut all = lock(domains());
        if let Some(d) = all.get(&id).and_then(Weak::upgrade) {
            return d;
        }
        all.retain(|_, d| d.strong_count() > 0);
        let d = Domain::private(id);
        all.insert(id, Arc::downgrade(&d));
        d
    }

    /// A domain no `open` call can reach.
    pub fn private(id: DomainId) -> Arc<Domain> {
        Arc::new(Domain {
            id,
            topics: Mutex::default(),
            graph: GraphState::default(),
        })
    }

    /// Runs `f` on the live topic `name` (created if need be) under its lock.
    fn with_topic<R>(&self, name: &str, f: impl FnOnce(&Arc<Topic>, &mut TopicState) -> R) -> R {
        loop {
            let topic = lock(&self.topics)
                .entry(name.to_owned())
                .or_insert_with(|| {
                    Arc::new(Topic {
                        state: Mutex::default(),
                    })
                })
                .clone();
            let mut state = lock(&topic.state);
            if !state.dead {
                return f(&topic, &mut state);
            }
        }
    }

    /// Calls `f` for every writer and reader of the domain.
    pub fn for_each_endpoint(
        &self,
        mut f: impl FnMut(EndpointKind, EndpointId, &Option<NodeInfo>, &EndpointSpec),
    ) {
        let topics: Vec<Arc<Topic>> = lock(&self.topics).values().cloned().collect();
        for topic in topics {
            let state = lock(&topic.state);
            for w in &state.writers {
                f(EndpointKind::Writer, w.id, &w.node, &w.spec);
            }
            for r in &state.readers {
                f(EndpointKind::Reader, r.id, &r.node, &r.spec);
            }
        }
    }

    /// Drops `topic` from the domain if no endpoint uses it any more.
    fn release(&self, name: &str, topic: &Arc<Topic>) {
        let mut topics = lock(&self.topics);
        let mut state = lock(&topic.state);
        if state.is_empty() && !state.dead {
            state.dead = true;
            if topics.get(name).is_some_and(|t| Arc::ptr_eq(t, topic)) {
                topics.remove(name);
            }
        }
    }

    pub fn create_writer(
        self: &Arc<Self>,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> InprocWriter {
        let w = Arc::new(WriterShared::new(spec, options));
        let mut wake = Vec::new();
        let topic = self.with_topic(&spec.topic, |topic, state| {
            for r in &state.readers {
                pair(&w, r, false, &mut wake);
            }
            state.writers.push(w.clone());
            topic.clone()
        });
        wake_all(wake);
        self.graph.changed();
        InprocWriter {
            shared: w,
            topic,
            domain: self.clone(),
        }
    }

    pub fn create_reader(
        self: &Arc<Self>,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> InprocReader {
        let r = Arc::new(ReaderShared::new(spec, options));
        let mut wake = Vec::new();
        let topic = self.with_topic(&spec.topic, |topic, state| {
            for w in &state.writers {
                pair(w, &r, true, &mut wake);
            }
            state.readers.push(r.clone());
            topic.clone()
        });
        wake_all(wake);
        self.graph.changed();
        InprocReader {
            shared: r,
            topic,
            domain: self.clone(),
        }
    }

    pub fn remove_writer(&self, topic: &Arc<Topic>, w: &Arc<WriterShared>) {
        let mut wake = Vec::new();
        let empty = {
            let mut state = lock(&topic.state);
            state.writers.retain(|x| !Arc::ptr_eq(x, w));
            for r in w.take_matched().iter() {
                wake.extend(r.state.on_unmatched(w.id));
                r.forget_writer(w.id);
            }
            for r in &state.readers {
                r.state.forget(w.id);
            }
            state.is_empty()
        };
        if empty {
            self.release(&w.spec.topic, topic);
        }
        wake_all(wake);
        self.graph.changed();
    }

    pub fn remove_reader(&self, topic: &Arc<Topic>, r: &Arc<ReaderShared>) {
        let mut wake = Vec::new();
        let empty = {
            let mut state = lock(&topic.state);
            state.readers.retain(|x| !Arc::ptr_eq(x, r));
            for w in &state.writers {
                if w.remove_matched(r) {
                    wake.extend(w.state.on_unmatched(r.id));
                }
                w.state.forget(r.id);
            }
            state.is_empty()
        };
        if empty {
            self.release(&r.spec.topic, topic);
        }
        wake_all(wake);
        self.graph.changed();
    }
}

/// Matches a writer and a reader of one topic, or records on both sides why
/// not. A transient-local reader joining late (`late_joiner`) first gets the
/// writer's history, under the writer's `publish` lock so that no write falls
/// between the history and the live stream.
fn pair(w: &Arc<WriterShared>, r: &Arc<ReaderShared>, late_joiner: bool, wake: &mut Vec<Wake>) {
    let why = if !w.spec.same_type(&r.spec) {
        Some((
            Incompatibility::Type {
                type_name: r.spec.type_name.clone(),
                type_hash: r.spec.type_hash.clone(),
            },
            Incompatibility::Type {
                type_name: w.spec.type_name.clone(),
                type_hash: w.spec.type_hash.clone(),
            },
        ))
    } else {
        check_compatibility(&w.spec.qos, &r.spec.qos)
            .err()
            .map(|q| (Incompatibility::Qos(q.clone()), Incompatibility::Qos(q)))
    };
    if let Some((for_writer, for_reader)) = why {
        wake.extend(w.state.on_incompatible(r.id, for_writer));
        wake.extend(r.state.on_incompatible(w.id, for_reader));
        return;
    }
    if late_joiner && w.transient_local && r.transient_local {
        let publish = lock(&w.publish);
        r.push_history(publish.history.iter());
        w.add_matched(r);
    } else {
        w.add_matched(r);
    }
    wake.extend(w.state.on_matched(r.id));
    wake.extend(r.state.on_matched(w.id));
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari_transport::{Endpoint, QosProfile};

    #[derive(Clone, Debug, Default, PartialEq)]
    struct M;
    impl hibari_transport::TypeAdapter for M {
        type Custom = M;
        type Ros = hibari_transport::conformance::Probe;
        fn to_ros(_: &M) -> Self::Ros {
            Self::Ros::default()
        }
        fn from_ros(_: &Self::Ros) -> M {
            M
        }
    }

    fn topics(d: &Domain) -> usize {
        lock(&d.topics).len()
    }

    #[test]
    fn a_topic_is_released_with_its_last_endpoint_and_recreated_on_demand() {
        let d = Domain::private(0);
        let spec = EndpointSpec::new::<M>("/t", QosProfile::default());
        let w = d.create_writer(&spec, &WriterOptions::default());
        let r = d.create_reader(&spec, &ReaderOptions::default());
        assert_eq!(topics(&d), 1);
        drop(w);
        assert_eq!(topics(&d), 1);
        drop(r);
        assert_eq!(topics(&d), 0);
        let r = d.create_reader(&spec, &ReaderOptions::default());
        let w = d.create_writer(&spec, &WriterOptions::default());
        assert_eq!(
            (topics(&d), r.matched_count(), w.matched_count()),
            (1, 1, 1)
        );
    }

    #[test]
    fn open_shares_a_domain_while_it_is_alive() {
        let a = Domain::shared(9_999_001);
        let b = Domain::shared(9_999_001);
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &Domain::private(9_999_001)));
    }
}
