//! The QoS matrix over the public API: every combination of reliability
//! (reliable / best effort), durability (volatile / transient local) and
//! history (keep last 3 / keep all) on the publisher, against every one on
//! a late-joining subscription — 64 pairs. For each pair: whether they
//! match (ROS 2's request/offered rules: a reliable request needs a reliable
//! offer, a transient-local request a transient-local offer), what the late
//! joiner receives of the 5 samples published before it existed, and what it
//! receives of 5 published after.

use std::time::Duration;

use hibari::msg::std_msgs::msg::UInt64;
use hibari::{
    Context, Durability, History, QosProfile, Reliability, SampleInfo, SingleThreadedExecutor,
    Subscription,
};

const DEPTH: usize = 3;
const EARLY: u64 = 5;
const LIVE: u64 = 5;

fn profiles() -> Vec<QosProfile> {
    let mut all = Vec::new();
    for reliable in [true, false] {
        for transient_local in [false, true] {
            for keep_all in [false, true] {
                let mut q = QosProfile::default().keep_last(DEPTH);
                q = if reliable {
                    q.reliable()
                } else {
                    q.best_effort()
                };
                q = if transient_local {
                    q.transient_local()
                } else {
                    q.volatile()
                };
                all.push(if keep_all { q.keep_all() } else { q });
            }
        }
    }
    all
}

fn label(q: &QosProfile) -> String {
    let r = match q.reliability {
        Reliability::Reliable => "reliable",
        Reliability::BestEffort => "best effort",
    };
    let d = match q.durability {
        Durability::Volatile => "volatile",
        Durability::TransientLocal => "transient local",
    };
    let h = match q.history {
        History::KeepLast(n) => format!("keep last {n}"),
        History::KeepAll => "keep all".into(),
    };
    format!("{r}/{d}/{h}")
}

/// The most samples `q` keeps (keep all: more than this test ever sends).
fn depth(q: &QosProfile) -> usize {
    match q.history {
        History::KeepLast(n) => n,
        History::KeepAll => usize::MAX,
    }
}

fn drain(sub: &Subscription<UInt64>) -> Vec<(u64, SampleInfo)> {
    std::iter::from_fn(|| sub.take())
        .map(|(m, info)| (m.data, info))
        .collect()
}

fn values(got: &[(u64, SampleInfo)]) -> Vec<u64> {
    got.iter().map(|(v, _)| *v).collect()
}

/// The last `n` of `from..=to`.
fn last(n: usize, from: u64, to: u64) -> Vec<u64> {
    let all: Vec<u64> = (from..=to).collect();
    all[all.len().saturating_sub(n)..].to_vec()
}

fn check_pair(offered: QosProfile, requested: QosProfile) {
    let case = format!(
        "publisher {} → subscription {}",
        label(&offered),
        label(&requested)
    );
    let node = Context::builder()
        .isolated()
        .create()
        .unwrap()
        .create_node("n")
        .unwrap();
    let publisher = node.create_publisher::<UInt64>("t", offered).unwrap();
    for data in 1..=EARLY {
        publisher.publish(UInt64 { data }).unwrap();
    }

    let sub = node
        .create_polled_subscription::<UInt64>("t", requested)
        .unwrap();
    let reliability_short = requested.reliability == Reliability::Reliable
        && offered.reliability == Reliability::BestEffort;
    let durability_short = requested.durability == Durability::TransientLocal
        && offered.durability == Durability::Volatile;
    let matches = !reliability_short && !durability_short;
    assert_eq!(
        publisher.matched_subscriptions(),
        usize::from(matches),
        "{case}"
    );
    assert_eq!(sub.matched_publishers(), usize::from(matches), "{case}");

    // The late joiner: the publisher's kept samples, if both are transient local.
    let early = drain(&sub);
    let kept = if matches
        && offered.durability == Durability::TransientLocal
        && requested.durability == Durability::TransientLocal
    {
        last(depth(&offered).min(depth(&requested)), 1, EARLY)
    } else {
        Vec::new()
    };
    assert_eq!(values(&early), kept, "{case}: late-joiner samples");

    // Live samples. A reliable keep-last subscription is never overfilled
    // (its publisher would wait for it), so it is drained every `DEPTH`.
    let bounded_reliable = requested.reliability == Reliability::Reliable
        && matches!(requested.history, History::KeepLast(_));
    let mut live = Vec::new();
    for data in EARLY + 1..=EARLY + LIVE {
        publisher.publish(UInt64 { data }).unwrap();
        if bounded_reliable && (data - EARLY).is_multiple_of(DEPTH as u64) {
            live.extend(drain(&sub));
        }
    }
    live.extend(drain(&sub));
    let expected = match (matches, bounded_reliable) {
        (false, _) => Vec::new(),
        (true, true) => last(usize::MAX, EARLY + 1, EARLY + LIVE),
        // Best effort keeps the newest; keep all keeps everything.
        (true, false) => last(depth(&requested), EARLY + 1, EARLY + LIVE),
    };
    assert_eq!(values(&live), expected, "{case}: live samples");
    let lost: u64 = live.iter().map(|(_, i)| i.lost_before).sum();
    let dropped = if matches {
        LIVE - expected.len() as u64
    } else {
        0
    };
    assert_eq!(lost, dropped, "{case}: loss reported in lost_before");
    for (data, info) in early.iter().chain(&live) {
        assert_eq!(
            info.sequence, *data,
            "{case}: sequence numbers count publishes"
        );
        assert_eq!(info.publisher_id, publisher.id(), "{case}");
    }
}

#[test]
fn every_pair_of_reliability_durability_and_history_matches_and_delivers_as_ros_2_says() {
    let all = profiles();
    assert_eq!(all.len(), 8);
    for offered in &all {
        for requested in &all {
            check_pair(*offered, *requested);
        }
    }
}

#[test]
fn a_late_joining_callback_subscription_gets_the_latched_samples_through_the_executor() {
    let node = Context::builder()
        .isolated()
        .create()
        .unwrap()
        .create_node("n")
        .unwrap();
    let publisher = node
        .create_publisher::<UInt64>("map", QosProfile::latched(2))
        .unwrap();
    for data in 1..=4 {
        publisher.publish(UInt64 { data }).unwrap();
    }
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let h = heard.clone();
    let _sub = node
        .create_subscription("map", QosProfile::latched(10), move |m: &UInt64| {
            h.lock().unwrap().push(m.data)
        })
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let done = executor.spin_until(|| heard.lock().unwrap().len() == 2, Duration::from_secs(60));
    assert!(done, "the latched samples never arrived");
    assert_eq!(executor.spin_some(), 0);
    assert_eq!(*heard.lock().unwrap(), [3, 4]);
}
