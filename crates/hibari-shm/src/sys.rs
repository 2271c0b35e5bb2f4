//! The operating-system objects the transport is built from, behind small
//! checked wrappers: sealed memfds, their mappings, and eventfds.
//!
//! Everything here is freed by the kernel when the last process holding it
//! exits or closes it: a memfd lives while a descriptor or a mapping of it
//! exists, nothing is ever named in a file system.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::time::Instant;

use hibari_cdr::{SharedBytes, WORD};
use rustix::event::{poll, PollFd, PollFlags};
use rustix::fs::{self, MemfdFlags, Mode, OFlags, SealFlags};
use rustix::io::{self, Errno};
use rustix::mm::{self, MapFlags, ProtFlags};

/// Seals every shared memfd carries from its creation: its size never
/// changes, so a mapping of it can never fault (SIGBUS) because someone
/// shrank it, and it cannot be grown (or hole-punched past its end).
const SIZE_SEALS: SealFlags = SealFlags::SHRINK.union(SealFlags::GROW);

/// Seals added once the owner has mapped it writable: no new writable
/// mapping and no `write`/`pwrite`/hole punch through any descriptor, ever
/// (the owner's existing mapping stays writable), and no further change of
/// the seals.
const WRITE_SEALS: SealFlags = SealFlags::FUTURE_WRITE.union(SealFlags::SEAL);

/// Creates an anonymous shared-memory file of `len` bytes (zeroed), sealed
/// against any change of size and readable by its owner only (mode 0400;
/// the mode only matters to a process that reopens it by path).
pub(crate) fn memfd(name: &str, len: usize) -> io::Result<OwnedFd> {
    let fd = fs::memfd_create(name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
    fs::ftruncate(&fd, len as u64)?;
    fs::fchmod(&fd, Mode::RUSR)?;
    fs::fcntl_add_seals(&fd, SIZE_SEALS)?;
    Ok(fd)
}

/// Creates shared memory of `len` bytes that only its owner can write: the
/// owner's writable mapping, and a read-only descriptor to give peers.
///
/// The memfd is mapped first and then sealed with `F_SEAL_FUTURE_WRITE`
/// and `F_SEAL_SEAL`, so the kernel refuses every later way of writing it
/// to everyone, the owner included: a new writable shared mapping (even of
/// a descriptor reopened read-write through `/proc/<pid>/fd`), `write`,
/// `pwrite`, hole punching, `ftruncate`, and turning a read-only mapping
/// writable (`mprotect`). Only the mapping returned here writes it.
pub(crate) fn create_shared(name: &str, len: usize) -> io::Result<(Mapping, OwnedFd)> {
    let fd = memfd(name, len)?;
    let map = Mapping::read_write(fd.as_fd(), len)?;
    fs::fcntl_add_seals(&fd, WRITE_SEALS)?;
    let peer_fd = reopen_read_only(fd.as_fd())?;
    Ok((map, peer_fd))
}

/// A new descriptor for the same memfd that only allows reading: a peer
/// given it can map the memory, but never writably.
pub(crate) fn reopen_read_only(fd: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    use std::os::fd::AsRawFd;
    let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
    fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
}

/// Checks a memfd received from a peer before mapping it: sealed against
/// shrinking (so it can never fault) and at least `min_len` bytes long.
/// Returns its size.
pub(crate) fn check_received(fd: BorrowedFd<'_>, min_len: usize) -> io::Result<usize> {
    let seals = fs::fcntl_get_seals(fd)?;
    if !seals.contains(SealFlags::SHRINK) {
        return Err(Errno::PERM);
    }
    let size = usize::try_from(fs::fstat(fd)?.st_size).map_err(|_| Errno::INVAL)?;
    if size < min_len {
        return Err(Errno::INVAL);
    }
    Ok(size)
}

/// A shared mapping of a memfd, unmapped on drop.
pub(crate) struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a mapping is memory owned by the struct (unmapped once, on drop,
// whichever thread drops it); its safe methods hand out only atomics and
// `SharedBytes` (atomic loads), which any thread may use at once, and the
// raw pointer of `ptr`, whose users carry their own `SAFETY` arguments.
unsafe impl Send for Mapping {}
// SAFETY: as above: `&Mapping` gives access only through atomics.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `fd` for reading and writing (our own memory).
    pub fn read_write(fd: BorrowedFd<'_>, len: usize) -> io::Result<Mapping> {
        Self::map(fd, len, ProtFlags::READ | ProtFlags::WRITE)
    }

    /// Maps `len` bytes of `fd` for reading only (a peer's memory).
    pub fn read_only(fd: BorrowedFd<'_>, len: usize) -> io::Result<Mapping> {
        Self::map(fd, len, ProtFlags::READ)
    }

    fn map(fd: BorrowedFd<'_>, len: usize, prot: ProtFlags) -> io::Result<Mapping> {
        let size = fs::fstat(fd)?.st_size;
        if len == 0
            || len > isize::MAX as usize
            || u64::try_from(size).map_or(true, |s| (len as u64) > s)
        {
            return Err(Errno::INVAL);
        }
        // SAFETY: a fresh shared mapping chosen by the kernel (null hint)
        // aliases no Rust object. `len` is at most the file's size (checked
        // above) and every memfd of this crate, ours or a peer's (see
        // `check_received`), is sealed against shrinking, so every mapped
        // byte stays backed for the mapping's lifetime.
        let ptr = unsafe { mm::mmap(std::ptr::null_mut(), len, prot, MapFlags::SHARED, fd, 0)? };
        let ptr = NonNull::new(ptr.cast::<u8>()).ok_or(Errno::NOMEM)?;
        Ok(Mapping { ptr, len })
    }

    /// The mapped length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The first byte.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The 8-byte-aligned word at `offset` as an atomic.
    ///
    /// Panics if the word is not inside the mapping or not aligned: offsets
    /// come from this crate's layouts, never from a peer.
    pub fn atomic(&self, offset: usize) -> &AtomicU64 {
        assert!(
            offset.is_multiple_of(8) && offset.checked_add(8).is_some_and(|end| end <= self.len),
            "word {offset} outside a mapping of {} bytes",
            self.len
        );
        // SAFETY: in bounds and aligned (checked above; mappings are
        // page-aligned); `AtomicU64` has the layout of `u64`, accepts every
        // bit pattern and allows other writers, and all access to shared
        // words goes through atomics, on either side. On a read-only
        // mapping (a peer's) this crate only ever does `Relaxed` loads of
        // the word (`ring::peer_load` and plain `load(Relaxed)`), the one
        // atomic access Rust promises works on read-only memory; a store
        // would fault (SIGSEGV), never write.
        unsafe { &*self.ptr.as_ptr().add(offset).cast::<AtomicU64>() }
    }

    /// `len` bytes at `offset`, or `None` if that range is not mapped.
    ///
    /// The bytes are read only through `Relaxed` loads of whole words
    /// ([`SharedBytes`]), never as `&[u8]`: a peer that can write the memory
    /// (the writer of a chunk, through its own mapping) may change them at
    /// any time, and a shared reference would promise that it does not.
    pub fn shared_bytes(&self, offset: usize, len: usize) -> Option<SharedBytes<'_>> {
        if offset.checked_add(len)? > self.len {
            return None;
        }
        let words = self.len.div_ceil(WORD);
        // SAFETY: `ptr` is page-aligned (from mmap), so aligned for
        // `AtomicUsize`, which has the size of `usize`, accepts every bit
        // pattern and has interior mutability, so other writers are allowed.
        // The `words` words end at most `WORD - 1` bytes past `len`, inside
        // the last mapped page (mmap maps whole pages); bytes past the
        // file's end in that page read as zero, and the file cannot shrink
        // (sealed, see `check_received`), so every load is backed. The
        // slice lives no longer than `&self`, and the mapping is unmapped
        // only on drop. On a read-only mapping, `SharedBytes` performs only
        // `Relaxed` loads of pointer width, which the Rust standard library
        // documents as allowed on read-only memory (`core::sync::atomic`,
        // "Atomic accesses to read-only memory"); it never stores.
        let all = unsafe {
            std::slice::from_raw_parts(self.ptr.as_ptr().cast::<AtomicUsize>().cast_const(), words)
        };
        SharedBytes::new(all, offset, len)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` came from a successful mmap and are unmapped
        // exactly once; no reference into the mapping outlives `self`.
        let _ = unsafe { mm::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

pub(crate) use crate::eventfd::{drain, new_raw as new_eventfd, signal, timespec};

/// Makes a descriptor received from a peer non-blocking, so writing it can
/// never stall us.
pub(crate) fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let flags = fs::fcntl_getfl(fd)?;
    fs::fcntl_setfl(fd, flags | OFlags::NONBLOCK)
}

/// Checks that a descriptor a peer gave us to wake it is an eventfd, the one
/// kind whose write never blocks (its counter would have to reach 2^64 - 1).
/// Its flags are left alone: the descriptor shares its open file with the
/// peer's own (an executor's), and making it non-blocking here would change
/// that side's reads too.
pub(crate) fn check_eventfd(fd: BorrowedFd<'_>) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let target = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map_err(|e| Errno::from_io_error(&e).unwrap_or(Errno::BADF))?;
    if target.as_os_str() == "anon_inode:[eventfd]" {
        Ok(())
    } else {
        Err(Errno::INVAL)
    }
}

/// Waits until `fd` is readable or `deadline` passes; returns whether it is.
pub(crate) fn wait_readable(fd: BorrowedFd<'_>, deadline: Instant) -> bool {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        let ts = timespec(left);
        match poll(&mut fds, Some(&ts)) {
            Ok(0) => return false,
            Ok(_) => return true,
            Err(Errno::INTR) => continue,
            Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;
    use std::time::Duration;

    #[test]
    fn a_read_only_reopen_cannot_be_mapped_writable() {
        let fd = memfd("t", 4096).unwrap();
        let rw = Mapping::read_write(fd.as_fd(), 4096).unwrap();
        rw.atomic(8).store(7, std::sync::atomic::Ordering::SeqCst);
        let ro = reopen_read_only(fd.as_fd()).unwrap();
        assert!(Mapping::read_write(ro.as_fd(), 4096).is_err());
        let view = Mapping::read_only(ro.as_fd(), 4096).unwrap();
        // Relaxed: the only atomic load Rust promises on read-only memory.
        assert_eq!(view.atomic(8).load(std::sync::atomic::Ordering::Relaxed), 7);
        assert_eq!(check_received(ro.as_fd(), 4096).unwrap(), 4096);
        assert!(check_received(ro.as_fd(), 4097).is_err());
        assert!(fs::ftruncate(&fd, 1).is_err(), "sealed against shrinking");
    }

    #[test]
    fn an_unsealed_memfd_is_refused() {
        let fd = fs::memfd_create("u", MemfdFlags::CLOEXEC).unwrap();
        fs::ftruncate(&fd, 4096).unwrap();
        assert_eq!(check_received(fd.as_fd(), 1).unwrap_err(), Errno::PERM);
    }

    #[test]
    fn a_mapping_longer_than_its_file_or_empty_is_refused() {
        let fd = memfd("len", 4096).unwrap();
        assert_eq!(
            Mapping::read_only(fd.as_fd(), 8192).err(),
            Some(Errno::INVAL)
        );
        assert_eq!(Mapping::read_only(fd.as_fd(), 0).err(), Some(Errno::INVAL));
        assert!(Mapping::read_only(fd.as_fd(), 4096).is_ok());
    }

    #[test]
    fn shared_memory_is_writable_only_through_the_owners_mapping() {
        let (own, peer) = create_shared("owner", 4096).unwrap();
        own.atomic(0).store(1, std::sync::atomic::Ordering::Relaxed);
        let path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&peer));
        // Root may reopen it read-write despite mode 0400; the seals hold.
        if let Ok(rw) = fs::open(path, OFlags::RDWR, Mode::empty()) {
            assert_eq!(
                Mapping::read_write(rw.as_fd(), 4096).err(),
                Some(Errno::PERM)
            );
            assert_eq!(rustix::io::pwrite(&rw, &[1], 0).err(), Some(Errno::PERM));
        }
        assert!(Mapping::read_write(peer.as_fd(), 4096).is_err());
        own.atomic(8).store(2, std::sync::atomic::Ordering::Relaxed);
        let view = Mapping::read_only(peer.as_fd(), 4096).unwrap();
        assert_eq!(view.atomic(8).load(std::sync::atomic::Ordering::Relaxed), 2);
    }

    #[test]
    fn bytes_outside_the_mapping_are_refused() {
        let fd = memfd("b", 4096).unwrap();
        let m = Mapping::read_only(fd.as_fd(), 4096).unwrap();
        assert!(m.shared_bytes(4000, 96).is_some());
        assert!(m.shared_bytes(4000, 97).is_none());
        assert!(m.shared_bytes(usize::MAX, 2).is_none());
    }

    #[test]
    fn the_last_bytes_of_a_mapping_of_odd_length_read_back() {
        let (own, fd) = create_shared("odd", 4093).unwrap();
        // SAFETY: our own writable mapping of 4093 bytes; nothing else holds it.
        unsafe { own.ptr().add(4090).copy_from(b"xyz".as_ptr(), 3) };
        let m = Mapping::read_only(fd.as_fd(), 4093).unwrap();
        assert_eq!(m.shared_bytes(4090, 3).unwrap().to_vec(), b"xyz");
        assert!(m.shared_bytes(4090, 4).is_none());
    }

    #[test]
    fn an_eventfd_signals_and_drains() {
        let fd = new_eventfd().unwrap();
        assert!(!drain(fd.as_fd()));
        signal(fd.as_fd());
        assert!(wait_readable(
            fd.as_fd(),
            Instant::now() + Duration::from_secs(1)
        ));
        assert!(drain(fd.as_fd()));
        assert!(!wait_readable(
            fd.as_fd(),
            Instant::now() + Duration::from_millis(1)
        ));
    }
}

#[cfg(all(test, not(loom)))]
mod wake_fd_tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn only_an_eventfd_is_accepted_as_a_wake_descriptor() {
        let ev = new_eventfd().unwrap();
        assert!(check_eventfd(ev.as_fd()).is_ok());
        let mem = memfd("not-a-wake", 64).unwrap();
        assert_eq!(check_eventfd(mem.as_fd()), Err(Errno::INVAL));
    }
}
