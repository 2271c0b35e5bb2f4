//! [`Time`] and [`Duration`]: nanosecond values as rcl keeps them.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Neg, Sub};

use crate::msg::builtin_interfaces::msg::{Duration as DurationMsg, Time as TimeMsg};

use super::ClockType;

const NS_PER_S: i64 = 1_000_000_000;

/// A point in time of one [`ClockType`]: signed nanoseconds since the
/// clock's epoch (the Unix epoch for ROS and system time, an unspecified
/// start for steady time), as rcl's `rcl_time_point_t`.
///
/// Points of different clock types do not compare (`partial_cmp` is `None`)
/// and do not subtract ([`Time::since`] says why).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Time {
    nanoseconds: i64,
    clock_type: ClockType,
}

/// Two times of different clocks were compared.
#[derive(Debug, thiserror::Error, Clone, Copy, PartialEq, Eq)]
#[error("times of different clocks do not subtract: {left:?} and {right:?}")]
pub struct ClockMismatch {
    /// The clock of the left operand.
    pub left: ClockType,
    /// The clock of the right operand.
    pub right: ClockType,
}

impl Time {
    /// `nanoseconds` since the epoch of a `clock_type` clock.
    pub const fn from_nanoseconds(nanoseconds: i64, clock_type: ClockType) -> Self {
        Time {
            nanoseconds,
            clock_type,
        }
    }

    /// `seconds` and `nanoseconds` (which may exceed a second) since the
    /// epoch; saturates at the range of `i64` nanoseconds.
    pub fn new(seconds: i64, nanoseconds: u32, clock_type: ClockType) -> Self {
        let ns = seconds
            .saturating_mul(NS_PER_S)
            .saturating_add(i64::from(nanoseconds));
        Time::from_nanoseconds(ns, clock_type)
    }

    /// A `builtin_interfaces/Time` read as a time of `clock_type`.
    pub fn from_msg(msg: &TimeMsg, clock_type: ClockType) -> Self {
        Time::new(i64::from(msg.sec), msg.nanosec, clock_type)
    }

    /// Nanoseconds since the epoch.
    pub const fn nanoseconds(&self) -> i64 {
        self.nanoseconds
    }

    /// Seconds since the epoch, as a float.
    pub fn seconds(&self) -> f64 {
        self.nanoseconds as f64 / 1e9
    }

    /// Whole seconds and the nanoseconds after them (`0..1e9`).
    pub fn seconds_nanoseconds(&self) -> (i64, u32) {
        split(self.nanoseconds)
    }

    /// The clock this time belongs to.
    pub const fn clock_type(&self) -> ClockType {
        self.clock_type
    }

    /// As a `builtin_interfaces/Time` (seconds saturate at `i32`).
    pub fn to_msg(&self) -> TimeMsg {
        let (sec, nanosec) = split(self.nanoseconds);
        TimeMsg {
            sec: sec.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
            nanosec,
        }
    }

    /// `self - earlier`, when both are times of the same clock.
    pub fn since(&self, earlier: Time) -> Result<Duration, ClockMismatch> {
        if self.clock_type != earlier.clock_type {
            return Err(ClockMismatch {
                left: self.clock_type,
                right: earlier.clock_type,
            });
        }
        Ok(Duration::from_nanoseconds(
            self.nanoseconds.saturating_sub(earlier.nanoseconds),
        ))
    }
}

fn split(ns: i64) -> (i64, u32) {
    (ns.div_euclid(NS_PER_S), ns.rem_euclid(NS_PER_S) as u32)
}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        (self.clock_type == other.clock_type).then(|| self.nanoseconds.cmp(&other.nanoseconds))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, ns) = split(self.nanoseconds);
        write!(f, "{s}.{ns:09}")
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    /// Saturates at the range of `i64` nanoseconds.
    fn add(self, d: Duration) -> Time {
        Time::from_nanoseconds(self.nanoseconds.saturating_add(d.0), self.clock_type)
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    /// Saturates at the range of `i64` nanoseconds.
    fn sub(self, d: Duration) -> Time {
        Time::from_nanoseconds(self.nanoseconds.saturating_sub(d.0), self.clock_type)
    }
}

/// A signed span of time in nanoseconds (rclcpp's and rclpy's `Duration`):
/// unlike [`std::time::Duration`] it may be negative, as a jump back in time
/// is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(i64);

impl Duration {
    /// No time.
    pub const ZERO: Duration = Duration(0);

    /// `nanoseconds` long.
    pub const fn from_nanoseconds(nanoseconds: i64) -> Self {
        Duration(nanoseconds)
    }

    /// `seconds` long (rounded to the nanosecond, saturating).
    pub fn from_seconds(seconds: f64) -> Self {
        Duration((seconds * 1e9).round() as i64)
    }

    /// A `builtin_interfaces/Duration`.
    pub fn from_msg(msg: &DurationMsg) -> Self {
        let ns = i64::from(msg.sec)
            .saturating_mul(NS_PER_S)
            .saturating_add(i64::from(msg.nanosec));
        Duration(ns)
    }

    /// Its length in nanoseconds.
    pub const fn nanoseconds(&self) -> i64 {
        self.0
    }

    /// Its length in seconds.
    pub fn seconds(&self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// As a `builtin_interfaces/Duration` (seconds saturate at `i32`).
    pub fn to_msg(&self) -> DurationMsg {
        let (sec, nanosec) = split(self.0);
        DurationMsg {
            sec: sec.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
            nanosec,
        }
    }

    /// As a [`std::time::Duration`]; `None` when negative.
    pub fn to_std(&self) -> Option<std::time::Duration> {
        u64::try_from(self.0)
            .ok()
            .map(std::time::Duration::from_nanos)
    }
}

impl From<std::time::Duration> for Duration {
    /// Saturates at `i64::MAX` nanoseconds (292 years).
    fn from(d: std::time::Duration) -> Self {
        Duration(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, other: Duration) -> Duration {
        Duration(self.0.saturating_add(other.0))
    }
}

impl Sub for Duration {
    type Output = Duration;
    fn sub(self, other: Duration) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
}

impl Neg for Duration {
    type Output = Duration;
    fn neg(self) -> Duration {
        Duration(self.0.saturating_neg())
    }
}
