//! The operating-system objects the transport is built from, behind small
//! checked wrappers: sealed memfds, their mappings, and eventfds.
//!
//! Everything here is freed by the kernel when the last process holding it
//! exits or closes it: a memfd lives while a descriptor or a mapping of it
//! exists, nothing is ever named in a file system.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use rustix::event::{poll, PollFd, PollFlags};
use rustix::fs::{self, MemfdFlags, Mode, OFlags, SealFlags};
use rustix::io::{self, Errno};
use rustix::mm::{self, MapFlags, ProtFlags};

/// Seals every shared segment carries: its size never changes, so a mapping
/// of it can never fault (SIGBUS) because its owner shrank it.
const SEALS: SealFlags = SealFlags::SHRINK
    .union(SealFlags::GROW)
    .union(SealFlags::SEAL);

/// Creates an anonymous, sealed shared-memory file of `len` bytes (zeroed).
pub(crate) fn memfd(name: &str, len: usize) -> io::Result<OwnedFd> {
    let fd = fs::memfd_create(name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
    fs::ftruncate(&fd, len as u64)?;
    fs::fcntl_add_seals(&fd, SEALS)?;
    Ok(fd)
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

// SAFETY: a mapping is plain memory; every access through it goes through
// atomics or through the chunk hand-over protocol of the rings.
unsafe impl Send for Mapping {}
// SAFETY: as above.
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
        if len == 0 {
            return Err(Errno::INVAL);
        }
        // SAFETY: a fresh shared mapping chosen by the kernel (null hint)
        // aliases no Rust object; the memfd is sealed against shrinking, so
        // every byte of `len` (checked against its size by the caller) stays
        // backed for the mapping's lifetime.
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
        // page-aligned); `AtomicU64` has the layout of `u64`, and all
        // access to shared words goes through atomics, on either side.
        unsafe { &*self.ptr.as_ptr().add(offset).cast::<AtomicU64>() }
    }

    /// `len` bytes at `offset`, or `None` if that range is not mapped.
    ///
    /// # Safety
    /// Nobody may write the range while the slice lives: the chunk hand-over
    /// protocol guarantees it for a well-behaved peer (a writer never touches
    /// a chunk a reader holds). A malicious peer writing anyway can only make
    /// the bytes change under the reader (garbage, never out of bounds).
    pub unsafe fn bytes(&self, offset: usize, len: usize) -> Option<&[u8]> {
        let end = offset.checked_add(len)?;
        if end > self.len {
            return None;
        }
        // SAFETY: the range is inside the mapping (checked above), which
        // lives as long as `self`; u8 has no invalid values; the caller
        // guarantees the range is not written meanwhile.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(offset), len) })
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
        assert_eq!(view.atomic(8).load(std::sync::atomic::Ordering::SeqCst), 7);
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
    fn bytes_outside_the_mapping_are_refused() {
        let fd = memfd("b", 4096).unwrap();
        let m = Mapping::read_only(fd.as_fd(), 4096).unwrap();
        // SAFETY: nothing writes this memfd.
        unsafe {
            assert!(m.bytes(4000, 96).is_some());
            assert!(m.bytes(4000, 97).is_none());
            assert!(m.bytes(usize::MAX, 2).is_none());
        }
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
