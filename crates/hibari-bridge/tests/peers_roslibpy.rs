//! roslibpy 2.x (Twisted and asyncio transports) against the bridge and
//! native hibari nodes (tests/py/roslibpy_peer.py holds the client side).

mod common;

use std::sync::{Arc, Mutex};

use common::{python_script, Fixture, LONG};
use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::std_msgs::msg::{Header, Int64, String as RosString, UInt64};
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::{QosProfile, SingleThreadedExecutor};

fn port(f: &Fixture) -> String {
    f.bridge.local_addr().port().to_string()
}

fn echo_node(
    f: &Fixture,
) -> (
    Vec<hibari::Subscription<RosString>>,
    Arc<Mutex<Vec<String>>>,
) {
    let answer = Arc::new(
        f.node
            .create_publisher::<RosString>("/to_py", QosProfile::default())
            .unwrap(),
    );
    let heard = Arc::new(Mutex::new(Vec::new()));
    let h = heard.clone();
    let sub = f
        .node
        .create_subscription("/from_py", QosProfile::default(), move |m: RosString| {
            h.lock().unwrap().push(m.data.clone());
            answer
                .publish(RosString {
                    data: m.data.to_uppercase(),
                })
                .unwrap();
        })
        .unwrap();
    (vec![sub], heard)
}

#[test]
fn roslibpy_over_twisted_publishes_to_a_native_node_and_hears_it() {
    let f = Fixture::new();
    let (_subs, heard) = echo_node(&f);
    python_script("roslibpy_peer.py", &[&port(&f), "echo"]).finish();
    assert_eq!(heard.lock().unwrap().len(), 5);
}

#[test]
fn roslibpy_over_asyncio_publishes_to_a_native_node_and_hears_it() {
    let f = Fixture::new();
    let (_subs, heard) = echo_node(&f);
    python_script("roslibpy_peer.py", &[&port(&f), "echo", "asyncio"]).finish();
    assert_eq!(heard.lock().unwrap().len(), 5);
}

#[test]
fn roslibpy_gets_64_bit_integers_exactly_and_its_ros1_time_fields_are_understood() {
    let f = Fixture::new();
    let out = f
        .node
        .create_publisher::<Int64>("/i64_out", QosProfile::default())
        .unwrap();
    let u64s = Arc::new(Mutex::new(Vec::new()));
    let headers = Arc::new(Mutex::new(Vec::new()));
    let (u, h) = (u64s.clone(), headers.clone());
    let _u = f
        .node
        .create_subscription("/u64_in", QosProfile::default(), move |m: UInt64| {
            u.lock().unwrap().push(m.data)
        })
        .unwrap();
    let _h = f
        .node
        .create_subscription("/header_in", QosProfile::default(), move |m: Header| {
            h.lock().unwrap().push(m)
        })
        .unwrap();
    let _ready = f
        .node
        .create_subscription("/ready", QosProfile::default(), move |_m: RosString| {
            out.publish(Int64 {
                data: (1 << 62) + 1,
            })
            .unwrap();
        })
        .unwrap();
    python_script("roslibpy_peer.py", &[&port(&f), "exact"]).finish();
    assert_eq!(u64s.lock().unwrap().as_slice(), [u64::MAX]);
    let h = headers.lock().unwrap();
    assert_eq!(
        (h[0].stamp.clone(), h[0].frame_id.as_str()),
        (Time { sec: 7, nanosec: 8 }, "py")
    );
}

#[test]
fn roslibpy_calls_native_services_and_serves_native_callers() {
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
            .create_client::<SetBool>("/py_service", QosProfile::services_default())
            .unwrap();
        assert!(client.wait_for_service(LONG));
        let a = client.call_async(SetBool_Request { data: true });
        let b = client.call_async(SetBool_Request { data: false });
        let block = |fut: hibari::ResponseFuture<SetBool>| {
            SingleThreadedExecutor::new()
                .spin_until_future_complete(fut, LONG)
                .unwrap()
                .unwrap()
        };
        (block(a), block(b))
    });
    let peer = python_script("roslibpy_peer.py", &[&port(&f), "services"]);
    let (a, b) = native.join().unwrap();
    assert_eq!((a.success, a.message.as_str()), (false, "py saw True"));
    assert_eq!((b.success, b.message.as_str()), (true, "py saw False"));
    peer.finish();
}
