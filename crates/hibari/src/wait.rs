//! The one primitive executors sleep on: a generation counter behind a
//! condition variable. Every waker (a reader's, a timer change, a guard
//! condition, a shutdown) bumps the generation; a waiting thread sleeps until
//! it differs from the one it saw before its last look for work, so no
//! wake-up is lost between looking and sleeping, and an idle thread uses no
//! CPU at all.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::context::lock;

#[derive(Default)]
pub(crate) struct Signal {
    generation: Mutex<u64>,
    changed: Condvar,
    /// Threads inside `wait`'s sleep: a notify with none skips the condition
    /// variable (a system call) — the common case of a callback publishing
    /// to a subscription of its own, still running, executor.
    sleepers: AtomicUsize,
}

impl Signal {
    /// Wakes every thread waiting on the signal.
    pub fn notify(&self) {
        let mut g = lock(&self.generation);
        *g = g.wrapping_add(1);
        drop(g);
        // A sleeper counts itself under the lock before it sleeps, so either
        // it is counted here or it saw the new generation and did not sleep.
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.changed.notify_all();
        }
    }

    /// The current generation: read it before looking for work.
    pub fn generation(&self) -> u64 {
        *lock(&self.generation)
    }

    /// Sleeps until the generation differs from `seen`, or `deadline`.
    pub fn wait(&self, seen: u64, deadline: Option<Instant>) {
        let mut g = lock(&self.generation);
        while *g == seen {
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return;
                    }
                    Some(d - now)
                }
            };
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            g = match timeout {
                None => self.changed.wait(g).unwrap_or_else(|e| e.into_inner()),
                Some(t) => {
                    self.changed
                        .wait_timeout(g, t)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }
}
