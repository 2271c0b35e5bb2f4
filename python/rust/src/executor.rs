//! Executors: single-threaded, or a pool of threads, over hibari's.
//!
//! Every spin call waits with the GIL released; the callbacks it runs attach
//! to the interpreter only while they run. A wait is cut into ticks of
//! [`TICK`] so that Ctrl-C (a signal Python only sees when it gets the GIL
//! back) interrupts it; nothing is polled in between — a tick is one idle
//! wake-up. After every callback the executor looks for an exception one of
//! its callbacks raised ([`errors`](crate::errors)) and raises it from the
//! spin call, as rclpy does; what one executor's callbacks do never reaches
//! another executor's spin calls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hibari::{CallbackGroupType, MultiThreadedExecutor, SingleThreadedExecutor};
use pyo3::prelude::*;

use crate::errors::{value_error, Outcomes, Reporter};
use crate::runtime::{timeout, Context, Node};

/// The longest a spin waits without looking at Python's signals.
pub(crate) const TICK: Duration = Duration::from_millis(200);

enum Kind {
    Single(SingleThreadedExecutor),
    Multi(MultiThreadedExecutor),
}

/// A callback group (hibari's [`hibari::CallbackGroup`]): a mutually
/// exclusive group runs one of its callbacks at a time, whatever the
/// executor's threads; a reentrant one lets a multi-threaded executor run
/// callbacks of different entities at once (the GIL lets them overlap while
/// they wait: on I/O, a sleep, a service call).
#[pyclass(frozen, module = "hibari._hibari")]
pub struct CallbackGroup {
    pub(crate) inner: hibari::CallbackGroup,
}

impl CallbackGroup {
    pub(crate) fn new(node: &hibari::Node, reentrant: bool) -> Self {
        let kind = if reentrant {
            CallbackGroupType::Reentrant
        } else {
            CallbackGroupType::MutuallyExclusive
        };
        CallbackGroup {
            inner: node.create_callback_group(kind),
        }
    }
}

#[pymethods]
impl CallbackGroup {
    /// Whether callbacks of the group may overlap.
    #[getter]
    fn reentrant(&self) -> bool {
        self.inner.kind() == CallbackGroupType::Reentrant
    }
}

/// Runs the callbacks of its nodes.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Executor {
    kind: Kind,
    /// The nodes added, each with its reporter (which tells nodes of one
    /// name apart).
    nodes: Mutex<Vec<(Reporter, hibari::Node)>>,
    /// What its nodes' callbacks left for its spin calls.
    outcomes: Arc<Outcomes>,
    /// Spinning ends when it is shut down (`None`: only the nodes' contexts
    /// count).
    context: Option<hibari::Context>,
    stopped: AtomicBool,
    /// Set by `wake()`: the current or next spin call returns.
    canceled: AtomicBool,
}

impl Executor {
    fn nodes(&self) -> std::sync::MutexGuard<'_, Vec<(Reporter, hibari::Node)>> {
        self.nodes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether spinning must end: `shutdown()`, the executor's context or a
    /// node's shut down.
    fn ended(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
            || self.context.as_ref().is_some_and(|c| c.is_shut_down())
            || self.nodes().iter().any(|(_, n)| n.context().is_shut_down())
    }

    /// Spins until `done()` (true), `timeout`, shutdown or cancel (false),
    /// or a callback's exception (raised).
    fn spin_while(
        &self,
        py: Python<'_>,
        timeout: Option<Duration>,
        done: &(dyn Fn() -> bool + Sync),
    ) -> PyResult<bool> {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        loop {
            if let Some(e) = self.outcomes.take_raised() {
                return Err(e);
            }
            if self.ended() {
                return Ok(false);
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return Ok(false);
            }
            let tick = left.map_or(TICK, |l| l.min(TICK));
            let stop = || self.outcomes.raised() || done();
            let finished = py.detach(|| match &self.kind {
                Kind::Single(e) => e.spin_until(stop, tick),
                Kind::Multi(e) => e.spin_until(stop, tick),
            });
            py.check_signals()?;
            if let Some(e) = self.outcomes.take_raised() {
                return Err(e);
            }
            if finished {
                return Ok(true);
            }
            if self.canceled.swap(false, Ordering::AcqRel) {
                return Ok(false);
            }
        }
    }
}

#[pymethods]
impl Executor {
    /// A single-threaded executor (`threads` None or 0), or one running
    /// callbacks on `threads` threads. Spinning ends when `context` (if
    /// given) is shut down, as well as when a node's context is.
    #[new]
    #[pyo3(signature = (threads = None, context = None))]
    fn new(threads: Option<usize>, context: Option<&Context>) -> Self {
        let kind = match threads {
            None | Some(0) => Kind::Single(SingleThreadedExecutor::new()),
            Some(n) => Kind::Multi(MultiThreadedExecutor::new(n)),
        };
        Executor {
            kind,
            nodes: Mutex::new(Vec::new()),
            outcomes: Arc::default(),
            context: context.map(|c| c.inner.clone()),
            stopped: AtomicBool::new(false),
            canceled: AtomicBool::new(false),
        }
    }

    /// How many threads run callbacks.
    #[getter]
    fn threads(&self) -> usize {
        match &self.kind {
            Kind::Single(_) => 1,
            Kind::Multi(e) => e.threads(),
        }
    }

    /// Adds a node (a node is in one executor at a time).
    fn add_node(&self, node: &Node) -> PyResult<()> {
        match &self.kind {
            Kind::Single(e) => e.add_node(&node.inner),
            Kind::Multi(e) => e.add_node(&node.inner),
        }
        .map_err(value_error)?;
        node.reporter.set(Some(&self.outcomes));
        let mut nodes = self.nodes();
        if !nodes.iter().any(|(r, _)| r.same(&node.reporter)) {
            nodes.push((node.reporter.clone(), node.inner.clone()));
        }
        Ok(())
    }

    /// Removes that node (not others of the same name).
    fn remove_node(&self, node: &Node) {
        match &self.kind {
            Kind::Single(e) => e.remove_node(&node.inner),
            Kind::Multi(e) => e.remove_node(&node.inner),
        }
        self.nodes().retain(|(r, _)| !r.same(&node.reporter));
        if node.reporter.reports_to(&self.outcomes) {
            node.reporter.set(None);
        }
    }

    /// Runs callbacks until `timeout_sec` (None: until shutdown or
    /// `wake()`/`shutdown()`).
    #[pyo3(signature = (timeout_sec = None))]
    fn spin(&self, py: Python<'_>, timeout_sec: Option<f64>) -> PyResult<()> {
        self.spin_while(py, timeout(timeout_sec), &|| false)
            .map(drop)
    }

    /// Runs at most one callback, waiting up to `timeout_sec` (None:
    /// forever) for one; returns whether one ran.
    #[pyo3(signature = (timeout_sec = None))]
    fn spin_once(&self, py: Python<'_>, timeout_sec: Option<f64>) -> PyResult<bool> {
        let deadline = timeout(timeout_sec).and_then(|t| Instant::now().checked_add(t));
        if let Kind::Single(e) = &self.kind {
            loop {
                if let Some(err) = self.outcomes.take_raised() {
                    return Err(err);
                }
                if self.ended() {
                    return Ok(false);
                }
                let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                let tick = left.map_or(TICK, |l| l.min(TICK));
                let ran = py.detach(|| e.spin_once(tick));
                py.check_signals()?;
                if let Some(err) = self.outcomes.take_raised() {
                    return Err(err);
                }
                if ran {
                    return Ok(true);
                }
                if left.is_some_and(|l| l <= tick) || self.canceled.swap(false, Ordering::AcqRel) {
                    return Ok(false);
                }
            }
        }
        let before = self.outcomes.callbacks_run();
        self.spin_while(py, timeout(timeout_sec), &|| {
            self.outcomes.callbacks_run() != before
        })
    }

    /// Makes the current (or next) spin call return: used when something
    /// outside the executor finished, such as a future.
    fn wake(&self) {
        self.canceled.store(true, Ordering::Release);
        match &self.kind {
            Kind::Single(e) => e.cancel(),
            Kind::Multi(e) => e.cancel(),
        }
    }

    /// Stops spinning for good.
    fn shutdown(&self) {
        self.stopped.store(true, Ordering::Release);
        self.wake();
    }

    /// Whether `shutdown()` was called.
    fn is_shutdown(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }
}
