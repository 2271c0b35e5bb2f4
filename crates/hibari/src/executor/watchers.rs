//! Watchers: the wait sets an entity wakes besides its node's executor.
//!
//! A subscription, a guard condition or a timer in a
//! [`WaitSet`](crate::WaitSet) keeps that wait set's [`Signal`] here, and
//! notifies it after it sets its ready flag (a sample came, it was
//! triggered, it was reset). An entity no wait set watches pays one atomic
//! load per wake-up and takes no lock.
//!
//! # No lost wake-up
//!
//! The entity stores its ready flag, then loads `any`; the wait set stores
//! `any` (when it registers), then loads the ready flag before it sleeps.
//! Both pairs are sequentially consistent, so at least one side sees the
//! other's store: either the entity notifies the wait set, or the wait set
//! finds the flag set before it sleeps.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::context::lock;
use crate::wait::Signal;

/// The signals of the wait sets watching one entity.
#[derive(Default)]
pub(crate) struct Watchers {
    /// Whether `list` is not empty: read before any lock.
    any: AtomicBool,
    list: Mutex<Vec<Arc<Signal>>>,
}

impl Watchers {
    /// Wakes every wait set watching the entity. Call it after setting the
    /// ready flag, with a sequentially consistent store.
    pub fn notify(&self) {
        if !self.any.load(Ordering::SeqCst) {
            return;
        }
        // A signal's lock is taken under the list's, never the other way.
        for signal in lock(&self.list).iter() {
            signal.notify();
        }
    }

    /// Starts waking `signal`. A wait set holding the entity twice adds its
    /// signal twice, and removes it once per slot.
    pub fn add(&self, signal: &Arc<Signal>) {
        let mut list = lock(&self.list);
        list.push(signal.clone());
        self.any.store(true, Ordering::SeqCst);
    }

    /// Removes one registration of `signal`.
    pub fn remove(&self, signal: &Arc<Signal>) {
        let mut list = lock(&self.list);
        if let Some(i) = list.iter().position(|s| Arc::ptr_eq(s, signal)) {
            list.swap_remove(i);
        }
        self.any.store(!list.is_empty(), Ordering::SeqCst);
    }

    /// How many wait sets watch the entity.
    #[cfg(test)]
    pub fn count(&self) -> usize {
        lock(&self.list).len()
    }
}
