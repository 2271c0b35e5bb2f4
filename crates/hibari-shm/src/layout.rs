//! Where the ring words sit in the two shared regions of a link.
//!
//! Each (writer, reader) link has two regions, each a sealed memfd written
//! by its owner only and mapped read-only by the other side:
//!
//! ```text
//! writer region                       reader region
//!   0   magic "HBRIwrg1"                0   magic "HBRIrdr1"
//!   64  head                            64  tail
//!   128 room_waiting                    128 armed
//!   192 release_tail                    192 release_head
//!   256 slots: capacity × 64 B          256 releases: release capacity × 8 B
//! ```
//!
//! Every word has its own cache line, so the two sides never share one for
//! writing. The capacities are agreed in the control messages; a side never
//! reads a length from the other's memory.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::atomic::Ordering::Relaxed;

use rustix::io::{self, Errno};

use crate::ring::{ReaderWords, Slot, WriterWords};
use crate::sys::{self, Mapping};

const WRITER_MAGIC: u64 = u64::from_le_bytes(*b"HBRIwrg1");
const READER_MAGIC: u64 = u64::from_le_bytes(*b"HBRIrdr1");
const HEADER: usize = 256;

/// The largest ring (keep-all readers are clamped to it).
pub(crate) const MAX_CAPACITY: usize = 1 << 16;

/// The byte length of a writer region with `capacity` slots.
pub(crate) fn writer_len(capacity: usize) -> usize {
    HEADER + capacity * std::mem::size_of::<Slot>()
}

/// The byte length of a reader region with `release_capacity` entries.
pub(crate) fn reader_len(release_capacity: usize) -> usize {
    HEADER + release_capacity * 8
}

/// The release ring a reader makes for a delivery ring of `capacity`: room
/// for every queued sample and as many held, plus slack.
pub(crate) fn release_capacity(capacity: usize) -> usize {
    (capacity * 2 + 64).min(2 * MAX_CAPACITY)
}

/// A region we own: mapped writable, with a read-only descriptor to give
/// the peer.
pub(crate) struct OwnRegion {
    pub map: Mapping,
    pub peer_fd: OwnedFd,
}

fn create(name: &str, len: usize, magic: u64) -> io::Result<OwnRegion> {
    let (map, peer_fd) = sys::create_shared(name, len)?;
    map.atomic(0).store(magic, Relaxed);
    Ok(OwnRegion { map, peer_fd })
}

/// Creates the writer region of a ring of `capacity`.
pub(crate) fn create_writer_region(capacity: usize) -> io::Result<OwnRegion> {
    create("hibari-ring", writer_len(capacity), WRITER_MAGIC)
}

/// Creates the reader region of a release ring of `release_capacity`;
/// `armed` starts at 1 so that the first sample wakes the reader.
pub(crate) fn create_reader_region(release_capacity: usize) -> io::Result<OwnRegion> {
    let region = create("hibari-release", reader_len(release_capacity), READER_MAGIC)?;
    region.map.atomic(128).store(1, Relaxed);
    Ok(region)
}

fn map_peer(fd: BorrowedFd<'_>, len: usize, magic: u64) -> io::Result<Mapping> {
    sys::check_received(fd, len)?;
    let map = Mapping::read_only(fd, len)?;
    if map.atomic(0).load(Relaxed) != magic {
        return Err(Errno::INVAL);
    }
    Ok(map)
}

/// Maps a peer writer's region of a ring of `capacity`, read-only.
pub(crate) fn map_writer_region(fd: BorrowedFd<'_>, capacity: usize) -> io::Result<Mapping> {
    map_peer(fd, writer_len(capacity), WRITER_MAGIC)
}

/// Maps a peer reader's region, read-only.
pub(crate) fn map_reader_region(
    fd: BorrowedFd<'_>,
    release_capacity: usize,
) -> io::Result<Mapping> {
    map_peer(fd, reader_len(release_capacity), READER_MAGIC)
}

/// Both regions of a link (one ours, one the peer's) and their capacities.
pub(crate) struct Rings {
    writer: Mapping,
    reader: Mapping,
    capacity: usize,
    release_capacity: usize,
}

impl Rings {
    /// Checks that both mappings are long enough for the capacities.
    pub fn new(
        writer: Mapping,
        reader: Mapping,
        capacity: usize,
        release_capacity: usize,
    ) -> io::Result<Rings> {
        if capacity == 0
            || release_capacity == 0
            || writer.len() < writer_len(capacity)
            || reader.len() < reader_len(release_capacity)
        {
            return Err(Errno::INVAL);
        }
        Ok(Rings {
            writer,
            reader,
            capacity,
            release_capacity,
        })
    }

    /// The delivery ring's capacity.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The release ring's capacity.
    pub fn release_capacity(&self) -> usize {
        self.release_capacity
    }

    /// The writer's words.
    pub fn w(&self) -> WriterWords<'_> {
        // SAFETY: `new` checked that the slots lie inside the mapping; the
        // offset is 64-aligned in a page-aligned mapping and `Slot` is
        // `repr(C, align(64))` made of atomics, which both sides only ever
        // access atomically: its owner through its writable mapping, the
        // peer through its read-only one with `Relaxed` loads only (see
        // `Mapping::atomic`). The slice lives no longer than `&self`.
        let slots = unsafe {
            std::slice::from_raw_parts(self.writer.ptr().add(HEADER).cast::<Slot>(), self.capacity)
        };
        WriterWords {
            head: self.writer.atomic(64),
            room_waiting: self.writer.atomic(128),
            release_tail: self.writer.atomic(192),
            slots,
        }
    }

    /// The reader's words.
    pub fn r(&self) -> ReaderWords<'_> {
        // SAFETY: as in `w`: in bounds (checked by `new`), aligned, atomics.
        let releases = unsafe {
            std::slice::from_raw_parts(
                self.reader
                    .ptr()
                    .add(HEADER)
                    .cast::<std::sync::atomic::AtomicU64>(),
                self.release_capacity,
            )
        };
        ReaderWords {
            tail: self.reader.atomic(64),
            armed: self.reader.atomic(128),
            release_head: self.reader.atomic(192),
            releases,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::{Consumer, Desc, Producer, Pushed, Took};
    use std::os::fd::AsFd;

    #[test]
    fn a_ring_works_across_two_mappings_of_each_region() {
        let w = create_writer_region(4).unwrap();
        let r = create_reader_region(release_capacity(4)).unwrap();
        let w_peer = map_writer_region(w.peer_fd.as_fd(), 4).unwrap();
        let r_peer = map_reader_region(r.peer_fd.as_fd(), release_capacity(4)).unwrap();
        let writer_side = Rings::new(w.map, r_peer, 4, release_capacity(4)).unwrap();
        let reader_side = Rings::new(w_peer, r.map, 4, release_capacity(4)).unwrap();
        let mut p = Producer::new(4);
        let desc = Desc {
            seg: 1,
            offset: 2,
            len: 3,
            seq: 4,
            source_ns: 5,
        };
        let pushed = p.push(&writer_side.w(), &writer_side.r(), &desc, false);
        assert_eq!(
            pushed,
            Pushed::Done {
                dropped: None,
                wake: true
            }
        );
        let mut c = Consumer::new(4);
        let mut lost = 0;
        let took = c.take(&reader_side.w(), &reader_side.r(), &mut lost, &mut |_| {});
        assert_eq!(took, Took::Sample { pos: 0, desc });
    }

    #[test]
    fn a_short_or_foreign_region_is_refused() {
        let w = create_writer_region(4).unwrap();
        assert!(map_writer_region(w.peer_fd.as_fd(), 5).is_err());
        let r = create_reader_region(8).unwrap();
        assert!(
            map_writer_region(r.peer_fd.as_fd(), 1).is_err(),
            "wrong magic"
        );
    }
}
