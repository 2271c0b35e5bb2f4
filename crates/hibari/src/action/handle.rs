//! An accepted goal at the server: the handle the accepted callback gets.

use std::sync::Arc;

use thiserror::Error;

use super::codec::ActionCodec;
use super::server::ServerCore;
use super::{GoalId, GoalStatus};

/// Why a goal handle could not publish feedback or change its goal's state.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GoalStateError {
    /// The state machine does not allow it (ending an ended goal, `canceled`
    /// without an accepted cancel request, …).
    #[error("the goal cannot go from {from:?} to {to:?}")]
    InvalidTransition {
        /// Where the goal is.
        from: GoalStatus,
        /// Where it was asked to go.
        to: GoalStatus,
    },
    /// The goal is no longer in the server's table (its result expired).
    #[error("the goal is not known to the server any more")]
    Unknown,
    /// The result or feedback could not be encoded.
    #[error("cannot encode: {0}")]
    Encode(String),
    /// The feedback could not be published.
    #[error("cannot publish the feedback: {0}")]
    Publish(String),
}

/// An accepted goal, at the server. Keep it (on any thread) while the goal
/// executes: publish feedback, watch for a cancel request, and end the goal
/// with [`succeed`](Self::succeed), [`abort`](Self::abort) or
/// [`canceled`](Self::canceled). Dropping it while the goal is active ends
/// the goal — `canceled` if a cancel was accepted, else `abort` — with the
/// default result, so no client waits forever.
pub struct ServerGoalHandleOf<C: ActionCodec> {
    core: Arc<ServerCore<C>>,
    id: GoalId,
    goal: C::Goal,
}

impl<C: ActionCodec> std::fmt::Debug for ServerGoalHandleOf<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerGoalHandle")
            .field("action", &self.core.name)
            .field("goal_id", &self.id)
            .field("status", &self.status())
            .finish()
    }
}

impl<C: ActionCodec> ServerGoalHandleOf<C> {
    pub(crate) fn new(core: Arc<ServerCore<C>>, id: GoalId, goal: C::Goal) -> Self {
        ServerGoalHandleOf { core, id, goal }
    }

    /// The goal's id.
    pub fn goal_id(&self) -> &GoalId {
        &self.id
    }

    /// The goal, as the client sent it.
    pub fn goal(&self) -> &C::Goal {
        &self.goal
    }

    /// The goal's status now.
    pub fn status(&self) -> GoalStatus {
        self.core.status_of(&self.id)
    }

    /// Whether the goal is accepted, executing or canceling.
    pub fn is_active(&self) -> bool {
        self.status().is_active()
    }

    /// Whether the goal is executing (not canceling).
    pub fn is_executing(&self) -> bool {
        self.status() == GoalStatus::Executing
    }

    /// Whether a cancel request was accepted: end the goal with
    /// [`canceled`](Self::canceled) (or `succeed`/`abort`) soon.
    pub fn is_cancel_requested(&self) -> bool {
        self.status() == GoalStatus::Canceling
    }

    /// Starts a goal accepted with
    /// [`AcceptAndDefer`](super::GoalResponse::AcceptAndDefer).
    pub fn execute(&self) -> Result<(), GoalStateError> {
        self.core.transition(&self.id, GoalStatus::Executing, None)
    }

    /// Publishes `feedback` to the goal's clients.
    pub fn publish_feedback(&self, feedback: &C::Feedback) -> Result<(), GoalStateError> {
        let status = self.status();
        if !status.is_active() {
            return Err(GoalStateError::InvalidTransition {
                from: status,
                to: status,
            });
        }
        let bytes = self
            .core
            .codec
            .encode_feedback(&self.id, feedback)
            .map_err(GoalStateError::Encode)?;
        self.core
            .feedback
            .publish(bytes)
            .map_err(|e| GoalStateError::Publish(e.to_string()))
    }

    /// Ends the goal: succeeded, with `result`.
    pub fn succeed(self, result: C::Result) -> Result<(), GoalStateError> {
        self.core
            .transition(&self.id, GoalStatus::Succeeded, Some(&result))
    }

    /// Ends the goal: aborted, with `result`.
    pub fn abort(self, result: C::Result) -> Result<(), GoalStateError> {
        self.core
            .transition(&self.id, GoalStatus::Aborted, Some(&result))
    }

    /// Ends the goal: canceled (after an accepted cancel request), with `result`.
    pub fn canceled(self, result: C::Result) -> Result<(), GoalStateError> {
        self.core
            .transition(&self.id, GoalStatus::Canceled, Some(&result))
    }
}

impl<C: ActionCodec> Drop for ServerGoalHandleOf<C> {
    fn drop(&mut self) {
        let end = match self.status() {
            GoalStatus::Canceling => GoalStatus::Canceled,
            s if s.is_active() => GoalStatus::Aborted,
            _ => return,
        };
        let _ = self.core.transition(&self.id, end, None);
    }
}
