//! [`LifecycleNode`]: a node with the lifecycle state machine, its
//! services and its transition events.

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::context::{lock, Context, NodeCreateError};
use crate::msg::lifecycle_msgs::msg::TransitionEvent;
use crate::msg::lifecycle_msgs::srv::{
    ChangeState, ChangeState_Response, GetAvailableStates, GetAvailableStates_Response,
    GetAvailableTransitions, GetAvailableTransitions_Response, GetState, GetState_Response,
};
use crate::{Node, NodeOptions, Publisher, QosProfile, Service};

use super::machine::{self, by_id, by_label, out_of, CallbackReturn, Edge, State, Transition};
use super::{LifecycleCreateError, TransitionError};

/// What a lifecycle node does in each transition (rclcpp's and rclpy's
/// `on_configure` … `on_error`). Each gets the state the transition started
/// from; every default returns [`CallbackReturn::Success`].
pub trait LifecycleCallbacks: Send {
    /// `unconfigured` → `inactive`: read parameters, create what the node
    /// needs.
    fn on_configure(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// `inactive` → `unconfigured`: release what `on_configure` made.
    fn on_cleanup(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// `inactive` → `active`: start processing.
    fn on_activate(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// `active` → `inactive`: stop processing.
    fn on_deactivate(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// any primary state → `finalized`.
    fn on_shutdown(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// After a callback returned [`CallbackReturn::Error`]: success goes to
    /// `unconfigured`, anything else to `finalized`.
    fn on_error(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
}

struct Defaults;
impl LifecycleCallbacks for Defaults {}

/// How a transition ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransitionOutcome {
    /// What the transition's callback returned.
    pub result: CallbackReturn,
    /// The primary state the node is in now.
    pub state: State,
}

pub(crate) struct LifecycleInner {
    state: Mutex<State>,
    /// Held while a transition runs: one at a time.
    running: Mutex<()>,
    callbacks: Mutex<Box<dyn LifecycleCallbacks>>,
    events: Publisher<TransitionEvent>,
    /// The activation flags of the node's lifecycle publishers.
    managed: Mutex<Vec<Weak<AtomicBool>>>,
}

/// A managed node (rclcpp's `LifecycleNode`, rclpy's `lifecycle.Node`):
/// a [`Node`] (it derefs to one) that moves through the lifecycle states when
/// its transitions are triggered, here or by a `~/change_state` request.
///
/// It serves `~/change_state`, `~/get_state`, `~/get_available_states`,
/// `~/get_available_transitions` and `~/get_transition_graph`
/// (`lifecycle_msgs`), and publishes every step on `~/transition_event`, so
/// `ros2 lifecycle` and rclpy/rclcpp lifecycle clients drive it. The
/// services answer while an executor spins the node. Publishers made with
/// [`create_lifecycle_publisher`](LifecycleNode::create_lifecycle_publisher)
/// publish only while the node is `active`.
#[derive(Clone)]
pub struct LifecycleNode {
    node: Node,
    inner: Arc<LifecycleInner>,
    _services: Arc<Vec<Box<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for LifecycleNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LifecycleNode")
            .field("name", &self.node.fully_qualified_name())
            .field("state", &self.current_state())
            .finish()
    }
}

impl Deref for LifecycleNode {
    type Target = Node;
    fn deref(&self) -> &Node {
        &self.node
    }
}

impl LifecycleInner {
    fn current(&self) -> State {
        *lock(&self.state)
    }

    /// Takes `edge`: the new state, and its event on `~/transition_event`.
    fn take(&self, edge: Edge) {
        *lock(&self.state) = edge.goal;
        let _ = self.events.publish(TransitionEvent {
            timestamp: u64::try_from(crate::time::system_ns()).unwrap_or(0),
            transition: edge.transition_msg(),
            start_state: edge.start.to_msg(),
            goal_state: edge.goal.to_msg(),
        });
    }

    fn set_active(&self, active: bool) {
        let mut managed = lock(&self.managed);
        managed.retain(|f| f.strong_count() > 0);
        for flag in managed.iter().filter_map(Weak::upgrade) {
            flag.store(active, Ordering::Release);
        }
    }

    fn run_callback(&self, in_state: State, previous: State) -> CallbackReturn {
        let mut cb = lock(&self.callbacks);
        match in_state {
            State::Configuring => cb.on_configure(previous),
            State::CleaningUp => cb.on_cleanup(previous),
            State::Activating => cb.on_activate(previous),
            State::Deactivating => cb.on_deactivate(previous),
            State::ShuttingDown => cb.on_shutdown(previous),
            State::ErrorProcessing => cb.on_error(previous),
            _ => CallbackReturn::Success,
        }
    }

    /// Runs the transition `edge` out of the current state: its callback,
    /// then the success, failure or error edge (and `on_error` after an
    /// error), as rclpy's `__change_state` does.
    fn run(&self, edge: Edge) -> Result<TransitionOutcome, TransitionError> {
        let Ok(_running) = self.running.try_lock() else {
            return Err(TransitionError::Busy);
        };
        let previous = self.current();
        if edge.start != previous {
            return Err(TransitionError::NotAvailable {
                transition: edge.label.into(),
                state: previous,
            });
        }
        if previous == State::Active {
            self.set_active(false);
        }
        self.take(edge);
        let result = self.run_callback(edge.goal, previous);
        let next =
            by_label(edge.goal, result.label()).expect("every transition state has three exits");
        self.take(next);
        if next.goal == State::ErrorProcessing {
            let r = self.run_callback(State::ErrorProcessing, previous);
            let exit = by_label(State::ErrorProcessing, r.label())
                .expect("errorprocessing has three exits");
            self.take(exit);
        }
        let state = self.current();
        if state == State::Active {
            self.set_active(true);
        }
        Ok(TransitionOutcome { result, state })
    }
}

impl LifecycleNode {
    /// A lifecycle node named `name` of `context`, `unconfigured`, with
    /// callbacks that all succeed until [`set_callbacks`](Self::set_callbacks).
    pub fn new(
        context: &Context,
        name: &str,
        options: NodeOptions,
    ) -> Result<LifecycleNode, LifecycleCreateError> {
        let node = context
            .create_node_with_options(name, options)
            .map_err(LifecycleCreateError::Node)?;
        LifecycleNode::from_node(node)
    }

    /// Makes `node` a lifecycle node: it gets the lifecycle services and
    /// `~/transition_event` and starts `unconfigured`. (For bindings that
    /// create the node first; `new` is the usual way.)
    pub fn from_node(node: Node) -> Result<LifecycleNode, LifecycleCreateError> {
        let events = node
            .create_publisher::<TransitionEvent>("~/transition_event", QosProfile::default())
            .map_err(LifecycleCreateError::Events)?;
        let inner = Arc::new(LifecycleInner {
            state: Mutex::new(State::Unconfigured),
            running: Mutex::new(()),
            callbacks: Mutex::new(Box::new(Defaults)),
            events,
            managed: Mutex::new(Vec::new()),
        });
        let services = serve_all(&node, &inner)?;
        Ok(LifecycleNode {
            node,
            inner,
            _services: Arc::new(services),
        })
    }

    /// The node underneath.
    pub fn node(&self) -> &Node {
        &self.node
    }

    /// Sets what the transitions do.
    pub fn set_callbacks(&self, callbacks: impl LifecycleCallbacks + 'static) {
        *lock(&self.inner.callbacks) = Box::new(callbacks);
    }

    /// The state it is in.
    pub fn current_state(&self) -> State {
        self.inner.current()
    }

    /// Runs `transition` from the current state; fails when the current
    /// state has no such transition, or another transition is running (a
    /// callback cannot trigger a transition of its own node).
    pub fn trigger_transition(
        &self,
        transition: Transition,
    ) -> Result<TransitionOutcome, TransitionError> {
        let state = self.current_state();
        if !state.is_primary() {
            return Err(TransitionError::Busy);
        }
        let edge = by_label(state, transition.label()).ok_or(TransitionError::NotAvailable {
            transition: transition.label().into(),
            state,
        })?;
        self.inner.run(edge)
    }

    /// `configure`.
    pub fn configure(&self) -> Result<TransitionOutcome, TransitionError> {
        self.trigger_transition(Transition::Configure)
    }

    /// `cleanup`.
    pub fn cleanup(&self) -> Result<TransitionOutcome, TransitionError> {
        self.trigger_transition(Transition::Cleanup)
    }

    /// `activate`.
    pub fn activate(&self) -> Result<TransitionOutcome, TransitionError> {
        self.trigger_transition(Transition::Activate)
    }

    /// `deactivate`.
    pub fn deactivate(&self) -> Result<TransitionOutcome, TransitionError> {
        self.trigger_transition(Transition::Deactivate)
    }

    /// `shutdown`.
    pub fn shutdown(&self) -> Result<TransitionOutcome, TransitionError> {
        self.trigger_transition(Transition::Shutdown)
    }

    /// The transitions out of the current state.
    pub fn available_transitions(&self) -> Vec<(u8, &'static str, State)> {
        out_of(self.current_state())
            .map(|e| (e.id, e.label, e.goal))
            .collect()
    }

    /// A flag for a lifecycle publisher: set while the node is active.
    pub(crate) fn managed_flag(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(self.current_state() == State::Active));
        lock(&self.inner.managed).push(Arc::downgrade(&flag));
        flag
    }
}

fn serve<S: Service>(
    node: &Node,
    inner: &Arc<LifecycleInner>,
    keep: &mut Vec<Box<dyn Any + Send + Sync>>,
    suffix: &str,
    answer: impl Fn(&LifecycleInner, S::Request) -> S::Response + Send + 'static,
) -> Result<(), LifecycleCreateError> {
    let qos = QosProfile::services_default();
    crate::service::serve_state::<S, _>(node, inner, keep, suffix, qos, answer)
        .map_err(|(name, source)| LifecycleCreateError::Service { name, source })
}

fn serve_all(
    node: &Node,
    inner: &Arc<LifecycleInner>,
) -> Result<Vec<Box<dyn Any + Send + Sync>>, LifecycleCreateError> {
    let mut keep = Vec::new();
    serve::<ChangeState>(node, inner, &mut keep, "change_state", |i, req| {
        let state = i.current();
        // rclpy: a label, when given, names the transition out of the
        // current state; else the id does.
        let edge = match req.transition.label.is_empty() {
            false => by_label(state, &req.transition.label),
            true => by_id(state, req.transition.id),
        };
        let success = edge
            .filter(|e| e.start.is_primary())
            .and_then(|e| i.run(e).ok())
            .is_some_and(|o| o.result == CallbackReturn::Success);
        ChangeState_Response { success }
    })?;
    serve::<GetState>(node, inner, &mut keep, "get_state", |i, _| {
        GetState_Response {
            current_state: i.current().to_msg(),
        }
    })?;
    serve::<GetAvailableStates>(node, inner, &mut keep, "get_available_states", |_, _| {
        GetAvailableStates_Response {
            available_states: machine::STATES.iter().map(|s| s.to_msg()).collect(),
        }
    })?;
    serve::<GetAvailableTransitions>(
        node,
        inner,
        &mut keep,
        "get_available_transitions",
        |i, _| GetAvailableTransitions_Response {
            available_transitions: out_of(i.current()).map(|e| e.to_msg()).collect(),
        },
    )?;
    serve::<GetAvailableTransitions>(node, inner, &mut keep, "get_transition_graph", |_, _| {
        GetAvailableTransitions_Response {
            available_transitions: machine::GRAPH.into_iter().map(Edge::to_msg).collect(),
        }
    })?;
    Ok(keep)
}

impl From<NodeCreateError> for LifecycleCreateError {
    fn from(e: NodeCreateError) -> Self {
        LifecycleCreateError::Node(e)
    }
}
