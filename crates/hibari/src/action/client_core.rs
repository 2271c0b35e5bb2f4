//! What an action client shares with its goal handles and its topics'
//! callbacks: the three service clients and the goals it sent, each with
//! its feedback callback and the last status heard.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::codec::{encode_result_request, ActionCodec};
use super::{GoalId, GoalStatus};
use crate::context::{lock, Context};
use crate::msg::action_msgs::msg::GoalStatusArray;
use crate::msg::action_msgs::srv::CancelGoal;
use crate::wait::Signal;
use crate::{Client, GenericClient};

/// A feedback callback of one goal.
pub(crate) type FeedbackFn<C> = Box<dyn FnMut(<C as ActionCodec>::Feedback) + Send>;

/// A goal the client sent and has not forgotten.
struct ClientGoal<C: ActionCodec> {
    /// `None` while it runs (taken out so that no lock is held).
    feedback: Option<FeedbackFn<C>>,
    status: GoalStatus,
}

pub(crate) struct ClientCore<C: ActionCodec> {
    pub(crate) codec: C,
    pub(crate) name: String,
    pub(crate) send_goal: GenericClient,
    pub(crate) get_result: GenericClient,
    pub(crate) cancel: Client<CancelGoal>,
    /// What blocking waits (`send_goal`, `get_result`) sleep on: woken by
    /// their reply and by the context's shutdown.
    pub(crate) signal: Arc<Signal>,
    goals: Mutex<HashMap<GoalId, ClientGoal<C>>>,
}

impl<C: ActionCodec> ClientCore<C> {
    pub(crate) fn new(
        codec: C,
        name: String,
        send_goal: GenericClient,
        get_result: GenericClient,
        cancel: Client<CancelGoal>,
        context: &Context,
    ) -> Self {
        let signal = Arc::new(Signal::default());
        context.register(&signal);
        ClientCore {
            codec,
            name,
            send_goal,
            get_result,
            cancel,
            signal,
            goals: Mutex::new(HashMap::new()),
        }
    }

    /// Whether all three services have a server.
    pub(crate) fn server_is_ready(&self) -> bool {
        self.send_goal.service_is_ready()
            && self.get_result.service_is_ready()
            && self.cancel.service_is_ready()
    }

    /// Waits for the three services, for at most `timeout` in all.
    pub(crate) fn wait_for_services(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        self.send_goal.wait_for_service(left())
            && self.get_result.wait_for_service(left())
            && self.cancel.wait_for_service(left())
    }

    /// Remembers goal `id` (before it is sent, so no feedback is missed).
    pub(crate) fn register(&self, id: GoalId, feedback: Option<FeedbackFn<C>>) {
        lock(&self.goals).insert(
            id,
            ClientGoal {
                feedback,
                status: GoalStatus::Unknown,
            },
        );
    }

    pub(crate) fn forget(&self, id: &GoalId) {
        lock(&self.goals).remove(id);
    }

    pub(crate) fn status_of(&self, id: &GoalId) -> GoalStatus {
        lock(&self.goals)
            .get(id)
            .map_or(GoalStatus::Unknown, |g| g.status)
    }

    /// A feedback message arrived (the feedback subscription's callback).
    /// Every client of the action hears every goal's feedback: the goal id
    /// (the 16 bytes after the CDR header) is looked up first, and only
    /// this client's goals with a callback are decoded.
    pub(crate) fn on_feedback(&self, cdr: &[u8]) {
        let Some(id) = cdr.get(4..20).and_then(|b| GoalId::try_from(b).ok()) else {
            return;
        };
        let wanted = lock(&self.goals)
            .get(&id)
            .is_some_and(|g| g.feedback.is_some());
        if !wanted {
            return;
        }
        let Ok((decoded, feedback)) = self.codec.decode_feedback(cdr) else {
            return;
        };
        if decoded != id {
            return;
        }
        let Some(mut callback) = lock(&self.goals)
            .get_mut(&id)
            .and_then(|g| g.feedback.take())
        else {
            return;
        };
        callback(feedback);
        if let Some(goal) = lock(&self.goals).get_mut(&id) {
            goal.feedback = Some(callback);
        }
    }

    /// A status array arrived (the status subscription's callback).
    pub(crate) fn on_status(&self, array: GoalStatusArray) {
        let mut goals = lock(&self.goals);
        for status in array.status_list {
            if let Some(goal) = goals.get_mut(&status.goal_info.goal_id.uuid) {
                goal.status = GoalStatus::from_i8(status.status);
            }
        }
    }

    /// Records the status a result reported.
    pub(crate) fn set_status(&self, id: &GoalId, status: GoalStatus) {
        if let Some(goal) = lock(&self.goals).get_mut(id) {
            goal.status = status;
        }
    }

    /// Sends goal `goal` as `id`; the future resolves to the server's
    /// answer: accepted or not, and the stamp.
    pub(crate) fn send_request(
        &self,
        id: &GoalId,
        goal: &C::Goal,
    ) -> Result<crate::GenericResponseFuture, String> {
        let bytes = self.codec.encode_goal_request(id, goal)?;
        Ok(self.send_goal.call_async(bytes))
    }

    pub(crate) fn result_request(
        &self,
        id: &GoalId,
    ) -> Result<crate::GenericResponseFuture, String> {
        Ok(self.get_result.call_async(encode_result_request(id)?))
    }
}
