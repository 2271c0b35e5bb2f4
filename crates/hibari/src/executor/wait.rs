//! The one primitive executors (and blocking calls) sleep on: a generation
//! counter. Every waker (a reader's, a timer change, a guard condition, a
//! shutdown) bumps the generation; a waiting thread sleeps until it differs
//! from the one it saw before its last look for work, so no wake-up is lost
//! between looking and sleeping, and an idle thread uses no CPU at all.
//!
//! # Two ways to sleep
//!
//! [`Signal::wait`] sleeps on a condition variable: blocking calls, futures
//! and graph waits use it.
//!
//! [`Signal::wait_polling`] is the executor's: one thread at a time (the
//! *poller*) sleeps in `poll(2)` on the signal's own eventfd and on the
//! executor's descriptors (its bells' `epoll`, users' watched descriptors);
//! the executor's other threads sleep on the condition variable. A bell is
//! what shared-memory writers in other processes write when a subscription
//! armed its rings ([`Notify::wake_fd`](hibari_transport::Notify::wake_fd)),
//! so a sample from another process wakes the executor in one hop, with no
//! thread of ours in between. `notify` writes the signal's eventfd only
//! while a poller sleeps, so in-process wake-ups cost what they did.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use hibari_shm::eventfd;
use smallvec::SmallVec;

use crate::context::lock;

#[derive(Default)]
struct State {
    generation: u64,
    /// A thread sleeps in `poll` (only one at a time).
    polling: bool,
    /// Threads asleep on the condition variable.
    sleepers: usize,
}

#[derive(Default)]
pub(crate) struct Signal {
    state: Mutex<State>,
    changed: Condvar,
    /// Written by `notify` while a poller sleeps; made on first poll.
    efd: OnceLock<Option<OwnedFd>>,
}

impl Signal {
    /// Wakes every thread waiting on the signal.
    pub fn notify(&self) {
        let mut st = lock(&self.state);
        st.generation = st.generation.wrapping_add(1);
        let (polling, sleepers) = (st.polling, st.sleepers > 0);
        drop(st);
        if polling {
            if let Some(Some(fd)) = self.efd.get() {
                eventfd::signal(fd.as_fd());
            }
        }
        // A sleeper counts itself under the lock before it sleeps, so either
        // it is counted here or it saw the new generation and did not sleep.
        if sleepers {
            self.changed.notify_all();
        }
    }

    /// Wakes the threads asleep on the condition variable, if there are
    /// any (not a poller): work was queued that any thread may take.
    pub fn notify_sleepers(&self) {
        let mut st = lock(&self.state);
        if st.sleepers == 0 {
            return;
        }
        st.generation = st.generation.wrapping_add(1);
        drop(st);
        self.changed.notify_all();
    }

    /// The current generation: read it before looking for work.
    pub fn generation(&self) -> u64 {
        lock(&self.state).generation
    }

    /// Sleeps until the generation differs from `seen`, or `deadline`.
    pub fn wait(&self, seen: u64, deadline: Option<Instant>) {
        let st = lock(&self.state);
        drop(self.sleep(st, seen, deadline));
    }

    fn sleep<'a>(
        &self,
        mut st: std::sync::MutexGuard<'a, State>,
        seen: u64,
        deadline: Option<Instant>,
    ) -> std::sync::MutexGuard<'a, State> {
        while st.generation == seen {
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        break;
                    }
                    Some(d - now)
                }
            };
            st.sleepers += 1;
            st = match timeout {
                None => self.changed.wait(st).unwrap_or_else(|e| e.into_inner()),
                Some(t) => {
                    self.changed
                        .wait_timeout(st, t)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
            st.sleepers -= 1;
        }
        st
    }

    /// The executor's sleep: like [`wait`](Self::wait), but the thread that
    /// gets to poll also wakes when one of `fds` is readable (they are left
    /// as they are). Afterwards `ready[i]` tells whether `fds[i]` was
    /// readable (empty for a thread that slept on the condition variable
    /// instead). When anything was readable, the caller flags the work it
    /// stands for and then calls [`notify`](Self::notify), so that the other
    /// threads wake to find it (flag first, then wake).
    pub fn wait_polling(
        &self,
        seen: u64,
        deadline: Option<Instant>,
        fds: &[BorrowedFd<'_>],
        ready: &mut Vec<bool>,
    ) {
        ready.clear(); // nothing readable unless this thread polls
        let Some(efd) = self.efd.get_or_init(|| eventfd::new().ok()).as_ref() else {
            // No eventfd to be had: sleep briefly, then look everywhere.
            let short = Instant::now() + Duration::from_millis(1);
            self.wait(seen, Some(deadline.map_or(short, |d| d.min(short))));
            Self::poll_now(fds, ready);
            return;
        };
        let mut st = lock(&self.state);
        if st.generation != seen {
            return;
        }
        if st.polling {
            drop(self.sleep(st, seen, deadline));
            return;
        }
        st.polling = true;
        drop(st);
        let mut all: SmallVec<[BorrowedFd<'_>; 16]> = SmallVec::with_capacity(fds.len() + 1);
        all.push(efd.as_fd());
        all.extend_from_slice(fds);
        eventfd::poll_readable(&all, deadline, ready);
        // Our own eventfd first: reset it, and leave `ready` for `fds`.
        if ready.remove(0) {
            eventfd::drain(efd.as_fd());
        }
        // The other threads are not woken here: what was readable is not
        // flagged yet (the caller probes the entities), so they would find
        // nothing and sleep again, leaving the work to this thread alone. The
        // caller flags it, then `notify`s.
        lock(&self.state).polling = false;
    }

    /// [`wait_polling`](Self::wait_polling) without sleeping: a busy
    /// executor does this now and then, since no thread polls while every
    /// thread runs callbacks.
    pub fn poll_now(fds: &[BorrowedFd<'_>], ready: &mut Vec<bool>) {
        if fds.is_empty() {
            ready.clear();
            return;
        }
        eventfd::poll_readable(fds, Some(Instant::now()), ready);
    }
}
