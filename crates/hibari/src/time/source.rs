//! A node's time source: its ROS clock follows `/clock` while the node's
//! `use_sim_time` parameter is true.
//!
//! As rclcpp does by default, a thread of the node's own reads `/clock`, so
//! simulated time advances even while no executor spins the node (a
//! callback blocked in `Rate::sleep` still wakes).

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::thread::{self, JoinHandle, Thread};

use futures_core::Stream;

use crate::context::lock;
use crate::msg::rosgraph_msgs::msg::Clock as ClockMsg;
use crate::node::{Node, NodeInner};
use crate::parameter::{DeclareParameterError, ParameterCallbackHandle, ParameterValue};
use crate::{QosProfile, SubscriptionCreateError};

use super::{Clock, ClockType, Time};

/// The parameter that switches simulated time on.
pub const USE_SIM_TIME: &str = "use_sim_time";

/// The `/clock` reader of a node with `use_sim_time` true.
struct ClockThread {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for ClockThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            // A jump callback on the clock thread that switched sim time off
            // drops it there: it ends by itself.
            if t.thread().id() != thread::current().id() {
                let _ = t.join();
            }
        }
    }
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

fn spawn(node: &Node, clock: Clock) -> Result<ClockThread, SubscriptionCreateError> {
    let mut stream = node.create_subscription_stream::<ClockMsg>("/clock", QosProfile::clock())?;
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    let thread = thread::Builder::new()
        .name("hibari-clock".into())
        .spawn(move || {
            let waker = Waker::from(Arc::new(Unpark(thread::current())));
            let mut cx = TaskContext::from_waker(&waker);
            while !stopped.load(Ordering::Acquire) {
                match Pin::new(&mut stream).poll_next(&mut cx) {
                    Poll::Ready(Some((msg, _))) => {
                        clock.set_ros_time_override(Time::from_msg(&msg.clock, ClockType::RosTime))
                    }
                    Poll::Ready(None) => break,
                    Poll::Pending => thread::park(),
                }
            }
        })
        .ok();
    Ok(ClockThread { stop, thread })
}

/// Keeps a node's clock following its `use_sim_time` parameter.
pub(crate) struct TimeSource {
    _callback: ParameterCallbackHandle,
}

#[derive(Default)]
struct SimState {
    thread: Option<ClockThread>,
}

fn switch(node: &Node, state: &Mutex<SimState>, on: bool) {
    let clock = node.get_clock();
    let mut state = lock(state);
    if on {
        if state.thread.is_none() {
            match spawn(node, clock.clone()) {
                Ok(t) => state.thread = Some(t),
                Err(e) => crate::error!(
                    node.get_logger(),
                    "use_sim_time: cannot subscribe to /clock: {e}"
                ),
            }
        }
        clock.enable_ros_time_override();
    } else {
        let thread = state.thread.take();
        drop(state);
        drop(thread);
        clock.disable_ros_time_override();
    }
}

impl TimeSource {
    /// Declares `use_sim_time` (false unless overridden) on `node` and
    /// follows it.
    pub(crate) fn attach(node: &Node) -> Result<TimeSource, DeclareParameterError> {
        let state = Arc::new(Mutex::new(SimState::default()));
        let weak: Weak<NodeInner> = Arc::downgrade(&node.inner);
        let on_set = state.clone();
        let callback = node.add_post_set_parameters_callback(move |params| {
            let Some(inner) = weak.upgrade() else { return };
            let node = Node { inner };
            for p in params.iter().filter(|p| p.name == USE_SIM_TIME) {
                if let ParameterValue::Bool(on) = p.value {
                    switch(&node, &on_set, on);
                }
            }
        });
        let value = node.declare_parameter(USE_SIM_TIME, false)?;
        if value == ParameterValue::Bool(true) {
            switch(node, &state, true);
        }
        Ok(TimeSource {
            _callback: callback,
        })
    }
}

impl Node {
    /// The node's clock: ROS time, which follows `/clock` while the node's
    /// `use_sim_time` parameter is true (rclcpp's and rclpy's `get_clock`).
    /// Timers from [`create_timer`](Node::create_timer) and rates from
    /// [`create_rate`](Node::create_rate) run on it.
    pub fn get_clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// The node clock's current time.
    pub fn now(&self) -> Time {
        self.inner.clock.now()
    }
}
