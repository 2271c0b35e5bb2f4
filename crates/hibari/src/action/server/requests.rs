//! The action server's answers to two of its services: `get_result`
//! (at once for a finished or unknown goal, when it ends for an active one)
//! and `cancel_goal` (ROS 2's rules for which goals a request names). Both
//! read and change the goal table of [`ServerCore`] under its lock and run
//! no user callback under it.

use std::sync::atomic::Ordering;

use super::{GoalEntry, ServerCore};
use crate::action::codec::{decode_result_request, ActionCodec};
use crate::action::{CancelResponse, GoalId, GoalStatus};
use crate::context::lock;
use crate::msg::action_msgs::msg::GoalInfo;
use crate::msg::action_msgs::srv::{CancelGoal_Request, CancelGoal_Response};
use crate::msg::builtin_interfaces::msg::Time;
use crate::msg::unique_identifier_msgs::msg::UUID;
use crate::ServiceResponder;

impl<C: ActionCodec> ServerCore<C> {
    /// Answers a `get_result` request: at once for a finished or unknown
    /// goal, when it ends for an active one.
    pub(crate) fn on_get_result(&self, request: &[u8], responder: ServiceResponder) {
        let Ok(id) = decode_result_request(request) else {
            // Not a goal id: nothing to answer (the client times out).
            self.unreadable.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let ready = {
            let mut goals = lock(&self.goals);
            self.expire(&mut goals);
            match goals.get_mut(&id) {
                Some(GoalEntry {
                    result: Some(bytes),
                    ..
                }) => Some(bytes.clone()),
                Some(goal) => {
                    // A client asking again (after its own timeout) forgot
                    // its earlier request: keep one per client.
                    let client = responder.info().publisher_id;
                    goal.waiting.retain(|w| w.info().publisher_id != client);
                    goal.waiting.push(responder);
                    return;
                }
                None => self
                    .codec
                    .encode_result_response(GoalStatus::Unknown as i8, None)
                    .ok(),
            }
        };
        if let Some(bytes) = ready {
            let _ = responder.respond(&bytes);
        }
    }

    /// Answers a cancel request, asking `decide` about each active goal it
    /// names (ROS 2's rules: a zero id means every goal, a non-zero stamp
    /// adds every goal accepted at or before it).
    pub(crate) fn on_cancel(
        &self,
        request: CancelGoal_Request,
        decide: &mut dyn FnMut(&GoalId) -> CancelResponse,
    ) -> CancelGoal_Response {
        let wanted = request.goal_info;
        let all = wanted.goal_id.uuid == [0; 16];
        let stamp_zero = wanted.stamp.sec == 0 && wanted.stamp.nanosec == 0;
        let before = |s: &Time| (s.sec, s.nanosec) <= (wanted.stamp.sec, wanted.stamp.nanosec);
        let candidates: Vec<(GoalId, Time, GoalStatus)> = {
            let goals = lock(&self.goals);
            if !all && !goals.contains_key(&wanted.goal_id.uuid) && stamp_zero {
                return CancelGoal_Response {
                    return_code: CancelGoal_Response::ERROR_UNKNOWN_GOAL_ID,
                    goals_canceling: Vec::new(),
                };
            }
            goals
                .iter()
                .filter(|(id, g)| {
                    (all && stamp_zero)
                        || **id == wanted.goal_id.uuid
                        || (!stamp_zero && before(&g.stamp))
                })
                .map(|(id, g)| (*id, g.stamp.clone(), g.status))
                .collect()
        };
        let mut canceling = Vec::new();
        let mut any_active = false;
        let mut changed = false;
        for (id, stamp, status) in candidates {
            if !status.is_active() {
                continue;
            }
            any_active = true;
            let moved = status != GoalStatus::Canceling
                && decide(&id) == CancelResponse::Accept
                && self
                    .transition_quietly(&id, GoalStatus::Canceling, None)
                    .is_ok();
            changed |= moved;
            let accepted = status == GoalStatus::Canceling || moved;
            if accepted {
                canceling.push(GoalInfo {
                    goal_id: UUID { uuid: id },
                    stamp,
                });
            }
        }
        // One status update for the whole request.
        if changed {
            self.publish_status();
        }
        let return_code = if !canceling.is_empty() {
            CancelGoal_Response::ERROR_NONE
        } else if any_active {
            CancelGoal_Response::ERROR_REJECTED
        } else if all {
            CancelGoal_Response::ERROR_NONE
        } else {
            CancelGoal_Response::ERROR_GOAL_TERMINATED
        };
        CancelGoal_Response {
            return_code,
            goals_canceling: canceling,
        }
    }
}
