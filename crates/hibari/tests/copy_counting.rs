//! How many copies a sample costs on its way through the executor to the
//! callbacks, counted by a message whose `Clone` counts, and checked by the
//! address of its buffer: one owning subscriber gets the published value
//! itself; borrowing subscribers share it; an owning one clones only while
//! someone else still holds the sample; an adapted type is converted to the
//! ROS type at most once per sample.
//!
//! The counters are shared by all copies of the values one test publishes
//! (not process-wide), so the tests can run in parallel.

#[path = "copy_counting/types.rs"]
mod types;

use std::sync::{Arc, Mutex};

use hibari::{
    Context, Node, Publisher, QosProfile, SampleInfo, SingleThreadedExecutor, SubscriptionOptions,
};

use types::{count, Counters, Frame, Pixels, PixelsAsFrame};

const K: usize = 20;

/// The addresses of the buffers each callback saw, by sequence number.
type Seen = Arc<Mutex<Vec<(u64, usize)>>>;

fn node() -> Node {
    Context::builder()
        .isolated()
        .create()
        .unwrap()
        .create_node("n")
        .unwrap()
}

/// Runs every callback that is ready, on this thread; returns how many ran.
fn spin(node: &Node) -> usize {
    let executor = SingleThreadedExecutor::new();
    executor.add_node(node).unwrap();
    let ran = executor.spin_some();
    executor.remove_node(node);
    ran
}

/// Publishes `K` frames; returns their buffers' addresses, in order.
fn publish_frames(publisher: &Publisher<Frame>, counters: &Arc<Counters>) -> Vec<usize> {
    (1..=K as u64)
        .map(|n| {
            let frame = Frame::new(n, counters);
            let address = frame.data.as_ptr() as usize;
            publisher.publish(frame).unwrap();
            address
        })
        .collect()
}

fn addresses(seen: &Seen) -> Vec<usize> {
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_unstable();
    seen.into_iter().map(|(_, a)| a).collect()
}

fn record(seen: &Seen, info: &SampleInfo, data: &[u8]) {
    seen.lock()
        .unwrap()
        .push((info.sequence, data.as_ptr() as usize));
}

#[test]
fn one_owning_subscriber_gets_the_published_buffer_itself_without_a_clone() {
    let node = node();
    let counters = Arc::default();
    let seen = Seen::default();
    let s = seen.clone();
    let qos = QosProfile::default().keep_all();
    let _sub = node
        .create_subscription("f", qos, move |f: Frame, i: SampleInfo| {
            record(&s, &i, &f.data)
        })
        .unwrap();
    let published = publish_frames(&node.create_publisher("f", qos).unwrap(), &counters);
    assert_eq!(spin(&node), K);
    assert_eq!(count(&counters.frame_clones), 0);
    assert_eq!(addresses(&seen), published, "moved, not copied");
}

#[test]
fn two_borrowing_subscribers_share_the_published_value_without_a_clone() {
    let node = node();
    let counters = Arc::default();
    let (first, second) = (Seen::default(), Seen::default());
    let (a, b) = (first.clone(), second.clone());
    let qos = QosProfile::default().keep_all();
    let _a = node
        .create_subscription("f", qos, move |f: &Frame, i: &SampleInfo| {
            record(&a, i, &f.data)
        })
        .unwrap();
    let _b = node
        .create_subscription("f", qos, move |f: &Frame| {
            b.lock().unwrap().push((f.n, f.data.as_ptr() as usize))
        })
        .unwrap();
    let published = publish_frames(&node.create_publisher("f", qos).unwrap(), &counters);
    assert_eq!(spin(&node), 2 * K);
    assert_eq!(count(&counters.frame_clones), 0);
    assert_eq!(addresses(&first), published);
    assert_eq!(addresses(&second), published);
}

#[test]
fn an_owning_subscriber_clones_once_per_sample_while_a_polled_subscription_still_holds_it() {
    let node = node();
    let counters = Arc::default();
    let seen = Seen::default();
    let s = seen.clone();
    let qos = QosProfile::default().keep_all();
    let _owner = node
        .create_subscription("f", qos, move |f: Frame, i: SampleInfo| {
            record(&s, &i, &f.data)
        })
        .unwrap();
    let holder = node.create_polled_subscription::<Frame>("f", qos).unwrap();
    let published = publish_frames(&node.create_publisher("f", qos).unwrap(), &counters);
    assert_eq!(spin(&node), K);
    assert_eq!(count(&counters.frame_clones), K, "one clone per sample");
    assert!(addresses(&seen).iter().zip(&published).all(|(a, p)| a != p));
    // The holder is the last one now: it gets the originals, moved.
    let taken: Vec<usize> = std::iter::from_fn(|| holder.take())
        .map(|(f, _)| f.data.as_ptr() as usize)
        .collect();
    assert_eq!(taken, published);
    assert_eq!(count(&counters.frame_clones), K);
}

#[test]
fn an_owning_subscriber_clones_once_per_sample_kept_by_a_transient_local_publisher() {
    let node = node();
    let counters = Arc::default();
    let seen = Seen::default();
    let s = seen.clone();
    let _owner = node
        .create_subscription(
            "f",
            QosProfile::default().keep_all(),
            move |f: Frame, i: SampleInfo| record(&s, &i, &f.data),
        )
        .unwrap();
    // The publisher keeps every sample for late joiners while the owner runs.
    let publisher = node
        .create_publisher::<Frame>("f", QosProfile::latched(K))
        .unwrap();
    publish_frames(&publisher, &counters);
    assert_eq!(spin(&node), K);
    assert_eq!(count(&counters.frame_clones), K);
}

#[test]
fn two_owning_subscribers_cost_one_clone_per_sample_and_one_of_them_gets_the_original() {
    let node = node();
    let counters = Arc::default();
    let (first, second) = (Seen::default(), Seen::default());
    let (a, b) = (first.clone(), second.clone());
    let qos = QosProfile::default().keep_all();
    let _a = node
        .create_subscription("f", qos, move |f: Frame, i: SampleInfo| {
            record(&a, &i, &f.data)
        })
        .unwrap();
    let _b = node
        .create_subscription("f", qos, move |f: Frame, i: SampleInfo| {
            record(&b, &i, &f.data)
        })
        .unwrap();
    let published = publish_frames(&node.create_publisher("f", qos).unwrap(), &counters);
    assert_eq!(spin(&node), 2 * K);
    assert_eq!(count(&counters.frame_clones), K);
    let (first, second) = (addresses(&first), addresses(&second));
    for (k, original) in published.iter().enumerate() {
        let originals = usize::from(first[k] == *original) + usize::from(second[k] == *original);
        assert_eq!(
            originals, 1,
            "sample {k}: exactly one subscriber owns the original"
        );
    }
}

/// Publishes `K` `Pixels` through the adapter; returns their buffers' addresses.
fn publish_pixels(node: &Node, qos: QosProfile, counters: &Arc<Counters>) -> Vec<usize> {
    let publisher = node.create_publisher::<PixelsAsFrame>("f", qos).unwrap();
    (1..=K as u64)
        .map(|n| {
            let buffer = vec![n as u8; 1024];
            let address = buffer.as_ptr() as usize;
            let counters = counters.clone();
            publisher
                .publish(Pixels {
                    n,
                    buffer,
                    counters,
                })
                .unwrap();
            address
        })
        .collect()
}

#[test]
fn a_custom_type_reaches_its_own_subscriber_moved_and_never_converted() {
    let node = node();
    let counters: Arc<Counters> = Arc::default();
    let seen = Seen::default();
    let s = seen.clone();
    let qos = QosProfile::default().keep_all();
    let _sub = node
        .create_subscription(
            "f",
            SubscriptionOptions::new(qos).adapter::<PixelsAsFrame>(),
            move |p: Pixels, i: SampleInfo| record(&s, &i, &p.buffer),
        )
        .unwrap();
    let published = publish_pixels(&node, qos, &counters);
    assert_eq!(spin(&node), K);
    assert_eq!(count(&counters.to_ros), 0);
    assert_eq!(count(&counters.pixel_clones), 0);
    assert_eq!(addresses(&seen), published);
}

#[test]
fn a_lone_ros_subscriber_of_an_adapted_type_gets_one_conversion_that_moves_the_buffer() {
    let node = node();
    let counters: Arc<Counters> = Arc::default();
    let seen = Seen::default();
    let s = seen.clone();
    let qos = QosProfile::default().keep_all();
    let _sub = node
        .create_subscription("f", qos, move |f: Frame, i: SampleInfo| {
            record(&s, &i, &f.data)
        })
        .unwrap();
    let published = publish_pixels(&node, qos, &counters);
    assert_eq!(spin(&node), K);
    assert_eq!(count(&counters.to_ros), K);
    assert_eq!(count(&counters.frame_clones), 0);
    assert_eq!(
        addresses(&seen),
        published,
        "the owned value was converted in place"
    );
}

#[test]
fn an_adapted_sample_is_converted_at_most_once_however_many_subscribers_want_the_ros_type() {
    let node = node();
    let counters: Arc<Counters> = Arc::default();
    let custom = Seen::default();
    let c = custom.clone();
    let qos = QosProfile::default().keep_all();
    let _custom = node
        .create_subscription(
            "f",
            SubscriptionOptions::new(qos).adapter::<PixelsAsFrame>(),
            move |p: &Pixels, i: &SampleInfo| record(&c, i, &p.buffer),
        )
        .unwrap();
    let ros_seen: [Seen; 3] = Default::default();
    let [r1, r2, r3] = ros_seen.clone();
    let _ros = (
        node.create_subscription("f", qos, move |f: &Frame, i: &SampleInfo| {
            record(&r1, i, &f.data)
        })
        .unwrap(),
        node.create_subscription("f", qos, move |f: &Frame, i: &SampleInfo| {
            record(&r2, i, &f.data)
        })
        .unwrap(),
        node.create_subscription("f", qos, move |f: Frame, i: SampleInfo| {
            record(&r3, &i, &f.data)
        })
        .unwrap(),
    );
    let published = publish_pixels(&node, qos, &counters);
    assert_eq!(spin(&node), 4 * K);
    assert_eq!(count(&counters.to_ros), K, "one conversion per sample");
    assert_eq!(count(&counters.pixel_clones), 0);
    assert_eq!(
        addresses(&custom),
        published,
        "the custom subscriber shares the original"
    );
    // The borrowing ROS subscribers share the one conversion.
    assert_eq!(addresses(&ros_seen[0]), addresses(&ros_seen[1]));
    assert!(
        count(&counters.frame_clones) <= K,
        "at most the owner's copy"
    );
}
