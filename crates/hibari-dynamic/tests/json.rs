//! rosbridge JSON conventions (bridge.md §1.4 and the E1–E6 checklist).

mod common;

use common::{defs, ty, STAMP_JSON};
use hibari_dynamic::{
    default_value, encode, from_json, from_json_str, from_json_with, to_json, to_json_string,
    DynamicJsonError, FromJsonOptions, PathSegment, Value,
};
use serde_json::json;

fn read(type_name: &str, json: &str) -> Result<Value, DynamicJsonError> {
    from_json_str(&defs(), &ty(type_name), json)
}

fn err(type_name: &str, json: &str) -> String {
    read(type_name, json).unwrap_err().to_string()
}

#[test]
fn uint8_and_char_arrays_are_base64_and_byte_arrays_are_integer_lists() {
    let defs = defs();
    let t = ty("test_msgs/msg/Arrays");
    let v = read(
        "test_msgs/msg/Arrays",
        r#"{"u8s":[0,1,255],"chars":"aGk=","octets":[7,8]}"#,
    )
    .unwrap();
    let out = to_json(&defs, &t, &v);
    assert_eq!(out["u8s"], json!("AAH/"));
    assert_eq!(out["chars"], json!("aGk="));
    assert_eq!(out["octets"], json!([7, 8]));
    let mut loose = v.clone();
    *loose.get_path_mut("u8s").unwrap() = vec![Value::UInt(0), Value::Int(1)].into();
    assert_eq!(to_json(&defs, &t, &loose)["u8s"], json!("AAE="));
    let uuid = ty("unique_identifier_msgs/msg/UUID");
    let zero = default_value(&defs, &uuid).unwrap();
    assert_eq!(
        to_json(&defs, &uuid, &zero),
        json!({"uuid": "AAAAAAAAAAAAAAAAAAAAAA=="})
    );
}

#[test]
fn byte_arrays_accept_base64_or_a_list_of_integers_on_input() {
    let a = read("sensor_msgs/msg/Image", r#"{"data":"AQID"}"#).unwrap();
    let b = read("sensor_msgs/msg/Image", r#"{"data":[1,2,3]}"#).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.get_path("data"), Some(&Value::Bytes(vec![1, 2, 3])));
    assert_eq!(
        err("sensor_msgs/msg/Image", r#"{"data":[1,256]}"#),
        "data[1]: 256 does not fit in uint8"
    );
    assert!(err("sensor_msgs/msg/Image", r#"{"data":"not base64!"}"#)
        .starts_with("data: invalid base64"));
    assert_eq!(
        err("unique_identifier_msgs/msg/UUID", r#"{"uuid":"AAAA"}"#),
        "uuid: is a fixed array of 16 elements but holds 3"
    );
}

#[test]
fn time_is_an_object_of_sec_and_nanosec_and_accepts_ros1_names() {
    let defs = defs();
    let t = ty("std_msgs/msg/Header");
    let v = read(
        "std_msgs/msg/Header",
        r#"{"stamp":{"secs":5,"nsecs":6},"frame_id":"f"}"#,
    )
    .unwrap();
    assert_eq!(
        to_json_string(&defs, &t, &v),
        r#"{"stamp":{"sec":5,"nanosec":6},"frame_id":"f"}"#
    );
}

#[test]
fn now_takes_the_clock_reading_from_the_options_and_fails_clearly_without_one() {
    let defs = defs();
    let opts = FromJsonOptions::default().with_now(11, 22);
    let t = ty("std_msgs/msg/Header");
    let now = json!({"sec": 11, "nanosec": 22});
    let v = from_json_with(&defs, &t, &json!({"stamp": "now"}), &opts).unwrap();
    assert_eq!(to_json(&defs, &t, &v)["stamp"], now);
    // A Header object without a stamp gets "now" too, as rosbridge pre-sets it.
    let v = from_json_with(&defs, &t, &json!({"frame_id": "x"}), &opts).unwrap();
    assert_eq!(to_json(&defs, &t, &v)["stamp"], now);
    assert_eq!(
        err("std_msgs/msg/Header", r#"{"stamp":"now"}"#),
        "stamp: \"now\" needs a clock reading; pass `FromJsonOptions::with_now`"
    );
    // Without options an omitted stamp is simply the default.
    let v = read("std_msgs/msg/Header", "{}").unwrap();
    assert_eq!(v.get_path("stamp.sec"), Some(&Value::Int(0)));
}

#[test]
fn nan_and_infinities_are_null_on_output_and_null_reads_as_nan() {
    let defs = defs();
    let t = ty("test_msgs/msg/Arrays");
    let mut v = default_value(&defs, &t).unwrap();
    let s = v.as_struct_mut().unwrap();
    s.set("f32s", vec![f32::NAN, f32::INFINITY, 1.5]);
    s.set("f64s", vec![f64::NEG_INFINITY]);
    let out = to_json(&defs, &t, &v);
    assert_eq!(out["f32s"], json!([null, null, 1.5]));
    assert_eq!(out["f64s"], json!([null]));
    let back = from_json(&defs, &t, &out).unwrap();
    match back.get_path("f32s") {
        Some(Value::F32s(x)) => assert!(x[0].is_nan() && x[1].is_nan() && x[2] == 1.5),
        other => panic!("{other:?}"),
    }
}

#[test]
fn int64_and_uint64_extremes_survive_text_exactly() {
    let defs = defs();
    let t = ty("test_msgs/msg/Primitives");
    let text = format!(r#"{{"i64":{},"u64":{}}}"#, i64::MIN, u64::MAX);
    let v = from_json_str(&defs, &t, &text).unwrap();
    assert_eq!(v.get_path("i64"), Some(&Value::Int(i64::MIN)));
    assert_eq!(v.get_path("u64"), Some(&Value::UInt(u64::MAX)));
    let out = to_json_string(&defs, &t, &v);
    assert!(out.contains(&format!(r#""i64":{}"#, i64::MIN)), "{out}");
    assert!(out.contains(&format!(r#""u64":{}"#, u64::MAX)), "{out}");
    assert_eq!(
        err(
            "test_msgs/msg/Primitives",
            r#"{"u64":18446744073709551616}"#
        ),
        "u64: 1.8446744073709552e+19 does not fit in uint64"
    );
}

#[test]
fn missing_fields_take_defaults_from_the_definition() {
    let v = read("test_msgs/msg/Defaults", "{}").unwrap();
    assert_eq!(
        v,
        default_value(&defs(), &ty("test_msgs/msg/Defaults")).unwrap()
    );
    assert_eq!(v.get_path("answer"), Some(&Value::Int(42)));
    assert_eq!(v.get_path("ratio"), Some(&Value::Float(0.1f32 as f64)));
    assert_eq!(v.get_path("name"), Some(&Value::String("hibari".into())));
    assert_eq!(v.get_path("triple"), Some(&Value::I16s(vec![1, 2, 3])));
    assert_eq!(v.get_path("xs"), Some(&Value::F64s(vec![1.5, 2.0])));
    assert_eq!(v.get_path("bytes"), Some(&Value::Bytes(vec![0; 4])));
    assert_eq!(v.get_path("times.1.nanosec"), Some(&Value::UInt(0)));
}

#[test]
fn unknown_fields_are_errors_that_name_the_field() {
    assert_eq!(
        err("std_msgs/msg/Header", r#"{"stamp":{"sec":1,"nanosecs":2}}"#),
        "stamp.nanosecs: `builtin_interfaces/msg/Time` has no such field"
    );
}

#[test]
fn wrong_json_types_are_errors_that_name_the_path() {
    let cases = [
        (
            r#"{"header":{"stamp":{"sec":"1"}}}"#,
            "header.stamp.sec: expected integer, got string",
        ),
        (r#"{"height":1.5}"#, "height: expected integer, got float"),
        (r#"{"height":2.0}"#, "height: expected integer, got float"),
        (r#"{"height":true}"#, "height: expected integer, got bool"),
        (
            r#"{"header":[]}"#,
            "header: expected object (std_msgs/msg/Header), got array",
        ),
        (
            r#"{"encoding":5}"#,
            "encoding: expected string, got integer",
        ),
        (
            r#"{"data":{}}"#,
            "data: expected array (uint8[]), got object",
        ),
        (
            "[]",
            "<root>: expected object (sensor_msgs/msg/Image), got array",
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(err("sensor_msgs/msg/Image", json), expected, "{json}");
    }
    let e = read("sensor_msgs/msg/Image", cases[0].0).unwrap_err();
    let segments: Vec<_> = e.path().unwrap().segments().cloned().collect();
    assert_eq!(
        segments,
        ["header", "stamp", "sec"].map(|s| PathSegment::Field(s.into()))
    );
    assert_eq!(
        err("std_msgs/msg/Bool", r#"{"data":1}"#),
        "data: expected bool, got integer"
    );
    assert_eq!(
        err(
            "sensor_msgs/msg/PointCloud2",
            r#"{"fields":[{},{"offset":-1}]}"#
        ),
        "fields[1].offset: -1 does not fit in uint32"
    );
}

#[test]
fn integers_are_range_checked_and_accepted_for_float_fields() {
    let t = "test_msgs/msg/Primitives";
    assert_eq!(err(t, r#"{"u8":256}"#), "u8: 256 does not fit in uint8");
    assert_eq!(err(t, r#"{"i8":-129}"#), "i8: -129 does not fit in int8");
    assert_eq!(err(t, r#"{"o":-1}"#), "o: -1 does not fit in byte");
    assert_eq!(
        err(t, r#"{"f32":1e300}"#),
        "f32: 1e+300 does not fit in float32"
    );
    let v = read(t, r#"{"f32":3,"f64":-4,"i8":-128,"c":65}"#).unwrap();
    assert_eq!(v.get_path("f32"), Some(&Value::Float(3.0)));
    assert_eq!(v.get_path("f64"), Some(&Value::Float(-4.0)));
    assert_eq!(v.get_path("i8"), Some(&Value::Int(-128)));
    assert_eq!(v.get_path("c"), Some(&Value::UInt(65)));
}

#[test]
fn bounds_and_fixed_lengths_are_checked_so_every_result_encodes() {
    let t = "test_msgs/msg/Arrays";
    assert_eq!(
        err(t, r#"{"strings":["a","b","c","d"]}"#),
        "strings: holds 4 elements/bytes but its type allows at most 3"
    );
    assert_eq!(
        err(t, r#"{"strings":["toolong"]}"#),
        "strings[0]: holds 7 elements/bytes but its type allows at most 5"
    );
    assert_eq!(
        err(t, r#"{"i16s":[1,2]}"#),
        "i16s: is a fixed array of 3 elements but holds 2"
    );
    assert_eq!(
        err(t, r#"{"chars":"AQIDBAU="}"#),
        "chars: holds 5 elements/bytes but its type allows at most 4"
    );
    assert_eq!(
        err("std_msgs/msg/String", r#"{"data":"a\u0000b"}"#),
        "data: contains a NUL character, which ROS strings cannot carry"
    );
    let v = read(t, r#"{"strings":["abcde"],"pair":["x","y"]}"#).unwrap();
    assert!(encode(&defs(), &ty(t), &v).is_ok());
}

#[test]
fn text_nested_deeper_than_serde_jsons_limit_is_a_syntax_error() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let e = read("std_msgs/msg/Empty", &deep).unwrap_err();
    assert!(matches!(e, DynamicJsonError::Syntax(_)), "{e:?}");
    assert!(e.to_string().contains("recursion limit"), "{e}");
}

#[test]
fn the_layout_vector_renders_as_rosbridge_would() {
    let defs = defs();
    let t = ty("test_msgs/msg/Layout");
    let v = read(
        "test_msgs/msg/Layout",
        r#"{"flag":true,"big":-2,"small":48879,"name":"abc","fixed":[1,2,3],"bounded":[7,8],
        "names":["a","bc"],"pts":[{"x":1,"y":2,"z":3}],"last":1.5}"#,
    )
    .unwrap();
    assert_eq!(
        to_json_string(&defs, &t, &v),
        r#"{"flag":true,"big":-2,"small":48879,"name":"abc","fixed":[1,2,3],"bounded":[7,8],"names":["a","bc"],"pts":[{"x":1.0,"y":2.0,"z":3.0}],"last":1.5}"#
    );
}

#[test]
fn a_full_message_round_trips_through_json_text() {
    let defs = defs();
    let t = ty("sensor_msgs/msg/PointCloud2");
    let text = format!(
        r#"{{"header":{{"stamp":{STAMP_JSON},"frame_id":"map"}},"height":1,"width":2,
        "fields":[{{"name":"x","offset":0,"datatype":7,"count":1}}],"is_bigendian":false,
        "point_step":12,"row_step":24,"data":"AACAPwAAAEA=","is_dense":true}}"#
    );
    let v = from_json_str(&defs, &t, &text).unwrap();
    let again = from_json_str(&defs, &t, &to_json_string(&defs, &t, &v)).unwrap();
    assert_eq!(again, v);
}
