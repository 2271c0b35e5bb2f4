//! `.srv` and `.action` files and the types derived from them.

use hibari_idl::{
    parse_action, parse_srv, ArrayKind, BaseType, InterfaceKind, Primitive, TypeName,
};

fn srv_name() -> TypeName {
    TypeName::new("example", InterfaceKind::Srv, "AddTwoInts")
}

fn action_name() -> TypeName {
    TypeName::new("example", InterfaceKind::Action, "Fibonacci")
}

fn field_types(def: &hibari_idl::MessageDef) -> Vec<(String, String)> {
    def.fields
        .iter()
        .map(|f| {
            let ty = match &f.ty.base {
                BaseType::Named(n) => n.to_string(),
                BaseType::Primitive(p) => p.msg_name().to_string(),
                other => format!("{other:?}"),
            };
            (f.name.clone(), ty)
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn a_service_splits_into_request_and_response_at_the_separator() {
    let text = "# adds\nint64 a\nint64 b\n---\nint64 sum # result\n";
    let srv = parse_srv(text, srv_name(), "AddTwoInts.srv").unwrap();
    assert_eq!(
        srv.request.name.to_string(),
        "example/srv/AddTwoInts_Request"
    );
    assert_eq!(
        srv.response.name.to_string(),
        "example/srv/AddTwoInts_Response"
    );
    assert_eq!(srv.request.fields.len(), 2);
    assert_eq!(srv.response.fields[0].comment, "result");
    assert_eq!(srv.request.source, "# adds\nint64 a\nint64 b\n");
    assert_eq!(srv.response.source, "int64 sum # result\n");
    assert_eq!(srv.source, text);
}

#[test]
fn an_empty_request_or_response_is_allowed() {
    let srv = parse_srv("---\n", srv_name(), "f").unwrap();
    assert!(srv.request.fields.is_empty() && srv.response.fields.is_empty());
    let srv = parse_srv("---", srv_name(), "f").unwrap();
    assert!(srv.response.fields.is_empty());
}

#[test]
fn service_errors_carry_line_numbers_of_the_whole_file() {
    let e = parse_srv("int64 a\n---\nint64 a\nbad b\n", srv_name(), "S.srv").unwrap_err();
    assert_eq!((e.line, e.column), (4, 1), "{e}");
    let e = parse_srv("int64 a\n", srv_name(), "S.srv").unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.message.contains("needs 1 `---`"), "{e}");
    let e = parse_srv("---\n---\n", srv_name(), "S.srv").unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.message.contains("remove this one"), "{e}");
}

#[test]
fn a_service_event_message_wraps_request_and_response_in_bounded_sequences() {
    let srv = parse_srv("int64 a\n---\nint64 sum\n", srv_name(), "f").unwrap();
    let event = srv.event_message();
    assert_eq!(event.name.to_string(), "example/srv/AddTwoInts_Event");
    assert_eq!(
        field_types(&event),
        pairs(&[
            ("info", "service_msgs/msg/ServiceEventInfo"),
            ("request", "example/srv/AddTwoInts_Request"),
            ("response", "example/srv/AddTwoInts_Response"),
        ])
    );
    assert_eq!(event.fields[1].ty.array, ArrayKind::Bounded(1));
}

#[test]
fn an_action_has_goal_result_feedback_and_the_derived_parts() {
    let text = "int32 order\n---\nint32[] sequence\n---\nint32[] partial_sequence\n";
    let action = parse_action(text, action_name(), "Fibonacci.action").unwrap();
    assert_eq!(
        action.goal.name.to_string(),
        "example/action/Fibonacci_Goal"
    );
    assert_eq!(
        action.result.name.to_string(),
        "example/action/Fibonacci_Result"
    );
    assert_eq!(
        action.feedback.name.to_string(),
        "example/action/Fibonacci_Feedback"
    );
    assert_eq!(action.source, text);

    assert_eq!(
        action.send_goal.name.to_string(),
        "example/action/Fibonacci_SendGoal"
    );
    assert_eq!(
        action.send_goal.request.name.to_string(),
        "example/action/Fibonacci_SendGoal_Request"
    );
    assert_eq!(
        field_types(&action.send_goal.request),
        pairs(&[
            ("goal_id", "unique_identifier_msgs/msg/UUID"),
            ("goal", "example/action/Fibonacci_Goal"),
        ])
    );
    assert_eq!(
        field_types(&action.send_goal.response),
        pairs(&[
            ("accepted", "bool"),
            ("stamp", "builtin_interfaces/msg/Time")
        ])
    );
    assert_eq!(
        field_types(&action.get_result.request),
        pairs(&[("goal_id", "unique_identifier_msgs/msg/UUID")])
    );
    assert_eq!(
        field_types(&action.get_result.response),
        pairs(&[
            ("status", "int8"),
            ("result", "example/action/Fibonacci_Result")
        ])
    );
    assert_eq!(
        action.feedback_message.name.to_string(),
        "example/action/Fibonacci_FeedbackMessage"
    );
    assert_eq!(
        field_types(&action.feedback_message),
        pairs(&[
            ("goal_id", "unique_identifier_msgs/msg/UUID"),
            ("feedback", "example/action/Fibonacci_Feedback"),
        ])
    );
    assert_eq!(
        action.send_goal.request.source,
        "unique_identifier_msgs/UUID goal_id\nexample/action/Fibonacci_Goal goal\n"
    );
    assert_eq!(
        action.get_result.response.fields[0].ty.base,
        BaseType::Primitive(Primitive::Int8)
    );
}

#[test]
fn action_sections_resolve_relative_types_in_the_action_package() {
    let action = parse_action("Target t\n---\n---\n", action_name(), "f").unwrap();
    assert_eq!(
        action.goal.fields[0].ty.base,
        BaseType::Named(TypeName::new("example", InterfaceKind::Msg, "Target"))
    );
}

#[test]
fn an_action_needs_exactly_two_separators() {
    let e = parse_action("int32 a\n---\nint32 b\n", action_name(), "A.action").unwrap_err();
    assert_eq!((e.line, e.column), (4, 1));
    assert!(e.message.contains("needs 2 `---`"), "{e}");
    let e = parse_action("---\n---\n---\n", action_name(), "A.action").unwrap_err();
    assert_eq!(e.line, 3);
    let e = parse_action("---\n---\nint32 x 1.5\n", action_name(), "A.action").unwrap_err();
    assert_eq!((e.line, e.column), (3, 9), "{e}");
}
