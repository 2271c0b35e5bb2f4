//! @foxglove/ws-protocol's client against the bridge and native hibari
//! nodes (tests/js/foxglove.mjs holds the client side).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{node_script, wait_until, Fixture, Raw, LONG};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::QosProfile;

#[test]
fn a_foxglove_client_sees_the_graph_gets_raw_cdr_publishes_and_calls_services() {
    let f = Fixture::with(|mut c| {
        c.time_interval = Duration::from_millis(100);
        c
    });
    let data = Arc::new(Mutex::new(Some(
        f.node
            .create_publisher::<RosString>("/fox_data", QosProfile::default())
            .unwrap(),
    )));
    let d = data.clone();
    let _ready = f
        .node
        .create_subscription("/ready", QosProfile::default(), move |m: RosString| {
            let mut slot = d.lock().unwrap();
            match m.data.as_str() {
                "publish" => {
                    if let Some(p) = slot.as_ref() {
                        p.publish(RosString {
                            data: "hello fox".into(),
                        })
                        .unwrap();
                    }
                }
                _ => *slot = None,
            }
        })
        .unwrap();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let h = heard.clone();
    let _in = f
        .node
        .create_subscription("/fox_in", QosProfile::default(), move |m: RosString| {
            h.lock().unwrap().push(m.data)
        })
        .unwrap();
    let _set = f
        .node
        .create_service::<SetBool, _>(
            "/set",
            QosProfile::services_default(),
            |r: SetBool_Request| SetBool_Response {
                success: r.data,
                message: format!("got {}", r.data),
            },
        )
        .unwrap();
    node_script("foxglove.mjs", &[&f.url()]).finish();
    assert_eq!(heard.lock().unwrap().as_slice(), ["from foxglove"]);
    assert!(
        wait_until(LONG, || f.bridge.stats().clients.is_empty()),
        "cleaned up"
    );
    assert_eq!(
        f.node.count_publishers("/fox_in").unwrap(),
        1,
        "kept for unregister_timeout"
    );
    assert!(wait_until(LONG, || f
        .node
        .count_publishers("/fox_in")
        .unwrap()
        == 0));
}

#[test]
fn truncated_or_lying_foxglove_binary_frames_get_a_status_not_a_crash() {
    use tungstenite::client::IntoClientRequest;
    let f = Fixture::new();
    let mut request = f.url().into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Sec-WebSocket-Protocol", "foxglove.sdk.v1".parse().unwrap());
    let (ws, _) = tungstenite::connect(request).unwrap();
    let mut c = Raw { ws };
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = c.ws.get_ref() {
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
    }
    let frames: [&[u8]; 6] = [
        &[],
        &[0x01, 1, 0],
        &[0x02, 1, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, b'c'],
        &[0x07, 0, 0, 0],
        &[0x01, 9, 9, 9, 9, 0, 1, 0, 0],
        &[0x02, 1, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0xff, 0xfe, 0xfd],
    ];
    for frame in frames {
        c.ws.send(tungstenite::Message::binary(frame.to_vec()))
            .unwrap();
    }
    for text in [
        "{",
        r#"{"op":"subscribe","subscriptions":[{"id":1,"channelId":424242}]}"#,
        r#"{"op":"getParameters","parameterNames":[]}"#,
        r#"{"op":"advertise","channels":[{"id":1,"topic":"/x","encoding":"protobuf","schemaName":"a/B"}]}"#,
    ] {
        c.send_text(text);
    }
    let mut statuses = 0;
    while let Some(s) = c.recv_op("status", Duration::from_millis(500)) {
        assert_eq!(s["level"], 2, "{s}");
        statuses += 1;
    }
    assert_eq!(statuses, frames.len() + 4);
    let mut rosbridge = Raw::connect(&f.url());
    rosbridge.send(serde_json::json!({"op": "call_service", "service": "/rosapi/nodes"}));
    assert!(
        rosbridge.recv_op("service_response", LONG).is_some(),
        "still serving"
    );
}
