//! The server side: `_hibari.ActionServer` and the handle of an accepted
//! goal, `_hibari.ServerGoal`.
//!
//! The three Python functions a server is made with run on the executor
//! spinning its node, as the Rust server's callbacks do:
//! `on_goal(goal_id, goal) -> bool` (accept?), `on_cancel(goal_id) -> bool`
//! (accept the cancel?) and `on_accepted(ServerGoal)`. An exception in one
//! of them is raised from that executor's spin call, and counts as a
//! refusal. The goal is accepted without executing (`ACCEPTED`); Python's
//! `execute()` starts it.

use std::sync::atomic::{AtomicI8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hibari::action::{GenericServerGoalHandle, GoalId, GoalStateError};
use hibari::{ActionServerOptions, CancelResponse, GenericActionServer, GoalResponse, GoalStatus};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::Parts;
use crate::errors::{value_error, HibariError, Reporter};
use crate::executor::CallbackGroup;
use crate::runtime::Node;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn state_error(e: GoalStateError) -> PyErr {
    HibariError::new_err(e.to_string())
}

/// Calls a Python decision function; an exception goes to the executor's
/// spin call and counts as "no".
fn decide<'py>(
    py: Python<'py>,
    reporter: &Reporter,
    call: impl FnOnce() -> PyResult<Bound<'py, PyAny>>,
) -> bool {
    match call().and_then(|answer| answer.is_truthy()) {
        Ok(yes) => {
            reporter.finish(py, Ok(()));
            yes
        }
        Err(e) => {
            reporter.finish(py, Err(e));
            false
        }
    }
}

/// Serves one action.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct ActionServer {
    inner: GenericActionServer,
}

#[pymethods]
impl ActionServer {
    /// A server of the action type `type_name` named `name` on `node`;
    /// results are kept `result_timeout` seconds after their goal ends.
    #[new]
    #[pyo3(signature = (node, type_name, name, result_timeout, on_goal, on_cancel, on_accepted, group = None))]
    #[allow(clippy::too_many_arguments)] // rclpy's `ActionServer` arguments, one each
    fn new(
        py: Python<'_>,
        node: &Node,
        type_name: &str,
        name: &str,
        result_timeout: f64,
        on_goal: Py<PyAny>,
        on_cancel: Py<PyAny>,
        on_accepted: Py<PyAny>,
        group: Option<&CallbackGroup>,
    ) -> PyResult<Self> {
        let parts = Parts::new(py, type_name)?;
        let registry = parts.registry();
        let timeout = Duration::try_from_secs_f64(result_timeout.max(0.0)).unwrap_or(Duration::MAX);
        let options = ActionServerOptions::new()
            .result_timeout(timeout)
            .callback_group(&node.group(group));
        let reporter = node.reporter.clone();
        let goal_parts = parts.clone();
        let goal_reporter = reporter.clone();
        let goal = move |id: &GoalId, value: &hibari::dynamic::Value| {
            let accept = Python::attach(|py| {
                decide(py, &goal_reporter, || {
                    let goal = goal_parts.to_python(py, &goal_parts.goal, value)?;
                    on_goal.bind(py).call1((PyBytes::new(py, id), goal))
                })
            });
            if accept {
                GoalResponse::AcceptAndDefer
            } else {
                GoalResponse::Reject
            }
        };
        let cancel_reporter = reporter.clone();
        let cancel = move |id: &GoalId| {
            let accept = Python::attach(|py| {
                decide(py, &cancel_reporter, || {
                    on_cancel.bind(py).call1((PyBytes::new(py, id),))
                })
            });
            if accept {
                CancelResponse::Accept
            } else {
                CancelResponse::Reject
            }
        };
        let accepted = move |handle: GenericServerGoalHandle| {
            Python::attach(|py| {
                let result = parts
                    .to_python(py, &parts.goal, handle.goal())
                    .and_then(|goal| {
                        let goal = ServerGoal {
                            id: *handle.goal_id(),
                            handle: Mutex::new(Some(handle)),
                            ended: AtomicI8::new(0),
                            goal: goal.unbind(),
                            parts: parts.clone(),
                        };
                        on_accepted.call1(py, (Py::new(py, goal)?,))
                    });
                reporter.finish(py, result.map(drop));
            });
        };
        let inner = node
            .inner
            .create_generic_action_server(
                name, type_name, registry, options, goal, cancel, accepted,
            )
            .map_err(value_error)?;
        Ok(ActionServer { inner })
    }

    /// The fully qualified action name.
    #[getter]
    fn action_name(&self) -> &str {
        self.inner.name()
    }
}

/// An accepted goal at the server. Ending it (`finish`) consumes the Rust
/// handle; dropping it while the goal is active aborts the goal (or marks it
/// canceled after an accepted cancel), so no client waits forever.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct ServerGoal {
    handle: Mutex<Option<GenericServerGoalHandle>>,
    /// The status it ended with (0 while it has not).
    ended: AtomicI8,
    id: GoalId,
    /// The goal, as a Python message.
    goal: Py<PyAny>,
    parts: Arc<Parts>,
}

impl ServerGoal {
    fn with<T>(
        &self,
        f: impl FnOnce(&GenericServerGoalHandle) -> Result<T, GoalStateError>,
    ) -> PyResult<T> {
        match lock(&self.handle).as_ref() {
            Some(handle) => f(handle).map_err(state_error),
            None => Err(HibariError::new_err("the goal has ended")),
        }
    }
}

#[pymethods]
impl ServerGoal {
    /// The goal's id (16 bytes).
    #[getter]
    fn goal_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.id)
    }

    /// The goal (the action's `Goal` message).
    #[getter]
    fn goal(&self, py: Python<'_>) -> Py<PyAny> {
        self.goal.clone_ref(py)
    }

    /// The goal's status now (`action_msgs/msg/GoalStatus` numbers).
    fn status(&self) -> i8 {
        match lock(&self.handle).as_ref() {
            Some(handle) => handle.status() as i8,
            None => self.ended.load(Ordering::Acquire),
        }
    }

    /// Starts executing the accepted goal (`ACCEPTED` → `EXECUTING`).
    fn execute(&self) -> PyResult<()> {
        self.with(GenericServerGoalHandle::execute)
    }

    /// Publishes `feedback` (the action's `Feedback` message).
    fn publish_feedback(&self, py: Python<'_>, feedback: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = self.parts.to_value(py, &self.parts.feedback, feedback)?;
        py.detach(|| self.with(|h| h.publish_feedback(&value)))
    }

    /// Ends the goal with `status` (4 succeeded, 5 canceled, 6 aborted) and
    /// `result` (the action's `Result` message), which clients then get.
    fn finish(&self, py: Python<'_>, status: i8, result: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = self.parts.to_value(py, &self.parts.result, result)?;
        let end = GoalStatus::from_i8(status);
        if !end.is_terminal() {
            return Err(value_error(format!(
                "{status} is not a final goal status (4, 5 or 6)"
            )));
        }
        py.detach(|| {
            let mut slot = lock(&self.handle);
            let handle = slot
                .take()
                .ok_or_else(|| HibariError::new_err("the goal has ended"))?;
            let outcome = match end {
                GoalStatus::Succeeded => handle.succeed(value),
                GoalStatus::Canceled => handle.canceled(value),
                _ => handle.abort(value),
            };
            outcome.map_err(state_error)?;
            self.ended.store(status, Ordering::Release);
            Ok(())
        })
    }
}
