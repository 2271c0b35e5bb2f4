//! A writer's chunks: shared segments that grow on demand, in power-of-two
//! size classes, with a reference count per chunk.
//!
//! A segment is one sealed memfd holding `count` chunks of one size class
//! (64 B, 128 B, … up to 4 GiB). When a class has no free chunk, a new
//! segment is created with twice as many chunks as the last one of that
//! class (at least one, at most 256 MiB), until the writer's byte limit.
//! Pages are only backed when written, so a large class costs address space
//! until used. Segments are never shrunk: a writer keeps its peak.
//!
//! A chunk's count is the number of holders: the write in progress (or the
//! loan), each reader it was pushed to and has not released, and the
//! transient-local history. At zero it returns to its class's free list.
//! Counts live in the writer's private memory: a peer can only ask for a
//! release through its ring, which the writer checks against its books.

use std::os::fd::OwnedFd;

use rustix::io;
use thiserror::Error;

use crate::sys::{self, Mapping};

/// Where a message starts in its chunk: 4 bytes in, so that the CDR body
/// after the 4-byte encapsulation header is 8-byte aligned and zero-copy
/// views of arrays (`&[f64]`) work in place.
pub(crate) const DATA_OFFSET: usize = 4;

const MIN_CLASS: u32 = 6;
const MAX_CLASS: u32 = 32;
const FIRST_SEGMENT: usize = 64 << 10;
const MAX_SEGMENT: usize = 256 << 20;

/// The most segments one writer creates.
pub(crate) const MAX_SEGMENTS: usize = 4096;

/// A chunk: a segment and an index in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Chunk {
    pub seg: u32,
    pub index: u32,
}

const _: () = assert!(
    (MAX_SEGMENTS as u64) << 32 < 1 << hibari_transport::TICKET_BITS,
    "a chunk's ticket fits in the transport contract's ticket bits"
);

impl Chunk {
    /// The chunk as a loan's ticket (`seg < MAX_SEGMENTS` keeps it within
    /// the contract's 56 bits).
    pub fn ticket(self) -> u64 {
        (u64::from(self.seg) << 32) | u64::from(self.index)
    }

    /// The chunk a ticket from [`ticket`](Chunk::ticket) names.
    pub fn from_ticket(ticket: u64) -> Chunk {
        Chunk {
            seg: (ticket >> 32) as u32,
            index: ticket as u32,
        }
    }
}

/// Why no chunk could be had.
#[derive(Debug, Error)]
pub(crate) enum AllocError {
    #[error("a message of {0} bytes exceeds the 4 GiB shared-memory limit")]
    TooLarge(usize),
    #[error(
        "the writer's shared memory is exhausted ({0} bytes in use): readers hold too many samples"
    )]
    Exhausted(usize),
    #[error("cannot create shared memory: {0}")]
    Os(#[from] io::Errno),
}

/// One segment.
pub(crate) struct Segment {
    /// A read-only descriptor, given to readers.
    pub peer_fd: OwnedFd,
    /// Our writable mapping.
    pub map: Mapping,
    chunk: usize,
    refs: Vec<u32>,
}

/// A writer's segments and free chunks.
pub(crate) struct Pool {
    segments: Vec<Segment>,
    free: Vec<Vec<Chunk>>,
    next_count: Vec<usize>,
    bytes: usize,
    limit: usize,
    refused_releases: u64,
}

fn class_of(len: usize) -> Option<u32> {
    let need = len.checked_add(DATA_OFFSET)?.max(1 << MIN_CLASS);
    let class = need.next_power_of_two().trailing_zeros();
    (class <= MAX_CLASS).then_some(class)
}

impl Pool {
    /// An empty pool that grows to at most `limit` bytes.
    pub fn new(limit: usize) -> Pool {
        let classes = (MAX_CLASS + 1) as usize;
        Pool {
            segments: Vec::new(),
            free: vec![Vec::new(); classes],
            next_count: vec![0; classes],
            bytes: 0,
            limit,
            refused_releases: 0,
        }
    }

    /// A chunk for a message of `len` bytes, held once (by the caller).
    pub fn alloc(&mut self, len: usize) -> Result<Chunk, AllocError> {
        let class = class_of(len).ok_or(AllocError::TooLarge(len))?;
        if self.free[class as usize].is_empty() {
            self.grow(class)?;
        }
        let chunk = self.free[class as usize]
            .pop()
            .expect("grow added free chunks");
        self.segments[chunk.seg as usize].refs[chunk.index as usize] = 1;
        Ok(chunk)
    }

    fn grow(&mut self, class: u32) -> Result<(), AllocError> {
        let size = 1usize << class;
        let wanted = match self.next_count[class as usize] {
            0 => (FIRST_SEGMENT / size).max(1),
            n => n,
        };
        let mut count = wanted.min((MAX_SEGMENT / size).max(1));
        let room = self.limit.saturating_sub(self.bytes) / size;
        count = count.min(room);
        if count == 0 || self.segments.len() >= MAX_SEGMENTS {
            return Err(AllocError::Exhausted(self.bytes));
        }
        let len = size * count;
        let (map, peer_fd) = sys::create_shared("hibari-chunks", len)?;
        let seg = self.segments.len() as u32;
        self.segments.push(Segment {
            peer_fd,
            map,
            chunk: size,
            refs: vec![0; count],
        });
        self.bytes += len;
        self.next_count[class as usize] = count * 2;
        self.free[class as usize].extend((0..count as u32).rev().map(|index| Chunk { seg, index }));
        Ok(())
    }

    /// The segment `seg`.
    pub fn segment(&self, seg: u32) -> &Segment {
        &self.segments[seg as usize]
    }

    /// The offset of the chunk's message in its segment.
    pub fn offset(&self, chunk: Chunk) -> usize {
        self.segments[chunk.seg as usize].chunk * chunk.index as usize + DATA_OFFSET
    }

    /// Where the chunk's message bytes start, for writing up to `len` of
    /// them (checked against the chunk's size). The pointer stays valid as
    /// long as the pool: segments are never unmapped before it.
    pub fn data_ptr(&self, chunk: Chunk, len: usize) -> *mut u8 {
        let seg = &self.segments[chunk.seg as usize];
        assert!(
            len <= seg.chunk - DATA_OFFSET,
            "a message longer than its chunk"
        );
        let offset = self.offset(chunk);
        assert!(offset + len <= seg.map.len());
        // SAFETY: `offset + len` is inside the mapping (asserted above).
        unsafe { seg.map.ptr().add(offset) }
    }

    /// One more holder.
    pub fn retain(&mut self, chunk: Chunk) {
        self.segments[chunk.seg as usize].refs[chunk.index as usize] += 1;
    }

    /// One holder fewer; the chunk is free again at zero.
    ///
    /// A release of a chunk nobody holds (a bug) is refused and counted
    /// ([`Pool::refused_releases`]), in every build: freeing it again would
    /// put it twice on the free list and hand it to two writes at once.
    pub fn release(&mut self, chunk: Chunk) {
        let seg = &mut self.segments[chunk.seg as usize];
        let refs = &mut seg.refs[chunk.index as usize];
        if *refs == 0 {
            self.refused_releases += 1;
            return;
        }
        *refs -= 1;
        if *refs == 0 {
            let class = seg.chunk.trailing_zeros() as usize;
            self.free[class].push(chunk);
        }
    }

    /// Releases refused because the chunk was not held (0 unless there is
    /// a bug in the books of this crate).
    pub fn refused_releases(&self) -> u64 {
        self.refused_releases
    }

    /// Bytes of shared memory the pool holds.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Chunks held by someone (for tests and status).
    pub fn in_use(&self) -> usize {
        self.segments
            .iter()
            .map(|s| s.refs.iter().filter(|&&r| r > 0).count())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_leave_room_for_the_offset() {
        assert_eq!(class_of(0), Some(6));
        assert_eq!(class_of(60), Some(6));
        assert_eq!(class_of(61), Some(7));
        assert_eq!(class_of(6_220_800), Some(23));
        assert_eq!(class_of(usize::MAX), None);
    }

    #[test]
    fn chunks_are_reused_after_their_last_release_and_segments_grow() {
        let mut pool = Pool::new(1 << 30);
        let a = pool.alloc(100).unwrap();
        pool.retain(a);
        pool.release(a);
        assert_eq!(pool.in_use(), 1);
        pool.release(a);
        assert_eq!(pool.in_use(), 0);
        assert_eq!(pool.alloc(100).unwrap(), a, "reused");
        let big: Vec<_> = (0..3).map(|_| pool.alloc(6_220_800).unwrap()).collect();
        assert_eq!(pool.in_use(), 4);
        let segs: std::collections::HashSet<_> = big.iter().map(|c| c.seg).collect();
        assert_eq!(segs.len(), 2, "1 then 2 chunks of 8 MiB");
        let ptr = pool.data_ptr(big[2], 6_220_800);
        // SAFETY: the chunk was just allocated and is held by nobody else.
        unsafe { std::slice::from_raw_parts_mut(ptr, 6_220_800) }.fill(7);
        assert_eq!(pool.offset(big[0]) % 8, DATA_OFFSET);
    }

    #[test]
    fn a_double_release_is_refused_and_counted_and_the_chunk_is_handed_out_once() {
        let mut pool = Pool::new(1 << 30);
        let a = pool.alloc(100).unwrap();
        pool.release(a);
        pool.release(a);
        assert_eq!(pool.refused_releases(), 1);
        let b = pool.alloc(100).unwrap();
        let c = pool.alloc(100).unwrap();
        assert_ne!(b, c, "a chunk freed twice would be handed out twice");
        assert_eq!(pool.in_use(), 2);
    }

    #[test]
    fn the_byte_limit_is_kept() {
        let mut pool = Pool::new(100 << 10);
        let _a = pool.alloc(60 << 10).unwrap();
        assert!(matches!(
            pool.alloc(60 << 10),
            Err(AllocError::Exhausted(_))
        ));
        assert!(matches!(pool.alloc(1 << 33), Err(AllocError::TooLarge(_))));
    }
}
