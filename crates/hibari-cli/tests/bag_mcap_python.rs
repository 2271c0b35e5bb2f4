//! `hibari bag record` read back by the `mcap` Python package with
//! `mcap-ros2-support` (`make_reader`, `DecoderFactory`,
//! `iter_decoded_messages`): every message a test publishes is there, its
//! fields as published and its CDR byte for byte. The packages are in the
//! repository's `.venv` (scripts/setup.sh installs them).
//!
//! The test holds a domain and a temporary directory of its own; every
//! wait is bounded by `HANG`, which only a hang reaches.

mod common;

use common::bag::{python, signal_and_wait, spawn_recorder, wait_line, wait_recorded};
use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::sensor_msgs::msg::{Image, LaserScan};
use hibari::msg::std_msgs::msg::{Header, String as RosString};
use hibari::{Context, Message, QosProfile};
use hibari_testkit::{tempdir, unique_topic, TestDomain, HANG};
use serde_json::Value;

/// Reads an MCAP file with the `mcap` package and `mcap_ros2`'s decoders:
/// each message's topic, schema, raw CDR (hex) and decoded fields.
const READ_MCAP: &str = r#"
import array, json, sys
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
def plain(v):
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, (list, tuple, array.array)):
        return [plain(x) for x in v]
    if hasattr(v, "__slots__"):
        return {k: plain(getattr(v, k)) for k in v.__slots__}
    if hasattr(v, "tolist"):
        return plain(v.tolist())
    return v
out = []
with open(sys.argv[1], "rb") as f:
    reader = make_reader(f, validate_crcs=True, decoder_factories=[DecoderFactory()])
    for schema, channel, message, decoded in reader.iter_decoded_messages():
        out.append({"topic": channel.topic, "schema": schema.name,
                    "schema_encoding": schema.encoding, "encoding": channel.message_encoding,
                    "hex": message.data.hex(), "msg": plain(decoded)})
print(json.dumps(out))
"#;

fn stamp(i: u32) -> Header {
    Header {
        stamp: Time {
            sec: 1_700_000_000 + i as i32,
            nanosec: 250_000_000 * (i % 4),
        },
        frame_id: format!("frame_{i}"),
    }
}

/// Odd images are 92,160 bytes: more than one piece of the MCAP writer's
/// piece buffer (64 KiB), which a sample in shared memory is copied through.
fn image(i: u32) -> Image {
    let (width, height) = (32, if i % 2 == 1 { 960 } else { 24 });
    Image {
        header: stamp(i),
        height,
        width,
        encoding: "rgb8".into(),
        is_bigendian: 0,
        step: width * 3,
        data: (0..width * height * 3).map(|b| (b + i) as u8).collect(),
    }
}

fn scan(i: u32) -> LaserScan {
    LaserScan {
        header: stamp(i),
        angle_min: -1.5,
        angle_max: 1.5,
        angle_increment: 0.75,
        time_increment: 0.0,
        scan_time: 0.125,
        range_min: 0.25,
        range_max: 10.0,
        ranges: (0..5).map(|r| r as f32 * 0.5 + i as f32).collect(),
        intensities: vec![i as f32; 5],
    }
}

#[test]
fn the_mcap_python_package_reads_back_every_recorded_message_byte_for_byte() {
    recorded_and_read_back(&[]);
}

/// Without chunks, CRCs or message indexes: messages stand alone in the file.
#[test]
fn a_fastwrite_bag_reads_back_the_same() {
    recorded_and_read_back(&["--storage-preset", "fastwrite"]);
}

/// zstd chunks, at the level that makes the smallest files.
#[test]
fn a_zstd_small_bag_reads_back_the_same() {
    recorded_and_read_back(&["--storage-preset-profile", "zstd_small"]);
}

fn recorded_and_read_back(preset: &[&str]) {
    const N: u32 = 6;
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let out = dir.path().join("bag");
    let topics = [
        unique_topic("py_chatter"),
        unique_topic("py_image"),
        unique_topic("py_scan"),
    ];
    let context = Context::with_domain(domain.id());
    let node = context.create_node("talker").unwrap();
    let qos = QosProfile::default().keep_last(100);
    let strings = node.create_publisher::<RosString>(&topics[0], qos).unwrap();
    let images = node.create_publisher::<Image>(&topics[1], qos).unwrap();
    let scans = node.create_publisher::<LaserScan>(&topics[2], qos).unwrap();

    let stderr = dir.path().join("record.err");
    let args = [
        topics[0].as_str(),
        &topics[1],
        &topics[2],
        "-o",
        out.to_str().unwrap(),
    ];
    let mut recorder = spawn_recorder(&domain, &[&args[..], preset].concat(), &stderr);
    for _ in 0..3 {
        wait_line(&recorder, "Subscribed to topic");
    }
    assert!(strings.wait_for_subscribers(1, HANG));
    assert!(images.wait_for_subscribers(1, HANG));
    assert!(scans.wait_for_subscribers(1, HANG));
    // What each topic's messages are as CDR, in publishing order.
    let mut sent: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..N {
        let s = RosString {
            data: format!("hello mcap {i}"),
        };
        sent.push((topics[0].clone(), s.to_cdr().unwrap()));
        strings.publish(s).unwrap();
        sent.push((topics[1].clone(), image(i).to_cdr().unwrap()));
        images.publish(image(i)).unwrap();
        sent.push((topics[2].clone(), scan(i).to_cdr().unwrap()));
        scans.publish(scan(i)).unwrap();
    }
    let file = out.join("bag_0.mcap");
    let f = file.to_str().unwrap();
    wait_recorded(&domain, &file, 3 * N as u64);
    assert_eq!(signal_and_wait(&mut recorder, "INT").code(), Some(0));

    let read: Value = serde_json::from_str(&python(READ_MCAP, &[f])).unwrap();
    let read = read.as_array().unwrap();
    assert_eq!(read.len(), 3 * N as usize, "{read:?}");
    for (topic, schema) in topics.iter().zip([
        "std_msgs/msg/String",
        "sensor_msgs/msg/Image",
        "sensor_msgs/msg/LaserScan",
    ]) {
        let got: Vec<&Value> = read.iter().filter(|m| m["topic"] == **topic).collect();
        let want: Vec<String> = sent
            .iter()
            .filter(|(t, _)| t == topic)
            .map(|(_, cdr)| common::hex(cdr))
            .collect();
        assert_eq!(got.len(), N as usize, "{topic}");
        for (i, (m, hex)) in got.iter().zip(&want).enumerate() {
            assert_eq!(m["schema"], schema, "{topic} #{i}");
            assert_eq!(m["schema_encoding"], "ros2msg");
            assert_eq!(m["encoding"], "cdr");
            assert_eq!(m["hex"].as_str().unwrap(), hex, "{topic} #{i}: raw CDR");
        }
    }
    // The decoded fields are what was published.
    let decoded = |topic: &str| -> Vec<Value> {
        let msgs = read.iter().filter(|m| m["topic"] == topic);
        msgs.map(|m| m["msg"].clone()).collect()
    };
    for (i, m) in decoded(&topics[0]).iter().enumerate() {
        assert_eq!(m["data"], format!("hello mcap {i}"));
    }
    for (i, m) in (0..N).zip(decoded(&topics[1])) {
        let want = image(i);
        assert_eq!(m["header"]["frame_id"], want.header.frame_id);
        assert_eq!(m["header"]["stamp"]["sec"], want.header.stamp.sec);
        assert_eq!(m["header"]["stamp"]["nanosec"], want.header.stamp.nanosec);
        assert_eq!(
            (m["width"].clone(), m["height"].clone()),
            (want.width.into(), want.height.into())
        );
        assert_eq!(
            (m["encoding"].as_str(), m["step"].as_u64()),
            (Some("rgb8"), Some(96))
        );
        assert_eq!(m["data"].as_str().unwrap(), common::hex(&want.data));
    }
    for (i, m) in (0..N).zip(decoded(&topics[2])) {
        let want = scan(i);
        let floats = |v: &Value| -> Vec<f64> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        let wide = |v: &[f32]| -> Vec<f64> { v.iter().map(|x| f64::from(*x)).collect() };
        assert_eq!(floats(&m["ranges"]), wide(&want.ranges));
        assert_eq!(floats(&m["intensities"]), wide(&want.intensities));
        assert_eq!(m["angle_increment"], 0.75);
        assert_eq!(m["header"]["frame_id"], want.header.frame_id);
    }
}
