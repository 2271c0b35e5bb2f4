//! Descriptors of the user's own (a socket, a serial port, a pipe) watched
//! by the executor: one thread waits on subscriptions, timers and them.
//!
//! The executor adds a watched descriptor to the `poll(2)` it sleeps in
//! (see [`crate::executor`]); when it is readable the watch's callback runs
//! on an executor thread, in the watch's callback group, like any other
//! callback; also when the peer hung up or the descriptor is in error, so
//! the callback sees the end of file (and should drop the watch).
//! Readiness is level-triggered: a callback that leaves data unread is
//! called again on the executor's next look, so it should read what it can
//! (a non-blocking descriptor makes that safe).

use std::fmt;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::group::CallbackGroup;
use crate::node::{lock_callback, Entity, Node, NodeWaker};
use crate::options::FdWatchOptions;

type FdCallback = Box<dyn FnMut(BorrowedFd<'_>) + Send>;

pub(crate) struct FdShared {
    fd: Box<dyn AsFd + Send + Sync>,
    readable: AtomicBool,
    callback: Mutex<FdCallback>,
    waker: Arc<NodeWaker>,
    group: CallbackGroup,
}

impl Entity for FdShared {
    fn execute(&self, _now: Instant) -> bool {
        if !self.readable.load(Ordering::Acquire) {
            return false;
        }
        let Some(_group) = self.group.try_enter(&self.waker) else {
            return false;
        };
        let Some(mut callback) = lock_callback(&self.callback) else {
            return false;
        };
        if !self.readable.swap(false, Ordering::AcqRel) {
            return false;
        }
        callback(self.fd.as_fd());
        // A thread asleep in poll(2) left the descriptor out while it was
        // flagged: wake it so that it polls the descriptor again.
        self.waker.wake();
        true
    }

    fn watched_fd(&self) -> Option<BorrowedFd<'_>> {
        Some(self.fd.as_fd())
    }

    fn fd_pending(&self) -> bool {
        self.readable.load(Ordering::Acquire)
    }

    fn fd_ready(&self) {
        self.readable.store(true, Ordering::Release);
    }
}

/// A descriptor the executor spinning its node watches: its callback runs
/// when the descriptor is readable. It owns the descriptor (give it a
/// `File`, a `TcpStream`, a `UnixDatagram`, an `OwnedFd`…; get it back with
/// [`get`](FdWatch::get)). Dropping it stops the watch and closes the
/// descriptor.
///
/// ```
/// use hibari::{Context, FdWatchOptions};
/// use std::io::{Read, Write};
/// use std::os::unix::net::UnixStream;
/// use std::sync::mpsc;
/// use std::time::Duration;
///
/// let context = Context::builder().isolated().create()?;
/// let node = context.create_node("serial_bridge")?;
/// let (mut ours, theirs) = UnixStream::pair()?;
/// theirs.set_nonblocking(true)?;
/// let (tx, rx) = mpsc::channel();
/// let _watch = node.create_fd_watch(theirs, FdWatchOptions::default(), move |fd| {
///     let mut buf = [0u8; 64];
///     let mut stream = UnixStream::from(fd.try_clone_to_owned().unwrap());
///     if let Ok(n) = stream.read(&mut buf) {
///         tx.send(buf[..n].to_vec()).unwrap();
///     }
/// });
/// ours.write_all(b"hello")?;
/// let executor = hibari::SingleThreadedExecutor::new();
/// executor.add_node(&node)?;
/// assert!(executor.spin_once(Duration::from_secs(5)));
/// assert_eq!(rx.recv()?, b"hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FdWatch {
    shared: Arc<FdShared>,
}

impl fmt::Debug for FdWatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FdWatch")
            .field("fd", &self.shared.fd.as_fd())
            .finish()
    }
}

impl FdWatch {
    /// The watched descriptor.
    pub fn get(&self) -> BorrowedFd<'_> {
        self.shared.fd.as_fd()
    }
}

impl Node {
    /// Watches `fd`: an executor spinning this node runs `callback` (with
    /// the descriptor) whenever it is readable, in the callback group of
    /// `options` (default the node's). See [`FdWatch`].
    pub fn create_fd_watch<F>(
        &self,
        fd: F,
        options: FdWatchOptions,
        callback: impl FnMut(BorrowedFd<'_>) + Send + 'static,
    ) -> FdWatch
    where
        F: AsFd + Send + Sync + 'static,
    {
        let group = options
            .group
            .unwrap_or_else(|| self.default_callback_group());
        let shared = Arc::new(FdShared {
            fd: Box::new(fd),
            readable: AtomicBool::new(false),
            callback: Mutex::new(Box::new(callback)),
            waker: self.inner.waker.clone(),
            group,
        });
        let entity: Arc<dyn Entity> = shared.clone();
        // Wakes the executor, which polls the descriptor from then on.
        self.add_entity(Arc::downgrade(&entity));
        FdWatch { shared }
    }
}
