//! Steady timers and guard conditions: the two entities an executor runs
//! that are not subscriptions.
//!
//! A timer needs no thread: the executor spinning its node sleeps no later
//! than the earliest timer's due time and runs the timer's callback when it
//! is due. The schedule is fixed-rate on the steady clock — the `k`-th call
//! is due at `start + k·period`, however long each callback takes — so it
//! does not drift; when callbacks fall behind by more than a period, the
//! missed ticks are skipped (as rcl does), not run in a burst.
//!
//! Both run in a [callback group](crate::CallbackGroup): the node's default
//! one, or the group given in [`TimerOptions`] /
//! [`GuardConditionOptions`].

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::context::lock;
use crate::group::CallbackGroup;
use crate::node::{lock_callback, Entity, Node, NodeWaker};
use crate::options::{GuardConditionOptions, TimerOptions};

/// Why a timer could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimerCreateError {
    /// A zero period would keep the executor busy.
    #[error("a timer's period must be longer than zero: give a period such as 10 ms")]
    ZeroPeriod,
}

type Callback = Box<dyn FnMut() + Send>;

pub(crate) struct TimerShared {
    period: Duration,
    next_due: Mutex<Instant>,
    canceled: AtomicBool,
    callback: Mutex<Callback>,
    waker: Arc<NodeWaker>,
    group: CallbackGroup,
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

impl Entity for TimerShared {
    fn execute(&self, now: Instant) -> bool {
        if self.canceled.load(Ordering::Acquire) || now < *lock(&self.next_due) {
            return false;
        }
        let Some(_group) = self.group.try_enter(&self.waker) else {
            return false;
        };
        let Some(mut callback) = lock_callback(&self.callback) else {
            return false;
        };
        {
            let mut due = lock(&self.next_due);
            if now < *due {
                return false;
            }
            *due = next_on_grid(*due, self.period, now);
        }
        callback();
        true
    }

    /// `None` while canceled, or while its group runs another callback
    /// (the group's release wakes the executor).
    fn next_due(&self) -> Option<Instant> {
        if self.canceled.load(Ordering::Acquire) || !self.group.is_free(&self.waker) {
            None
        } else {
            Some(*lock(&self.next_due))
        }
    }
}

/// A steady timer: its callback runs every period on the executor spinning
/// its node. Dropping it stops it.
pub struct Timer {
    shared: Arc<TimerShared>,
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
        self.shared.canceled.store(true, Ordering::Release);
        self.shared.waker.wake();
    }

    /// Whether the timer is canceled.
    pub fn is_canceled(&self) -> bool {
        self.shared.canceled.load(Ordering::Acquire)
    }

    /// Restarts the schedule: the next call is one period from now.
    pub fn reset(&self) {
        *lock(&self.shared.next_due) = Instant::now() + self.shared.period;
        self.shared.canceled.store(false, Ordering::Release);
        self.shared.waker.wake();
    }

    /// How long until the next call (zero when it is due).
    pub fn time_until_trigger(&self) -> Duration {
        lock(&self.shared.next_due).saturating_duration_since(Instant::now())
    }
}

pub(crate) struct GuardShared {
    triggered: AtomicBool,
    callback: Mutex<Callback>,
    waker: Arc<NodeWaker>,
    group: CallbackGroup,
}

impl Entity for GuardShared {
    fn execute(&self, _now: Instant) -> bool {
        if !self.triggered.load(Ordering::Acquire) {
            return false;
        }
        let Some(_group) = self.group.try_enter(&self.waker) else {
            return false;
        };
        let Some(mut callback) = lock_callback(&self.callback) else {
            return false;
        };
        if !self.triggered.swap(false, Ordering::AcqRel) {
            return false;
        }
        callback();
        true
    }
}

/// Wakes the executor spinning its node from any thread and runs its
/// callback there; triggers before the callback runs coalesce into one call.
/// Cloning shares it; dropping the last clone removes it.
#[derive(Clone)]
pub struct GuardCondition {
    shared: Arc<GuardShared>,
}

impl fmt::Debug for GuardCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuardCondition")
            .field("triggered", &self.shared.triggered.load(Ordering::Relaxed))
            .finish()
    }
}

impl GuardCondition {
    /// Triggers it: the executor wakes and runs the callback.
    pub fn trigger(&self) {
        self.shared.triggered.store(true, Ordering::Release);
        self.shared.waker.wake();
    }
}

impl Node {
    /// Creates a steady timer whose callback the executor spinning this node
    /// runs every period, the first time one period from now. `options` is
    /// the period ([`Duration`]) or [`TimerOptions`] (the callback group).
    pub fn create_timer(
        &self,
        options: impl Into<TimerOptions>,
        callback: impl FnMut() + Send + 'static,
    ) -> Result<Timer, TimerCreateError> {
        let TimerOptions { period, group } = options.into();
        let group = group.unwrap_or_else(|| self.default_callback_group());
        if period.is_zero() {
            return Err(TimerCreateError::ZeroPeriod);
        }
        let shared = Arc::new(TimerShared {
            period,
            next_due: Mutex::new(Instant::now() + period),
            canceled: AtomicBool::new(false),
            callback: Mutex::new(Box::new(callback)),
            waker: self.inner.waker.clone(),
            group,
        });
        let entity: Arc<dyn Entity> = shared.clone();
        self.add_entity(Arc::downgrade(&entity));
        Ok(Timer { shared })
    }

    /// rclcpp's `create_wall_timer`: the same steady timer. As in rclcpp,
    /// "wall" means real elapsed time (not simulated ROS time), measured on
    /// the monotonic clock, so a jump of the system clock neither fires nor
    /// delays it.
    pub fn create_wall_timer(
        &self,
        options: impl Into<TimerOptions>,
        callback: impl FnMut() + Send + 'static,
    ) -> Result<Timer, TimerCreateError> {
        self.create_timer(options, callback)
    }

    /// Creates a guard condition: [`trigger`](GuardCondition::trigger) it
    /// from any thread to have the executor spinning this node run
    /// `callback` (in the callback group of `options`, default the node's).
    pub fn create_guard_condition(
        &self,
        options: GuardConditionOptions,
        callback: impl FnMut() + Send + 'static,
    ) -> GuardCondition {
        let group = options
            .group
            .unwrap_or_else(|| self.default_callback_group());
        let shared = Arc::new(GuardShared {
            triggered: AtomicBool::new(false),
            callback: Mutex::new(Box::new(callback)),
            waker: self.inner.waker.clone(),
            group,
        });
        let entity: Arc<dyn Entity> = shared.clone();
        self.add_entity(Arc::downgrade(&entity));
        GuardCondition { shared }
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
