//! Wait sets: sleep until a subscription has a sample, a guard condition is
//! triggered or a timer is due, then handle it yourself (rcl's and rclcpp's
//! `WaitSet`), instead of having an executor run callbacks.
//!
//! # What ready means
//!
//! [`WaitSet::wait`] returns which of its entities are ready; it runs no
//! callback and takes no sample:
//!
//! - a **subscription** is ready when a sample waits to be taken. Take it
//!   with [`Subscription::take`] (or `take_into`, `take_shared`); a take that
//!   finds nothing makes the subscription not ready until the next sample.
//!   As in rcl, a subscription may look ready and its take find nothing (a
//!   QoS event woke it, or another taker was first): check what `take`
//!   returns. Any subscription may be waited on, with a callback or without;
//!   one that an executor spins at the same time gives each sample to
//!   whoever takes it first.
//! - a **guard condition** is ready when it was triggered since the last
//!   look: `wait` consumes the trigger (as the executor running its callback
//!   would).
//! - a **timer** is ready when it is due; [`Timer::call`] runs its callback
//!   and moves it to its next period.
//!
//! # How it sleeps
//!
//! The wait set has its own [`Signal`]. Each entity it holds keeps that
//! signal among its watchers and notifies it after setting its ready flag:
//! a subscription from its reader's waker (in this process, and for samples
//! from other processes through the transport's relay), a guard condition
//! from `trigger`, a timer from `reset`/`cancel`. A subscription with a
//! callback hands writers in other processes its own eventfd (its bell)
//! instead: the wait set polls those bells while it sleeps. The sleep ends
//! no later than the earliest timer's due time or the timeout. Nothing
//! polls: an idle wait uses no CPU. Removing an entity, [`clear`], or
//! dropping the wait set unregisters its signal.
//!
//! A timer driven by simulated time is looked at whenever the wait set
//! wakes, but does not end its sleep by itself.
//!
//! A wait set given a context ([`add_context`](WaitSet::add_context)) ends
//! its waits with [`WaitError::Shutdown`] once that context is shut down.
//!
//! [`clear`]: WaitSet::clear

use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use smallvec::SmallVec;
use thiserror::Error;

use crate::executor::bells::Bell;
use crate::executor::guard::GuardShared;
use crate::executor::timer::TimerShared;
use crate::executor::watchers::Watchers;
use crate::node::Entity;
use crate::topic::subscription::SubscriptionShared;
use crate::wait::Signal;
use crate::{Context, GuardCondition, Subscription, Timer};

/// Why [`WaitSet::wait`] could not wait.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitError {
    /// Nothing could ever wake it.
    #[error("the wait set is empty: add a subscription, a guard condition or a timer first")]
    Empty,
    /// A context given to [`add_context`](WaitSet::add_context) was shut
    /// down (Ctrl-C, or `Context::shutdown`).
    #[error("the context was shut down")]
    Shutdown,
}

/// The indices (as `add_*` returned them) of the entities found ready.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadyEntities {
    subscriptions: Vec<usize>,
    guard_conditions: Vec<usize>,
    timers: Vec<usize>,
}

impl ReadyEntities {
    /// The subscriptions with a sample to take.
    pub fn subscriptions(&self) -> &[usize] {
        &self.subscriptions
    }

    /// The guard conditions that were triggered (the triggers are consumed).
    pub fn guard_conditions(&self) -> &[usize] {
        &self.guard_conditions
    }

    /// The timers that are due.
    pub fn timers(&self) -> &[usize] {
        &self.timers
    }

    fn is_empty(&self) -> bool {
        self.subscriptions.is_empty() && self.guard_conditions.is_empty() && self.timers.is_empty()
    }
}

/// What [`WaitSet::wait`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitResult {
    /// At least one entity is ready.
    Ready(ReadyEntities),
    /// None was ready before the timeout.
    Timeout,
}

impl WaitResult {
    /// The ready entities, `None` after a timeout.
    pub fn ready(&self) -> Option<&ReadyEntities> {
        match self {
            WaitResult::Ready(r) => Some(r),
            WaitResult::Timeout => None,
        }
    }
}

/// Subscriptions, guard conditions and timers to wait on together; see the
/// [module documentation](self). Each `add_*` returns the entity's index
/// among those of its kind, which [`WaitResult`] reports; removing one
/// leaves its index empty (the others keep theirs) until [`clear`](Self::clear).
pub struct WaitSet {
    signal: Arc<Signal>,
    subscriptions: Vec<Option<Arc<SubscriptionShared>>>,
    guard_conditions: Vec<Option<Arc<GuardShared>>>,
    timers: Vec<Option<Arc<TimerShared>>>,
    /// Which bells `poll` found readable.
    polled: Vec<bool>,
    /// Whose shutdown ends a wait.
    contexts: Vec<Context>,
}

impl std::fmt::Debug for WaitSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitSet")
            .field("subscriptions", &self.subscriptions.len())
            .field("guard_conditions", &self.guard_conditions.len())
            .field("timers", &self.timers.len())
            .finish()
    }
}

impl Default for WaitSet {
    fn default() -> Self {
        Self::new()
    }
}

/// Adds `entity` in a new slot, watched by `signal`; its index.
fn add<T>(
    slots: &mut Vec<Option<Arc<T>>>,
    entity: &Arc<T>,
    watchers: &Watchers,
    signal: &Arc<Signal>,
) -> usize {
    watchers.add(signal);
    slots.push(Some(entity.clone()));
    slots.len() - 1
}

/// Empties slot `index`; whether it held an entity.
fn remove<T>(
    slots: &mut [Option<Arc<T>>],
    index: usize,
    watchers: impl Fn(&T) -> &Watchers,
    signal: &Arc<Signal>,
) -> bool {
    let Some(entity) = slots.get_mut(index).and_then(Option::take) else {
        return false;
    };
    watchers(&entity).remove(signal);
    true
}

impl WaitSet {
    /// An empty wait set.
    pub fn new() -> WaitSet {
        WaitSet {
            signal: Arc::new(Signal::default()),
            subscriptions: Vec::new(),
            guard_conditions: Vec::new(),
            timers: Vec::new(),
            polled: Vec::new(),
            contexts: Vec::new(),
        }
    }

    /// Ends every wait, now and later, with [`WaitError::Shutdown`] once
    /// `context` is shut down (rcl's wait set is bound to its context the
    /// same way): a program waiting on a wait set stops on Ctrl-C.
    pub fn add_context(&mut self, context: &Context) {
        context.register(&self.signal);
        self.contexts.push(context.clone());
    }

    /// Adds a subscription (it stays alive while the wait set holds it);
    /// returns its index.
    pub fn add_subscription<A>(&mut self, subscription: &Subscription<A>) -> usize {
        let s = &subscription.shared;
        add(&mut self.subscriptions, s, &s.watchers, &self.signal)
    }

    /// Adds a guard condition; returns its index.
    pub fn add_guard_condition(&mut self, guard: &GuardCondition) -> usize {
        let g = &guard.shared;
        add(&mut self.guard_conditions, g, &g.watchers, &self.signal)
    }

    /// Adds a timer; returns its index.
    pub fn add_timer(&mut self, timer: &Timer) -> usize {
        let t = &timer.shared;
        add(&mut self.timers, t, &t.watchers, &self.signal)
    }

    /// Removes the subscription at `index`; whether there was one.
    pub fn remove_subscription(&mut self, index: usize) -> bool {
        remove(
            &mut self.subscriptions,
            index,
            |s| &*s.watchers,
            &self.signal,
        )
    }

    /// Removes the guard condition at `index`; whether there was one.
    pub fn remove_guard_condition(&mut self, index: usize) -> bool {
        remove(
            &mut self.guard_conditions,
            index,
            |g| &g.watchers,
            &self.signal,
        )
    }

    /// Removes the timer at `index`; whether there was one.
    pub fn remove_timer(&mut self, index: usize) -> bool {
        remove(&mut self.timers, index, |t| &t.watchers, &self.signal)
    }

    /// Removes every entity; indices start from 0 again.
    pub fn clear(&mut self) {
        for s in self.subscriptions.drain(..).flatten() {
            s.watchers.remove(&self.signal);
        }
        for g in self.guard_conditions.drain(..).flatten() {
            g.watchers.remove(&self.signal);
        }
        for t in self.timers.drain(..).flatten() {
            t.watchers.remove(&self.signal);
        }
    }

    /// Whether it holds no entity.
    pub fn is_empty(&self) -> bool {
        !(self.subscriptions.iter().any(Option::is_some)
            || self.guard_conditions.iter().any(Option::is_some)
            || self.timers.iter().any(Option::is_some))
    }

    /// Waits until at least one entity is ready, for at most `timeout`
    /// (`Duration::MAX`: for ever); see [what ready means](self#what-ready-means).
    /// Returns at once when one is ready already. Consumes the triggers of
    /// the guard conditions it reports.
    pub fn wait(&mut self, timeout: Duration) -> Result<WaitResult, WaitError> {
        if self.is_empty() {
            return Err(WaitError::Empty);
        }
        let deadline = Instant::now().checked_add(timeout);
        let bells: SmallVec<[(Arc<SubscriptionShared>, Bell); 4]> = self
            .subscriptions
            .iter()
            .flatten()
            .filter_map(|s| Some((s.clone(), s.bell.clone()?)))
            .collect();
        loop {
            let seen = self.signal.generation();
            if self.contexts.iter().any(Context::is_shut_down) {
                return Err(WaitError::Shutdown);
            }
            let now = Instant::now();
            let ready = self.look(now);
            if !ready.is_empty() {
                return Ok(WaitResult::Ready(ready));
            }
            if deadline.is_some_and(|d| now >= d) {
                return Ok(WaitResult::Timeout);
            }
            let due = self.timers.iter().flatten().filter_map(|t| t.steady_due());
            let wake = due.chain(deadline).min();
            if bells.is_empty() {
                self.signal.wait(seen, wake);
                continue;
            }
            let fds: SmallVec<[_; 4]> = bells.iter().map(|(_, b)| b.as_fd()).collect();
            self.signal.wait_polling(seen, wake, &fds, &mut self.polled);
            for ((s, bell), _) in bells.iter().zip(&self.polled).filter(|(_, r)| **r) {
                hibari_shm::eventfd::drain(bell.as_fd());
                s.probe();
            }
        }
    }

    /// The entities ready now (consuming guard conditions' triggers).
    fn look(&self, now: Instant) -> ReadyEntities {
        let indices = |flags: Vec<bool>| -> Vec<usize> {
            flags
                .into_iter()
                .enumerate()
                .filter_map(|(i, r)| r.then_some(i))
                .collect()
        };
        let subscriptions = (self.subscriptions.iter())
            .map(|s| s.as_ref().is_some_and(|s| s.ready.load(Ordering::SeqCst)));
        let guards = self
            .guard_conditions
            .iter()
            .map(|g| g.as_ref().is_some_and(|g| g.take_trigger()));
        let timers = self
            .timers
            .iter()
            .map(|t| t.as_ref().is_some_and(|t| t.is_ready(now)));
        ReadyEntities {
            subscriptions: indices(subscriptions.collect()),
            guard_conditions: indices(guards.collect()),
            timers: indices(timers.collect()),
        }
    }
}

impl Drop for WaitSet {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
#[path = "wait_set_tests.rs"]
mod tests;
