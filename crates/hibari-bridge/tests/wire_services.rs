//! rosbridge services, rosapi, auth and cleanup at the wire (bridge.md
//! §5(a) V1–V4, M1, M3, S6), against native hibari services and callers.

mod common;

use std::time::Duration;

use common::{wait_until, Fixture, Raw, LONG};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::msg::std_srvs::srv::{
    SetBool, SetBool_Request, SetBool_Response, Trigger, Trigger_Response,
};
use hibari::{CallError, QosProfile, SingleThreadedExecutor};
use serde_json::json;

fn set_bool_server(f: &Fixture, name: &str) -> hibari::ServiceServer<SetBool> {
    f.node
        .create_service::<SetBool, _>(
            name,
            QosProfile::services_default(),
            |r: SetBool_Request| SetBool_Response {
                success: r.data,
                message: format!("got {}", r.data),
            },
        )
        .unwrap()
}

#[test]
fn call_service_takes_dict_list_or_no_args_echoes_the_id_and_reports_failures() {
    let f = Fixture::new();
    let _server = set_bool_server(&f, "/set");
    let _trigger = f
        .node
        .create_service::<Trigger, _>("/trigger", QosProfile::services_default(), |_| {
            Trigger_Response {
                success: true,
                message: "fired".into(),
            }
        })
        .unwrap();
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "call_service", "id": "c1", "service": "/set", "args": {"data": true}}));
    let r = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(
        r,
        json!({"op": "service_response", "service": "/set", "values": {"success": true, "message": "got true"}, "result": true, "id": "c1"})
    );
    c.send(json!({"op": "call_service", "id": 7, "service": "set", "args": [false]}));
    let r = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(
        (r["id"].clone(), r["values"]["message"].clone()),
        (json!(7), json!("got false"))
    );
    c.send(json!({"op": "call_service", "service": "/trigger"}));
    let r = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(r["values"]["message"], "fired");
    assert!(r.get("id").is_none(), "no id asked, none echoed");

    c.send(json!({"op": "call_service", "id": "gone", "service": "/nobody_serves_this"}));
    let r = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(
        (r["result"].clone(), r["id"].clone()),
        (json!(false), json!("gone"))
    );
    assert!(
        r["values"].as_str().unwrap().contains("does not exist"),
        "{r}"
    );
    c.send(json!({"op": "call_service", "id": "bad", "service": "/set", "args": {"data": 3}}));
    let r = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(
        r["result"], false,
        "a wrongly typed arg fails the call: {r}"
    );
}

#[test]
fn a_slow_call_times_out_when_asked_and_never_blocks_the_clients_other_ops() {
    let f = Fixture::new();
    let slow_node = f.context.create_node("slow").unwrap();
    let _slow = slow_node
        .create_service::<SetBool, _>(
            "/slow",
            QosProfile::services_default(),
            |r: SetBool_Request| {
                std::thread::sleep(Duration::from_millis(800));
                SetBool_Response {
                    success: r.data,
                    message: "late".into(),
                }
            },
        )
        .unwrap();
    let executor = std::sync::Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&slow_node).unwrap();
    let e = executor.clone();
    let spinner = std::thread::spawn(move || e.spin());
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "call_service", "id": "slow", "service": "/slow", "args": {"data": true}}));
    c.send(json!({"op": "call_service", "id": "quick", "service": "/rosapi/topics"}));
    let first = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(
        first["id"], "quick",
        "the rosapi call answered while /slow ran"
    );
    let second = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(
        (second["id"].clone(), second["result"].clone()),
        (json!("slow"), json!(true))
    );
    c.send(json!({"op": "call_service", "id": "t", "service": "/slow", "args": {"data": true}, "timeout": 0.2}));
    let r = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(r["result"], false);
    assert!(r["values"].as_str().unwrap().contains("Timeout"), "{r}");
    hibari_testkit::cancel_and_join(
        spinner,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
}

#[test]
fn an_advertised_service_answers_native_callers_by_id_and_fails_them_when_its_client_leaves() {
    let f = Fixture::new();
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "advertise_service", "service": "/js_set", "type": "std_srvs/SetBool"}));
    let client = f
        .node
        .create_client::<SetBool>("/js_set", QosProfile::services_default())
        .unwrap();
    assert!(client.wait_for_service(LONG));
    let one = client.call_async(SetBool_Request { data: true });
    let two = client.call_async(SetBool_Request { data: false });
    let r1 = c.recv_op("call_service", LONG).unwrap();
    let r2 = c.recv_op("call_service", LONG).unwrap();
    assert_eq!(
        r1,
        json!({"op": "call_service", "id": "service_request:/js_set:1", "service": "/js_set", "args": {"data": true}})
    );
    assert_eq!(r2["id"], "service_request:/js_set:2");
    // Answered in the other order: each caller still gets its own answer.
    c.send(json!({"op": "service_response", "service": "/js_set", "id": r2["id"], "values": {"success": false, "message": "two"}, "result": true}));
    c.send(json!({"op": "service_response", "service": "/js_set", "id": r1["id"], "values": {"success": true, "message": "one"}, "result": true}));
    let block = |fut| {
        SingleThreadedExecutor::new()
            .spin_until_future_complete(fut, LONG)
            .unwrap()
    };
    assert_eq!(block(two).unwrap().message, "two");
    assert_eq!(block(one).unwrap().message, "one");

    // A duplicate advertise from another client replaces the first.
    let mut d = Raw::connect(&f.url());
    d.send(
        json!({"op": "advertise_service", "service": "/js_set", "type": "std_srvs/srv/SetBool"}),
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(client.wait_for_service(LONG));
    let three = client.call_async(SetBool_Request { data: true });
    let r3 = d
        .recv_op("call_service", LONG)
        .expect("the new advertiser gets the call");
    assert_eq!(r3["id"], "service_request:/js_set:1");
    assert!(c
        .recv_op("call_service", Duration::from_millis(200))
        .is_none());
    drop(d); // leaves without answering
    let outcome = block(three);
    assert!(
        matches!(outcome, Err(CallError::ServiceGone { .. })),
        "{outcome:?}"
    );
    assert!(wait_until(LONG, || !f
        .node
        .get_service_names_and_types()
        .contains_key("/js_set")
        || !client.service_is_ready()));
}

#[test]
fn rosapi_answers_from_the_graph_and_the_registry() {
    let f = Fixture::new();
    let _server = set_bool_server(&f, "/set");
    let _p = f
        .node
        .create_publisher::<RosString>("/chatter", QosProfile::default())
        .unwrap();
    let mut c = Raw::connect(&f.url());
    let mut call = |service: &str, args: serde_json::Value| {
        c.send(json!({"op": "call_service", "service": service, "args": args}));
        let r = c.recv_op("service_response", LONG).unwrap();
        assert_eq!(r["result"], true, "{service}: {r}");
        r["values"].clone()
    };
    let topics = call("rosapi/topics", json!({}));
    let names: Vec<&str> = topics["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"/chatter") && names.contains(&"/rosout"),
        "{names:?}"
    );
    let i = names.iter().position(|t| *t == "/rosout").unwrap();
    assert_eq!(topics["types"][i], "rcl_interfaces/msg/Log");
    let raw = call("/rosapi/topics_and_raw_types", json!({}));
    let i = raw["topics"]
        .as_array()
        .unwrap()
        .iter()
        .position(|t| t == "/rosout")
        .unwrap();
    assert!(raw["typedefs_full_text"][i]
        .as_str()
        .unwrap()
        .contains("MSG: builtin_interfaces/msg/Time"));
    assert_eq!(
        call("rosapi/topic_type", json!({"topic": "/chatter"}))["type"],
        "std_msgs/msg/String"
    );
    let services = call("rosapi/services", json!({}));
    let services: Vec<&str> = services["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        services.contains(&"/set") && services.contains(&"/rosapi/topics"),
        "{services:?}"
    );
    assert_eq!(
        call("rosapi/service_type", json!({"service": "/set"}))["type"],
        "std_srvs/srv/SetBool"
    );
    assert_eq!(
        call("rosapi/service_node", json!({"service": "/set"}))["node"],
        "/native"
    );
    let nodes = call("rosapi/nodes", json!({}));
    assert!(nodes["nodes"]
        .as_array()
        .unwrap()
        .contains(&json!("/hibari_bridge")));
    let details = call("rosapi/node_details", json!({"node": "/native"}));
    // With the parameter events, /rosout and services every node has.
    assert_eq!(
        details["publishing"],
        json!(["/chatter", "/parameter_events", "/rosout"])
    );
    let services = details["services"].as_array().unwrap();
    assert!(services.contains(&json!("/set")), "{services:?}");
    assert!(
        services.contains(&json!("/native/set_parameters")),
        "{services:?}"
    );
    let defs = call(
        "rosapi/message_details",
        json!({"type": "geometry_msgs/Pose"}),
    );
    let types: Vec<&str> = defs["typedefs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "geometry_msgs/msg/Pose",
            "geometry_msgs/msg/Point",
            "geometry_msgs/msg/Quaternion"
        ]
    );
    assert_eq!(
        defs["typedefs"][0]["fieldtypes"],
        json!(["geometry_msgs/msg/Point", "geometry_msgs/msg/Quaternion"])
    );
    let req = call(
        "rosapi/service_request_details",
        json!({"type": "std_srvs/SetBool"}),
    );
    assert_eq!(req["typedefs"][0]["fieldnames"], json!(["data"]));
    assert_eq!(
        call("rosapi/get_param", json!({"name": "x", "default": "7"}))["value"],
        "7"
    );
}

#[test]
fn auth_is_accepted_without_a_secret_and_enforced_with_one() {
    let open = Fixture::new();
    let mut c = Raw::connect(&open.url());
    c.send(json!({"op": "auth", "mac": "x", "client": "c", "dest": "d", "rand": "r", "t": {"secs": 0, "nsecs": 0}, "level": "admin", "end": {"secs": 0, "nsecs": 0}}));
    c.send(json!({"op": "call_service", "service": "/rosapi/nodes"}));
    assert!(c.recv_op("service_response", LONG).is_some());

    let f = Fixture::with(|c| c.auth_secret(Some("0123456789abcdef".into())));
    let mut stranger = Raw::connect(&f.url());
    stranger.send(json!({"op": "call_service", "service": "/rosapi/nodes"}));
    let closed = wait_until(LONG, || {
        matches!(
            stranger.ws.read(),
            Err(tungstenite::Error::ConnectionClosed
                | tungstenite::Error::AlreadyClosed
                | tungstenite::Error::Protocol(_))
        ) || f.bridge.stats().clients.is_empty()
    });
    assert!(closed, "an op before auth closes the connection");

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let text = format!("0123456789abcdefclientdestrand{}admin{}", now, now + 60);
    let mac = sha512_hex(text.as_bytes());
    let mut friend = Raw::connect(&f.url());
    friend.send(json!({"op": "auth", "mac": mac, "client": "client", "dest": "dest", "rand": "rand", "t": {"secs": now, "nsecs": 0}, "level": "admin", "end": {"secs": now + 60, "nsecs": 0}}));
    friend.send(json!({"op": "call_service", "service": "/rosapi/nodes"}));
    assert!(
        friend.recv_op("service_response", LONG).is_some(),
        "authenticated"
    );
}

fn sha512_hex(bytes: &[u8]) -> String {
    let out = std::process::Command::new("sha512sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(bytes)?;
            child.wait_with_output()
        })
        .expect("sha512sum runs");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn a_client_leaving_takes_its_subscriptions_publishers_and_services_with_it() {
    let f = Fixture::new();
    let _p = f
        .node
        .create_publisher::<RosString>("/in", QosProfile::default())
        .unwrap();
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "subscribe", "topic": "/in"}));
    c.send(json!({"op": "advertise", "topic": "/out", "type": "std_msgs/String"}));
    c.send(json!({"op": "advertise_service", "service": "/mine", "type": "std_srvs/Trigger"}));
    let graph = |f: &Fixture| {
        (
            f.node.count_subscribers("/in").unwrap(),
            f.node.count_publishers("/out").unwrap(),
            f.node.get_service_names_and_types().contains_key("/mine"),
        )
    };
    let count = std::sync::Arc::new(std::sync::Mutex::new(-1));
    let k = count.clone();
    let _count = f
        .node
        .create_subscription::<hibari::msg::std_msgs::msg::Int32, _, _>(
            "/client_count",
            QosProfile::latched(1),
            move |m: hibari::msg::std_msgs::msg::Int32| *k.lock().unwrap() = m.data,
        )
        .unwrap();
    assert!(wait_until(LONG, || graph(&f) == (1, 1, true)));
    assert!(
        wait_until(LONG, || *count.lock().unwrap() == 1),
        "client_count says 1"
    );
    assert_eq!(f.bridge.stats().clients.len(), 1);
    drop(c);
    assert!(
        wait_until(LONG, || graph(&f) == (0, 0, false)),
        "{:?}",
        graph(&f)
    );
    assert!(f.bridge.stats().clients.is_empty());
    assert!(
        wait_until(LONG, || *count.lock().unwrap() == 0),
        "client_count says 0"
    );
}
