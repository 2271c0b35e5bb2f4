//! Hostile bytes and hostile values: typed errors, never a panic.

mod common;

use common::{defs, hex, ty};
use hibari_cdr::CdrDecodeError;
use hibari_dynamic::{
    decode, default_value, encode, from_json, DynamicDecodeError, DynamicDefaultError,
    DynamicEncodeError, DynamicJsonError, Struct, Value, MAX_DEPTH,
};

/// (type, a valid encoding) for every small vector.
fn vectors() -> Vec<(&'static str, Vec<u8>)> {
    let defs = defs();
    let mut out = Vec::new();
    for (name, json) in [
        ("std_msgs/msg/String", r#"{"data":"hello"}"#),
        ("std_msgs/msg/Empty", "{}"),
        (
            "geometry_msgs/msg/Twist",
            r#"{"linear":{"x":1},"angular":{"z":0.5}}"#,
        ),
        (
            "test_msgs/msg/Layout",
            r#"{"flag":true,"big":-2,"name":"abc","fixed":[1,2,3],"bounded":[7,8],
            "names":["a","bc"],"pts":[{"x":1,"y":2,"z":3}],"last":1.5}"#,
        ),
        (
            "sensor_msgs/msg/PointCloud2",
            r#"{"header":{"frame_id":"map"},"fields":[{"name":"x","datatype":7,"count":1}],
            "data":"AACAPwAAAEA=","is_dense":true}"#,
        ),
        (
            "test_msgs/msg/Arrays",
            r#"{"bools":[true],"chars":[1],"i8s":[-1],"u8s":"AQI=","u32s":[4],"i64s":[-5],
            "f32s":[1.5],"f64s":[2.5],"strings":["ab"],"times":[{"sec":1,"nanosec":2}]}"#,
        ),
        (
            "sensor_msgs/msg/Image",
            r#"{"header":{"frame_id":"cam"},"height":2,"width":2,"encoding":"mono8",
            "step":2,"data":"AQIDBA=="}"#,
        ),
    ] {
        let t = ty(name);
        let v = hibari_dynamic::from_json_str(&defs, &t, json).unwrap();
        out.push((name, encode(&defs, &t, &v).unwrap()));
    }
    out
}

#[test]
fn every_truncation_of_every_vector_is_an_error_and_never_a_panic() {
    let defs = defs();
    for (name, bytes) in vectors() {
        let t = ty(name);
        assert!(decode(&defs, &t, &bytes).is_ok(), "{name} decodes whole");
        // Up to 3 missing bytes can look like tolerated trailing padding
        // only if the message ends exactly there; every shorter prefix fails.
        for len in 0..bytes.len() {
            let r = decode(&defs, &t, &bytes[..len]);
            assert!(r.is_err(), "{name}: prefix of {len} bytes decoded: {r:?}");
        }
    }
}

#[test]
fn a_forged_count_of_four_billion_is_length_too_large_before_any_allocation() {
    let defs = defs();
    let huge = [0xff, 0xff, 0xff, 0xff];
    // (type, field, file offset of its count in `vectors()`)
    let cases = [
        ("std_msgs/msg/String", "data", 4),
        ("sensor_msgs/msg/Image", "data", 44),
        ("sensor_msgs/msg/PointCloud2", "fields", 28),
        ("test_msgs/msg/Layout", "bounded", 44),
    ];
    let all = vectors();
    for (name, field, offset) in cases {
        let mut bytes = all.iter().find(|(n, _)| *n == name).unwrap().1.clone();
        bytes[offset..offset + 4].copy_from_slice(&huge);
        let err = decode(&defs, &ty(name), &bytes).unwrap_err();
        match &err {
            DynamicDecodeError::Cdr {
                path,
                source: CdrDecodeError::LengthTooLarge { len, .. },
                ..
            } => {
                assert_eq!(*len, u32::MAX as u64);
                assert_eq!(path.to_string(), field, "{name}");
            }
            other => panic!("{name}: expected LengthTooLarge, got {other:?}"),
        }
    }
}

#[test]
fn invalid_utf8_and_a_bool_byte_of_two_are_typed_errors_naming_the_field() {
    let defs = defs();
    let mut s = hex("00 01 00 00 03 00 00 00 ff fe 00");
    let err = decode(&defs, &ty("std_msgs/msg/String"), &s).unwrap_err();
    assert!(
        matches!(&err, DynamicDecodeError::Cdr { source: CdrDecodeError::InvalidUtf8 { .. }, path, .. } if path.to_string() == "data"),
        "{err:?}"
    );
    s = hex("00 01 00 00 02");
    let err = decode(&defs, &ty("std_msgs/msg/Bool"), &s).unwrap_err();
    assert_eq!(
        err.to_string(),
        "data: bool at offset 4 holds 2, expected 0 or 1"
    );
    let mut arrays = vectors()
        .into_iter()
        .find(|(n, _)| *n == "test_msgs/msg/Arrays")
        .unwrap()
        .1;
    arrays[8] = 9; // bools[0]
    let err = decode(&defs, &ty("test_msgs/msg/Arrays"), &arrays).unwrap_err();
    assert!(
        err.to_string().starts_with("bools: bool at offset 8"),
        "{err}"
    );
}

#[test]
fn a_header_that_is_not_plain_cdr_is_refused() {
    let err = decode(&defs(), &ty("std_msgs/msg/Empty"), &hex("00 07 00 00 00")).unwrap_err();
    assert!(matches!(
        err,
        DynamicDecodeError::Cdr {
            source: CdrDecodeError::BadHeader(_),
            ..
        }
    ));
}

#[test]
fn a_recursive_definition_nested_past_max_depth_stops_with_too_deep() {
    let defs = defs();
    let t = ty("test_msgs/msg/Tree");
    // Each level: value (int32), children count 1 — then the innermost has 0 children.
    let mut bytes = vec![0, 1, 0, 0];
    for _ in 0..MAX_DEPTH + 10 {
        bytes.extend([7, 0, 0, 0, 1, 0, 0, 0]);
    }
    bytes.extend([7, 0, 0, 0, 0, 0, 0, 0]);
    let err = decode(&defs, &t, &bytes).unwrap_err();
    assert!(matches!(err, DynamicDecodeError::TooDeep { .. }), "{err:?}");
    assert!(err.to_string().starts_with("children[0].children[0]."));

    // Shallow trees decode fine.
    let ok = hex("00 01 00 00 01 00 00 00 01 00 00 00 02 00 00 00 00 00 00 00");
    let v = decode(&defs, &t, &ok).unwrap();
    assert_eq!(v.get_path("children.0.value"), Some(&Value::Int(2)));

    let err = default_value(&defs, &ty("test_msgs/msg/Chain")).unwrap_err();
    assert!(
        matches!(err, DynamicDefaultError::TooDeep { .. }),
        "{err:?}"
    );
}

#[test]
fn a_value_nested_past_max_depth_is_refused_on_encode() {
    let defs = defs();
    let mut v = Struct::new()
        .with("value", 0)
        .with("children", Vec::<Value>::new());
    for _ in 0..MAX_DEPTH + 2 {
        v = Struct::new()
            .with("value", 0)
            .with("children", vec![Value::Message(v)]);
    }
    let err = encode(&defs, &ty("test_msgs/msg/Tree"), &Value::Message(v)).unwrap_err();
    assert!(matches!(err, DynamicEncodeError::TooDeep { .. }), "{err:?}");
}

#[test]
fn wstring_fields_are_refused_with_a_clear_error_both_ways() {
    let defs = defs();
    let t = ty("test_msgs/msg/Wide");
    let v = default_value(&defs, &t).unwrap();
    let err = encode(&defs, &t, &v).unwrap_err();
    assert!(matches!(err, DynamicEncodeError::WStringUnsupported { .. }));
    assert!(err.to_string().starts_with("w: wstring"), "{err}");
    let err = decode(&defs, &t, &hex("00 01 00 00 00 00 00 00")).unwrap_err();
    assert!(matches!(err, DynamicDecodeError::WStringUnsupported { .. }));
    // JSON too, given or defaulted: from_json returns only values that encode.
    for json in [serde_json::json!({}), serde_json::json!({"w": "hi"})] {
        let err = from_json(&defs, &t, &json).unwrap_err();
        assert!(matches!(err, DynamicJsonError::WStringUnsupported { .. }));
        assert!(err.to_string().starts_with("w: wstring"), "{err}");
    }
}

#[test]
fn an_unknown_type_is_named_in_the_error() {
    let err = decode(&defs(), &ty("nope_msgs/msg/Nope"), &hex("00 01 00 00")).unwrap_err();
    assert!(err.to_string().contains("nope_msgs/msg/Nope"), "{err}");
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn random_bytes_after_a_valid_header_never_panic(
            body in proptest::collection::vec(any::<u8>(), 0..256),
            which in 0usize..7,
        ) {
            let defs = defs();
            let (name, _) = vectors()[which].clone();
            let mut bytes = vec![0, 1, 0, 0];
            bytes.extend(body);
            let _ = decode(&defs, &ty(name), &bytes);
        }

        #[test]
        fn flipping_any_byte_of_a_vector_never_panics(
            which in 0usize..7,
            at in any::<prop::sample::Index>(),
            to in any::<u8>(),
        ) {
            let defs = defs();
            let (name, mut bytes) = vectors()[which].clone();
            let i = at.index(bytes.len());
            bytes[i] = to;
            let _ = decode(&defs, &ty(name), &bytes);
        }
    }
}

#[test]
fn every_truncation_of_the_640x480_image_fails_without_reading_the_pixels() {
    let defs = defs();
    let t = ty("sensor_msgs/msg/Image");
    let mut v = default_value(&defs, &t).unwrap();
    let data: Vec<u8> = (0..921_600usize).map(|i| i as u8).collect();
    v.as_struct_mut().unwrap().set("data", data);
    let bytes = encode(&defs, &t, &v).unwrap();
    // A short buffer is caught by the count check before the pixels are
    // copied, so each prefix costs O(fields), not O(pixels).
    for len in 0..bytes.len() {
        assert!(decode(&defs, &t, &bytes[..len]).is_err(), "prefix {len}");
    }
}
