//! The player's clock and what the keyboard asks of it: pause, resume, play
//! the next message, change the rate.
//!
//! The clock maps bag time (log time, ns) to wall time: `anchor` is the bag
//! time that plays at the instant `wall`, and bag time runs `rate` times as
//! fast as wall time from there. Pausing freezes bag time where it is;
//! resuming starts it again from there, so the messages still to come keep
//! their spacing (no burst of those that "should" have played meanwhile).
//! Playing the next message while paused publishes it at once and moves
//! the frozen time to its log time, as `ros2 bag play` does.
//!
//! One lock holds the clock: the keyboard's thread changes it, the player
//! waits on it for a message's time, for a /clock tick, or for a change.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::cmd::common::stop::lock;

/// Bag time against wall time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayClock {
    /// The bag time playing at `wall` (and all along, while paused).
    anchor: u64,
    wall: Instant,
    rate: f64,
    paused: bool,
}

impl PlayClock {
    pub fn new(rate: f64, paused: bool, now: Instant) -> Self {
        PlayClock {
            anchor: 0,
            wall: now,
            rate,
            paused,
        }
    }

    /// Bag time at `now`.
    pub fn bag_time(&self, now: Instant) -> u64 {
        if self.paused {
            return self.anchor;
        }
        let elapsed = now.saturating_duration_since(self.wall).as_nanos() as f64;
        self.anchor.saturating_add((elapsed * self.rate) as u64)
    }

    /// When bag time `t` plays; `None` while paused.
    pub fn wall_time_of(&self, t: u64) -> Option<Instant> {
        if self.paused {
            return None;
        }
        let ahead = t.saturating_sub(self.anchor) as f64 / self.rate;
        Some(self.wall + Duration::from_nanos(ahead as u64))
    }

    /// Plays bag time `t` at `now` (a start, a loop's start, a step).
    pub fn jump(&mut self, t: u64, now: Instant) {
        self.anchor = t;
        self.wall = now;
    }

    pub fn pause(&mut self, now: Instant) {
        if !self.paused {
            self.jump(self.bag_time(now), now);
            self.paused = true;
        }
    }

    pub fn resume(&mut self, now: Instant) {
        if self.paused {
            self.wall = now;
            self.paused = false;
        }
    }

    pub fn set_rate(&mut self, rate: f64, now: Instant) {
        self.jump(self.bag_time(now), now);
        self.rate = rate;
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }
}

/// What a wait of the player ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake {
    /// The message's time has come (or it is the step asked for).
    Publish,
    /// The /clock tick is due.
    Tick,
    /// Ctrl-C.
    Stopped,
}

struct State {
    clock: PlayClock,
    /// Messages to play at once while paused.
    steps: u32,
    stopped: bool,
}

/// The clock, shared by the player and the keyboard.
pub struct Controls {
    state: Mutex<State>,
    changed: Condvar,
}

impl Controls {
    pub fn new(rate: f64, paused: bool) -> Self {
        Controls {
            state: Mutex::new(State {
                clock: PlayClock::new(rate, paused, Instant::now()),
                steps: 0,
                stopped: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn change<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let out = f(&mut lock(&self.state));
        self.changed.notify_all();
        out
    }

    /// Pauses or resumes; `true` when now paused.
    pub fn toggle_pause(&self) -> bool {
        self.change(|s| {
            let now = Instant::now();
            if s.clock.is_paused() {
                s.clock.resume(now);
                s.steps = 0;
            } else {
                s.clock.pause(now);
            }
            s.clock.is_paused()
        })
    }

    /// Asks for the next message while paused; `false` (and nothing) when
    /// playing, as ros2's `play_next`.
    pub fn play_next(&self) -> bool {
        self.change(|s| {
            if s.clock.is_paused() {
                s.steps += 1;
            }
            s.clock.is_paused()
        })
    }

    /// Multiplies the rate by `factor`; the new rate.
    pub fn scale_rate(&self, factor: f64) -> f64 {
        self.change(|s| {
            let rate = (s.clock.rate() * factor).max(1e-3);
            s.clock.set_rate(rate, Instant::now());
            rate
        })
    }

    /// Ends every wait (Ctrl-C).
    pub fn stop(&self) {
        self.change(|s| s.stopped = true);
    }

    /// Starts bag time `t` now (playing or paused, as it was).
    pub fn start_at(&self, t: u64) {
        self.change(|s| s.clock.jump(t, Instant::now()));
    }

    pub fn bag_time(&self) -> u64 {
        lock(&self.state).clock.bag_time(Instant::now())
    }

    /// Waits until the message logged at `t` is to be published, or the
    /// /clock tick at `tick` is due, or Ctrl-C.
    pub fn wait_for(&self, t: u64, tick: Option<Instant>) -> Wake {
        let mut s = lock(&self.state);
        loop {
            if s.stopped {
                return Wake::Stopped;
            }
            let now = Instant::now();
            let due = if s.clock.is_paused() && s.steps > 0 {
                s.steps -= 1;
                let to = t.max(s.clock.anchor);
                s.clock.jump(to, now);
                return Wake::Publish;
            } else {
                s.clock.wall_time_of(t)
            };
            if due.is_some_and(|at| at <= now) {
                return Wake::Publish;
            }
            if tick.is_some_and(|at| at <= now) {
                return Wake::Tick;
            }
            let deadline = match (due, tick) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            s = match deadline {
                Some(at) => {
                    self.changed
                        .wait_timeout(s, at - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(s).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn a_pause_freezes_bag_time_and_resuming_keeps_the_remaining_spacing() {
        let t0 = Instant::now();
        let mut c = PlayClock::new(1.0, false, t0);
        c.jump(100 * S, t0);
        // The message at bag time 103 s plays 3 s after the start…
        assert_eq!(c.wall_time_of(103 * S), Some(t0 + Duration::from_secs(3)));
        // …paused 1 s in for 10 s, it plays 2 s after the resume.
        c.pause(t0 + Duration::from_secs(1));
        assert_eq!(c.bag_time(t0 + Duration::from_secs(9)), 101 * S);
        assert_eq!(c.wall_time_of(103 * S), None);
        let resumed = t0 + Duration::from_secs(11);
        c.resume(resumed);
        assert_eq!(
            c.wall_time_of(103 * S),
            Some(resumed + Duration::from_secs(2))
        );
        assert_eq!(c.bag_time(resumed + Duration::from_secs(1)), 102 * S);
    }

    #[test]
    fn a_rate_change_applies_to_what_is_still_to_play() {
        let t0 = Instant::now();
        let mut c = PlayClock::new(1.0, false, t0);
        c.jump(0, t0);
        c.set_rate(2.0, t0 + Duration::from_secs(1));
        assert_eq!(c.bag_time(t0 + Duration::from_secs(2)), 3 * S);
        assert_eq!(c.wall_time_of(5 * S), Some(t0 + Duration::from_secs(3)));
    }

    #[test]
    fn while_paused_each_step_publishes_one_message_and_moves_the_clock_to_it() {
        let controls = Controls::new(1.0, true);
        controls.start_at(10 * S);
        assert!(controls.play_next());
        assert!(controls.play_next());
        // A message an hour ahead plays at once when asked for.
        assert_eq!(controls.wait_for(3_600 * S, None), Wake::Publish);
        assert_eq!(controls.bag_time(), 3_600 * S);
        assert_eq!(controls.wait_for(3_601 * S, None), Wake::Publish);
        // No step left: a due /clock tick is all that wakes it.
        assert_eq!(
            controls.wait_for(3_602 * S, Some(Instant::now())),
            Wake::Tick
        );
        assert_eq!(controls.bag_time(), 3_601 * S);
    }

    #[test]
    fn next_is_refused_while_playing_and_stop_ends_any_wait() {
        let controls = std::sync::Arc::new(Controls::new(1.0, false));
        controls.start_at(0);
        assert!(!controls.play_next());
        assert!(controls.toggle_pause());
        let c = controls.clone();
        let waiter = std::thread::spawn(move || c.wait_for(S, None));
        controls.stop();
        assert_eq!(waiter.join().unwrap(), Wake::Stopped);
        assert!(!controls.toggle_pause());
    }
}
