//! The bridge's graph topics, its bound port, and access control
//! (bridge.md §5(a) M2, M3): a native hibari subscriber reads
//! `connected_clients` as real clients come and go, the CLI says which
//! port it got for `--port 0`, and names the globs keep out are refused and
//! unlisted for rosbridge and Foxglove clients.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{wait_until, Fixture, Raw, LONG};
use hibari::interfaces::{Distro, Registry, TypeName};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::{CdrBytes, QosProfile, SampleInfo};
use serde_json::{json, Value as Json};

/// The `connected_clients` type, as rosbridge_suite defines it.
fn rosbridge_msgs() -> Registry {
    let mut r = Registry::bundled(Distro::Jazzy);
    let client = "string ip_address\nbuiltin_interfaces/Time connection_time\n";
    r.add_msg_text(
        TypeName::parse("rosbridge_msgs/msg/ConnectedClient").unwrap(),
        client,
        "ConnectedClient.msg",
    )
    .unwrap();
    r.add_msg_text(
        TypeName::parse("rosbridge_msgs/msg/ConnectedClients").unwrap(),
        "ConnectedClient[] clients\n",
        "ConnectedClients.msg",
    )
    .unwrap();
    r
}

#[test]
fn connected_clients_and_client_count_follow_real_clients() {
    let f = Fixture::new();
    let registry = Arc::new(rosbridge_msgs());
    let ty = TypeName::parse("rosbridge_msgs/msg/ConnectedClients").unwrap();
    let last: Arc<Mutex<Option<Json>>> = Arc::default();
    let (l, r) = (last.clone(), registry.clone());
    let _sub = f
        .node
        .create_generic_subscription(
            "/connected_clients",
            "rosbridge_msgs/msg/ConnectedClients",
            QosProfile::latched(1),
            move |bytes: CdrBytes, _: SampleInfo| {
                let v = hibari::dynamic::decode(&*r, &ty, &bytes).expect("decodes");
                *l.lock().unwrap() = Some(hibari::dynamic::to_json(&*r, &ty, &v));
            },
        )
        .unwrap();
    let clients = || {
        last.lock().unwrap().as_ref().map(|j| {
            j["clients"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["ip_address"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        })
    };
    assert!(
        wait_until(LONG, || clients() == Some(vec![])),
        "{:?}",
        clients()
    );
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let mut a = Raw::connect(&f.url());
    let b = std::net::TcpStream::connect(f.bridge.tcp_addr().unwrap()).unwrap();
    assert!(
        wait_until(LONG, || clients().is_some_and(|c| c.len() == 2)),
        "{:?}",
        clients()
    );
    assert_eq!(clients().unwrap(), ["127.0.0.1", "127.0.0.1"]);
    let first = last.lock().unwrap().clone().unwrap();
    let sec = first["clients"][0]["connection_time"]["sec"]
        .as_i64()
        .unwrap();
    assert!((sec - now.as_secs() as i64).abs() <= 5, "{first}");

    // A rosbridge client reads the same topic, and client_count, as JSON.
    a.send(json!({"op": "subscribe", "topic": "/connected_clients"}));
    let m = a.recv_op("publish", LONG).expect("the latched list");
    assert_eq!(m["msg"]["clients"].as_array().unwrap().len(), 2, "{m}");
    a.send(json!({"op": "subscribe", "topic": "/client_count"}));
    let m = a.recv_op("publish", LONG).expect("the latched count");
    assert_eq!(m["msg"]["data"], 2, "{m}");

    drop(b);
    assert!(
        wait_until(LONG, || clients().is_some_and(|c| c.len() == 1)),
        "{:?}",
        clients()
    );
    let m = a.recv_op("publish", LONG).expect("the new list or count");
    let n = m["msg"]["data"]
        .as_i64()
        .or_else(|| m["msg"]["clients"].as_array().map(|c| c.len() as i64));
    assert_eq!(n, Some(1), "{m}");
    drop(a);
    assert!(
        wait_until(LONG, || clients() == Some(vec![])),
        "{:?}",
        clients()
    );
}

#[test]
fn the_cli_reports_the_port_it_bound_for_port_0() {
    /// Kills the bridge when dropped, so a failing test leaves no process.
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let domain = hibari_testkit::TestDomain::reserve();
    let mut child = Kill(
        Command::new(env!("CARGO_BIN_EXE_hibari-bridge"))
            .args(["--port", "0", "--domain", &domain.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let out = child.0.stdout.take().unwrap();
    let line = hibari_testkit::with_timeout(LONG, "the bridge's first line", move || {
        let mut line = String::new();
        BufReader::new(out).read_line(&mut line).map(|_| line)
    })
    .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("ws://"))
        .unwrap_or_else(|| panic!("no ws:// address in {line:?}"))
        .to_owned();
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    assert_ne!(port, 0, "{line}");
    let mut c = Raw::connect(&url);
    c.send(json!({"op": "call_service", "id": "t", "service": "/rosapi/get_time"}));
    let r = c.recv_op("service_response", LONG);
    drop(child);
    let r = r.expect("the bridge on the reported port answers");
    assert_eq!(r["result"], true, "{r}");
}

fn guarded() -> Fixture {
    Fixture::with(|c| {
        c.topics_glob(Some(vec!["/allowed/*".into(), "/rosout".into()]))
            .services_glob(Some(vec!["/rosapi/*".into(), "/ok_?".into()]))
    })
}

#[test]
fn names_the_globs_keep_out_are_refused_with_a_status_and_have_no_effect() {
    let f = guarded();
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let h = heard.clone();
    let _listener = f
        .node
        .create_subscription::<RosString, _, _>(
            "/secret",
            QosProfile::default(),
            move |m: RosString| h.lock().unwrap().push(m.data),
        )
        .unwrap();
    let secret = f
        .node
        .create_publisher::<RosString>("/secret", QosProfile::default())
        .unwrap();
    let open = f
        .node
        .create_publisher::<RosString>("/allowed/news", QosProfile::default())
        .unwrap();
    let calls = Arc::new(Mutex::new(0));
    let k = calls.clone();
    let _server = f
        .node
        .create_service::<SetBool, _>(
            "/forbidden",
            QosProfile::services_default(),
            move |r: SetBool_Request| {
                *k.lock().unwrap() += 1;
                SetBool_Response {
                    success: r.data,
                    message: String::new(),
                }
            },
        )
        .unwrap();

    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "set_level", "level": "error"}));
    let denied = |c: &mut Raw, op: Json, what: &str| {
        c.send(op);
        let s = c.recv_op("status", LONG).expect("a status");
        assert_eq!(s["level"], "error", "{s}");
        assert!(
            s["msg"].as_str().unwrap().contains(what),
            "{s} should say {what}"
        );
    };
    let string = "std_msgs/msg/String";
    denied(
        &mut c,
        json!({"op": "subscribe", "id": "s", "topic": "/secret", "type": string}),
        "cancelling subscription to: /secret",
    );
    denied(
        &mut c,
        json!({"op": "subscribe", "topic": "secret", "type": string}),
        "cancelling subscription to: secret",
    );
    denied(
        &mut c,
        json!({"op": "advertise", "topic": "/secret", "type": string}),
        "cancelling advertisement of: /secret",
    );
    denied(
        &mut c,
        json!({"op": "publish", "topic": "/secret", "msg": {"data": "leak"}}),
        "cancelling publish to: /secret",
    );
    denied(
        &mut c,
        json!({"op": "advertise_service", "service": "/also_forbidden", "type": "std_srvs/srv/SetBool"}),
        "cancelling service advertisement for: /also_forbidden",
    );
    // A refused call gets a failed response too (rosbridge leaves it hanging).
    c.send(
        json!({"op": "call_service", "id": "x", "service": "/forbidden", "args": {"data": true}}),
    );
    let r = c.recv_op("service_response", LONG).unwrap();
    assert_eq!(r["result"], false, "{r}");
    assert_eq!(r["id"], "x", "{r}");

    // Allowed names work beside them.
    c.send(json!({"op": "subscribe", "topic": "/allowed/news", "type": string}));
    assert!(wait_until(LONG, || open.matched_subscriptions() > 0));
    let _ = secret.publish(RosString {
        data: "hidden".into(),
    });
    let _ = open.publish(RosString {
        data: "hello".into(),
    });
    let m = c.recv_op("publish", LONG).expect("the allowed topic");
    assert_eq!(m["topic"], "/allowed/news", "{m}");
    assert_eq!(m["msg"]["data"], "hello", "{m}");

    // No effect: nothing reached /secret or /forbidden, and the bridge has
    // no endpoint on them.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(heard.lock().unwrap().as_slice(), ["hidden"]);
    assert_eq!(*calls.lock().unwrap(), 0);
    let bridge_endpoints = |topic: &str| {
        let p = f.node.get_publishers_info_by_topic(topic).unwrap();
        let s = f.node.get_subscriptions_info_by_topic(topic).unwrap();
        p.iter()
            .chain(s.iter())
            .filter(|i| i.node_name == "hibari_bridge")
            .count()
    };
    assert_eq!(bridge_endpoints("/secret"), 0);
    assert!(!f
        .node
        .get_service_names_and_types()
        .contains_key("/also_forbidden"));
    assert_eq!(f.bridge.stats().subscribed_topics, 1);
}

fn call(c: &mut Raw, service: &str, args: Json) -> Json {
    c.send(json!({"op": "call_service", "service": service, "args": args}));
    let r = c.recv_op("service_response", LONG).expect("a response");
    assert_eq!(r["result"], true, "{r}");
    r["values"].clone()
}

#[test]
fn rosapi_and_foxglove_list_only_what_the_globs_let_through() {
    let f = guarded();
    let _secret = f
        .node
        .create_publisher::<RosString>("/secret", QosProfile::default())
        .unwrap();
    let _open = f
        .node
        .create_publisher::<RosString>("/allowed/news", QosProfile::default())
        .unwrap();
    let serve = |r: SetBool_Request| SetBool_Response {
        success: r.data,
        message: String::new(),
    };
    let _ok = f
        .node
        .create_service::<SetBool, _>("/ok_1", QosProfile::services_default(), serve)
        .unwrap();
    let _no = f
        .node
        .create_service::<SetBool, _>("/forbidden", QosProfile::services_default(), serve)
        .unwrap();
    let mut c = Raw::connect(&f.url());
    assert!(wait_until(LONG, || {
        call(&mut c, "/rosapi/topics", json!({}))["topics"]
            .as_array()
            .unwrap()
            .contains(&json!("/allowed/news"))
    }));
    let topics = call(&mut c, "/rosapi/topics", json!({}));
    assert_eq!(
        topics["topics"],
        json!(["/allowed/news", "/rosout"]),
        "{topics}"
    );
    let t = call(&mut c, "/rosapi/topic_type", json!({"topic": "/secret"}));
    assert_eq!(t["type"], "", "{t}");
    let p = call(&mut c, "/rosapi/publishers", json!({"topic": "/secret"}));
    assert_eq!(p["publishers"], json!([]), "{p}");
    let s = call(&mut c, "/rosapi/services", json!({}));
    let services: Vec<&str> = s["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(services.contains(&"/ok_1"), "{s}");
    assert!(services.contains(&"/rosapi/topics"), "{s}");
    assert!(
        services
            .iter()
            .all(|s| s.starts_with("/rosapi/") || *s == "/ok_1"),
        "{s}"
    );
    let t = call(
        &mut c,
        "/rosapi/service_type",
        json!({"service": "/forbidden"}),
    );
    assert_eq!(t["type"], "", "{t}");

    // A Foxglove client is offered the same names only.
    use tungstenite::client::IntoClientRequest;
    let mut request = f.url().into_client_request().unwrap();
    request.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        "foxglove.websocket.v1".parse().unwrap(),
    );
    let (ws, _) = tungstenite::connect(request).unwrap();
    let mut fox = Raw { ws };
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = fox.ws.get_ref() {
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
    }
    // Channels and services come in `advertise`/`advertiseServices`
    // messages as the directory learns the graph: gather them.
    let (mut channels, mut services) = (Vec::new(), Vec::new());
    let complete = wait_until(LONG, || {
        while let Some(tungstenite::Message::Text(t)) = fox.recv(Duration::from_millis(50)) {
            let j: Json = serde_json::from_str(&t).unwrap();
            let (list, key, name) = match j["op"].as_str() {
                Some("advertise") => (&mut channels, "channels", "topic"),
                Some("advertiseServices") => (&mut services, "services", "name"),
                _ => continue,
            };
            for c in j[key].as_array().unwrap() {
                list.push(c[name].as_str().unwrap().to_owned());
            }
        }
        channels.iter().any(|c| c == "/allowed/news") && services.iter().any(|s| s == "/ok_1")
    });
    assert!(complete, "{channels:?} {services:?}");
    assert!(!channels.iter().any(|c| c == "/secret"), "{channels:?}");
    assert!(!services.iter().any(|s| s == "/forbidden"), "{services:?}");
    fox.send_text(
        r#"{"op":"advertise","channels":[{"id":1,"topic":"/secret","encoding":"json","schemaName":"std_msgs/msg/String"}]}"#,
    );
    let s = fox.recv_op("status", LONG).expect("a refusal");
    assert!(
        s["message"].as_str().unwrap().contains("topics_glob"),
        "{s}"
    );
}
