use serde_json::json;

use super::yaml::{float, parse, py_float, quote};

#[test]
fn floats_print_as_python_and_pyyaml_do() {
    assert_eq!(float(0.1), "0.1");
    assert_eq!(float(2.0), "2.0");
    assert_eq!(float(-0.0), "-0.0");
    assert_eq!(float(1e-5), "1.0e-05");
    assert_eq!(py_float(1e-5), "1e-05");
    assert_eq!(float(1.5e16), "1.5e+16");
    assert_eq!(py_float(1e16), "1e+16");
    assert_eq!(float(1e15), "1000000000000000.0");
    assert_eq!(float(f64::NAN), ".nan");
    assert_eq!(float(f64::NEG_INFINITY), "-.inf");
    // A float32 widened exactly, as rclpy hands it to PyYAML.
    assert_eq!(float(f64::from(0.1f32)), "0.10000000149011612");
}

#[test]
fn strings_are_quoted_only_where_yaml_needs_it() {
    assert_eq!(quote("hello world"), "hello world");
    assert_eq!(quote("it's"), "it's");
    assert_eq!(quote(""), "''");
    assert_eq!(quote("true"), "'true'");
    assert_eq!(quote("12"), "'12'");
    assert_eq!(quote("1.5"), "'1.5'");
    assert_eq!(quote("a: b"), "'a: b'");
    assert_eq!(quote("'q'"), "'''q'''");
    assert_eq!(quote("- item"), "'- item'");
    assert_eq!(quote(" padded"), "' padded'");
    assert_eq!(quote("two\nlines"), "\"two\\nlines\"");
}

#[test]
fn command_line_yaml_reads_as_json() {
    assert_eq!(parse("").unwrap(), json!({}));
    assert_eq!(parse("{data: hello}").unwrap(), json!({"data": "hello"}));
    assert_eq!(
        parse("linear: {x: 1, y: -2.5}\nflags: [true, false]").unwrap(),
        json!({"linear": {"x": 1, "y": -2.5}, "flags": [true, false]})
    );
    assert_eq!(parse("{data: '3'}").unwrap(), json!({"data": "3"}));
    // NaN is JSON's null (NaN for a float field); an infinity has no JSON form.
    assert_eq!(parse("{x: .nan}").unwrap(), json!({"x": null}));
    assert!(parse("{x: -.inf}").is_err());
    assert!(parse("{data: [unclosed").is_err());
    assert!(parse("a: 1\n---\nb: 2").is_err());
    assert!(parse("{[1]: x}").is_err());
}
