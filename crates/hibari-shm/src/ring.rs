//! The lock-free rings between one writer and one reader, and the hand-over
//! of chunk ownership they implement.
//!
//! # Who writes what
//!
//! Each side writes only memory it owns and maps the other's read-only:
//!
//! - the **writer** owns the delivery ring: `head` and the slots (a stamp
//!   and a descriptor each), `room_waiting`, and `release_tail`;
//! - the **reader** owns `tail` (how far it claimed), `armed` (bumped when
//!   it is about to sleep) and the release ring (`release_head` and the
//!   positions of samples it is done with).
//!
//! # Ownership of a chunk
//!
//! The writer pushes the descriptor of a chunk at position `p`. From then on
//! exactly one side owns it:
//!
//! - the reader, once it **claimed** `p` (stored `tail = p + 1` after reading
//!   the slot) and saw that the writer did not take it back; it returns it
//!   by pushing `p` into its release ring;
//! - the writer, when it **overwrote** `p` unclaimed (a best-effort reader
//!   that fell a whole ring behind keeps its newest samples): it announces
//!   the overwrite in the stamp (`WRITING`), then reads `tail`; if the reader
//!   has not claimed `p`, the chunk is the writer's again and the new stamp
//!   says so (`DROPPED`).
//!
//! The two stores and two loads form a Dekker pair (each side: store,
//! `fence(SeqCst)`, load): at least one side sees the other. When the reader cannot tell who won (it saw
//! `WRITING`, or the slot already reused twice), it gives the sample up and
//! releases `p` anyway; the writer ignores releases of positions it took
//! back. So a chunk is never owned twice and never lost, which the loom
//! model at the end of this file checks.
//!
//! Wake-ups use the same pattern: the reader bumps `armed` and then looks
//! at `head`; the writer stores `head` and then looks at `armed`, and
//! signals the reader's eventfd only when `armed` changed. A reliable writer
//! waiting for room sets `room_waiting` and re-reads `tail`; the reader
//! stores `tail` (or `release_head`) and then looks at `room_waiting`.
//! `room_waiting` says when to wake the writer: 0 never, else once `tail`
//! reaches `room_waiting − 1`. A writer behind a reader that keeps up asks
//! for half the ring at once (one wake-up per half ring, not one per
//! sample: the two sides would otherwise take turns sample by sample, a
//! system call each way per message); `1` asks for any claim or release.
//! A reader that stops short of half the ring is not waited for: the
//! writer sleeps that long for a short slice only, then asks for any.
//!
//! Nothing read from the peer's memory is trusted: indices are clamped,
//! positions the writer does not know are ignored, and a reader validates
//! each descriptor against its mappings before touching a byte.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicU64};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicU64};

/// Loads a word of the peer's memory, which this side maps read-only, with
/// acquire ordering: a `Relaxed` load and then `fence(Acquire)`. Rust only
/// promises that small `Relaxed` loads work on read-only memory (an
/// `Acquire` load may be compiled as a read-modify-write on some targets;
/// see "Atomic accesses to read-only memory" in `std::sync::atomic`); the
/// fence orders the later accesses just as an `Acquire` load would.
#[inline]
pub(crate) fn peer_load(word: &AtomicU64) -> u64 {
    let value = word.load(Relaxed);
    fence(Acquire);
    value
}

/// Stamp flag: the writer is deciding whether to take the slot's chunk back.
pub(crate) const WRITING: u64 = 1 << 63;
/// Stamp flag: the writer took back the chunk of the slot's previous position.
pub(crate) const DROPPED: u64 = 1 << 62;

/// The stamp of position `pos` (0 means "never written").
fn stamp(pos: u64) -> u64 {
    pos.wrapping_add(1) & (DROPPED - 1)
}

/// One slot: a stamp and a descriptor (64 bytes: one cache line).
#[repr(C, align(64))]
pub(crate) struct Slot {
    stamp: AtomicU64,
    words: [AtomicU64; 5],
}

impl Slot {
    /// Overwrites the slot with anything (hostile-peer tests only).
    pub fn scribble(&self, stamp_of: Option<u64>, words: [u64; 5], raw_stamp: u64) {
        for (cell, v) in self.words.iter().zip(words) {
            cell.store(v, Relaxed);
        }
        let s = stamp_of.map_or(raw_stamp, stamp);
        self.stamp.store(s, Release);
    }
}

/// Where a sample's bytes are and what it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Desc {
    /// The writer's segment.
    pub seg: u64,
    /// Offset of the first byte in the segment.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// The writer's sequence number.
    pub seq: u64,
    /// Source timestamp (ns since the UNIX epoch, as `i64` bits).
    pub source_ns: u64,
}

/// The writer-owned words of one ring, as either side sees them.
pub(crate) struct WriterWords<'a> {
    pub head: &'a AtomicU64,
    pub room_waiting: &'a AtomicU64,
    pub release_tail: &'a AtomicU64,
    pub slots: &'a [Slot],
}

/// The reader-owned words of one ring, as either side sees them.
pub(crate) struct ReaderWords<'a> {
    pub tail: &'a AtomicU64,
    pub armed: &'a AtomicU64,
    pub release_head: &'a AtomicU64,
    pub releases: &'a [AtomicU64],
}

/// What a push did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// The ring is full and overwriting was not allowed (reliable).
    Full,
    /// Pushed at `pos`.
    Done {
        /// The position whose chunk the writer took back (overwritten
        /// unclaimed).
        dropped: Option<u64>,
        /// Whether the reader armed since the last signal: wake it.
        wake: bool,
    },
}

/// The writer's private state of one delivery ring.
pub(crate) struct Producer {
    head: u64,
    cap: u64,
    last_armed: u64,
}

impl Producer {
    pub fn new(capacity: usize) -> Self {
        Producer {
            head: 0,
            cap: capacity.max(1) as u64,
            last_armed: 0,
        }
    }

    /// The next position.
    pub fn head(&self) -> u64 {
        self.head
    }

    /// The reader's claim position, clamped to what is possible. Acquire:
    /// the reader's reads of a slot it claimed come before our reuse of it.
    fn tail(&self, r: &ReaderWords<'_>) -> u64 {
        peer_load(r.tail).clamp(self.head.saturating_sub(self.cap), self.head)
    }

    /// Before sleeping until the reader makes room: sets `room_waiting` to
    /// be woken once `free` slots are free (`0`: at any claim or release)
    /// and returns whether there is room after all (then do not sleep).
    pub fn prepare_wait(&self, w: &WriterWords<'_>, r: &ReaderWords<'_>, free: u64) -> bool {
        let wake_at = match free {
            0 => 0,
            free => (self.head + free.min(self.cap)).saturating_sub(self.cap),
        };
        w.room_waiting.store(wake_at + 1, Relaxed);
        fence(SeqCst);
        self.has_room(r)
    }

    /// After waking: clears `room_waiting`.
    pub fn end_wait(&self, w: &WriterWords<'_>) {
        w.room_waiting.store(0, Relaxed);
    }

    /// Whether a push would not overwrite.
    pub fn has_room(&self, r: &ReaderWords<'_>) -> bool {
        self.head - self.tail(r) < self.cap
    }

    /// Samples pushed and not claimed (at most the capacity).
    pub fn queued(&self, r: &ReaderWords<'_>) -> u64 {
        self.head - self.tail(r)
    }

    /// Pushes `desc`; when full, overwrites the oldest position if
    /// `overwrite`, else refuses.
    pub fn push(
        &mut self,
        w: &WriterWords<'_>,
        r: &ReaderWords<'_>,
        desc: &Desc,
        overwrite: bool,
    ) -> Pushed {
        let pos = self.head;
        let slot = &w.slots[(pos % self.cap) as usize];
        let mut flags = 0;
        let mut dropped = None;
        if pos - self.tail(r) >= self.cap {
            if !overwrite {
                return Pushed::Full;
            }
            let old = pos - self.cap;
            slot.stamp.store(WRITING | stamp(old), Relaxed);
            fence(SeqCst);
            if r.tail.load(Relaxed) <= old {
                dropped = Some(old);
                flags = DROPPED;
            }
            // Acquire: a claim we saw comes with the reader's reads of the
            // slot, which then precede our new words. Release: the WRITING
            // mark precedes them, so a reader that sees a new word then
            // sees the mark (seqlock).
            fence(AcqRel);
        }
        let words = [desc.seg, desc.offset, desc.len, desc.seq, desc.source_ns];
        for (cell, value) in slot.words.iter().zip(words) {
            cell.store(value, Relaxed);
        }
        slot.stamp.store(stamp(pos) | flags, Release);
        self.head = pos + 1;
        w.head.store(self.head, Release);
        fence(SeqCst);
        let armed = r.armed.load(Relaxed);
        let wake = armed != self.last_armed;
        self.last_armed = armed;
        Pushed::Done { dropped, wake }
    }
}

/// What a take found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Took {
    /// Nothing to take now.
    Empty,
    /// The sample at `pos`, now owned by the reader.
    Sample { pos: u64, desc: Desc },
}

/// The reader's private state of one delivery ring.
pub(crate) struct Consumer {
    tail: u64,
    cap: u64,
}

impl Consumer {
    pub fn new(capacity: usize) -> Self {
        Consumer {
            tail: 0,
            cap: capacity.max(1) as u64,
        }
    }

    /// Samples waiting (at most the capacity), and how many of the
    /// writer's pushes were already overwritten unclaimed.
    pub fn pending(&self, w: &WriterWords<'_>) -> (u64, u64) {
        let behind = peer_load(w.head).saturating_sub(self.tail);
        (behind.min(self.cap), behind.saturating_sub(self.cap))
    }

    /// Whether the writer pushed anything not yet claimed.
    pub fn has_pending(&self, w: &WriterWords<'_>) -> bool {
        peer_load(w.head) > self.tail
    }

    /// The source timestamp of the next sample (a hint for ordering takes
    /// across writers; it may be overwritten meanwhile).
    pub fn peek_source(&self, w: &WriterWords<'_>) -> Option<u64> {
        let head = peer_load(w.head);
        if head <= self.tail {
            return None;
        }
        let t = self.tail.max(head.saturating_sub(self.cap));
        Some(w.slots[(t % self.cap) as usize].words[4].load(Relaxed))
    }

    /// Claims the oldest sample still in the ring. Positions lost on the way
    /// (overwritten, or given up when ownership was unclear) are added to
    /// `lost`; those the writer may still count as the reader's are passed
    /// to `release`.
    pub fn take(
        &mut self,
        w: &WriterWords<'_>,
        r: &ReaderWords<'_>,
        lost: &mut u64,
        release: &mut impl FnMut(u64),
    ) -> Took {
        // Bounded: a hostile writer cannot keep us here.
        for _ in 0..=self.cap + 1 {
            let head = peer_load(w.head);
            if head <= self.tail {
                return Took::Empty;
            }
            if head - self.tail > self.cap {
                *lost += head - self.cap - self.tail;
                self.tail = head - self.cap;
            }
            let t = self.tail;
            let slot = &w.slots[(t % self.cap) as usize];
            // DROPPED in a stamp is about the slot's previous position.
            let s1 = peer_load(&slot.stamp);
            self.tail = t + 1;
            if s1 & !DROPPED != stamp(t) {
                // Overwritten (or being overwritten) before we claimed it.
                *lost += 1;
                if s1 == WRITING | stamp(t) {
                    release(t); // the writer may yet see our later claims
                }
                continue;
            }
            let mut words = [0u64; 5];
            for (value, cell) in words.iter_mut().zip(&slot.words) {
                *value = cell.load(Relaxed);
            }
            // Release: our reads of the slot precede the claim, so a writer
            // that sees the claim reuses the slot only after them.
            fence(Release);
            r.tail.store(t + 1, Relaxed);
            // Dekker with the writer's WRITING mark, and the seqlock's
            // acquire: a new word read above means the mark is seen below.
            fence(SeqCst);
            let s2 = slot.stamp.load(Relaxed);
            if s2 & !DROPPED == stamp(t) || s2 == stamp(t + self.cap) {
                let [seg, offset, len, seq, source_ns] = words;
                return Took::Sample {
                    pos: t,
                    desc: Desc {
                        seg,
                        offset,
                        len,
                        seq,
                        source_ns,
                    },
                };
            }
            *lost += 1;
            if s2 != stamp(t + self.cap) | DROPPED {
                release(t); // unclear who won: give it up, the writer decides
            }
        }
        Took::Empty
    }

    /// Marks the reader as about to sleep; returns whether something
    /// arrived meanwhile (then it must not sleep).
    pub fn arm(&self, w: &WriterWords<'_>, r: &ReaderWords<'_>) -> bool {
        r.armed.fetch_add(1, Relaxed);
        fence(SeqCst);
        self.has_pending(w)
    }

    /// Whether the writer waits for the room made so far (read right after
    /// a claim or a release, which end with the fence of the Dekker pair).
    pub fn writer_waits(&self, w: &WriterWords<'_>) -> bool {
        writer_waits_for(w, self.tail)
    }
}

/// Whether a writer waiting for room wants waking now that the reader's
/// claims reached `tail` (see `room_waiting` in the module's docs).
pub(crate) fn writer_waits_for(w: &WriterWords<'_>, tail: u64) -> bool {
    match w.room_waiting.load(Relaxed) {
        0 => false,
        wake_at_plus_1 => tail >= wake_at_plus_1 - 1,
    }
}

mod release;

pub(crate) use release::{Reclaimer, Releaser};

#[cfg(all(test, not(loom)))]
mod heap_tests;
#[cfg(all(test, loom))]
mod loom_model;
#[cfg(test)]
mod test_words;
