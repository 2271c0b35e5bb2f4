use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{isolated, Counted};
use crate::msg::std_msgs::msg::{String as RosString, UInt64};
use crate::{GuardConditionOptions, NodeAddError, QosProfile, SampleInfo, SingleThreadedExecutor};

/// Long enough never to be hit unless something is broken.
const PATIENCE: Duration = Duration::from_secs(60);

#[test]
fn a_listener_gets_every_sample_in_order_with_sequences_1_to_n_from_one_publisher() {
    const N: u64 = 1000;
    let context = isolated();
    let talker = context.create_node("talker").unwrap();
    let listener = context.create_node("listener").unwrap();
    let heard = Arc::new(Mutex::new(Vec::<(u64, SampleInfo)>::new()));
    let h = heard.clone();
    let _sub = listener
        .create_subscription(
            "chatter",
            QosProfile::default().keep_all(),
            move |m: UInt64, i: SampleInfo| h.lock().unwrap().push((m.data, i)),
        )
        .unwrap();
    let publisher = talker
        .create_publisher::<UInt64>("chatter", QosProfile::default())
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&listener).unwrap();
    let done = std::thread::scope(|s| {
        let spinner =
            s.spawn(|| executor.spin_until(|| heard.lock().unwrap().len() as u64 == N, PATIENCE));
        for data in 1..=N {
            publisher.publish(UInt64 { data }).unwrap();
        }
        spinner.join().unwrap()
    });
    assert!(done, "the listener stalled");
    let heard = heard.lock().unwrap();
    for (k, (data, info)) in heard.iter().enumerate() {
        assert_eq!(*data, k as u64 + 1);
        assert_eq!(info.sequence, k as u64 + 1);
        assert_eq!(info.publisher_id, publisher.id());
        assert_eq!(info.lost_before, 0);
    }
}

#[test]
fn a_callback_can_publish_down_a_chain_of_three_nodes() {
    const N: u64 = 1000;
    let context = isolated();
    let a = context.create_node("a").unwrap();
    let b = context.create_node("b").unwrap();
    let c = context.create_node("c").unwrap();
    let first = a
        .create_publisher::<UInt64>("/first", QosProfile::default())
        .unwrap();
    let relay = b
        .create_publisher::<UInt64>("/second", QosProfile::default())
        .unwrap();
    let _relay = b
        .create_subscription(
            "/first",
            QosProfile::default().keep_all(),
            move |m: UInt64| relay.publish(UInt64 { data: m.data * 2 }).unwrap(),
        )
        .unwrap();
    let got = Arc::new(Mutex::new(Vec::new()));
    let g = got.clone();
    let _end = c
        .create_subscription("/second", QosProfile::default(), move |m: &UInt64| {
            g.lock().unwrap().push(m.data)
        })
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    for node in [&a, &b, &c] {
        executor.add_node(node).unwrap();
    }
    let done = std::thread::scope(|s| {
        let spinner =
            s.spawn(|| executor.spin_until(|| got.lock().unwrap().len() as u64 == N, PATIENCE));
        for data in 1..=N {
            first.publish(UInt64 { data }).unwrap();
        }
        spinner.join().unwrap()
    });
    assert!(done, "the chain stalled");
    let expected: Vec<u64> = (1..=N).map(|d| d * 2).collect();
    assert_eq!(*got.lock().unwrap(), expected);
}

#[test]
fn a_one_millisecond_timer_publishes_a_thousand_messages_that_all_arrive() {
    const N: usize = 1000;
    let node = isolated().create_node("n").unwrap();
    let publisher = node
        .create_publisher::<UInt64>("tick", QosProfile::default())
        .unwrap();
    let mut sent = 0;
    let _timer = node
        .create_timer(Duration::from_millis(1), move || {
            if sent < N {
                sent += 1;
                publisher.publish(UInt64 { data: sent as u64 }).unwrap();
            }
        })
        .unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    let _sub = node
        .create_subscription("tick", QosProfile::default(), move |_: &UInt64| {
            c.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert!(executor.spin_until(|| count.load(Ordering::SeqCst) == N, PATIENCE));
}

#[test]
fn one_owning_subscriber_costs_no_clone_through_the_executor() {
    let node = isolated().create_node("n").unwrap();
    let total = Arc::new(AtomicUsize::new(0));
    let t = total.clone();
    let _sub = node
        .create_subscription("c", QosProfile::default().keep_all(), move |m: Counted| {
            t.fetch_add(m.n as usize, Ordering::SeqCst);
        })
        .unwrap();
    let publisher = node
        .create_publisher::<Counted>("c", QosProfile::default())
        .unwrap();
    let clones = Arc::new(AtomicUsize::new(0));
    for n in 1..=100 {
        publisher.publish(Counted::new(n, &clones)).unwrap();
    }
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert_eq!(executor.spin_some(), 100);
    assert_eq!(total.load(Ordering::SeqCst), 5050);
    assert_eq!(clones.load(Ordering::SeqCst), 0);
}

#[test]
fn spin_once_runs_one_callback_and_times_out_when_idle() {
    let node = isolated().create_node("n").unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    let _sub = node
        .create_subscription("s", QosProfile::default(), move |_: RosString| {
            c.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    let publisher = node
        .create_publisher::<RosString>("s", QosProfile::default())
        .unwrap();
    publisher.publish(RosString::default()).unwrap();
    publisher.publish(RosString::default()).unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert!(executor.spin_once(PATIENCE));
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert!(executor.spin_once(PATIENCE));
    assert!(!executor.spin_once(Duration::from_millis(10)));
    assert_eq!(count.load(Ordering::SeqCst), 2);
}

#[test]
fn a_guard_condition_wakes_the_executor_from_another_thread() {
    let node = isolated().create_node("n").unwrap();
    let fired = Arc::new(AtomicBool::new(false));
    let f = fired.clone();
    let guard = node.create_guard_condition(GuardConditionOptions::default(), move || {
        f.store(true, Ordering::SeqCst)
    });
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let remote = guard.clone();
    let trigger = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        remote.trigger();
    });
    assert!(executor.spin_until(|| fired.load(Ordering::SeqCst), PATIENCE));
    trigger.join().unwrap();
}

#[test]
fn shutdown_and_cancel_make_spin_return() {
    hibari_testkit::with_timeout(
        hibari_testkit::HANG,
        "spin to return after cancel() and shutdown()",
        || {
            let context = isolated();
            let node = context.create_node("n").unwrap();
            let executor = SingleThreadedExecutor::new();
            executor.add_node(&node).unwrap();
            let returned = AtomicBool::new(false);
            std::thread::scope(|s| {
                s.spawn(|| {
                    // A cancel only stops a running spin: cancel until it returned.
                    while !returned.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(5));
                        executor.cancel();
                    }
                });
                executor.spin();
                returned.store(true, Ordering::SeqCst);
            });
            std::thread::scope(|s| {
                s.spawn(|| {
                    std::thread::sleep(Duration::from_millis(20));
                    context.shutdown();
                });
                executor.spin();
            });
            assert!(
                !executor.spin_once(PATIENCE),
                "a shut-down context stops at once"
            );
        },
    );
}

#[test]
fn a_cancel_while_no_spin_runs_does_not_abort_the_next_spin() {
    let node = isolated().create_node("n").unwrap();
    let fired = Arc::new(AtomicUsize::new(0));
    let f = fired.clone();
    let guard = node.create_guard_condition(GuardConditionOptions::default(), move || {
        f.fetch_add(1, Ordering::SeqCst);
    });
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    executor.cancel();
    guard.trigger();
    assert!(executor.spin_once(PATIENCE), "spin_once ran the callback");
    executor.cancel();
    guard.trigger();
    assert!(executor.spin_until(|| fired.load(Ordering::SeqCst) == 2, PATIENCE));
    executor.cancel();
    guard.trigger();
    assert_eq!(executor.spin_some(), 1);
}

#[test]
fn a_node_belongs_to_one_executor_at_a_time() {
    let node = isolated().create_node("n").unwrap();
    let first = SingleThreadedExecutor::new();
    let second = SingleThreadedExecutor::new();
    first.add_node(&node).unwrap();
    first.add_node(&node).unwrap();
    assert!(matches!(
        second.add_node(&node),
        Err(NodeAddError::InAnotherExecutor { .. })
    ));
    first.remove_node(&node);
    second.add_node(&node).unwrap();
    drop(second);
    first.add_node(&node).unwrap();
}

#[test]
fn a_dropped_subscription_or_a_canceled_timer_runs_no_more() {
    let node = isolated().create_node("n").unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    let sub = node
        .create_subscription("s", QosProfile::default(), move |_: RosString| {
            c.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    let publisher = node
        .create_publisher::<RosString>("s", QosProfile::default())
        .unwrap();
    publisher.publish(RosString::default()).unwrap();
    drop(sub);
    let ticks = Arc::new(AtomicUsize::new(0));
    let t = ticks.clone();
    let timer = node
        .create_timer(Duration::from_millis(1), move || {
            t.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    timer.cancel();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert!(!executor.spin_once(Duration::from_millis(20)));
    assert_eq!(count.load(Ordering::SeqCst), 0);
    assert_eq!(ticks.load(Ordering::SeqCst), 0);
    timer.reset();
    assert!(executor.spin_once(PATIENCE));
    assert_eq!(ticks.load(Ordering::SeqCst), 1);
}

#[test]
fn entities_created_while_spinning_are_picked_up() {
    let node = isolated().create_node("n").unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let fired = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        let spinner = s.spawn(|| executor.spin_until(|| fired.load(Ordering::SeqCst), PATIENCE));
        std::thread::sleep(Duration::from_millis(20));
        let f = fired.clone();
        let _timer = node
            .create_timer(Duration::from_millis(5), move || {
                f.store(true, Ordering::SeqCst)
            })
            .unwrap();
        assert!(spinner.join().unwrap());
    });
}

#[test]
fn a_wall_timer_ticks_like_a_steady_one() {
    let node = isolated().create_node("n").unwrap();
    let ticks = Arc::new(AtomicUsize::new(0));
    let t = ticks.clone();
    let _timer = node
        .create_wall_timer(Duration::from_millis(2), move || {
            t.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    assert!(node.create_wall_timer(Duration::ZERO, || {}).is_err());
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert!(executor.spin_until(|| ticks.load(Ordering::SeqCst) >= 5, PATIENCE));
}
