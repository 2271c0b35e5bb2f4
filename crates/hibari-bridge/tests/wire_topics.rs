//! rosbridge topics at the wire (bridge.md §5(a) T1–T4, P1–P3, S1–S4, E1–E8,
//! E10), against native hibari nodes, with a plain WebSocket or TCP client.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{wait_until, Fixture, Raw, LONG};
use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::std_msgs::msg::{Header, Int64, String as RosString, UInt8MultiArray};
use hibari::{Durability, History, Message, QosProfile, Reliability};
use serde_json::{json, Value as Json};
use tungstenite::Message as WsMessage;

const SHORT: Duration = Duration::from_millis(300);

fn collect<M: Message + Clone + Send + 'static>(
    f: &Fixture,
    topic: &str,
    qos: QosProfile,
) -> (hibari::Subscription<M>, Arc<Mutex<Vec<M>>>) {
    let got = Arc::new(Mutex::new(Vec::new()));
    let g = got.clone();
    let sub = f
        .node
        .create_subscription(topic, qos, move |m: M| g.lock().unwrap().push(m))
        .unwrap();
    (sub, got)
}

#[test]
fn one_publish_per_message_in_rosbridges_exact_shape_however_many_sids() {
    let f = Fixture::new();
    let publisher = f
        .node
        .create_publisher::<RosString>("/chatter", QosProfile::default())
        .unwrap();
    let mut c = Raw::connect(&f.url());
    c.send(
        json!({"op": "subscribe", "id": "a", "topic": "/chatter", "type": "std_msgs/msg/String"}),
    );
    c.send(json!({"op": "subscribe", "id": "b", "topic": "/chatter", "compression": "none", "throttle_rate": 0, "queue_length": 0}));
    assert!(publisher.wait_for_subscribers(1, LONG));
    publisher.publish(RosString { data: "x".into() }).unwrap();
    let m = c.recv_op("publish", LONG).expect("a publish");
    assert_eq!(
        m,
        json!({"op": "publish", "topic": "/chatter", "msg": {"data": "x"}})
    );
    assert!(c.recv(SHORT).is_none(), "exactly one publish for two sids");

    c.send(json!({"op": "unsubscribe", "id": "a", "topic": "/chatter"}));
    std::thread::sleep(Duration::from_millis(50));
    publisher.publish(RosString { data: "y".into() }).unwrap();
    assert_eq!(c.recv_op("publish", LONG).unwrap()["msg"]["data"], "y");
    c.send(json!({"op": "unsubscribe", "id": "b", "topic": "/chatter"}));
    assert!(wait_until(LONG, || f.bridge.stats().subscribed_topics == 0));
    publisher.publish(RosString { data: "z".into() }).unwrap();
    assert!(c.recv(SHORT).is_none(), "nothing after the last sid left");
}

#[test]
fn json_in_binary_frames_and_several_objects_in_one_frame_are_read() {
    let f = Fixture::new();
    let (_sub, got) = collect::<RosString>(&f, "/bin", QosProfile::default());
    let mut c = Raw::connect(&f.url());
    let two = r#"{"op":"advertise","topic":"/bin","type":"std_msgs/String"} {"op":"publish","topic":"/bin","msg":{"data":"one"}}"#;
    c.ws.send(WsMessage::binary(two.as_bytes().to_vec()))
        .unwrap();
    c.send_text(r#"{"op":"publish","topic":"/bin","msg":{"data":"two"}}{"op":"publish","topic":"/bin","msg":{"data":"three"}}"#);
    assert!(wait_until(LONG, || got.lock().unwrap().len() == 3));
    let data: Vec<String> = got.lock().unwrap().iter().map(|m| m.data.clone()).collect();
    assert_eq!(data, ["one", "two", "three"]);
}

#[test]
fn tcp_reads_objects_split_anywhere_even_inside_a_utf8_character_and_writes_them_back_to_back() {
    let f = Fixture::new();
    let (_sub, got) = collect::<RosString>(&f, "/tcp_in", QosProfile::default().keep_all());
    let out = f
        .node
        .create_publisher::<RosString>("/tcp_out", QosProfile::default())
        .unwrap();
    let mut tcp = std::net::TcpStream::connect(f.bridge.tcp_addr().unwrap()).unwrap();
    let mut stream =
        String::from(r#"{"op":"advertise","topic":"/tcp_in","type":"std_msgs/msg/String"}"#);
    stream.push_str("\n  \t");
    for i in 0..300 {
        stream.push_str(
            &json!({"op": "publish", "topic": "/tcp_in", "msg": {"data": format!("héllo ✓ {i}")}})
                .to_string(),
        );
        if i % 3 == 0 {
            stream.push(' ');
        }
    }
    stream.push_str(r#"{"op":"subscribe","topic":"/tcp_out","type":"std_msgs/msg/String"}"#);
    // 7-byte chunks: boundaries fall inside "é" and "✓" again and again.
    for chunk in stream.as_bytes().chunks(7) {
        tcp.write_all(chunk).unwrap();
    }
    assert!(wait_until(LONG, || got.lock().unwrap().len() == 300));
    for (i, m) in got.lock().unwrap().iter().enumerate() {
        assert_eq!(m.data, format!("héllo ✓ {i}"));
    }
    assert!(out.wait_for_subscribers(1, LONG));
    out.publish(RosString { data: "a".into() }).unwrap();
    out.publish(RosString { data: "ü".into() }).unwrap();
    tcp.set_read_timeout(Some(LONG)).unwrap();
    let mut reader = serde_json::Deserializer::from_reader(&tcp).into_iter::<Json>();
    let first = reader.next().unwrap().unwrap();
    let second = reader.next().unwrap().unwrap();
    assert_eq!(
        first,
        json!({"op": "publish", "topic": "/tcp_out", "msg": {"data": "a"}})
    );
    assert_eq!(second["msg"]["data"], "ü");
}

#[test]
fn subscribe_infers_the_type_and_refuses_an_unknown_topic_or_a_conflict() {
    let f = Fixture::new();
    let _p = f
        .node
        .create_publisher::<Int64>("/typed", QosProfile::default())
        .unwrap();
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "set_level", "level": "error"}));
    c.send(json!({"op": "subscribe", "id": "s1", "topic": "/typed"}));
    c.send(json!({"op": "subscribe", "id": "s2", "topic": "/nobody"}));
    let e = c.recv_op("status", LONG).expect("an error for /nobody");
    assert_eq!(e["id"], "s2");
    assert!(
        e["msg"].as_str().unwrap().contains("cannot infer the type"),
        "{e}"
    );
    c.send(json!({"op": "subscribe", "id": "s3", "topic": "/typed", "type": "std_msgs/String"}));
    let e = c
        .recv_op("status", LONG)
        .expect("an error for the conflict");
    assert!(e["msg"].as_str().unwrap().contains("type conflict"), "{e}");
    assert_eq!(f.bridge.stats().subscribed_topics, 1);
}

#[test]
fn advertise_gives_rosbridges_qos_shares_one_publisher_and_outlives_its_clients_briefly() {
    let f = Fixture::new();
    let mut a = Raw::connect(&f.url());
    let mut b = Raw::connect(&f.url());
    a.send(json!({"op": "advertise", "id": "x", "topic": "/qos", "type": "std_msgs/msg/String", "latch": false, "queue_size": 7}));
    a.send(
        json!({"op": "advertise", "topic": "/latched", "type": "std_msgs/String", "latch": true}),
    );
    let publishers = |t: &str| f.node.get_publishers_info_by_topic(t).unwrap();
    assert!(wait_until(LONG, || publishers("/qos").len() == 1
        && publishers("/latched").len() == 1));
    b.send(json!({"op": "advertise", "id": "y", "topic": "/qos", "type": "std_msgs/String"}));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(publishers("/qos").len(), 1, "one shared publisher");
    let q = publishers("/qos")[0].qos;
    assert_eq!(
        (q.reliability, q.durability, q.history, q.lifespan),
        (
            Reliability::Reliable,
            Durability::TransientLocal,
            History::KeepLast(7),
            Some(Duration::from_secs(1))
        )
    );
    let l = publishers("/latched")[0].qos;
    assert_eq!(
        (l.durability, l.history, l.lifespan),
        (Durability::TransientLocal, History::KeepLast(1), None)
    );

    b.send(json!({"op": "set_level", "level": "error"}));
    b.send(json!({"op": "advertise", "id": "z", "topic": "/qos", "type": "std_msgs/msg/Int32"}));
    let e = b.recv_op("status", LONG).expect("a type conflict");
    assert!(e["msg"].as_str().unwrap().contains("type conflict"), "{e}");

    a.send(json!({"op": "unadvertise", "id": "x", "topic": "/qos"}));
    drop(b);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(publishers("/qos").len(), 1, "kept for unregister_timeout");
    assert!(wait_until(LONG, || publishers("/qos").is_empty()));
    assert_eq!(
        publishers("/latched").len(),
        1,
        "a's other advertisement stays"
    );
}

#[test]
fn publish_without_advertise_defaults_missing_fields_and_stamps_headers_now() {
    let f = Fixture::new();
    let (_s, headers) = collect::<Header>(&f, "/header", QosProfile::default());
    let (_t, bytes) = collect::<UInt8MultiArray>(&f, "/bytes", QosProfile::default());
    let (_i, ints) = collect::<Int64>(&f, "/big", QosProfile::default());
    let mut c = Raw::connect(&f.url());
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i32;
    c.send(json!({"op": "publish", "id": "p:1", "topic": "/header", "msg": {"frame_id": "map"}, "latch": false}));
    c.send(json!({"op": "publish", "topic": "/header", "msg": {"stamp": {"secs": 5, "nsecs": 6}}}));
    c.send(json!({"op": "publish", "topic": "/header"}));
    c.send(json!({"op": "publish", "topic": "/bytes", "msg": {"data": "AAEC"}}));
    c.send(json!({"op": "publish", "topic": "/bytes", "msg": {"data": [3, 4]}}));
    c.send_text(r#"{"op":"publish","topic":"/big","msg":{"data":9007199254740993}}"#);
    assert!(wait_until(LONG, || headers.lock().unwrap().len() == 3
        && bytes.lock().unwrap().len() == 2
        && ints.lock().unwrap().len() == 1));
    let h = headers.lock().unwrap();
    assert_eq!(h[0].frame_id, "map");
    assert!(h[0].stamp.sec >= before, "an omitted stamp is now");
    assert_eq!(h[1].stamp, Time { sec: 5, nanosec: 6 });
    assert!(
        h[2].stamp.sec >= before && h[2].frame_id.is_empty(),
        "a missing msg is the default"
    );
    let b = bytes.lock().unwrap();
    assert_eq!(
        (b[0].data.as_slice(), b[1].data.as_slice()),
        (&[0u8, 1, 2][..], &[3u8, 4][..])
    );
    assert_eq!(
        ints.lock().unwrap()[0].data,
        9_007_199_254_740_993,
        "int64 exact"
    );

    let out = f
        .node
        .create_publisher::<UInt8MultiArray>("/bytes_out", QosProfile::default())
        .unwrap();
    c.send(json!({"op": "subscribe", "topic": "/bytes_out"}));
    assert!(out.wait_for_subscribers(1, LONG));
    out.publish(UInt8MultiArray {
        data: vec![0, 1, 2],
        ..Default::default()
    })
    .unwrap();
    let m = c.recv_op("publish", LONG).unwrap();
    assert_eq!(m["msg"]["data"], "AAEC", "uint8[] goes out as base64");
}

#[test]
fn throttle_without_a_queue_drops_and_with_a_queue_paces_the_last_ones() {
    let f = Fixture::new();
    let p = f
        .node
        .create_publisher::<RosString>("/fast", QosProfile::default().keep_last(100))
        .unwrap();
    let mut drop_soon = Raw::connect(&f.url());
    let mut paced = Raw::connect(&f.url());
    drop_soon.send(json!({"op": "subscribe", "topic": "/fast", "type": "std_msgs/msg/String", "throttle_rate": 10_000}));
    paced.send(json!({"op": "subscribe", "topic": "/fast", "type": "std_msgs/msg/String", "throttle_rate": 100, "queue_length": 2}));
    assert!(p.wait_for_subscribers(1, LONG));
    assert!(wait_until(LONG, || f.bridge.stats().clients.len() == 2));
    std::thread::sleep(Duration::from_millis(100));
    p.publish(RosString { data: "0".into() }).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    for i in 1..10 {
        p.publish(RosString {
            data: i.to_string(),
        })
        .unwrap();
    }
    let mut seen = Vec::new();
    while let Some(m) = paced.recv_op("publish", Duration::from_millis(600)) {
        seen.push(m["msg"]["data"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        seen,
        ["0", "8", "9"],
        "the first, then the last queue_length"
    );
    assert_eq!(
        drop_soon.recv_op("publish", LONG).unwrap()["msg"]["data"],
        "0"
    );
    assert!(drop_soon.recv(SHORT).is_none(), "the rest came too soon");
    let throttled: u64 = f.bridge.stats().clients.iter().map(|c| c.throttled).sum();
    assert_eq!(throttled, 9);
}

#[test]
fn fragments_in_are_joined_by_num_and_fragments_out_have_an_integer_total() {
    let f = Fixture::new();
    let (_s, got) = collect::<RosString>(&f, "/frag", QosProfile::default());
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "advertise", "topic": "/frag", "type": "std_msgs/msg/String"}));
    let whole =
        json!({"op": "publish", "topic": "/frag", "msg": {"data": "pieced together"}}).to_string();
    let (a, rest) = whole.split_at(20);
    let (b, d) = rest.split_at(20);
    for (num, data) in [(2, d), (0, a), (1, b)] {
        c.send(json!({"op": "fragment", "id": "f1", "data": data, "num": num, "total": 3}));
    }
    assert!(wait_until(LONG, || got.lock().unwrap().len() == 1));
    assert_eq!(got.lock().unwrap()[0].data, "pieced together");

    let out = f
        .node
        .create_publisher::<RosString>("/frag_out", QosProfile::default())
        .unwrap();
    c.send(json!({"op": "subscribe", "topic": "/frag_out", "type": "std_msgs/msg/String", "fragment_size": 16}));
    assert!(out.wait_for_subscribers(1, LONG));
    out.publish(RosString {
        data: "a message longer than sixteen bytes".into(),
    })
    .unwrap();
    let mut joined = String::new();
    let first = c.recv_op("fragment", LONG).unwrap();
    let total = first["total"].as_u64().expect("an integer total");
    joined.push_str(first["data"].as_str().unwrap());
    for i in 1..total {
        let next = c.recv_op("fragment", LONG).unwrap();
        assert_eq!(next["num"], i);
        joined.push_str(next["data"].as_str().unwrap());
    }
    let m: Json = serde_json::from_str(&joined).unwrap();
    assert_eq!(m["msg"]["data"], "a message longer than sixteen bytes");
}

fn cbor(bytes: &[u8]) -> ciborium::Value {
    ciborium::from_reader(bytes).unwrap()
}

fn field<'a>(map: &'a ciborium::Value, key: &str) -> &'a ciborium::Value {
    map.as_map()
        .unwrap()
        .iter()
        .find(|(k, _)| k.as_text() == Some(key))
        .map(|(_, v)| v)
        .unwrap()
}

#[test]
fn json_cbor_and_cbor_raw_clients_share_a_topic_in_either_order() {
    use hibari::msg::sensor_msgs::msg::ChannelFloat32;
    let f = Fixture::new();
    let p = f
        .node
        .create_publisher::<ChannelFloat32>("/mixed", QosProfile::default())
        .unwrap();
    let mut raw = Raw::connect(&f.url());
    let mut json_client = Raw::connect(&f.url());
    let mut cbor_client = Raw::connect(&f.url());
    raw.send(json!({"op": "subscribe", "topic": "/mixed", "compression": "cbor-raw"}));
    json_client.send(json!({"op": "subscribe", "topic": "/mixed"}));
    cbor_client.send(json!({"op": "subscribe", "topic": "/mixed", "compression": "cbor"}));
    assert!(p.wait_for_subscribers(1, LONG));
    assert!(wait_until(LONG, || f.bridge.stats().clients.len() == 3));
    std::thread::sleep(Duration::from_millis(100));
    let sample = ChannelFloat32 {
        name: "v".into(),
        values: vec![1.5, f32::NAN],
    };
    p.publish(sample.clone()).unwrap();

    let j = json_client.recv_op("publish", LONG).unwrap();
    assert_eq!(
        j["msg"],
        json!({"name": "v", "values": [1.5, null]}),
        "NaN is null in JSON"
    );
    let Some(WsMessage::Binary(b)) = cbor_client.recv(LONG) else {
        panic!("a binary frame")
    };
    let m = cbor(&b);
    assert_eq!(field(&m, "op").as_text(), Some("publish"));
    let values = field(field(&m, "msg"), "values");
    let ciborium::Value::Tag(85, inner) = values else {
        panic!("float32 typed array, got {values:?}")
    };
    let bytes = inner.as_bytes().unwrap();
    assert_eq!(&bytes[..4], &1.5f32.to_le_bytes());
    assert!(
        f32::from_le_bytes(bytes[4..8].try_into().unwrap()).is_nan(),
        "NaN kept in CBOR"
    );
    let Some(WsMessage::Binary(b)) = raw.recv(LONG) else {
        panic!("a binary frame")
    };
    let m = cbor(&b);
    let msg = field(&m, "msg");
    assert_eq!(
        field(msg, "bytes").as_bytes().unwrap(),
        &sample.to_cdr().unwrap()
    );
    assert!(
        field(msg, "secs").as_integer().is_some() && field(msg, "nsecs").as_integer().is_some()
    );
}

#[test]
fn the_path_is_checked_and_foxglove_subprotocols_are_echoed_back() {
    let f = Fixture::new();
    let url = format!("ws://{}/elsewhere", f.bridge.local_addr());
    match tungstenite::connect(url) {
        Err(tungstenite::Error::Http(r)) => assert_eq!(r.status(), 404),
        other => panic!("expected 404, got {other:?}"),
    }
    for offer in ["foxglove.sdk.v1", "foxglove.websocket.v1"] {
        use tungstenite::client::IntoClientRequest;
        let mut request = f.url().into_client_request().unwrap();
        let value = format!("x.other, {offer}").parse().unwrap();
        request
            .headers_mut()
            .insert("Sec-WebSocket-Protocol", value);
        let (mut ws, response) = tungstenite::connect(request).unwrap();
        assert_eq!(response.headers()["sec-websocket-protocol"], offer);
        let first = ws.read().unwrap();
        let j: Json = serde_json::from_str(first.to_text().unwrap()).unwrap();
        assert_eq!(j["op"], "serverInfo");
    }
    let (_, response) = tungstenite::connect(f.url()).unwrap();
    assert!(
        response.headers().get("sec-websocket-protocol").is_none(),
        "rosbridge: no subprotocol"
    );
}
