//! rosbridge's action ops (bridge.md §1.2–1.3, A1–A2).
//!
//! As a client of a ROS action (`send_action_goal`): the goal is converted
//! and sent by a task of its own, which waits up to a second for the
//! server, forwards feedback as `action_feedback` when the op asked for it,
//! and ends with one `action_result` — `result: true` with the goal's
//! status (4 succeeded, 5 canceled, 6 aborted) and result, or
//! `result: false` with the reason (no server, goal rejected) and status 0.
//! `cancel_action_goal` names the goal by the op's `id`. The bridge keeps
//! one hibari client per action and type for every session; a session has
//! at most 64 goals in flight (past that, a goal is refused
//! with a status), and its goals' tasks end when it closes.
//!
//! As the server of an action (`advertise_action`): each goal a ROS client
//! sends is accepted and forwarded as `send_action_goal` with the id
//! `action_goal:<action>:<n>` (`n` counts the session's served goals); the
//! client answers with `action_feedback` and `action_result` under that
//! id, and a ROS cancel request is accepted and forwarded as
//! `cancel_action_goal`. Goals still open when the action is unadvertised
//! or advertised again, or when the client leaves, are aborted.
//!
//! `services_glob` covers actions as it covers services: a name it keeps
//! out cannot be sent goals, advertised or unadvertised.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hibari::action::{GenericActionServer, GenericServerGoalHandle, GoalId};
use hibari::dynamic::{self, Value};
use hibari::{ActionServerOptions, CancelResponse, GoalResponse};
use serde_json::{json, Value as Json};

use super::action_goals::SentGoal;
use super::args::{failed, normalize_type, part, value_from_json, Op, OpError};
use super::Session;
use crate::hub::lock;
use crate::outbox::{Frame, Outbox};

/// Goals of one served action waiting for the client's result, by id.
type OpenGoals = Arc<Mutex<HashMap<String, GenericServerGoalHandle>>>;

/// An action the client serves.
struct Served {
    _server: GenericActionServer,
    type_name: String,
    goals: OpenGoals,
}

impl Served {
    /// Stops serving: the server goes and its open goals are aborted (as
    /// their handles go).
    fn end(self) {
        let goals = std::mem::take(&mut *lock(&self.goals));
        drop(goals);
    }
}

/// A client's actions: the goals it sent and the actions it serves.
#[derive(Default)]
pub(crate) struct Actions {
    /// Goals this client sent whose tasks run, by task number.
    pub(super) sent: Arc<Mutex<HashMap<u64, SentGoal>>>,
    /// Numbers the tasks of sent goals.
    pub(super) next_task: u64,
    /// Actions this client serves, by resolved name.
    served: HashMap<String, Served>,
    /// Numbers the goals of served actions (ids never repeat in a session).
    next_goal: Arc<AtomicU64>,
}

impl Actions {
    /// Ends everything: the sent goals' tasks stop, the served actions go
    /// and their open goals are aborted.
    pub fn close(&mut self) {
        let sent: Vec<SentGoal> = lock(&self.sent).drain().map(|(_, g)| g).collect();
        for goal in sent {
            if let Some(task) = goal.task {
                task.abort();
            }
        }
        for (_, served) in self.served.drain() {
            served.end();
        }
    }
}

/// Queues a control message.
pub(super) fn push(out: &Outbox, message: &Json) {
    out.push_control(Frame::Text(message.to_string().into()));
}

impl Session {
    /// Refuses an action `services_glob` keeps out (`what`: "action goal",
    /// "action advertisement"…).
    pub(super) fn check_action(&self, given: &str, name: &str, what: &str) -> Result<(), OpError> {
        if self.core.service_allowed(given, name) {
            return Ok(());
        }
        Err(OpError::Denied(format!(
            "No match found for action, cancelling {what} for: {given}"
        )))
    }

    pub(super) fn advertise_action(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let given = op.str("action")?.to_owned();
        let type_given = op.str("type")?;
        let action_type = normalize_type(type_given, "action")
            .ok_or_else(|| failed(format!("`{type_given}` is not an action type name")))?;
        let goal_type = part(&action_type, "_Goal")?;
        let name = self.core.resolve(&given).map_err(failed)?;
        self.check_action(&given, &name, "action advertisement")?;
        let goals: OpenGoals = Arc::default();
        let (registry, out, open, counter) = (
            self.core.registry.clone(),
            self.out.clone(),
            goals.clone(),
            self.actions.next_goal.clone(),
        );
        let (cancel_goals, cancel_out, cancel_action) = (goals.clone(), out.clone(), given.clone());
        let forwarded_type = action_type.clone();
        let accepted = move |handle: GenericServerGoalHandle| {
            let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
            let id = format!("action_goal:{given}:{n}");
            let args = dynamic::to_json(&*registry, &goal_type, handle.goal());
            lock(&open).insert(id.clone(), handle);
            push(
                &out,
                &json!({"op": "send_action_goal", "id": id, "action": given,
                        "action_type": forwarded_type, "args": args, "feedback": true}),
            );
        };
        let cancel = move |goal: &GoalId| {
            let id = lock(&cancel_goals)
                .iter()
                .find(|(_, h)| h.goal_id() == goal)
                .map(|(id, _)| id.clone());
            if let Some(id) = id {
                push(
                    &cancel_out,
                    &json!({"op": "cancel_action_goal", "id": id, "action": cancel_action}),
                );
            }
            CancelResponse::Accept
        };
        let server = self
            .core
            .node
            .create_generic_action_server(
                &name,
                &action_type,
                self.core.registry.clone(),
                ActionServerOptions::default(),
                |_: &GoalId, _: &Value| GoalResponse::AcceptAndExecute,
                cancel,
                accepted,
            )
            .map_err(failed)?;
        let served = Served {
            _server: server,
            type_name: action_type,
            goals,
        };
        // A second advertise replaces the first (its goals are aborted).
        if let Some(old) = self.actions.served.insert(name, served) {
            old.end();
        }
        Ok(())
    }

    /// The open goal named by the op's id: its key, its action's type and
    /// the action's open goals.
    fn open_goal(&self, op: &Op<'_>) -> Result<(String, String, OpenGoals), OpError> {
        let key = op.id_key()?;
        let given = op.str("action")?;
        let name = self.core.resolve(given).map_err(failed)?;
        let served =
            self.actions.served.get(&name).ok_or_else(|| {
                failed(format!("action `{given}` is not advertised by this client"))
            })?;
        Ok((key, served.type_name.clone(), served.goals.clone()))
    }

    pub(super) fn action_feedback(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let (key, action_type, goals) = self.open_goal(op)?;
        let ty = part(&action_type, "_Feedback")?;
        let value = value_from_json(&self.core, &ty, op.get("values"))?;
        let goals = lock(&goals);
        let handle = goals
            .get(&key)
            .ok_or_else(|| failed(format!("no goal `{key}` is open")))?;
        handle.publish_feedback(&value).map_err(failed)
    }

    pub(super) fn action_result(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let (key, action_type, goals) = self.open_goal(op)?;
        let ok = op.opt_bool("result")?.unwrap_or(true);
        let status = op.opt_uint("status")?.unwrap_or(4);
        let result_type = part(&action_type, "_Result")?;
        let value = if ok {
            value_from_json(&self.core, &result_type, op.get("values"))?
        } else {
            dynamic::default_value(&*self.core.registry, &result_type).map_err(failed)?
        };
        let handle = lock(&goals)
            .remove(&key)
            .ok_or_else(|| failed(format!("no goal `{key}` is open")))?;
        let ended = match (ok, status) {
            (true, 4) => handle.succeed(value),
            (true, 5) if handle.is_cancel_requested() => handle.canceled(value),
            _ => handle.abort(value),
        };
        ended.map_err(failed)
    }

    pub(super) fn unadvertise_action(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let given = op.str("action")?;
        let name = self.core.resolve(given).map_err(failed)?;
        self.check_action(given, &name, "action unadvertisement")?;
        if let Some(served) = self.actions.served.remove(&name) {
            served.end();
        }
        Ok(())
    }
}
