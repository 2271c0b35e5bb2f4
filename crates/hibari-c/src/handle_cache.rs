//! Each thread's last few handle lookups, so that the calls made per
//! message (`hibari_publisher_publish*`, `hibari_publisher_loan`) find
//! their object without the registry's lock: a read lock is two atomic
//! read-modify-writes of one cache line every thread shares, plus a tree
//! walk and an `Arc` clone; here it is a thread-local scan and a
//! `Weak::upgrade` of the object's own count.
//!
//! What a thread keeps is only a `Weak`: a cached handle keeps its object
//! alive no longer than the registry does. And it is forgotten as soon as
//! any handle is destroyed: [`forget_all`] moves a global epoch on (after
//! the registry let go of the entry), and a thread whose cache was filled
//! at another epoch empties it before looking. A lookup that raced with a
//! destroy on another thread sees the object as a call already in flight
//! would (as the registry's own lookup could); once the destroy has
//! returned, every later call, on any thread it happened before, sees the
//! handle invalid. Ids are never reused, so an id found here is the object
//! it named when cached.

use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::handles::Kind;

/// How many lookups a thread keeps (a node's publishers on a camera
/// thread; the oldest is replaced).
const KEPT: usize = 8;

type Object = dyn Any + Send + Sync;

struct Cache {
    epoch: u64,
    entries: Vec<(u64, Kind, Weak<Object>)>,
    next: usize,
}

static EPOCH: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static CACHE: RefCell<Cache> = const {
        RefCell::new(Cache {
            epoch: 0,
            entries: Vec::new(),
            next: 0,
        })
    };
}

/// The epoch to [`keep`] a lookup under: read before the registry is.
pub(crate) fn epoch() -> u64 {
    EPOCH.load(Ordering::Acquire)
}

/// Every thread's cache is stale: called after a handle left the registry.
pub(crate) fn forget_all() {
    EPOCH.fetch_add(1, Ordering::AcqRel);
}

/// The `kind` object `id`, if this thread found it since the last destroy
/// and it still lives.
pub(crate) fn find(kind: Kind, id: u64) -> Option<Arc<Object>> {
    let now = epoch();
    CACHE
        .try_with(|c| c.try_borrow_mut().ok()?.find(now, kind, id))
        .ok()
        .flatten()
}

/// Keeps `object`, the `kind` entry `id`, found in the registry after
/// `at` = [`epoch`] was read.
pub(crate) fn keep(kind: Kind, id: u64, object: &Arc<Object>, at: u64) {
    let _ = CACHE.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.keep(at, epoch(), (id, kind, Arc::downgrade(object)));
        }
    });
}

impl Cache {
    /// Empties the cache if it was filled at another epoch than `now`.
    fn renew(&mut self, now: u64) {
        if self.epoch != now {
            self.entries.clear();
            self.next = 0;
            self.epoch = now;
        }
    }

    fn find(&mut self, now: u64, kind: Kind, id: u64) -> Option<Arc<Object>> {
        self.renew(now);
        self.entries
            .iter()
            .find(|(i, k, _)| *i == id && *k == kind)
            .and_then(|(_, _, weak)| weak.upgrade())
    }

    /// Keeps `entry`, found at epoch `at`, unless a destroy came since
    /// (`now` is later): then what was found may be gone.
    fn keep(&mut self, at: u64, now: u64, entry: (u64, Kind, Weak<Object>)) {
        self.renew(now);
        if at != now {
            return;
        }
        if self.entries.len() < KEPT {
            self.entries.push(entry);
        } else {
            self.entries[self.next] = entry;
            self.next = (self.next + 1) % KEPT;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> Cache {
        Cache {
            epoch: 0,
            entries: Vec::new(),
            next: 0,
        }
    }

    fn entry(id: u64, kind: Kind, object: &Arc<Object>) -> (u64, Kind, Weak<Object>) {
        (id, kind, Arc::downgrade(object))
    }

    #[test]
    fn a_kept_lookup_is_found_until_the_epoch_moves() {
        let mut c = cache();
        let o: Arc<Object> = Arc::new(7u32);
        c.keep(3, 3, entry(11, Kind::Publisher, &o));
        let found = c.find(3, Kind::Publisher, 11).expect("kept");
        assert!(Arc::ptr_eq(&found, &o));
        assert!(c.find(3, Kind::Subscription, 11).is_none(), "another kind");
        assert!(c.find(3, Kind::Publisher, 12).is_none(), "another id");
        assert!(
            c.find(4, Kind::Publisher, 11).is_none(),
            "stale after a destroy"
        );
        assert!(
            c.find(3, Kind::Publisher, 11).is_none(),
            "emptied, not kept aside"
        );
    }

    #[test]
    fn a_kept_lookup_does_not_keep_its_object_alive() {
        let mut c = cache();
        let o: Arc<Object> = Arc::new(8u32);
        c.keep(0, 0, entry(11, Kind::Node, &o));
        drop(o);
        assert!(c.find(0, Kind::Node, 11).is_none());
    }

    #[test]
    fn a_lookup_that_raced_with_a_destroy_is_not_kept() {
        let mut c = cache();
        let o: Arc<Object> = Arc::new(9u32);
        c.keep(5, 6, entry(11, Kind::Timer, &o));
        assert!(c.find(6, Kind::Timer, 11).is_none());
    }

    #[test]
    fn the_oldest_lookup_makes_room() {
        let mut c = cache();
        let objects: Vec<Arc<Object>> = (0..=KEPT as u32).map(|n| Arc::new(n) as _).collect();
        for (i, o) in objects.iter().enumerate() {
            c.keep(0, 0, entry(i as u64, Kind::Client, o));
        }
        assert!(c.find(0, Kind::Client, 0).is_none(), "replaced");
        for i in 1..=KEPT as u64 {
            assert!(c.find(0, Kind::Client, i).is_some(), "{i}");
        }
    }

    #[test]
    fn the_thread_cache_follows_the_global_epoch() {
        let o: Arc<Object> = Arc::new(10u32);
        // Other tests destroy handles meanwhile: retry until one pass saw
        // no destroy between its keep and its find.
        for _ in 0..1000 {
            let at = epoch();
            keep(Kind::WaitSet, u64::MAX - 1, &o, at);
            let found = find(Kind::WaitSet, u64::MAX - 1);
            if epoch() == at {
                assert!(found.is_some_and(|f| Arc::ptr_eq(&f, &o)));
                forget_all();
                assert!(find(Kind::WaitSet, u64::MAX - 1).is_none());
                return;
            }
        }
        panic!("handles were destroyed between every keep and find");
    }
}
