//! `TimerOptions::clock`: a timer on a clock of the user's rather than the
//! node's — a ROS clock driven through its override, or steady time while
//! the node itself is on simulated time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari::parameter::Parameter;
use hibari::{Clock, ClockType, Context, NodeOptions, SingleThreadedExecutor, Time, TimerOptions};

const PATIENCE: Duration = Duration::from_secs(30);
const S: i64 = 1_000_000_000;

fn counter() -> (Arc<AtomicUsize>, impl FnMut() + Send + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    (count, move || {
        c.fetch_add(1, Ordering::SeqCst);
    })
}

#[test]
fn a_timer_on_a_ros_clock_of_its_own_fires_as_its_override_moves() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("own_clock").unwrap();
    let clock = Clock::new(ClockType::RosTime);
    clock.enable_ros_time_override();
    clock.set_ros_time_override(Time::new(0, 0, ClockType::RosTime));
    let (fired, callback) = counter();
    // 100 s of the clock's time: on the steady schedule it would not fire.
    let options = TimerOptions::new(Duration::from_secs(100)).clock(&clock);
    let _timer = node.create_timer(options, callback).unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    executor.spin_until(|| false, Duration::from_millis(100));
    assert_eq!(fired.load(Ordering::SeqCst), 0);
    clock.set_ros_time_override(Time::new(100, 0, ClockType::RosTime));
    assert!(executor.spin_until(|| fired.load(Ordering::SeqCst) == 1, PATIENCE));
    // The node's own clock (system time) has nothing to do with it.
    assert!(node.now().nanoseconds() > 1_600_000_000 * S);
}

#[test]
fn a_timer_on_steady_time_fires_while_the_nodes_simulated_time_stands_still() {
    let context = Context::builder().isolated().create().unwrap();
    let options = NodeOptions::new().parameter_override("use_sim_time", true);
    let node = context.create_node_with_options("sim", options).unwrap();
    assert!(node.get_clock().ros_time_is_active());
    let (on_node_clock, callback) = counter();
    let _sim = node
        .create_timer(Duration::from_millis(10), callback)
        .unwrap();
    let (on_steady, callback) = counter();
    let steady = Clock::new(ClockType::SteadyTime);
    let options = TimerOptions::new(Duration::from_millis(10)).clock(&steady);
    let _steady = node.create_timer(options, callback).unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let started = Instant::now();
    assert!(executor.spin_until(|| on_steady.load(Ordering::SeqCst) >= 3, PATIENCE));
    assert!(started.elapsed() >= Duration::from_millis(30));
    // No /clock was published: simulated time is still 0.
    assert_eq!(on_node_clock.load(Ordering::SeqCst), 0);
    // Turning simulated time off does not touch the steady timer's clock.
    assert!(
        node.set_parameter(Parameter::new("use_sim_time", false))
            .successful
    );
}
