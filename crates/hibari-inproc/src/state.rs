//! What writers and readers share: matched count, events, incompatible peers,
//! the waker. Its lock is never held while samples move.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hibari_transport::{EndpointEvent, EndpointId, EndpointStatus, Incompatibility, Notify};

/// Events kept for an endpoint nobody reads events from.
const MAX_EVENTS: usize = 256;

/// Locks, ignoring poison: every critical section leaves the state consistent
/// before it can call user code (payload drops are the only such code).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A waker to call once the caller's locks are released.
pub(crate) type Wake = Arc<dyn Notify>;

#[derive(Default)]
pub(crate) struct EndpointState {
    matched: AtomicUsize,
    /// Whether a waker is set: lets the write path skip the lock when not.
    has_notify: AtomicBool,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    events: VecDeque<EndpointEvent>,
    events_dropped: u64,
    incompatible: Vec<(EndpointId, Incompatibility)>,
    incompatible_qos_total: u64,
    incompatible_type_total: u64,
    notify: Option<Wake>,
}

impl EndpointState {
    fn push(&self, event: EndpointEvent, inner: &mut Inner) -> Option<Wake> {
        if inner.events.len() == MAX_EVENTS {
            inner.events.pop_front();
            inner.events_dropped += 1;
        }
        inner.events.push_back(event);
        inner.notify.clone()
    }

    pub fn matched_count(&self) -> usize {
        self.matched.load(Ordering::Acquire)
    }

    /// Records a match; returns the waker to call.
    pub fn on_matched(&self, peer: EndpointId) -> Option<Wake> {
        let mut inner = lock(&self.inner);
        self.matched.fetch_add(1, Ordering::AcqRel);
        self.push(EndpointEvent::Matched { peer }, &mut inner)
    }

    /// Records the end of a match; returns the waker to call.
    pub fn on_unmatched(&self, peer: EndpointId) -> Option<Wake> {
        let mut inner = lock(&self.inner);
        self.matched.fetch_sub(1, Ordering::AcqRel);
        self.push(EndpointEvent::Unmatched { peer }, &mut inner)
    }

    /// Records a peer that could not be matched; returns the waker to call.
    pub fn on_incompatible(&self, peer: EndpointId, why: Incompatibility) -> Option<Wake> {
        let mut inner = lock(&self.inner);
        match why {
            Incompatibility::Qos(_) => inner.incompatible_qos_total += 1,
            _ => inner.incompatible_type_total += 1,
        }
        inner.incompatible.push((peer, why.clone()));
        self.push(EndpointEvent::Incompatible { peer, why }, &mut inner)
    }

    /// A peer left the topic: it is no longer listed as incompatible.
    pub fn forget(&self, peer: EndpointId) {
        lock(&self.inner).incompatible.retain(|(p, _)| *p != peer);
    }

    pub fn notifier(&self) -> Option<Wake> {
        if !self.has_notify.load(Ordering::Acquire) {
            return None;
        }
        lock(&self.inner).notify.clone()
    }

    /// Sets the waker; returns it if events are pending (to call at once).
    pub fn set_notify(&self, notify: Option<Wake>) -> Option<Wake> {
        let mut inner = lock(&self.inner);
        self.has_notify.store(notify.is_some(), Ordering::Release);
        inner.notify = notify;
        if inner.events.is_empty() {
            None
        } else {
            inner.notify.clone()
        }
    }

    pub fn take_event(&self) -> Option<EndpointEvent> {
        lock(&self.inner).events.pop_front()
    }

    /// The part of a status this state knows.
    pub fn status(&self) -> EndpointStatus {
        let inner = lock(&self.inner);
        let mut s = EndpointStatus::default();
        s.matched = self.matched_count();
        s.incompatible = inner.incompatible.clone();
        s.incompatible_qos_total = inner.incompatible_qos_total;
        s.incompatible_type_total = inner.incompatible_type_total;
        s.events_dropped = inner.events_dropped;
        s
    }
}

/// Calls every waker (after the caller released its locks).
pub(crate) fn wake_all(wakes: Vec<Wake>) {
    for w in wakes {
        w.notify();
    }
}
