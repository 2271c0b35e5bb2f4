//! `hibari interface list|show|proto|encode|decode`, run as the real binary.

mod common;

use std::fs;
use std::path::Path;

use base64::Engine as _;
use common::{hex, hibari, hibari_with_path, run, unhex};
use serde_json::{json, Value};

const IMAGE_HASH: &str = "RIHS01_d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47";

/// std_msgs/msg/String "hello" (interop.md §1.8).
const HELLO_HEX: &str = "000100000600000068656c6c6f00";

/// geometry_msgs/msg/Twist linear=(1,2,3), angular=(0,0,0.5) (interop.md §1.8).
const TWIST_VECTOR: &str = "
0000: 00 01 00 00 00 00 00 00 00 00 f0 3f 00 00 00 00
0010: 00 00 00 40 00 00 00 00 00 00 08 40 00 00 00 00
0020: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
0030: 00 00 e0 3f
";

/// sensor_msgs/msg/LaserScan (interop.md §1.8): frame "laser", stamp
/// 1700000000.123456789, angles -1.5..1.5 by 0.25, scan_time and range_min
/// 0.1, range_max 30, ranges 1..10, no intensities.
const LASER_SCAN_VECTOR: &str = "
0000: 00 01 00 00 00 f1 53 65 15 cd 5b 07 06 00 00 00
0010: 6c 61 73 65 72 00 00 00 00 00 c0 bf 00 00 c0 3f
0020: 00 00 80 3e 00 00 00 00 cd cc cc 3d cd cc cc 3d
0030: 00 00 f0 41 0a 00 00 00 00 00 80 3f 00 00 00 40
0040: 00 00 40 40 00 00 80 40 00 00 a0 40 00 00 c0 40
0050: 00 00 e0 40 00 00 00 41 00 00 10 41 00 00 20 41
0060: 00 00 00 00
";

/// sensor_msgs/msg/PointCloud2 (interop.md §1.8): frame "map", 1x2 points
/// of float32 x/y/z, data [1..6], dense.
const POINT_CLOUD2_VECTOR: &str = "
0000: 00 01 00 00 00 f1 53 65 15 cd 5b 07 04 00 00 00
0010: 6d 61 70 00 01 00 00 00 02 00 00 00 03 00 00 00
0020: 02 00 00 00 78 00 00 00 00 00 00 00 07 00 00 00
0030: 01 00 00 00 02 00 00 00 79 00 00 00 04 00 00 00
0040: 07 00 00 00 01 00 00 00 02 00 00 00 7a 00 00 00
0050: 08 00 00 00 07 00 00 00 01 00 00 00 00 00 00 00
0060: 0c 00 00 00 18 00 00 00 18 00 00 00 00 00 80 3f
0070: 00 00 00 40 00 00 40 40 00 00 80 40 00 00 a0 40
0080: 00 00 c0 40 01
";

/// The bytes of a hex dump laid out as `offset: bytes…` lines.
fn dump_bytes(dump: &str) -> Vec<u8> {
    let body: String = dump
        .lines()
        .filter_map(|line| line.split_once(": ").map(|(_, bytes)| bytes))
        .collect::<Vec<_>>()
        .join(" ");
    unhex(&body)
}

fn list(args: &[&str]) -> Vec<String> {
    let mut all = vec!["interface"];
    all.extend_from_slice(args);
    all.push("list");
    run(&mut hibari(all))
        .success()
        .stdout_text()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn show(args: &[&str]) -> String {
    let mut all = vec!["interface", "show"];
    all.extend_from_slice(args);
    run(&mut hibari(all)).success().stdout_text()
}

fn proto(args: &[&str]) -> Value {
    let mut all = vec!["interface", "proto"];
    all.extend_from_slice(args);
    run(&mut hibari(all)).success().json()
}

fn encode_hex(ty: &str, json: &str) -> String {
    let out = run(&mut hibari(["interface", "encode", ty, json, "--hex"])).success();
    let text = out.stdout_text();
    assert!(text.ends_with('\n'), "hex output ends its line: {text:?}");
    text.trim_end().to_owned()
}

fn decode_bytes(ty: &str, bytes: &[u8]) -> Value {
    run(hibari(["interface", "decode", ty]).write_stdin(bytes))
        .success()
        .json()
}

fn decode_hex(ty: &str, hex_text: &str) -> Value {
    run(hibari(["interface", "decode", ty, "--hex"]).write_stdin(hex_text))
        .success()
        .json()
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A search root holding `my_pkg` with a message and a service.
fn user_packages() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    write(
        &root.path().join("my_pkg/msg/Point.msg"),
        "# A point on a plane, stamped.\nfloat64 x\nfloat64 y\nstd_msgs/Header header\n",
    );
    write(
        &root.path().join("my_pkg/srv/Add.srv"),
        "int64 a\nint64 b\n---\nint64 sum\n",
    );
    root
}

// ---------------------------------------------------------------- list

#[test]
fn list_names_messages_services_and_actions_of_the_bundled_packages() {
    let names = list(&[]);
    for expected in [
        "sensor_msgs/msg/Image",
        "std_srvs/srv/SetBool",
        "tf2_msgs/action/LookupTransform",
        "std_msgs/msg/Header",
        "builtin_interfaces/msg/Time",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} not listed");
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "the list is sorted");
}

#[test]
fn list_leaves_out_the_parts_of_services_and_actions_as_ros2_does() {
    let names = list(&[]);
    for part in [
        "std_srvs/srv/SetBool_Request",
        "std_srvs/srv/SetBool_Response",
        "tf2_msgs/action/LookupTransform_Goal",
        "tf2_msgs/action/LookupTransform_SendGoal",
        "tf2_msgs/action/LookupTransform_GetResult",
    ] {
        assert!(!names.iter().any(|n| n == part), "{part} is listed");
    }
}

#[test]
fn list_json_prints_a_json_array_of_the_same_names() {
    let plain = list(&[]);
    let json = run(&mut hibari(["interface", "list", "--json"]))
        .success()
        .json();
    let array: Vec<String> = json
        .as_array()
        .expect("a JSON array")
        .iter()
        .map(|v| v.as_str().expect("names are strings").to_owned())
        .collect();
    assert_eq!(array, plain);
}

#[test]
fn humble_lacks_service_event_info_and_jazzy_has_it() {
    let event_info = "service_msgs/msg/ServiceEventInfo".to_owned();
    assert!(!list(&["--distro", "humble"]).contains(&event_info));
    assert!(list(&["--distro", "jazzy"]).contains(&event_info));
    assert!(list(&[]).contains(&event_info), "Jazzy is the default");
}

#[test]
fn distro_may_also_be_given_after_the_subcommand() {
    let out = run(&mut hibari(["interface", "list", "--distro", "humble"])).success();
    assert!(!out
        .stdout_text()
        .contains("service_msgs/msg/ServiceEventInfo"));
}

// ---------------------------------------------------------------- show

#[test]
fn show_image_prints_its_fields_with_the_header_expanded_and_indented_by_tabs() {
    let text = show(&["sensor_msgs/msg/Image"]);
    let expected = "\
std_msgs/Header header
\tbuiltin_interfaces/Time stamp
\t\tint32 sec
\t\tuint32 nanosec
\tstring frame_id
uint32 height
uint32 width
string encoding
uint8 is_bigendian
uint32 step
uint8[] data
";
    assert_eq!(text, expected);
}

#[test]
fn show_does_not_print_hibari_provenance_notes_as_if_they_were_ros_comments() {
    for ty in [
        "sensor_msgs/msg/Image",
        "std_srvs/srv/SetBool",
        "tf2_msgs/action/LookupTransform",
        "example_interfaces/action/Fibonacci",
    ] {
        let text = show(&[ty]);
        assert!(
            !text.contains("gen_interfaces.py")
                && !text.contains("Written by hand")
                && !text.contains("vendor_interfaces.sh"),
            "{ty}:\n{text}"
        );
    }
}

#[test]
fn show_prints_constants_as_written() {
    let text = show(&["sensor_msgs/msg/Range"]);
    assert!(
        text.starts_with("uint8 ULTRASOUND=0\nuint8 INFRARED=1\n"),
        "{text}"
    );
}

#[test]
fn show_of_a_service_separates_request_and_response_with_three_dashes() {
    let text = show(&["std_srvs/srv/SetBool"]);
    assert_eq!(text, "bool data\n---\nbool success\nstring message\n");
}

#[test]
fn show_of_an_action_prints_goal_result_and_feedback() {
    let text = show(&["tf2_msgs/action/LookupTransform"]);
    assert_eq!(text.lines().filter(|l| *l == "---").count(), 2, "{text}");
    assert!(text.starts_with("string target_frame\n"), "{text}");
    assert!(
        text.contains("geometry_msgs/TransformStamped transform\n\tstd_msgs/Header header\n"),
        "{text}"
    );
}

#[test]
fn show_accepts_the_short_package_slash_type_form() {
    assert_eq!(
        show(&["sensor_msgs/Image"]),
        show(&["sensor_msgs/msg/Image"])
    );
}

#[test]
fn show_hash_prints_the_rihs01_hash_of_image_on_jazzy() {
    let text = show(&["sensor_msgs/msg/Image", "--hash"]);
    assert_eq!(
        text.lines().last(),
        Some(format!("# {IMAGE_HASH}").as_str())
    );
    let text = show(&["sensor_msgs/msg/Image", "--hash", "--distro", "jazzy"]);
    assert!(text.contains(IMAGE_HASH));
}

#[test]
fn show_hash_of_a_service_on_jazzy_is_a_rihs01_hash() {
    let text = show(&["std_srvs/srv/SetBool", "--hash"]);
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("# RIHS01_") && last.len() == 2 + 71,
        "{last}"
    );
}

#[test]
fn show_hash_on_humble_says_humble_has_no_type_hashes_instead_of_inventing_one() {
    for ty in ["sensor_msgs/msg/Image", "std_srvs/srv/SetBool"] {
        let text = show(&[ty, "--hash", "--distro", "humble"]);
        assert!(!text.contains("RIHS01_"), "{text}");
        assert!(text.contains("Humble"), "{text}");
    }
}

// ---------------------------------------------------------------- proto

#[test]
fn proto_of_quaternion_takes_w_1_from_the_definition_default() {
    assert_eq!(
        proto(&["geometry_msgs/msg/Quaternion"]),
        json!({"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0})
    );
}

#[test]
fn proto_of_range_has_variance_on_jazzy_but_not_on_humble() {
    let humble = proto(&["sensor_msgs/msg/Range", "--distro", "humble"]);
    let jazzy = proto(&["sensor_msgs/msg/Range", "--distro", "jazzy"]);
    assert!(humble.get("variance").is_none(), "{humble}");
    assert_eq!(jazzy["variance"], json!(0.0));
    assert_eq!(humble["range"], json!(0.0));
    assert_eq!(humble["header"]["stamp"], json!({"sec": 0, "nanosec": 0}));
}

#[test]
fn proto_output_encodes_to_the_same_bytes_as_an_empty_object() {
    let proto = proto(&["sensor_msgs/msg/Image"]);
    assert_eq!(
        encode_hex("sensor_msgs/msg/Image", &proto.to_string()),
        encode_hex("sensor_msgs/msg/Image", "{}")
    );
}

// ---------------------------------------------------------------- encode / decode

#[test]
fn encode_hex_of_a_string_message_prints_the_cdr_bytes() {
    assert_eq!(
        encode_hex("std_msgs/msg/String", r#"{"data":"hello"}"#),
        HELLO_HEX
    );
}

#[test]
fn raw_encode_writes_exactly_the_cdr_bytes_to_stdout() {
    let out = run(&mut hibari([
        "interface",
        "encode",
        "std_msgs/msg/String",
        r#"{"data":"hello"}"#,
    ]))
    .success();
    assert_eq!(out.stdout, unhex(HELLO_HEX));
}

#[test]
fn encode_reads_the_json_from_stdin_when_given_a_dash() {
    let out = run(
        hibari(["interface", "encode", "std_msgs/msg/String", "-", "--hex"])
            .write_stdin(r#"{"data": "hello"}"#),
    )
    .success();
    assert_eq!(out.stdout_text().trim_end(), HELLO_HEX);
}

#[test]
fn decode_of_raw_string_bytes_prints_the_json_message() {
    assert_eq!(
        decode_bytes("std_msgs/msg/String", &unhex(HELLO_HEX)),
        json!({"data": "hello"})
    );
}

#[test]
fn decode_hex_of_string_bytes_prints_the_json_message_and_ignores_whitespace() {
    assert_eq!(
        decode_hex(
            "std_msgs/msg/String",
            "00 01 00 00 06000000\n68 65 6c 6c 6f 00\n"
        ),
        json!({"data": "hello"})
    );
}

#[test]
fn decode_reads_big_endian_cdr() {
    assert_eq!(
        decode_hex("std_msgs/msg/String", "00000000 00000006 68656c6c6f00"),
        json!({"data": "hello"})
    );
}

#[test]
fn laser_scan_json_goes_through_encode_and_decode_unchanged() {
    let scan = json!({
        "header": {"stamp": {"sec": 1700000000, "nanosec": 123456789}, "frame_id": "laser"},
        "angle_min": -1.5,
        "angle_max": 1.5,
        "angle_increment": 0.25,
        "time_increment": 0.0,
        "scan_time": 0.5,
        "range_min": 0.25,
        "range_max": 30.0,
        "ranges": [1.0, 2.0, 3.5, 4.0, 5.0],
        "intensities": [100.0, 0.0, 7.0, 8.0, 9.0]
    });
    let hex_text = encode_hex("sensor_msgs/msg/LaserScan", &scan.to_string());
    assert_eq!(decode_hex("sensor_msgs/msg/LaserScan", &hex_text), scan);

    let raw = run(&mut hibari([
        "interface",
        "encode",
        "sensor_msgs/msg/LaserScan",
        &scan.to_string(),
    ]))
    .success()
    .stdout;
    assert_eq!(hex(&raw), hex_text);
    assert_eq!(decode_bytes("sensor_msgs/msg/LaserScan", &raw), scan);
}

#[test]
fn decode_prints_uint8_array_image_data_as_base64() {
    let image = json!({
        "header": {"frame_id": "cam"},
        "height": 1,
        "width": 2,
        "encoding": "rgb8",
        "step": 6,
        "data": [0, 1, 2, 3, 4, 255]
    });
    let bytes = run(&mut hibari([
        "interface",
        "encode",
        "sensor_msgs/msg/Image",
        &image.to_string(),
    ]))
    .success()
    .stdout;
    let back = decode_bytes("sensor_msgs/msg/Image", &bytes);
    assert_eq!(back["data"], json!("AAECAwT/"));
    assert_eq!(back["encoding"], json!("rgb8"));
    assert_eq!(back["header"]["frame_id"], json!("cam"));
}

#[test]
fn base64_image_data_is_accepted_on_encode() {
    let with_array = encode_hex("sensor_msgs/msg/Image", r#"{"data": [0, 1, 2, 3, 4, 255]}"#);
    let with_base64 = encode_hex("sensor_msgs/msg/Image", r#"{"data": "AAECAwT/"}"#);
    assert_eq!(with_array, with_base64);
}

#[test]
fn int64_and_uint64_extremes_are_exact_both_ways() {
    for (ty, value, hex_text) in [
        (
            "std_msgs/msg/Int64",
            "9223372036854775807",
            "00010000ffffffffffffff7f",
        ),
        (
            "std_msgs/msg/Int64",
            "-9223372036854775808",
            "000100000000000000000080",
        ),
        (
            "std_msgs/msg/Int64",
            "9007199254740993",
            "000100000100000000002000",
        ),
        (
            "std_msgs/msg/UInt64",
            "18446744073709551615",
            "00010000ffffffffffffffff",
        ),
    ] {
        let encoded = encode_hex(ty, &format!(r#"{{"data": {value}}}"#));
        assert_eq!(encoded, hex_text, "{ty} {value}");
        let out = run(hibari(["interface", "decode", ty, "--hex"]).write_stdin(hex_text)).success();
        let text = out.stdout_text();
        assert!(
            text.contains(&format!("\"data\": {value}")),
            "{ty} {value} decoded as {text}"
        );
    }
}

#[test]
fn int64_that_does_not_fit_is_refused() {
    run(&mut hibari([
        "interface",
        "encode",
        "std_msgs/msg/Int64",
        r#"{"data": 9223372036854775808}"#,
    ]))
    .failure()
    .stderr_has(&["data"]);
}

#[test]
fn nan_floats_decode_as_null_and_null_encodes_as_nan() {
    assert_eq!(
        decode_hex("std_msgs/msg/Float32", "00010000 0000c07f"),
        json!({"data": null})
    );
    assert_eq!(
        decode_hex("std_msgs/msg/Float64", "00010000 000000000000f87f"),
        json!({"data": null})
    );
    assert_eq!(
        decode_hex("std_msgs/msg/Float64", "00010000 000000000000f07f"),
        json!({"data": null}),
        "+Infinity is null too"
    );
    let nan = encode_hex("std_msgs/msg/Float64", r#"{"data": null}"#);
    let value = f64::from_le_bytes(unhex(&nan)[4..12].try_into().unwrap());
    assert!(value.is_nan(), "{nan}");
}

#[test]
fn missing_fields_take_their_defaults_on_encode() {
    assert_eq!(
        encode_hex("std_msgs/msg/String", "{}"),
        "000100000100000000"
    );
    let quaternion = encode_hex("geometry_msgs/msg/Quaternion", "{}");
    let w = f64::from_le_bytes(unhex(&quaternion)[28..36].try_into().unwrap());
    assert_eq!(w, 1.0);
}

#[test]
fn service_parts_encode_and_decode_as_messages() {
    let hex_text = encode_hex("std_srvs/srv/SetBool_Request", r#"{"data": true}"#);
    assert_eq!(hex_text, "0001000001");
    assert_eq!(
        decode_hex(
            "std_srvs/srv/SetBool_Response",
            "00010000 01000000 03000000 6f6b00"
        ),
        json!({"success": true, "message": "ok"})
    );
}

// ---------------------------------------------------------------- interop.md vectors

#[test]
fn interop_twist_vector_decodes_to_its_values_and_encodes_back_identically() {
    let bytes = dump_bytes(TWIST_VECTOR);
    assert_eq!(bytes.len(), 52);
    let value = decode_hex("geometry_msgs/msg/Twist", &hex(&bytes));
    assert_eq!(
        value,
        json!({
            "linear": {"x": 1.0, "y": 2.0, "z": 3.0},
            "angular": {"x": 0.0, "y": 0.0, "z": 0.5}
        })
    );
    assert_eq!(
        encode_hex("geometry_msgs/msg/Twist", &value.to_string()),
        hex(&bytes)
    );
}

#[test]
fn interop_laser_scan_vector_decodes_to_its_values_and_encodes_back_identically() {
    let bytes = dump_bytes(LASER_SCAN_VECTOR);
    assert_eq!(bytes.len(), 100);
    let value = decode_bytes("sensor_msgs/msg/LaserScan", &bytes);
    let tenth = f64::from(0.1f32);
    assert_eq!(
        value,
        json!({
            "header": {"stamp": {"sec": 1700000000, "nanosec": 123456789}, "frame_id": "laser"},
            "angle_min": -1.5,
            "angle_max": 1.5,
            "angle_increment": 0.25,
            "time_increment": 0.0,
            "scan_time": tenth,
            "range_min": tenth,
            "range_max": 30.0,
            "ranges": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
            "intensities": []
        })
    );
    assert_eq!(
        encode_hex("sensor_msgs/msg/LaserScan", &value.to_string()),
        hex(&bytes)
    );
}

#[test]
fn interop_point_cloud2_vector_decodes_with_base64_data_and_encodes_back_identically() {
    let bytes = dump_bytes(POINT_CLOUD2_VECTOR);
    assert_eq!(bytes.len(), 133);
    let value = decode_hex("sensor_msgs/msg/PointCloud2", &hex(&bytes));
    let points: Vec<u8> = (1..=6).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let field = |name: &str, offset: u32| json!({"name": name, "offset": offset, "datatype": 7, "count": 1});
    assert_eq!(
        value,
        json!({
            "header": {"stamp": {"sec": 1700000000, "nanosec": 123456789}, "frame_id": "map"},
            "height": 1,
            "width": 2,
            "fields": [field("x", 0), field("y", 4), field("z", 8)],
            "is_bigendian": false,
            "point_step": 12,
            "row_step": 24,
            "data": base64::engine::general_purpose::STANDARD.encode(points),
            "is_dense": true
        })
    );
    assert_eq!(
        encode_hex("sensor_msgs/msg/PointCloud2", &value.to_string()),
        hex(&bytes)
    );
}

// ---------------------------------------------------------------- user packages

#[test]
fn user_packages_from_hibari_interface_path_are_listed() {
    let root = user_packages();
    let out = run(&mut hibari_with_path(root.path(), ["interface", "list"])).success();
    let text = out.stdout_text();
    let names: Vec<&str> = text.lines().collect();
    assert!(names.contains(&"my_pkg/msg/Point"));
    assert!(names.contains(&"my_pkg/srv/Add"));
    assert!(
        names.contains(&"sensor_msgs/msg/Image"),
        "bundled types stay"
    );
}

#[test]
fn user_message_shows_with_its_comment_and_the_header_expanded() {
    let root = user_packages();
    let out = run(&mut hibari_with_path(
        root.path(),
        ["interface", "show", "my_pkg/msg/Point"],
    ))
    .success();
    assert_eq!(
        out.stdout_text(),
        "# A point on a plane, stamped.\nfloat64 x\nfloat64 y\nstd_msgs/Header header\n\
         \tbuiltin_interfaces/Time stamp\n\t\tint32 sec\n\t\tuint32 nanosec\n\tstring frame_id\n"
    );
}

#[test]
fn user_service_shows_request_and_response() {
    let root = user_packages();
    let out = run(&mut hibari_with_path(
        root.path(),
        ["interface", "show", "my_pkg/srv/Add"],
    ))
    .success();
    assert_eq!(out.stdout_text(), "int64 a\nint64 b\n---\nint64 sum\n");
}

#[test]
fn user_message_encodes_and_decodes() {
    let root = user_packages();
    let point = json!({
        "x": 1.5,
        "y": -2.0,
        "header": {"stamp": {"sec": 7, "nanosec": 8}, "frame_id": "map"}
    });
    let out = run(&mut hibari_with_path(
        root.path(),
        [
            "interface",
            "encode",
            "my_pkg/msg/Point",
            &point.to_string(),
            "--hex",
        ],
    ))
    .success();
    let hex_text = out.stdout_text().trim_end().to_owned();
    // x and y (8 + 8 bytes), then sec, nanosec and "map\0" with its length.
    assert_eq!(
        hex_text,
        "00010000000000000000f83f00000000000000c0070000000800000004000000 6d617000"
            .replace(' ', "")
    );
    let back = run(hibari_with_path(
        root.path(),
        ["interface", "decode", "my_pkg/msg/Point", "--hex"],
    )
    .write_stdin(hex_text))
    .success()
    .json();
    assert_eq!(back, point);
}

#[test]
fn user_service_request_encodes_and_decodes() {
    let root = user_packages();
    let out = run(&mut hibari_with_path(
        root.path(),
        [
            "interface",
            "encode",
            "my_pkg/srv/Add_Request",
            r#"{"a": 2, "b": -3}"#,
        ],
    ))
    .success();
    assert_eq!(hex(&out.stdout), "000100000200000000000000fdffffffffffffff");
    let back = run(hibari_with_path(
        root.path(),
        ["interface", "decode", "my_pkg/srv/Add_Request"],
    )
    .write_stdin(out.stdout))
    .success()
    .json();
    assert_eq!(back, json!({"a": 2, "b": -3}));
}

#[test]
fn user_types_are_unknown_without_hibari_interface_path() {
    run(&mut hibari(["interface", "show", "my_pkg/msg/Point"]))
        .failure()
        .stderr_has(&["my_pkg/msg/Point", "hibari interface list"]);
}

#[test]
fn malformed_user_message_is_reported_with_file_line_and_column() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("bad_pkg/msg/Bad.msg");
    write(&file, "int32 x\nfloat64 9bad\n");
    for args in [
        vec!["interface", "list"],
        vec!["interface", "show", "std_msgs/msg/String"],
    ] {
        run(&mut hibari_with_path(root.path(), args))
            .failure()
            .stderr_has(&[&format!("{}:2:9", file.display()), "9bad"]);
    }
}

#[test]
fn malformed_user_service_is_reported_with_file_line_and_column() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("bad_pkg/srv/Bad.srv");
    write(&file, "int32 a\n---\nint32 b\n---\nint32 c\n");
    run(&mut hibari_with_path(root.path(), ["interface", "list"]))
        .failure()
        .stderr_has(&[&format!("{}:4:1", file.display()), "---"]);
}

#[test]
fn user_message_with_an_unknown_nested_type_names_the_type_and_field() {
    let root = tempfile::tempdir().unwrap();
    write(
        &root.path().join("bad_pkg/msg/Bad.msg"),
        "int32 x\nNoSuch y\n",
    );
    run(&mut hibari_with_path(root.path(), ["interface", "list"]))
        .failure()
        .stderr_has(&["bad_pkg/msg/Bad", "bad_pkg/msg/NoSuch", "`y`"]);
}

#[test]
fn missing_search_root_is_an_error_that_names_it_once() {
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("nowhere");
    let out = run(&mut hibari_with_path(&missing, ["interface", "list"]))
        .failure()
        .stderr_has(&["HIBARI_INTERFACE_PATH", &missing.display().to_string()]);
    assert_eq!(
        out.stderr.matches("os error 2").count(),
        1,
        "the cause is printed once:\n{}",
        out.stderr
    );
}

// ---------------------------------------------------------------- bad input

#[test]
fn unknown_type_fails_with_a_pointer_to_interface_list() {
    for args in [
        vec!["interface", "show", "nope_msgs/msg/Nope"],
        vec!["interface", "proto", "nope_msgs/msg/Nope"],
        vec!["interface", "encode", "nope_msgs/msg/Nope", "{}"],
        vec!["interface", "show", "not-a-type-name"],
    ] {
        run(&mut hibari(args))
            .failure()
            .stderr_has(&["hibari interface list"]);
    }
    run(hibari(["interface", "decode", "nope_msgs/msg/Nope"]).write_stdin(HELLO_HEX))
        .failure()
        .stderr_has(&["nope_msgs/msg/Nope", "hibari interface list"]);
}

#[test]
fn encoding_a_service_or_action_names_the_parts_to_use_instead() {
    run(&mut hibari(["interface", "proto", "std_srvs/srv/SetBool"]))
        .failure()
        .stderr_has(&["is a service", "std_srvs/srv/SetBool_Request"]);
    run(hibari(["interface", "decode", "tf2_msgs/action/LookupTransform"]).write_stdin(HELLO_HEX))
        .failure()
        .stderr_has(&["is an action", "tf2_msgs/action/LookupTransform_Goal"]);
}

#[test]
fn invalid_json_is_reported_as_such() {
    run(&mut hibari([
        "interface",
        "encode",
        "std_msgs/msg/String",
        r#"{"data": "unterminated"#,
    ]))
    .failure()
    .stderr_has(&["not valid JSON"]);
}

#[test]
fn a_string_for_an_integer_field_names_the_field_path() {
    run(&mut hibari([
        "interface",
        "encode",
        "sensor_msgs/msg/Image",
        r#"{"header": {"stamp": {"sec": "soon"}}}"#,
    ]))
    .failure()
    .stderr_has(&["header.stamp.sec", "expected integer", "string"]);
}

#[test]
fn an_unknown_field_is_named() {
    run(&mut hibari([
        "interface",
        "encode",
        "std_msgs/msg/String",
        r#"{"dta": "typo"}"#,
    ]))
    .failure()
    .stderr_has(&["dta", "no such field"]);
}

#[test]
fn an_out_of_range_integer_names_the_field_and_type() {
    run(&mut hibari([
        "interface",
        "encode",
        "sensor_msgs/msg/Image",
        r#"{"is_bigendian": 256}"#,
    ]))
    .failure()
    .stderr_has(&["is_bigendian", "uint8"]);
}

#[test]
fn truncated_cdr_is_an_error_naming_the_field_not_a_panic() {
    let bytes = unhex(HELLO_HEX);
    for cut in [1, 4, 7, 10, 13] {
        run(hibari(["interface", "decode", "std_msgs/msg/String"]).write_stdin(&bytes[..cut]))
            .failure();
    }
    let out = run(hibari(["interface", "decode", "std_msgs/msg/String"]).write_stdin(&bytes[..11]))
        .failure()
        .stderr_has(&["data"]);
    // The cause is printed once, not repeated after its summary.
    let first_line = out.stderr.lines().next().unwrap();
    assert_eq!(first_line.matches("bytes left").count(), 1, "{first_line}");
    let scan = dump_bytes(LASER_SCAN_VECTOR);
    for cut in (0..scan.len() - 4).step_by(7) {
        run(hibari(["interface", "decode", "sensor_msgs/msg/LaserScan"]).write_stdin(&scan[..cut]))
            .failure();
    }
}

#[test]
fn a_huge_sequence_count_is_an_error_not_an_allocation() {
    // Stamp, an empty frame_id and seven float32 zeros, then `ranges`
    // claiming 4294967295 elements with none following.
    let hex_text = format!(
        "00010000 {stamp} 01000000 00000000 {floats} ffffffff",
        stamp = "00".repeat(8),
        floats = "00".repeat(28)
    );
    run(
        hibari(["interface", "decode", "sensor_msgs/msg/LaserScan", "--hex"]).write_stdin(hex_text),
    )
    .failure()
    .stderr_has(&["ranges"]);
}

#[test]
fn more_than_three_trailing_bytes_are_refused() {
    run(
        hibari(["interface", "decode", "std_msgs/msg/String", "--hex"])
            .write_stdin(format!("{HELLO_HEX}00000000")),
    )
    .failure()
    .stderr_has(&["follow the end"]);
    assert_eq!(
        decode_hex("std_msgs/msg/String", &format!("{HELLO_HEX}0000")),
        json!({"data": "hello"}),
        "up to 3 padding bytes are fine"
    );
}

#[test]
fn odd_length_hex_is_refused() {
    run(hibari(["interface", "decode", "std_msgs/msg/String", "--hex"]).write_stdin("0001000"))
        .failure()
        .stderr_has(&["odd number of digits"]);
}

#[test]
fn non_hex_digits_are_refused() {
    run(hibari(["interface", "decode", "std_msgs/msg/String", "--hex"]).write_stdin("0001zz00"))
        .failure()
        .stderr_has(&["zz"]);
}

#[test]
fn empty_stdin_on_decode_is_reported_as_no_input() {
    for hex_flag in [false, true] {
        let mut args = vec!["interface", "decode", "std_msgs/msg/String"];
        if hex_flag {
            args.push("--hex");
        }
        run(hibari(args).write_stdin(""))
            .failure()
            .stderr_has(&["no input"]);
    }
    run(hibari(["interface", "decode", "std_msgs/msg/String", "--hex"]).write_stdin(" \n"))
        .failure()
        .stderr_has(&["no input"]);
}

#[test]
fn empty_stdin_on_encode_dash_is_invalid_json() {
    run(hibari(["interface", "encode", "std_msgs/msg/String", "-"]).write_stdin(""))
        .failure()
        .stderr_has(&["not valid JSON"]);
}

#[test]
fn bad_bytes_in_cdr_are_errors() {
    for (ty, hex_text, says) in [
        ("std_msgs/msg/Bool", "0001000002", "bool"),
        ("std_msgs/msg/String", "000100000300000080ff00", "UTF-8"),
        ("std_msgs/msg/Bool", "0007000001", "encapsulation"),
    ] {
        run(hibari(["interface", "decode", ty, "--hex"]).write_stdin(hex_text))
            .failure()
            .stderr_has(&[says]);
    }
}

#[test]
fn an_unknown_distro_is_a_usage_error_listing_the_choices() {
    for args in [
        vec!["interface", "--distro", "bogus", "list"],
        vec![
            "interface",
            "show",
            "std_msgs/msg/String",
            "--distro",
            "bogus",
        ],
    ] {
        let out = run(&mut hibari(args));
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        assert!(out.stdout.is_empty());
        assert!(
            out.stderr.contains("bogus")
                && out.stderr.contains("humble")
                && out.stderr.contains("jazzy"),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn output_cut_short_by_the_reader_is_not_an_error() {
    // `hibari … | head -c 10`: stdout closes early; no "Broken pipe" error.
    use std::io::Read as _;
    use std::process::{Command, Stdio};
    let big = json!({"data": base64::engine::general_purpose::STANDARD.encode(vec![7u8; 1 << 20])});
    let mut child = Command::new(env!("CARGO_BIN_EXE_hibari"))
        .args(["interface", "encode", "sensor_msgs/msg/Image", "-", "--hex"])
        .env_remove("HIBARI_INTERFACE_PATH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(big.to_string().as_bytes()).unwrap();
    }
    let mut head = [0u8; 10];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(&head, b"0001000000");
    assert!(status.success(), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
