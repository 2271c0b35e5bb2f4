//! What the ring tests over ordinary memory share: the heap tests (and miri)
//! and the loom model.

use super::*;

/// Both sides' words of one ring in ordinary memory (std atomics for the heap
/// tests and miri, loom's under `--cfg loom`: `super::AtomicU64` is either).
pub(super) struct Shared {
    head: AtomicU64,
    room_waiting: AtomicU64,
    release_tail: AtomicU64,
    slots: Vec<Slot>,
    tail: AtomicU64,
    armed: AtomicU64,
    release_head: AtomicU64,
    releases: Vec<AtomicU64>,
}

impl Shared {
    pub(super) fn new(cap: usize, release_cap: usize) -> Shared {
        let zero = || AtomicU64::new(0);
        Shared {
            head: zero(),
            room_waiting: zero(),
            release_tail: zero(),
            slots: (0..cap)
                .map(|_| Slot {
                    stamp: zero(),
                    words: [zero(), zero(), zero(), zero(), zero()],
                })
                .collect(),
            tail: zero(),
            armed: zero(),
            release_head: zero(),
            releases: (0..release_cap).map(|_| zero()).collect(),
        }
    }

    pub(super) fn w(&self) -> WriterWords<'_> {
        WriterWords {
            head: &self.head,
            room_waiting: &self.room_waiting,
            release_tail: &self.release_tail,
            slots: &self.slots,
        }
    }

    pub(super) fn r(&self) -> ReaderWords<'_> {
        ReaderWords {
            tail: &self.tail,
            armed: &self.armed,
            release_head: &self.release_head,
            releases: &self.releases,
        }
    }
}

/// The descriptor pushed at `pos`: every word says `pos`, so a torn read shows.
pub(super) fn desc(pos: u64) -> Desc {
    Desc {
        seg: pos,
        offset: pos,
        len: pos,
        seq: pos,
        source_ns: pos,
    }
}
