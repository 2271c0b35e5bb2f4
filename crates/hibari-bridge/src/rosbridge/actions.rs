//! rosbridge's action ops (bridge.md §1.2–1.3, A1–A2).
//!
//! As a client of a ROS action (`send_action_goal`): the goal is converted
//! and sent by a task of its own, which waits up to a second for the
//! server, forwards feedback as `action_feedback` when the op asked for it,
//! and ends with one `action_result` — `result: true` with the goal's
//! status (4 succeeded, 5 canceled, 6 aborted) and result, or
//! `result: false` with the reason (no server, goal rejected) and status 0.
//! `cancel_action_goal` names the goal by the op's `id`.
//!
//! As the server of an action (`advertise_action`): each goal a ROS client
//! sends is accepted and forwarded as `send_action_goal` with the id
//! `action_goal:<action>:<n>`; the client answers with `action_feedback`
//! and `action_result` under that id, and a ROS cancel request is accepted
//! and forwarded as `cancel_action_goal`. Goals still open when the action
//! is unadvertised or the client leaves are aborted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hibari::action::{
    GenericActionServer, GenericClientGoalHandle, GenericServerGoalHandle, GoalId,
};
use hibari::dynamic::{self, FromJsonOptions, Value};
use hibari::interfaces::{Registry, TypeName};
use hibari::{CancelResponse, GoalResponse};
use serde_json::{json, Map, Value as Json};

use super::args::{normalize_type, Op, OpError};
use super::Session;
use crate::hub::lock;
use crate::outbox::{Frame, Outbox};

/// How long `send_action_goal` waits for a server (rosbridge's 1 s).
const SERVER_WAIT: Duration = Duration::from_secs(1);

/// A client's actions: the goals it sent and the actions it serves.
#[derive(Default)]
pub(crate) struct Actions {
    /// Accepted goals this client sent, by the op's id.
    sent: Arc<Mutex<HashMap<String, Arc<GenericClientGoalHandle>>>>,
    /// Actions this client serves, by resolved name.
    served: HashMap<String, GenericActionServer>,
    /// Goals of served actions waiting for the client's result, by id.
    open: Arc<Mutex<HashMap<String, GenericServerGoalHandle>>>,
}

fn failed(e: impl std::fmt::Display) -> OpError {
    OpError::Failed(e.to_string())
}

fn part(action_type: &str, suffix: &str) -> Result<TypeName, OpError> {
    TypeName::parse(&format!("{action_type}{suffix}"))
        .ok_or_else(|| failed(format!("`{action_type}` is not an action type")))
}

fn push(out: &Outbox, message: &Json) {
    out.push_control(Frame::Text(message.to_string().into()));
}

fn result_message(action: &str, id: Option<&Json>, outcome: Result<(i8, Json), String>) -> Json {
    let (values, status, result) = match outcome {
        Ok((status, values)) => (values, status, true),
        Err(e) => (Json::String(e), 0, false),
    };
    let mut m = json!({"op": "action_result", "action": action, "values": values,
                       "status": status, "result": result});
    if let Some(id) = id {
        m["id"] = id.clone();
    }
    m
}

/// `json` as a value of `ty`: an object, a list zipped with the fields, or nothing.
fn from_json(session: &Session, ty: &TypeName, json: Option<&Json>) -> Result<Value, OpError> {
    let registry: &Registry = &session.core.registry;
    let json = match json {
        Some(Json::Array(items)) => {
            let names = registry
                .message(ty)
                .map(|d| d.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>())
                .unwrap_or_default();
            Json::Object(names.into_iter().zip(items.iter().cloned()).collect())
        }
        Some(other) => other.clone(),
        None => Json::Object(Map::new()),
    };
    let (sec, nanosec) = session.core.now();
    let options = FromJsonOptions::default().with_now(sec, nanosec);
    dynamic::from_json_with(registry, ty, &json, &options).map_err(failed)
}

impl Session {
    pub(super) fn send_action_goal(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let given = op.str("action")?.to_owned();
        let type_given = op.str("action_type")?;
        let id = op.id()?.cloned();
        let key = id.as_ref().map(super::args::id_key).unwrap_or_default();
        let feedback_wanted = op.opt_bool("feedback")?.unwrap_or(false);
        let action_type = normalize_type(type_given, "action")
            .ok_or_else(|| failed(format!("`{type_given}` is not an action type name")))?;
        let name = self.core.resolve(&given).map_err(failed)?;
        let goal = from_json(self, &part(&action_type, "_Goal")?, op.get("args"));
        let client = self
            .core
            .node
            .create_generic_action_client(&name, &action_type, self.core.registry.clone())
            .map_err(failed);
        let (goal, client) = match (goal, client) {
            (Ok(goal), Ok(client)) => (goal, client),
            // As rosbridge: an op that cannot start is an error (a status
            // for clients that asked for them), not an `action_result`.
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        let (registry, out, sent) = (
            self.core.registry.clone(),
            self.out.clone(),
            self.actions.sent.clone(),
        );
        let feedback_type = part(&action_type, "_Feedback")?;
        let result_type = part(&action_type, "_Result")?;
        let feedback: Option<Box<dyn FnMut(Value) + Send>> = feedback_wanted.then(|| {
            let (registry, out, given, id) =
                (registry.clone(), out.clone(), given.clone(), id.clone());
            Box::new(move |value: Value| {
                let values = dynamic::to_json(&*registry, &feedback_type, &value);
                let mut m = json!({"op": "action_feedback", "action": given, "values": values});
                if let Some(id) = &id {
                    m["id"] = id.clone();
                }
                push(&out, &m);
            }) as Box<dyn FnMut(Value) + Send>
        });
        self.core.runtime.spawn(async move {
            let client = Arc::new(client);
            let waiting = client.clone();
            let ready = tokio::task::spawn_blocking(move || waiting.wait_for_server(SERVER_WAIT))
                .await
                .unwrap_or(false);
            let outcome = if !ready {
                Err(format!("Action server {given} is not available"))
            } else {
                match client.send_goal_async(goal, feedback).await {
                    Err(e) => Err(e.to_string()),
                    Ok(handle) => {
                        let handle = Arc::new(handle);
                        lock(&sent).insert(key.clone(), handle.clone());
                        let result = handle.get_result_async().await;
                        lock(&sent).remove(&key);
                        result.map_err(|e| e.to_string()).map(|r| {
                            let values = dynamic::to_json(&*registry, &result_type, &r.result);
                            (r.status as i8, values)
                        })
                    }
                }
            };
            push(&out, &result_message(&given, id.as_ref(), outcome));
            drop(client);
        });
        Ok(())
    }

    pub(super) fn cancel_action_goal(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let key = op.id_key()?;
        let Some(handle) = lock(&self.actions.sent).get(&key).cloned() else {
            return Err(failed(format!("no goal `{key}` is running")));
        };
        // The answer shows in the goal's `action_result` (status 5).
        self.core.runtime.spawn_blocking(move || {
            let _ = handle.cancel(Duration::from_secs(5));
        });
        Ok(())
    }

    pub(super) fn advertise_action(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let given = op.str("action")?.to_owned();
        let type_given = op.str("type")?;
        let action_type = normalize_type(type_given, "action")
            .ok_or_else(|| failed(format!("`{type_given}` is not an action type name")))?;
        let goal_type = part(&action_type, "_Goal")?;
        let name = self.core.resolve(&given).map_err(failed)?;
        let ids: Arc<Mutex<HashMap<GoalId, String>>> = Arc::default();
        let counter = AtomicU64::new(0);
        let (registry, out, open) = (
            self.core.registry.clone(),
            self.out.clone(),
            self.actions.open.clone(),
        );
        let (cancel_ids, cancel_out, cancel_action) = (ids.clone(), out.clone(), given.clone());
        let accepted = move |handle: GenericServerGoalHandle| {
            let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
            let id = format!("action_goal:{given}:{n}");
            let args = dynamic::to_json(&*registry, &goal_type, handle.goal());
            lock(&ids).insert(*handle.goal_id(), id.clone());
            lock(&open).insert(id.clone(), handle);
            push(
                &out,
                &json!({"op": "send_action_goal", "id": id, "action": given,
                        "action_type": action_type, "args": args, "feedback": true}),
            );
        };
        let cancel = move |goal: &GoalId| {
            if let Some(id) = lock(&cancel_ids).get(goal) {
                push(
                    &cancel_out,
                    &json!({"op": "cancel_action_goal", "id": id, "action": cancel_action}),
                );
            }
            CancelResponse::Accept
        };
        let type_name = normalize_type(type_given, "action").unwrap_or_default();
        let server = self
            .core
            .node
            .create_generic_action_server(
                &name,
                &type_name,
                self.core.registry.clone(),
                |_: &GoalId, _: &Value| GoalResponse::AcceptAndExecute,
                cancel,
                accepted,
            )
            .map_err(failed)?;
        // A second advertise replaces the first (its goals are aborted).
        self.actions.served.insert(name, server);
        Ok(())
    }

    /// The open goal named by the op's id, and its action's type.
    fn open_goal(&self, op: &Op<'_>) -> Result<(String, String), OpError> {
        let key = op.id_key()?;
        let given = op.str("action")?;
        let name = self.core.resolve(given).map_err(failed)?;
        let server =
            self.actions.served.get(&name).ok_or_else(|| {
                failed(format!("action `{given}` is not advertised by this client"))
            })?;
        Ok((key, server.type_name().to_owned()))
    }

    pub(super) fn action_feedback(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let (key, action_type) = self.open_goal(op)?;
        let value = from_json(self, &part(&action_type, "_Feedback")?, op.get("values"))?;
        let open = lock(&self.actions.open);
        let handle = open
            .get(&key)
            .ok_or_else(|| failed(format!("no goal `{key}` is open")))?;
        handle.publish_feedback(&value).map_err(failed)
    }

    pub(super) fn action_result(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let (key, action_type) = self.open_goal(op)?;
        let ok = op.opt_bool("result")?.unwrap_or(true);
        let status = op.opt_uint("status")?.unwrap_or(4);
        let result_type = part(&action_type, "_Result")?;
        let value = if ok {
            from_json(self, &result_type, op.get("values"))?
        } else {
            dynamic::default_value(&*self.core.registry, &result_type).map_err(failed)?
        };
        let handle = lock(&self.actions.open)
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
        if let Some(server) = self.actions.served.remove(&name) {
            // Its open goals are aborted as their handles go.
            let prefix = format!("action_goal:{given}:");
            lock(&self.actions.open).retain(|id, _| !id.starts_with(&prefix));
            drop(server);
        }
        Ok(())
    }
}
