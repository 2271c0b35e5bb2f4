//! The one primitive executors sleep on: a generation counter behind a
//! condition variable. Every waker (a reader's, a timer change, a guard
//! condition, a shutdown) bumps the generation; a waiting thread sleeps until
//! it differs from the one it saw before its last look for work, so no
//! wake-up is lost between looking and sleeping, and an idle thread uses no
//! CPU at all.

use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::context::lock;

#[derive(Default)]
pub(crate) struct Signal {
    generation: Mutex<u64>,
    changed: Condvar,
}

impl Signal {
    /// Wakes every thread waiting on the signal.
    pub fn notify(&self) {
        let mut g = lock(&self.generation);
        *g = g.wrapping_add(1);
        drop(g);
        self.changed.notify_all();
    }

    /// The current generation: read it before looking for work.
    pub fn generation(&self) -> u64 {
        *lock(&self.generation)
    }

    /// Sleeps until the generation differs from `seen`, or `deadline`.
    pub fn wait(&self, seen: u64, deadline: Option<Instant>) {
        let mut g = lock(&self.generation);
        while *g == seen {
            match deadline {
                None => g = self.changed.wait(g).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return;
                    }
                    g = self
                        .changed
                        .wait_timeout(g, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        }
    }
}
