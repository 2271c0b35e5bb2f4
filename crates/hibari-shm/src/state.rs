//! What writers and readers share: matched count, events, incompatible
//! peers, the waker. Its lock is never held while samples move or a waker
//! runs.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hibari_transport::{EndpointEvent, EndpointId, EndpointStatus, Incompatibility, Notify};

/// Events kept for an endpoint nobody takes events from.
const MAX_EVENTS: usize = 256;

/// Locks, ignoring poison: critical sections leave their state consistent
/// before anything that can panic.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A waker to call once the caller's locks are released.
pub(crate) type Wake = Arc<dyn Notify>;

/// Calls every waker (after the caller released its locks).
pub(crate) fn wake_all(wakes: Vec<Wake>) {
    for w in wakes {
        w.notify();
    }
}

#[derive(Default)]
pub(crate) struct EndpointState {
    matched: AtomicUsize,
    has_notify: AtomicBool,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    events: VecDeque<EndpointEvent>,
    events_dropped: u64,
    matched: Vec<EndpointId>,
    incompatible: Vec<(EndpointId, Incompatibility)>,
    incompatible_qos_total: u64,
    incompatible_type_total: u64,
    notify: Option<Wake>,
}

impl Inner {
    fn push(&mut self, event: EndpointEvent) -> Option<Wake> {
        if self.events.len() == MAX_EVENTS {
            self.events.pop_front();
            self.events_dropped += 1;
        }
        self.events.push_back(event);
        self.notify.clone()
    }
}

impl EndpointState {
    pub fn matched_count(&self) -> usize {
        self.matched.load(Ordering::Acquire)
    }

    /// Records a match (once per peer); returns the waker to call.
    pub fn on_matched(&self, peer: EndpointId) -> Option<Wake> {
        let mut inner = lock(&self.inner);
        if inner.matched.contains(&peer) {
            return None;
        }
        inner.matched.push(peer);
        self.matched.store(inner.matched.len(), Ordering::Release);
        inner.push(EndpointEvent::Matched { peer })
    }

    /// Records the end of a match, if there was one; returns the waker.
    pub fn on_unmatched(&self, peer: EndpointId) -> Option<Wake> {
        let mut inner = lock(&self.inner);
        let before = inner.matched.len();
        inner.matched.retain(|p| *p != peer);
        if inner.matched.len() == before {
            return None;
        }
        self.matched.store(inner.matched.len(), Ordering::Release);
        inner.push(EndpointEvent::Unmatched { peer })
    }

    /// Records a peer that could not be matched; returns the waker to call.
    pub fn on_incompatible(&self, peer: EndpointId, why: Incompatibility) -> Option<Wake> {
        let mut inner = lock(&self.inner);
        if inner.incompatible.iter().any(|(p, _)| *p == peer) {
            return None;
        }
        match why {
            Incompatibility::Qos(_) => inner.incompatible_qos_total += 1,
            _ => inner.incompatible_type_total += 1,
        }
        inner.incompatible.push((peer, why.clone()));
        inner.push(EndpointEvent::Incompatible { peer, why })
    }

    /// A peer left: it is no longer listed as incompatible.
    pub fn forget(&self, peer: EndpointId) {
        lock(&self.inner).incompatible.retain(|(p, _)| *p != peer);
    }

    /// The waker, if one is set.
    pub fn notifier(&self) -> Option<Wake> {
        if !self.has_notify.load(Ordering::Acquire) {
            return None;
        }
        lock(&self.inner).notify.clone()
    }

    /// Whether a waker is set (cheap).
    pub fn has_notify(&self) -> bool {
        self.has_notify.load(Ordering::Acquire)
    }

    /// Sets the waker; returns whether events are pending.
    pub fn set_notify(&self, notify: Option<Wake>) -> bool {
        let mut inner = lock(&self.inner);
        self.has_notify.store(notify.is_some(), Ordering::Release);
        inner.notify = notify;
        !inner.events.is_empty()
    }

    pub fn take_event(&self) -> Option<EndpointEvent> {
        lock(&self.inner).events.pop_front()
    }

    /// The part of a status this state knows.
    pub fn status(&self) -> EndpointStatus {
        let inner = lock(&self.inner);
        let mut s = EndpointStatus::default();
        s.matched = inner.matched.len();
        s.incompatible = inner.incompatible.clone();
        s.incompatible_qos_total = inner.incompatible_qos_total;
        s.incompatible_type_total = inner.incompatible_type_total;
        s.events_dropped = inner.events_dropped;
        s
    }
}
