//! interop.md §1 test vectors, encoded from and decoded to `Value`s.

mod common;

use common::{defs, hex, sha256_hex, ty, STAMP_JSON};
use hibari_dynamic::{decode, encode, encoded_size, from_json_str, Struct, Value};

/// Encodes the JSON as `type_name`, checks the bytes, and decodes them back.
fn check(type_name: &str, json: &str, expected: &[u8]) -> Value {
    let defs = defs();
    let t = ty(type_name);
    let value = from_json_str(&defs, &t, json).expect("valid JSON for the type");
    let bytes = encode(&defs, &t, &value).expect("encodes");
    assert_eq!(bytes, expected, "{type_name} bytes");
    assert_eq!(encoded_size(&defs, &t, &value).unwrap(), expected.len());
    assert_eq!(decode(&defs, &t, &bytes).expect("decodes"), value);
    value
}

#[test]
fn string_hello_matches_the_vector_in_both_byte_orders() {
    let le = hex("00 01 00 00 06 00 00 00 68 65 6c 6c 6f 00");
    let v = check("std_msgs/msg/String", r#"{"data":"hello"}"#, &le);
    assert_eq!(
        sha256_hex(&le),
        "f32ffad0b5a8dc1a47705571beb514477fe0c6b55a2062bcd0e7dd98bfd0b7ed"
    );
    let be = hex("00 00 00 00 00 00 00 06 68 65 6c 6c 6f 00");
    assert_eq!(decode(&defs(), &ty("std_msgs/msg/String"), &be).unwrap(), v);
    check(
        "std_msgs/msg/String",
        r#"{"data":""}"#,
        &hex("00 01 00 00 01 00 00 00 00"),
    );
}

#[test]
fn empty_message_is_one_zero_byte_and_bool_true_is_one() {
    check("std_msgs/msg/Empty", "{}", &hex("00 01 00 00 00"));
    check(
        "std_msgs/msg/Bool",
        r#"{"data":true}"#,
        &hex("00 01 00 00 01"),
    );
}

#[test]
fn time_and_header_match_the_vectors_and_big_endian_time_decodes() {
    let time = check(
        "builtin_interfaces/msg/Time",
        STAMP_JSON,
        &hex("00 01 00 00 00 f1 53 65 15 cd 5b 07"),
    );
    let be = hex("00 00 00 00 65 53 f1 00 07 5b cd 15");
    assert_eq!(
        decode(&defs(), &ty("builtin_interfaces/msg/Time"), &be).unwrap(),
        time
    );
    check(
        "std_msgs/msg/Header",
        &format!(r#"{{"stamp": {STAMP_JSON}, "frame_id": "cam"}}"#),
        &hex("00 01 00 00 00 f1 53 65 15 cd 5b 07 04 00 00 00 63 61 6d 00"),
    );
}

#[test]
fn twist_matches_the_vector_and_its_big_endian_twin_decodes_equal() {
    let le = hex(
        "00 01 00 00 00 00 00 00 00 00 f0 3f 00 00 00 00 00 00 00 40 00 00 00 00 00 00 08 40
         00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 e0 3f",
    );
    let v = check(
        "geometry_msgs/msg/Twist",
        r#"{"linear":{"x":1,"y":2,"z":3},"angular":{"x":0,"y":0,"z":0.5}}"#,
        &le,
    );
    assert_eq!(
        sha256_hex(&le),
        "4553b7668017d892c6922f0dd3da2b2994700e68dfcbed6acdf50f1f89f1ded9"
    );
    let mut be = vec![0, 0, 0, 0];
    for chunk in le[4..].chunks(8) {
        be.extend(chunk.iter().rev());
    }
    assert_eq!(
        decode(&defs(), &ty("geometry_msgs/msg/Twist"), &be).unwrap(),
        v
    );
}

#[test]
fn laser_scan_matches_the_vector_and_keeps_ranges_as_a_flat_float_vector() {
    let bytes = hex(
        "00 01 00 00 00 f1 53 65 15 cd 5b 07 06 00 00 00 6c 61 73 65 72 00 00 00 00 00 c0 bf
         00 00 c0 3f 00 00 80 3e 00 00 00 00 cd cc cc 3d cd cc cc 3d 00 00 f0 41 0a 00 00 00
         00 00 80 3f 00 00 00 40 00 00 40 40 00 00 80 40 00 00 a0 40 00 00 c0 40 00 00 e0 40
         00 00 00 41 00 00 10 41 00 00 20 41 00 00 00 00",
    );
    let json = format!(
        r#"{{"header":{{"stamp":{STAMP_JSON},"frame_id":"laser"}},"angle_min":-1.5,
        "angle_max":1.5,"angle_increment":0.25,"time_increment":0,"scan_time":0.1,
        "range_min":0.1,"range_max":30,"ranges":[1,2,3,4,5,6,7,8,9,10],"intensities":[]}}"#
    );
    let v = check("sensor_msgs/msg/LaserScan", &json, &bytes);
    assert_eq!(
        sha256_hex(&bytes),
        "6cbecd6e04465315f68024ccaf6aa83dacfc5a89e4af65736c3af23882f74e1e"
    );
    let ranges: Vec<f32> = (1..=10).map(|x| x as f32).collect();
    assert_eq!(v.get_path("ranges"), Some(&Value::F32s(ranges)));
    assert_eq!(v.get_path("scan_time"), Some(&Value::Float(0.1f32 as f64)));
}

#[test]
fn point_cloud2_matches_the_vector() {
    let bytes = hex(
        "00 01 00 00 00 f1 53 65 15 cd 5b 07 04 00 00 00 6d 61 70 00 01 00 00 00 02 00 00 00
         03 00 00 00 02 00 00 00 78 00 00 00 00 00 00 00 07 00 00 00 01 00 00 00 02 00 00 00
         79 00 00 00 04 00 00 00 07 00 00 00 01 00 00 00 02 00 00 00 7a 00 00 00 08 00 00 00
         07 00 00 00 01 00 00 00 00 00 00 00 0c 00 00 00 18 00 00 00 18 00 00 00 00 00 80 3f
         00 00 00 40 00 00 40 40 00 00 80 40 00 00 a0 40 00 00 c0 40 01",
    );
    let data: Vec<u8> = [1f32, 2., 3., 4., 5., 6.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let field =
        |n: &str, o: u32| format!(r#"{{"name":"{n}","offset":{o},"datatype":7,"count":1}}"#);
    let json = format!(
        r#"{{"header":{{"stamp":{STAMP_JSON},"frame_id":"map"}},"height":1,"width":2,
        "fields":[{},{},{}],"is_bigendian":false,"point_step":12,"row_step":24,
        "data":{data:?},"is_dense":true}}"#,
        field("x", 0),
        field("y", 4),
        field("z", 8)
    );
    let v = check("sensor_msgs/msg/PointCloud2", &json, &bytes);
    assert_eq!(bytes.len(), 133);
    assert_eq!(
        sha256_hex(&bytes),
        "569910e09a86be4c69510014c4edbcafc75f9fb9fcf9e1d997396825fb4f19db"
    );
    assert_eq!(
        v.get_path("fields.2.name"),
        Some(&Value::String("z".into()))
    );
}

fn image_value() -> Value {
    let defs = defs();
    let t = ty("sensor_msgs/msg/Image");
    let json = format!(
        r#"{{"header":{{"stamp":{STAMP_JSON},"frame_id":"cam"}},"height":480,"width":640,
        "encoding":"rgb8","is_bigendian":0,"step":1920}}"#
    );
    let mut v = from_json_str(&defs, &t, &json).unwrap();
    let data: Vec<u8> = (0..921_600usize).map(|i| i as u8).collect();
    v.as_struct_mut().unwrap().set("data", data);
    v
}

#[test]
fn image_640x480_matches_the_vector_and_decodes_its_pixels_as_one_byte_vector() {
    let defs = defs();
    let t = ty("sensor_msgs/msg/Image");
    let v = image_value();
    let bytes = encode(&defs, &t, &v).unwrap();
    assert_eq!(bytes.len(), 921_648);
    assert_eq!(
        bytes[..0x30],
        hex(
            "00 01 00 00 00 f1 53 65 15 cd 5b 07 04 00 00 00 63 61 6d 00 e0 01 00 00 80 02 00 00
             05 00 00 00 72 67 62 38 00 00 00 00 80 07 00 00 00 10 0e 00"
        )[..]
    );
    assert_eq!(
        sha256_hex(&bytes),
        "54067ac326c619b51676e5fa0293e6213e7af9609870066d57af55c7a3d65beb"
    );
    let back = decode(&defs, &t, &bytes).unwrap();
    assert!(matches!(back.get_path("data"), Some(Value::Bytes(d)) if d.len() == 921_600));
    assert_eq!(back, v);
}

#[test]
fn imu_is_316_bytes_with_every_float64_eight_aligned() {
    let json = format!(
        r#"{{"header":{{"stamp":{STAMP_JSON},"frame_id":"imu"}},"orientation":{{"w":1}},
        "angular_velocity":{{"x":0.1,"y":0.2,"z":0.3}},"linear_acceleration":{{"z":9.81}}}}"#
    );
    let defs = defs();
    let t = ty("sensor_msgs/msg/Imu");
    let v = from_json_str(&defs, &t, &json).unwrap();
    let bytes = encode(&defs, &t, &v).unwrap();
    assert_eq!(bytes.len(), 316);
    let f64_at =
        |payload: usize| f64::from_le_bytes(bytes[4 + payload..12 + payload].try_into().unwrap());
    assert_eq!(f64_at(16 + 24), 1.0, "orientation.w");
    assert_eq!(f64_at(120), 0.1, "angular_velocity.x");
    assert_eq!(f64_at(216 + 16), 9.81, "linear_acceleration.z");
    assert_eq!(decode(&defs, &t, &bytes).unwrap(), v);
}

const LAYOUT_HEX: &str = "
    00 01 00 00 01 00 00 00 00 00 00 00 fe ff ff ff ff ff ff ff ef be 00 00 04 00 00 00
    61 62 63 00 01 00 00 00 02 00 00 00 03 00 00 00 02 00 00 00 07 00 00 00 08 00 00 00
    02 00 00 00 02 00 00 00 61 00 00 00 03 00 00 00 62 63 00 00 01 00 00 00 00 00 80 3f
    00 00 00 40 00 00 40 40 00 00 00 00 00 00 f8 3f";

const LAYOUT_JSON: &str = r#"{"flag":true,"big":-2,"small":48879,"name":"abc",
    "fixed":[1,2,3],"bounded":[7,8],"names":["a","bc"],"pts":[{"x":1,"y":2,"z":3}],"last":1.5}"#;

#[test]
fn layout_exerciser_matches_the_100_byte_vector() {
    let v = check("test_msgs/msg/Layout", LAYOUT_JSON, &hex(LAYOUT_HEX));
    assert_eq!(v.get_path("big"), Some(&Value::Int(-2)));
    assert_eq!(v.get_path("small"), Some(&Value::UInt(0xBEEF)));
    assert_eq!(v.get_path("fixed"), Some(&Value::I32s(vec![1, 2, 3])));
}

#[test]
fn padding_bytes_are_never_checked_on_decode() {
    let defs = defs();
    let t = ty("test_msgs/msg/Layout");
    let clean = decode(&defs, &t, &hex(LAYOUT_HEX)).unwrap();
    let mut dirty = hex(LAYOUT_HEX);
    dirty[5..12].fill(0x73); // the 7 pad bytes after `flag`
    dirty[22] = 0x73; // after `small`
    assert_eq!(decode(&defs, &t, &dirty).unwrap(), clean);
}

#[test]
fn empty_sequences_add_no_alignment_padding() {
    check(
        "test_msgs/msg/Padding",
        r#"{"a":1,"b":[],"c":2}"#,
        &hex("00 01 00 00 01 00 00 00 00 00 00 00 02"),
    );
    check(
        "test_msgs/msg/Padding",
        r#"{"a":1,"b":[1.0],"c":2}"#,
        &hex("00 01 00 00 01 00 00 00 01 00 00 00 00 00 00 00 00 00 f0 3f 02"),
    );
}

#[test]
fn up_to_three_trailing_bytes_are_accepted_and_four_are_not() {
    let defs = defs();
    let t = ty("std_msgs/msg/String");
    let mut bytes = hex("00 01 00 00 06 00 00 00 68 65 6c 6c 6f 00");
    for _ in 0..3 {
        bytes.push(0);
        assert!(decode(&defs, &t, &bytes).is_ok());
    }
    bytes.push(0);
    let err = decode(&defs, &t, &bytes).unwrap_err();
    assert!(err.to_string().contains("4 bytes follow"), "{err}");
}

#[test]
fn values_built_by_hand_in_loose_shapes_encode_like_canonical_ones() {
    let defs = defs();
    let t = ty("test_msgs/msg/Layout");
    let pt = Struct::new().with("x", 1).with("y", 2u8).with("z", 3.0);
    let loose = Struct::new()
        .with("flag", true)
        .with("big", -2i64)
        .with("small", 0xBEEFi32)
        .with("name", "abc")
        .with("fixed", vec![Value::Int(1), Value::UInt(2), Value::Int(3)])
        .with("bounded", vec![7i32, 8])
        .with("names", vec![Value::from("a"), Value::from("bc")])
        .with("pts", vec![Value::Message(pt)])
        .with("last", 1.5);
    let bytes = encode(&defs, &t, &Value::Message(loose)).unwrap();
    assert_eq!(bytes, hex(LAYOUT_HEX));
}
