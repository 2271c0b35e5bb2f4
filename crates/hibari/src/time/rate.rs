//! [`Rate`]: a loop that runs at a fixed frequency of a clock's time.

use crate::context::Context;
use crate::node::Node;

use super::{Clock, Duration, RateCreateError, SleepError, Time};

/// Sleeps so that a loop runs once per period of its clock's time
/// (rclcpp's `Rate`, rclpy's `node.create_rate`). On a node's clock with
/// `use_sim_time`, the period is simulated time: a loop waits while
/// `/clock` stands still.
///
/// ```no_run
/// # fn run(node: &hibari::Node) -> Result<(), Box<dyn std::error::Error>> {
/// let mut rate = node.create_rate(10.0)?;
/// while rate.sleep().is_ok() {
///     // ten times a second, until the context shuts down
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Rate {
    clock: Clock,
    period: Duration,
    last: Time,
    context: Option<Context>,
}

impl Rate {
    /// Every `period` of `clock`'s time; `context` (if any) ends a sleep
    /// when it shuts down.
    pub fn new(
        clock: Clock,
        period: Duration,
        context: Option<Context>,
    ) -> Result<Self, RateCreateError> {
        if period.nanoseconds() <= 0 {
            return Err(RateCreateError::NotPositive);
        }
        Ok(Rate {
            last: clock.now(),
            clock,
            period,
            context,
        })
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// Starts the schedule again from now.
    pub fn reset(&mut self) {
        self.last = self.clock.now();
    }

    /// Sleeps until one period after the previous tick. Returns `Ok(false)`
    /// without sleeping when the loop is already late (more than a period
    /// late: the schedule restarts from now, so missed ticks are not run in
    /// a burst), or when ROS time was (de)activated meanwhile (the
    /// schedule restarts in the new time); rclcpp's algorithm.
    pub fn sleep(&mut self) -> Result<bool, SleepError> {
        let now = self.clock.now();
        let mut next = self.last + self.period;
        if now.nanoseconds() < self.last.nanoseconds() {
            // Time went back (a simulation restarted): start over.
            next = now + self.period;
        }
        self.last = next;
        let left = next.nanoseconds().saturating_sub(now.nanoseconds());
        if left <= 0 {
            if now.nanoseconds() > (next + self.period).nanoseconds() {
                self.last = now;
            }
            return Ok(false);
        }
        match self.clock.sleep_until(next, self.context.as_ref()) {
            Ok(()) => Ok(true),
            Err(SleepError::ClockChanged) => {
                self.last = self.clock.now();
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }
}

impl Node {
    /// A [`Rate`] of `frequency` Hz on the node's clock (ROS time: simulated
    /// time when `use_sim_time` is true), ended by the context's shutdown.
    pub fn create_rate(&self, frequency: f64) -> Result<Rate, RateCreateError> {
        if !(frequency.is_finite() && frequency > 0.0) {
            return Err(RateCreateError::NotPositive);
        }
        let period = Duration::from_seconds(1.0 / frequency);
        Rate::new(
            self.get_clock().clone(),
            period,
            Some(self.context().clone()),
        )
    }
}
