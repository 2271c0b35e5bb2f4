//! The codec of actions whose type is named at run time: goals, results and
//! feedback are [`Value`]s, encoded with the definitions of a [`Registry`]
//! (the bundled one, or one with your packages added).

use std::sync::Arc;

use hibari_dynamic::{decode, default_value, encode, Struct, Value};
use hibari_idl::{InterfaceKind, Registry, TypeName};

use super::codec::ActionCodec;
use super::GoalId;

/// The codec of an action named at run time (`pkg/action/Name`), with
/// [`dynamic`](crate::dynamic) values: a goal is the value of
/// `pkg/action/Name_Goal`, a result of `Name_Result`, feedback of
/// `Name_Feedback`.
pub struct Dynamic {
    registry: Arc<Registry>,
    type_name: String,
    send_goal_request: TypeName,
    get_result_response: TypeName,
    feedback_message: TypeName,
    result: TypeName,
}

impl std::fmt::Debug for Dynamic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dynamic")
            .field("type", &self.type_name)
            .finish()
    }
}

impl Dynamic {
    /// The codec of the action `type_name` (`pkg/action/Name`), if `registry`
    /// defines it; else what to tell the caller.
    pub fn new(registry: Arc<Registry>, type_name: &str) -> Result<Self, String> {
        let name = TypeName::parse(type_name)
            .filter(|n| n.kind == InterfaceKind::Action && type_name.matches('/').count() == 2)
            .ok_or_else(|| {
                format!(
                    "`{type_name}` is not an action type name: write it as `package/action/Name`"
                )
            })?;
        let Some(action) = registry.action(&name) else {
            return Err(format!(
                "the action type `{type_name}` is not known: add its package to the registry \
                 (HIBARI_INTERFACE_PATH)"
            ));
        };
        // The names of the parts, as the registry derived them.
        let send_goal_request = action.send_goal.request.name.clone();
        let get_result_response = action.get_result.response.name.clone();
        let feedback_message = action.feedback_message.name.clone();
        let result = action.result.name.clone();
        Ok(Dynamic {
            send_goal_request,
            get_result_response,
            feedback_message,
            result,
            registry,
            type_name: type_name.to_owned(),
        })
    }

    /// The registry its definitions come from.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }
}

fn uuid(id: &GoalId) -> Value {
    Value::Message(Struct::new().with("uuid", Value::Bytes(id.to_vec())))
}

/// The goal id and the named field of a decoded `{goal_id, <field>}` value.
fn split(value: Value, field: &str) -> Result<(GoalId, Value), String> {
    let Value::Message(fields) = value else {
        return Err("the message is not a structure".into());
    };
    let mut id = None;
    let mut body = None;
    for (name, value) in fields.into_fields() {
        if name == "goal_id" {
            id = value
                .get_path("uuid")
                .and_then(Value::as_bytes)
                .and_then(|b| GoalId::try_from(b).ok());
        } else if name == field {
            body = Some(value);
        }
    }
    match (id, body) {
        (Some(id), Some(body)) => Ok((id, body)),
        _ => Err(format!("the message lacks `goal_id` or `{field}`")),
    }
}

impl super::codec::sealed::Sealed for Dynamic {}

impl ActionCodec for Dynamic {
    type Goal = Value;
    type Result = Value;
    type Feedback = Value;

    fn type_name(&self) -> &str {
        &self.type_name
    }
    fn encode_goal_request(&self, id: &GoalId, goal: &Value) -> Result<Vec<u8>, String> {
        let value = Struct::new()
            .with("goal_id", uuid(id))
            .with("goal", goal.clone());
        encode(
            &*self.registry,
            &self.send_goal_request,
            &Value::Message(value),
        )
        .map_err(|e| e.to_string())
    }
    fn decode_goal_request(&self, cdr: &[u8]) -> Result<(GoalId, Value), String> {
        let value =
            decode(&*self.registry, &self.send_goal_request, cdr).map_err(|e| e.to_string())?;
        split(value, "goal")
    }
    fn encode_result_response(
        &self,
        status: i8,
        result: Option<&Value>,
    ) -> Result<Vec<u8>, String> {
        let result = match result {
            Some(result) => result.clone(),
            None => default_value(&*self.registry, &self.result).map_err(|e| e.to_string())?,
        };
        let value = Struct::new()
            .with("status", Value::Int(status.into()))
            .with("result", result);
        encode(
            &*self.registry,
            &self.get_result_response,
            &Value::Message(value),
        )
        .map_err(|e| e.to_string())
    }
    fn decode_result_response(&self, cdr: &[u8]) -> Result<(i8, Value), String> {
        let value =
            decode(&*self.registry, &self.get_result_response, cdr).map_err(|e| e.to_string())?;
        let status = value
            .get_path("status")
            .and_then(Value::as_i64)
            .and_then(|s| i8::try_from(s).ok())
            .ok_or("the result response lacks its status")?;
        let Value::Message(fields) = value else {
            return Err("the result response is not a structure".into());
        };
        let result = fields
            .into_fields()
            .into_iter()
            .find_map(|(name, value)| (name == "result").then_some(value))
            .ok_or("the result response lacks its result")?;
        Ok((status, result))
    }
    fn encode_feedback(&self, id: &GoalId, feedback: &Value) -> Result<Vec<u8>, String> {
        let value = Struct::new()
            .with("goal_id", uuid(id))
            .with("feedback", feedback.clone());
        encode(
            &*self.registry,
            &self.feedback_message,
            &Value::Message(value),
        )
        .map_err(|e| e.to_string())
    }
    fn decode_feedback(&self, cdr: &[u8]) -> Result<(GoalId, Value), String> {
        let value =
            decode(&*self.registry, &self.feedback_message, cdr).map_err(|e| e.to_string())?;
        split(value, "feedback")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari_idl::Distro;

    #[test]
    fn the_parts_are_the_registry_s_and_unknown_or_non_action_types_fail() {
        let registry = Arc::new(Registry::bundled(Distro::Jazzy));
        let codec = Dynamic::new(registry.clone(), "tf2_msgs/action/LookupTransform").unwrap();
        assert_eq!(
            codec.send_goal_request.to_string(),
            "tf2_msgs/action/LookupTransform_SendGoal_Request"
        );
        assert_eq!(
            codec.feedback_message.to_string(),
            "tf2_msgs/action/LookupTransform_FeedbackMessage"
        );
        assert_eq!(
            codec.result.to_string(),
            "tf2_msgs/action/LookupTransform_Result"
        );
        let id = [3u8; 16];
        let goal_type = TypeName::parse("tf2_msgs/action/LookupTransform_Goal").unwrap();
        let goal = default_value(&*registry, &goal_type).unwrap();
        let bytes = codec.encode_goal_request(&id, &goal).unwrap();
        assert_eq!(codec.decode_goal_request(&bytes).unwrap().0, id);
        assert!(Dynamic::new(registry.clone(), "tf2_msgs/action/Nope").is_err());
        assert!(Dynamic::new(registry, "std_msgs/msg/String").is_err());
    }
}
