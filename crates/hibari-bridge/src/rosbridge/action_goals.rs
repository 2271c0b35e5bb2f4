//! rosbridge's `send_action_goal` and `cancel_action_goal`: the client
//! side of actions (see [`actions`](super::actions)).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hibari::action::{GenericActionClient, GenericClientGoalHandle};
use hibari::dynamic::{self, Value};
use serde_json::{json, Value as Json};
use tokio::task::AbortHandle;

use super::actions::push;
use super::args::{failed, normalize_type, part, value_from_json, Op, OpError};
use super::Session;
use crate::core::Core;
use crate::hub::lock;

/// How long `send_action_goal` waits for a server (rosbridge's 1 s).
const SERVER_WAIT: Duration = Duration::from_secs(1);

/// The most goals one session may have in flight (sent, not yet ended).
const MAX_GOALS: usize = 64;

/// A goal the client sent, while its task runs.
pub(super) struct SentGoal {
    /// The op's id (`""` when it had none).
    key: String,
    /// The goal's handle, once the server accepted it.
    handle: Option<Arc<GenericClientGoalHandle>>,
    /// Ends the task (set right after it is spawned).
    pub(super) task: Option<AbortHandle>,
}

/// Counts a sent goal in the bridge's stats while it lives.
struct Counted(Arc<Core>);

impl Counted {
    fn new(core: Arc<Core>) -> Counted {
        core.counters.goals.fetch_add(1, Ordering::Relaxed);
        Counted(core)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.counters.goals.fetch_sub(1, Ordering::Relaxed);
    }
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

/// A goal's course: the server (waited for when not known ready), the
/// goal sent, its handle recorded in `sent[slot]`, and its end.
async fn run_goal(
    given: &str,
    client: Arc<GenericActionClient>,
    fresh: bool,
    goal: Value,
    feedback: Option<Box<dyn FnMut(Value) + Send>>,
    sent: &Mutex<HashMap<u64, SentGoal>>,
    slot: u64,
) -> Result<(i8, Value), String> {
    if fresh || !client.action_server_is_ready() {
        let waiting = client.clone();
        let ready = tokio::task::spawn_blocking(move || waiting.wait_for_server(SERVER_WAIT))
            .await
            .unwrap_or(false);
        if !ready {
            return Err(format!("Action server {given} is not available"));
        }
    }
    let handle = Arc::new(
        client
            .send_goal_async(goal, feedback)
            .await
            .map_err(|e| e.to_string())?,
    );
    if let Some(s) = lock(sent).get_mut(&slot) {
        s.handle = Some(handle.clone());
    }
    let result = handle.get_result_async().await.map_err(|e| e.to_string())?;
    Ok((result.status as i8, result.result))
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
        self.check_action(&given, &name, "action goal")?;
        if lock(&self.actions.sent).len() >= MAX_GOALS {
            return Err(failed(format!(
                "{given}: this client has {MAX_GOALS} goals in flight already, the most it may \
                 have; wait for one to end"
            )));
        }
        // As rosbridge: an op that cannot start is an error (a status for
        // clients that asked for them), not an `action_result`.
        let goal = value_from_json(&self.core, &part(&action_type, "_Goal")?, op.get("args"))?;
        let (client, fresh) = self
            .core
            .action_client(&name, &action_type)
            .map_err(failed)?;
        let feedback_type = part(&action_type, "_Feedback")?;
        let result_type = part(&action_type, "_Result")?;
        let (core, out, sent) = (
            self.core.clone(),
            self.out.clone(),
            self.actions.sent.clone(),
        );
        let feedback: Option<Box<dyn FnMut(Value) + Send>> = feedback_wanted.then(|| {
            let (core, out, given, id) = (core.clone(), out.clone(), given.clone(), id.clone());
            Box::new(move |value: Value| {
                let values = dynamic::to_json(&*core.registry, &feedback_type, &value);
                let mut m = json!({"op": "action_feedback", "action": given, "values": values});
                if let Some(id) = &id {
                    m["id"] = id.clone();
                }
                push(&out, &m);
            }) as Box<dyn FnMut(Value) + Send>
        });
        let slot = self.actions.next_task;
        self.actions.next_task += 1;
        lock(&sent).insert(
            slot,
            SentGoal {
                key,
                handle: None,
                task: None,
            },
        );
        let counted = Counted::new(core.clone());
        let task = self.core.runtime.spawn(async move {
            let _counted = counted;
            let outcome = run_goal(&given, client, fresh, goal, feedback, &sent, slot).await;
            lock(&sent).remove(&slot);
            let outcome = outcome.map(|(status, value)| {
                (
                    status,
                    dynamic::to_json(&*core.registry, &result_type, &value),
                )
            });
            push(&out, &result_message(&given, id.as_ref(), outcome));
        });
        if let Some(s) = lock(&self.actions.sent).get_mut(&slot) {
            s.task = Some(task.abort_handle());
        }
        Ok(())
    }

    pub(super) fn cancel_action_goal(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let key = op.id_key()?;
        let handle = lock(&self.actions.sent)
            .values()
            .filter(|s| s.key == key)
            .find_map(|s| s.handle.clone());
        let Some(handle) = handle else {
            return Err(failed(format!("no goal `{key}` is running")));
        };
        // The answer shows in the goal's `action_result` (status 5).
        self.core.runtime.spawn_blocking(move || {
            let _ = handle.cancel(Duration::from_secs(5));
        });
        Ok(())
    }
}
