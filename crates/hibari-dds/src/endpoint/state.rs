//! What writers and readers share: identity, matched peers, incompatible
//! peers, the event queue and the waker.
//!
//! The participant's event thread feeds this from RustDDS's status events
//! (matched, unmatched, QoS-incompatible) and from discovery (type
//! mismatches); the owner of the endpoint reads it. Wakers are called after
//! the lock is released.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hibari_transport::{
    EndpointEvent, EndpointId, EndpointSpec, EndpointStatus, Incompatibility, Notify,
};
use rustdds::GUID;

/// The most events kept before the oldest are dropped (and counted).
const MAX_EVENTS: usize = 1024;

/// The shared state of one local writer or reader.
pub struct EndpointCore {
    /// The id hibari knows it by.
    pub id: EndpointId,
    /// Its DDS GUID.
    pub guid: GUID,
    /// What it was created for.
    pub spec: EndpointSpec,
    inner: Mutex<CoreInner>,
    /// `inner.matched.len()`, kept beside it for readers that must not
    /// lock: a publisher asks on every message (the fanout, whether to
    /// encode a value now).
    matched_now: AtomicUsize,
    /// Signalled whenever a peer matches (for [`wait_matched`](Self::wait_matched)).
    matched_cv: Condvar,
    notify: Mutex<Option<Arc<dyn Notify>>>,
}

#[derive(Default)]
pub struct CoreInner {
    /// Matched peers: their GUID and the id hibari knows them by.
    matched: HashMap<GUID, EndpointId>,
    /// Peers on the topic that could not be matched, and why.
    pub incompatible: Vec<(GUID, EndpointId, Incompatibility)>,
    pub events: VecDeque<EndpointEvent>,
    pub events_dropped: u64,
    pub qos_total: u64,
    pub type_total: u64,
}

impl CoreInner {
    fn push(&mut self, e: EndpointEvent) {
        if self.events.len() >= MAX_EVENTS {
            self.events.pop_front();
            self.events_dropped += 1;
        }
        self.events.push_back(e);
    }
}

impl EndpointCore {
    /// A fresh endpoint state.
    pub fn new(id: EndpointId, guid: GUID, spec: EndpointSpec) -> Self {
        EndpointCore {
            id,
            guid,
            spec,
            inner: Mutex::new(CoreInner::default()),
            matched_now: AtomicUsize::new(0),
            matched_cv: Condvar::new(),
            notify: Mutex::new(None),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, CoreInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Calls the waker, if any (no lock of ours held by the caller).
    pub fn wake(&self) {
        let n = self
            .notify
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(n) = n {
            n.notify();
        }
    }

    /// Sets the waker; returns whether events are pending.
    pub fn set_notify(&self, notify: Option<Arc<dyn Notify>>) -> bool {
        *self.notify.lock().unwrap_or_else(|e| e.into_inner()) = notify;
        !self.lock().events.is_empty()
    }

    /// A peer matched (idempotent). Returns whether it is new.
    pub fn matched(&self, peer: GUID, peer_id: EndpointId) -> bool {
        let new = {
            let mut g = self.lock();
            g.incompatible.retain(|(p, _, _)| *p != peer);
            let new = g.matched.insert(peer, peer_id).is_none();
            self.matched_now.store(g.matched.len(), Ordering::Release);
            if new {
                g.push(EndpointEvent::Matched { peer: peer_id });
            }
            new
        };
        if new {
            self.matched_cv.notify_all();
            self.wake();
        }
        new
    }

    /// Waits up to `timeout` until `peer` is matched; returns whether it is.
    pub fn wait_matched(&self, peer: GUID, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut g = self.lock();
        while !g.matched.contains_key(&peer) {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            g = self
                .matched_cv
                .wait_timeout(g, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// A matched peer went away (or was never matched: then nothing happens).
    pub fn unmatched(&self, peer: GUID) {
        let gone = {
            let mut g = self.lock();
            g.incompatible.retain(|(p, _, _)| *p != peer);
            let removed = g.matched.remove(&peer);
            self.matched_now.store(g.matched.len(), Ordering::Release);
            match removed {
                Some(id) => {
                    g.push(EndpointEvent::Unmatched { peer: id });
                    true
                }
                None => false,
            }
        };
        if gone {
            self.wake();
        }
    }

    /// A peer on the topic cannot be matched (reported once per peer).
    pub fn incompatible(&self, peer: GUID, peer_id: EndpointId, why: Incompatibility) {
        let new = {
            let mut g = self.lock();
            if g.incompatible.iter().any(|(p, _, _)| *p == peer) {
                false
            } else {
                match why {
                    Incompatibility::Qos(_) => g.qos_total += 1,
                    _ => g.type_total += 1,
                }
                g.incompatible.push((peer, peer_id, why.clone()));
                g.push(EndpointEvent::Incompatible { peer: peer_id, why });
                true
            }
        };
        if new {
            self.wake();
        }
    }

    /// A peer that was incompatible left the topic.
    pub fn forget(&self, peer: GUID) {
        self.lock().incompatible.retain(|(p, _, _)| *p != peer);
    }

    pub fn matched_count(&self) -> usize {
        self.matched_now.load(Ordering::Acquire)
    }

    pub fn take_event(&self) -> Option<EndpointEvent> {
        self.lock().events.pop_front()
    }

    /// The status fields this state knows (the reader adds its queue's).
    pub fn status(&self) -> EndpointStatus {
        let g = self.lock();
        let mut s = EndpointStatus::default();
        s.matched = g.matched.len();
        s.incompatible = g
            .incompatible
            .iter()
            .map(|(_, id, why)| (*id, why.clone()))
            .collect();
        s.incompatible_qos_total = g.qos_total;
        s.incompatible_type_total = g.type_total;
        s.events_dropped = g.events_dropped;
        s
    }
}
