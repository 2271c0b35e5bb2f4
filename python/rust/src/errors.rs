//! The exceptions the module raises, and where an exception raised by a
//! user callback waits for the executor that ran it.
//!
//! A callback runs on an executor thread, inside Rust code that cannot
//! propagate a Python exception. As in rclpy, the exception must come out of
//! the spin call of the executor that ran the callback, and of no other: each
//! executor has its [`Outcomes`], which the nodes added to it report to
//! through their [`Reporter`]. The callback wrapper stores the exception
//! there; that executor's spin loop checks after each callback, stops, and
//! raises the first stored exception in the thread that called it. Another
//! executor in the same process is not disturbed.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hibari::CallError;
use pyo3::exceptions::{PyException, PyTimeoutError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    _hibari,
    HibariError,
    PyException,
    "Base class of the errors hibari raises (other than TypeError/ValueError for bad input)."
);
pyo3::create_exception!(
    _hibari,
    ServiceUnavailableError,
    HibariError,
    "No server of the service was matched: wait for it with `wait_for_service` first."
);
pyo3::create_exception!(
    _hibari,
    ServiceGoneError,
    HibariError,
    "Every server of the service went away before one replied."
);

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the callbacks of one executor's nodes left for its spin calls.
#[derive(Default)]
pub(crate) struct Outcomes {
    /// Exceptions raised by callbacks, oldest first.
    pending: Mutex<Vec<PyErr>>,
    /// Whether `pending` holds anything (read without the lock after every
    /// callback).
    raised: AtomicBool,
    /// Callbacks run so far (lets a multi-threaded `spin_once` notice that
    /// one ran).
    callbacks: AtomicU64,
}

impl Outcomes {
    /// Records that a callback ran, and stores its exception if it raised one.
    fn finish(&self, result: PyResult<()>) {
        self.callbacks.fetch_add(1, Ordering::AcqRel);
        if let Err(e) = result {
            locked(&self.pending).push(e);
            self.raised.store(true, Ordering::Release);
        }
    }

    /// Whether a callback raised an exception that no spin loop took yet.
    pub(crate) fn raised(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    /// How many callbacks ran so far.
    pub(crate) fn callbacks_run(&self) -> u64 {
        self.callbacks.load(Ordering::Acquire)
    }

    /// Takes the oldest exception a callback raised, if any.
    pub(crate) fn take_raised(&self) -> Option<PyErr> {
        if !self.raised() {
            return None;
        }
        let mut pending = locked(&self.pending);
        let first = (!pending.is_empty()).then(|| pending.remove(0));
        self.raised.store(!pending.is_empty(), Ordering::Release);
        first
    }
}

/// Where the callbacks of one node report: the [`Outcomes`] of the executor
/// that has the node, if any. Cloning shares it; each node has its own, so
/// it also tells nodes apart (two nodes may have one name).
#[derive(Clone, Default)]
pub(crate) struct Reporter(Arc<Mutex<Option<Arc<Outcomes>>>>);

impl Reporter {
    /// Records a callback's end with the executor that ran it. An exception
    /// raised while no executor has the node (it was removed while the
    /// callback ran) is printed as unraisable, as Python does for `__del__`.
    pub(crate) fn finish(&self, py: Python<'_>, result: PyResult<()>) {
        let outcomes = locked(&self.0).clone();
        match (outcomes, result) {
            (Some(o), result) => o.finish(result),
            (None, Err(e)) => e.write_unraisable(py, None),
            (None, Ok(())) => {}
        }
    }

    /// Reports to `outcomes` from now on (`None`: to no executor).
    pub(crate) fn set(&self, outcomes: Option<&Arc<Outcomes>>) {
        *locked(&self.0) = outcomes.cloned();
    }

    /// Whether this reports to `outcomes`.
    pub(crate) fn reports_to(&self, outcomes: &Arc<Outcomes>) -> bool {
        locked(&self.0)
            .as_ref()
            .is_some_and(|o| Arc::ptr_eq(o, outcomes))
    }

    /// Whether both are the same node's.
    pub(crate) fn same(&self, other: &Reporter) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The Python exception for a failed service call.
pub(crate) fn call_error(e: CallError) -> PyErr {
    match e {
        CallError::ServiceUnavailable { .. } => ServiceUnavailableError::new_err(e.to_string()),
        CallError::ServiceGone { .. } => ServiceGoneError::new_err(e.to_string()),
        CallError::Timeout { .. } => PyTimeoutError::new_err(e.to_string()),
        other => HibariError::new_err(other.to_string()),
    }
}

/// A `HibariError` from any displayable error.
pub(crate) fn hibari_error(e: impl std::fmt::Display) -> PyErr {
    HibariError::new_err(e.to_string())
}

/// A `ValueError` from any displayable error (bad names, bad QoS).
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}
