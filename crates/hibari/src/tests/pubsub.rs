use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{isolated, Counted};
use crate::msg::geometry_msgs::msg::Point;
use crate::msg::std_msgs::msg::String as RosString;
use crate::{Message, PublishError, QosProfile, SampleInfo, TypeAdapter, WriteError};

#[test]
fn a_published_message_reaches_a_polled_subscription_without_a_copy() {
    let node = isolated().create_node("n").unwrap();
    let sub = node
        .create_polled_subscription::<Counted>("c", QosProfile::default())
        .unwrap();
    let publisher = node
        .create_publisher::<Counted>("c", QosProfile::default())
        .unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    let message = Counted::new(7, &clones);
    let address = message.body.as_ptr();
    publisher.publish(message).unwrap();
    let (got, info) = sub.take().unwrap();
    assert_eq!(got.n, 7);
    assert_eq!(got.body.as_ptr(), address, "moved, not copied");
    assert_eq!(clones.load(Ordering::SeqCst), 0);
    assert_eq!(info.sequence, 1);
    assert_eq!(info.publisher_id, publisher.id());
    assert!(sub.take().is_none());
}

#[test]
fn two_owning_subscriptions_cost_one_clone_and_borrowing_ones_none() {
    let node = isolated().create_node("n").unwrap();
    let qos = QosProfile::default();
    let a = node
        .create_polled_subscription::<Counted>("c", qos)
        .unwrap();
    let b = node
        .create_polled_subscription::<Counted>("c", qos)
        .unwrap();
    let publisher = node.create_publisher::<Counted>("c", qos).unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    publisher.publish(Counted::new(1, &clones)).unwrap();
    assert_eq!(a.take_shared().unwrap().0.n, 1);
    assert_eq!(b.take_shared().unwrap().0.n, 1);
    assert_eq!(clones.load(Ordering::SeqCst), 0, "borrowed");
    publisher.publish(Counted::new(2, &clones)).unwrap();
    a.take().unwrap();
    b.take().unwrap();
    assert_eq!(clones.load(Ordering::SeqCst), 1, "the last owner moves");
}

#[test]
fn topic_names_are_resolved_and_invalid_ones_refused() {
    let node = isolated().create_node_with_namespace("cam", "/r1").unwrap();
    let p = node
        .create_publisher::<RosString>("~/image", QosProfile::default())
        .unwrap();
    assert_eq!(p.topic(), "/r1/cam/image");
    let e = node
        .create_publisher::<RosString>("bad topic", QosProfile::default())
        .unwrap_err();
    assert!(
        matches!(e, crate::PublisherCreateError::InvalidTopic(_)),
        "{e}"
    );
    let e = node
        .create_polled_subscription::<RosString>("", QosProfile::default())
        .unwrap_err();
    assert!(
        matches!(e, crate::SubscriptionCreateError::InvalidTopic(_)),
        "{e}"
    );
}

#[test]
fn a_failed_publish_hands_the_message_back() {
    let node = isolated().create_node("n").unwrap();
    let qos = QosProfile::default().reliable().keep_last(1);
    let _full = node
        .create_polled_subscription::<RosString>("t", qos)
        .unwrap();
    let publisher = node.create_publisher::<RosString>("t", qos).unwrap();
    publisher
        .publish(RosString {
            data: "first".into(),
        })
        .unwrap();
    let e = publisher
        .publish(RosString {
            data: "second".into(),
        })
        .unwrap_err();
    assert!(matches!(e, PublishError::Timeout { .. }), "{e:?}");
    assert!(e.to_string().contains("deepen its history"), "{e}");
    assert_eq!(e.into_message().unwrap().data, "second");
}

#[test]
fn a_loan_that_cannot_be_sent_comes_back_as_filled_and_can_be_sent_again() {
    let node = isolated().create_node("n").unwrap();
    let qos = QosProfile::default().reliable().keep_last(1);
    let sub = node
        .create_polled_subscription::<RosString>("l", qos)
        .unwrap();
    let publisher = node.create_publisher::<RosString>("l", qos).unwrap();
    publisher
        .publish(RosString {
            data: "first".into(),
        })
        .unwrap();
    let cdr = RosString {
        data: "lent".into(),
    }
    .to_cdr()
    .unwrap();
    let mut loan = publisher.loan(cdr.len()).unwrap();
    loan.copy_from_slice(&cdr);
    // The subscription's one slot is taken: the send is refused...
    let e = loan.send().unwrap_err();
    assert!(matches!(e.reason(), WriteError::Timeout { .. }), "{e:?}");
    // ...and the loan comes back, its bytes as they were.
    let loan = e.into_loan().expect("an unsent loan comes back");
    assert_eq!(&loan[..], &cdr[..]);
    assert_eq!(sub.take().unwrap().0.data, "first");
    loan.send().unwrap();
    assert_eq!(sub.take().unwrap().0.data, "lent");
}

#[test]
fn wait_for_subscribers_wakes_when_one_matches_and_times_out_otherwise() {
    let node = isolated().create_node("n").unwrap();
    let publisher = node
        .create_publisher::<RosString>("w", QosProfile::default())
        .unwrap();
    assert_eq!(publisher.matched_subscriptions(), 0);
    assert!(!publisher.wait_for_subscribers(1, Duration::from_millis(20)));
    let late = node.clone();
    let joiner = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        late.create_polled_subscription::<RosString>("w", QosProfile::default())
            .unwrap()
    });
    assert!(publisher.wait_for_subscribers(1, Duration::from_secs(30)));
    let sub = joiner.join().unwrap();
    assert_eq!(publisher.matched_subscriptions(), 1);
    assert_eq!(sub.matched_publishers(), 1);
    drop(sub);
    assert_eq!(publisher.matched_subscriptions(), 0);
}

static TO_ROS: AtomicUsize = AtomicUsize::new(0);

#[derive(Clone, Debug, PartialEq)]
struct Xy([f32; 2]);
struct XyAdapter;
impl TypeAdapter for XyAdapter {
    type Custom = Xy;
    type Ros = Point;
    fn to_ros(c: &Xy) -> Point {
        TO_ROS.fetch_add(1, Ordering::SeqCst);
        Point {
            x: c.0[0].into(),
            y: c.0[1].into(),
            z: 0.0,
        }
    }
    fn from_ros(m: &Point) -> Xy {
        Xy([m.x as f32, m.y as f32])
    }
}

#[test]
fn an_adapted_type_is_converted_at_most_once_and_only_for_ros_readers() {
    let node = isolated().create_node("n").unwrap();
    let qos = QosProfile::default();
    let custom = node
        .create_polled_subscription::<XyAdapter>("p", qos)
        .unwrap();
    let ros_a = node.create_polled_subscription::<Point>("p", qos).unwrap();
    let ros_b = node.create_polled_subscription::<Point>("p", qos).unwrap();
    let publisher = node.create_publisher::<XyAdapter>("p", qos).unwrap();
    publisher.publish(Xy([1.0, 2.0])).unwrap();
    assert_eq!(custom.take().unwrap().0, Xy([1.0, 2.0]));
    assert_eq!(
        TO_ROS.load(Ordering::SeqCst),
        0,
        "the custom reader converts nothing"
    );
    assert_eq!(ros_a.take_shared().unwrap().0.y, 2.0);
    assert_eq!(ros_b.take().unwrap().0.x, 1.0);
    assert_eq!(TO_ROS.load(Ordering::SeqCst), 1, "one conversion, shared");
}

#[test]
fn every_callback_shape_receives_the_sample() {
    let node = isolated().create_node("n").unwrap();
    let qos = QosProfile::default();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (s1, s2, s3, s4) = (seen.clone(), seen.clone(), seen.clone(), seen.clone());
    let subs = [
        node.create_subscription("s", qos, move |m: RosString| {
            s1.lock().unwrap().push(format!("owned {}", m.data))
        })
        .unwrap(),
        node.create_subscription("s", qos, move |m: &RosString| {
            s2.lock().unwrap().push(format!("borrowed {}", m.data))
        })
        .unwrap(),
        node.create_subscription("s", qos, move |m: RosString, i: SampleInfo| {
            s3.lock()
                .unwrap()
                .push(format!("owned {} #{}", m.data, i.sequence))
        })
        .unwrap(),
        node.create_subscription("s", qos, move |m: &RosString, i: &SampleInfo| {
            s4.lock()
                .unwrap()
                .push(format!("borrowed {} #{}", m.data, i.sequence))
        })
        .unwrap(),
    ];
    let publisher = node.create_publisher::<RosString>("s", qos).unwrap();
    publisher.publish(RosString { data: "hi".into() }).unwrap();
    for s in &subs {
        assert!(s.shared.execute_one());
        assert!(!s.shared.execute_one());
    }
    assert_eq!(
        *seen.lock().unwrap(),
        ["owned hi", "borrowed hi", "owned hi #1", "borrowed hi #1"]
    );
}

/// A heap loan (every subscription in this process) is lent again once the
/// subscription has dropped its bytes — the same memory, not a new buffer —
/// and never while a sample still holds them.
#[test]
fn a_heap_loan_reuses_the_buffer_a_subscription_let_go_of_and_never_one_it_holds() {
    let node = isolated().create_node("n").unwrap();
    let qos = QosProfile::default().reliable().keep_last(4);
    let image = "sensor_msgs/msg/Image";
    let sub = node
        .create_generic_polled_subscription("h", image, qos)
        .unwrap();
    let publisher = node.create_generic_publisher("h", image, qos).unwrap();
    let len = 1 << 20;
    let send = |fill: u8| {
        let mut loan = publisher.loan(len).unwrap();
        let at = loan.as_ptr();
        loan.fill(fill);
        loan.send().unwrap();
        at
    };
    let first = send(1);
    let (held, _) = sub.take().unwrap();
    assert_eq!(held.as_ptr(), first, "the subscription got the lent bytes");
    // Held: the next loan is other memory, and the held bytes stay as sent.
    let second = send(2);
    assert_ne!(second, first);
    assert!(held.as_private().unwrap().iter().all(|&b| b == 1));
    drop(held);
    let (taken, _) = sub.take().unwrap();
    assert!(taken.as_private().unwrap().iter().all(|&b| b == 2));
    drop(taken);
    // Both are back: the next loans reuse them, whichever comes first.
    let third = send(3);
    assert!(third == first || third == second, "a new buffer");
    let (taken, _) = sub.take().unwrap();
    assert!(taken.as_private().unwrap().iter().all(|&b| b == 3));
    assert_eq!(publisher.shared.heap.kept(), 1);
}
