//! Time as ROS 2 keeps it: [`Clock`]s of ROS, system and steady time,
//! [`Time`] points, signed [`Duration`]s, [`Rate`]s and time jumps.
//!
//! Every node has a ROS clock ([`Node::get_clock`](crate::Node::get_clock)).
//! It reads system time until the node's `use_sim_time` parameter is true
//! (`--ros-args -p use_sim_time:=true`, a params file, or a set at run time,
//! also from `ros2 param set`); then it reads the time last published on
//! `/clock` (`rosgraph_msgs/msg/Clock`) — zero until the first message — and:
//!
//! - [`create_timer`](crate::Node::create_timer) timers fire on simulated
//!   time: a timer whose period is 1 s fires once per simulated second,
//!   however fast the simulation runs, and waits while it stands still;
//!   a jump back before its last call restarts its schedule;
//! - [`Rate::sleep`] and [`Clock::sleep_until`] sleep in simulated time;
//! - jump callbacks hear of ROS time being activated or deactivated and of
//!   jumps past their thresholds.
//!
//! [`create_wall_timer`](crate::Node::create_wall_timer) timers always run
//! on steady time, as in rclcpp.

use thiserror::Error;

mod clock;
mod jump;
mod rate;
mod source;
mod value;

pub(crate) use clock::system_ns;
pub use clock::Clock;
pub use jump::{
    ClockChange, JumpHandler, JumpThreshold, PostJumpCallback, PreJumpCallback, TimeJump,
};
pub use rate::Rate;
pub(crate) use source::TimeSource;
pub use source::USE_SIM_TIME;
pub use value::{ClockMismatch, Duration, Time};

#[cfg(test)]
mod tests;

/// The kind of a [`Clock`] (rcl's `rcl_clock_type_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockType {
    /// System time, or simulated time while ROS time is active.
    RosTime,
    /// The system's real-time clock (may jump when it is set).
    SystemTime,
    /// The monotonic clock: never jumps, counts from an unspecified start.
    SteadyTime,
}

/// Why a sleep on a clock ended before its time.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SleepError {
    /// The time to sleep until is of another clock.
    #[error(
        "cannot sleep on a {clock:?} clock until a {until:?} time: use a time from the same clock"
    )]
    ClockMismatch {
        /// The clock slept on.
        clock: ClockType,
        /// The clock of the time given.
        until: ClockType,
    },
    /// ROS time was activated or deactivated during the sleep.
    #[error(
        "the clock's time base changed during the sleep (ROS time was activated or deactivated)"
    )]
    ClockChanged,
    /// The context shut down.
    #[error("the context shut down during the sleep")]
    ShutDown,
}

/// Why a rate could not be created.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RateCreateError {
    /// A rate needs a positive, finite frequency (and period).
    #[error("a rate needs a positive, finite frequency and period")]
    NotPositive,
}
