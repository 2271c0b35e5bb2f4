//! Values that do not fit their definition are refused with the field's path.

mod common;

use common::{defs, ty};
use hibari_cdr::{CdrEncodeError, SliceSink};
use hibari_dynamic::{default_value, encode, encode_into, DynamicEncodeError, Struct, Value};

/// The default `ty` with `path` (dotted) replaced by `v`, encoded.
fn encode_with(type_name: &str, path: &str, v: Value) -> Result<Vec<u8>, DynamicEncodeError> {
    let defs = defs();
    let t = ty(type_name);
    let mut value = default_value(&defs, &t).unwrap();
    *value.get_path_mut(path).expect("path exists") = v;
    encode(&defs, &t, &value)
}

fn message(r: Result<Vec<u8>, DynamicEncodeError>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn bounded_strings_and_sequences_over_their_bound_are_refused() {
    let t = "test_msgs/msg/Layout";
    assert_eq!(
        message(encode_with(t, "name", "abcdefghijk".into())),
        "name: holds 11 elements/bytes but its type allows at most 10"
    );
    assert!(encode_with(t, "name", "abcdefghij".into()).is_ok());
    assert_eq!(
        message(encode_with(t, "bounded", vec![1i32; 6].into())),
        "bounded: holds 6 elements/bytes but its type allows at most 5"
    );
}

#[test]
fn fixed_arrays_of_the_wrong_length_are_refused() {
    assert_eq!(
        message(encode_with(
            "test_msgs/msg/Layout",
            "fixed",
            vec![1i32, 2].into()
        )),
        "fixed: is a fixed array of 3 elements but holds 2"
    );
    assert_eq!(
        message(encode_with(
            "unique_identifier_msgs/msg/UUID",
            "uuid",
            vec![0u8; 17].into()
        )),
        "uuid: is a fixed array of 16 elements but holds 17"
    );
}

#[test]
fn strings_with_nul_and_out_of_range_numbers_are_refused() {
    assert_eq!(
        message(encode_with("std_msgs/msg/String", "data", "a\0b".into())),
        "data: contains a NUL byte, which CDR strings cannot carry"
    );
    let t = "test_msgs/msg/Primitives";
    assert_eq!(
        message(encode_with(t, "u8", Value::Int(-1))),
        "u8: -1 does not fit in uint8"
    );
    assert_eq!(
        message(encode_with(t, "i64", Value::UInt(u64::MAX))),
        "i64: 18446744073709551615 does not fit in int64"
    );
    assert_eq!(
        message(encode_with(t, "f32", Value::Float(1e39))),
        "f32: 1e39 does not fit in float32"
    );
    assert!(encode_with(t, "f32", Value::Float(f64::INFINITY)).is_ok());
    assert!(encode_with(t, "f64", Value::UInt(3)).is_ok());
}

#[test]
fn values_of_the_wrong_kind_are_refused_with_the_expected_type() {
    assert_eq!(
        message(encode_with("std_msgs/msg/Bool", "data", Value::UInt(1))),
        "data: expected bool, got unsigned integer"
    );
    assert_eq!(
        message(encode_with(
            "sensor_msgs/msg/LaserScan",
            "ranges",
            vec![1.0f64].into()
        )),
        "ranges: expected float32[], got float64 array"
    );
    assert_eq!(
        message(encode_with(
            "test_msgs/msg/Layout",
            "pts",
            vec![Value::Int(1)].into()
        )),
        "pts[0]: expected geometry_msgs/msg/Point32, got signed integer"
    );
    let defs = defs();
    let err = encode(&defs, &ty("std_msgs/msg/String"), &Value::from("x")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "<root>: expected std_msgs/msg/String, got string"
    );
}

#[test]
fn missing_and_unknown_struct_fields_are_refused() {
    let defs = defs();
    let t = ty("geometry_msgs/msg/Vector3");
    let partial = Struct::new().with("x", 1.0).with("y", 2.0);
    let err = encode(&defs, &t, &Value::Message(partial.clone())).unwrap_err();
    assert!(matches!(err, DynamicEncodeError::MissingField { .. }));
    assert!(err.to_string().starts_with("z: field missing"), "{err}");
    let extra = partial.with("z", 3.0).with("w", 4.0);
    assert_eq!(
        encode(&defs, &t, &Value::Message(extra))
            .unwrap_err()
            .to_string(),
        "w: `geometry_msgs/msg/Vector3` has no such field"
    );
}

#[test]
fn fields_given_out_of_order_encode_in_definition_order() {
    let defs = defs();
    let t = ty("geometry_msgs/msg/Vector3");
    let shuffled = Struct::new().with("z", 3.0).with("x", 1.0).with("y", 2.0);
    let ordered = Struct::new().with("x", 1.0).with("y", 2.0).with("z", 3.0);
    assert_eq!(
        encode(&defs, &t, &Value::Message(shuffled)).unwrap(),
        encode(&defs, &t, &Value::Message(ordered)).unwrap()
    );
}

#[test]
fn a_caller_buffer_that_is_too_small_is_reported_not_overrun() {
    let defs = defs();
    let t = ty("std_msgs/msg/String");
    let v = Value::Message(Struct::new().with("data", "hello"));
    let mut small = [0u8; 8];
    let err = encode_into(&defs, &t, &v, SliceSink::new(&mut small)).unwrap_err();
    assert!(
        matches!(
            err,
            DynamicEncodeError::Cdr {
                source: CdrEncodeError::BufferTooSmall { .. },
                ..
            }
        ),
        "{err:?}"
    );
    let mut exact = [0u8; 14];
    let sink = encode_into(&defs, &t, &v, SliceSink::new(&mut exact)).unwrap();
    assert_eq!(hibari_cdr::CdrSink::position(&sink), 14);
    assert_eq!(&exact[4..8], &[6, 0, 0, 0]);
}
