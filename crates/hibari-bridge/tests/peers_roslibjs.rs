//! roslibjs 2.x under Node against the bridge and native hibari nodes
//! (tests/js/roslibjs.mjs holds the client side of each scenario).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{node_script, Fixture, LONG};
use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::sensor_msgs::msg::Image;
use hibari::msg::std_msgs::msg::{Float32MultiArray, Float64, Header, String as RosString};
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::{QosProfile, SingleThreadedExecutor};

#[test]
fn a_roslibjs_client_publishes_to_a_native_node_and_hears_its_answers_across_a_reconnect() {
    let f = Fixture::new();
    let echo = Arc::new(
        f.node
            .create_publisher::<RosString>("/to_js", QosProfile::default())
            .unwrap(),
    );
    let heard = Arc::new(Mutex::new(Vec::new()));
    let (e, h) = (echo.clone(), heard.clone());
    let _sub = f
        .node
        .create_subscription("/from_js", QosProfile::default(), move |m: RosString| {
            h.lock().unwrap().push(m.data.clone());
            e.publish(RosString {
                data: m.data.to_uppercase(),
            })
            .unwrap();
        })
        .unwrap();
    node_script("roslibjs.mjs", &[&f.url(), "echo"]).finish();
    assert_eq!(heard.lock().unwrap().len(), 10);
    assert_eq!(heard.lock().unwrap()[9], "hello 1 4");
}

#[test]
fn roslibjs_decodes_base64_cbor_typed_arrays_cbor_raw_png_nan_times_and_fragments() {
    let f = Fixture::new();
    let img = f
        .node
        .create_publisher::<Image>("/img", QosProfile::default())
        .unwrap();
    let floats = f
        .node
        .create_publisher::<Float32MultiArray>("/floats", QosProfile::default())
        .unwrap();
    let nan = f
        .node
        .create_publisher::<Float64>("/nan", QosProfile::default())
        .unwrap();
    let time = f
        .node
        .create_publisher::<Time>("/time", QosProfile::default())
        .unwrap();
    let long = f
        .node
        .create_publisher::<RosString>("/long", QosProfile::default())
        .unwrap();
    let _ready = f
        .node
        .create_subscription("/ready", QosProfile::default(), move |_m: RosString| {
            img.publish(Image {
                header: Header {
                    stamp: Time {
                        sec: 12,
                        nanosec: 34,
                    },
                    frame_id: "cam".into(),
                },
                height: 1,
                width: 6,
                encoding: "mono8".into(),
                step: 6,
                data: vec![0, 1, 2, 3, 4, 5],
                ..Default::default()
            })
            .unwrap();
            floats
                .publish(Float32MultiArray {
                    data: vec![1.5, -2.25],
                    ..Default::default()
                })
                .unwrap();
            nan.publish(Float64 { data: f64::NAN }).unwrap();
            time.publish(Time {
                sec: 1_700_000_000,
                nanosec: 5,
            })
            .unwrap();
            long.publish(RosString {
                data: "x".repeat(300),
            })
            .unwrap();
        })
        .unwrap();
    node_script("roslibjs.mjs", &[&f.url(), "encodings"]).finish();
}

#[test]
fn roslibjs_calls_native_services_and_rosapi_and_serves_native_callers() {
    let f = Fixture::new();
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
    let caller = f.context.create_node("caller").unwrap();
    let native = std::thread::spawn(move || {
        let client = caller
            .create_client::<SetBool>("/js_service", QosProfile::services_default())
            .unwrap();
        assert!(client.wait_for_service(LONG), "the JS service appears");
        let a = client.call_async(SetBool_Request { data: true });
        let b = client.call_async(SetBool_Request { data: false });
        let block = |fut: hibari::ResponseFuture<SetBool>| {
            SingleThreadedExecutor::new()
                .spin_until_future_complete(fut, LONG)
                .unwrap()
                .unwrap()
        };
        let (b, a) = (block(b), block(a));
        (a, b)
    });
    let peer = node_script("roslibjs.mjs", &[&f.url(), "services"]);
    let (a, b) = native.join().unwrap();
    assert_eq!((a.success, a.message.as_str()), (false, "js saw true"));
    assert_eq!((b.success, b.message.as_str()), (true, "js saw false"));
    peer.finish();
}

#[test]
fn each_new_roslibjs_client_gets_the_latched_message_and_best_effort_topics_flow() {
    let f = Fixture::new();
    let latched = f
        .node
        .create_publisher::<RosString>("/latched", QosProfile::latched(1))
        .unwrap();
    latched
        .publish(RosString {
            data: "kept".into(),
        })
        .unwrap();
    let best = f
        .node
        .create_publisher::<RosString>("/best_effort", QosProfile::sensor_data())
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let ticker = std::thread::spawn(move || {
        while !s.load(Ordering::Relaxed) {
            best.publish(RosString {
                data: "tick".into(),
            })
            .unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    node_script("roslibjs.mjs", &[&f.url(), "latched"]).finish();
    stop.store(true, Ordering::Relaxed);
    ticker.join().unwrap();
}

#[test]
fn roslibjs_sees_status_messages_only_after_set_level() {
    let f = Fixture::new();
    node_script("roslibjs.mjs", &[&f.url(), "status"]).finish();
}
