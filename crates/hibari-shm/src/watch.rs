//! Watching a reliable reader's full ring for room before the writer sleeps.
//!
//! A writer behind a full ring sleeps on its room eventfd until the reader
//! frees part of the ring ([`crate::send`]). Each such sleep costs a system
//! call on both sides and a wake-up, 10–40 µs across CPUs on a virtual
//! machine; a small ring filled faster than that sleep returns is emptied in
//! batches of a few messages between sleeps, and moves a fraction of what
//! the two processes could (depth 16, 64 B, as fast as possible, two
//! CPUs: 0.22 M messages/s, against 1.5–1.7 M with the watch;
//! `hibari-bench-ipc --systems hibari --rates 0 --depth 16 --sizes 64`).
//!
//! So the writer first looks at the ring (shared-memory reads only) for up
//! to [`SPIN`]: a reader draining on another CPU, or waking up to drain,
//! frees a slot within that. A reader on the writer's own CPU cannot run
//! while the writer looks (and a yield in the loop would make the two take
//! turns message by message), and a reader busy with a slow callback frees
//! nothing for far longer: for them a look is wasted. A link therefore
//! learns: after two looks in a row found no room it skips the next 4
//! waits (sleeping at once, as before), after three 8, … up to
//! [`MAX_SKIP`]; a look that finds room starts it over. (One miss alone
//! does not count: a reader across CPUs sometimes wakes late, and a writer
//! that then slept for the next few waits would fall back into batches.)
//! The watch decides only when the writer sleeps, never whether a sample
//! goes out.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// How long one look lasts at most: above a cross-CPU wake-up, far below
/// what a reader busy with its callback takes.
pub(crate) const SPIN: Duration = Duration::from_micros(25);

/// The most waits skipped after looks that found no room.
pub(crate) const MAX_SKIP: u32 = 256;

/// A link's record of whether looking for room pays.
#[derive(Debug, Default)]
pub(crate) struct RoomWatch {
    /// Waits to go straight to sleep before the next look.
    skip: Cell<u32>,
    /// Looks in a row that found no room (capped).
    misses: Cell<u32>,
}

impl RoomWatch {
    /// Looks at `room` until it holds or [`SPIN`] passed, unless this link
    /// is skipping looks; returns whether `room` held.
    pub fn watch(&self, room: impl Fn() -> bool) -> bool {
        let skip = self.skip.get();
        if skip > 0 {
            self.skip.set(skip - 1);
            return room();
        }
        if spin_until(SPIN, room) {
            self.misses.set(0);
            return true;
        }
        let misses = (self.misses.get() + 1).min(8);
        self.misses.set(misses);
        self.skip.set(match misses {
            1 => 0,
            m => (1u32 << m).min(MAX_SKIP),
        });
        false
    }

    /// Waits to skip before the next look.
    #[cfg(test)]
    pub fn skipping(&self) -> u32 {
        self.skip.get()
    }
}

/// Evaluates `cond` with a pause between looks until it holds (`true`) or
/// `limit` passed (`false`); the clock is read once per 16 looks.
fn spin_until(limit: Duration, cond: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..16 {
            if cond() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= limit {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn room_that_comes_during_the_look_is_seen() {
        let looks = Cell::new(0u32);
        let w = RoomWatch::default();
        // Room appears at the 10th look: before the first clock reading
        // (every 16 looks), so however slowly the test runs.
        assert!(w.watch(|| {
            looks.set(looks.get() + 1);
            looks.get() >= 10
        }));
        assert_eq!(looks.get(), 10);
        assert_eq!(w.skipping(), 0);
    }

    /// Runs the waits a link skips, each finding no room; returns how many.
    fn skip_all(w: &RoomWatch) -> u32 {
        let looks = Cell::new(0u32);
        while w.skipping() > 0 {
            // While skipping, each wait looks once and goes to sleep.
            assert!(!w.watch(|| {
                looks.set(looks.get() + 1);
                false
            }));
        }
        looks.get()
    }

    #[test]
    fn looks_that_find_nothing_are_skipped_more_and_more_up_to_the_cap() {
        let w = RoomWatch::default();
        let mut skips = Vec::new();
        for _ in 0..10 {
            assert!(!w.watch(|| false));
            let n = w.skipping();
            skips.push(n);
            assert_eq!(skip_all(&w), n);
        }
        assert_eq!(skips, [0, 4, 8, 16, 32, 64, 128, 256, 256, 256]);
    }

    #[test]
    fn a_look_that_finds_room_starts_the_backoff_over() {
        let w = RoomWatch::default();
        for expected in [0, 4, 8] {
            assert!(!w.watch(|| false));
            assert_eq!(w.skipping(), expected);
            skip_all(&w);
        }
        assert!(w.watch(|| true));
        assert!(!w.watch(|| false));
        assert_eq!(w.skipping(), 0);
        assert!(!w.watch(|| false));
        assert_eq!(w.skipping(), 4);
    }

    #[test]
    fn a_skipped_wait_still_reports_room_that_is_there() {
        let w = RoomWatch::default();
        assert!(!w.watch(|| false));
        assert!(!w.watch(|| false));
        assert_eq!(w.skipping(), 4);
        assert!(w.watch(|| true));
        assert_eq!(w.skipping(), 3);
    }
}
