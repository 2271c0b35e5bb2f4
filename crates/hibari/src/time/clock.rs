//! [`Clock`]: ROS, system or steady time; a ROS clock may follow an
//! override (simulated time) and tells jump callbacks when it jumps.

use std::fmt;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::context::{lock, Context};
use crate::node::NodeWaker;
use crate::wait::Signal;

use super::jump::{
    ClockChange, JumpHandler, JumpShared, JumpThreshold, PostJumpCallback, PreJumpCallback,
    TimeJump,
};
use super::{ClockType, Duration, SleepError, Time};

/// The ROS-time override: while active, a ROS clock reads `value`.
#[derive(Clone, Copy, Default)]
struct Override {
    active: bool,
    value: i64,
    /// Bumped on every activation and deactivation, so a timer or a sleep
    /// notices that the time base changed under it.
    epoch: u64,
}

struct ClockInner {
    clock_type: ClockType,
    state: Mutex<Override>,
    /// Serializes updates, so jump callbacks see them in order; held while
    /// they run (never while `state` is).
    updating: Mutex<()>,
    /// Woken on every update: sleepers and [`Rate`](super::Rate)s.
    signal: Arc<Signal>,
    jumps: Mutex<Vec<Weak<JumpShared>>>,
    /// Executors of nodes with timers on this clock.
    wakers: Mutex<Vec<Weak<NodeWaker>>>,
}

/// A source of [`Time`]; cloning shares it.
///
/// - [`ClockType::SystemTime`]: the system's real-time clock.
/// - [`ClockType::SteadyTime`]: the monotonic clock; never jumps.
/// - [`ClockType::RosTime`]: system time, unless ROS time is active: then
///   the time last set with [`set_ros_time_override`](Clock::set_ros_time_override).
///   A node's clock is one; with its `use_sim_time` parameter true it follows
///   `/clock`.
///
/// Jump callbacks ([`create_jump_callback`](Clock::create_jump_callback))
/// hear of ROS time being activated or deactivated and of overrides that
/// move it by more than their threshold.
#[derive(Clone)]
pub struct Clock {
    inner: Arc<ClockInner>,
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock")
            .field("clock_type", &self.inner.clock_type)
            .field("ros_time_is_active", &self.ros_time_is_active())
            .finish()
    }
}

/// Nanoseconds of `CLOCK_MONOTONIC`, rcl's steady time.
fn steady_ns() -> i64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec)
}

/// Nanoseconds since the Unix epoch (negative before it).
pub(crate) fn system_ns() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

impl Clock {
    /// A clock of `clock_type`; a ROS clock starts with ROS time inactive.
    pub fn new(clock_type: ClockType) -> Self {
        Clock {
            inner: Arc::new(ClockInner {
                clock_type,
                state: Mutex::new(Override::default()),
                updating: Mutex::new(()),
                signal: Arc::new(Signal::default()),
                jumps: Mutex::new(Vec::new()),
                wakers: Mutex::new(Vec::new()),
            }),
        }
    }

    /// A ROS clock ([`ClockType::RosTime`]).
    pub fn ros() -> Self {
        Clock::new(ClockType::RosTime)
    }

    /// Its type.
    pub fn clock_type(&self) -> ClockType {
        self.inner.clock_type
    }

    /// The current time.
    pub fn now(&self) -> Time {
        let ns = match self.inner.clock_type {
            ClockType::SteadyTime => steady_ns(),
            ClockType::SystemTime => system_ns(),
            ClockType::RosTime => {
                let s = *lock(&self.inner.state);
                if s.active {
                    s.value
                } else {
                    system_ns()
                }
            }
        };
        Time::from_nanoseconds(ns, self.inner.clock_type)
    }

    /// Whether this ROS clock reads its override (always false for the
    /// other types).
    pub fn ros_time_is_active(&self) -> bool {
        lock(&self.inner.state).active
    }

    /// (active, override, epoch) in one look: what timers schedule by.
    pub(crate) fn override_state(&self) -> (bool, i64, u64) {
        let s = *lock(&self.inner.state);
        (s.active, s.value, s.epoch)
    }

    /// Makes this ROS clock read its override (the last value set, 0 if
    /// none); jump callbacks that asked for clock changes hear of it. Does
    /// nothing to other clock types, or when already active.
    pub fn enable_ros_time_override(&self) {
        self.set_active(true);
    }

    /// Makes this ROS clock read system time again.
    pub fn disable_ros_time_override(&self) {
        self.set_active(false);
    }

    fn set_active(&self, active: bool) {
        if self.inner.clock_type != ClockType::RosTime {
            return;
        }
        let _updating = lock(&self.inner.updating);
        if lock(&self.inner.state).active == active {
            return;
        }
        let change = match active {
            true => ClockChange::RosTimeActivated,
            false => ClockChange::RosTimeDeactivated,
        };
        let jump = TimeJump {
            clock_change: change,
            delta: Duration::ZERO,
        };
        let handlers = self.handlers(&jump);
        handlers.iter().for_each(|h| h.pre());
        {
            let mut s = lock(&self.inner.state);
            s.active = active;
            s.epoch += 1;
        }
        self.wake_all();
        handlers.iter().for_each(|h| h.post(&jump));
    }

    /// Sets the time this ROS clock reads while ROS time is active. While
    /// active, a move by more than a jump callback's threshold calls it.
    pub fn set_ros_time_override(&self, time: Time) {
        if self.inner.clock_type != ClockType::RosTime {
            return;
        }
        let _updating = lock(&self.inner.updating);
        let s = *lock(&self.inner.state);
        let jump = TimeJump {
            clock_change: ClockChange::RosTimeNoChange,
            delta: Duration::from_nanoseconds(time.nanoseconds().saturating_sub(s.value)),
        };
        let handlers = match s.active {
            true => self.handlers(&jump),
            false => Vec::new(),
        };
        handlers.iter().for_each(|h| h.pre());
        lock(&self.inner.state).value = time.nanoseconds();
        self.wake_all();
        handlers.iter().for_each(|h| h.post(&jump));
    }

    /// Calls `pre` before and `post` after every jump that `threshold`
    /// selects, until the handler is dropped. Only ROS clocks jump.
    pub fn create_jump_callback(
        &self,
        threshold: JumpThreshold,
        pre: Option<PreJumpCallback>,
        post: Option<PostJumpCallback>,
    ) -> JumpHandler {
        let shared = Arc::new(JumpShared {
            threshold,
            pre,
            post,
        });
        let mut jumps = lock(&self.inner.jumps);
        jumps.retain(|j| j.strong_count() > 0);
        jumps.push(Arc::downgrade(&shared));
        JumpHandler { _shared: shared }
    }

    fn handlers(&self, jump: &TimeJump) -> Vec<Arc<JumpShared>> {
        lock(&self.inner.jumps)
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|h| h.threshold.selects(jump))
            .collect()
    }

    /// Wakes sleepers and the executors of nodes with timers on the clock.
    fn wake_all(&self) {
        self.inner.signal.notify();
        let wakers: Vec<_> = lock(&self.inner.wakers)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        wakers.iter().for_each(|w| w.wake());
    }

    /// Has `waker` woken whenever the time is set.
    pub(crate) fn add_waker(&self, waker: &Arc<NodeWaker>) {
        let mut wakers = lock(&self.inner.wakers);
        wakers.retain(|w| w.strong_count() > 0);
        if !wakers
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(waker)))
        {
            wakers.push(Arc::downgrade(waker));
        }
    }

    /// Sleeps until the clock reads `until` or later.
    ///
    /// Fails at once when `until` is of another clock type; returns early
    /// with an error when ROS time is activated or deactivated meanwhile
    /// (the time `until` was measured in no longer applies) or `context`
    /// shuts down. While ROS time is active the sleep ends only when the
    /// override reaches `until`: it waits while simulated time stands still.
    pub fn sleep_until(&self, until: Time, context: Option<&Context>) -> Result<(), SleepError> {
        if until.clock_type() != self.inner.clock_type {
            return Err(SleepError::ClockMismatch {
                clock: self.inner.clock_type,
                until: until.clock_type(),
            });
        }
        if let Some(c) = context {
            c.register(&self.inner.signal);
        }
        let epoch = self.override_state().2;
        loop {
            let seen = self.inner.signal.generation();
            if context.is_some_and(Context::is_shut_down) {
                return Err(SleepError::ShutDown);
            }
            let (active, _, now_epoch) = self.override_state();
            if now_epoch != epoch {
                return Err(SleepError::ClockChanged);
            }
            let left = until.nanoseconds().saturating_sub(self.now().nanoseconds());
            if left <= 0 {
                return Ok(());
            }
            // Sim time moves only when set (which wakes us); the others
            // move by themselves: wake when they should have got there.
            let deadline = match active {
                true => None,
                false => Some(Instant::now() + std::time::Duration::from_nanos(left as u64)),
            };
            self.inner.signal.wait(seen, deadline);
        }
    }

    /// Sleeps for `duration` of this clock's time (see
    /// [`sleep_until`](Clock::sleep_until)).
    pub fn sleep_for(
        &self,
        duration: Duration,
        context: Option<&Context>,
    ) -> Result<(), SleepError> {
        self.sleep_until(self.now() + duration, context)
    }
}
