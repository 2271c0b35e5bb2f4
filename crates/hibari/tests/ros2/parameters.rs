//! Parameters both ways: rclpy's `AsyncParameterClient` reads and sets a
//! hibari node's parameters (and sees its `/parameter_events`), and hibari's
//! `ParameterClient` does the same to an rclpy node.

use std::sync::mpsc;
use std::time::Duration;

use hibari::msg::rcl_interfaces::msg::ParameterEvent;
use hibari::parameter::{FloatingPointRange, ParameterClientError};
use hibari::{Parameter, ParameterClient, ParameterDescriptor, ParameterValue, QosProfile};
use serde_json::json;

use super::peer::LIMIT;
use super::spinner::Spinner;
use super::Rig;

pub fn an_rclpy_client_reads_and_sets_a_hibari_nodes_parameters(distro: &str) {
    let rig = Rig::new("hibari_params");
    let node = &rig.node;
    node.declare_parameter("rate", 30i64).unwrap();
    let gain = ParameterDescriptor {
        floating_point_range: Some(FloatingPointRange {
            from_value: 0.0,
            to_value: 1.0,
            step: 0.0,
        }),
        ..ParameterDescriptor::new("the gain")
    };
    node.declare_parameter_with("gain", 0.5, gain, false)
        .unwrap();
    let port = ParameterDescriptor {
        read_only: true,
        ..ParameterDescriptor::default()
    };
    node.declare_parameter_with("port", "/dev/ttyUSB0", port, false)
        .unwrap();
    let _spinner = Spinner::new(&[node]);

    let peer = rig.peer(distro, "param_client", "rclpy_params", &["/hibari_params"]);
    let line = peer.expect("result ");
    let seen: serde_json::Value = serde_json::from_str(&line["result ".len()..]).unwrap();
    assert_eq!(
        seen["names"],
        json!(["gain", "port", "rate", "use_sim_time"]),
        "{line}"
    );
    assert_eq!(seen["values"], json!([[2, 30], [3, 0.5]]), "{line}");
    assert_eq!(
        seen["missing"],
        json!(0),
        "a get naming an undeclared parameter answers nothing"
    );
    assert_eq!(
        seen["gain"],
        json!({"description": "the gain", "type": 3, "range": [[0.0, 1.0, 0.0]]})
    );
    assert_eq!(seen["types"], json!([2, 4]));
    let set = seen["set"].as_array().unwrap();
    assert_eq!(set[0], json!([true, ""]), "{line}");
    assert_eq!(
        set[1],
        json!([
            false,
            "Wrong parameter type, expected 'Type.INTEGER' got 'Type.STRING'"
        ])
    );
    assert_eq!(
        set[2],
        json!([
            false,
            "Parameter gain out of range Min: 0.0, Max: 1.0, value: 2.0"
        ])
    );
    assert_eq!(
        set[3],
        json!([false, "Trying to set a read-only parameter: port."])
    );
    assert_eq!(set[4][0], json!(false));
    assert!(
        set[4][1]
            .as_str()
            .unwrap()
            .starts_with("Invalid access to undeclared parameter(s)"),
        "{line}"
    );
    assert_eq!(
        seen["event"],
        json!([2, 60]),
        "the /parameter_events change"
    );
    assert_eq!(node.get_parameter("rate").unwrap(), 60i64.into());
}

pub fn a_hibari_client_reads_and_sets_an_rclpy_nodes_parameters(distro: &str) {
    let rig = Rig::new("hibari_param_client");
    let (tx, events) = mpsc::channel();
    let _subscription = rig
        .node
        .create_subscription(
            "/parameter_events",
            QosProfile::parameter_events(),
            move |e: ParameterEvent| {
                if e.node == "/rclpy_params" {
                    let _ = tx.send(e);
                }
            },
        )
        .unwrap();
    let _spinner = Spinner::new(&[&rig.node]);
    let peer = rig.peer(distro, "param_server", "rclpy_params", &[]);
    peer.expect("ready");
    let client = ParameterClient::new(&rig.node, "/rclpy_params").unwrap();
    assert!(
        client.wait_for_services(LIMIT),
        "rclpy's parameter services"
    );
    let t = Duration::from_secs(10);

    let listed = client.list_parameters(&[], 0, t).unwrap();
    for name in ["gain", "names", "rate", "use_sim_time"] {
        assert!(listed.names.iter().any(|n| n == name), "{listed:?}");
    }
    assert_eq!(
        client
            .get_parameters(&["rate", "gain", "names"], t)
            .unwrap(),
        [
            ParameterValue::Integer(30),
            ParameterValue::Double(0.5),
            ParameterValue::StringArray(vec!["a".into(), "b".into()]),
        ]
    );
    assert!(matches!(
        client.get_parameters(&["nope"], t),
        Err(ParameterClientError::NotDeclared { .. })
    ));
    let gain = &client.describe_parameters(&["gain"], t).unwrap()[0];
    assert_eq!(gain.description, "the gain");
    assert_eq!(gain.floating_point_range.unwrap().to_value, 1.0);

    let r = client
        .set_parameters(&[Parameter::new("gain", 0.7)], t)
        .unwrap();
    assert!(r[0].successful, "{r:?}");
    assert_eq!(peer.expect("set gain"), "set gain 0.7");
    let r = client
        .set_parameters(
            &[Parameter::new("gain", 0.95), Parameter::new("rate", 1.5)],
            t,
        )
        .unwrap();
    assert_eq!(r[0].reason, "gain above 0.9");
    // Jazzy names the types (`'Type.INTEGER'`), Kilted numbers them (`'2'`).
    assert!(!r[1].successful);
    assert!(r[1].reason.starts_with("Wrong parameter type"), "{r:?}");
    assert_eq!(
        client.get_parameters(&["gain"], t).unwrap(),
        [ParameterValue::Double(0.7)]
    );
    let deadline = std::time::Instant::now() + LIMIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let e = events
            .recv_timeout(left)
            .unwrap_or_else(|_| peer.fail("no /parameter_events change of gain"));
        let changed = e.changed_parameters.iter().find(|p| p.name == "gain");
        if let Some(p) = changed {
            assert_eq!(p.value.double_value, 0.7);
            break;
        }
    }
}
