//! A writer: sequence numbers, the transient-local history, and the write path.
//!
//! A write holds the writer's `publish` lock from numbering to the last push,
//! so that a writer shared by several threads still delivers in sequence
//! order. It takes a snapshot of the matched readers (an `Arc` clone: no
//! lock is held on the routing table while samples move), then:
//!
//! 1. reserves room in every reliable reader but the last, waiting as
//!    [`WhenFull`] allows;
//! 2. waits for room in the last reliable reader and pushes there;
//! 3. pushes into the reserved slots and the best-effort readers.
//!
//! Nothing is pushed before every reliable reader has room, so a failed write
//! reaches no reader. Each reader gets a clone of the payload's `Arc` except
//! the last, which gets the original: with one reader, the sample is moved.
//! Wakers run after the `publish` lock is released.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use hibari_transport::{
    now_ns, Durability, Endpoint, EndpointEvent, EndpointId, EndpointSpec, EndpointStatus, History,
    Notify, Payload, WhenFull, WriteError, Writer, WriterOptions,
};

use crate::reader::{Entry, Meta, ReaderShared, Wait, NEVER};
use crate::registry::{Domain, Topic};
use crate::state::{lock, wake_all, EndpointState};

pub(crate) type Readers = Arc<[Arc<ReaderShared>]>;

pub(crate) struct Publish {
    sequence: u64,
    /// The last samples, kept for late joiners when transient local.
    pub history: VecDeque<Entry>,
    /// The matched readers as of `version` (`None` only during a write).
    readers: Option<Readers>,
    version: u64,
}

pub(crate) struct WriterShared {
    pub id: EndpointId,
    pub spec: EndpointSpec,
    /// The node it belongs to (for the graph).
    pub node: Option<hibari_transport::NodeInfo>,
    pub transient_local: bool,
    history_capacity: usize,
    when_full: WhenFull,
    lifespan_ns: Option<i64>,
    pub publish: Mutex<Publish>,
    /// Matched readers, replaced (never mutated) on match changes, each
    /// change bumping `matched_version` so writes refresh their copy.
    matched: Mutex<Readers>,
    matched_version: AtomicU64,
    history_len: AtomicUsize,
    pub state: EndpointState,
}

impl WriterShared {
    pub fn new(spec: &EndpointSpec, options: &WriterOptions) -> Self {
        let transient_local = spec.qos.durability == Durability::TransientLocal;
        let history_capacity = match (transient_local, spec.qos.history) {
            (false, _) => 0,
            (true, History::KeepLast(n)) => n,
            (true, History::KeepAll) => options.limits.max_samples,
        };
        WriterShared {
            id: options.id.unwrap_or_else(EndpointId::random),
            spec: spec.clone(),
            node: options.node.clone(),
            transient_local,
            history_capacity,
            when_full: options.when_full,
            lifespan_ns: spec
                .qos
                .lifespan
                .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
            publish: Mutex::new(Publish {
                sequence: 0,
                history: VecDeque::with_capacity(history_capacity.min(1024)),
                readers: Some(Arc::from([])),
                version: 0,
            }),
            matched: Mutex::new(Arc::from([])),
            matched_version: AtomicU64::new(0),
            history_len: AtomicUsize::new(0),
            state: EndpointState::default(),
        }
    }

    pub fn add_matched(&self, reader: &Arc<ReaderShared>) {
        let mut m = lock(&self.matched);
        let mut v = m.to_vec();
        v.push(reader.clone());
        *m = v.into();
        self.matched_version.fetch_add(1, Ordering::Release);
    }

    /// Removes a reader; returns whether it was matched.
    pub fn remove_matched(&self, reader: &Arc<ReaderShared>) -> bool {
        let mut m = lock(&self.matched);
        if !m.iter().any(|r| Arc::ptr_eq(r, reader)) {
            return false;
        }
        *m = m
            .iter()
            .filter(|r| !Arc::ptr_eq(r, reader))
            .cloned()
            .collect();
        self.matched_version.fetch_add(1, Ordering::Release);
        true
    }

    pub fn take_matched(&self) -> Readers {
        let mut m = lock(&self.matched);
        self.matched_version.fetch_add(1, Ordering::Release);
        std::mem::replace(&mut *m, Arc::from([]))
    }

    fn write(&self, payload: Payload) -> Result<(), WriteError> {
        let mut publish = lock(&self.publish);
        let version = self.matched_version.load(Ordering::Acquire);
        if version != publish.version {
            publish.readers = Some(lock(&self.matched).clone());
            publish.version = version;
        }
        // Moved out of the guard (not counted, not allocated); put back below.
        let readers = match publish.readers.take() {
            Some(readers) => readers,
            None => lock(&self.matched).clone(), // a write panicked midway
        };
        let source_ns = now_ns();
        let mut wait = Wait::new(self.when_full);
        let mut wake = false;

        // 1. Room in every reliable reader but the last.
        let last_reliable = readers.iter().rposition(|r| r.reliable);
        let before_last = &readers[..last_reliable.unwrap_or(0)];
        for (i, r) in before_last.iter().enumerate() {
            if r.reliable {
                if let Err(why) = r.reserve(&mut wait) {
                    unreserve(&before_last[..i]);
                    publish.readers = Some(readers);
                    return Err(wait.error(why, payload));
                }
            }
        }

        let mut meta = Meta {
            sequence: publish.sequence + 1,
            source_ns,
            reception_ns: if wait.waited { now_ns() } else { source_ns },
            publisher: self.id,
            expires_at: self
                .lifespan_ns
                .map_or(NEVER, |l| source_ns.saturating_add(l)),
        };
        let mut fan = Fanout {
            payload: Some(payload),
            left: readers.len() + usize::from(self.transient_local),
        };

        // 2. The last reliable reader: wait for room and push, one lock.
        if let Some(k) = last_reliable {
            let waited_before = wait.waited;
            let entry = Entry {
                payload: fan.next(),
                meta,
            };
            match readers[k].push_waiting(entry, &mut wait) {
                Ok(edge) => wake = edge,
                Err((why, entry)) => {
                    unreserve(before_last);
                    publish.readers = Some(readers);
                    let back = fan.payload.take().unwrap_or(entry.payload);
                    return Err(wait.error(why, back));
                }
            }
            if wait.waited && !waited_before {
                meta.reception_ns = now_ns();
            }
        }
        publish.sequence = meta.sequence;

        // 3. Everyone else: reserved slots, and best effort (drop oldest).
        for (i, r) in readers.iter().enumerate() {
            if Some(i) != last_reliable {
                let entry = Entry {
                    payload: fan.next(),
                    meta,
                };
                let (dropped, edge) = r.push(entry, r.reliable);
                drop(dropped);
                wake |= edge;
            }
        }
        if self.transient_local {
            if publish.history.len() == self.history_capacity {
                publish.history.pop_front();
            }
            publish.history.push_back(Entry {
                payload: fan.next(),
                meta,
            });
            self.history_len
                .store(publish.history.len(), Ordering::Relaxed);
        }
        // Wakers run unlocked, so they may write again; only then is the
        // snapshot worth a count of its own.
        let to_wake = wake.then(|| readers.clone());
        publish.readers = Some(readers);
        drop(publish);
        for r in to_wake.iter().flat_map(|rs| rs.iter()) {
            r.flush_notify();
        }
        Ok(())
    }
}

fn unreserve(readers: &[Arc<ReaderShared>]) {
    for r in readers.iter().filter(|r| r.reliable) {
        r.unreserve();
    }
}

/// Hands out clones of the payload, and the original to the last taker.
struct Fanout {
    payload: Option<Payload>,
    left: usize,
}

impl Fanout {
    fn next(&mut self) -> Payload {
        self.left = self.left.saturating_sub(1);
        match (self.left, &self.payload) {
            (0, _) => self.payload.take(),
            (_, p) => p.clone(),
        }
        .expect("a payload is left for every taker")
    }
}

/// A writer of the in-process transport.
pub struct InprocWriter {
    pub(crate) shared: Arc<WriterShared>,
    pub(crate) topic: Arc<Topic>,
    pub(crate) domain: Arc<Domain>,
}

impl Endpoint for InprocWriter {
    fn id(&self) -> EndpointId {
        self.shared.id
    }
    fn spec(&self) -> &EndpointSpec {
        &self.shared.spec
    }
    fn matched_count(&self) -> usize {
        self.shared.state.matched_count()
    }
    fn status(&self) -> EndpointStatus {
        let mut s = self.shared.state.status();
        s.queued = self.shared.history_len.load(Ordering::Relaxed);
        s
    }
    fn take_event(&self) -> Option<EndpointEvent> {
        self.shared.state.take_event()
    }
    fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
        wake_all(self.shared.state.set_notify(notify).into_iter().collect());
    }
}

impl Writer for InprocWriter {
    fn write(&self, payload: Payload) -> Result<(), WriteError> {
        self.shared.write(payload)
    }
    /// Every reader of this transport is in this process.
    fn matched_in_process(&self) -> usize {
        self.shared.state.matched_count()
    }
}

impl Drop for InprocWriter {
    fn drop(&mut self) {
        self.domain.remove_writer(&self.topic, &self.shared);
    }
}
