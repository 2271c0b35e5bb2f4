//! QoS events through the public API, on real executor threads.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use super::isolated;
use crate::msg::std_msgs::msg::{String as RosString, UInt64};
use crate::{
    Liveliness, PublisherEventCallbacks, PublisherOptions, QosPolicyKind, QosProfile,
    SingleThreadedExecutor, SubscriptionEventCallbacks, SubscriptionOptions,
};

const PATIENCE: Duration = Duration::from_secs(60);

/// A list a callback appends its statuses to.
fn log<S>() -> Arc<Mutex<Vec<S>>> {
    Arc::default()
}

fn len<S>(log: &Arc<Mutex<Vec<S>>>) -> usize {
    log.lock().unwrap().len()
}

fn last<S: Clone>(log: &Arc<Mutex<Vec<S>>>) -> Option<S> {
    log.lock().unwrap().last().cloned()
}

#[test]
fn an_incompatible_pair_is_not_matched_and_both_sides_see_the_policy_by_event_and_query() {
    let context = isolated();
    let (talker, listener) = (
        context.create_node("talker").unwrap(),
        context.create_node("listener").unwrap(),
    );
    let (pub_log, sub_log, type_log) = (log(), log(), log());
    let (p, s, t) = (pub_log.clone(), sub_log.clone(), type_log.clone());
    let publisher = talker
        .create_publisher::<UInt64>(
            "chatter",
            PublisherOptions::new(QosProfile::default().best_effort()).event_callbacks(
                PublisherEventCallbacks::new()
                    .on_incompatible_qos(move |s| p.lock().unwrap().push(s.clone()))
                    .on_incompatible_type(move |s| t.lock().unwrap().push(s.clone())),
            ),
        )
        .unwrap();
    let subscription = listener
        .create_subscription(
            "chatter",
            SubscriptionOptions::new(QosProfile::default().reliable()).event_callbacks(
                SubscriptionEventCallbacks::new()
                    .on_incompatible_qos(move |st| s.lock().unwrap().push(st.clone())),
            ),
            |_: &UInt64| {},
        )
        .unwrap();
    let other_type = listener
        .create_polled_subscription::<RosString>("chatter", QosProfile::sensor_data())
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&talker).unwrap();
    executor.add_node(&listener).unwrap();
    assert!(executor.spin_until(
        || len(&pub_log) >= 1 && len(&sub_log) >= 1 && len(&type_log) >= 1,
        PATIENCE
    ));
    assert_eq!(publisher.matched_subscriptions(), 0);
    assert_eq!(subscription.matched_publishers(), 0);
    for status in [last(&pub_log).unwrap(), last(&sub_log).unwrap()] {
        assert_eq!(status.total_count, 1);
        assert_eq!(status.total_count_change, 1);
        assert_eq!(status.last_policy_kind, Some(QosPolicyKind::Reliability));
    }
    let queried = subscription.incompatible_qos_status();
    assert_eq!(queried.last_policy_kind, Some(QosPolicyKind::Reliability));
    assert_eq!(queried.last_peer, Some(publisher.id()));
    let why = queried.last_incompatibility.unwrap().to_string();
    assert!(why.contains("BEST_EFFORT"), "{why}");
    assert_eq!(
        publisher.incompatible_qos_status().last_policy_kind,
        Some(QosPolicyKind::Reliability)
    );
    assert_eq!(publisher.incompatible_peers().len(), 2, "qos and type");
    let typed = last(&type_log).unwrap();
    assert_eq!(typed.last_type_name.as_deref(), Some("std_msgs/msg/String"));
    assert_eq!(typed.last_peer, Some(other_type.id()));
    assert_eq!(other_type.incompatible_type_status().total_count, 1);
}

#[test]
fn matched_events_follow_subscriptions_coming_and_going() {
    let context = isolated();
    let node = context.create_node("n").unwrap();
    let pub_log = log();
    let p = pub_log.clone();
    let publisher = node
        .create_publisher::<UInt64>(
            "m",
            PublisherOptions::new(QosProfile::default()).event_callbacks(
                PublisherEventCallbacks::new()
                    .on_matched(move |s| p.lock().unwrap().push(s.clone())),
            ),
        )
        .unwrap();
    let sub_log = log();
    let s = sub_log.clone();
    let subscription = node
        .create_subscription(
            "m",
            SubscriptionOptions::new(QosProfile::default()).event_callbacks(
                SubscriptionEventCallbacks::new()
                    .on_matched(move |st| s.lock().unwrap().push(st.clone())),
            ),
            |_: &UInt64| {},
        )
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let current = |l: &Arc<Mutex<Vec<crate::MatchedStatus>>>| last(l).map(|s| s.current_count);
    assert!(executor.spin_until(|| current(&pub_log) == Some(1), PATIENCE));
    assert!(executor.spin_until(|| current(&sub_log) == Some(1), PATIENCE));
    let second = node
        .create_polled_subscription::<UInt64>("m", QosProfile::default())
        .unwrap();
    assert!(executor.spin_until(|| current(&pub_log) == Some(2), PATIENCE));
    drop(second);
    assert!(executor.spin_until(|| current(&pub_log) == Some(1), PATIENCE));
    let seen = pub_log.lock().unwrap().clone();
    let net: i64 = seen.iter().map(|s| s.current_count_change).sum();
    let matches: u64 = seen.iter().map(|s| s.total_count_change).sum();
    assert_eq!((net, matches), (1, 2), "{seen:?}");
    assert_eq!(publisher.matched_status().total_count, 2);
    drop(publisher);
    assert!(executor.spin_until(|| current(&sub_log) == Some(0), PATIENCE));
    assert_eq!(last(&sub_log).unwrap().current_count_change, -1);
    assert_eq!(subscription.matched_status().total_count, 1);
}

#[test]
fn deadlines_are_missed_only_once_the_publisher_stops() {
    let deadline = Duration::from_millis(50);
    let qos = QosProfile::default().deadline(deadline);
    let context = isolated();
    let (talker, listener) = (
        context.create_node("talker").unwrap(),
        context.create_node("listener").unwrap(),
    );
    let (offered, requested) = (log(), log());
    let (o, r) = (offered.clone(), requested.clone());
    let publisher = talker
        .create_publisher::<UInt64>(
            "d",
            PublisherOptions::new(qos).event_callbacks(
                PublisherEventCallbacks::new()
                    .on_deadline_missed(move |s| o.lock().unwrap().push(s.clone())),
            ),
        )
        .unwrap();
    let subscription = listener
        .create_subscription(
            "d",
            SubscriptionOptions::new(qos).event_callbacks(
                SubscriptionEventCallbacks::new()
                    .on_deadline_missed(move |s| r.lock().unwrap().push(s.clone())),
            ),
            |_: &UInt64| {},
        )
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&talker).unwrap();
    executor.add_node(&listener).unwrap();
    thread::scope(|scope| {
        let spinner = scope
            .spawn(|| executor.spin_until(|| len(&offered) >= 3 && len(&requested) >= 3, PATIENCE));
        // Ten times faster than the deadline, for six deadlines.
        for data in 0..60 {
            publisher.publish(UInt64 { data }).unwrap();
            thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(publisher.offered_deadline_missed_status().total_count, 0);
        assert_eq!(
            subscription.requested_deadline_missed_status().total_count,
            0
        );
        assert_eq!((len(&offered), len(&requested)), (0, 0));
        // Now silent: a miss every period.
        assert!(spinner.join().unwrap(), "no deadline missed after a stop");
    });
    for statuses in [&offered, &requested] {
        let seen = statuses.lock().unwrap();
        let total: u64 = seen.iter().map(|s| s.total_count_change).sum();
        assert_eq!(total, seen.last().unwrap().total_count, "{seen:?}");
        assert!(total >= 3);
    }
    assert!(subscription.requested_deadline_missed_status().total_count >= 3);
}

#[test]
fn a_silent_manual_publisher_loses_liveliness_and_an_assertion_keeps_it() {
    let lease = Duration::from_millis(100);
    let qos = QosProfile::default()
        .liveliness(Liveliness::ManualByTopic)
        .liveliness_lease(lease);
    let context = isolated();
    let (talker, listener) = (
        context.create_node("talker").unwrap(),
        context.create_node("listener").unwrap(),
    );
    let (lost, changed) = (log(), log());
    let (l, c) = (lost.clone(), changed.clone());
    let publisher = talker
        .create_publisher::<UInt64>(
            "alive",
            PublisherOptions::new(qos).event_callbacks(
                PublisherEventCallbacks::new()
                    .on_liveliness_lost(move |s| l.lock().unwrap().push(s.clone())),
            ),
        )
        .unwrap();
    let subscription = listener
        .create_subscription(
            "alive",
            SubscriptionOptions::new(qos).event_callbacks(
                SubscriptionEventCallbacks::new()
                    .on_liveliness_changed(move |s| c.lock().unwrap().push(s.clone())),
            ),
            |_: &UInt64| {},
        )
        .unwrap();
    let alive = |a, n| {
        let changed = changed.clone();
        move || last(&changed).is_some_and(|s| (s.alive_count, s.not_alive_count) == (a, n))
    };
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&talker).unwrap();
    executor.add_node(&listener).unwrap();
    assert!(executor.spin_until(alive(1, 0), PATIENCE));
    thread::scope(|scope| {
        let spinner = scope.spawn(|| executor.spin_until(|| len(&lost) >= 1, PATIENCE));
        for data in 0..40 {
            publisher.publish(UInt64 { data }).unwrap();
            thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(publisher.liveliness_lost_status().total_count, 0);
        assert_eq!(subscription.liveliness_changed_status().not_alive_count, 0);
        assert!(spinner.join().unwrap(), "the silent publisher stayed alive");
    });
    assert!(executor.spin_until(alive(0, 1), PATIENCE));
    let not_alive = last(&changed).unwrap();
    assert_eq!(not_alive.not_alive_count_change, 1);
    assert_eq!(not_alive.alive_count_change, -1);

    publisher.publish(UInt64 { data: 0 }).unwrap();
    assert!(executor.spin_until(alive(1, 0), PATIENCE));
    thread::scope(|scope| {
        let spinner = scope.spawn(|| executor.spin_until(|| len(&lost) >= 2, PATIENCE));
        // Asserted, not published: still alive on both sides.
        for _ in 0..60 {
            publisher.assert_liveliness();
            thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(publisher.liveliness_lost_status().total_count, 1);
        assert_eq!(subscription.liveliness_changed_status().not_alive_count, 0);
        assert!(spinner.join().unwrap(), "lost again once silent");
    });
}

#[test]
fn an_automatic_publisher_leaves_the_alive_count_when_dropped() {
    let context = isolated();
    let node = context.create_node("n").unwrap();
    let changed = log();
    let c = changed.clone();
    let subscription = node
        .create_subscription(
            "auto",
            SubscriptionOptions::new(QosProfile::default()).event_callbacks(
                SubscriptionEventCallbacks::new()
                    .on_liveliness_changed(move |s| c.lock().unwrap().push(s.clone())),
            ),
            |_: &UInt64| {},
        )
        .unwrap();
    let publisher = node
        .create_publisher::<UInt64>("auto", QosProfile::default())
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let alive = || last(&changed).map(|s| s.alive_count);
    assert!(executor.spin_until(|| alive() == Some(1), PATIENCE));
    drop(publisher);
    assert!(executor.spin_until(|| alive() == Some(0), PATIENCE));
    let gone = last(&changed).unwrap();
    assert_eq!((gone.alive_count_change, gone.not_alive_count), (-1, 0));
    assert_eq!(subscription.liveliness_changed_status().alive_count, 0);
}

#[test]
fn a_keep_last_one_best_effort_subscription_counts_what_it_lost() {
    let node = isolated().create_node("n").unwrap();
    let lost = log();
    let l = lost.clone();
    let heard = log();
    let h = heard.clone();
    let subscription = node
        .create_subscription(
            "burst",
            SubscriptionOptions::new(QosProfile::sensor_data().keep_last(1)).event_callbacks(
                SubscriptionEventCallbacks::new()
                    .on_message_lost(move |s| l.lock().unwrap().push(s.clone())),
            ),
            move |m: UInt64| h.lock().unwrap().push(m.data),
        )
        .unwrap();
    let publisher = node
        .create_publisher::<UInt64>("burst", QosProfile::sensor_data())
        .unwrap();
    for data in 1..=10 {
        publisher.publish(UInt64 { data }).unwrap();
    }
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert!(executor.spin_until(|| len(&lost) >= 1 && len(&heard) >= 1, PATIENCE));
    assert_eq!(*heard.lock().unwrap(), [10]);
    let status = last(&lost).unwrap();
    assert_eq!((status.total_count, status.total_count_change), (9, 9));
    assert_eq!(subscription.message_lost_status().total_count, 9);
}
