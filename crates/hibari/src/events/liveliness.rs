//! Liveliness bookkeeping: a manual-by-topic publisher's lease, and a
//! subscription's view of its matched publishers.
//!
//! Times are nanoseconds on [`now_ns`](hibari_transport::now_ns)'s clock, the
//! clock of `SampleInfo`'s timestamps, so a sample's reception timestamp
//! counts as the moment its publisher was last heard from.
//!
//! Publishers of this process with a manual-by-topic lease register it here
//! by id; a subscription matched with one times it by that lease and also
//! sees its assertions. That is what an assertion without a sample can reach:
//! the transport carries samples, not assertions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use hibari_transport::{now_ns, EndpointId};

use crate::context::lock;
use crate::events::LivelinessChangedStatus;

/// A manual-by-topic publisher's lease, shared with its subscriptions in this
/// process.
pub(crate) struct WriterLease {
    /// The lease duration.
    pub lease: i64,
    /// When the publisher last published or asserted.
    pub last_assert: AtomicI64,
    /// Whether the lease held at the publisher's last check.
    pub alive: AtomicBool,
}

fn registry() -> &'static Mutex<HashMap<EndpointId, Weak<WriterLease>>> {
    static LEASES: OnceLock<Mutex<HashMap<EndpointId, Weak<WriterLease>>>> = OnceLock::new();
    LEASES.get_or_init(Default::default)
}

/// A publisher's entry in the registry, removed when dropped.
pub(crate) struct Registration {
    id: EndpointId,
    pub lease: Arc<WriterLease>,
}

impl Registration {
    /// Registers the publisher `id` with a lease of `lease` ns, asserted now.
    pub fn new(id: EndpointId, lease: i64) -> Self {
        let shared = Arc::new(WriterLease {
            lease,
            last_assert: AtomicI64::new(now_ns()),
            alive: AtomicBool::new(true),
        });
        lock(registry()).insert(id, Arc::downgrade(&shared));
        Registration { id, lease: shared }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        lock(registry()).remove(&self.id);
    }
}

/// The lease of the publisher `id`, if it is in this process and has one.
pub(crate) fn lookup(id: &EndpointId) -> Option<Arc<WriterLease>> {
    lock(registry()).get(id).and_then(Weak::upgrade)
}

/// One matched publisher as a subscription sees it.
struct Writer {
    id: EndpointId,
    alive: bool,
    /// When it was matched or last heard from.
    last: i64,
    /// How long it may stay silent; `None`: alive until unmatched.
    lease: Option<i64>,
    /// Its registered lease, when it is in this process.
    shared: Option<Arc<WriterLease>>,
}

impl Writer {
    /// When it was last heard from, its assertions included.
    fn last_heard(&self) -> i64 {
        let asserted = self
            .shared
            .as_ref()
            .map_or(i64::MIN, |s| s.last_assert.load(Ordering::Acquire));
        self.last.max(asserted)
    }
}

/// A subscription's matched publishers and their liveliness.
#[derive(Default)]
pub(crate) struct WriterTable {
    writers: Vec<Writer>,
}

fn change(status: &mut LivelinessChangedStatus, alive: i64, not_alive: i64) {
    let apply = |count: usize, by: i64| count.saturating_add_signed(by as isize);
    status.alive_count = apply(status.alive_count, alive);
    status.not_alive_count = apply(status.not_alive_count, not_alive);
    status.alive_count_change += alive;
    status.not_alive_count_change += not_alive;
}

impl WriterTable {
    /// A publisher was matched at `now`: alive. Returns whether the table
    /// knew it already (then nothing changes).
    pub fn matched(
        &mut self,
        id: EndpointId,
        lease: Option<i64>,
        shared: Option<Arc<WriterLease>>,
        now: i64,
        status: &mut LivelinessChangedStatus,
    ) -> bool {
        if self.writers.iter().any(|w| w.id == id) {
            return true;
        }
        self.writers.push(Writer {
            id,
            alive: true,
            last: now,
            lease,
            shared,
        });
        change(status, 1, 0);
        false
    }

    /// A publisher went away; returns whether it was known.
    pub fn unmatched(&mut self, id: EndpointId, status: &mut LivelinessChangedStatus) -> bool {
        let Some(at) = self.writers.iter().position(|w| w.id == id) else {
            return false;
        };
        let writer = self.writers.swap_remove(at);
        if writer.alive {
            change(status, -1, 0);
        } else {
            change(status, 0, -1);
        }
        true
    }

    /// A sample of `id` arrived at `t`. `None` when `id` is not matched (its
    /// match is not processed yet, or it already went away); else whether its
    /// liveliness changed.
    pub fn heard(
        &mut self,
        id: EndpointId,
        t: i64,
        status: &mut LivelinessChangedStatus,
    ) -> Option<bool> {
        let writer = self.writers.iter_mut().find(|w| w.id == id)?;
        writer.last = writer.last.max(t);
        if writer.alive {
            return Some(false);
        }
        writer.alive = true;
        change(status, 1, -1);
        Some(true)
    }

    /// Moves publishers whose lease lapsed by `now` to not alive, and those
    /// heard from (by assertion) since back; returns whether any changed.
    pub fn settle(&mut self, now: i64, status: &mut LivelinessChangedStatus) -> bool {
        let mut changed = false;
        for writer in &mut self.writers {
            let Some(lease) = writer.lease else { continue };
            let lapsed = now > writer.last_heard().saturating_add(lease);
            if writer.alive == lapsed {
                writer.alive = !lapsed;
                changed = true;
                if lapsed {
                    change(status, -1, 1);
                } else {
                    change(status, 1, -1);
                }
            }
        }
        changed
    }

    /// When the next lease may lapse (one ns after it ends), if any alive
    /// publisher has one.
    pub fn due(&self) -> Option<i64> {
        self.writers
            .iter()
            .filter(|w| w.alive)
            .filter_map(|w| Some(w.last_heard().saturating_add(w.lease?).saturating_add(1)))
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lapsed_publisher_is_not_alive_until_heard_from_and_leaves_on_unmatch() {
        let mut table = WriterTable::default();
        let mut status = LivelinessChangedStatus::default();
        let (a, b) = (EndpointId([1; 16]), EndpointId([2; 16]));
        assert!(!table.matched(a, Some(100), None, 0, &mut status));
        assert!(table.matched(a, Some(100), None, 5, &mut status), "known");
        assert!(!table.matched(b, None, None, 0, &mut status));
        assert_eq!((status.alive_count, status.not_alive_count), (2, 0));
        assert_eq!(table.due(), Some(101));
        assert!(
            !table.settle(100, &mut status),
            "the lease holds to its end"
        );
        assert!(table.settle(101, &mut status));
        assert_eq!((status.alive_count, status.not_alive_count), (1, 1));
        assert_eq!(table.due(), None, "b has no lease, a is not alive");
        assert_eq!(table.heard(a, 150, &mut status), Some(true));
        assert_eq!(table.heard(EndpointId([3; 16]), 150, &mut status), None);
        assert_eq!((status.alive_count, status.not_alive_count), (2, 0));
        assert!(table.settle(300, &mut status));
        assert!(table.unmatched(a, &mut status));
        assert!(table.unmatched(b, &mut status));
        assert_eq!((status.alive_count, status.not_alive_count), (0, 0));
        assert_eq!(
            (status.alive_count_change, status.not_alive_count_change),
            (0, 0)
        );
    }

    #[test]
    fn an_assertion_in_this_process_keeps_a_publisher_alive() {
        let id = EndpointId::random();
        let registration = Registration::new(id, 1_000_000);
        let shared = lookup(&id).expect("registered");
        let mut table = WriterTable::default();
        let mut status = LivelinessChangedStatus::default();
        let t0 = now_ns();
        table.matched(id, Some(shared.lease), Some(shared), t0, &mut status);
        registration
            .lease
            .last_assert
            .store(t0 + 5_000_000, Ordering::Release);
        assert!(!table.settle(t0 + 5_500_000, &mut status), "asserted");
        drop(registration);
        assert!(lookup(&id).is_none());
    }
}
