//! Services and clients in one process, with real threads: round trips,
//! hand-over without copies, many calls in flight from several clients and
//! threads, futures completed by either executor, and what a server sees.

mod echo;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use echo::{double, isolated, spin_in_background, wait, Echo, EchoRequest, LONG};
use hibari::{
    CallbackGroupType, GuardConditionOptions, MultiThreadedExecutor, PublisherId, QosProfile,
    SampleInfo, ServiceOptions, SingleThreadedExecutor,
};

#[test]
fn a_call_hands_the_request_to_the_server_and_the_response_back_without_copies() {
    let context = isolated();
    let server_node = context.create_node("server").unwrap();
    let _server = server_node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let client = context
        .create_node("client")
        .unwrap()
        .create_client::<Echo>("echo", QosProfile::services_default())
        .unwrap();
    let _spinning = spin_in_background(&server_node);
    assert!(client.wait_for_service(LONG));

    let clones = Arc::new(AtomicUsize::new(0));
    let request = EchoRequest::new(21, &clones);
    let address = request.body.as_ptr();
    let response = client.call(request, LONG).unwrap();
    assert_eq!(response.n, 42);
    assert_eq!(response.body.as_ptr(), address, "moved there and back");
    assert_eq!(clones.load(Ordering::SeqCst), 0);
    assert_eq!(client.pending_requests(), 0);
}

#[test]
fn two_clients_with_many_calls_in_flight_each_get_only_their_own_replies() {
    const CALLS: u64 = 200;
    let context = isolated();
    let server_node = context.create_node("server").unwrap();
    let seen: Arc<Mutex<HashMap<PublisherId, Vec<u64>>>> = Arc::default();
    let record = seen.clone();
    let options = ServiceOptions::new(QosProfile::services_default().keep_last(400));
    let _server = server_node
        .create_service::<Echo, _>("echo", options, move |r: EchoRequest, info: SampleInfo| {
            let mut seen = record.lock().unwrap();
            seen.entry(info.publisher_id)
                .or_default()
                .push(info.sequence);
            double(r)
        })
        .unwrap();
    let _spinning = spin_in_background(&server_node);
    let clients: Vec<_> = (0..2)
        .map(|i| {
            let node = context.create_node(&format!("client{i}")).unwrap();
            Arc::new(
                node.create_client::<Echo>("echo", QosProfile::services_default())
                    .unwrap(),
            )
        })
        .collect();
    let threads: Vec<_> = clients
        .iter()
        .enumerate()
        .map(|(i, client)| {
            let client = client.clone();
            std::thread::spawn(move || {
                assert!(client.wait_for_service(LONG));
                let clones = Arc::new(AtomicUsize::new(0));
                let base = (i as u64 + 1) * 1_000_000;
                let futures: Vec<_> = (0..CALLS)
                    .map(|k| client.call_async(EchoRequest::new(base + k, &clones)))
                    .collect();
                for (k, future) in futures.into_iter().enumerate() {
                    assert_eq!(future.sequence(), Some(k as u64 + 1));
                    assert_eq!(wait(future).unwrap().n, 2 * (base + k as u64));
                }
                assert_eq!(clones.load(Ordering::SeqCst), 0, "never copied");
                assert_eq!(client.pending_requests(), 0);
                assert_eq!(client.unreadable_replies(), 0);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let seen = seen.lock().unwrap();
    for client in &clients {
        let sequences = &seen[&client.id()];
        assert_eq!(
            *sequences,
            (1..=CALLS).collect::<Vec<_>>(),
            "in order, each once"
        );
    }
}

#[test]
fn blocking_calls_from_many_threads_share_one_client() {
    let context = isolated();
    let node = context.create_node("both").unwrap();
    let _server = node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let client = Arc::new(
        node.create_client::<Echo>("echo", QosProfile::services_default())
            .unwrap(),
    );
    let executor = Arc::new(MultiThreadedExecutor::new(2));
    executor.add_node(&node).unwrap();
    let spinner = executor.clone();
    let spin = std::thread::spawn(move || spinner.spin());
    let clones = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let (client, clones) = (client.clone(), clones.clone());
            std::thread::spawn(move || {
                for k in 0..50 {
                    let n = t * 100 + k;
                    assert_eq!(
                        client.call(EchoRequest::new(n, &clones), LONG).unwrap().n,
                        2 * n
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    hibari_testkit::cancel_and_join(
        spin,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
    assert_eq!(clones.load(Ordering::SeqCst), 0);
}

#[test]
fn wait_for_service_wakes_when_a_server_appears() {
    let context = isolated();
    let client = context
        .create_node("client")
        .unwrap()
        .create_client::<Echo>("late", QosProfile::services_default())
        .unwrap();
    let node = context.create_node("server").unwrap();
    let creator = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        let server = node
            .create_service::<Echo, _>("late", QosProfile::services_default(), double)
            .unwrap();
        (node, server)
    });
    assert!(client.wait_for_service(LONG));
    assert!(client.service_is_ready());
    let (_node, server) = creator.join().unwrap();
    assert_eq!(server.matched_clients(), 1);
    assert_eq!(server.name(), "/late");
}

#[test]
fn call_async_completes_under_spin_until_future_complete_of_either_executor() {
    let context = isolated();
    let node = context.create_node("server").unwrap();
    let _server = node
        .create_service::<Echo, _>("echo", QosProfile::services_default(), double)
        .unwrap();
    let client = context
        .create_node("client")
        .unwrap()
        .create_client::<Echo>("echo", QosProfile::services_default())
        .unwrap();
    let clones = Arc::new(AtomicUsize::new(0));

    let single = SingleThreadedExecutor::new();
    single.add_node(&node).unwrap();
    let future = client.call_async(EchoRequest::new(3, &clones));
    assert_eq!(
        single
            .spin_until_future_complete(future, LONG)
            .unwrap()
            .unwrap()
            .n,
        6
    );
    // Two calls awaited together in one async block.
    let (a, b) = (
        client.call_async(EchoRequest::new(4, &clones)),
        client.call_async(EchoRequest::new(5, &clones)),
    );
    let sum = single
        .spin_until_future_complete(async { a.await.unwrap().n + b.await.unwrap().n }, LONG)
        .unwrap();
    assert_eq!(sum, 18);
    single.remove_node(&node);

    let multi = MultiThreadedExecutor::new(2);
    multi.add_node(&node).unwrap();
    let future = client.call_async(EchoRequest::new(7, &clones));
    assert_eq!(
        multi
            .spin_until_future_complete(future, LONG)
            .unwrap()
            .unwrap()
            .n,
        14
    );
    assert_eq!(clones.load(Ordering::SeqCst), 0);
}

#[test]
fn a_service_callback_sees_the_client_and_the_request_number() {
    let context = isolated();
    let node = context.create_node("n").unwrap();
    let infos: Arc<Mutex<Vec<SampleInfo>>> = Arc::default();
    let record = infos.clone();
    let _server = node
        .create_service::<Echo, _>(
            "~/echo",
            QosProfile::services_default(),
            move |r: EchoRequest, info: SampleInfo| {
                record.lock().unwrap().push(info);
                double(r)
            },
        )
        .unwrap();
    let client = node
        .create_client::<Echo>("~/echo", QosProfile::services_default())
        .unwrap();
    assert_eq!(client.service_name(), "/n/echo");
    let _spinning = spin_in_background(&node);
    let clones = Arc::new(AtomicUsize::new(0));
    for n in 0..3 {
        client.call(EchoRequest::new(n, &clones), LONG).unwrap();
    }
    let infos = infos.lock().unwrap();
    assert_eq!(
        infos.iter().map(|i| i.sequence).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert!(infos.iter().all(|i| i.publisher_id == client.id()));
}

#[test]
fn a_callback_may_call_a_server_of_another_callback_group_of_a_multi_threaded_executor() {
    let context = isolated();
    let node = context.create_node("both").unwrap();
    let own_group = node.create_callback_group(CallbackGroupType::MutuallyExclusive);
    let _apart = node
        .create_service::<Echo, _>(
            "apart",
            ServiceOptions::default().callback_group(&own_group),
            double,
        )
        .unwrap();
    let _together = node
        .create_service::<Echo, _>("together", QosProfile::services_default(), double)
        .unwrap();
    let apart = node
        .create_client::<Echo>("apart", QosProfile::services_default())
        .unwrap();
    let together = node
        .create_client::<Echo>("together", QosProfile::services_default())
        .unwrap();
    let results = Arc::new(Mutex::new(None));
    let out = results.clone();
    // The guard condition runs in the node's default group, like `together`.
    let guard = node.create_guard_condition(GuardConditionOptions::default(), move || {
        let clones = Arc::new(AtomicUsize::new(0));
        let a = apart.call(EchoRequest::new(1, &clones), LONG);
        let t = together.call(EchoRequest::new(2, &clones), Duration::from_millis(50));
        *out.lock().unwrap() = Some((a, t));
    });
    let executor = MultiThreadedExecutor::new(2);
    executor.add_node(&node).unwrap();
    guard.trigger();
    assert!(executor.spin_until(|| results.lock().unwrap().is_some(), LONG));
    let (a, t) = results.lock().unwrap().take().unwrap();
    assert_eq!(a.unwrap().n, 2, "another group runs beside the callback");
    let e = t.unwrap_err();
    assert!(matches!(e, hibari::CallError::Timeout { .. }), "{e}");
    assert!(e.to_string().contains("callback group"), "{e}");
}
