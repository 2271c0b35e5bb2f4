use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration as StdDuration, Instant};

use super::*;
use crate::msg::builtin_interfaces::msg::Time as TimeMsg;
use crate::msg::rosgraph_msgs::msg::Clock as ClockMsg;
use crate::parameter::{Parameter, ParameterValue};
use crate::tests::isolated;
use crate::{Node, NodeOptions, Publisher, QosProfile, SingleThreadedExecutor};

const PATIENCE: StdDuration = StdDuration::from_secs(30);
const S: i64 = 1_000_000_000;

fn ros(ns: i64) -> Time {
    Time::from_nanoseconds(ns, ClockType::RosTime)
}

#[test]
fn times_and_durations_convert_to_messages_and_back_with_floor_seconds() {
    let t = Time::new(12, 345, ClockType::SystemTime);
    assert_eq!(t.nanoseconds(), 12 * S + 345);
    assert_eq!(
        t.to_msg(),
        TimeMsg {
            sec: 12,
            nanosec: 345
        }
    );
    assert_eq!(Time::from_msg(&t.to_msg(), ClockType::SystemTime), t);
    let back = Duration::from_nanoseconds(-1);
    assert_eq!(
        (back.to_msg().sec, back.to_msg().nanosec),
        (-1, 999_999_999)
    );
    assert_eq!(Duration::from_msg(&back.to_msg()), back);
    assert_eq!(back.to_std(), None);
    assert_eq!(Duration::from_seconds(1.5).nanoseconds(), 3 * S / 2);
    assert_eq!(format!("{}", ros(-1)), "-1.999999999");
    assert_eq!((ros(5) + Duration::from_nanoseconds(3)).nanoseconds(), 8);
    assert_eq!(ros(5).since(ros(8)), Ok(Duration::from_nanoseconds(-3)));
}

#[test]
fn times_of_different_clocks_neither_compare_nor_subtract() {
    let steady = Time::from_nanoseconds(1, ClockType::SteadyTime);
    assert_eq!(ros(0).partial_cmp(&steady), None);
    assert!(ros(0) < ros(1));
    assert_eq!(
        ros(1).since(steady),
        Err(ClockMismatch {
            left: ClockType::RosTime,
            right: ClockType::SteadyTime
        })
    );
}

#[test]
fn a_ros_clock_reads_system_time_until_its_override_is_active() {
    let clock = Clock::ros();
    let system = Clock::new(ClockType::SystemTime).now().nanoseconds();
    assert!(clock.now().nanoseconds() >= system);
    clock.set_ros_time_override(ros(42));
    assert!(
        clock.now().nanoseconds() >= system,
        "inactive: still system time"
    );
    clock.enable_ros_time_override();
    assert_eq!(clock.now(), ros(42));
    clock.set_ros_time_override(ros(7));
    assert_eq!(clock.now(), ros(7));
    clock.disable_ros_time_override();
    assert!(clock.now().nanoseconds() >= system);
    let steady = Clock::new(ClockType::SteadyTime);
    let (a, b) = (steady.now(), steady.now());
    assert!(a <= b && a.clock_type() == ClockType::SteadyTime);
}

#[test]
fn jump_callbacks_hear_clock_changes_and_jumps_past_their_thresholds_until_dropped() {
    let clock = Clock::ros();
    let heard = Arc::new(Mutex::new(Vec::<(&str, TimeJump)>::new()));
    let (pre, post) = (heard.clone(), heard.clone());
    let handler = clock.create_jump_callback(
        JumpThreshold {
            on_clock_change: true,
            min_forward: Some(Duration::from_seconds(1.0)),
            min_backward: Some(Duration::from_nanoseconds(-1)),
        },
        Some(Box::new(move || {
            pre.lock().unwrap().push((
                "pre",
                TimeJump {
                    clock_change: ClockChange::SystemTimeNoChange,
                    delta: Duration::ZERO,
                },
            ))
        })),
        Some(Box::new(move |j: &TimeJump| {
            post.lock().unwrap().push(("post", *j))
        })),
    );
    clock.set_ros_time_override(ros(10 * S)); // inactive: no jump
    clock.enable_ros_time_override();
    clock.set_ros_time_override(ros(10 * S + S / 2)); // +0.5 s: below threshold
    clock.set_ros_time_override(ros(12 * S)); // +1.5 s
    clock.set_ros_time_override(ros(11 * S)); // -1 s
    let posts: Vec<TimeJump> = heard
        .lock()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k == "post")
        .map(|(_, j)| *j)
        .collect();
    assert_eq!(heard.lock().unwrap().len(), 6, "one pre per post");
    assert_eq!(
        posts,
        vec![
            TimeJump {
                clock_change: ClockChange::RosTimeActivated,
                delta: Duration::ZERO
            },
            TimeJump {
                clock_change: ClockChange::RosTimeNoChange,
                delta: Duration::from_nanoseconds(3 * S / 2)
            },
            TimeJump {
                clock_change: ClockChange::RosTimeNoChange,
                delta: Duration::from_nanoseconds(-S)
            },
        ]
    );
    drop(handler);
    clock.disable_ros_time_override();
    assert_eq!(
        heard.lock().unwrap().len(),
        6,
        "a dropped handler hears nothing"
    );
}

#[test]
fn a_sleep_on_simulated_time_ends_when_the_override_gets_there_or_the_base_changes() {
    let clock = Clock::ros();
    clock.enable_ros_time_override();
    clock.set_ros_time_override(ros(S));
    let driver = clock.clone();
    let t = std::thread::spawn(move || {
        for k in 2..=5 {
            std::thread::sleep(StdDuration::from_millis(20));
            driver.set_ros_time_override(ros(k * S));
        }
    });
    assert_eq!(clock.sleep_until(ros(4 * S), None), Ok(()));
    assert!(clock.now() >= ros(4 * S));
    t.join().unwrap();
    // The override stands still at 5 s: only a change of base ends this.
    let driver = clock.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(StdDuration::from_millis(50));
        driver.disable_ros_time_override();
    });
    assert_eq!(
        clock.sleep_until(ros(6 * S), None),
        Err(SleepError::ClockChanged)
    );
    t.join().unwrap();
    let steady = Time::from_nanoseconds(0, ClockType::SteadyTime);
    assert!(matches!(
        clock.sleep_until(steady, None),
        Err(SleepError::ClockMismatch { .. })
    ));
}

#[test]
fn a_sleep_ends_when_its_context_shuts_down() {
    let context = isolated();
    let clock = Clock::ros();
    clock.enable_ros_time_override();
    let c = context.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(StdDuration::from_millis(50));
        c.shutdown();
    });
    assert_eq!(
        clock.sleep_for(Duration::from_seconds(1.0), Some(&context)),
        Err(SleepError::ShutDown)
    );
    t.join().unwrap();
}

#[test]
fn a_steady_sleep_lasts_at_least_its_duration() {
    let clock = Clock::new(ClockType::SteadyTime);
    let start = Instant::now();
    clock.sleep_for(Duration::from_seconds(0.02), None).unwrap();
    assert!(start.elapsed() >= StdDuration::from_millis(20));
}

/// Publishes `t` on `/clock` and waits until `node` reads it.
fn tick(clock: &Publisher<ClockMsg>, node: &Node, t: i64) {
    clock
        .publish(ClockMsg {
            clock: ros(t).to_msg(),
        })
        .unwrap();
    let deadline = Instant::now() + PATIENCE;
    while node.now() != ros(t) {
        assert!(
            Instant::now() < deadline,
            "the node never read /clock = {t}"
        );
        std::thread::sleep(StdDuration::from_millis(1));
    }
}

#[test]
fn with_use_sim_time_a_node_follows_clock_and_its_timer_fires_on_simulated_time_only() {
    // A period of 100 simulated seconds: a timer on wall time would not fire
    // before the test's patience runs out.
    const P: i64 = 100 * S;
    let context = isolated();
    let node = context.create_node("sim").unwrap();
    assert!(!node.get_clock().ros_time_is_active());
    let publisher = node
        .create_publisher::<ClockMsg>("/clock", QosProfile::clock())
        .unwrap();
    assert!(
        node.set_parameter(Parameter::new(USE_SIM_TIME, true))
            .successful
    );
    assert!(node.get_clock().ros_time_is_active());
    assert_eq!(node.now(), ros(0), "zero until the first /clock");
    let fired = Arc::new(Mutex::new(Vec::new()));
    let f = fired.clone();
    let clock = node.get_clock().clone();
    let _timer = node
        .create_timer(StdDuration::from_secs(100), move || {
            f.lock().unwrap().push(clock.now().nanoseconds())
        })
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let count = || fired.lock().unwrap().len();
    let spin_a_while = || {
        executor.spin_until(|| false, StdDuration::from_millis(100));
    };
    for (t, expected) in [(P / 2, 0), (P, 1), (P + P / 2, 1), (2 * P, 2)] {
        tick(&publisher, &node, t);
        if expected > count() {
            assert!(executor.spin_until(|| count() == expected, PATIENCE));
        } else {
            spin_a_while();
        }
        assert_eq!(count(), expected, "at {t} ns");
    }
    // Time stands still: wall time fires nothing.
    executor.spin_until(|| false, StdDuration::from_millis(300));
    assert_eq!(count(), 2);
    // A jump forward over several periods fires once, not in a burst.
    tick(&publisher, &node, 10 * P);
    assert!(executor.spin_until(|| count() == 3, PATIENCE));
    spin_a_while();
    assert_eq!(count(), 3);
    // Back before the last call (a simulation restarted): the schedule
    // restarts one period after the new time.
    tick(&publisher, &node, P);
    spin_a_while();
    tick(&publisher, &node, P + P / 2);
    spin_a_while();
    assert_eq!(count(), 3);
    tick(&publisher, &node, 2 * P);
    assert!(executor.spin_until(|| count() == 4, PATIENCE));
    assert_eq!(*fired.lock().unwrap(), vec![P, 2 * P, 10 * P, 2 * P]);
    // Off again: system time, and the timer on a steady schedule.
    assert!(
        node.set_parameter(Parameter::new(USE_SIM_TIME, false))
            .successful
    );
    assert!(!node.get_clock().ros_time_is_active());
    // System time again: past 2020.
    assert!(node.now().nanoseconds() > 1_600_000_000 * S);
}

#[test]
fn use_sim_time_from_an_override_is_active_at_creation_and_must_be_a_bool() {
    let context = isolated();
    let options = NodeOptions::new().parameter_override(USE_SIM_TIME, true);
    let node = context.create_node_with_options("sim", options).unwrap();
    assert!(node.get_clock().ros_time_is_active());
    assert_eq!(node.now(), ros(0));
    let refused = node.set_parameter(Parameter::new(USE_SIM_TIME, "yes"));
    assert!(!refused.successful);
    assert_eq!(
        refused.reason,
        "Wrong parameter type, expected 'Type.BOOL' got 'Type.STRING'"
    );
    let options = NodeOptions::new().parameter_override(USE_SIM_TIME, 1i64);
    let err = context
        .create_node_with_options("bad", options)
        .unwrap_err();
    assert!(err.to_string().contains("use_sim_time"), "{err}");
    assert_eq!(
        context
            .create_node("plain")
            .unwrap()
            .get_parameter(USE_SIM_TIME)
            .unwrap(),
        ParameterValue::Bool(false)
    );
}

#[test]
fn a_rate_on_simulated_time_sleeps_until_clock_gets_one_period_further() {
    let context = isolated();
    let options = NodeOptions::new().parameter_override(USE_SIM_TIME, true);
    let node = context.create_node_with_options("sim", options).unwrap();
    let publisher = node
        .create_publisher::<ClockMsg>("/clock", QosProfile::clock())
        .unwrap();
    tick(&publisher, &node, 100 * S);
    let mut rate = node.create_rate(10.0).unwrap(); // 0.1 s periods
    let woke = Arc::new(AtomicUsize::new(0));
    let w = woke.clone();
    let sleeper = std::thread::spawn(move || {
        for _ in 0..3 {
            assert_eq!(rate.sleep(), Ok(true));
            w.fetch_add(1, Ordering::SeqCst);
        }
    });
    for k in 1..=3usize {
        std::thread::sleep(StdDuration::from_millis(50));
        assert_eq!(
            woke.load(Ordering::SeqCst),
            k - 1,
            "woke before /clock moved"
        );
        tick(&publisher, &node, 100 * S + k as i64 * S / 10);
        let deadline = Instant::now() + PATIENCE;
        while woke.load(Ordering::SeqCst) < k {
            assert!(Instant::now() < deadline, "the rate never woke");
            std::thread::sleep(StdDuration::from_millis(1));
        }
    }
    sleeper.join().unwrap();
    assert_eq!(
        node.create_rate(0.0).unwrap_err(),
        RateCreateError::NotPositive
    );
}
