//! The ROS 2 lifecycle state machine (rcl_lifecycle's default one): its
//! states, its transitions and their ids and labels, as `lifecycle_msgs`
//! numbers them.

use crate::msg::lifecycle_msgs::msg::{
    State as StateMsg, Transition as TransitionMsg, TransitionDescription,
};

/// A state of a lifecycle node: the four primary states, and the
/// transition states a node is in while a callback runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum State {
    /// `unknown` (never a node's state).
    Unknown = 0,
    /// `unconfigured`: created, or cleaned up.
    Unconfigured = 1,
    /// `inactive`: configured, not processing.
    Inactive = 2,
    /// `active`: processing; lifecycle publishers publish.
    Active = 3,
    /// `finalized`: shut down, for good.
    Finalized = 4,
    /// `configuring`: `on_configure` runs.
    Configuring = 10,
    /// `cleaningup`: `on_cleanup` runs.
    CleaningUp = 11,
    /// `shuttingdown`: `on_shutdown` runs.
    ShuttingDown = 12,
    /// `activating`: `on_activate` runs.
    Activating = 13,
    /// `deactivating`: `on_deactivate` runs.
    Deactivating = 14,
    /// `errorprocessing`: `on_error` runs.
    ErrorProcessing = 15,
}

/// Every state, in id order (what `~/get_available_states` answers).
pub const STATES: [State; 11] = [
    State::Unknown,
    State::Unconfigured,
    State::Inactive,
    State::Active,
    State::Finalized,
    State::Configuring,
    State::CleaningUp,
    State::ShuttingDown,
    State::Activating,
    State::Deactivating,
    State::ErrorProcessing,
];

impl State {
    /// The `lifecycle_msgs/msg/State` id.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// rcl's label (`unconfigured`, `activating`, …).
    pub fn label(self) -> &'static str {
        match self {
            State::Unknown => "unknown",
            State::Unconfigured => "unconfigured",
            State::Inactive => "inactive",
            State::Active => "active",
            State::Finalized => "finalized",
            State::Configuring => "configuring",
            State::CleaningUp => "cleaningup",
            State::ShuttingDown => "shuttingdown",
            State::Activating => "activating",
            State::Deactivating => "deactivating",
            State::ErrorProcessing => "errorprocessing",
        }
    }

    /// One of the four states a node rests in (not a transition state).
    pub fn is_primary(self) -> bool {
        matches!(
            self,
            State::Unconfigured | State::Inactive | State::Active | State::Finalized
        )
    }

    /// The state of an id.
    pub fn from_id(id: u8) -> Option<State> {
        STATES.into_iter().find(|s| s.id() == id)
    }

    /// As a message.
    pub fn to_msg(self) -> StateMsg {
        StateMsg {
            id: self.id(),
            label: self.label().into(),
        }
    }
}

/// What a transition callback says: the transition succeeded, failed (the
/// node goes back), or hit an error (the node goes to `errorprocessing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallbackReturn {
    /// Go on to the transition's goal state.
    Success,
    /// Go back to the state the transition started from.
    Failure,
    /// Go to `errorprocessing` (and run `on_error`).
    Error,
}

impl CallbackReturn {
    /// The label of the transition out of a transition state.
    pub(crate) fn label(self) -> &'static str {
        match self {
            CallbackReturn::Success => "transition_success",
            CallbackReturn::Failure => "transition_failure",
            CallbackReturn::Error => "transition_error",
        }
    }
}

/// A transition a user (or a `~/change_state` request) asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transition {
    /// `unconfigured` → `configuring` → `inactive`.
    Configure,
    /// `inactive` → `cleaningup` → `unconfigured`.
    Cleanup,
    /// `inactive` → `activating` → `active`.
    Activate,
    /// `active` → `deactivating` → `inactive`.
    Deactivate,
    /// any primary state but `finalized` → `shuttingdown` → `finalized`.
    Shutdown,
}

impl Transition {
    /// rcl's label: what `~/change_state` requests may name instead of an id.
    pub fn label(self) -> &'static str {
        match self {
            Transition::Configure => "configure",
            Transition::Cleanup => "cleanup",
            Transition::Activate => "activate",
            Transition::Deactivate => "deactivate",
            Transition::Shutdown => "shutdown",
        }
    }
}

/// One edge of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub id: u8,
    pub label: &'static str,
    pub start: State,
    pub goal: State,
}

const fn edge(id: u8, label: &'static str, start: State, goal: State) -> Edge {
    Edge {
        id,
        label,
        start,
        goal,
    }
}

use State::*;

/// rcl_lifecycle's default graph, in its order.
pub(crate) const GRAPH: [Edge; 25] = [
    edge(1, "configure", Unconfigured, Configuring),
    edge(10, "transition_success", Configuring, Inactive),
    edge(11, "transition_failure", Configuring, Unconfigured),
    edge(12, "transition_error", Configuring, ErrorProcessing),
    edge(2, "cleanup", Inactive, CleaningUp),
    edge(20, "transition_success", CleaningUp, Unconfigured),
    edge(21, "transition_failure", CleaningUp, Inactive),
    edge(22, "transition_error", CleaningUp, ErrorProcessing),
    edge(3, "activate", Inactive, Activating),
    edge(30, "transition_success", Activating, Active),
    edge(31, "transition_failure", Activating, Inactive),
    edge(32, "transition_error", Activating, ErrorProcessing),
    edge(4, "deactivate", Active, Deactivating),
    edge(40, "transition_success", Deactivating, Inactive),
    edge(41, "transition_failure", Deactivating, Active),
    edge(42, "transition_error", Deactivating, ErrorProcessing),
    edge(5, "shutdown", Unconfigured, ShuttingDown),
    edge(6, "shutdown", Inactive, ShuttingDown),
    edge(7, "shutdown", Active, ShuttingDown),
    edge(50, "transition_success", ShuttingDown, Finalized),
    edge(51, "transition_failure", ShuttingDown, Finalized),
    edge(52, "transition_error", ShuttingDown, ErrorProcessing),
    edge(60, "transition_success", ErrorProcessing, Unconfigured),
    edge(61, "transition_failure", ErrorProcessing, Finalized),
    edge(62, "transition_error", ErrorProcessing, Finalized),
];

impl Edge {
    pub fn transition_msg(self) -> TransitionMsg {
        TransitionMsg {
            id: self.id,
            label: self.label.into(),
        }
    }

    pub fn to_msg(self) -> TransitionDescription {
        TransitionDescription {
            transition: self.transition_msg(),
            start_state: self.start.to_msg(),
            goal_state: self.goal.to_msg(),
        }
    }
}

/// The edge with `id` out of `state`.
pub(crate) fn by_id(state: State, id: u8) -> Option<Edge> {
    GRAPH.into_iter().find(|e| e.start == state && e.id == id)
}

/// The edge labelled `label` out of `state`.
pub(crate) fn by_label(state: State, label: &str) -> Option<Edge> {
    GRAPH
        .into_iter()
        .find(|e| e.start == state && e.label == label)
}

/// The edges out of `state`.
pub(crate) fn out_of(state: State) -> impl Iterator<Item = Edge> {
    GRAPH.into_iter().filter(move |e| e.start == state)
}
