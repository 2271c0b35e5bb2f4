//! A node spun on its own thread for as long as a test holds it (shared by
//! the test binaries that include this file with `#[path]`).

use std::sync::Arc;
use std::thread::JoinHandle;

use hibari::{Node, SingleThreadedExecutor};

/// Spins nodes on a thread until dropped; dropping cancels the executor and
/// joins the thread (a spin that does not stop fails the test instead of
/// hanging it).
pub struct Spinner(Arc<SingleThreadedExecutor>, Option<JoinHandle<()>>);

impl Spinner {
    /// Adds `nodes` to a new executor and spins it on a thread.
    pub fn new(nodes: &[&Node]) -> Self {
        let executor = Arc::new(SingleThreadedExecutor::new());
        for node in nodes {
            executor.add_node(node).unwrap();
        }
        let spinning = executor.clone();
        Spinner(executor, Some(std::thread::spawn(move || spinning.spin())))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(thread) = self.1.take() {
            let _ = hibari_testkit::cancel_and_join(
                thread,
                hibari_testkit::HANG,
                "the spinner to stop after cancel()",
                || self.0.cancel(),
            );
        }
    }
}
