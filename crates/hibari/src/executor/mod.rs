//! Executors: run the callbacks of nodes' subscriptions, timers and guard
//! conditions.
//!
//! # How waiting works
//!
//! An executor has one [`Signal`]. Every entity of a node added to it wakes
//! that signal: a subscription's reader when its queue goes from empty to
//! non-empty (after setting the subscription's ready flag), a guard condition
//! when triggered, a timer when reset or created, the context on shutdown.
//! Writers in other processes ring the reading entity's own eventfd instead
//! (its bell, see [`bells`]). The executor looks for ready work, and when
//! there is none sleeps on the signal and the bells until one changes or the
//! earliest timer is due. An idle executor uses no CPU; nothing polls.
//!
//! Looking for work is a pass over every entity, except after a wake-up by
//! bells alone: the signal has not changed since the last pass that found
//! nothing, so only the entities whose bells rang can have work, and the
//! executor runs those (queued as they rang) without looking at the others.
//! A node with 1,000 subscriptions fed from other processes is as cheap per
//! sample as a node with one. Every [`POLL_EVERY`] callbacks in a row, and
//! after any other wake-up (a timer's time, the signal), it passes over
//! every entity again.
//!
//! # What runs
//!
//! One unit of work is one sample delivered to one subscription callback, one
//! timer tick, or one guard condition's callback. Entities are served round
//! robin, so a busy subscription cannot starve the others (and a callback that
//! publishes to a subscription of the same executor finds it drained soon).
//! No executor lock is held while a callback runs: a callback may publish,
//! create entities, or trigger guard conditions.
//!
//! # Cancel
//!
//! `cancel()` stops the spins running when it is called, as rclcpp's
//! `Executor::cancel` does: a cancel while no spin runs is forgotten, so it
//! does not abort the next spin. To stop a spin that another thread may not
//! have started yet, spin with `spin_until(|| stop.load(..), Duration::MAX)`
//! and set `stop` before calling `cancel()`: `spin_until` asks its condition
//! before it first waits and after every wake-up, so it returns either way.

use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use smallvec::SmallVec;
use thiserror::Error;

use crate::context::lock;
use crate::node::{Entity, Node};
use crate::wait::Signal;
use bells::Bells;
use lists::{EntityCache, Lists, Scratch};

pub(crate) mod bells;
pub(crate) mod fd_watch;
pub(crate) mod group;
pub(crate) mod guard;
mod lists;
pub(crate) mod multi;
mod single;
pub(crate) mod timer;
pub(crate) mod wait;
pub(crate) mod wait_set;
pub(crate) mod watchers;

pub use single::SingleThreadedExecutor;

/// Why a node could not be added to an executor.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeAddError {
    /// Another executor spins the node; a node has one executor at a time.
    #[error("the node `{node}` is already in another executor: remove it there first (or drop that executor)")]
    InAnotherExecutor {
        /// The node's fully qualified name.
        node: String,
    },
}

/// What executors of every kind share: the nodes, the signal, the loop.
pub(crate) struct Core {
    pub(crate) signal: Arc<Signal>,
    nodes: Mutex<Vec<Node>>,
    /// Bumped by every `cancel`: a spin stops when it differs from the
    /// count at the spin's start, so a cancel before the spin is ignored.
    cancels: AtomicU64,
    /// Where the next look for work starts (round robin).
    cursor: AtomicUsize,
    /// Bumped when a node is added or removed.
    nodes_version: AtomicU64,
    /// The entity list of the last pass and the versions it was built from,
    /// so a pass allocates nothing unless an entity or node was added.
    cache: Mutex<EntityCache>,
    /// The reading entities' eventfds, registered for polling.
    bells: Bells,
}

/// Callbacks run in a row after which a busy executor looks at its bells
/// without sleeping (a system call; no thread polls them while every thread
/// runs callbacks), and then at every entity (a due timer says nothing).
const POLL_EVERY: u32 = 32;

impl Default for Core {
    fn default() -> Self {
        Core {
            signal: Arc::default(),
            nodes: Mutex::default(),
            cancels: AtomicU64::new(0),
            cursor: AtomicUsize::new(0),
            nodes_version: AtomicU64::new(0),
            cache: Mutex::default(),
            bells: Bells::default(),
        }
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        for node in lock(&self.nodes).iter() {
            node.inner.waker.detach(&self.signal);
        }
    }
}

impl Core {
    pub fn add_node(&self, node: &Node) -> Result<(), NodeAddError> {
        if !node.inner.waker.attach(&self.signal) {
            return Err(NodeAddError::InAnotherExecutor {
                node: node.fully_qualified_name(),
            });
        }
        let mut nodes = lock(&self.nodes);
        if !nodes.iter().any(|n| n.same(node)) {
            nodes.push(node.clone());
            self.nodes_version.fetch_add(1, Ordering::AcqRel);
        }
        drop(nodes);
        node.context().register(&self.signal);
        self.signal.notify();
        Ok(())
    }

    pub fn remove_node(&self, node: &Node) {
        lock(&self.nodes).retain(|n| !n.same(node));
        self.nodes_version.fetch_add(1, Ordering::AcqRel);
        node.inner.waker.detach(&self.signal);
        // Unregister its bells now: the executor it joins next polls them.
        drop(self.entities());
    }

    /// Stops the spins running now (see the module's "Cancel").
    pub fn cancel(&self) {
        self.cancels.fetch_add(1, Ordering::AcqRel);
        self.signal.notify();
    }

    /// What a spin starting now remembers, to see later cancels: give it to
    /// [`spin_from`](Self::spin_from) on every thread of one spin.
    pub fn start(&self) -> u64 {
        self.cancels.load(Ordering::Acquire)
    }

    /// Whether a spin that began at `start` must return: canceled since, or
    /// a node's context shut down.
    fn stopped(&self, start: u64) -> bool {
        self.cancels.load(Ordering::Acquire) != start
            || lock(&self.nodes).iter().any(|n| n.context().is_shut_down())
    }

    /// Wakes every thread of the executor (so that they see a stop).
    pub fn wake(&self) {
        self.signal.notify();
    }

    /// Polls the bells and the watched descriptors — as the executor's sleep
    /// until `sleep`'s deadline, or just a look — and marks what it found: the
    /// entity of a bell that rang (queued in the bells' *rung*), a watch whose
    /// descriptor is readable. Returns whether bells rang and nothing else:
    /// then the rung entities are all the new work there is to look at.
    fn poll_fds(
        &self,
        lists: &Lists,
        sleep: Option<(u64, Option<Instant>)>,
        ready: &mut Vec<bool>,
    ) -> bool {
        let live: Vec<Arc<dyn Entity>> = lists.watches.iter().filter_map(Weak::upgrade).collect();
        // On the stack for up to 16: this runs whenever the executor sleeps.
        let mut fds: SmallVec<[BorrowedFd<'_>; 16]> = lists.bells.fds().collect();
        let bells = fds.len();
        let mut owners = Vec::with_capacity(live.len());
        // A watch flagged readable waits for its callback (its group may be
        // busy): polling it again would return at once, level-triggered.
        for e in live.iter().filter(|e| !e.fd_pending()) {
            if let Some(fd) = e.watched_fd() {
                fds.push(fd);
                owners.push(e);
            }
        }
        match sleep {
            Some((seen, wake_at)) => self.signal.wait_polling(seen, wake_at, &fds, ready),
            None => Signal::poll_now(&fds, ready),
        }
        let rang = self
            .bells
            .ring(&lists.bells, &ready[..bells.min(ready.len())]);
        let mut watched = false;
        for (e, _) in owners
            .iter()
            .zip(ready.iter().skip(bells))
            .filter(|(_, r)| **r)
        {
            e.fd_ready();
            watched = true;
        }
        // Only now that the work is flagged may other threads look for it
        // (woken earlier, they would find nothing and sleep again).
        if watched {
            self.signal.notify();
        } else if rang {
            self.signal.notify_sleepers();
        }
        rang && !watched
    }

    /// Runs one unit of work of an entity whose bell rang; returns whether
    /// it did. An entity that ran is queued again (it may have more).
    fn execute_rung(&self) -> bool {
        let now = Instant::now();
        while let Some(rung) = self.bells.next_rung() {
            let Some(entity) = rung.upgrade() else {
                continue;
            };
            if entity.execute(now) {
                self.bells.again(rung);
                return true;
            }
        }
        false
    }

    /// Runs one unit of ready work, round robin; returns whether it did.
    fn execute_one(&self, entities: &[Weak<dyn Entity>]) -> bool {
        let n = entities.len();
        if n == 0 {
            return false;
        }
        let now = Instant::now();
        let start = self.cursor.load(Ordering::Relaxed);
        for i in 0..n {
            let at = (start + i) % n;
            let Some(entity) = entities[at].upgrade() else {
                continue;
            };
            if entity.execute(now) {
                self.cursor.store(at + 1, Ordering::Relaxed);
                return true;
            }
        }
        false
    }

    /// The loop every spin is: run work until `done` says so, the deadline
    /// passes (returns `false`) or the executor is stopped (returns `false`).
    /// `done` is asked after each callback and each wake-up.
    pub fn spin_until(&self, deadline: Option<Instant>, done: impl FnMut(bool) -> bool) -> bool {
        self.spin_from(self.start(), deadline, done)
    }

    /// [`spin_until`](Self::spin_until) as one thread of a spin that began
    /// at `start` (from [`start`](Self::start)).
    pub fn spin_from(
        &self,
        start: u64,
        deadline: Option<Instant>,
        mut done: impl FnMut(bool) -> bool,
    ) -> bool {
        let mut in_a_row = 0u32;
        let mut scratch = Scratch::take();
        let scratch = &mut scratch.0;
        // The generation at the last pass over every entity that found
        // nothing: while the signal stays there and only bells ring, the
        // rung entities are the only ones that may have work.
        let mut scanned: Option<u64> = None;
        loop {
            if self.stopped(start) {
                return false;
            }
            let seen = self.signal.generation();
            let lists = self.entities();
            let entities = &lists.entities;
            let every = scanned != Some(seen) || !lists.busy.is_empty();
            let ran = if every {
                self.bells.forget_rung();
                self.execute_one(entities)
            } else {
                self.execute_rung()
            };
            if done(ran) {
                return true;
            }
            if ran {
                in_a_row += 1;
                if in_a_row >= POLL_EVERY {
                    in_a_row = 0;
                    self.poll_fds(&lists, None, scratch);
                    // Timers say nothing when due: a busy stream of rung
                    // entities must not keep the executor from them.
                    scanned = None;
                }
                continue;
            }
            in_a_row = 0;
            if every {
                scanned = Some(seen);
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return false;
            }
            if lists.busy.iter().any(|e| e.strong_count() > 0) {
                // A busy-polling subscription: never sleep (but look at
                // watched descriptors, if any).
                if !lists.watches.is_empty() {
                    self.poll_fds(&lists, None, scratch);
                }
                std::hint::spin_loop();
                continue;
            }
            let next_timer = lists
                .timed
                .iter()
                .filter_map(|e| e.upgrade()?.next_due())
                .min();
            let wake_at = match (deadline, next_timer) {
                (Some(d), Some(t)) => Some(d.min(t)),
                (d, t) => d.or(t),
            };
            if !self.poll_fds(&lists, Some((seen, wake_at)), scratch) {
                // A timer's time, a watch, or nothing: look everywhere.
                scanned = None;
            }
        }
    }
}
