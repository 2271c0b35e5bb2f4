//! The reader's end of one link (a taken sample's guard is in `held`).
//!
//! A taken sample is a view of the writer's chunk, in a segment mapped
//! read-only. The guard holds the mapping (so it stays valid even after the
//! writer died or the link closed) and the link; dropping it releases the
//! chunk to the writer through the link's release ring. The link's last
//! reference going away — the reader dropped and every sample released —
//! tells the writer to take back whatever else it lent.
//!
//! Everything a writer put in the ring is checked before use: a segment is
//! mapped only if it is a sealed memfd at least as long as announced, and a
//! descriptor is used only if its bytes lie inside that mapping. A hostile
//! writer can make a reader see garbage bytes, never read outside a mapping.
//! The writer keeps write access to a chunk it lent, so a sample's bytes are
//! never handed out as `&[u8]`: they are `SharedBytes`, read by `Relaxed`
//! word loads, and decoders copy each value out before checking it.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, Weak};

use hibari_transport::{CdrBytes, EndpointId};

use crate::core::{Core, PeerKey};
use crate::held::{hold, HeldSlots};
use crate::layout::Rings;
use crate::pool::MAX_SEGMENTS;
use crate::proto::Msg;
use crate::ring::{writer_waits_for, Consumer, Desc, Releaser, Took};
use crate::sock::{self, Received};
use crate::state::lock;
use crate::sys::{self, Mapping};

/// The largest segment a reader maps: a writer's segments are at most
/// 256 MiB, or one chunk (at most 4 GiB) and its header.
const MAX_SEGMENT_LEN: u64 = 1 << 33;

/// The most bytes of one writer's segments a reader keeps mapped at once. A
/// hostile writer announcing ever more (sparse, sealed) segments could
/// otherwise fill the reader's address space; past this, its announcements
/// are refused and samples in them count as garbage.
const MAX_LINK_MAPPED: u64 = 64 << 30;

/// Whether a segment of `len` bytes may replace one of `old` bytes in a link
/// that maps `mapped` bytes now.
fn admit(mapped: u64, old: u64, len: u64) -> bool {
    len > 0 && len <= MAX_SEGMENT_LEN && mapped - old + len <= MAX_LINK_MAPPED
}

struct Release {
    releaser: Releaser,
    /// Positions that did not fit in the release ring yet.
    overflow: Vec<u64>,
}

/// The reader's end of a link, shared with the samples taken through it.
pub(crate) struct ReaderLink {
    pub writer: EndpointId,
    pub reader: EndpointId,
    pub peer: PeerKey,
    rings: Rings,
    release: Mutex<Release>,
    /// Whether `overflow` holds positions (checked without the lock).
    overflowing: AtomicBool,
    /// The writer's eventfd, signalled when it waits for room or chunks.
    room: OwnedFd,
    core: Weak<Core>,
    /// Slots for taken samples (see `held`).
    pub(crate) held: HeldSlots,
}

impl ReaderLink {
    /// Returns the chunk at `pos` to the writer.
    pub fn release(&self, pos: u64) {
        let mut rel = lock(&self.release);
        let Release { releaser, overflow } = &mut *rel;
        let (w, r) = (self.rings.w(), self.rings.r());
        let mut pushed = false;
        while let Some(&old) = overflow.first() {
            if !releaser.push(&w, &r, old) {
                break;
            }
            overflow.remove(0);
            pushed = true;
        }
        if overflow.is_empty() && releaser.push(&w, &r, pos) {
            pushed = true;
        } else {
            overflow.push(pos);
        }
        self.overflowing.store(!overflow.is_empty(), Relaxed);
        drop(rel);
        if pushed && writer_waits_for(&w, r.tail.load(Relaxed)) {
            sys::signal(self.room.as_fd());
        }
    }

    /// Retries releases that did not fit in the ring before.
    pub fn flush(&self) {
        if !self.overflowing.load(Relaxed) {
            return;
        }
        let mut rel = lock(&self.release);
        let Release { releaser, overflow } = &mut *rel;
        let (w, r) = (self.rings.w(), self.rings.r());
        let before = overflow.len();
        while let Some(&old) = overflow.first() {
            if !releaser.push(&w, &r, old) {
                break;
            }
            overflow.remove(0);
        }
        self.overflowing.store(!overflow.is_empty(), Relaxed);
        let pushed = overflow.len() < before;
        drop(rel);
        if pushed && writer_waits_for(&w, r.tail.load(Relaxed)) {
            sys::signal(self.room.as_fd());
        }
    }
}

impl Drop for ReaderLink {
    fn drop(&mut self) {
        if let Some(core) = self.core.upgrade() {
            let closed = Msg::Closed {
                writer: self.writer,
                reader: self.reader,
            };
            core.post(vec![(self.peer, closed)]);
        }
    }
}

/// The reader's private state of a link (under the reader's lock).
pub(crate) struct LinkState {
    pub link: Arc<ReaderLink>,
    consumer: Consumer,
    segments: Vec<Option<Arc<Mapping>>>,
    /// The bytes of `segments`.
    mapped: u64,
    announcements: OwnedFd,
    /// The writer's lifespan in ns, if any.
    pub lifespan_ns: Option<u128>,
    /// Losses since the last sample taken from this writer.
    pub pending_lost: u64,
    /// The writer broke the protocol: nothing more is taken from it.
    pub broken: bool,
    /// The writer left: its queued samples are still taken, then the link
    /// goes.
    pub orphaned: bool,
    /// Descriptors in a row that pointed outside the writer's memory.
    pub garbage: u32,
}

impl LinkState {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        writer: EndpointId,
        reader: EndpointId,
        peer: PeerKey,
        rings: Rings,
        announcements: OwnedFd,
        room: OwnedFd,
        lifespan_ns: Option<u128>,
        core: Weak<Core>,
    ) -> LinkState {
        let consumer = Consumer::new(rings.capacity());
        let releaser = Releaser::new(rings.release_capacity());
        LinkState {
            link: Arc::new(ReaderLink {
                writer,
                reader,
                peer,
                rings,
                release: Mutex::new(Release {
                    releaser,
                    overflow: Vec::new(),
                }),
                overflowing: AtomicBool::new(false),
                room,
                core,
                held: HeldSlots::new(),
            }),
            consumer,
            segments: Vec::new(),
            mapped: 0,
            announcements,
            lifespan_ns,
            pending_lost: 0,
            broken: false,
            orphaned: false,
            garbage: 0,
        }
    }

    /// Samples waiting, and pushes already overwritten unclaimed.
    pub fn pending(&self) -> (u64, u64) {
        if self.broken {
            return (0, 0);
        }
        self.consumer.pending(&self.link.rings.w())
    }

    /// The next sample's source timestamp, if one waits.
    pub fn peek_source(&self) -> Option<u64> {
        if self.broken {
            return None;
        }
        self.consumer.peek_source(&self.link.rings.w())
    }

    /// Arms the wake-up; returns whether something arrived meanwhile.
    pub fn arm(&self) -> bool {
        !self.broken
            && self
                .consumer
                .arm(&self.link.rings.w(), &self.link.rings.r())
    }

    /// Claims the next sample; losses on the way are added to `lost`.
    pub fn take(&mut self, lost: &mut u64) -> Option<(u64, Desc)> {
        let (w, r) = (self.link.rings.w(), self.link.rings.r());
        let link = &self.link;
        let mut before = 0;
        let took = self
            .consumer
            .take(&w, &r, &mut before, &mut |pos| link.release(pos));
        *lost += before;
        self.pending_lost += before;
        match took {
            Took::Empty => None,
            Took::Sample { pos, desc } => {
                if self.consumer.writer_waits(&w) {
                    sys::signal(self.link.room.as_fd());
                }
                Some((pos, desc))
            }
        }
    }

    /// The bytes `desc` points at, checked against the segment (mapped on
    /// first use); `None` if they are not inside it.
    pub fn resolve(&mut self, pos: u64, desc: &Desc) -> Option<CdrBytes> {
        let seg = usize::try_from(desc.seg)
            .ok()
            .filter(|&s| s < MAX_SEGMENTS)?;
        if self.segments.get(seg).is_none_or(|m| m.is_none()) && !self.receive_segments(seg) {
            return None;
        }
        let map = self.segments[seg].as_ref()?;
        let offset = usize::try_from(desc.offset).ok()?;
        let len = usize::try_from(desc.len).ok()?;
        if offset.checked_add(len)? > map.len() {
            return None;
        }
        Some(hold(&self.link, map, offset, len, pos))
    }

    /// Maps the segments the writer announced, until `want` is among them.
    fn receive_segments(&mut self, want: usize) -> bool {
        let mut buf = [0u8; 64];
        loop {
            let mut fds = Vec::new();
            match sock::recv(self.announcements.as_fd(), &mut buf, &mut fds) {
                Ok(Received::Message(13)) if buf[0] == b'S' && fds.len() == 1 => {
                    let seg = u32::from_le_bytes(buf[1..5].try_into().expect("4 bytes")) as usize;
                    let len = u64::from_le_bytes(buf[5..13].try_into().expect("8 bytes"));
                    let old = self
                        .segments
                        .get(seg)
                        .and_then(|m| m.as_ref())
                        .map_or(0, |m| m.len() as u64);
                    if seg >= MAX_SEGMENTS || !admit(self.mapped, old, len) {
                        continue;
                    }
                    let Some(map) = map_segment(fds.pop().expect("one fd"), len as usize) else {
                        continue;
                    };
                    if self.segments.len() <= seg {
                        self.segments.resize(seg + 1, None);
                    }
                    self.mapped = self.mapped - old + len;
                    self.segments[seg] = Some(Arc::new(map));
                    if seg == want {
                        return true;
                    }
                }
                Ok(Received::Message(_)) => continue,
                Ok(Received::Empty) => return false,
                Ok(Received::Closed) | Err(_) => return false,
            }
        }
    }
}

fn map_segment(fd: OwnedFd, len: usize) -> Option<Mapping> {
    sys::check_received(fd.as_fd(), len).ok()?;
    Mapping::read_only(fd.as_fd(), len).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_maps_at_most_its_limit_of_segments() {
        assert!(admit(0, 0, 256 << 20));
        assert!(!admit(0, 0, 0), "an empty segment");
        assert!(!admit(0, 0, MAX_SEGMENT_LEN + 1), "a segment too long");
        // Eight 8 GiB segments fill 64 GiB; a ninth is refused ...
        let mut mapped = 0;
        for _ in 0..8 {
            assert!(admit(mapped, 0, MAX_SEGMENT_LEN));
            mapped += MAX_SEGMENT_LEN;
        }
        assert!(!admit(mapped, 0, 4096));
        // ... but one may replace another of its size.
        assert!(admit(mapped, MAX_SEGMENT_LEN, MAX_SEGMENT_LEN));
    }
}
