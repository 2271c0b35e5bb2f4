//! How service calls fail, with real threads: no server, a server nobody
//! spins, a call from the executor that must run the server, a server that
//! goes away, a dropped future or client, a shutdown, and spins that end
//! without their future.

mod echo;

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use echo::{
    double, isolated, spin_in_background, wait, within, Echo, EchoRequest, EchoResponse, LONG,
};
use hibari::{CallError, GuardConditionOptions, QosProfile, SingleThreadedExecutor, SpinError};

#[test]
fn a_call_without_a_server_fails_at_once() {
    let client = isolated()
        .create_node("client")
        .unwrap()
        .create_client::<Echo>("nobody", QosProfile::services_default())
        .unwrap();
    assert!(!client.service_is_ready());
    assert!(!client.wait_for_service(Duration::from_millis(20)));
    let clones = Arc::new(AtomicUsize::new(0));
    let e = client.call(EchoRequest::new(1, &clones), LONG).unwrap_err();
    assert!(
        matches!(e, CallError::ServiceUnavailable { ref service } if service == "/nobody"),
        "{e}"
    );
    assert!(e.to_string().contains("wait_for_service"), "{e}");
    assert_eq!(client.pending_requests(), 0);
}

#[test]
fn a_call_to_a_server_nobody_spins_times_out_and_is_forgotten() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let server = node
        .create_service::<Echo, _>("stuck", QosProfile::services_default(), double)
        .unwrap();
    let client = node
        .create_client::<Echo>("stuck", QosProfile::services_default())
        .unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    let e = client
        .call(EchoRequest::new(1, &clones), Duration::from_millis(30))
        .unwrap_err();
    assert!(matches!(e, CallError::Timeout { .. }), "{e}");
    assert_eq!(client.pending_requests(), 0, "forgotten");
    // The server answers late; the reply is dropped, and calls go on.
    let _spinning = spin_in_background(&node);
    assert_eq!(
        client.call(EchoRequest::new(5, &clones), LONG).unwrap().n,
        10
    );
    assert_eq!(client.pending_requests(), 0);
    assert_eq!(server.failed_replies(), 0);
}

#[test]
fn a_blocking_call_from_a_callback_of_the_executor_running_the_server_times_out_clearly() {
    let context = isolated();
    let node = context.create_node("both").unwrap();
    let _server = node
        .create_service::<Echo, _>("self", QosProfile::services_default(), double)
        .unwrap();
    let client = node
        .create_client::<Echo>("self", QosProfile::services_default())
        .unwrap();
    let result: Arc<Mutex<Option<Result<EchoResponse, CallError>>>> = Arc::default();
    let out = result.clone();
    let guard = node.create_guard_condition(GuardConditionOptions::default(), move || {
        let clones = Arc::new(AtomicUsize::new(0));
        let r = client.call(EchoRequest::new(1, &clones), Duration::from_millis(50));
        *out.lock().unwrap() = Some(r);
    });
    guard.trigger();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert!(executor.spin_until(|| result.lock().unwrap().is_some(), LONG));
    let e = result.lock().unwrap().take().unwrap().unwrap_err();
    assert!(matches!(e, CallError::Timeout { .. }), "{e}");
    assert!(e.to_string().contains("single-threaded executor"), "{e}");
}

#[test]
fn spin_until_future_complete_reports_a_timeout_and_an_interruption() {
    let context = isolated();
    let node = context.create_node("n").unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let pending = std::future::pending::<()>();
    assert_eq!(
        executor.spin_until_future_complete(pending, Duration::from_millis(20)),
        Err(SpinError::Timeout {
            timeout: Duration::from_millis(20)
        })
    );
    let ready = executor.spin_until_future_complete(async { 5 }, Duration::ZERO);
    assert_eq!(ready, Ok(5), "a ready future needs no spin");

    let stopper = context.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        stopper.shutdown();
    });
    let pending = std::future::pending::<()>();
    assert_eq!(
        executor.spin_until_future_complete(pending, LONG),
        Err(SpinError::Interrupted)
    );
    t.join().unwrap();
}

#[test]
fn dropping_a_response_future_forgets_the_request() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let _server = node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let client = node
        .create_client::<Echo>("echo", QosProfile::services_default())
        .unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    let future = client.call_async(EchoRequest::new(1, &clones));
    assert_eq!(client.pending_requests(), 1);
    drop(future);
    assert_eq!(client.pending_requests(), 0);
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert_eq!(executor.spin_some(), 1, "the server still answers");
    assert_eq!(client.pending_requests(), 0, "the late reply is dropped");
    let future = client.call_async(EchoRequest::new(2, &clones));
    assert_eq!(
        executor
            .spin_until_future_complete(future, LONG)
            .unwrap()
            .unwrap()
            .n,
        4
    );
}

#[test]
fn a_server_dropped_mid_call_fails_the_call_with_service_gone() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let server = node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let client = context
        .create_node("client")
        .unwrap()
        .create_client::<Echo>("echo", QosProfile::services_default())
        .unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    let future = client.call_async(EchoRequest::new(1, &clones));
    let blocking = within(LONG, {
        let context = context.clone();
        move || {
            let client = context
                .create_node("client2")
                .unwrap()
                .create_client::<Echo>("echo", QosProfile::services_default())
                .unwrap();
            let clones = Arc::new(AtomicUsize::new(0));
            let call = std::thread::spawn(move || client.call(EchoRequest::new(2, &clones), LONG));
            std::thread::sleep(Duration::from_millis(30));
            drop(server);
            call.join().unwrap()
        }
    });
    assert!(
        matches!(blocking, Err(CallError::ServiceGone { .. })),
        "{blocking:?}"
    );
    let e = wait(future).unwrap_err();
    assert!(matches!(e, CallError::ServiceGone { .. }), "{e}");
    assert!(!client.service_is_ready());
}

#[test]
fn a_response_future_completes_after_its_client_is_dropped() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let _server = node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let client = node
        .create_client::<Echo>("echo", QosProfile::services_default())
        .unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    let future = client.call_async(EchoRequest::new(8, &clones));
    drop(client);
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert_eq!(
        executor
            .spin_until_future_complete(future, LONG)
            .unwrap()
            .unwrap()
            .n,
        16
    );
}

#[test]
fn a_shutdown_ends_a_blocking_call() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let _server = node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let client = node
        .create_client::<Echo>("echo", QosProfile::services_default())
        .unwrap();
    let stopper = context.clone();
    let result = within(LONG, move || {
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            stopper.shutdown();
        });
        let clones = Arc::new(AtomicUsize::new(0));
        let r = client.call(EchoRequest::new(1, &clones), Duration::from_secs(60));
        t.join().unwrap();
        r
    });
    assert!(matches!(result, Err(CallError::Shutdown)), "{result:?}");
}
