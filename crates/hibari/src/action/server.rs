//! The server's side of an action: the table of goals, the three services
//! that read and change it, and the status and feedback topics. How the
//! `get_result` and `cancel_goal` requests are answered is in `requests`.
//!
//! Requests run on the executor spinning the server's node. A goal's state
//! changes under one lock, and every change is published on the status
//! topic after the lock is released; user callbacks never run under it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::codec::ActionCodec;
use super::{now_stamp, GoalId, GoalStatus};
use crate::context::lock;
use crate::msg::action_msgs::msg::{GoalInfo, GoalStatus as RosGoalStatus, GoalStatusArray};
use crate::msg::action_msgs::srv::CancelGoal;
use crate::msg::builtin_interfaces::msg::Time;
use crate::msg::unique_identifier_msgs::msg::UUID;
use crate::{
    CallbackGroup, GenericServiceServer, NameError, Publisher, PublisherCreateError, QosProfile,
    Serialized, ServiceCreateError, ServiceOptions, ServiceResponder, ServiceServer,
};

mod requests;

/// Why an action server could not be created.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ActionServerCreateError {
    /// The action name is not valid (or its remapping is not).
    #[error("cannot create the action server: {0}")]
    InvalidName(NameError),
    /// The action type is not known or not an action type (generic servers).
    #[error("cannot create the action server: {0}")]
    UnknownType(String),
    /// One of its services could not be created.
    #[error("cannot create the action server's service: {0}")]
    Service(ServiceCreateError),
    /// Its feedback or status publisher could not be created.
    #[error("cannot create the action server's publisher: {0}")]
    Publisher(PublisherCreateError),
}

/// How to create an action server beyond its name and callbacks.
#[derive(Clone, Debug)]
pub struct ActionServerOptions {
    pub(crate) result_timeout: Duration,
    pub(crate) group: Option<CallbackGroup>,
}

impl Default for ActionServerOptions {
    fn default() -> Self {
        ActionServerOptions {
            result_timeout: Duration::from_secs(15 * 60),
            group: None,
        }
    }
}

impl ActionServerOptions {
    /// Defaults: results kept 15 minutes.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long a finished goal's result stays available to `get_result`
    /// (ROS 2's default is 15 minutes); then the goal is forgotten.
    pub fn result_timeout(mut self, timeout: Duration) -> Self {
        self.result_timeout = timeout;
        self
    }

    /// The group the goal, cancel and result callbacks run in (default: the
    /// node's).
    pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
        self.group = Some(group.clone());
        self
    }

    /// The options of the server's three services.
    pub(crate) fn service_options(&self) -> ServiceOptions {
        let options = ServiceOptions::new(QosProfile::services_default());
        match &self.group {
            Some(group) => options.callback_group(group),
            None => options,
        }
    }
}

/// One goal in the server's table.
struct GoalEntry {
    stamp: Time,
    status: GoalStatus,
    /// The encoded `GetResult` response, once the goal ended.
    result: Option<Vec<u8>>,
    /// `get_result` requests waiting for the end.
    waiting: Vec<ServiceResponder>,
    ended: Option<Instant>,
}

/// What the server's services, publishers and goal handles share.
pub(crate) struct ServerCore<C: ActionCodec> {
    pub(crate) codec: C,
    pub(crate) name: String,
    goals: Mutex<HashMap<GoalId, GoalEntry>>,
    pub(crate) feedback: Publisher<Serialized>,
    status: Publisher<GoalStatusArray>,
    result_timeout: Duration,
    /// `get_result` requests that were not a goal id (left unanswered).
    unreadable: AtomicU64,
}

/// Whether a goal may go from `from` to `to` (rcl_action's state machine;
/// `abort` is also allowed from `Accepted`, for a handle dropped unexecuted).
pub(crate) fn may_transition(from: GoalStatus, to: GoalStatus) -> bool {
    use GoalStatus::*;
    matches!(
        (from, to),
        (Accepted, Executing | Canceling | Aborted)
            | (Executing, Canceling | Succeeded | Aborted)
            | (Canceling, Succeeded | Aborted | Canceled)
    )
}

impl<C: ActionCodec> ServerCore<C> {
    pub(crate) fn new(
        codec: C,
        name: String,
        feedback: Publisher<Serialized>,
        status: Publisher<GoalStatusArray>,
        options: &ActionServerOptions,
    ) -> Self {
        ServerCore {
            codec,
            name,
            goals: Mutex::new(HashMap::new()),
            feedback,
            status,
            result_timeout: options.result_timeout,
            unreadable: AtomicU64::new(0),
        }
    }

    /// Forgets finished goals older than the result timeout.
    fn expire(&self, goals: &mut HashMap<GoalId, GoalEntry>) {
        let now = Instant::now();
        goals.retain(|_, g| {
            g.ended
                .is_none_or(|t| now.duration_since(t) < self.result_timeout)
        });
    }

    /// Whether `id` is in the table (a duplicate goal id is rejected).
    pub(crate) fn knows(&self, id: &GoalId) -> bool {
        lock(&self.goals).contains_key(id)
    }

    /// Adds an accepted goal with `status`; returns its stamp.
    pub(crate) fn insert(&self, id: GoalId, status: GoalStatus) -> Time {
        let stamp = now_stamp();
        let mut goals = lock(&self.goals);
        self.expire(&mut goals);
        goals.insert(
            id,
            GoalEntry {
                stamp: stamp.clone(),
                status,
                result: None,
                waiting: Vec::new(),
                ended: None,
            },
        );
        stamp
    }

    pub(crate) fn status_of(&self, id: &GoalId) -> GoalStatus {
        lock(&self.goals)
            .get(id)
            .map_or(GoalStatus::Unknown, |g| g.status)
    }

    /// Moves goal `id` to `to`: to a terminal status with its `result`
    /// (`None`: the default). Answers waiting `get_result`s and publishes
    /// the status.
    pub(crate) fn transition(
        &self,
        id: &GoalId,
        to: GoalStatus,
        result: Option<&C::Result>,
    ) -> Result<(), super::GoalStateError> {
        self.transition_quietly(id, to, result)?;
        self.publish_status();
        Ok(())
    }

    /// [`transition`](Self::transition) without publishing the status, for
    /// changes made in a batch that publishes once at its end.
    fn transition_quietly(
        &self,
        id: &GoalId,
        to: GoalStatus,
        result: Option<&C::Result>,
    ) -> Result<(), super::GoalStateError> {
        let encoded = if to.is_terminal() {
            Some(
                self.codec
                    .encode_result_response(to as i8, result)
                    .map_err(super::GoalStateError::Encode)?,
            )
        } else {
            None
        };
        let waiting = {
            let mut goals = lock(&self.goals);
            let goal = goals.get_mut(id).ok_or(super::GoalStateError::Unknown)?;
            if !may_transition(goal.status, to) {
                return Err(super::GoalStateError::InvalidTransition {
                    from: goal.status,
                    to,
                });
            }
            goal.status = to;
            match &encoded {
                Some(bytes) => {
                    goal.result = Some(bytes.clone());
                    goal.ended = Some(Instant::now());
                    std::mem::take(&mut goal.waiting)
                }
                // Waiting `get_result`s wait on until the goal ends.
                None => Vec::new(),
            }
        };
        if let Some(bytes) = &encoded {
            for responder in waiting {
                // A client gone meanwhile is not the goal's failure.
                let _ = responder.respond(bytes);
            }
        }
        Ok(())
    }

    /// How many `get_result` requests wait for goal `id` to end.
    #[cfg(test)]
    pub(crate) fn waiting_for(&self, id: &GoalId) -> usize {
        lock(&self.goals).get(id).map_or(0, |g| g.waiting.len())
    }

    /// Publishes every known goal's status.
    pub(crate) fn publish_status(&self) {
        let status_list = {
            let goals = lock(&self.goals);
            let mut list: Vec<RosGoalStatus> = goals
                .iter()
                .map(|(id, g)| RosGoalStatus {
                    goal_info: GoalInfo {
                        goal_id: UUID { uuid: *id },
                        stamp: g.stamp.clone(),
                    },
                    status: g.status as i8,
                })
                .collect();
            list.sort_by_key(|s| (s.goal_info.stamp.sec, s.goal_info.stamp.nanosec));
            list
        };
        // Status is a best-effort report; a full queue drops one update.
        let _ = self.status.publish(GoalStatusArray { status_list });
    }
}

/// Serves the action whose codec is `C`: [`ActionServer<A>`](super::ActionServer)
/// for a generated action, [`GenericActionServer`](super::GenericActionServer)
/// for one named at run time. Dropping it removes the action's services and
/// topics; goal handles still held then fail to publish and to end.
pub struct ActionServerOf<C: ActionCodec> {
    pub(crate) core: std::sync::Arc<ServerCore<C>>,
    pub(crate) send_goal: GenericServiceServer,
    pub(crate) get_result: GenericServiceServer,
    pub(crate) cancel: ServiceServer<CancelGoal>,
}

impl<C: ActionCodec> std::fmt::Debug for ActionServerOf<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionServer")
            .field("name", &self.core.name)
            .field("type", &self.core.codec.type_name())
            .finish()
    }
}

impl<C: ActionCodec> ActionServerOf<C> {
    /// The fully qualified action name.
    pub fn name(&self) -> &str {
        &self.core.name
    }

    /// The action type (`pkg/action/Name`).
    pub fn type_name(&self) -> &str {
        self.core.codec.type_name()
    }

    /// The status of goal `id` as the server knows it.
    pub fn goal_status(&self, id: &GoalId) -> GoalStatus {
        self.core.status_of(id)
    }

    /// Requests skipped unanswered because they could not be read: by its
    /// three services (as their `rejected_requests`), and `get_result`
    /// requests that are not a goal id. (An unreadable goal is answered: it
    /// is rejected.)
    pub fn rejected_requests(&self) -> u64 {
        self.core.unreadable.load(Ordering::Relaxed)
            + self.send_goal.rejected_requests()
            + self.get_result.rejected_requests()
            + self.cancel.rejected_requests()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_transitions_of_the_ros_state_machine_are_allowed() {
        use GoalStatus::*;
        assert!(may_transition(Accepted, Executing));
        assert!(may_transition(Executing, Succeeded));
        assert!(may_transition(Canceling, Canceled));
        assert!(
            !may_transition(Executing, Canceled),
            "canceled needs a cancel request"
        );
        assert!(
            !may_transition(Succeeded, Aborted),
            "an ended goal stays ended"
        );
        assert!(!may_transition(Accepted, Succeeded));
    }
}
