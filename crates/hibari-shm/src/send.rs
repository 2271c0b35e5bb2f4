//! The write path of a writer, under its `publish` lock.
//!
//! 1. take back chunks readers released, and take a chunk (new segments
//!    are created as needed; at the writer's memory limit, wait for
//!    releases as long as [`WhenFull`] allows);
//! 2. the caller fills it (encodes the message once, straight into it);
//! 3. wait until every reliable reader's ring has room (bounded by
//!    [`WhenFull`]; a full ring is watched briefly before the writer sleeps,
//!    see [`crate::watch`]); nothing is pushed before, so a failed write
//!    reaches no reader and consumes no sequence number;
//! 4. push the descriptor to every reader (best-effort rings overwrite
//!    their oldest unclaimed sample) and into the transient-local history,
//!    signalling the eventfd of readers that armed.

use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::time::Instant;

use hibari_transport::{now_ns, WhenFull};

use crate::pool::{AllocError, Chunk};
use crate::publish::{Effects, Kept, Publish, WriterShared};
use crate::ring::Desc;
use crate::sys;

/// Why a write could not go out.
pub(crate) enum Refused {
    Full,
    TimedOut,
    Alloc(AllocError),
}

/// How long one write may wait; the deadline is set on the first wait.
pub(crate) struct Wait {
    when_full: WhenFull,
    deadline: Option<Instant>,
    /// Whether this write already waited a slice for half a ring.
    sliced: bool,
}

/// How long a writer behind a full ring waits for the reader to free half
/// of it before it settles for any room: a reader that keeps up frees half
/// a ring well within it; a slower one costs the write at most this much
/// more than one woken at its first claim.
const ROOM_SLICE: std::time::Duration = std::time::Duration::from_micros(500);

impl Wait {
    pub fn new(when_full: WhenFull) -> Wait {
        Wait {
            when_full,
            deadline: None,
            sliced: false,
        }
    }

    /// What to wait for behind a full ring of `capacity`, and until when:
    /// half the ring for one slice first, then any room until `deadline`.
    fn room_slice(&mut self, capacity: u64, deadline: Instant) -> (u64, Instant) {
        match std::mem::replace(&mut self.sliced, true) {
            false => (
                (capacity / 2).max(1),
                deadline.min(Instant::now() + ROOM_SLICE),
            ),
            true => (0, deadline),
        }
    }

    fn deadline(&mut self) -> Result<Instant, Refused> {
        match self.when_full {
            WhenFull::Fail => Err(Refused::Full),
            WhenFull::Block { timeout } => {
                let d = *self
                    .deadline
                    .get_or_insert_with(|| Instant::now() + timeout);
                if Instant::now() >= d {
                    Err(Refused::TimedOut)
                } else {
                    Ok(d)
                }
            }
        }
    }
}

impl WriterShared {
    /// Takes back every chunk readers released.
    pub fn reclaim(p: &mut Publish) {
        let Publish {
            pool,
            links,
            closing,
            ..
        } = p;
        for l in links.iter_mut().chain(closing.iter_mut()) {
            l.reclaim(pool);
        }
    }

    /// Step 1: a chunk for `len` bytes, waiting for releases if the pool is
    /// at its limit.
    pub fn alloc(
        &self,
        p: &mut Publish,
        len: usize,
        wait: &mut Wait,
        fx: &mut Effects,
    ) -> Result<Chunk, Refused> {
        loop {
            self.apply(p, fx);
            Self::reclaim(p);
            match p.pool.alloc(len) {
                Ok(chunk) => return Ok(chunk),
                Err(AllocError::Exhausted(_)) => {}
                Err(e) => return Err(Refused::Alloc(e)),
            }
            let deadline = wait.deadline()?;
            for l in p.links.iter().chain(&p.closing) {
                l.prepare_wait(0); // room_waiting: any release wakes us
            }
            if !p.links.iter().chain(&p.closing).any(|l| l.has_releases()) {
                sys::wait_readable(self.room.as_fd(), deadline);
                sys::drain(self.room.as_fd());
            }
            for l in p.links.iter().chain(&p.closing) {
                l.end_wait();
            }
        }
    }

    /// Step 3: waits until every reliable reader has room for `len` more
    /// bytes: a slot in its ring and, keep-all, room under its byte limit.
    fn wait_for_room(
        &self,
        p: &mut Publish,
        len: u64,
        wait: &mut Wait,
        fx: &mut Effects,
    ) -> Result<(), Refused> {
        loop {
            self.apply(p, fx);
            let Some(i) = p.links.iter().position(|l| l.reliable && !l.has_room()) else {
                if !p.links.iter().any(|l| l.over_bytes(len)) {
                    return Ok(());
                }
                Self::reclaim(p);
                let Some(full) = p.links.iter().find(|l| l.over_bytes(len)) else {
                    return Ok(());
                };
                // Over its byte limit: wait for the reader to release.
                let deadline = wait.deadline()?;
                full.prepare_wait(0); // room_waiting: any release wakes us
                if !full.has_releases() {
                    sys::wait_readable(self.room.as_fd(), deadline);
                    sys::drain(self.room.as_fd());
                }
                full.end_wait();
                continue;
            };
            let full = &p.links[i];
            let deadline = wait.deadline()?;
            if full.watch_for_room() {
                continue;
            }
            let (free, until) = wait.room_slice(full.capacity() as u64, deadline);
            if !full.prepare_wait(free) {
                sys::wait_readable(self.room.as_fd(), until);
                sys::drain(self.room.as_fd());
            }
            full.end_wait();
        }
    }

    /// Steps 3 and 4 for a filled chunk of `len` bytes; on success the
    /// sample is numbered and everywhere it must be. The caller still holds
    /// its own reference to the chunk either way.
    pub fn send(
        &self,
        p: &mut Publish,
        chunk: Chunk,
        len: usize,
        wait: &mut Wait,
        fx: &mut Effects,
    ) -> Result<(), Refused> {
        self.wait_for_room(p, len as u64, wait, fx)?;
        let (seg, offset) = (chunk.seg, p.pool.offset(chunk));
        let desc = Desc {
            seg: u64::from(seg),
            offset: offset as u64,
            len: len as u64,
            seq: p.seq + 1,
            source_ns: now_ns() as u64,
        };
        let Publish {
            pool,
            links,
            history,
            ..
        } = p;
        for l in links.iter_mut() {
            l.push(pool, chunk, &desc);
        }
        if self.transient_local {
            pool.retain(chunk);
            history.push_back(Kept { chunk, desc });
            while history.len() > self.history_capacity {
                if let Some(old) = history.pop_front() {
                    pool.release(old.chunk);
                }
            }
            self.history_len.store(history.len(), Ordering::Relaxed);
        }
        p.seq += 1;
        Ok(())
    }

    /// A write that reaches nobody (no reader, no history): only numbered.
    pub fn skip(&self, p: &mut Publish) {
        p.seq += 1;
    }

    /// Whether a write must put the sample in shared memory at all.
    pub fn needs_chunk(&self, p: &Publish) -> bool {
        self.transient_local || !p.links.is_empty()
    }
}
