//! The types rosidl derives from services and actions.
//!
//! A service `pkg/srv/S` has, besides `S_Request` and `S_Response`, the event
//! message `S_Event` that service introspection publishes (Iron and later).
//! An action `pkg/action/A` has the services `A_SendGoal` and `A_GetResult`
//! and the message `A_FeedbackMessage`, built around its goal, result and
//! feedback exactly as rosidl_parser's `Action` class builds them. Their
//! `source` is synthesized `.msg` text.

use crate::model::{
    ActionDef, ArrayKind, BaseType, Field, FieldType, InterfaceKind, MessageDef, Primitive,
    ServiceDef, TypeName,
};

/// `unique_identifier_msgs/msg/UUID`, the goal id of every action.
fn uuid() -> TypeName {
    TypeName::new("unique_identifier_msgs", InterfaceKind::Msg, "UUID")
}

/// `builtin_interfaces/msg/Time`.
fn time() -> TypeName {
    TypeName::new("builtin_interfaces", InterfaceKind::Msg, "Time")
}

/// `service_msgs/msg/ServiceEventInfo`, the header of every service event.
pub fn service_event_info() -> TypeName {
    TypeName::new("service_msgs", InterfaceKind::Msg, "ServiceEventInfo")
}

fn field(name: &str, base: BaseType, array: ArrayKind) -> Field {
    Field {
        name: name.to_string(),
        ty: FieldType { base, array },
        default: None,
        comment: String::new(),
    }
}

fn nested(name: &str, ty: &TypeName) -> Field {
    field(name, BaseType::Named(ty.clone()), ArrayKind::Single)
}

/// How a derived part names a type in its synthesized text: the full
/// `pkg/action/Type`, so the name matches the `MSG:` header of its section in
/// `msgdef_text` (a short `pkg/Type` would read as `pkg/msg/Type`).
fn short(ty: &TypeName) -> String {
    ty.to_string()
}

fn message(name: TypeName, fields: Vec<Field>, source: String) -> MessageDef {
    MessageDef {
        name,
        fields,
        constants: Vec::new(),
        source,
    }
}

fn sibling(of: &TypeName, suffix: &str) -> TypeName {
    TypeName::new(&of.package, of.kind, format!("{}{suffix}", of.name))
}

impl ServiceDef {
    /// The service's event message `<Name>_Event`: `service_msgs/ServiceEventInfo info`,
    /// `<Name>_Request[<=1] request`, `<Name>_Response[<=1] response`.
    pub fn event_message(&self) -> MessageDef {
        let (req, resp) = (&self.request.name, &self.response.name);
        message(
            sibling(&self.name, "_Event"),
            vec![
                nested("info", &service_event_info()),
                field(
                    "request",
                    BaseType::Named(req.clone()),
                    ArrayKind::Bounded(1),
                ),
                field(
                    "response",
                    BaseType::Named(resp.clone()),
                    ArrayKind::Bounded(1),
                ),
            ],
            format!(
                "service_msgs/ServiceEventInfo info\n{}[<=1] request\n{}[<=1] response\n",
                short(req),
                short(resp)
            ),
        )
    }
}

fn service(name: TypeName, request: MessageDef, response: MessageDef) -> ServiceDef {
    let source = format!("{}---\n{}", request.source, response.source);
    ServiceDef {
        name,
        request,
        response,
        source,
    }
}

/// Builds an [`ActionDef`] from its three parsed parts.
pub(crate) fn action(
    name: TypeName,
    goal: MessageDef,
    result: MessageDef,
    feedback: MessageDef,
    source: &str,
) -> ActionDef {
    let send_goal_name = sibling(&name, "_SendGoal");
    let send_goal = service(
        send_goal_name.clone(),
        message(
            sibling(&send_goal_name, "_Request"),
            vec![nested("goal_id", &uuid()), nested("goal", &goal.name)],
            format!(
                "unique_identifier_msgs/UUID goal_id\n{} goal\n",
                short(&goal.name)
            ),
        ),
        message(
            sibling(&send_goal_name, "_Response"),
            vec![
                field(
                    "accepted",
                    BaseType::Primitive(Primitive::Bool),
                    ArrayKind::Single,
                ),
                nested("stamp", &time()),
            ],
            "bool accepted\nbuiltin_interfaces/Time stamp\n".to_string(),
        ),
    );
    let get_result_name = sibling(&name, "_GetResult");
    let get_result = service(
        get_result_name.clone(),
        message(
            sibling(&get_result_name, "_Request"),
            vec![nested("goal_id", &uuid())],
            "unique_identifier_msgs/UUID goal_id\n".to_string(),
        ),
        message(
            sibling(&get_result_name, "_Response"),
            vec![
                field(
                    "status",
                    BaseType::Primitive(Primitive::Int8),
                    ArrayKind::Single,
                ),
                nested("result", &result.name),
            ],
            format!("int8 status\n{} result\n", short(&result.name)),
        ),
    );
    let feedback_message = message(
        sibling(&name, "_FeedbackMessage"),
        vec![
            nested("goal_id", &uuid()),
            nested("feedback", &feedback.name),
        ],
        format!(
            "unique_identifier_msgs/UUID goal_id\n{} feedback\n",
            short(&feedback.name)
        ),
    );
    ActionDef {
        name,
        goal,
        result,
        feedback,
        send_goal,
        get_result,
        feedback_message,
        source: source.to_string(),
    }
}
