//! Taken samples' guards: a view of the writer's chunk that, dropped,
//! releases the chunk to the writer through the link.
//!
//! A link keeps a small table of slots ([`HeldSlots`]) and hands a taken
//! sample out as one counted reference on a free slot
//! ([`CdrBytes::from_slot`]): taking a sample then allocates nothing, which
//! real-time subscribers need. When every slot is held (a subscriber keeping
//! many samples), a sample gets a guard of its own ([`Held`], one `Arc`).
//!
//! A slot's count is its state: 0 free, `BUSY` while one thread fills or
//! empties it, otherwise the number of references. Only the thread that
//! moved the count from 0 or 1 to `BUSY` touches the slot's contents, and
//! only while the count is `BUSY`; every other access is a reader holding a
//! reference (count ≥ 1), under which the contents do not change.

use std::cell::UnsafeCell;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::Arc;

use hibari_cdr::SharedBytes;
use hibari_transport::{CdrBytes, SharedBuffer, SharedSlots};

use crate::rlink::ReaderLink;
use crate::sys::Mapping;

/// Slots per link: more samples of one writer held at once than this get
/// guards of their own.
const SLOTS: usize = 16;

/// A slot's count while one thread fills or empties it.
const BUSY: u32 = u32::MAX;

/// What a held sample is: its bytes in a mapping, and its position in the
/// writer's ring (released to the writer when the sample is dropped).
struct Chunk {
    map: Arc<Mapping>,
    offset: usize,
    len: usize,
    pos: u64,
}

impl Chunk {
    fn bytes(&self) -> SharedBytes<'_> {
        // The range was checked against the mapping when the sample was
        // taken, so this is never the empty fallback.
        self.map
            .shared_bytes(self.offset, self.len)
            .unwrap_or(SharedBytes::empty())
    }
}

struct Slot {
    refs: AtomicU32,
    chunk: UnsafeCell<Option<Chunk>>,
}

/// A link's table of slots for held samples.
pub(crate) struct HeldSlots {
    slots: [Slot; SLOTS],
}

// SAFETY: a slot's `chunk` is written only by the one thread that moved its
// count to `BUSY` (compare-exchange from 0 or 1), and read only by holders
// of a reference (count between 1 and `BUSY`), which exist only after the
// writing thread published the contents with a `Release` store that their
// reference was derived from; `Chunk` itself is `Send + Sync`.
unsafe impl Sync for HeldSlots {}

impl HeldSlots {
    pub fn new() -> HeldSlots {
        HeldSlots {
            slots: std::array::from_fn(|_| Slot {
                refs: AtomicU32::new(0),
                chunk: UnsafeCell::new(None),
            }),
        }
    }
}

/// A taken sample's bytes for `link`: a slot of its table when one is free,
/// else a guard of its own.
pub(crate) fn hold(
    link: &Arc<ReaderLink>,
    map: &Arc<Mapping>,
    offset: usize,
    len: usize,
    pos: u64,
) -> CdrBytes {
    let chunk = Chunk {
        map: map.clone(),
        offset,
        len,
        pos,
    };
    for (i, slot) in link.held.slots.iter().enumerate() {
        if slot
            .refs
            .compare_exchange(0, BUSY, Acquire, Relaxed)
            .is_err()
        {
            continue;
        }
        // SAFETY: this thread moved the count from 0 to `BUSY`: no reference
        // exists and no other thread touches the contents until the store
        // below (module documentation).
        unsafe { *slot.chunk.get() = Some(chunk) };
        slot.refs.store(1, Release);
        let table: Arc<dyn SharedSlots> = link.clone();
        // SAFETY: the count of 1 stored above is the reference handed over;
        // the link keeps the slot's chunk (and its mapping) unchanged until
        // that reference and its clones are released.
        return unsafe { CdrBytes::from_slot(table, i as u32) };
    }
    CdrBytes::shared(Arc::new(Held {
        chunk,
        link: link.clone(),
    }))
}

impl SharedSlots for ReaderLink {
    fn slot_bytes(&self, slot: u32) -> SharedBytes<'_> {
        let slot = &self.held.slots[slot as usize];
        // SAFETY: the caller holds a reference on the slot (the trait's
        // contract), so the contents were published before it and do not
        // change while it lives (module documentation).
        let chunk = unsafe { &*slot.chunk.get() };
        chunk.as_ref().map_or(SharedBytes::empty(), Chunk::bytes)
    }

    fn retain(&self, slot: u32) {
        // The caller holds a reference: the count is at least 1, not `BUSY`.
        self.held.slots[slot as usize].refs.fetch_add(1, Relaxed);
    }

    fn release(&self, slot: u32) {
        let slot = &self.held.slots[slot as usize];
        let mut n = slot.refs.load(Relaxed);
        loop {
            if n == 1 {
                match slot.refs.compare_exchange(1, BUSY, Acquire, Relaxed) {
                    Ok(_) => break,
                    Err(now) => n = now,
                }
            } else {
                match slot.refs.compare_exchange(n, n - 1, Release, Relaxed) {
                    Ok(_) => return,
                    Err(now) => n = now,
                }
            }
        }
        // SAFETY: this thread moved the count from 1 (its own, last
        // reference) to `BUSY`: nobody else touches the contents until the
        // store below.
        let chunk = unsafe { (*slot.chunk.get()).take() };
        slot.refs.store(0, Release);
        if let Some(chunk) = chunk {
            // The link's own `release` (of a ring position), not this one.
            ReaderLink::release(self, chunk.pos);
        }
    }
}

/// A taken sample's own guard, when every slot is held.
struct Held {
    chunk: Chunk,
    link: Arc<ReaderLink>,
}

impl SharedBuffer for Held {
    fn bytes(&self) -> SharedBytes<'_> {
        self.chunk.bytes()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.link.release(self.chunk.pos);
    }
}
