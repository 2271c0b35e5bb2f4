//! Lifecycle (managed) nodes, as ROS 2 defines them: a node that is
//! configured, activated, deactivated, cleaned up and shut down by
//! transitions that a supervisor (`ros2 lifecycle set`, Nav2's lifecycle
//! manager, launch) triggers, each running a callback of the node that may
//! succeed, fail or err.
//!
//! ```text
//!  unconfigured ──configure──▶ inactive ──activate──▶ active
//!       ▲  ◀───────cleanup────────┘  ◀──deactivate──────┘
//!       │        (each one shutdown ──▶ finalized)
//!  errorprocessing ◀── a callback's Error ── on_error: Success → unconfigured, else finalized
//! ```
//!
//! A transition first enters its transition state (`configuring`, …),
//! runs the callback, then takes the `transition_success`,
//! `transition_failure` (back where it started) or `transition_error` edge
//! (to `errorprocessing`, where `on_error` runs). Every edge taken is
//! published on `~/transition_event`. The ids and labels are rcl_lifecycle's,
//! so `lifecycle_msgs` clients of ROS 2 drive a hibari node and hibari
//! clients drive a ROS 2 one.

use thiserror::Error;

mod machine;
mod node;
mod publisher;

pub use machine::{CallbackReturn, State, Transition, STATES};
pub use node::{LifecycleCallbacks, LifecycleNode, TransitionOutcome};
pub use publisher::LifecyclePublisher;

#[cfg(test)]
mod tests;

/// Why a lifecycle node could not be created.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LifecycleCreateError {
    /// The node itself.
    #[error(transparent)]
    Node(crate::NodeCreateError),
    /// Its `~/transition_event` publisher.
    #[error("cannot create the lifecycle node's ~/transition_event publisher: {0}")]
    Events(crate::PublisherCreateError),
    /// One of its five services.
    #[error("cannot create the lifecycle service {name}: {source}")]
    Service {
        /// The service's name.
        name: String,
        /// Why.
        source: crate::ServiceCreateError,
    },
}

/// Why a transition did not run.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransitionError {
    /// The current state has no such transition.
    #[error("there is no transition `{transition}` out of the state `{}`", state.label())]
    NotAvailable {
        /// The transition's label.
        transition: String,
        /// The state the node is in.
        state: State,
    },
    /// Another transition is running (or a callback tried to trigger one of
    /// its own node).
    #[error("another transition of this node is running")]
    Busy,
}
