//! The release ring: positions of samples a reader is done with, from the
//! reader (producer, `release_head` and the entries in its memory) to the
//! writer (consumer, `release_tail` in its memory).

use std::sync::atomic::Ordering::{Relaxed, Release, SeqCst};

use super::{fence, peer_load, ReaderWords, WriterWords};

/// The reader's side of the release ring (positions it is done with).
pub(crate) struct Releaser {
    head: u64,
    cap: u64,
}

impl Releaser {
    pub fn new(capacity: usize) -> Self {
        Releaser {
            head: 0,
            cap: capacity.max(1) as u64,
        }
    }

    /// Pushes a released position; `false` when the ring is full.
    pub fn push(&mut self, w: &WriterWords<'_>, r: &ReaderWords<'_>, pos: u64) -> bool {
        let tail = peer_load(w.release_tail).clamp(self.head.saturating_sub(self.cap), self.head);
        if self.head - tail >= self.cap {
            return false;
        }
        r.releases[(self.head % self.cap) as usize].store(pos, Relaxed);
        self.head += 1;
        r.release_head.store(self.head, Release);
        fence(SeqCst); // Dekker with a writer waiting for chunks
        true
    }
}

/// The writer's side of the release ring.
pub(crate) struct Reclaimer {
    tail: u64,
    cap: u64,
}

/// The reader's release ring is inconsistent (a broken or hostile peer).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Corrupt;

impl Reclaimer {
    pub fn new(capacity: usize) -> Self {
        Reclaimer {
            tail: 0,
            cap: capacity.max(1) as u64,
        }
    }

    /// Whether the reader released something not yet drained.
    pub fn has_pending(&self, r: &ReaderWords<'_>) -> bool {
        peer_load(r.release_head) != self.tail
    }

    /// Passes every released position to `f`.
    pub fn drain(
        &mut self,
        w: &WriterWords<'_>,
        r: &ReaderWords<'_>,
        mut f: impl FnMut(u64),
    ) -> Result<(), Corrupt> {
        let head = peer_load(r.release_head);
        if head < self.tail || head - self.tail > self.cap {
            return Err(Corrupt);
        }
        while self.tail < head {
            f(r.releases[(self.tail % self.cap) as usize].load(Relaxed));
            self.tail += 1;
        }
        w.release_tail.store(self.tail, Release);
        Ok(())
    }
}
