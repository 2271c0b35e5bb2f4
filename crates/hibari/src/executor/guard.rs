//! Guard conditions: a flag any thread may raise to wake an executor (which
//! runs the guard condition's callback) or a [`WaitSet`](crate::WaitSet)
//! (which reports it). Triggers before anyone looks coalesce into one.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::executor::watchers::Watchers;
use crate::group::{CallbackGroup, CallbackGroupType};
use crate::node::{lock_callback, Entity, Node, NodeWaker};
use crate::options::GuardConditionOptions;

type Callback = Box<dyn FnMut() + Send>;

pub(crate) struct GuardShared {
    triggered: AtomicBool,
    callback: Mutex<Callback>,
    waker: Arc<NodeWaker>,
    group: CallbackGroup,
    /// Wait sets holding it.
    pub(crate) watchers: Watchers,
}

impl GuardShared {
    fn new(callback: Callback, waker: Arc<NodeWaker>, group: CallbackGroup) -> Arc<Self> {
        Arc::new(GuardShared {
            triggered: AtomicBool::new(false),
            callback: Mutex::new(callback),
            waker,
            group,
            watchers: Watchers::default(),
        })
    }

    /// Consumes a trigger: whether it was triggered (a wait set's look).
    pub(crate) fn take_trigger(&self) -> bool {
        self.triggered.swap(false, Ordering::SeqCst)
    }
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
///
/// A [`WaitSet`](crate::WaitSet) holding it wakes too, and its `wait`
/// consumes the trigger (whoever looks first — the executor or a wait set —
/// takes it). [`GuardCondition::new`] makes one that belongs to no node, for
/// wait sets only.
#[derive(Clone)]
pub struct GuardCondition {
    pub(crate) shared: Arc<GuardShared>,
}

impl Default for GuardCondition {
    fn default() -> Self {
        Self::new()
    }
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
        self.shared.triggered.store(true, Ordering::SeqCst);
        self.shared.waker.wake();
        self.shared.watchers.notify();
    }

    /// A guard condition of no node, with no callback (rclcpp's
    /// `std::make_shared<rclcpp::GuardCondition>()`): add it to a
    /// [`WaitSet`](crate::WaitSet) and [`trigger`](Self::trigger) it from
    /// any thread to wake that wait set.
    pub fn new() -> GuardCondition {
        GuardCondition {
            shared: GuardShared::new(
                Box::new(|| {}),
                Arc::new(NodeWaker::new()),
                CallbackGroup::new(CallbackGroupType::MutuallyExclusive),
            ),
        }
    }
}

impl Node {
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
        let shared = GuardShared::new(Box::new(callback), self.inner.waker.clone(), group);
        let entity: Arc<dyn Entity> = shared.clone();
        self.add_entity(Arc::downgrade(&entity));
        GuardCondition { shared }
    }
}
