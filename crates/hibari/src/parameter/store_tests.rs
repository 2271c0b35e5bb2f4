//! Declare, get, set and their callbacks on a node, with rclpy's rules.

use std::sync::{Arc, Mutex};

use super::*;
use crate::{Context, Node, NodeOptions};

fn node_with(options: NodeOptions) -> Node {
    let c = Context::builder().isolated().create().unwrap();
    c.create_node_with_options("n", options).unwrap()
}

fn node() -> Node {
    node_with(NodeOptions::new())
}

#[test]
fn a_declared_parameter_keeps_its_type() {
    let n = node();
    assert_eq!(n.declare_parameter("rate", 30i64).unwrap(), 30i64.into());
    let e = n.declare_parameter("rate", 1i64).unwrap_err();
    assert!(matches!(e, DeclareParameterError::AlreadyDeclared { .. }));
    let r = n.set_parameter(Parameter::new("rate", 2.5));
    assert!(!r.successful);
    assert_eq!(
        r.reason,
        "Wrong parameter type, expected 'Type.INTEGER' got 'Type.DOUBLE'"
    );
    assert!(n.set_parameter(Parameter::new("rate", 60i64)).successful);
    assert_eq!(n.get_parameter("rate").unwrap(), 60i64.into());
    let r = n.set_parameter(Parameter::new("rate", ParameterValue::NotSet));
    assert_eq!(r.reason, "Static parameter cannot be undeclared");
}

#[test]
fn undeclared_names_are_refused_unless_allowed() {
    let n = node();
    let e = n.get_parameter("nope").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Invalid access to undeclared parameter(s): nope"
    );
    assert!(!n.set_parameter(Parameter::new("nope", 1i64)).successful);
    assert_eq!(n.get_parameter_or("nope", 5i64), 5i64.into());

    let open = node_with(NodeOptions::new().allow_undeclared_parameters(true));
    assert_eq!(open.get_parameter("nope").unwrap(), ParameterValue::NotSet);
    assert!(open.set_parameter(Parameter::new("nope", 1i64)).successful);
    assert!(
        open.set_parameter(Parameter::new("nope", "now a string"))
            .successful
    );
    assert!(
        open.set_parameter(Parameter::new("nope", ParameterValue::NotSet))
            .successful
    );
    assert!(!open.has_parameter("nope"));
}

#[test]
fn typed_declarations_are_uninitialized_until_set() {
    let n = node();
    let v = n
        .declare_parameter_typed(
            "port",
            ParameterType::String,
            ParameterDescriptor::default(),
        )
        .unwrap();
    assert_eq!(v, ParameterValue::NotSet);
    assert!(matches!(
        n.get_parameter("port"),
        Err(ParameterAccessError::Uninitialized { .. })
    ));
    assert!(!n.set_parameter(Parameter::new("port", 1i64)).successful);
    assert!(
        n.set_parameter(Parameter::new("port", "/dev/tty0"))
            .successful
    );
    assert_eq!(n.get_parameter("port").unwrap(), "/dev/tty0".into());
    let e = n
        .declare_parameter("x", ParameterValue::NotSet)
        .unwrap_err();
    assert!(matches!(e, DeclareParameterError::NoType { .. }));
}

#[test]
fn read_only_parameters_refuse_sets_and_undeclaring() {
    let n = node();
    let d = ParameterDescriptor {
        read_only: true,
        ..ParameterDescriptor::new("the serial port")
    };
    n.declare_parameter_with("port", "/dev/ttyUSB0", d, false)
        .unwrap();
    let r = n.set_parameter(Parameter::new("port", "/dev/ttyUSB1"));
    assert_eq!(r.reason, "Trying to set a read-only parameter: port.");
    assert!(matches!(
        n.undeclare_parameter("port"),
        Err(ParameterAccessError::ReadOnly { .. })
    ));
    let described = n.describe_parameter("port").unwrap();
    assert_eq!(described.description, "the serial port");
    assert_eq!(described.parameter_type, ParameterType::String);
}

#[test]
fn ranges_refuse_declarations_and_sets_outside_them() {
    let n = node();
    let d = ParameterDescriptor {
        integer_range: Some(IntegerRange {
            from_value: 0,
            to_value: 100,
            step: 10,
        }),
        ..ParameterDescriptor::default()
    };
    let e = n
        .declare_parameter_with("pct", 105i64, d.clone(), false)
        .unwrap_err();
    assert!(
        matches!(e, DeclareParameterError::InvalidValue { .. }),
        "{e}"
    );
    n.declare_parameter_with("pct", 50i64, d, false).unwrap();
    assert!(!n.set_parameter(Parameter::new("pct", 55i64)).successful);
    assert!(n.set_parameter(Parameter::new("pct", 60i64)).successful);
}

#[test]
fn callbacks_run_in_order_and_can_refuse_or_rewrite() {
    let n = node();
    n.declare_parameter("gain", 1.0).unwrap();
    n.declare_parameter("mode", "auto").unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let _post = n.add_post_set_parameters_callback(move |ps| {
        s.lock().unwrap().extend(ps.iter().map(|p| p.name.clone()))
    });
    let _pre = n.add_pre_set_parameters_callback(|ps| {
        if ps.iter().any(|p| p.name == "gain") {
            ps.push(Parameter::new("mode", "manual"));
        }
    });
    let on = n.add_on_set_parameters_callback(|ps| {
        match ps
            .iter()
            .find(|p| p.value.as_double().is_some_and(|g| g > 10.0))
        {
            Some(_) => SetParametersResult::refused("gain above 10"),
            None => SetParametersResult::ok(),
        }
    });
    assert!(n.set_parameter(Parameter::new("gain", 2.0)).successful);
    assert_eq!(n.get_parameter("mode").unwrap(), "manual".into());
    assert_eq!(*seen.lock().unwrap(), ["gain", "mode"]);
    let r = n.set_parameter(Parameter::new("gain", 11.0));
    assert_eq!(r.reason, "gain above 10");
    assert_eq!(n.get_parameter("gain").unwrap(), 2.0.into());
    drop(on);
    assert!(n.set_parameter(Parameter::new("gain", 11.0)).successful);
}

#[test]
fn an_atomic_set_changes_all_or_nothing() {
    let n = node();
    n.declare_parameter("a", 1i64).unwrap();
    n.declare_parameter("b", 1i64).unwrap();
    let r = n.set_parameters_atomically(vec![Parameter::new("a", 2i64), Parameter::new("b", "x")]);
    assert!(!r.successful);
    assert_eq!(n.get_parameter("a").unwrap(), 1i64.into());
    let each = n.set_parameters(vec![Parameter::new("a", 2i64), Parameter::new("b", "x")]);
    assert_eq!(
        each.iter().map(|r| r.successful).collect::<Vec<_>>(),
        [true, false]
    );
}

#[test]
fn a_callback_that_sets_its_own_node_is_refused_not_deadlocked() {
    let n = node();
    n.declare_parameter("a", 1i64).unwrap();
    let inner = n.clone();
    let result = Arc::new(Mutex::new(None));
    let r = result.clone();
    let _h = n.add_post_set_parameters_callback(move |_| {
        *r.lock().unwrap() = Some(inner.set_parameter(Parameter::new("a", 3i64)));
    });
    assert!(n.set_parameter(Parameter::new("a", 2i64)).successful);
    let inner_result = result.lock().unwrap().take().unwrap();
    assert!(!inner_result.successful);
    assert!(inner_result.reason.contains("inside a parameter callback"));
    assert_eq!(n.get_parameter("a").unwrap(), 2i64.into());
}

#[test]
fn overrides_win_over_defaults_and_can_be_declared_automatically() {
    let n = node_with(NodeOptions::new().parameter_override("rate", 5i64));
    assert_eq!(n.declare_parameter("rate", 30i64).unwrap(), 5i64.into());
    let ignored = node_with(NodeOptions::new().parameter_override("rate", 5i64));
    let d = ParameterDescriptor::default();
    assert_eq!(
        ignored
            .declare_parameter_with("rate", 30i64, d, true)
            .unwrap(),
        30i64.into()
    );
    let wrong = node_with(NodeOptions::new().parameter_override("rate", "fast"));
    let e = wrong.declare_parameter("rate", 30i64).unwrap_err();
    assert!(
        matches!(e, DeclareParameterError::InvalidType { .. }),
        "{e}"
    );
    let auto = node_with(
        NodeOptions::new()
            .parameter_override("x.y", true)
            .automatically_declare_parameters_from_overrides(true),
    );
    assert_eq!(auto.get_parameter("x.y").unwrap(), true.into());
    assert_eq!(auto.get_parameters_by_prefix("x")["y"], true.into());
}

#[test]
fn the_command_line_reaches_the_nodes_it_names() {
    let c = Context::builder()
        .isolated()
        .args([
            "prog",
            "--ros-args",
            "-p",
            "rate:=7",
            "-p",
            "cam:exposure:=0.5",
        ])
        .create()
        .unwrap();
    let cam = c.create_node("cam").unwrap();
    assert_eq!(cam.declare_parameter("rate", 1i64).unwrap(), 7i64.into());
    assert_eq!(cam.declare_parameter("exposure", 0.1).unwrap(), 0.5.into());
    let other = c.create_node("other").unwrap();
    assert_eq!(
        other.declare_parameter("exposure", 0.1).unwrap(),
        0.1.into()
    );
    let e = Context::builder()
        .isolated()
        .args(["--ros-args", "--params-file", "/nonexistent/p.yaml"])
        .create()
        .unwrap_err();
    assert!(e.to_string().contains("/nonexistent/p.yaml"), "{e}");
}

#[test]
fn every_change_is_published_on_parameter_events() {
    use crate::msg::rcl_interfaces::msg::ParameterEvent;
    use crate::{QosProfile, SingleThreadedExecutor};
    use std::time::Duration;

    let c = Context::builder().isolated().create().unwrap();
    let n = c
        .create_node_with_options(
            "cam",
            NodeOptions::new()
                .namespace("/r1")
                .allow_undeclared_parameters(true),
        )
        .unwrap();
    let watcher = c.create_node("watcher").unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let e = events.clone();
    let _sub = watcher
        .create_subscription(
            "/parameter_events",
            QosProfile::parameter_events(),
            move |m: ParameterEvent| e.lock().unwrap().push(m),
        )
        .unwrap();
    n.declare_parameter("gain", 1.0).unwrap();
    assert!(n.set_parameter(Parameter::new("gain", 2.0)).successful);
    assert!(n.set_parameter(Parameter::new("extra", true)).successful);
    let gone = Parameter::new("extra", ParameterValue::NotSet);
    assert!(n.set_parameter(gone).successful);
    let refused = n.set_parameter(Parameter::new("gain", "x"));
    assert!(
        !refused.successful,
        "gain is a double: a refused set publishes nothing"
    );
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&watcher).unwrap();
    while executor.spin_once(Duration::from_millis(100)) {}
    let events = events.lock().unwrap();
    let names = |ps: &[crate::msg::rcl_interfaces::msg::Parameter]| -> Vec<String> {
        ps.iter().map(|p| p.name.clone()).collect()
    };
    let shape: Vec<_> = events
        .iter()
        .map(|e| {
            assert_eq!(e.node, "/r1/cam");
            (
                names(&e.new_parameters),
                names(&e.changed_parameters),
                names(&e.deleted_parameters),
            )
        })
        .collect();
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        shape,
        [
            (v(&["gain"]), v(&[]), v(&[])),
            (v(&[]), v(&["gain"]), v(&[])),
            (v(&["extra"]), v(&[]), v(&[])),
            (v(&[]), v(&[]), v(&["extra"])),
        ]
    );
    assert_eq!(events[1].changed_parameters[0].value.double_value, 2.0);
}
