//! Generic (run-time typed, CDR) services and clients against typed ones and
//! each other, on real executor threads.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::{CallError, Context, Message, QosProfile, ServiceResponder, SingleThreadedExecutor};

const TYPE: &str = "std_srvs/srv/SetBool";
const LONG: Duration = Duration::from_secs(5);

fn spin(
    node: &hibari::Node,
) -> (
    std::sync::Arc<SingleThreadedExecutor>,
    thread::JoinHandle<()>,
) {
    let executor = std::sync::Arc::new(SingleThreadedExecutor::new());
    executor.add_node(node).unwrap();
    let e = executor.clone();
    (executor, thread::spawn(move || e.spin()))
}

#[test]
fn a_typed_client_is_answered_by_a_generic_server_that_replies_later_from_another_thread() {
    let context = Context::builder().isolated().create().unwrap();
    let server_node = context.create_node("generic_server").unwrap();
    let (tx, rx) = mpsc::channel::<(Vec<u8>, ServiceResponder)>();
    let _server = server_node
        .create_generic_service(
            "switch",
            TYPE,
            QosProfile::services_default(),
            move |req, responder| {
                tx.send((req.to_vec(), responder)).unwrap();
            },
        )
        .unwrap();
    // The answering thread: decodes the request, answers after the callback returned.
    let answerer = thread::spawn(move || {
        for _ in 0..2 {
            let (bytes, responder) = rx.recv_timeout(LONG).unwrap();
            let request = SetBool_Request::from_cdr(&bytes).unwrap();
            let response = SetBool_Response {
                success: request.data,
                message: format!("seq {}", responder.info().sequence),
            };
            responder.respond(&response.to_cdr().unwrap()).unwrap();
        }
    });
    let (executor, spinner) = spin(&server_node);
    let client = context
        .create_node("user")
        .unwrap()
        .create_client::<SetBool>("switch", QosProfile::services_default())
        .unwrap();
    assert!(client.wait_for_service(LONG));
    let first = client.call(SetBool_Request { data: true }, LONG).unwrap();
    let second = client.call(SetBool_Request { data: false }, LONG).unwrap();
    assert_eq!((first.success, first.message.as_str()), (true, "seq 1"));
    assert_eq!((second.success, second.message.as_str()), (false, "seq 2"));
    answerer.join().unwrap();
    hibari_testkit::cancel_and_join(
        spinner,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
}

#[test]
fn a_generic_client_calls_a_typed_server_and_gets_the_response_bytes() {
    let context = Context::builder().isolated().create().unwrap();
    let server_node = context.create_node("typed_server").unwrap();
    let _server = server_node
        .create_service::<SetBool, _>(
            "light",
            QosProfile::services_default(),
            |r: SetBool_Request| SetBool_Response {
                success: !r.data,
                message: "typed".into(),
            },
        )
        .unwrap();
    let (executor, spinner) = spin(&server_node);
    let node = context.create_node("bridge").unwrap();
    let client = node
        .create_generic_client("light", TYPE, QosProfile::services_default())
        .unwrap();
    assert!(client.wait_for_service(LONG));
    let request = SetBool_Request { data: false }.to_cdr().unwrap();
    // Two calls in flight at once, completed in the other order.
    let a = client.call_async(request);
    let b = client.call_async(SetBool_Request { data: true }.to_cdr().unwrap());
    let b = SetBool_Response::from_cdr(&tokio_free_block(b).unwrap()).unwrap();
    let a = SetBool_Response::from_cdr(&tokio_free_block(a).unwrap()).unwrap();
    assert_eq!(
        (a.success, b.success, a.message.as_str()),
        (true, false, "typed")
    );
    assert_eq!(client.unreadable_replies(), 0);
    hibari_testkit::cancel_and_join(
        spinner,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
}

#[test]
fn generic_client_and_generic_server_talk_and_dropping_the_server_fails_waiting_calls() {
    let context = Context::builder().isolated().create().unwrap();
    let server_node = context.create_node("echo").unwrap();
    let (tx, rx) = mpsc::channel::<ServiceResponder>();
    let server = server_node
        .create_generic_service(
            "echo",
            TYPE,
            QosProfile::services_default(),
            move |req, responder| {
                let request = SetBool_Request::from_cdr(&req).unwrap();
                if request.data {
                    let reply = SetBool_Response {
                        success: true,
                        message: "now".into(),
                    };
                    responder.respond(&reply.to_cdr().unwrap()).unwrap();
                } else {
                    tx.send(responder).unwrap(); // never answered
                }
            },
        )
        .unwrap();
    let (executor, spinner) = spin(&server_node);
    let client = context
        .create_node("caller")
        .unwrap()
        .create_generic_client("/echo", TYPE, QosProfile::services_default())
        .unwrap();
    assert!(client.wait_for_service(LONG));
    let now = client
        .call(SetBool_Request { data: true }.to_cdr().unwrap(), LONG)
        .unwrap();
    assert_eq!(SetBool_Response::from_cdr(&now).unwrap().message, "now");

    let waiting = client.call_async(SetBool_Request { data: false }.to_cdr().unwrap());
    let held = rx.recv_timeout(LONG).unwrap();
    hibari_testkit::cancel_and_join(
        spinner,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
    drop(server);
    let outcome = tokio_free_block(waiting);
    assert!(
        matches!(outcome, Err(CallError::ServiceGone { .. })),
        "{outcome:?}"
    );
    assert!(matches!(
        held.respond(&[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
        Err(hibari::ServiceRespondError::ServerGone)
    ));
    assert!(matches!(
        client.call(SetBool_Request::default().to_cdr().unwrap(), LONG),
        Err(CallError::ServiceUnavailable { .. })
    ));
}

#[test]
fn a_type_name_that_is_not_a_service_is_refused() {
    let node = Context::builder()
        .isolated()
        .create()
        .unwrap()
        .create_node("n")
        .unwrap();
    let err = node
        .create_generic_client("x", "std_msgs/msg/String", QosProfile::services_default())
        .unwrap_err();
    assert!(err.to_string().contains("package/srv/Name"), "{err}");
    assert!(node
        .create_generic_service("x", "nope", QosProfile::services_default(), |_, _| {})
        .is_err());
}

/// Completes a future with a fresh executor (none of the nodes needs spinning).
fn tokio_free_block<F: std::future::Future + Unpin>(f: F) -> F::Output {
    SingleThreadedExecutor::new()
        .spin_until_future_complete(f, LONG)
        .expect("the future completes")
}
