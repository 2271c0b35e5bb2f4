//! The command line's parameter overrides, as rcl reads them.

use std::io::Write;

use super::overrides::{for_node, parse_param_rule, parse_params_file};
use super::ParameterValue as V;

fn value(text: &str) -> V {
    parse_param_rule(&format!("x:={text}")).unwrap().value
}

#[test]
fn dash_p_values_are_typed_as_rcl_types_them() {
    assert_eq!(value("true"), V::Bool(true));
    assert_eq!(value("off"), V::Bool(false));
    assert_eq!(value("42"), V::Integer(42));
    assert_eq!(value("-3"), V::Integer(-3));
    assert_eq!(value("2.5"), V::Double(2.5));
    assert_eq!(value("1e3"), V::Double(1000.0));
    assert_eq!(value("-.inf"), V::Double(f64::NEG_INFINITY));
    assert_eq!(value("hello"), V::String("hello".into()));
    assert_eq!(value("'42'"), V::String("42".into()));
    assert_eq!(value("\"true\""), V::String("true".into()));
    assert_eq!(value("1.2.3"), V::String("1.2.3".into()));
    assert_eq!(value("[1, 2]"), V::IntegerArray(vec![1, 2]));
    assert_eq!(
        value("[a, 'b']"),
        V::StringArray(vec!["a".into(), "b".into()])
    );
    assert_eq!(value("[true, no]"), V::BoolArray(vec![true, false]));
    assert_eq!(value(""), V::String(String::new()));
}

#[test]
fn malformed_dash_p_rules_name_the_rule_and_the_parameter() {
    let e = parse_param_rule("rate=5").unwrap_err();
    assert!(e.to_string().contains("name:=value"), "{e}");
    let e = parse_param_rule("rate:=[1, a]").unwrap_err();
    assert_eq!(e.parameter.as_deref(), Some("rate"));
    assert!(e.to_string().contains("-p rate:=[1, a]"), "{e}");
    assert!(e.to_string().contains("one type"), "{e}");
    let e = parse_param_rule("rate:=[1, 2").unwrap_err();
    assert!(e.to_string().contains("rate"), "{e}");
    assert!(parse_param_rule(":=1").is_err());
    assert!(parse_param_rule("m:={a: 1}").is_err());
}

/// A parameter file, removed when dropped.
fn file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn a_params_file_in_ros2_layout_gives_each_node_its_values() {
    let f = file(
        "/**:\n  ros__parameters:\n    rate: 10\n    frame: base\n\
         talker:\n  ros__parameters:\n    rate: 30\n    limits:\n      max: 2.5\n      names: [a, b]\n\
         /robot:\n  cam:\n    ros__parameters:\n      exposure: 0.01\n\
         /robot/*:\n  ros__parameters:\n    in_robot: true\n",
    );
    let rules = parse_params_file(f.path()).unwrap();
    let talker = for_node(&rules, "/talker");
    assert_eq!(
        talker["rate"],
        V::Integer(30),
        "the named node wins over /**"
    );
    assert_eq!(talker["frame"], V::String("base".into()));
    assert_eq!(talker["limits.max"], V::Double(2.5));
    assert_eq!(
        talker["limits.names"],
        V::StringArray(vec!["a".into(), "b".into()])
    );
    assert!(!talker.contains_key("in_robot"));
    let cam = for_node(&rules, "/robot/cam");
    assert_eq!(cam["exposure"], V::Double(0.01));
    assert_eq!(cam["in_robot"], V::Bool(true));
    assert_eq!(cam["rate"], V::Integer(10));
    let other = for_node(&rules, "/robot/lidar/driver");
    assert!(!other.contains_key("in_robot"), "* is one level");
    assert!(other.contains_key("frame"));
}

#[test]
fn a_malformed_params_file_names_the_file_line_and_parameter() {
    let f = file("talker:\n  ros__parameters:\n    rate: [1, 2.5]\n");
    let e = parse_params_file(f.path()).unwrap_err();
    assert_eq!(e.parameter.as_deref(), Some("rate"));
    assert_eq!(e.line, Some(3));
    let shown = e.to_string();
    assert!(
        shown.starts_with(&f.path().display().to_string()),
        "{shown}"
    );
    assert!(shown.contains(":3: parameter `rate`"), "{shown}");

    let f = file("talker:\n  ros__parameters:\n    rate: [1, 2\n  x: 1\n");
    let e = parse_params_file(f.path()).unwrap_err();
    assert!(e.line.is_some(), "{e}");

    let f = file("ros__parameters:\n  rate: 1\n");
    assert!(parse_params_file(f.path())
        .unwrap_err()
        .reason
        .contains("node name"));
    let f = file("- a\n- b\n");
    assert!(parse_params_file(f.path()).is_err());
    let missing = std::env::temp_dir().join("hibari-no-such-params.yaml");
    let e = parse_params_file(&missing).unwrap_err();
    assert!(e.to_string().contains("cannot read it"), "{e}");
    let f = file("");
    assert!(parse_params_file(f.path()).unwrap().is_empty());
}

#[test]
fn later_overrides_win_and_node_prefixes_select_nodes() {
    let rules = vec![
        parse_param_rule("rate:=1").unwrap(),
        parse_param_rule("talker:rate:=2").unwrap(),
        parse_param_rule("gain:=0.5").unwrap(),
        parse_param_rule("gain:=0.7").unwrap(),
    ];
    let t = for_node(&rules, "/talker");
    assert_eq!(t["rate"], V::Integer(2));
    assert_eq!(t["gain"], V::Double(0.7));
    assert_eq!(for_node(&rules, "/listener")["rate"], V::Integer(1));
}

#[test]
fn a_params_file_nested_without_end_is_refused_not_a_stack_overflow() {
    // yaml-rust2's parser bounds the nesting itself; this keeps it so.
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let f = file(&format!("n:\n  ros__parameters:\n    x: {deep}\n"));
    let e = parse_params_file(f.path()).unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.reason.contains("recursion limit"), "{e}");
}
