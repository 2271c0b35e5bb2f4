//! Rust futures completed into Python: a service call, an action goal, its
//! result, a cancel request.
//!
//! hibari's calls need no executor: their futures are woken on the thread
//! that delivers the reply. [`start`] polls a future there, and when it is
//! over turns its output into a Python value (attached to the interpreter
//! only for that) and calls the `on_done(ok, value)` function the Python
//! `Future` gave: `ok` true with the value, or false with the exception.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context as TaskContext, Poll, Wake, Waker};

use pyo3::prelude::*;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What a finished future leaves: the conversion of its output to Python,
/// run with the interpreter attached.
pub(crate) type Finish = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

type Boxed = Pin<Box<dyn Future<Output = Finish> + Send>>;

/// A future in flight and the Python function to complete.
struct State {
    future: Mutex<Option<Boxed>>,
    on_done: Mutex<Option<Py<PyAny>>>,
}

/// Wakes a pending future: polls it again.
struct Wakeup(Weak<State>);

impl Wake for Wakeup {
    fn wake(self: Arc<Self>) {
        if let Some(state) = self.0.upgrade() {
            poll(&state);
        }
    }
}

/// Polls `future` now (it may be over already) and again whenever it is
/// woken; when it is over, calls `on_done(ok, value)`.
pub(crate) fn start(
    future: impl Future<Output = Finish> + Send + 'static,
    on_done: Py<PyAny>,
) -> PendingCall {
    let state = Arc::new(State {
        future: Mutex::new(Some(Box::pin(future))),
        on_done: Mutex::new(Some(on_done)),
    });
    poll(&state);
    PendingCall { state }
}

/// Polls the future; when it is over, converts and completes the Python side.
fn poll(state: &Arc<State>) {
    let finish = {
        let mut slot = lock(&state.future);
        let Some(future) = slot.as_mut() else {
            return;
        };
        let waker = Waker::from(Arc::new(Wakeup(Arc::downgrade(state))));
        match future.as_mut().poll(&mut TaskContext::from_waker(&waker)) {
            Poll::Pending => return,
            Poll::Ready(finish) => {
                *slot = None;
                finish
            }
        }
    };
    let Some(on_done) = lock(&state.on_done).take() else {
        return;
    };
    Python::attach(|py| {
        let (ok, value) = match finish(py) {
            Ok(value) => (true, value),
            Err(e) => (false, e.into_value(py).into_any()),
        };
        if let Err(e) = on_done.call1(py, (ok, value)) {
            e.write_unraisable(py, None);
        }
    });
}

/// The handle of a call in flight.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct PendingCall {
    state: Arc<State>,
}

#[pymethods]
impl PendingCall {
    /// Forgets the call: a late answer is dropped, `on_done` is not called.
    fn cancel(&self) {
        let future = lock(&self.state.future).take();
        let on_done = lock(&self.state.on_done).take();
        drop((future, on_done));
    }

    /// Whether the call is over (answered, failed or canceled).
    fn done(&self) -> bool {
        lock(&self.state.future).is_none()
    }
}
