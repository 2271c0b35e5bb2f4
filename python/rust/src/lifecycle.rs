//! Lifecycle nodes for Python: `hibari.lifecycle.LifecycleNode` (rclpy's
//! `lifecycle.Node`) is a `hibari.Node` whose Rust node is made a
//! `hibari::LifecycleNode` here. The Rust state machine runs the
//! transitions (also those asked for by `~/change_state` requests) and calls
//! one Python function for every callback: `dispatch(name, previous_state_id)`
//! returning 0 (success), 1 (failure) or 2 (error); an exception counts as an
//! error.

use hibari::lifecycle::{CallbackReturn, LifecycleCallbacks, State, Transition};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::runtime::Node;

struct Dispatch(Py<PyAny>);

impl Dispatch {
    fn call(&self, name: &str, previous: State) -> CallbackReturn {
        Python::attach(|py| {
            match self
                .0
                .call1(py, (name, previous.id()))
                .and_then(|r| r.extract::<u8>(py))
            {
                Ok(0) => CallbackReturn::Success,
                Ok(1) => CallbackReturn::Failure,
                Ok(_) => CallbackReturn::Error,
                Err(e) => {
                    e.write_unraisable(py, None);
                    CallbackReturn::Error
                }
            }
        })
    }
}

impl LifecycleCallbacks for Dispatch {
    fn on_configure(&mut self, p: State) -> CallbackReturn {
        self.call("on_configure", p)
    }
    fn on_cleanup(&mut self, p: State) -> CallbackReturn {
        self.call("on_cleanup", p)
    }
    fn on_activate(&mut self, p: State) -> CallbackReturn {
        self.call("on_activate", p)
    }
    fn on_deactivate(&mut self, p: State) -> CallbackReturn {
        self.call("on_deactivate", p)
    }
    fn on_shutdown(&mut self, p: State) -> CallbackReturn {
        self.call("on_shutdown", p)
    }
    fn on_error(&mut self, p: State) -> CallbackReturn {
        self.call("on_error", p)
    }
}

fn transition(label: &str) -> PyResult<Transition> {
    Ok(match label {
        "configure" => Transition::Configure,
        "cleanup" => Transition::Cleanup,
        "activate" => Transition::Activate,
        "deactivate" => Transition::Deactivate,
        "shutdown" => Transition::Shutdown,
        other => {
            return Err(PyValueError::new_err(format!(
                "`{other}` is not a transition (configure, cleanup, activate, deactivate, shutdown)"
            )))
        }
    })
}

/// The lifecycle state machine of a node.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Lifecycle {
    inner: hibari::LifecycleNode,
}

#[pymethods]
impl Lifecycle {
    /// Makes `node` a lifecycle node calling `dispatch` for its callbacks.
    #[new]
    fn new(node: &Node, dispatch: Py<PyAny>) -> PyResult<Self> {
        let inner = hibari::LifecycleNode::from_node(node.inner.clone())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        inner.set_callbacks(Dispatch(dispatch));
        Ok(Lifecycle { inner })
    }

    /// `(id, label)` of the current state.
    #[getter]
    fn state(&self) -> (u8, &'static str) {
        let s = self.inner.current_state();
        (s.id(), s.label())
    }

    /// Runs the transition `label` (without the GIL: the callbacks take it):
    /// `(callback result 0/1/2, new state id)`. Raises `ValueError` when the
    /// state has no such transition or one is running.
    fn trigger(&self, py: Python<'_>, label: &str) -> PyResult<(u8, u8)> {
        let t = transition(label)?;
        let node = &self.inner;
        match py.detach(|| node.trigger_transition(t)) {
            Ok(o) => {
                let r = match o.result {
                    CallbackReturn::Success => 0,
                    CallbackReturn::Failure => 1,
                    CallbackReturn::Error => 2,
                };
                Ok((r, o.state.id()))
            }
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    }

    /// `(id, label, goal state id)` of the transitions out of the state.
    fn available_transitions(&self) -> Vec<(u8, &'static str, u8)> {
        self.inner
            .available_transitions()
            .into_iter()
            .map(|(id, label, goal)| (id, label, goal.id()))
            .collect()
    }
}
