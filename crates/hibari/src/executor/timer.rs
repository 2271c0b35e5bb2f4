//! Timers: callbacks an executor runs every period (or that a
//! [`WaitSet`](crate::WaitSet) reports due, for [`Timer::call`]).
//!
//! A timer needs no thread: the executor spinning its node sleeps no later
//! than the earliest timer's due time and runs the timer's callback when it
//! is due. The schedule is fixed-rate — the `k`-th call is due at
//! `start + k·period`, however long each callback takes — so it does not
//! drift; when callbacks fall behind by more than a period, the missed ticks
//! are skipped (as rcl does), not run in a burst. A timer runs on the
//! steady clock, or, while its node's clock reads simulated time, on that
//! time: every `/clock` update wakes the executor to look at it.
//!
//! A timer runs in a [callback group](crate::CallbackGroup): the node's
//! default one, or the group given in [`TimerOptions`].

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::context::lock;
use crate::executor::watchers::Watchers;
use crate::group::CallbackGroup;
use crate::node::{lock_callback, Entity, Node, NodeWaker};
use crate::options::TimerOptions;
use crate::time::{Clock, ClockType};

/// Why a timer could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimerCreateError {
    /// A zero period would keep the executor busy.
    #[error("a timer's period must be longer than zero: give a period such as 10 ms")]
    ZeroPeriod,
}

type Callback = Box<dyn FnMut() + Send>;

/// When a timer is next due: on the steady clock, or, while its ROS clock
/// reads simulated time, in that time's nanoseconds.
struct Schedule {
    next_due: Instant,
    sim_next: i64,
    /// The simulated time of the last call (a jump back before it restarts
    /// the schedule, as rcl does).
    sim_last: i64,
    /// The clock's activation epoch the schedule was made in.
    epoch: u64,
}

pub(crate) struct TimerShared {
    period: Duration,
    /// `Some`: a ROS clock whose simulated time, while active, drives it.
    clock: Option<Clock>,
    schedule: Mutex<Schedule>,
    canceled: AtomicBool,
    callback: Mutex<Callback>,
    waker: Arc<NodeWaker>,
    group: CallbackGroup,
    /// Wait sets holding it (woken by a reset or a cancel).
    pub(crate) watchers: Watchers,
}

/// The first due time after `now` on the grid `due + k·period`.
fn next_on_grid(due: Instant, period: Duration, now: Instant) -> Instant {
    let next = due + period;
    if next > now {
        return next;
    }
    let behind = (now - next).as_nanos() / period.as_nanos() + 1;
    let skip = u32::try_from(behind).unwrap_or(u32::MAX);
    next + period.saturating_mul(skip)
}

/// The same grid in nanoseconds of simulated time.
fn next_on_sim_grid(due: i64, period: i64, now: i64) -> i64 {
    let next = due.saturating_add(period);
    if next > now {
        return next;
    }
    let behind = (now - next) / period + 1;
    next.saturating_add(period.saturating_mul(behind))
}

impl TimerShared {
    fn period_ns(&self) -> i64 {
        i64::try_from(self.period.as_nanos()).unwrap_or(i64::MAX)
    }

    /// (simulated time is active, its value, the clock's epoch).
    fn sim(&self, s: &Schedule) -> (bool, i64, u64) {
        match &self.clock {
            Some(c) => c.override_state(),
            None => (false, 0, s.epoch),
        }
    }

    /// Starts the schedule over, one period from now.
    fn restart(&self, s: &mut Schedule, now: Instant) {
        let (_, value, epoch) = self.sim(s);
        s.epoch = epoch;
        s.next_due = now + self.period;
        s.sim_last = value;
        s.sim_next = value.saturating_add(self.period_ns());
    }

    /// Whether a call is due; restarts the schedule when the time base
    /// changed or simulated time went back before the last call.
    fn due(&self, s: &mut Schedule, now: Instant) -> bool {
        let (active, value, epoch) = self.sim(s);
        if epoch != s.epoch || (active && value < s.sim_last) {
            self.restart(s, now);
            return false;
        }
        match active {
            true => value >= s.sim_next,
            false => now >= s.next_due,
        }
    }

    /// Whether a call is due now (a wait set's question: the timer is not
    /// run, and its group is not asked).
    pub(crate) fn is_ready(&self, now: Instant) -> bool {
        !self.canceled.load(Ordering::Acquire) && self.due(&mut lock(&self.schedule), now)
    }

    /// When a wait set holding it must wake: the steady due time, `None`
    /// while canceled or while simulated time drives it.
    pub(crate) fn steady_due(&self) -> Option<Instant> {
        if self.canceled.load(Ordering::Acquire) {
            return None;
        }
        let s = lock(&self.schedule);
        match self.sim(&s) {
            (true, _, epoch) if epoch == s.epoch => None,
            // The time base changed: look at it now.
            (_, _, epoch) if epoch != s.epoch => Some(Instant::now()),
            _ => Some(s.next_due),
        }
    }

    /// Takes the due call: the schedule moves to the next grid point.
    fn consume(&self, s: &mut Schedule, now: Instant) {
        let (active, value, _) = self.sim(s);
        if active {
            s.sim_last = value;
            s.sim_next = next_on_sim_grid(s.sim_next, self.period_ns(), value);
        } else {
            s.next_due = next_on_grid(s.next_due, self.period, now);
        }
    }
}

impl Entity for TimerShared {
    fn execute(&self, now: Instant) -> bool {
        if self.canceled.load(Ordering::Acquire) || !self.due(&mut lock(&self.schedule), now) {
            return false;
        }
        let Some(_group) = self.group.try_enter(&self.waker) else {
            return false;
        };
        let Some(mut callback) = lock_callback(&self.callback) else {
            return false;
        };
        {
            let mut s = lock(&self.schedule);
            if !self.due(&mut s, now) {
                return false;
            }
            self.consume(&mut s, now);
        }
        callback();
        true
    }

    /// `None` while canceled, while its group runs another callback (the
    /// group's release wakes the executor), or while simulated time drives
    /// it (every `/clock` update wakes the executor).
    fn next_due(&self) -> Option<Instant> {
        if !self.group.is_free(&self.waker) {
            return None;
        }
        self.steady_due()
    }
}

/// A timer: its callback runs every period on the executor spinning its
/// node. Dropping it stops it.
pub struct Timer {
    pub(crate) shared: Arc<TimerShared>,
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timer")
            .field("period", &self.shared.period)
            .field("canceled", &self.is_canceled())
            .finish()
    }
}

impl Timer {
    /// The period.
    pub fn period(&self) -> Duration {
        self.shared.period
    }

    /// Stops the timer until [`reset`](Timer::reset).
    pub fn cancel(&self) {
        self.shared.canceled.store(true, Ordering::SeqCst);
        self.shared.waker.wake();
        self.shared.watchers.notify();
    }

    /// Whether the timer is canceled.
    pub fn is_canceled(&self) -> bool {
        self.shared.canceled.load(Ordering::Acquire)
    }

    /// Restarts the schedule: the next call is one period from now.
    pub fn reset(&self) {
        self.shared
            .restart(&mut lock(&self.shared.schedule), Instant::now());
        self.shared.canceled.store(false, Ordering::SeqCst);
        self.shared.waker.wake();
        self.shared.watchers.notify();
    }

    /// Runs the callback now if the timer is due, on the calling thread,
    /// and moves its schedule to the next period (rcl's `rcl_timer_call`,
    /// for a timer a [`WaitSet`](crate::WaitSet) found ready). Returns
    /// whether it ran: not when the timer is not due, is canceled, or its
    /// callback (or a mutually exclusive group it is in) runs on another
    /// thread right now.
    pub fn call(&self) -> bool {
        self.shared.execute(Instant::now())
    }

    /// How long until the next call (zero when it is due), in the time that
    /// drives it (simulated time while it is active).
    pub fn time_until_trigger(&self) -> Duration {
        let s = lock(&self.shared.schedule);
        match self.shared.sim(&s) {
            (true, value, _) => {
                Duration::from_nanos(u64::try_from(s.sim_next.saturating_sub(value)).unwrap_or(0))
            }
            _ => s.next_due.saturating_duration_since(Instant::now()),
        }
    }

    /// The clock driving it: `None` for a wall (steady) timer.
    pub fn clock(&self) -> Option<&Clock> {
        self.shared.clock.as_ref()
    }
}

impl Node {
    /// Creates a timer on the node's clock (ROS time, as rclcpp's and
    /// rclpy's `create_timer`): its callback runs on the executor spinning
    /// this node every period, the first time one period from now. Without
    /// simulated time it keeps a steady schedule; with `use_sim_time` it
    /// fires on simulated time (see [`crate::time`]). `options` is the
    /// period ([`Duration`]) or [`TimerOptions`] (the callback group, and
    /// another clock than the node's).
    pub fn create_timer(
        &self,
        options: impl Into<TimerOptions>,
        callback: impl FnMut() + Send + 'static,
    ) -> Result<Timer, TimerCreateError> {
        let mut options = options.into();
        let clock = options
            .clock
            .take()
            .unwrap_or_else(|| self.get_clock().clone());
        if clock.clock_type() != ClockType::RosTime {
            return self.timer(options, None, Box::new(callback));
        }
        clock.add_waker(&self.inner.waker);
        self.timer(options, Some(clock), Box::new(callback))
    }

    /// rclcpp's `create_wall_timer`: a timer on steady time. As in rclcpp,
    /// "wall" means real elapsed time (never simulated time), measured on
    /// the monotonic clock, so a jump of the system clock neither fires nor
    /// delays it.
    pub fn create_wall_timer(
        &self,
        options: impl Into<TimerOptions>,
        callback: impl FnMut() + Send + 'static,
    ) -> Result<Timer, TimerCreateError> {
        self.timer(options.into(), None, Box::new(callback))
    }

    fn timer(
        &self,
        options: TimerOptions,
        clock: Option<Clock>,
        callback: Callback,
    ) -> Result<Timer, TimerCreateError> {
        let TimerOptions { period, group, .. } = options;
        let group = group.unwrap_or_else(|| self.default_callback_group());
        if period.is_zero() {
            return Err(TimerCreateError::ZeroPeriod);
        }
        let shared = Arc::new(TimerShared {
            period,
            clock,
            schedule: Mutex::new(Schedule {
                next_due: Instant::now(),
                sim_next: 0,
                sim_last: 0,
                epoch: 0,
            }),
            canceled: AtomicBool::new(false),
            callback: Mutex::new(callback),
            waker: self.inner.waker.clone(),
            group,
            watchers: Watchers::default(),
        });
        shared.restart(&mut lock(&shared.schedule), Instant::now());
        let entity: Arc<dyn Entity> = shared.clone();
        self.add_entity(Arc::downgrade(&entity));
        Ok(Timer { shared })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_stays_on_the_grid_and_skips_missed_ticks() {
        let t0 = Instant::now();
        let p = Duration::from_millis(10);
        assert_eq!(next_on_grid(t0, p, t0), t0 + p);
        assert_eq!(next_on_grid(t0, p, t0 + Duration::from_millis(3)), t0 + p);
        assert_eq!(
            next_on_grid(t0, p, t0 + Duration::from_millis(10)),
            t0 + 2 * p
        );
        assert_eq!(
            next_on_grid(t0, p, t0 + Duration::from_millis(35)),
            t0 + 4 * p
        );
    }
}
