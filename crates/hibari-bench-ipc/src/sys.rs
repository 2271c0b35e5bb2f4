//! Every `unsafe` block of the crate: thin, safe wrappers over the Linux calls
//! the benchmark needs (clock, CPU affinity, rusage, memfd + mmap, futex,
//! eventfd, fd passing over a Unix socket, kill), and libjpeg ([`jpeg`],
//! when built with it).
//!
//! Each wrapper is safe to call with any argument; the reason is written
//! beside each block as `// SAFETY:`.
#![allow(unsafe_code)]

#[cfg(libjpeg)]
pub mod jpeg;

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// Nanoseconds of `CLOCK_MONOTONIC`: the one clock both processes stamp with.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Number of CPUs online (not limited by this process's affinity mask).
pub fn online_cpus() -> usize {
    // SAFETY: sysconf only reads a system constant.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// Kernel clock ticks per second (`USER_HZ`, the unit of `/proc/stat`).
pub fn clock_ticks_per_sec() -> f64 {
    // SAFETY: sysconf only reads a system constant.
    let n = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if n > 0 {
        n as f64
    } else {
        100.0
    }
}

/// Restricts the calling thread (and children spawned later) to `cpus`, like `taskset`.
pub fn set_affinity(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: an all-zero cpu_set_t is the valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "cpu index out of range",
            ));
        }
        // SAFETY: `cpu` is below CPU_SETSIZE, so CPU_SET stays inside `set`.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// CPU time and context switches of this process so far (`getrusage(RUSAGE_SELF)`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// User plus system CPU time, in microseconds.
    pub cpu_us: f64,
    /// Voluntary context switches (the process blocked).
    pub ctx_vol: u64,
    /// Involuntary context switches (the process was preempted).
    pub ctx_invol: u64,
}

impl Usage {
    /// Reads the counters now.
    pub fn now() -> Usage {
        // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid, writable rusage.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let us = |tv: libc::timeval| tv.tv_sec as f64 * 1e6 + tv.tv_usec as f64;
        Usage {
            cpu_us: us(ru.ru_utime) + us(ru.ru_stime),
            ctx_vol: ru.ru_nvcsw as u64,
            ctx_invol: ru.ru_nivcsw as u64,
        }
    }

    /// The counters accumulated between `earlier` and `self`.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            cpu_us: self.cpu_us - earlier.cpu_us,
            ctx_vol: self.ctx_vol.saturating_sub(earlier.ctx_vol),
            ctx_invol: self.ctx_invol.saturating_sub(earlier.ctx_invol),
        }
    }
}

/// Sends SIGKILL to `pid` (a child this process started). Errors are ignored:
/// the child may already be gone.
pub fn kill_process(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill has no memory effects in this process.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

/// A new anonymous memory file (`memfd_create`) of `len` bytes. It has no name
/// in any file system: the kernel frees it when the last fd and mapping close.
pub fn memfd(len: usize) -> io::Result<File> {
    // SAFETY: the name is a valid NUL-terminated string; flags are valid.
    let fd = unsafe { libc::memfd_create(c"hibari-bench-ipc".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by memfd_create and is owned by nobody else.
    let file = unsafe { File::from_raw_fd(fd) };
    file.set_len(len as u64)?;
    Ok(file)
}

/// A new eventfd (counter semantics, blocking, close-on-exec).
pub fn eventfd() -> io::Result<File> {
    // SAFETY: eventfd takes plain integers.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by eventfd and is owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// A read-write `MAP_SHARED` mapping of a whole memory file, pre-faulted.
///
/// Both processes map the same file. The benchmark's protocol makes access
/// exclusive in time: a side writes a region only while the other side waits
/// for its wake-up, and publishes the write with a release store on a sequence
/// word that the reader loads with acquire before it reads.
pub struct SharedMapping {
    ptr: NonNull<u8>,
    len: usize,
}

impl SharedMapping {
    /// Maps `len` bytes of `file` (which must be at least that long).
    pub fn map(file: &File, len: usize) -> io::Result<SharedMapping> {
        if len == 0 || file.metadata()?.len() < len as u64 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "file shorter than mapping",
            ));
        }
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_SHARED | libc::MAP_POPULATE;
        // SAFETY: a fresh mapping chosen by the kernel (addr null) of a file we checked is
        // long enough; it aliases no Rust object.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, file.as_raw_fd(), 0) };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(p.cast::<u8>()).ok_or_else(io::Error::last_os_error)?;
        Ok(SharedMapping { ptr, len })
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The 32-bit atomic word at `offset` (4-byte aligned, inside the mapping).
    pub fn atomic_u32(&self, offset: usize) -> &AtomicU32 {
        assert!(
            offset.is_multiple_of(4) && offset + 4 <= self.len,
            "atomic word out of range"
        );
        // SAFETY: in bounds and aligned (the mapping is page-aligned); the word is only ever
        // accessed atomically, by both processes, so no reference to it is a plain one.
        unsafe { &*self.ptr.as_ptr().add(offset).cast::<AtomicU32>() }
    }

    /// Bytes `offset..offset + len`, read-only.
    pub fn bytes(&self, offset: usize, len: usize) -> &[u8] {
        assert!(
            offset.checked_add(len).is_some_and(|end| end <= self.len),
            "range out of mapping"
        );
        // SAFETY: in bounds; the protocol (type docs) keeps the peer from writing these bytes
        // while this borrow lives, and nothing in this process writes them through `&self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(offset), len) }
    }

    /// Bytes `offset..offset + len`, writable.
    pub fn bytes_mut(&mut self, offset: usize, len: usize) -> &mut [u8] {
        assert!(
            offset.checked_add(len).is_some_and(|end| end <= self.len),
            "range out of mapping"
        );
        // SAFETY: in bounds; `&mut self` excludes other borrows in this process, and the
        // protocol (type docs) keeps the peer from reading these bytes during the write.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(offset), len) }
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`; no borrow outlives `self`.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

// SAFETY: the mapping is plain memory; shared access goes through atomics or the borrow rules.
unsafe impl Send for SharedMapping {}
// SAFETY: `&self` methods hand out only atomics and shared byte slices.
unsafe impl Sync for SharedMapping {}

/// `FUTEX_WAIT` (shared, not private) on `word` while it equals `expected`, for at most
/// `timeout`. Returns when woken, on timeout, on a signal, or at once if the value differs;
/// callers re-check the word.
pub fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `word` is a valid aligned u32 for the call; the kernel only reads it; `ts` is
    // valid for the duration of the call.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const _,
        )
    };
}

/// `FUTEX_WAKE` (shared) of every waiter on `word`.
pub fn futex_wake(word: &AtomicU32) {
    // SAFETY: `word` is a valid aligned u32; FUTEX_WAKE does not dereference other pointers.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, i32::MAX) };
}

const MAX_FDS: usize = 8;

/// Sends `bytes` with `fds` attached (`SCM_RIGHTS`) in one `sendmsg`.
pub fn send_with_fds(sock: &UnixStream, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    if fds.len() > MAX_FDS || bytes.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "1..=8 fds with a payload",
        ));
    }
    let raw: Vec<libc::c_int> = fds.iter().map(|f| f.as_raw_fd()).collect();
    let data_len = std::mem::size_of_val(raw.as_slice()) as u32;
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(data_len) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut _,
        iov_len: bytes.len(),
    };
    // SAFETY: an all-zero msghdr is valid; the fields are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: msg_control points at `space` bytes, enough for one cmsghdr with `raw`; the
    // header and data pointers from CMSG_* stay inside that buffer.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(data_len) as _;
        std::ptr::copy_nonoverlapping(raw.as_ptr(), libc::CMSG_DATA(cmsg).cast(), raw.len());
    }
    // SAFETY: `msg` points at live buffers (iov over `bytes`, control) for the call.
    let n = unsafe { libc::sendmsg(sock.as_fd().as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
    match n {
        n if n < 0 => Err(io::Error::last_os_error()),
        n if n as usize != bytes.len() => {
            Err(io::Error::new(io::ErrorKind::WriteZero, "short sendmsg"))
        }
        _ => Ok(()),
    }
}

/// Receives up to `buf.len()` bytes and any fds attached to them (`SCM_RIGHTS`).
/// Returns the byte count (0 at end of stream) and the fds, now owned by the caller.
pub fn recv_with_fds(sock: &UnixStream, buf: &mut [u8]) -> io::Result<(usize, Vec<OwnedFd>)> {
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE((MAX_FDS * 4) as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: an all-zero msghdr is valid; the fields are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: `msg` points at live, writable buffers for the call.
    let n = unsafe { libc::recvmsg(sock.as_fd().as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut fds = Vec::new();
    // SAFETY: the kernel filled `control` with `msg_controllen` bytes of cmsghdrs; the
    // CMSG_* macros walk only inside it; each SCM_RIGHTS fd is new and owned by us alone.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg).cast::<libc::c_int>();
                let count = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / 4;
                for i in 0..count {
                    fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    Ok((n as usize, fds))
}
