//! The async face under tokio: a subscription as a `Stream`, a service call
//! as a `Future`. Each test proves the runtime's thread is not blocked by
//! making the awaited event depend on another task of the same
//! current-thread runtime: were the thread blocked, that task could not run
//! and the test would hang (the watchdog fails it).

mod echo;

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use echo::{double, isolated, within, Echo, EchoRequest, EchoResponse};
use futures_core::Stream;
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{CallError, QosProfile, SingleThreadedExecutor};

const LONG: Duration = Duration::from_secs(10);

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn a_subscription_stream_is_woken_by_a_publish_from_another_task_of_the_same_thread() {
    let node = isolated().create_node("n").unwrap();
    let mut stream = node
        .create_subscription_stream::<RosString>("chatter", QosProfile::default())
        .unwrap();
    let publisher = node
        .create_publisher::<RosString>("chatter", QosProfile::default())
        .unwrap();
    let received = within(LONG, move || {
        current_thread().block_on(async move {
            let talker = tokio::spawn(async move {
                for i in 0..5 {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    publisher
                        .publish(RosString {
                            data: format!("hello {i}"),
                        })
                        .unwrap();
                }
            });
            let mut received = Vec::new();
            for _ in 0..5 {
                // Through the `Stream` trait, as `StreamExt::next` would.
                let next = std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await;
                let (message, info) = next.expect("the stream never ends");
                received.push((message.data, info.sequence));
            }
            talker.await.unwrap();
            received
        })
    });
    let expected: Vec<_> = (0..5)
        .map(|i| (format!("hello {i}"), i as u64 + 1))
        .collect();
    assert_eq!(received, expected);
}

#[test]
fn a_subscription_stream_moves_samples_from_another_thread_in_order() {
    let node = isolated().create_node("n").unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    let mut stream = node
        .create_subscription_stream::<EchoRequest>("data", QosProfile::default())
        .unwrap();
    let publisher = node
        .create_publisher::<EchoRequest>("data", QosProfile::default())
        .unwrap();
    let (addresses_tx, addresses) = mpsc::channel();
    let counter = clones.clone();
    let talker = std::thread::spawn(move || {
        for n in 0..1000 {
            let message = EchoRequest::new(n, &counter);
            addresses_tx.send(message.body.as_ptr() as usize).unwrap();
            publisher.publish(message).unwrap();
        }
    });
    let got = within(LONG, move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async move {
            let mut got = Vec::new();
            for _ in 0..1000 {
                let (message, _info) = stream.recv().await;
                got.push((message.n, message.body.as_ptr() as usize));
            }
            got
        })
    });
    talker.join().unwrap();
    let sent: Vec<usize> = addresses.iter().collect();
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        (0..1000).collect::<Vec<_>>()
    );
    assert_eq!(
        got.iter().map(|g| g.1).collect::<Vec<_>>(),
        sent,
        "moved, not copied"
    );
    assert_eq!(clones.load(Ordering::SeqCst), 0);
}

#[test]
fn a_response_future_is_woken_while_another_task_of_the_same_thread_runs() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    // The server answers only once a tokio task of the client's thread has
    // opened the gate.
    let (open, gate) = mpsc::channel::<()>();
    let gate = Mutex::new(gate);
    let _server = node
        .create_service::<Echo, _>(
            "gated",
            QosProfile::services_default(),
            move |r: EchoRequest| {
                gate.lock()
                    .unwrap()
                    .recv_timeout(LONG)
                    .expect("the gate opens");
                double(r)
            },
        )
        .unwrap();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let spinner = executor.clone();
    let spin = std::thread::spawn(move || spinner.spin());
    let client = context
        .create_node("client")
        .unwrap()
        .create_client::<Echo>("gated", QosProfile::services_default())
        .unwrap();
    assert!(client.wait_for_service(LONG));
    let response = within(LONG, move || {
        current_thread().block_on(async move {
            let opener = tokio::spawn(async move {
                tokio::task::yield_now().await;
                open.send(()).unwrap();
            });
            let clones = Arc::new(AtomicUsize::new(0));
            let response = client.call_async(EchoRequest::new(20, &clones)).await;
            opener.await.unwrap();
            response
        })
    });
    assert_eq!(response.unwrap().n, 40);
    hibari_testkit::cancel_and_join(
        spin,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
}

#[test]
fn a_tokio_timeout_on_a_response_future_forgets_the_request() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let _server = node
        .create_service::<Echo, _>("unspun", QosProfile::services_default(), double)
        .unwrap();
    let client = node
        .create_client::<Echo>("unspun", QosProfile::services_default())
        .unwrap();
    let (elapsed, pending) = within(LONG, move || {
        current_thread().block_on(async move {
            let clones = Arc::new(AtomicUsize::new(0));
            let call = client.call_async(EchoRequest::new(1, &clones));
            let r = tokio::time::timeout(Duration::from_millis(20), call).await;
            (r.is_err(), client.pending_requests())
        })
    });
    assert!(elapsed);
    assert_eq!(pending, 0);
}

#[test]
fn calls_in_flight_complete_on_a_multi_threaded_runtime() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let _server = node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let spinner = executor.clone();
    let spin = std::thread::spawn(move || spinner.spin());
    let client = Arc::new(
        context
            .create_node("client")
            .unwrap()
            .create_client::<Echo>("echo", QosProfile::services_default())
            .unwrap(),
    );
    assert!(client.wait_for_service(LONG));
    let results: Vec<Result<EchoResponse, CallError>> = within(LONG, move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let tasks: Vec<_> = (0..8u64)
                .map(|n| {
                    let client = client.clone();
                    tokio::spawn(async move {
                        let clones = Arc::new(AtomicUsize::new(0));
                        client.call_async(EchoRequest::new(n, &clones)).await
                    })
                })
                .collect();
            let mut results = Vec::new();
            for t in tasks {
                results.push(t.await.unwrap());
            }
            results
        })
    });
    let answers: Vec<u64> = results.into_iter().map(|r| r.unwrap().n).collect();
    assert_eq!(answers, (0..8).map(|n| 2 * n).collect::<Vec<_>>());
    hibari_testkit::cancel_and_join(
        spin,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
}
