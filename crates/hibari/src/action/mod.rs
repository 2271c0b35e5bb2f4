//! ROS 2 actions: a long-running goal with feedback, a result, and
//! cancelation, on top of services and topics named as ROS 2 names them.
//!
//! # Semantics
//!
//! An action `/fib` is three services and two topics:
//!
//! | name | kind | type |
//! |---|---|---|
//! | `/fib/_action/send_goal` | service | `pkg/action/A_SendGoal` (goal id, goal → accepted, stamp) |
//! | `/fib/_action/cancel_goal` | service | `action_msgs/srv/CancelGoal` |
//! | `/fib/_action/get_result` | service | `pkg/action/A_GetResult` (goal id → status, result) |
//! | `/fib/_action/feedback` | topic | `pkg/action/A_FeedbackMessage` (goal id, feedback) |
//! | `/fib/_action/status` | topic (transient local, depth 1) | `action_msgs/msg/GoalStatusArray` |
//!
//! A client picks a random 16-byte goal id ([`GoalId`]) and sends the goal;
//! the server's goal callback accepts or rejects it ([`GoalResponse`]). An
//! accepted goal goes to the accepted callback as a goal handle
//! ([`ServerGoalHandle`]) that the application keeps — on another thread if
//! it likes — to publish feedback and to end the goal with `succeed`,
//! `abort` or (after a cancel request it accepted) `canceled`. A handle
//! dropped while its goal is still active aborts it, so a client never waits
//! for a goal that nobody will finish. Every status change is published on
//! the status topic.
//!
//! The client asks for the result with `get_result`; the server answers when
//! the goal ends (at once if it has ended), and keeps a finished goal's
//! result for [`ActionServerOptions::result_timeout`] (15 minutes, as
//! ROS 2). A cancel request names one goal, or all goals (a zero id), and
//! goes through the server's cancel callback ([`CancelResponse`]).
//!
//! Goal responses, results and cancel answers reach a client without an
//! executor (they are service replies). Feedback and status are topics: an
//! executor must spin the client's node for its feedback callbacks to run.
//! The server's callbacks run on the executor spinning the server's node.
//!
//! The typed [`ActionServer<A>`] and [`ActionClient<A>`] carry the
//! generated goal, result and feedback messages of an [`Action`](crate::Action);
//! the generic [`GenericActionServer`] and [`GenericActionClient`] name their
//! type at run time and carry [`dynamic`](crate::dynamic) values, for bridges
//! and tools. Both are one implementation over a (sealed) [`ActionCodec`],
//! and they talk to each other.
//!
//! ```
//! use hibari::msg::tf2_msgs::action::{LookupTransform, LookupTransform_Result};
//! use hibari::action::ActionServerOptions;
//! use hibari::{CancelResponse, Context, GoalResponse, GoalStatus, SingleThreadedExecutor};
//! use std::time::Duration;
//!
//! let context = Context::builder().isolated().create()?;
//! let node = context.create_node("tf")?;
//! let _server = node.create_action_server::<LookupTransform>(
//!     "lookup",
//!     ActionServerOptions::default(),
//!     |_id, goal| match goal.target_frame.is_empty() {
//!         true => GoalResponse::Reject,
//!         false => GoalResponse::AcceptAndExecute,
//!     },
//!     |_id| CancelResponse::Reject,
//!     |handle| {
//!         // Usually handed to a thread; a dropped handle aborts its goal.
//!         handle.succeed(LookupTransform_Result::default()).unwrap();
//!     },
//! )?;
//! let client = node.create_action_client::<LookupTransform>("lookup")?;
//! let executor = SingleThreadedExecutor::new();
//! executor.add_node(&node)?;
//! let mut goal = hibari::msg::tf2_msgs::action::LookupTransform_Goal::default();
//! goal.target_frame = "map".into();
//! let accepted = executor.spin_until_future_complete(
//!     client.send_goal_async(goal, None),
//!     Duration::from_secs(5),
//! )??;
//! // The server answers on the executor: spin it while waiting (or wait
//! // with `get_result` on another thread than the spinning one).
//! let result = executor
//!     .spin_until_future_complete(accepted.get_result_async(), Duration::from_secs(5))??;
//! assert_eq!(result.status, GoalStatus::Succeeded);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod client;
mod client_core;
mod codec;
mod create;
mod dynamic;
#[cfg(test)]
mod feedback_tests;
mod handle;
mod server;
#[cfg(test)]
mod tests;

pub use client::{
    ActionClientOf, ActionSendGoalError, CancelGoalError, ClientGoalHandleOf, GetResultError,
    WrappedResult,
};
pub use codec::{ActionCodec, Typed};
pub use dynamic::Dynamic;
pub use handle::{GoalStateError, ServerGoalHandleOf};
pub use server::{ActionServerCreateError, ActionServerOf, ActionServerOptions};

pub use create::ActionClientCreateError;

/// The server of the action `A` (a typed [`ActionServerOf`]).
pub type ActionServer<A> = ActionServerOf<Typed<A>>;
/// The server of an action whose type is named at run time, with dynamic values.
pub type GenericActionServer = ActionServerOf<Dynamic>;
/// An accepted goal of the action `A`, at the server.
pub type ServerGoalHandle<A> = ServerGoalHandleOf<Typed<A>>;
/// An accepted goal of a generic action server.
pub type GenericServerGoalHandle = ServerGoalHandleOf<Dynamic>;
/// The client of the action `A`.
pub type ActionClient<A> = ActionClientOf<Typed<A>>;
/// The client of an action whose type is named at run time.
pub type GenericActionClient = ActionClientOf<Dynamic>;
/// An accepted goal of the action `A`, at the client.
pub type ClientGoalHandle<A> = ClientGoalHandleOf<Typed<A>>;
/// An accepted goal of a generic action client.
pub type GenericClientGoalHandle = ClientGoalHandleOf<Dynamic>;

/// A goal's id: the 16 bytes of its `unique_identifier_msgs/UUID`.
pub type GoalId = [u8; 16];

/// A new random goal id.
pub fn new_goal_id() -> GoalId {
    hibari_transport::EndpointId::random().0
}

/// What the goal callback decides about a new goal (rclcpp's `GoalResponse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoalResponse {
    /// Reject it: the client's `send_goal` fails with `Rejected`.
    Reject,
    /// Accept it and start executing it (status `EXECUTING`).
    AcceptAndExecute,
    /// Accept it (status `ACCEPTED`); the handle's `execute` starts it later.
    AcceptAndDefer,
}

/// What the cancel callback decides about a request to cancel a goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelResponse {
    /// Refuse: the goal goes on.
    Reject,
    /// Accept: the goal is `CANCELING`; the executing code should notice
    /// (`is_cancel_requested`) and end it with `canceled`.
    Accept,
}

/// A goal's status, as `action_msgs/msg/GoalStatus` numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i8)]
pub enum GoalStatus {
    /// Not known to the server (or its result expired).
    Unknown = 0,
    /// Accepted, not executing yet.
    Accepted = 1,
    /// Executing.
    Executing = 2,
    /// A cancel was accepted; not ended yet.
    Canceling = 3,
    /// Ended: succeeded.
    Succeeded = 4,
    /// Ended: canceled.
    Canceled = 5,
    /// Ended: aborted.
    Aborted = 6,
}

impl GoalStatus {
    /// The status numbered `n` (an unknown number is [`Unknown`](Self::Unknown)).
    pub fn from_i8(n: i8) -> Self {
        match n {
            1 => GoalStatus::Accepted,
            2 => GoalStatus::Executing,
            3 => GoalStatus::Canceling,
            4 => GoalStatus::Succeeded,
            5 => GoalStatus::Canceled,
            6 => GoalStatus::Aborted,
            _ => GoalStatus::Unknown,
        }
    }

    /// Whether the goal has ended (succeeded, canceled or aborted).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            GoalStatus::Succeeded | GoalStatus::Canceled | GoalStatus::Aborted
        )
    }

    /// Whether the goal is accepted, executing or canceling.
    pub fn is_active(self) -> bool {
        matches!(
            self,
            GoalStatus::Accepted | GoalStatus::Executing | GoalStatus::Canceling
        )
    }
}

/// The fully qualified names of an action's services and topics.
pub(crate) struct ActionNames {
    pub send_goal: String,
    pub cancel_goal: String,
    pub get_result: String,
    pub feedback: String,
    pub status: String,
}

impl ActionNames {
    pub(crate) fn new(action: &str) -> Self {
        ActionNames {
            send_goal: format!("{action}/_action/send_goal"),
            cancel_goal: format!("{action}/_action/cancel_goal"),
            get_result: format!("{action}/_action/get_result"),
            feedback: format!("{action}/_action/feedback"),
            status: format!("{action}/_action/status"),
        }
    }
}

/// The QoS of the status topic: reliable, transient local, depth 1 (rcl_action's).
pub(crate) fn status_qos() -> crate::QosProfile {
    crate::QosProfile::default()
        .reliable()
        .transient_local()
        .keep_last(1)
}

/// Now, as a ROS time stamp.
pub(crate) fn now_stamp() -> crate::msg::builtin_interfaces::msg::Time {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    crate::msg::builtin_interfaces::msg::Time {
        sec: i32::try_from(now.as_secs()).unwrap_or(i32::MAX),
        nanosec: now.subsec_nanos(),
    }
}
