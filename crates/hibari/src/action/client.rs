//! The client's side of an action: send goals, follow their feedback, get
//! their results, cancel them.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::client_core::{ClientCore, FeedbackFn};
use super::codec::{decode_goal_response, ActionCodec};
use super::{new_goal_id, GoalId, GoalStatus};
use crate::msg::action_msgs::msg::GoalInfo;
use crate::msg::action_msgs::msg::GoalStatusArray;
use crate::msg::action_msgs::srv::{CancelGoal_Request, CancelGoal_Response};
use crate::msg::builtin_interfaces::msg::Time;
use crate::msg::unique_identifier_msgs::msg::UUID;
use crate::service::future::block_on;
use crate::wait::Signal;
use crate::{CallError, Serialized, Subscription};

/// Why a goal was not accepted.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ActionSendGoalError {
    /// The server's goal callback rejected it.
    #[error("the action server rejected the goal")]
    Rejected,
    /// The request failed: no server (wait with `wait_for_server` first),
    /// no answer in time, the server went away.
    #[error("sending the goal failed: {0}")]
    Call(CallError),
    /// The goal could not be encoded.
    #[error("cannot encode the goal: {0}")]
    Encode(String),
    /// The server's answer could not be read.
    #[error("the server's answer cannot be read: {0}")]
    InvalidReply(String),
}

/// Why a goal's result could not be had.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum GetResultError {
    /// The request failed (no server, no answer in time, server gone).
    #[error("asking for the result failed: {0}")]
    Call(CallError),
    /// The result could not be read.
    #[error("the result cannot be read: {0}")]
    InvalidReply(String),
}

/// Why a cancel request failed (a refused cancel is an answer, not a failure).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CancelGoalError {
    /// The request failed (no server, no answer in time, server gone).
    #[error("the cancel request failed: {0}")]
    Call(CallError),
}

/// A goal's end: how it ended and its result.
#[derive(Debug)]
pub struct WrappedResult<C: ActionCodec> {
    /// The goal.
    pub goal_id: GoalId,
    /// `Succeeded`, `Canceled` or `Aborted` (or `Unknown` for a goal the
    /// server does not know).
    pub status: GoalStatus,
    /// The result.
    pub result: C::Result,
}

/// Sends goals of the action whose codec is `C`:
/// [`ActionClient<A>`](super::ActionClient) for a generated action,
/// [`GenericActionClient`](super::GenericActionClient) for one named at run
/// time. Goal answers, results and cancels need no executor; feedback
/// callbacks and status updates run on the executor spinning the client's
/// node.
pub struct ActionClientOf<C: ActionCodec> {
    pub(crate) core: Arc<ClientCore<C>>,
    pub(crate) feedback: Subscription<Serialized>,
    pub(crate) status: Subscription<GoalStatusArray>,
}

impl<C: ActionCodec> std::fmt::Debug for ActionClientOf<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionClient")
            .field("name", &self.core.name)
            .field("type", &self.core.codec.type_name())
            .finish()
    }
}

/// Waits up to `timeout` for `future` on `signal`, which the context's
/// shutdown also wakes (the future's calls then end with
/// [`CallError::Shutdown`]).
fn wait_block<F: Future>(future: F, signal: &Arc<Signal>, timeout: Duration) -> Option<F::Output> {
    block_on(
        Box::pin(future),
        signal,
        Instant::now().checked_add(timeout),
    )
}

impl<C: ActionCodec> ActionClientOf<C> {
    /// The fully qualified action name.
    pub fn name(&self) -> &str {
        &self.core.name
    }

    /// Whether a server is there: its three services are matched.
    pub fn action_server_is_ready(&self) -> bool {
        self.core.server_is_ready()
    }

    /// Waits up to `timeout` for a server: its three services, then its
    /// feedback and status topics (checked every few milliseconds: topic
    /// matches have no waiter). Returns whether it is there.
    pub fn wait_for_server(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        if !self.core.wait_for_services(timeout) {
            return false;
        }
        while self.feedback.matched_publishers() == 0 || self.status.matched_publishers() == 0 {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
    }

    /// Sends `goal` now; the future resolves to the goal's handle once the
    /// server accepted it. `feedback` runs (on the executor spinning this
    /// client's node) for each feedback message of this goal.
    pub fn send_goal_async(
        &self,
        goal: C::Goal,
        feedback: Option<FeedbackFn<C>>,
    ) -> impl Future<Output = Result<ClientGoalHandleOf<C>, ActionSendGoalError>> + Send + 'static
    {
        let core = self.core.clone();
        let id = new_goal_id();
        core.register(id, feedback);
        let sent = core.send_request(&id, &goal);
        let forget = Forget {
            core: core.clone(),
            id,
            armed: true,
        };
        async move {
            let mut forget = forget;
            let reply = sent
                .map_err(ActionSendGoalError::Encode)?
                .await
                .map_err(ActionSendGoalError::Call)?;
            let (accepted, stamp) = decode_goal_response(&reply.bytes().to_cow())
                .map_err(ActionSendGoalError::InvalidReply)?;
            if !accepted {
                return Err(ActionSendGoalError::Rejected);
            }
            forget.armed = false;
            core.set_status(&id, GoalStatus::Accepted);
            Ok(ClientGoalHandleOf { core, id, stamp })
        }
    }

    /// Sends `goal` and waits up to `timeout` for the server to accept it
    /// (a shutdown of the context ends the wait with
    /// [`CallError::Shutdown`]).
    pub fn send_goal(
        &self,
        goal: C::Goal,
        feedback: Option<FeedbackFn<C>>,
        timeout: Duration,
    ) -> Result<ClientGoalHandleOf<C>, ActionSendGoalError> {
        wait_block(
            self.send_goal_async(goal, feedback),
            &self.core.signal,
            timeout,
        )
        .unwrap_or_else(|| {
            Err(ActionSendGoalError::Call(CallError::Timeout {
                service: self.core.send_goal.service_name().to_owned(),
                timeout,
            }))
        })
    }

    /// Asks the server to cancel every goal (of every client), waiting up to
    /// `timeout` for its answer.
    pub fn cancel_all_goals(
        &self,
        timeout: Duration,
    ) -> Result<CancelGoal_Response, CancelGoalError> {
        cancel(&self.core, [0; 16], Time::default(), timeout)
    }

    /// Asks the server to cancel every goal accepted at or before `stamp`.
    pub fn cancel_goals_before(
        &self,
        stamp: Time,
        timeout: Duration,
    ) -> Result<CancelGoal_Response, CancelGoalError> {
        cancel(&self.core, [0; 16], stamp, timeout)
    }
}

fn cancel_request(id: GoalId, stamp: Time) -> CancelGoal_Request {
    CancelGoal_Request {
        goal_info: GoalInfo {
            goal_id: UUID { uuid: id },
            stamp,
        },
    }
}

fn cancel<C: ActionCodec>(
    core: &ClientCore<C>,
    id: GoalId,
    stamp: Time,
    timeout: Duration,
) -> Result<CancelGoal_Response, CancelGoalError> {
    core.cancel
        .call(cancel_request(id, stamp), timeout)
        .map_err(CancelGoalError::Call)
}

/// Forgets a goal whose sending did not end in acceptance.
struct Forget<C: ActionCodec> {
    core: Arc<ClientCore<C>>,
    id: GoalId,
    armed: bool,
}

impl<C: ActionCodec> Drop for Forget<C> {
    fn drop(&mut self) {
        if self.armed {
            self.core.forget(&self.id);
        }
    }
}

/// An accepted goal, at the client. Dropping it forgets the goal here (its
/// feedback callback stops) but does not cancel it.
pub struct ClientGoalHandleOf<C: ActionCodec> {
    core: Arc<ClientCore<C>>,
    id: GoalId,
    stamp: Time,
}

impl<C: ActionCodec> std::fmt::Debug for ClientGoalHandleOf<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientGoalHandle")
            .field("action", &self.core.name)
            .field("goal_id", &self.id)
            .finish()
    }
}

impl<C: ActionCodec> ClientGoalHandleOf<C> {
    /// The goal's id.
    pub fn goal_id(&self) -> &GoalId {
        &self.id
    }

    /// When the server accepted it.
    pub fn stamp(&self) -> Time {
        self.stamp.clone()
    }

    /// The last status heard (status topic, or the result).
    pub fn status(&self) -> GoalStatus {
        self.core.status_of(&self.id)
    }

    /// Asks for the result now; the future resolves when the goal ends.
    ///
    /// The server keeps one waiting request per goal and client: asking
    /// again before the goal ends (a retry after a timeout) replaces the
    /// earlier request, which then gets no answer.
    pub fn get_result_async(
        &self,
    ) -> impl Future<Output = Result<WrappedResult<C>, GetResultError>> + Send + 'static {
        let core = self.core.clone();
        let id = self.id;
        let sent = core.result_request(&id);
        async move {
            let reply = sent
                .map_err(GetResultError::InvalidReply)?
                .await
                .map_err(GetResultError::Call)?;
            let (status, result) = core
                .codec
                .decode_result_response(&reply.bytes().to_cow())
                .map_err(GetResultError::InvalidReply)?;
            let status = GoalStatus::from_i8(status);
            core.set_status(&id, status);
            Ok(WrappedResult {
                goal_id: id,
                status,
                result,
            })
        }
    }

    /// Waits up to `timeout` for the goal to end, and returns its result (a
    /// shutdown of the context ends the wait with [`CallError::Shutdown`]).
    pub fn get_result(&self, timeout: Duration) -> Result<WrappedResult<C>, GetResultError> {
        wait_block(self.get_result_async(), &self.core.signal, timeout).unwrap_or_else(|| {
            Err(GetResultError::Call(CallError::Timeout {
                service: self.core.get_result.service_name().to_owned(),
                timeout,
            }))
        })
    }

    /// Asks the server to cancel this goal and waits up to `timeout` for
    /// its answer (`return_code` 0 and this goal in `goals_canceling` when
    /// the cancel was accepted).
    pub fn cancel(&self, timeout: Duration) -> Result<CancelGoal_Response, CancelGoalError> {
        cancel(&self.core, self.id, Time::default(), timeout)
    }

    /// Asks the server to cancel this goal now; the future resolves to its
    /// answer (as [`cancel`](Self::cancel), without waiting here).
    pub fn cancel_async(
        &self,
    ) -> impl Future<Output = Result<CancelGoal_Response, CancelGoalError>> + Send + 'static {
        let call = self
            .core
            .cancel
            .call_async(cancel_request(self.id, Time::default()));
        async move { call.await.map_err(CancelGoalError::Call) }
    }
}

impl<C: ActionCodec> Drop for ClientGoalHandleOf<C> {
    fn drop(&mut self) {
        self.core.forget(&self.id);
    }
}
