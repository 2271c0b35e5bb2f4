//! Lichtblick's rosbridge player at the wire (bridge.md §3.5, M4): the
//! sequence of ops it sends, reproduced with a raw WebSocket client
//! against native hibari nodes — rosapi discovery (topics with their full
//! definitions, nodes, node details, service types), ROS 2 recognised by
//! `/rosout`'s `rcl_interfaces/msg/Log`, `cbor-raw` subscriptions without
//! a type, a poll that sees a new topic, and advertise with `queue_size:0`.

mod common;

use std::sync::{Arc, Mutex};

use common::{wait_until, Fixture, Raw, LONG};
use hibari::msg::geometry_msgs::msg::{Point, Pose, Quaternion};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::msg::std_srvs::srv::{Trigger, Trigger_Request, Trigger_Response};
use hibari::{Message, QosProfile};
use serde_json::{json, Value as Json};
use tungstenite::Message as WsMessage;

/// Calls a rosapi service the way Lichtblick's roslibjs does (absolute
/// name, empty or small args) and returns the values.
fn call(c: &mut Raw, service: &str, args: Json) -> Json {
    c.send(json!({"op": "call_service", "id": format!("call_service:{service}"), "service": service, "args": args}));
    let r = c.recv_op("service_response", LONG).expect("an answer");
    assert_eq!(r["result"], true, "{service}: {r}");
    r["values"].clone()
}

/// `(topics, types, typedefs_full_text)` from `topics_and_raw_types`.
fn poll(c: &mut Raw) -> Vec<(String, String, String)> {
    let v = call(c, "/rosapi/topics_and_raw_types", json!({}));
    let col = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    let (t, ty, d) = (col("topics"), col("types"), col("typedefs_full_text"));
    assert!(t.len() == ty.len() && ty.len() == d.len(), "{v}");
    t.into_iter()
        .zip(ty)
        .zip(d)
        .map(|((t, ty), d)| (t, ty, d))
        .collect()
}

/// The next binary frame, CBOR-decoded.
fn next_cbor(c: &mut Raw) -> ciborium::Value {
    loop {
        match c.recv(LONG).expect("a frame") {
            WsMessage::Binary(b) => return ciborium::from_reader(&b[..]).unwrap(),
            WsMessage::Text(t) => assert!(!t.contains("\"publish\""), "JSON publish: {t}"),
            _ => {}
        }
    }
}

fn field<'a>(map: &'a ciborium::Value, key: &str) -> &'a ciborium::Value {
    map.as_map()
        .unwrap()
        .iter()
        .find(|(k, _)| k.as_text() == Some(key))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no `{key}` in {map:?}"))
}

#[test]
fn lichtblicks_rosbridge_player_discovers_subscribes_raw_without_types_and_publishes() {
    let f = Fixture::new();
    let robot = f.another_node("robot");
    let pose = robot
        .create_publisher::<Pose>("/robot/pose", QosProfile::default())
        .unwrap();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let h = heard.clone();
    let _sub = robot
        .create_subscription("/ui/cmd", QosProfile::default(), move |m: RosString| {
            h.lock().unwrap().push(m.data)
        })
        .unwrap();
    let _srv = robot
        .create_service::<Trigger, _>(
            "/robot/reset",
            QosProfile::services_default(),
            |_: Trigger_Request| Trigger_Response {
                success: true,
                message: String::new(),
            },
        )
        .unwrap();
    let mut c = Raw::connect(&f.url());

    // 1. Discovery: topics with full definitions; ROS 2 because `/rosout`
    // carries rcl_interfaces/msg/Log.
    let topics = poll(&mut c);
    let find = |topics: &[(String, String, String)], name: &str| {
        topics.iter().find(|t| t.0 == name).cloned()
    };
    let (_, ty, _) = find(&topics, "/rosout").expect("/rosout is listed");
    assert_eq!(ty, "rcl_interfaces/msg/Log", "Lichtblick's ROS 2 check");
    let (_, ty, def) = find(&topics, "/robot/pose").expect("the robot's topic");
    assert_eq!(ty, "geometry_msgs/msg/Pose");
    assert!(
        def.contains("Point position")
            && def.contains("MSG: geometry_msgs/msg/Point")
            && def.contains("float64 x"),
        "a definition a CDR reader can use: {def}"
    );

    // 2. The graph: nodes, their details, the types of their services.
    let nodes = call(&mut c, "/rosapi/nodes", json!({}));
    let nodes: Vec<&str> = nodes["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(nodes.contains(&"/robot"), "{nodes:?}");
    let d = call(&mut c, "/rosapi/node_details", json!({"node": "/robot"}));
    // Every node publishes /parameter_events and /rosout and serves its six
    // parameter services, as ROS 2 nodes do.
    assert_eq!(
        d["publishing"],
        json!(["/parameter_events", "/robot/pose", "/rosout"])
    );
    assert_eq!(d["subscribing"], json!(["/ui/cmd"]));
    let services = d["services"].as_array().unwrap();
    assert!(services.contains(&json!("/robot/reset")), "{services:?}");
    assert!(
        services.contains(&json!("/robot/get_parameters")),
        "{services:?}"
    );
    assert_eq!(services.len(), 7, "{services:?}");
    let t = call(
        &mut c,
        "/rosapi/service_type",
        json!({"service": "/robot/reset"}),
    );
    assert_eq!(t["type"], "std_srvs/srv/Trigger");

    // 3. A panel subscribes: cbor-raw, no type (inferred from the graph).
    c.send(
        json!({"op": "subscribe", "id": "subscribe:/robot/pose:1", "topic": "/robot/pose",
                  "compression": "cbor-raw", "throttle_rate": 0, "queue_length": 0}),
    );
    assert!(pose.wait_for_subscribers(1, LONG));
    let sample = Pose {
        position: Point {
            x: 1.0,
            y: -2.0,
            z: 0.5,
        },
        orientation: Quaternion {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        },
    };
    pose.publish(sample.clone()).unwrap();
    let m = next_cbor(&mut c);
    assert_eq!(field(&m, "op").as_text(), Some("publish"));
    assert_eq!(field(&m, "topic").as_text(), Some("/robot/pose"));
    let msg = field(&m, "msg");
    assert_eq!(
        field(msg, "bytes").as_bytes().unwrap(),
        &sample.to_cdr().unwrap(),
        "the CDR bytes, encapsulation header included"
    );
    assert!(
        field(msg, "secs").as_integer().is_some() && field(msg, "nsecs").as_integer().is_some()
    );

    // 4. The next poll (every 3 s in Lichtblick) sees a topic that came up.
    let late = robot
        .create_publisher::<RosString>("/robot/late", QosProfile::default())
        .unwrap();
    assert!(wait_until(LONG, || find(&poll(&mut c), "/robot/late").is_some()));
    c.send(
        json!({"op": "subscribe", "id": "subscribe:/robot/late:2", "topic": "/robot/late",
                  "compression": "cbor-raw"}),
    );
    assert!(late.wait_for_subscribers(1, LONG));
    late.publish(RosString { data: "hi".into() }).unwrap();
    let m = next_cbor(&mut c);
    assert_eq!(field(&m, "topic").as_text(), Some("/robot/late"));

    // 5. Publishing from the UI: advertise with queue_size 0, then publish.
    c.send(
        json!({"op": "advertise", "id": "advertise:/ui/cmd:3", "topic": "/ui/cmd",
                  "type": "std_msgs/msg/String", "latch": false, "queue_size": 0}),
    );
    c.send(
        json!({"op": "publish", "id": "publish:/ui/cmd:4", "topic": "/ui/cmd",
                  "msg": {"data": "go"}, "latch": false}),
    );
    assert!(wait_until(LONG, || heard.lock().unwrap().as_slice() == ["go"]));

    // 6. Closing a panel unsubscribes; the player goes on polling.
    c.send(json!({"op": "unsubscribe", "id": "subscribe:/robot/pose:1", "topic": "/robot/pose"}));
    assert!(wait_until(LONG, || pose.matched_subscriptions() == 0));
    pose.publish(sample).unwrap();
    late.publish(RosString {
        data: "again".into(),
    })
    .unwrap();
    let m = next_cbor(&mut c);
    assert_eq!(
        field(&m, "topic").as_text(),
        Some("/robot/late"),
        "nothing more from the closed panel"
    );
    assert!(find(&poll(&mut c), "/robot/pose").is_some());
}
