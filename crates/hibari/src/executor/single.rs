//! The single-threaded executor: the loop of [`Core`] on the thread that
//! spins it.

use std::time::{Duration, Instant};

use crate::context::lock;
use crate::executor::{Core, NodeAddError};
use crate::node::Node;

/// Runs the callbacks of its nodes on the thread that spins it, one at a
/// time, in the order they become ready (round robin across entities).
///
/// ```
/// use hibari::{Context, QosProfile, SingleThreadedExecutor};
/// use hibari::msg::std_msgs::msg::String as RosString;
/// use std::time::Duration;
///
/// let context = Context::builder().isolated().create()?;
/// let node = context.create_node("listener")?;
/// let _sub = node.create_subscription("chatter", QosProfile::default(), |m: RosString| {
///     println!("heard {}", m.data);
/// })?;
/// let publisher = node.create_publisher::<RosString>("chatter", QosProfile::default())?;
/// publisher.publish(RosString { data: "hello".into() })?;
///
/// let executor = SingleThreadedExecutor::new();
/// executor.add_node(&node)?;
/// assert!(executor.spin_once(Duration::from_secs(1))); // prints "heard hello"
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct SingleThreadedExecutor {
    pub(crate) core: Core,
}

impl std::fmt::Debug for SingleThreadedExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SingleThreadedExecutor")
            .field("nodes", &lock(&self.core.nodes).len())
            .finish()
    }
}

impl SingleThreadedExecutor {
    /// An executor without nodes.
    pub fn new() -> Self {
        Self::default()
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

    /// Runs at most one callback: waits up to `timeout` for work, runs one
    /// unit of it, and returns whether it ran one (`false` on timeout,
    /// [`cancel`](Self::cancel) or shutdown).
    pub fn spin_once(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        self.core.spin_until(deadline, |ran| ran)
    }

    /// Runs ready work without waiting, until none is ready; returns how many
    /// callbacks ran. Work that becomes ready meanwhile (a callback publishing
    /// to another subscription of this executor) runs too, so a cycle of
    /// callbacks that keep each other busy keeps this busy.
    pub fn spin_some(&self) -> usize {
        let mut count = 0;
        self.core.spin_until(Some(Instant::now()), |ran| {
            count += usize::from(ran);
            false
        });
        count
    }

    /// Runs callbacks until [`cancel`](Self::cancel) or the shutdown of a
    /// node's context.
    pub fn spin(&self) {
        self.core.spin_until(None, |_| false);
    }

    /// Runs callbacks until `done()` returns `true` (returns `true`), or
    /// `timeout` passes, [`cancel`](Self::cancel) or shutdown (returns
    /// `false`). `done` is asked before the first wait, after each callback
    /// and after each wake-up: a condition changed by another thread should
    /// wake the executor too (with a [`GuardCondition`](crate::GuardCondition)).
    pub fn spin_until(&self, mut done: impl FnMut() -> bool, timeout: Duration) -> bool {
        if done() {
            return true;
        }
        let deadline = Instant::now().checked_add(timeout);
        self.core.spin_until(deadline, |_| done())
    }

    /// Makes the spin running now return, from any thread. A cancel while
    /// no spin runs does nothing, as rclcpp's `Executor::cancel`: it does not
    /// abort the next spin (to stop a spin another thread is starting, cancel
    /// again until it returned, or shut the context down).
    pub fn cancel(&self) {
        self.core.cancel()
    }
}
