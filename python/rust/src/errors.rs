//! The exceptions the module raises, and the slot where an exception raised
//! by a user callback waits for the executor that ran it.
//!
//! A callback runs on an executor thread, inside Rust code that cannot
//! propagate a Python exception. As in rclpy, the exception must come out of
//! `spin()`: the callback wrapper stores it here and raises the flag; every
//! spin loop checks the flag after each callback, stops, and raises the
//! first stored exception in the thread that called it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

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

/// Exceptions raised by callbacks, oldest first, waiting for a spin loop.
static PENDING: Mutex<Vec<PyErr>> = Mutex::new(Vec::new());
/// Whether `PENDING` holds anything (read without the lock after every callback).
static RAISED: AtomicBool = AtomicBool::new(false);
/// Callbacks run so far in this process (lets a multi-threaded spin_once
/// notice that one ran).
static CALLBACKS: AtomicU64 = AtomicU64::new(0);

/// Records that a callback ran, and stores its exception if it raised one.
pub(crate) fn finish_callback(result: PyResult<()>) {
    CALLBACKS.fetch_add(1, Ordering::AcqRel);
    if let Err(e) = result {
        PENDING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(e);
        RAISED.store(true, Ordering::Release);
    }
}

/// Whether a callback raised an exception that no spin loop took yet.
pub(crate) fn raised() -> bool {
    RAISED.load(Ordering::Acquire)
}

/// How many callbacks ran so far.
pub(crate) fn callbacks_run() -> u64 {
    CALLBACKS.load(Ordering::Acquire)
}

/// Takes the oldest exception a callback raised, if any.
pub(crate) fn take_raised() -> Option<PyErr> {
    if !raised() {
        return None;
    }
    let mut pending = PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let first = (!pending.is_empty()).then(|| pending.remove(0));
    RAISED.store(!pending.is_empty(), Ordering::Release);
    first
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
