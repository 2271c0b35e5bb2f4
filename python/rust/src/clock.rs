//! Clocks for Python: `hibari.clock.Clock` (rclpy's) is a thin layer over
//! these, which are the Rust runtime's clocks (`hibari::time`): a node's
//! clock follows `/clock` while its `use_sim_time` parameter is true.
//! Times cross as integer nanoseconds; clock types as rclpy's numbers
//! (1 ROS, 2 system, 3 steady).

use std::sync::Mutex;

use hibari::time::{ClockChange, Duration, JumpHandler, JumpThreshold, SleepError, TimeJump};
use hibari::{ClockType, Time};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::runtime::{Context, Node};

fn clock_type(number: u8) -> PyResult<ClockType> {
    match number {
        1 => Ok(ClockType::RosTime),
        2 => Ok(ClockType::SystemTime),
        3 => Ok(ClockType::SteadyTime),
        n => Err(PyValueError::new_err(format!(
            "{n} is not a clock type (1 ROS_TIME, 2 SYSTEM_TIME, 3 STEADY_TIME)"
        ))),
    }
}

fn clock_number(t: ClockType) -> u8 {
    match t {
        ClockType::RosTime => 1,
        ClockType::SystemTime => 2,
        ClockType::SteadyTime => 3,
    }
}

/// rclpy's `ClockChange` numbers.
fn change_number(c: ClockChange) -> u8 {
    match c {
        ClockChange::RosTimeNoChange => 1,
        ClockChange::RosTimeActivated => 2,
        ClockChange::RosTimeDeactivated => 3,
        ClockChange::SystemTimeNoChange => 4,
    }
}

/// A clock of the Rust runtime.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Clock {
    pub(crate) inner: hibari::Clock,
}

#[pymethods]
impl Clock {
    /// A clock of its own of `clock_type` (1 ROS, 2 system, 3 steady).
    #[new]
    fn new(clock_type_number: u8) -> PyResult<Self> {
        Ok(Clock {
            inner: hibari::Clock::new(clock_type(clock_type_number)?),
        })
    }

    /// The clock of `node` (ROS time; simulated with `use_sim_time`).
    #[staticmethod]
    fn of_node(node: &Node) -> Self {
        Clock {
            inner: node.inner.get_clock().clone(),
        }
    }

    #[getter]
    fn clock_type(&self) -> u8 {
        clock_number(self.inner.clock_type())
    }

    fn now_ns(&self) -> i64 {
        self.inner.now().nanoseconds()
    }

    #[getter]
    fn ros_time_is_active(&self) -> bool {
        self.inner.ros_time_is_active()
    }

    /// Activates or deactivates ROS time (jump callbacks run, so without
    /// the GIL held here: they take it themselves).
    fn set_ros_time_is_active(&self, py: Python<'_>, active: bool) {
        let clock = &self.inner;
        py.detach(|| match active {
            true => clock.enable_ros_time_override(),
            false => clock.disable_ros_time_override(),
        })
    }

    fn set_ros_time_override(&self, py: Python<'_>, nanoseconds: i64) {
        let clock = &self.inner;
        let t = Time::from_nanoseconds(nanoseconds, ClockType::RosTime);
        py.detach(|| clock.set_ros_time_override(t))
    }

    /// Sleeps until the clock reads `nanoseconds` (of its own type) or later,
    /// without the GIL: `0` when it got there, `1` when ROS time was
    /// (de)activated meanwhile, `2` when `context` shut down.
    #[pyo3(signature = (nanoseconds, context = None))]
    fn sleep_until_ns(
        &self,
        py: Python<'_>,
        nanoseconds: i64,
        context: Option<&Context>,
    ) -> PyResult<u8> {
        let until = Time::from_nanoseconds(nanoseconds, self.inner.clock_type());
        let clock = &self.inner;
        let context = context.map(|c| &c.inner);
        match py.detach(|| clock.sleep_until(until, context)) {
            Ok(()) => Ok(0),
            Err(SleepError::ClockChanged) => Ok(1),
            Err(SleepError::ShutDown) => Ok(2),
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    }

    /// Calls `pre()` before and `post(clock_change, delta_ns)` after each
    /// jump the threshold selects, until the handle is unregistered or
    /// dropped. The callbacks run on the thread that moved the clock (the
    /// node's `/clock` thread for simulated time) with the GIL taken there;
    /// an exception in one is reported as unraisable.
    #[pyo3(signature = (on_clock_change, min_forward_ns, min_backward_ns, pre, post))]
    fn create_jump_callback(
        &self,
        on_clock_change: bool,
        min_forward_ns: Option<i64>,
        min_backward_ns: Option<i64>,
        pre: Option<Py<PyAny>>,
        post: Option<Py<PyAny>>,
    ) -> JumpHandle {
        let threshold = JumpThreshold {
            on_clock_change,
            min_forward: min_forward_ns.map(Duration::from_nanoseconds),
            min_backward: min_backward_ns.map(Duration::from_nanoseconds),
        };
        let pre = pre.map(|f| -> hibari::time::PreJumpCallback {
            Box::new(move || {
                Python::attach(|py| {
                    if let Err(e) = f.call0(py) {
                        e.write_unraisable(py, None);
                    }
                })
            })
        });
        let post = post.map(|f| -> hibari::time::PostJumpCallback {
            Box::new(move |jump: &TimeJump| {
                Python::attach(|py| {
                    let args = (change_number(jump.clock_change), jump.delta.nanoseconds());
                    if let Err(e) = f.call1(py, args) {
                        e.write_unraisable(py, None);
                    }
                })
            })
        });
        JumpHandle {
            handler: Mutex::new(Some(self.inner.create_jump_callback(threshold, pre, post))),
        }
    }
}

/// Keeps a jump callback registered.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct JumpHandle {
    handler: Mutex<Option<JumpHandler>>,
}

#[pymethods]
impl JumpHandle {
    /// Removes the callback.
    fn unregister(&self, py: Python<'_>) {
        let handler = self
            .handler
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        py.detach(|| drop(handler));
    }
}
