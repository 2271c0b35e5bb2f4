//! Generic (run-time typed) publishers and subscriptions carrying CDR bytes.

use std::sync::mpsc;
use std::time::Duration;

use hibari::msg::std_msgs::msg::String as Chatter;
use hibari::{CdrBytes, Context, Message, QosProfile, SampleInfo, SingleThreadedExecutor};

#[test]
fn typed_and_generic_endpoints_interoperate_in_both_directions() {
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("tool").unwrap();
    let (tx, rx) = mpsc::channel::<(Vec<u8>, SampleInfo)>();
    let _generic_sub = node
        .create_generic_subscription(
            "/chatter",
            "std_msgs/msg/String",
            QosProfile::default(),
            move |bytes: CdrBytes, info| tx.send((bytes.to_vec(), info)).unwrap(),
        )
        .unwrap();
    let typed_sub = node
        .create_polled_subscription::<Chatter>("/chatter", QosProfile::default())
        .unwrap();
    let typed_pub = node
        .create_publisher::<Chatter>("/chatter", QosProfile::default())
        .unwrap();
    let generic_pub = node
        .create_generic_publisher("/chatter", "std_msgs/msg/String", QosProfile::default())
        .unwrap();
    assert_eq!(generic_pub.matched_subscriptions(), 2);

    // Typed → generic: encoded once, the bytes ROS 2 would send.
    let hello = Chatter {
        data: "hello".into(),
    };
    typed_pub.publish(hello.clone()).unwrap();
    // Generic → typed: decoded by the typed subscription.
    let bye = Chatter { data: "bye".into() };
    generic_pub.publish(bye.to_cdr().unwrap()).unwrap();

    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    let mut got = Vec::new();
    while got.len() < 2 {
        exec.spin_once(Duration::from_secs(5));
        while let Ok(x) = rx.try_recv() {
            got.push(x);
        }
    }
    assert_eq!(got[0].0, hello.to_cdr().unwrap());
    assert_eq!(got[0].1.publisher_id, typed_pub.id());
    assert_eq!(got[1].0, bye.to_cdr().unwrap());
    assert_eq!(got[1].1.publisher_id, generic_pub.id());
    assert_eq!(typed_sub.take().unwrap().0, hello);
    assert_eq!(typed_sub.take().unwrap().0, bye);
}

#[test]
fn bad_bytes_are_rejected_by_typed_subscriptions_and_bad_type_names_refused() {
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("tool").unwrap();
    let typed_sub = node
        .create_polled_subscription::<Chatter>("/chatter", QosProfile::default())
        .unwrap();
    let polled = node
        .create_generic_polled_subscription(
            "/chatter",
            "std_msgs/msg/String",
            QosProfile::default(),
        )
        .unwrap();
    let generic_pub = node
        .create_generic_publisher("/chatter", "std_msgs/msg/String", QosProfile::default())
        .unwrap();
    generic_pub.publish(vec![0u8, 1, 0, 0, 0xff]).unwrap();
    assert!(typed_sub.take().is_none());
    assert_eq!(typed_sub.rejected_samples(), 1);
    // The generic side gets the bytes as they were sent.
    assert_eq!(polled.take().unwrap().0.to_vec(), [0u8, 1, 0, 0, 0xff]);
    for bad in [
        "String",
        "std_msgs/String",
        "std_msgs/msg/",
        "/msg/X",
        "a/b/C",
    ] {
        let e = node
            .create_generic_publisher("/x", bad, QosProfile::default())
            .unwrap_err();
        assert!(e.to_string().contains("package/msg/Name"), "{e}");
        assert!(node
            .create_generic_polled_subscription("/x", bad, QosProfile::default())
            .is_err());
    }
}

#[test]
fn a_loan_without_shared_memory_is_a_buffer_sent_as_bytes() {
    use hibari::msg::sensor_msgs::msg::Image;
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("camera").unwrap();
    let sub = node
        .create_polled_subscription::<Image>("/image", QosProfile::default())
        .unwrap();
    let publisher = node
        .create_publisher::<Image>("/image", QosProfile::default())
        .unwrap();
    let header = Image {
        height: 2,
        width: 3,
        encoding: "rgb8".into(),
        step: 9,
        ..Default::default()
    };
    let (mut loan, pixels) = publisher.loan_message(&header, "data", 18).unwrap();
    assert_eq!(pixels.len(), 18);
    loan[pixels].copy_from_slice(&[5; 18]);
    loan.send().unwrap();
    let (image, _) = sub.take().unwrap();
    assert_eq!(image.data, vec![5; 18]);
    assert_eq!((image.width, image.encoding.as_str()), (3, "rgb8"));
    // A field that is not an array of the message is refused, and so is a
    // length no message can have.
    assert!(publisher.loan_message(&header, "nope", 1).is_err());
    assert!(matches!(
        publisher.loan(usize::MAX),
        Err(hibari::LoanError::TooLarge { .. })
    ));
}

/// Generic subscriptions and services join callback groups: two callbacks
/// of one reentrant group meet inside each other on a multi-threaded
/// executor (in the node's default, mutually exclusive group they could
/// not: each would wait for the other in vain).
#[test]
fn generic_callbacks_of_a_reentrant_group_run_at_the_same_time() {
    use hibari::{CallbackGroupType, MultiThreadedExecutor, ServiceOptions, SubscriptionOptions};
    use std::sync::{Arc, Mutex};

    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("parallel").unwrap();
    let group = node.create_callback_group(CallbackGroupType::Reentrant);
    let (arrive_tx, arrive_rx) = mpsc::channel::<()>();
    let arrive_rx = Arc::new(Mutex::new(arrive_rx));
    let met = Arc::new(Mutex::new(Vec::<bool>::new()));
    // Each callback says it arrived, then waits for the other to arrive.
    let meet = || {
        let (arrive_tx, arrive_rx, met) = (arrive_tx.clone(), arrive_rx.clone(), met.clone());
        move || {
            arrive_tx.send(()).unwrap();
            let other = arrive_rx
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(2));
            met.lock().unwrap().push(other.is_ok());
        }
    };
    let on_sample = meet();
    let _sub = node
        .create_generic_subscription(
            "/meet",
            "std_msgs/msg/String",
            SubscriptionOptions::new(QosProfile::default()).callback_group(&group),
            move |_: CdrBytes, _| on_sample(),
        )
        .unwrap();
    let on_request = meet();
    let _srv = node
        .create_generic_service(
            "/meet_srv",
            "std_srvs/srv/Trigger",
            ServiceOptions::default().callback_group(&group),
            move |_req, responder| {
                on_request();
                drop(responder);
            },
        )
        .unwrap();
    let publisher = node
        .create_publisher::<Chatter>("/meet", QosProfile::default())
        .unwrap();
    let client = node
        .create_client::<hibari::msg::std_srvs::srv::Trigger>(
            "/meet_srv",
            QosProfile::services_default(),
        )
        .unwrap();
    let executor = MultiThreadedExecutor::new(2);
    executor.add_node(&node).unwrap();
    publisher.publish(Chatter { data: "x".into() }).unwrap();
    let _call = client.call_async(Default::default());
    executor.spin_until(|| met.lock().unwrap().len() >= 2, Duration::from_secs(10));
    let met = met.lock().unwrap().clone();
    assert_eq!(met, vec![true, true], "the two callbacks did not overlap");
}

/// `loan_from_transport` lends memory only when a transport carries the
/// message in it (a subscriber in another process: tests/interprocess.rs
/// and the C ABI's cross-process tests go there): not with nobody
/// listening, nor to subscribers of this process — of this context or of
/// another one in the domain, reached without lent memory.
#[test]
fn a_transport_lends_no_memory_for_subscribers_of_this_process() {
    let domain = hibari_testkit::TestDomain::reserve();
    let ctx = Context::with_domain(domain.id());
    let node = ctx.create_node("writer").unwrap();
    let qos = QosProfile::default().reliable();
    let publisher = node
        .create_generic_publisher("/lent", "std_msgs/msg/String", qos)
        .unwrap();
    assert!(publisher.loan_from_transport(64).is_none());
    let _local = node
        .create_polled_subscription::<Chatter>("/lent", qos)
        .unwrap();
    assert!(publisher.wait_for_subscribers(1, Duration::from_secs(10)));
    assert!(publisher.loan_from_transport(64).is_none());
    let other = Context::with_domain(domain.id());
    let _remote = other
        .create_node("reader")
        .unwrap()
        .create_polled_subscription::<Chatter>("/lent", qos)
        .unwrap();
    assert!(publisher.wait_for_subscribers(2, Duration::from_secs(10)));
    assert!(publisher.loan_from_transport(64).is_none());
    drop(domain);
}

/// `matched_in_process_subscriptions` counts the subscriptions that take a
/// published object as it is (the in-process transport's), apart from those
/// reached through shared memory: here a second context that shares no
/// in-process world with the first, only the domain's shared memory, as
/// another process would.
#[test]
fn a_publisher_counts_its_in_process_subscriptions_apart_from_the_others() {
    use hibari::transports::{Fanout, InprocTransport, ShmTransport, Transport};
    use std::sync::Arc;
    let domain = hibari_testkit::TestDomain::reserve();
    let d = domain.id();
    let on_shm = || {
        let members: Vec<Arc<dyn Transport>> = vec![
            Arc::new(InprocTransport::isolated(d)),
            Arc::new(ShmTransport::open(d).unwrap()),
        ];
        let fanout: Arc<dyn Transport> = Arc::new(Fanout::new(members).unwrap());
        Context::builder().transport(fanout).create().unwrap()
    };
    let (here, there) = (on_shm(), on_shm());
    let node = here.create_node("writer").unwrap();
    let qos = QosProfile::default().reliable();
    let publisher = node.create_publisher::<Chatter>("/counted", qos).unwrap();
    assert_eq!(publisher.matched_in_process_subscriptions(), 0);
    let _remote = there
        .create_node("reader")
        .unwrap()
        .create_polled_subscription::<Chatter>("/counted", qos)
        .unwrap();
    assert!(publisher.wait_for_subscribers(1, Duration::from_secs(10)));
    assert_eq!(publisher.matched_in_process_subscriptions(), 0);
    let local = node
        .create_polled_subscription::<Chatter>("/counted", qos)
        .unwrap();
    assert!(publisher.wait_for_subscribers(2, Duration::from_secs(10)));
    assert_eq!(publisher.matched_in_process_subscriptions(), 1);
    drop(local);
    assert_eq!(publisher.matched_in_process_subscriptions(), 0);
    assert_eq!(publisher.matched_subscriptions(), 1);
    drop(domain);
}
