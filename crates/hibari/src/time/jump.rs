//! Time jumps and the callbacks that hear of them.

use std::fmt;
use std::sync::Arc;

use super::Duration;

/// What happened to the time base in a jump (rcl's `rcl_clock_change_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockChange {
    /// ROS time stayed active; the override moved.
    RosTimeNoChange,
    /// ROS time became active: the clock now reads the override.
    RosTimeActivated,
    /// ROS time became inactive: the clock reads system time again.
    RosTimeDeactivated,
    /// System time moved (not reported by hibari's clocks yet).
    SystemTimeNoChange,
}

/// A jump of a clock: how far (zero for a clock change) and whether its
/// time base changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeJump {
    /// Whether ROS time was activated or deactivated.
    pub clock_change: ClockChange,
    /// New time minus old time (negative for a jump back).
    pub delta: Duration,
}

/// Which jumps call a jump callback (rcl's `rcl_jump_threshold_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JumpThreshold {
    /// Activation and deactivation of ROS time.
    pub on_clock_change: bool,
    /// Forward jumps at least this long (`None`: none).
    pub min_forward: Option<Duration>,
    /// Backward jumps at least this long, given as a positive or negative
    /// length (`None`: none).
    pub min_backward: Option<Duration>,
}

impl JumpThreshold {
    /// Whether `jump` calls the callback.
    pub(crate) fn selects(&self, jump: &TimeJump) -> bool {
        match jump.clock_change {
            ClockChange::RosTimeActivated | ClockChange::RosTimeDeactivated => self.on_clock_change,
            ClockChange::RosTimeNoChange | ClockChange::SystemTimeNoChange => {
                let delta = jump.delta.nanoseconds();
                let forward = self
                    .min_forward
                    .is_some_and(|m| delta > 0 && delta >= m.nanoseconds().saturating_abs());
                let backward = self
                    .min_backward
                    .is_some_and(|m| delta < 0 && delta <= -m.nanoseconds().saturating_abs());
                forward || backward
            }
        }
    }
}

/// Called before a jump takes effect.
pub type PreJumpCallback = Box<dyn Fn() + Send + Sync>;
/// Called after a jump took effect, with the jump.
pub type PostJumpCallback = Box<dyn Fn(&TimeJump) + Send + Sync>;

pub(crate) struct JumpShared {
    pub threshold: JumpThreshold,
    pub pre: Option<PreJumpCallback>,
    pub post: Option<PostJumpCallback>,
}

impl JumpShared {
    pub fn pre(&self) {
        if let Some(f) = &self.pre {
            f();
        }
    }

    pub fn post(&self, jump: &TimeJump) {
        if let Some(f) = &self.post {
            f(jump);
        }
    }
}

/// Keeps a jump callback registered; dropping it removes the callback.
#[must_use = "the callback is removed when the handler is dropped"]
pub struct JumpHandler {
    pub(crate) _shared: Arc<JumpShared>,
}

impl fmt::Debug for JumpHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JumpHandler")
            .field("threshold", &self._shared.threshold)
            .finish()
    }
}
