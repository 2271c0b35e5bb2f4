//! The writer's end of one link: its ring, the chunks the reader holds, and
//! the segments the reader was told about.
//!
//! The writer keeps, per link, the book of positions pushed and not yet
//! returned, each with its chunk. A position leaves the book when the
//! reader releases it (through its release ring), when the writer
//! overwrites it unclaimed, or when the link closes. Releases of positions
//! not in the book (already taken back, or invented by a broken peer) are
//! ignored, so a peer can never make the writer free a chunk twice.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::os::fd::{AsFd, OwnedFd};

use hibari_transport::EndpointId;

use crate::core::PeerKey;
use crate::layout::Rings;
use crate::pool::{Chunk, Pool};
use crate::ring::{Desc, Producer, Pushed, Reclaimer};
use crate::sock;
use crate::watch::RoomWatch;

/// Hashes ring positions (sequential integers) cheaply.
#[derive(Default)]
pub(crate) struct PosHasher(u64);

impl Hasher for PosHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Position → the chunk pushed there and the payload bytes it carries.
type Book = HashMap<u64, (Chunk, u64), BuildHasherDefault<PosHasher>>;

/// Samples a reader may hold (taken and not dropped) beyond its ring
/// before it gets no more: one greedy or stuck reader cannot make a writer
/// exhaust its memory for everyone else.
pub(crate) const MAX_HELD: usize = 4096;

/// Encodes the announcement of a segment on a link's segment socket:
/// `b'S'`, the segment number (`u32`) and its length (`u64`).
pub(crate) fn segment_message(seg: u32, len: u64) -> [u8; 13] {
    let mut m = [0u8; 13];
    m[0] = b'S';
    m[1..5].copy_from_slice(&seg.to_le_bytes());
    m[5..13].copy_from_slice(&len.to_le_bytes());
    m
}

/// The writer's end of a link.
pub(crate) struct WriterLink {
    pub reader: EndpointId,
    pub peer: PeerKey,
    pub reliable: bool,
    /// A keep-all reader's limit on `booked_bytes` (`u64::MAX`: none).
    max_bytes: u64,
    /// Payload bytes of the samples in the book (queued or held).
    booked_bytes: u64,
    rings: Rings,
    producer: Producer,
    reclaimer: Reclaimer,
    book: Book,
    announced: Vec<bool>,
    segments: OwnedFd,
    wake: OwnedFd,
    /// The peer broke the protocol: nothing more is pushed.
    pub broken: bool,
    /// Whether watching this reader's ring for room pays.
    watch: RoomWatch,
}

impl WriterLink {
    pub fn new(
        reader: EndpointId,
        peer: PeerKey,
        reliable: bool,
        max_bytes: u64,
        rings: Rings,
        segments: OwnedFd,
        wake: OwnedFd,
    ) -> WriterLink {
        WriterLink {
            reader,
            peer,
            reliable,
            max_bytes,
            booked_bytes: 0,
            producer: Producer::new(rings.capacity()),
            reclaimer: Reclaimer::new(rings.release_capacity()),
            rings,
            book: Book::default(),
            announced: Vec::new(),
            segments,
            wake,
            broken: false,
            watch: RoomWatch::default(),
        }
    }

    /// Whether a push would not overwrite (or the link is broken and
    /// takes nothing).
    pub fn has_room(&self) -> bool {
        self.broken || self.producer.has_room(&self.rings.r())
    }

    /// Watches a full ring for room before the writer sleeps (see
    /// [`RoomWatch`]); returns whether there is room now.
    pub fn watch_for_room(&self) -> bool {
        self.watch.watch(|| self.has_room())
    }

    /// Whether pushing `len` more bytes would take a reliable keep-all
    /// reader past its byte limit (one sample always fits, so a sample
    /// larger than the limit still goes out alone).
    pub fn over_bytes(&self, len: u64) -> bool {
        !self.broken
            && self.reliable
            && !self.book.is_empty()
            && self.booked_bytes.saturating_add(len) > self.max_bytes
    }

    /// The ring's capacity.
    pub fn capacity(&self) -> usize {
        self.rings.capacity()
    }

    /// Sets `room_waiting` for `free` free slots (0: any claim or
    /// release); returns whether there is room after all.
    pub fn prepare_wait(&self, free: u64) -> bool {
        self.broken
            || self
                .producer
                .prepare_wait(&self.rings.w(), &self.rings.r(), free)
    }

    /// Clears `room_waiting`.
    pub fn end_wait(&self) {
        self.producer.end_wait(&self.rings.w());
    }

    /// Replaces the descriptor that wakes the reader.
    pub fn set_wake(&mut self, fd: OwnedFd) {
        self.wake = fd;
    }

    /// Tells the reader about `seg` unless it knows it already.
    fn announce(&mut self, pool: &Pool, seg: u32) -> bool {
        let i = seg as usize;
        if self.announced.get(i).copied().unwrap_or(false) {
            return true;
        }
        let segment = pool.segment(seg);
        let m = segment_message(seg, segment.map.len() as u64);
        if sock::send(self.segments.as_fd(), &m, &[segment.peer_fd.as_fd()]).is_err() {
            return false;
        }
        if self.announced.len() <= i {
            self.announced.resize(i + 1, false);
        }
        self.announced[i] = true;
        true
    }

    /// Pushes `chunk` (described by `desc`): the reader now holds it too.
    /// Best-effort readers overwrite their oldest unclaimed sample, whose
    /// chunk comes back. Returns whether the sample was pushed.
    pub fn push(&mut self, pool: &mut Pool, chunk: Chunk, desc: &Desc) -> bool {
        if self.broken
            || self.book.len() >= self.rings.capacity() + MAX_HELD
            || !self.announce(pool, chunk.seg)
        {
            return false;
        }
        let pos = self.producer.head();
        match self
            .producer
            .push(&self.rings.w(), &self.rings.r(), desc, !self.reliable)
        {
            Pushed::Full => false,
            Pushed::Done { dropped, wake } => {
                pool.retain(chunk);
                self.book.insert(pos, (chunk, desc.len));
                self.booked_bytes += desc.len;
                if let Some((old, len)) = dropped.and_then(|d| self.book.remove(&d)) {
                    self.booked_bytes -= len;
                    pool.release(old);
                }
                if wake {
                    crate::sys::signal(self.wake.as_fd());
                }
                true
            }
        }
    }

    /// Whether the reader released something not yet reclaimed.
    pub fn has_releases(&self) -> bool {
        self.reclaimer.has_pending(&self.rings.r())
    }

    /// Takes back every chunk the reader released.
    pub fn reclaim(&mut self, pool: &mut Pool) {
        if self.broken || !self.has_releases() {
            return;
        }
        let (book, bytes) = (&mut self.book, &mut self.booked_bytes);
        let drained = self
            .reclaimer
            .drain(&self.rings.w(), &self.rings.r(), |pos| {
                if let Some((chunk, len)) = book.remove(&pos) {
                    *bytes -= len;
                    pool.release(chunk);
                }
            });
        if drained.is_err() {
            self.broken = true;
        }
    }

    /// The link is gone: every chunk still booked comes back.
    pub fn close(mut self, pool: &mut Pool) {
        self.reclaim(pool);
        for (_, (chunk, _)) in self.book.drain() {
            pool.release(chunk);
        }
        self.booked_bytes = 0;
    }

    /// Writes garbage into the ring and the segment socket, as a broken or
    /// hostile writer would (for tests of the reader's defences).
    pub fn scribble(&mut self, seed: u64) {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let w = self.rings.w();
        let cap = self.rings.capacity() as u64;
        let head = self.producer.head();
        let words = |n: &mut dyn FnMut() -> u64| {
            let seg = n() % 6;
            let offset = match n() % 3 {
                0 => n(),
                1 => n() % (1 << 20),
                _ => 0,
            };
            let len = match n() % 3 {
                0 => n(),
                1 => n() % (1 << 24),
                _ => 16,
            };
            [seg, offset, len, n(), n()]
        };
        match next() % 4 {
            // Valid-looking stamps on garbage descriptors, head moved on.
            0 | 1 => {
                let extra = next() % (cap + 2);
                for pos in head.saturating_sub(cap)..head + extra {
                    let ws = words(&mut next);
                    w.slots[(pos % cap) as usize].scribble(Some(pos), ws, 0);
                }
                w.head
                    .store(head + extra, std::sync::atomic::Ordering::Release);
            }
            // Random stamps and a random head.
            2 => {
                for slot in w.slots {
                    let ws = words(&mut next);
                    slot.scribble(None, ws, next());
                }
                w.head.store(next(), std::sync::atomic::Ordering::Release);
            }
            // Bogus segment announcements: not a memfd, unsealed, too short.
            _ => {
                let seg = (next() % 6) as u32;
                let fd = match next() % 3 {
                    0 => crate::sys::new_eventfd().ok(),
                    1 => rustix::fs::memfd_create("bogus", rustix::fs::MemfdFlags::CLOEXEC).ok(),
                    _ => crate::sys::memfd("short", 4096).ok(),
                };
                if let Some(fd) = fd {
                    let m = segment_message(seg, next() % (1 << 30));
                    let _ = sock::send(self.segments.as_fd(), &m, &[fd.as_fd()]);
                }
                let _ = sock::send(self.segments.as_fd(), &next().to_le_bytes(), &[]);
            }
        }
    }
}
