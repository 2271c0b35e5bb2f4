//! `hibari topic|node|service`, run as the real binary against nodes of this
//! test process (another process to the command: they meet over shared
//! memory), each test in a domain of its own with topics of its own.

mod common;

use std::sync::mpsc;

use common::domain::{Fixture, Spin, LONG};
use hibari::msg::geometry_msgs::msg::{Twist, Vector3};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::QosProfile;
use hibari_testkit::unique_topic;

fn hello() -> RosString {
    RosString {
        data: "hello world: 1".into(),
    }
}

#[test]
fn topic_list_type_find_and_info_show_this_process_topics() {
    let f = Fixture::new();
    let topic = unique_topic("chatter");
    let _pub = f.keep_publishing(&topic, hello);
    let listed = f
        .run(&["topic", "list", "-t", "--spin-time", "1"])
        .success()
        .stdout_text();
    assert!(
        listed
            .lines()
            .any(|l| l == format!("{topic} [std_msgs/msg/String]")),
        "{listed}"
    );
    // The command's own hidden node adds nothing; hidden topics stay hidden.
    assert!(!listed.contains("_hibari_cli"), "{listed}");
    let ty = f.run(&["topic", "type", &topic]).success().stdout_text();
    assert_eq!(ty, "std_msgs/msg/String\n");
    let found = f
        .run(&["topic", "find", "std_msgs/msg/String"])
        .success()
        .stdout_text();
    assert_eq!(found, format!("{topic}\n"));
    let info = f.run(&["topic", "info", &topic]).success().stdout_text();
    assert_eq!(
        info,
        "Type: std_msgs/msg/String\nPublisher count: 1\nSubscription count: 0\n"
    );
    let verbose = f
        .run(&["topic", "info", "-v", &topic])
        .success()
        .stdout_text();
    for part in [
        "Node name: talker\nNode namespace: /tools\nTopic type: std_msgs/msg/String\nTopic type hash: RIHS01_",
        "Endpoint type: PUBLISHER\nGID: ",
        "QoS profile:\n  Reliability: RELIABLE\n  History (Depth): KEEP_LAST (10)\n  Durability: VOLATILE\n",
    ] {
        assert!(verbose.contains(part), "lacks {part:?}:\n{verbose}");
    }
    let doc = f.run(&["topic", "info", "--json", &topic]).success().json();
    assert_eq!(doc["publishers"][0]["node_name"], "talker");
    assert_eq!(doc["publishers"][0]["qos"]["reliability"], "reliable");
    f.run(&["topic", "info", "/no/such/topic"])
        .failure()
        .stderr_has(&["unknown topic /no/such/topic"]);
}

#[test]
fn node_list_and_info_show_endpoints_services_and_actions() {
    let f = Fixture::new();
    let topic = unique_topic("node_info");
    let _pub = f.keep_publishing(&topic, hello);
    let _sub = f
        .node
        .create_subscription(&topic, QosProfile::default(), |_: RosString| {})
        .unwrap();
    let _srv = f
        .node
        .create_service::<SetBool, _>("toggle", QosProfile::services_default(), |_| {
            SetBool_Response::default()
        })
        .unwrap();
    let nodes = f.run(&["node", "list"]).success().stdout_text();
    assert_eq!(
        nodes, "/tools/talker\n",
        "the command's hidden node is left out"
    );
    assert!(f
        .run(&["node", "list", "-a"])
        .success()
        .stdout_text()
        .contains("/_hibari_cli_"));
    let info = f
        .run(&["node", "info", "/tools/talker"])
        .success()
        .stdout_text();
    assert!(
        info.starts_with("/tools/talker\n  Subscribers:\n"),
        "{info}"
    );
    for part in [
        format!("  Subscribers:\n    {topic}: std_msgs/msg/String\n"),
        format!("    {topic}: std_msgs/msg/String\n"),
        "  Service Servers:\n".to_owned(),
        "    /tools/toggle: std_srvs/srv/SetBool\n".to_owned(),
        "    /tools/talker/get_parameters: rcl_interfaces/srv/GetParameters\n".to_owned(),
        "  Action Servers:\n  Action Clients:\n".to_owned(),
    ] {
        assert!(info.contains(&part), "lacks {part:?}:\n{info}");
    }
    f.run(&["node", "info", "/nobody"])
        .failure()
        .stderr_has(&["unable to find node '/nobody'"]);
}

#[test]
fn echo_prints_yaml_csv_json_and_fields_of_a_live_topic() {
    let f = Fixture::new();
    let topic = unique_topic("twist");
    let _pub = f.keep_publishing(&topic, || Twist {
        linear: Vector3 {
            x: 1.0,
            y: 2.0,
            z: 1e-5,
        },
        angular: Vector3 {
            x: 0.0,
            y: 0.0,
            z: 0.5,
        },
    });
    // The type comes from the graph.
    let yaml = f
        .run(&["topic", "echo", "--once", &topic])
        .success()
        .stdout_text();
    assert_eq!(
        yaml,
        "linear:\n  x: 1.0\n  y: 2.0\n  z: 1.0e-05\nangular:\n  x: 0.0\n  y: 0.0\n  z: 0.5\n---\n"
    );
    let field = f
        .run(&[
            "topic",
            "echo",
            "--once",
            "--field",
            "linear.y",
            &topic,
            "geometry_msgs/msg/Twist",
        ])
        .success()
        .stdout_text();
    assert_eq!(field, "2.0\n---\n");
    let csv = f
        .run(&["topic", "echo", "--once", "--csv", &topic])
        .success()
        .stdout_text();
    assert_eq!(csv, "1.0,2.0,1e-05,0.0,0.0,0.5\n");
    let json = f
        .run(&["topic", "echo", "--once", "--json", &topic])
        .success()
        .json();
    assert_eq!(json["angular"]["z"], 0.5);
    let flow = f
        .run(&["topic", "echo", "--once", "--flow-style", &topic])
        .success()
        .stdout_text();
    assert_eq!(
        flow,
        "{linear: {x: 1.0, y: 2.0, z: 1.0e-05}, angular: {x: 0.0, y: 0.0, z: 0.5}}\n---\n"
    );
    f.run(&["topic", "echo", "--once", "--field", "linear.w", &topic])
        .failure()
        .stderr_has(&["has no field `w`"]);
    f.run(&["topic", "echo", &topic, "nope_msgs/msg/Nothing"])
        .failure()
        .stderr_has(&[
            "unknown message type `nope_msgs/msg/Nothing`",
            "HIBARI_INTERFACE_PATH",
        ]);
}

#[test]
fn pub_once_reaches_a_subscriber_and_bad_yaml_is_refused() {
    let f = Fixture::new();
    let topic = unique_topic("said");
    let (tx, rx) = mpsc::channel();
    let _sub = f
        .node
        .create_subscription(&topic, QosProfile::default(), move |m: RosString| {
            let _ = tx.send(m.data);
        })
        .unwrap();
    let _spin = Spin::node(&f.node);
    let out = f
        .run(&[
            "topic",
            "pub",
            "--once",
            &topic,
            "std_msgs/msg/String",
            "{data: 'it''s: here'}",
        ])
        .success()
        .stdout_text();
    assert!(
        out.contains("publishing #1: {data: 'it''s: here'}"),
        "{out}"
    );
    assert_eq!(rx.recv_timeout(LONG).unwrap(), "it's: here");
    f.run(&[
        "topic",
        "pub",
        "--once",
        &topic,
        "std_msgs/msg/String",
        "{dta: 1}",
    ])
    .failure()
    .stderr_has(&["dta"]);
    f.run(&[
        "topic",
        "pub",
        &topic,
        "std_msgs/msg/String",
        "{data: [unclosed",
    ])
    .failure()
    .stderr_has(&["YAML"]);
}

#[test]
fn service_list_type_and_call() {
    let f = Fixture::new();
    let _srv = f
        .node
        .create_service::<SetBool, _>(
            "switch",
            QosProfile::services_default(),
            |r: SetBool_Request| SetBool_Response {
                success: r.data,
                message: format!("was {}", r.data),
            },
        )
        .unwrap();
    let _spin = Spin::node(&f.node);
    let listed = f.run(&["service", "list", "-t"]).success().stdout_text();
    assert!(
        listed.contains("/tools/switch [std_srvs/srv/SetBool]\n"),
        "{listed}"
    );
    assert_eq!(
        f.run(&["service", "type", "/tools/switch"])
            .success()
            .stdout_text(),
        "std_srvs/srv/SetBool\n"
    );
    let found = f
        .run(&["service", "find", "std_srvs/srv/SetBool"])
        .success()
        .stdout_text();
    assert_eq!(found, "/tools/switch\n");
    let out = f
        .run(&[
            "service",
            "call",
            "/tools/switch",
            "std_srvs/srv/SetBool",
            "{data: true}",
        ])
        .success()
        .stdout_text();
    assert!(
        out.contains("requester: making request: {data: true}"),
        "{out}"
    );
    assert!(
        out.contains("response:\n{success: true, message: was true}\n"),
        "{out}"
    );
    // The type from the graph.
    let out = f
        .run(&["service", "call", "/tools/switch"])
        .success()
        .stdout_text();
    assert!(
        out.contains("{success: false, message: was false}"),
        "{out}"
    );
    f.run(&["service", "call", "/tools/switch", "std_msgs/msg/String"])
        .failure()
        .stderr_has(&["is not a service type"]);
}

#[test]
fn completion_scripts_cover_every_verb() {
    for shell in ["bash", "zsh", "fish"] {
        let script = common::run(&mut common::hibari(["completions", shell]))
            .success()
            .stdout_text();
        for verb in ["topic", "echo", "send_goal", "dump", "qos-reliability"] {
            assert!(script.contains(verb), "{shell} completion lacks {verb}");
        }
    }
    let bad = common::run(&mut common::hibari(["completions", "tcsh"]));
    assert_eq!(bad.code, Some(2), "clap's usage error");
    assert!(
        bad.stderr.contains("invalid value 'tcsh'"),
        "{}",
        bad.stderr
    );
}
