//! The rest of bridge.md §5(a)'s encoding items at the wire: E2 (`"now"`),
//! E4 (numeric conversions), E5 (type name spellings), against native
//! hibari nodes (T1 is in `wire_deflate.rs`, M4 in `wire_lichtblick.rs`).
//!
//! Every rejected op must come back as an error `status` naming what was
//! wrong (the client asked for statuses with `set_level`) and must have no
//! effect: the native subscriber, which gets a sentinel message sent after
//! the bad ones on the same connection, sees exactly the good ones.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{wait_until, Fixture, Raw, LONG};
use hibari::msg::builtin_interfaces::msg::{Duration as RosDuration, Time};
use hibari::msg::std_msgs::msg::{
    Bool, Float32, Float64, Header, Int32, Int64, Int8, String as RosString, UInt64, UInt8,
};
use hibari::msg::tf2_msgs::msg::TFMessage;
use hibari::{Message, QosProfile};
use serde_json::{json, Value as Json};

const SHORT: Duration = Duration::from_millis(300);

fn collect<M: Message + Clone + Send + 'static>(
    f: &Fixture,
    topic: &str,
) -> (hibari::Subscription<M>, Arc<Mutex<Vec<M>>>) {
    let got = Arc::new(Mutex::new(Vec::new()));
    let g = got.clone();
    let sub = f
        .node
        .create_subscription(topic, QosProfile::default().keep_all(), move |m: M| {
            g.lock().unwrap().push(m)
        })
        .unwrap();
    (sub, got)
}

/// A connection that asked for error statuses.
fn client(f: &Fixture) -> Raw {
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "set_level", "level": "error"}));
    c
}

/// Sends `op` (with id `id`) and returns the error status it got.
fn rejected(c: &mut Raw, mut op: Json, id: &str) -> String {
    op["id"] = json!(id);
    c.send(op.clone());
    let s = c
        .recv_op("status", LONG)
        .unwrap_or_else(|| panic!("no status for {op}"));
    assert_eq!(
        (s["level"].as_str(), s["id"].as_str()),
        (Some("error"), Some(id)),
        "{s}"
    );
    s["msg"].as_str().unwrap().to_owned()
}

fn data<M: Clone>(v: &Arc<Mutex<Vec<M>>>) -> Vec<M> {
    v.lock().unwrap().clone()
}

fn now_s() -> i32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i32
}

#[test]
fn now_is_a_time_in_messages_headers_and_nested_arrays_but_not_a_duration() {
    let f = Fixture::new();
    let (_t, times) = collect::<Time>(&f, "/e2/time");
    let (_h, headers) = collect::<Header>(&f, "/e2/header");
    let (_x, tfs) = collect::<TFMessage>(&f, "/e2/tf");
    let (_d, durations) = collect::<RosDuration>(&f, "/e2/duration");
    let mut c = client(&f);
    for (topic, ty) in [
        ("/e2/time", "builtin_interfaces/msg/Time"),
        ("/e2/header", "std_msgs/msg/Header"),
        ("/e2/tf", "tf2_msgs/msg/TFMessage"),
        ("/e2/duration", "builtin_interfaces/msg/Duration"),
    ] {
        c.send(json!({"op": "advertise", "topic": topic, "type": ty}));
    }
    let before = now_s();
    c.send(json!({"op": "publish", "topic": "/e2/time", "msg": "now"}));
    c.send(
        json!({"op": "publish", "topic": "/e2/header", "msg": {"stamp": "now", "frame_id": "map"}}),
    );
    c.send(
        json!({"op": "publish", "topic": "/e2/tf", "msg": {"transforms": [
            {"header": {"stamp": "now", "frame_id": "a"}, "child_frame_id": "b"},
            {"header": {"stamp": {"sec": 3, "nanosec": 4}}, "child_frame_id": "c"},
        ]}}),
    );
    let e = rejected(
        &mut c,
        json!({"op": "publish", "topic": "/e2/duration", "msg": "now"}),
        "d",
    );
    assert!(e.contains("/e2/duration"), "{e}");
    let e = rejected(
        &mut c,
        json!({"op": "publish", "topic": "/e2/header", "msg": {"stamp": "later"}}),
        "h",
    );
    assert!(e.contains("stamp"), "the field is named: {e}");
    c.send(json!({"op": "publish", "topic": "/e2/duration", "msg": {"sec": 7}}));
    assert!(wait_until(LONG, || durations.lock().unwrap().len() == 1));
    assert!(wait_until(LONG, || times.lock().unwrap().len() == 1
        && headers.lock().unwrap().len() == 1
        && tfs.lock().unwrap().len() == 1));
    let after = now_s();
    let fresh = |t: &Time| (before..=after).contains(&t.sec);
    assert!(
        fresh(&times.lock().unwrap()[0]),
        "\"now\" as the whole message"
    );
    let h = headers.lock().unwrap()[0].clone();
    assert!(fresh(&h.stamp) && h.frame_id == "map");
    let tf = tfs.lock().unwrap()[0].clone();
    assert!(fresh(&tf.transforms[0].header.stamp), "inside an array");
    assert_eq!(tf.transforms[1].header.stamp, Time { sec: 3, nanosec: 4 });
    assert_eq!(durations.lock().unwrap()[0].sec, 7);
    std::thread::sleep(SHORT);
    assert_eq!(
        headers.lock().unwrap().len(),
        1,
        "the rejected stamp had no effect"
    );
}

#[test]
fn ints_widen_to_floats_but_floats_bools_and_out_of_range_values_are_refused_without_effect() {
    let f = Fixture::new();
    let (_a, i32s) = collect::<Int32>(&f, "/e4/i32");
    let (_b, f64s) = collect::<Float64>(&f, "/e4/f64");
    let (_c, f32s) = collect::<Float32>(&f, "/e4/f32");
    let (_d, bools) = collect::<Bool>(&f, "/e4/bool");
    let (_e, u8s) = collect::<UInt8>(&f, "/e4/u8");
    let (_g, i8s) = collect::<Int8>(&f, "/e4/i8");
    let (_h, i64s) = collect::<Int64>(&f, "/e4/i64");
    let (_i, u64s) = collect::<UInt64>(&f, "/e4/u64");
    let mut c = client(&f);
    for (t, ty) in [
        ("i32", "Int32"),
        ("f64", "Float64"),
        ("f32", "Float32"),
        ("bool", "Bool"),
        ("u8", "UInt8"),
        ("i8", "Int8"),
        ("i64", "Int64"),
        ("u64", "UInt64"),
    ] {
        c.send(json!({"op": "advertise", "topic": format!("/e4/{t}"), "type": format!("std_msgs/{ty}")}));
    }
    // Accepted: ints into floats, the extremes of every range.
    let good = [
        r#"{"op":"publish","topic":"/e4/f64","msg":{"data":3}}"#,
        r#"{"op":"publish","topic":"/e4/f32","msg":{"data":-2}}"#,
        r#"{"op":"publish","topic":"/e4/i32","msg":{"data":-2147483648}}"#,
        r#"{"op":"publish","topic":"/e4/u8","msg":{"data":255}}"#,
        r#"{"op":"publish","topic":"/e4/i8","msg":{"data":-128}}"#,
        r#"{"op":"publish","topic":"/e4/i64","msg":{"data":-9223372036854775808}}"#,
        r#"{"op":"publish","topic":"/e4/u64","msg":{"data":18446744073709551615}}"#,
        r#"{"op":"publish","topic":"/e4/bool","msg":{"data":true}}"#,
    ];
    for text in good {
        c.send_text(text);
    }
    // Refused, each with the reason in words.
    let bad: [(&str, &str, &str); 13] = [
        ("/e4/i32", "1.5", "expected"),
        ("/e4/i32", "2.0", "expected"),
        ("/e4/i32", "true", "expected"),
        ("/e4/i32", "\"7\"", "expected"),
        ("/e4/i32", "2147483648", "does not fit"),
        ("/e4/bool", "1", "expected"),
        ("/e4/bool", "0", "expected"),
        ("/e4/u8", "256", "does not fit"),
        ("/e4/u8", "-1", "does not fit"),
        ("/e4/i8", "-129", "does not fit"),
        ("/e4/u64", "18446744073709551616", "does not fit"),
        ("/e4/i64", "9223372036854775808", "does not fit"),
        ("/e4/f32", "1e39", "does not fit"),
    ];
    for (i, (topic, value, why)) in bad.iter().enumerate() {
        let text = format!(
            r#"{{"op":"publish","id":"bad{i}","topic":"{topic}","msg":{{"data":{value}}}}}"#
        );
        c.send_text(&text);
        let s = c
            .recv_op("status", LONG)
            .unwrap_or_else(|| panic!("no status for {text}"));
        let msg = s["msg"].as_str().unwrap();
        assert_eq!(s["id"], format!("bad{i}"), "{s}");
        assert!(
            msg.contains(why) && msg.contains("data") && msg.contains(*topic),
            "{text}: {msg}"
        );
    }
    let e = rejected(
        &mut c,
        json!({"op": "publish", "topic": "/e4/i32", "msg": {"data": 1, "extra": 2}}),
        "unknown",
    );
    assert!(e.contains("extra") && e.contains("no such field"), "{e}");
    // The sentinel, on the same connection after every bad op.
    c.send(json!({"op": "publish", "topic": "/e4/i32", "msg": {"data": 42}}));
    assert!(wait_until(LONG, || i32s.lock().unwrap().len() == 2));
    std::thread::sleep(SHORT);
    assert_eq!(
        data(&i32s),
        [Int32 { data: i32::MIN }, Int32 { data: 42 }],
        "nothing of the refused ops arrived"
    );
    assert_eq!(data(&f64s), [Float64 { data: 3.0 }]);
    assert_eq!(data(&f32s), [Float32 { data: -2.0 }]);
    assert_eq!(data(&u8s), [UInt8 { data: 255 }]);
    assert_eq!(data(&i8s), [Int8 { data: -128 }]);
    assert_eq!(data(&i64s), [Int64 { data: i64::MIN }]);
    assert_eq!(
        data(&u64s),
        [UInt64 { data: u64::MAX }],
        "exact, not via a double"
    );
    assert_eq!(data(&bools), [Bool { data: true }]);
}

#[test]
fn type_names_take_rosbridges_irregular_slashes_and_refuse_its_bad_names() {
    let f = Fixture::new();
    let (_s, got) = collect::<RosString>(&f, "/e5/in");
    let out = f
        .node
        .create_publisher::<RosString>("/e5/out", QosProfile::default())
        .unwrap();
    let mut c = client(&f);
    // rosbridge's test_irregular_msg_names, and the ROS 2 long form.
    let irregular = [
        "std_msgs/String",
        "std_msgs/msg/String",
        "std_msgs//String",
        "//std_msgs/String",
        "/std_msgs//String",
        "/std_msgs/String",
        "//std_msgs//String",
        "/std_msgs/String/",
        "//std_msgs//String//",
        "std_msgs/String/",
        "std_msgs//String//",
        "/std_msgs/msg/String/",
        "std_msgs//msg//String",
    ];
    for (i, ty) in irregular.iter().enumerate() {
        c.send(json!({"op": "advertise", "id": format!("a{i}"), "topic": "/e5/in", "type": ty}));
        c.send(json!({"op": "publish", "topic": "/e5/in", "msg": {"data": ty}}));
        c.send(json!({"op": "subscribe", "id": format!("s{i}"), "topic": "/e5/out", "type": ty}));
    }
    assert!(wait_until(LONG, || got.lock().unwrap().len() == irregular.len()));
    let data: Vec<String> = got.lock().unwrap().iter().map(|m| m.data.clone()).collect();
    assert_eq!(data, irregular, "every spelling advertised the one type");
    assert!(
        c.recv_op("status", SHORT).is_none(),
        "no spelling was refused"
    );
    assert_eq!(
        f.node.get_topic_names_and_types()["/e5/in"],
        ["std_msgs/msg/String"],
        "the graph has the long form"
    );
    assert!(out.wait_for_subscribers(1, LONG));
    out.publish(RosString { data: "x".into() }).unwrap();
    let m = c.recv_op("publish", LONG).unwrap();
    assert_eq!(
        m,
        json!({"op": "publish", "topic": "/e5/out", "msg": {"data": "x"}})
    );
    assert!(
        c.recv_op("publish", SHORT).is_none(),
        "one subscription for all spellings"
    );

    // rosbridge's test_bad_msg_names, plus forms that name no message.
    let bad = [
        "",
        "/",
        "//",
        "///",
        "bad",
        "stillbad",
        "better/",
        "better//",
        "/better",
        "//better",
        r"this\isbad",
        "\\",
        "std_msgs/String/Extra/Parts",
        "std_msgs/foo/String",
        "std_msgs/srv/String",
        "std_msgs/Nope",
        "nope_msgs/String",
        "std msgs/String",
    ];
    for (i, ty) in bad.iter().enumerate() {
        let topic = format!("/e5/bad{i}");
        let e = rejected(
            &mut c,
            json!({"op": "advertise", "topic": topic, "type": ty}),
            &format!("b{i}"),
        );
        assert!(!e.is_empty(), "{ty}");
        rejected(
            &mut c,
            json!({"op": "subscribe", "topic": topic, "type": ty}),
            &format!("c{i}"),
        );
    }
    let topics = f.node.get_topic_names_and_types();
    assert!(
        !topics.keys().any(|t| t.starts_with("/e5/bad")),
        "no effect: {topics:?}"
    );
}
