//! The client side: `_hibari.ActionClient` and the handle of a goal the
//! server accepted, `_hibari.ClientGoal`.
//!
//! As a service client, an action client needs no executor for its answers:
//! the goal's acceptance, its result and a cancel's answer complete their
//! Python futures on the thread that delivers them
//! ([`pending`](crate::pending)). Feedback is a subscription: its callback
//! runs on the executor spinning the client's node, and an exception there
//! is raised from that executor's spin call.

use std::sync::Arc;
use std::time::Instant;

use hibari::action::{
    ActionSendGoalError, CancelGoalError, GenericClientGoalHandle, GetResultError,
};
use hibari::dynamic::Value;
use hibari::{CdrBytes, GenericActionClient, Message};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::Parts;
use crate::decode::decode;
use crate::errors::{call_error, value_error, HibariError};
use crate::pending::{self, Finish, PendingCall};
use crate::runtime::{timeout, Node};
use crate::schema::schema;

/// The type of a cancel request's answer.
const CANCEL_RESPONSE: &str = "action_msgs/srv/CancelGoal_Response";

/// Sends goals of one action.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct ActionClient {
    inner: GenericActionClient,
    parts: Arc<Parts>,
    node: Py<Node>,
}

#[pymethods]
impl ActionClient {
    /// A client of the action type `type_name` named `name` on `node`.
    #[new]
    fn new(py: Python<'_>, node: Bound<'_, Node>, type_name: &str, name: &str) -> PyResult<Self> {
        let parts = Parts::new(py, type_name)?;
        schema(py, CANCEL_RESPONSE)?.class(py)?;
        let inner = node
            .get()
            .inner
            .create_generic_action_client(name, type_name, parts.registry())
            .map_err(value_error)?;
        Ok(ActionClient {
            inner,
            parts,
            node: node.unbind(),
        })
    }

    /// The fully qualified action name.
    #[getter]
    fn action_name(&self) -> &str {
        self.inner.name()
    }

    /// Whether a server is there (its services are matched).
    fn server_is_ready(&self) -> bool {
        self.inner.action_server_is_ready()
    }

    /// Waits up to `timeout_sec` (None: forever) for a server; returns
    /// whether one is there. Ctrl-C interrupts the wait.
    #[pyo3(signature = (timeout_sec = None))]
    fn wait_for_server(&self, py: Python<'_>, timeout_sec: Option<f64>) -> PyResult<bool> {
        let deadline = timeout(timeout_sec).and_then(|t| Instant::now().checked_add(t));
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let chunk = left.map_or(crate::executor::TICK, |l| l.min(crate::executor::TICK));
            let client = &self.inner;
            if py.detach(|| client.wait_for_server(chunk)) {
                return Ok(true);
            }
            py.check_signals()?;
            if left.is_some_and(|l| l <= chunk) {
                return Ok(false);
            }
        }
    }

    /// Sends `goal` (the action's `Goal` message) now. `on_done(ok, value)`
    /// gets the accepted goal's `ClientGoal`, None if the server rejected
    /// it, or the exception. `feedback(msg)` (if given) gets each of the
    /// goal's `Feedback` messages, on the executor spinning the node.
    #[pyo3(signature = (goal, on_done, feedback = None))]
    fn send_goal_async(
        &self,
        py: Python<'_>,
        goal: &Bound<'_, PyAny>,
        on_done: Py<PyAny>,
        feedback: Option<Py<PyAny>>,
    ) -> PyResult<PendingCall> {
        let value = self.parts.to_value(py, &self.parts.goal, goal)?;
        let feedback = feedback.map(|callback| {
            let parts = self.parts.clone();
            let reporter = self.node.get().reporter.clone();
            Box::new(move |value: Value| {
                Python::attach(|py| {
                    let result = parts
                        .to_python(py, &parts.feedback, &value)
                        .and_then(|message| callback.call1(py, (message,)));
                    reporter.finish(py, result.map(drop));
                });
            }) as Box<dyn FnMut(Value) + Send>
        });
        let client = &self.inner;
        let sent = py.detach(|| client.send_goal_async(value, feedback));
        let parts = self.parts.clone();
        let future = async move {
            let outcome = sent.await;
            Box::new(move |py: Python<'_>| match outcome {
                Ok(handle) => Ok(Py::new(py, ClientGoal { handle, parts })?.into_any()),
                Err(ActionSendGoalError::Rejected) => Ok(py.None()),
                Err(ActionSendGoalError::Call(e)) => Err(call_error(e)),
                Err(e) => Err(HibariError::new_err(e.to_string())),
            }) as Finish
        };
        Ok(pending::start(future, on_done))
    }
}

/// A goal the server accepted, at the client. Dropping it stops its
/// feedback here; it does not cancel the goal.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct ClientGoal {
    handle: GenericClientGoalHandle,
    parts: Arc<Parts>,
}

#[pymethods]
impl ClientGoal {
    /// The goal's id (16 bytes).
    #[getter]
    fn goal_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.handle.goal_id())
    }

    /// When the server accepted it: `(sec, nanosec)`.
    #[getter]
    fn stamp(&self) -> (i32, u32) {
        let stamp = self.handle.stamp();
        (stamp.sec, stamp.nanosec)
    }

    /// The last status heard (`action_msgs/msg/GoalStatus` numbers).
    fn status(&self) -> i8 {
        self.handle.status() as i8
    }

    /// Asks for the result; `on_done(ok, value)` gets `(status, result)`
    /// when the goal ends, or the exception.
    fn get_result_async(&self, py: Python<'_>, on_done: Py<PyAny>) -> PendingCall {
        let handle = &self.handle;
        let asked = py.detach(|| handle.get_result_async());
        let parts = self.parts.clone();
        let future = async move {
            let outcome = asked.await;
            Box::new(move |py: Python<'_>| match outcome {
                Ok(wrapped) => {
                    let result = parts.to_python(py, &parts.result, &wrapped.result)?;
                    Ok((wrapped.status as i8, result)
                        .into_pyobject(py)?
                        .into_any()
                        .unbind())
                }
                Err(GetResultError::Call(e)) => Err(call_error(e)),
                Err(e) => Err(HibariError::new_err(e.to_string())),
            }) as Finish
        };
        pending::start(future, on_done)
    }

    /// Asks the server to cancel the goal; `on_done(ok, value)` gets its
    /// `action_msgs/srv/CancelGoal_Response`, or the exception.
    fn cancel_async(&self, py: Python<'_>, on_done: Py<PyAny>) -> PendingCall {
        let handle = &self.handle;
        let asked = py.detach(|| handle.cancel_async());
        let future = async move {
            let outcome = asked.await;
            Box::new(move |py: Python<'_>| {
                let response = outcome.map_err(|e| match e {
                    CancelGoalError::Call(e) => call_error(e),
                    other => HibariError::new_err(other.to_string()),
                })?;
                let bytes = response.to_cdr().map_err(value_error)?;
                let schema = schema(py, CANCEL_RESPONSE)?;
                Ok(decode(py, &schema, &CdrBytes::from(bytes))?.unbind())
            }) as Finish
        };
        pending::start(future, on_done)
    }
}
