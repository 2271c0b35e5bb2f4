//! Eventfds, the wake-up primitive between processes on this host: a
//! counter a peer adds to and a waiter polls. Public because the runtime's
//! executors sleep on eventfds that this transport's writers write (see
//! [`Notify::wake_fd`](hibari_transport::Notify::wake_fd)); one set of
//! helpers serves both sides.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use rustix::event::{eventfd, poll, EventfdFlags, PollFd, PollFlags};
use rustix::io::{self, Errno};
use smallvec::SmallVec;

/// A new non-blocking, close-on-exec eventfd with a zero counter.
pub fn new() -> std::io::Result<OwnedFd> {
    Ok(new_raw()?)
}

/// [`new`] with the system's error code.
pub(crate) fn new_raw() -> io::Result<OwnedFd> {
    eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)
}

/// Adds one to an eventfd (wakes whoever polls it). Never blocks: a full
/// counter or a closed peer is ignored.
pub fn signal(fd: BorrowedFd<'_>) {
    let _ = io::write(fd, &1u64.to_ne_bytes());
}

/// Resets a non-blocking eventfd; returns whether it had been signalled.
pub fn drain(fd: BorrowedFd<'_>) -> bool {
    let mut buf = [0u8; 8];
    matches!(io::read(fd, &mut buf), Ok(8))
}

/// Polls `fds` for input until one is ready or `deadline` passes (`None`:
/// no limit; a past one: just looks); `ready[i]` then tells whether
/// `fds[i]` is readable, hung up or in error — whatever a read would
/// report at once, so a caller polling again does not spin on a closed
/// peer it never looks at. An interrupted poll is resumed; a failed one
/// (no memory) reports nothing.
pub fn poll_readable(fds: &[BorrowedFd<'_>], deadline: Option<Instant>, ready: &mut Vec<bool>) {
    ready.clear();
    ready.resize(fds.len(), false);
    // On the stack for up to 16 descriptors: an executor polls on every sleep.
    let mut pollfds: SmallVec<[PollFd<'_>; 16]> = fds
        .iter()
        .map(|fd| PollFd::new(fd, PollFlags::IN))
        .collect();
    loop {
        let ts = deadline.map(|d| timespec(d.saturating_duration_since(Instant::now())));
        match poll(&mut pollfds, ts.as_ref()) {
            Ok(_) => break,
            Err(Errno::INTR) => continue,
            Err(_) => return,
        }
    }
    for (r, p) in ready.iter_mut().zip(&pollfds) {
        *r = p
            .revents()
            .intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL);
    }
}

/// A duration as a `Timespec`.
pub(crate) fn timespec(d: Duration) -> rustix::time::Timespec {
    rustix::time::Timespec {
        tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(d.subsec_nanos()),
    }
}
