use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::isolated;
use crate::msg::std_msgs::msg::UInt64;
use crate::{
    CallbackGroupType, GuardConditionOptions, MultiThreadedExecutor, QosProfile, SampleInfo,
    SubscriptionOptions,
};

const PATIENCE: Duration = Duration::from_secs(60);

#[test]
fn with_four_threads_a_listener_still_gets_every_sample_in_order() {
    const N: u64 = 1000;
    let node = isolated().create_node("n").unwrap();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let h = heard.clone();
    let _sub = node
        .create_subscription(
            "chatter",
            QosProfile::default().keep_all(),
            move |m: UInt64, i: SampleInfo| h.lock().unwrap().push((m.data, i.sequence)),
        )
        .unwrap();
    let publisher = node
        .create_publisher::<UInt64>("chatter", QosProfile::default())
        .unwrap();
    let executor = MultiThreadedExecutor::new(4);
    executor.add_node(&node).unwrap();
    let done = std::thread::scope(|s| {
        let spinner =
            s.spawn(|| executor.spin_until(|| heard.lock().unwrap().len() as u64 == N, PATIENCE));
        for data in 1..=N {
            publisher.publish(UInt64 { data }).unwrap();
        }
        spinner.join().unwrap()
    });
    assert!(done, "the listener stalled");
    let expected: Vec<(u64, u64)> = (1..=N).map(|k| (k, k)).collect();
    assert_eq!(*heard.lock().unwrap(), expected);
}

#[test]
fn callbacks_of_different_subscriptions_of_a_reentrant_group_run_in_parallel_but_one_never_overlaps_itself(
) {
    let node = isolated().create_node("n").unwrap();
    let group = node.create_callback_group(CallbackGroupType::Reentrant);
    // Each callback waits (bounded) until two callbacks are inside at once.
    let inside = Arc::new((Mutex::new(0usize), Condvar::new()));
    let met = Arc::new(AtomicUsize::new(0));
    let overlapped = Arc::new(AtomicBool::new(false));
    let mut subs = Vec::new();
    for topic in ["a", "b"] {
        let (inside, met, overlapped) = (inside.clone(), met.clone(), overlapped.clone());
        let busy = Arc::new(AtomicBool::new(false));
        subs.push(
            node.create_subscription(
                topic,
                SubscriptionOptions::new(QosProfile::default()).callback_group(&group),
                move |_: &UInt64| {
                    if busy.swap(true, Ordering::SeqCst) {
                        overlapped.store(true, Ordering::SeqCst);
                    }
                    let (count, changed) = &*inside;
                    let mut n = count.lock().unwrap();
                    *n += 1;
                    changed.notify_all();
                    let (n, timeout) = changed.wait_timeout_while(n, PATIENCE, |n| *n < 2).unwrap();
                    if !timeout.timed_out() {
                        met.fetch_add(1, Ordering::SeqCst);
                    }
                    drop(n);
                    busy.store(false, Ordering::SeqCst);
                },
            )
            .unwrap(),
        );
    }
    let pa = node
        .create_publisher::<UInt64>("a", QosProfile::default())
        .unwrap();
    let pb = node
        .create_publisher::<UInt64>("b", QosProfile::default())
        .unwrap();
    for data in 0..3 {
        pa.publish(UInt64 { data }).unwrap();
    }
    pb.publish(UInt64 { data: 0 }).unwrap();
    let executor = MultiThreadedExecutor::new(3);
    executor.add_node(&node).unwrap();
    assert!(executor.spin_until(|| met.load(Ordering::SeqCst) >= 2, PATIENCE));
    assert!(!overlapped.load(Ordering::SeqCst));
}

#[test]
fn cancel_and_shutdown_stop_every_thread() {
    hibari_testkit::with_timeout(
        hibari_testkit::HANG,
        "spin to return after cancel() and shutdown()",
        || {
            let context = isolated();
            let node = context.create_node("n").unwrap();
            let executor = MultiThreadedExecutor::new(3);
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
        },
    );
}

#[test]
fn a_cancel_while_no_spin_runs_does_not_abort_the_next_spin_of_any_thread() {
    let node = isolated().create_node("n").unwrap();
    let fired = Arc::new(AtomicUsize::new(0));
    let f = fired.clone();
    let guard = node.create_guard_condition(GuardConditionOptions::default(), move || {
        f.fetch_add(1, Ordering::SeqCst);
    });
    let executor = MultiThreadedExecutor::new(2);
    executor.add_node(&node).unwrap();
    executor.cancel();
    guard.trigger();
    assert!(executor.spin_until(|| fired.load(Ordering::SeqCst) == 1, PATIENCE));
}
