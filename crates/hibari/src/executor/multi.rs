//! The multi-threaded executor: the same loop on several threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::executor::{Core, NodeAddError};
use crate::node::Node;

/// Runs the callbacks of its nodes on `threads` threads (the spinning one
/// and `threads - 1` it starts for the spin).
///
/// What may run in parallel is up to [callback groups](crate::CallbackGroup),
/// as in rclcpp: callbacks of different groups may, two callbacks of one
/// mutually exclusive group never do, and entities of one reentrant group may.
/// Every node's default group is mutually exclusive, so one node's callbacks
/// run one at a time unless they are given other groups. One entity's
/// callback never overlaps itself in any group: a subscription's samples
/// reach its callback one at a time and in order, and a timer does not overlap
/// its previous tick. A thread that finds an entity's group busy skips it and
/// is woken when the group is released; threads that find no work sleep on
/// the executor's signal, like the single-threaded executor's one thread.
pub struct MultiThreadedExecutor {
    pub(crate) core: Core,
    threads: usize,
}

impl std::fmt::Debug for MultiThreadedExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiThreadedExecutor")
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl MultiThreadedExecutor {
    /// An executor of `threads` threads (at least 1), without nodes.
    pub fn new(threads: usize) -> Self {
        MultiThreadedExecutor {
            core: Core::default(),
            threads: threads.max(1),
        }
    }

    /// An executor of as many threads as the machine runs in parallel.
    pub fn with_available_parallelism() -> Self {
        Self::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }

    /// The number of threads a spin uses.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Adds a node: its current and future entities run here. A node belongs
    /// to one executor at a time.
    pub fn add_node(&self, node: &Node) -> Result<(), NodeAddError> {
        self.core.add_node(node)
    }

    /// Removes a node.
    pub fn remove_node(&self, node: &Node) {
        self.core.remove_node(node)
    }

    /// Runs callbacks until [`cancel`](Self::cancel) or the shutdown of a
    /// node's context.
    pub fn spin(&self) {
        self.spin_until(|| false, Duration::MAX);
    }

    /// Runs callbacks until `done()` returns `true` on any thread (returns
    /// `true`), or `timeout`, [`cancel`](Self::cancel) or shutdown (returns
    /// `false`). `done` is asked after each callback and each wake-up, on
    /// every thread.
    pub fn spin_until(&self, done: impl Fn() -> bool + Sync, timeout: Duration) -> bool {
        if done() {
            return true;
        }
        let deadline = Instant::now().checked_add(timeout);
        let start = self.core.start();
        let finished = AtomicBool::new(false);
        let worker = || {
            let result = self.core.spin_from(start, deadline, |_| {
                finished.load(Ordering::Acquire) || done()
            });
            if result && !finished.swap(true, Ordering::AcqRel) {
                self.core.wake(); // the other threads see `finished`
            }
            result
        };
        let result = std::thread::scope(|s| {
            for i in 1..self.threads {
                std::thread::Builder::new()
                    .name(format!("hibari-executor-{i}"))
                    .spawn_scoped(s, worker)
                    .expect("the OS refused to start an executor thread");
            }
            worker()
        });
        finished.load(Ordering::Acquire) || result
    }

    /// Makes the spin running now return on every thread, from any thread.
    /// A cancel while no spin runs does nothing, as rclcpp's
    /// `Executor::cancel`: it does not abort the next spin.
    pub fn cancel(&self) {
        self.core.cancel()
    }
}
