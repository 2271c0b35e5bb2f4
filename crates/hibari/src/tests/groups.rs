//! Callback groups on a real two-thread executor: overlap is detected by a
//! counter of callbacks inside, each callback staying a few milliseconds.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::isolated;
use crate::msg::std_msgs::msg::UInt64;
use crate::{
    CallbackGroup, CallbackGroupType, GuardConditionOptions, MultiThreadedExecutor, Node,
    QosProfile, Subscription, SubscriptionOptions, TimerOptions,
};

const PATIENCE: Duration = Duration::from_secs(60);
/// Samples per subscription.
const N: usize = 20;

/// What the callbacks saw.
#[derive(Default)]
struct Overlap {
    inside: AtomicUsize,
    overlapped: AtomicBool,
    done: AtomicUsize,
}

impl Overlap {
    fn callback(self: &Arc<Self>) -> impl FnMut(&UInt64) + Send + 'static {
        let me = self.clone();
        move |_: &UInt64| {
            if me.inside.fetch_add(1, Ordering::SeqCst) > 0 {
                me.overlapped.store(true, Ordering::SeqCst);
            }
            thread::sleep(Duration::from_millis(2));
            me.inside.fetch_sub(1, Ordering::SeqCst);
            me.done.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Two subscriptions in `group` (the node's default when `None`), each
/// with `N` samples queued, run to the end on two threads; returns whether
/// their callbacks ever overlapped.
fn two_subscriptions_overlap(node: &Node, group: Option<&CallbackGroup>) -> bool {
    let seen = Arc::new(Overlap::default());
    let qos = QosProfile::default().keep_all();
    let subscribe = |topic: &str| -> Subscription<UInt64> {
        match group {
            Some(g) => node.create_subscription(
                topic,
                SubscriptionOptions::new(qos).callback_group(g),
                seen.callback(),
            ),
            None => node.create_subscription(topic, qos, seen.callback()),
        }
        .unwrap()
    };
    let _subs = [subscribe("a"), subscribe("b")];
    for topic in ["a", "b"] {
        let publisher = node.create_publisher::<UInt64>(topic, qos).unwrap();
        for data in 0..N as u64 {
            publisher.publish(UInt64 { data }).unwrap();
        }
    }
    let executor = MultiThreadedExecutor::new(2);
    executor.add_node(node).unwrap();
    assert!(executor.spin_until(|| seen.done.load(Ordering::SeqCst) == 2 * N, PATIENCE));
    seen.overlapped.load(Ordering::SeqCst)
}

#[test]
fn two_subscriptions_of_a_mutually_exclusive_group_never_overlap_on_two_threads() {
    let node = isolated().create_node("n").unwrap();
    let group = node.create_callback_group(CallbackGroupType::MutuallyExclusive);
    assert!(!two_subscriptions_overlap(&node, Some(&group)));
}

#[test]
fn the_default_group_is_mutually_exclusive() {
    let node = isolated().create_node("n").unwrap();
    assert_eq!(
        node.default_callback_group().kind(),
        CallbackGroupType::MutuallyExclusive
    );
    assert!(!two_subscriptions_overlap(&node, None));
}

#[test]
fn two_subscriptions_of_a_reentrant_group_overlap_on_two_threads() {
    let node = isolated().create_node("n").unwrap();
    let group = node.create_callback_group(CallbackGroupType::Reentrant);
    assert!(two_subscriptions_overlap(&node, Some(&group)));
}

#[test]
fn a_timer_in_a_busy_group_waits_for_it_and_then_runs() {
    let node = isolated().create_node("n").unwrap();
    let group = node.create_callback_group(CallbackGroupType::MutuallyExclusive);
    let inside = Arc::new(AtomicBool::new(false));
    let (overlapped, ticks) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let (i, o, t) = (inside.clone(), overlapped.clone(), ticks.clone());
    let _timer = node
        .create_timer(
            TimerOptions::new(Duration::from_millis(1)).callback_group(&group),
            move || {
                if i.load(Ordering::SeqCst) {
                    o.store(true, Ordering::SeqCst);
                }
                t.fetch_add(1, Ordering::SeqCst);
            },
        )
        .unwrap();
    let i = inside.clone();
    let guard = node.create_guard_condition(
        GuardConditionOptions::new().callback_group(&group),
        move || {
            i.store(true, Ordering::SeqCst);
            thread::sleep(Duration::from_millis(30));
            i.store(false, Ordering::SeqCst);
        },
    );
    let executor = MultiThreadedExecutor::new(2);
    executor.add_node(&node).unwrap();
    let count = || ticks.load(Ordering::SeqCst);
    thread::scope(|s| {
        let spinner = s.spawn(|| executor.spin_until(|| count() >= 20, PATIENCE));
        for _ in 0..5 {
            guard.trigger();
            thread::sleep(Duration::from_millis(5));
        }
        assert!(spinner.join().unwrap(), "the timer stalled");
    });
    assert!(!overlapped.load(Ordering::SeqCst));
}
