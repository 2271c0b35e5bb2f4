//! Every wait has a timeout; none is judged by how long it took.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari_testkit::HANG;

use super::*;
use crate::msg::std_msgs::msg::String as RosString;
use crate::{Context, Node, QosProfile, SingleThreadedExecutor};

/// Short enough to keep the tests quick; only a timeout waits it out.
const SHORT: Duration = Duration::from_millis(20);

fn node(name: &str) -> Node {
    let ctx = Context::builder().isolated().create().unwrap();
    ctx.create_node(name).unwrap()
}

fn text(s: &str) -> RosString {
    RosString { data: s.into() }
}

fn ready_subscriptions(r: WaitResult) -> Vec<usize> {
    r.ready()
        .expect("ready, not a timeout")
        .subscriptions()
        .to_vec()
}

#[test]
fn an_empty_wait_set_refuses_to_wait() {
    assert_eq!(WaitSet::new().wait(SHORT), Err(WaitError::Empty));
    let mut ws = WaitSet::new();
    let i = ws.add_guard_condition(&GuardCondition::new());
    assert!(ws.remove_guard_condition(i));
    assert_eq!(ws.wait(SHORT), Err(WaitError::Empty));
}

#[test]
fn nothing_ready_times_out() {
    let mut ws = WaitSet::new();
    ws.add_guard_condition(&GuardCondition::new());
    assert_eq!(ws.wait(SHORT), Ok(WaitResult::Timeout));
}

#[test]
fn a_subscription_is_ready_while_a_sample_waits_and_not_once_drained() {
    let n = node("ws_sub");
    let p = n
        .create_publisher::<RosString>("/t", QosProfile::default())
        .unwrap();
    let quiet = n
        .create_polled_subscription::<RosString>("/quiet", QosProfile::default())
        .unwrap();
    let s = n
        .create_polled_subscription::<RosString>("/t", QosProfile::default())
        .unwrap();
    let mut ws = WaitSet::new();
    assert_eq!(ws.add_subscription(&quiet), 0);
    assert_eq!(ws.add_subscription(&s), 1);
    p.publish(text("a")).unwrap();
    p.publish(text("b")).unwrap();
    assert_eq!(ready_subscriptions(ws.wait(HANG).unwrap()), [1]);
    // Waiting takes nothing.
    assert_eq!(ready_subscriptions(ws.wait(HANG).unwrap()), [1]);
    assert_eq!(s.take().unwrap().0.data, "a");
    assert_eq!(s.take().unwrap().0.data, "b");
    assert!(s.take().is_none());
    assert_eq!(ws.wait(SHORT), Ok(WaitResult::Timeout));
    p.publish(text("c")).unwrap();
    assert_eq!(ready_subscriptions(ws.wait(HANG).unwrap()), [1]);
}

#[test]
fn a_subscription_with_a_callback_that_nobody_spins_is_taken_from() {
    let n = node("ws_cb");
    let p = n
        .create_publisher::<RosString>("/t", QosProfile::default())
        .unwrap();
    let s = n
        .create_subscription("/t", QosProfile::default(), |_: RosString| {})
        .unwrap();
    let mut ws = WaitSet::new();
    ws.add_subscription(&s);
    let publisher = std::thread::spawn(move || {
        std::thread::sleep(SHORT);
        p.publish(text("x")).unwrap();
        p
    });
    // The match woke it too (a subscription's events do): a take may find
    // nothing, and the next wait sleeps until the sample.
    let taken = loop {
        assert_eq!(ready_subscriptions(ws.wait(HANG).unwrap()), [0]);
        if let Some((m, _)) = s.take() {
            break m.data;
        }
    };
    assert_eq!(taken, "x");
    drop(publisher.join().unwrap());
}

#[test]
fn a_trigger_from_another_thread_wakes_a_sleeping_wait_and_is_consumed() {
    let g = GuardCondition::new();
    let mut ws = WaitSet::new();
    ws.add_guard_condition(&GuardCondition::new());
    assert_eq!(ws.add_guard_condition(&g), 1);
    let trigger = {
        let g = g.clone();
        std::thread::spawn(move || {
            std::thread::sleep(SHORT);
            g.trigger();
        })
    };
    let r = ws.wait(HANG).unwrap();
    assert_eq!(r.ready().unwrap().guard_conditions(), [1]);
    trigger.join().unwrap();
    assert_eq!(ws.wait(SHORT), Ok(WaitResult::Timeout));
}

#[test]
fn a_shutdown_of_its_context_ends_a_sleeping_wait_and_every_later_one() {
    let ctx = Context::builder().isolated().create().unwrap();
    let mut ws = WaitSet::new();
    ws.add_guard_condition(&GuardCondition::new());
    ws.add_context(&ctx);
    let stopper = {
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            std::thread::sleep(SHORT);
            ctx.shutdown();
        })
    };
    assert_eq!(ws.wait(HANG), Err(WaitError::Shutdown));
    stopper.join().unwrap();
    assert_eq!(ws.wait(HANG), Err(WaitError::Shutdown));
}

#[test]
fn a_timer_is_ready_when_due_and_call_runs_it_once() {
    let n = node("ws_timer");
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let t = n
        .create_wall_timer(Duration::from_millis(30), move || {
            r.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    let mut ws = WaitSet::new();
    assert_eq!(ws.add_timer(&t), 0);
    assert!(!t.call(), "not due yet");
    let result = ws.wait(HANG).unwrap();
    assert_eq!(result.ready().unwrap().timers(), [0]);
    assert_eq!(runs.load(Ordering::SeqCst), 0, "wait runs nothing");
    assert!(t.call());
    assert!(!t.call(), "the schedule moved on");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    t.cancel();
    assert_eq!(ws.wait(SHORT), Ok(WaitResult::Timeout));
}

#[test]
fn removing_an_entity_or_dropping_the_wait_set_unregisters_it() {
    let g = GuardCondition::new();
    let mut ws = WaitSet::new();
    let i = ws.add_guard_condition(&g);
    ws.add_guard_condition(&g);
    assert_eq!(g.shared.watchers.count(), 2);
    assert!(ws.remove_guard_condition(i));
    assert!(!ws.remove_guard_condition(i));
    assert_eq!(g.shared.watchers.count(), 1);
    drop(ws);
    assert_eq!(g.shared.watchers.count(), 0);
}

#[test]
fn an_executor_still_runs_callbacks_of_a_subscription_taken_from() {
    let n = node("ws_exec");
    let p = n
        .create_publisher::<RosString>("/t", QosProfile::default())
        .unwrap();
    let got = Arc::new(AtomicUsize::new(0));
    let g = got.clone();
    let s = n
        .create_subscription("/t", QosProfile::default(), move |_: RosString| {
            g.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    p.publish(text("taken")).unwrap();
    assert!(s.take().is_some());
    assert!(s.take().is_none());
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&n).unwrap();
    p.publish(text("spun")).unwrap();
    let deadline = std::time::Instant::now() + HANG;
    while got.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline {
        exec.spin_once(SHORT);
    }
    assert_eq!(got.load(Ordering::SeqCst), 1);
}
