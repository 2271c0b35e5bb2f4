//! Callback groups: which callbacks may run at the same time (rclcpp's
//! `CallbackGroup`). The semantics are on [`CallbackGroup`].

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::context::lock;
use crate::node::{Node, NodeWaker};

/// How the callbacks of one [`CallbackGroup`] may overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallbackGroupType {
    /// At most one callback of the group runs at a time. A node's default
    /// group is of this kind.
    MutuallyExclusive,
    /// Callbacks of different entities of the group may run at the same time
    /// on a multi-threaded executor (one entity still never overlaps itself).
    Reentrant,
}

struct GroupInner {
    kind: CallbackGroupType,
    /// A mutually exclusive group's callback is running.
    busy: AtomicBool,
    /// A thread skipped an entity because the group was busy: wake it on
    /// release.
    contended: AtomicBool,
    /// The nodes whose executors skipped work (no allocation once warm: the
    /// list is cleared, not dropped).
    waiting: Mutex<Vec<Arc<NodeWaker>>>,
}

/// A set of entities whose callbacks run under one rule of overlap
/// (rclcpp's `CallbackGroup`). Cloning shares the group.
///
/// Every entity an executor runs — a subscription, a timer, a guard
/// condition, a publisher's or subscription's event callbacks — belongs to one
/// group. A [`MutuallyExclusive`](CallbackGroupType::MutuallyExclusive) group
/// runs at most one of its callbacks at a time, whatever the executor's
/// threads; a [`Reentrant`](CallbackGroupType::Reentrant) group lets a
/// [`MultiThreadedExecutor`](crate::MultiThreadedExecutor) run callbacks of
/// different entities at once. One entity never runs concurrently with
/// itself in either kind: its callback is an `FnMut`, so a subscription's
/// samples reach it one at a time and in order, and a timer never overlaps its
/// own previous tick.
///
/// Each node has a default group, mutually exclusive as in rclcpp: entities
/// created without a group join it, so a multi-threaded executor runs one
/// node's callbacks one at a time unless they are put in other groups.
/// [`Node::create_callback_group`] makes more; pass one through
/// [`SubscriptionOptions`](crate::SubscriptionOptions),
/// [`PublisherOptions`](crate::PublisherOptions) (for event callbacks),
/// [`TimerOptions`](crate::TimerOptions),
/// [`GuardConditionOptions`](crate::GuardConditionOptions) or
/// [`FdWatchOptions`](crate::FdWatchOptions).
///
/// A thread that finds a mutually exclusive group busy skips the entity, and
/// its executor is woken (through the entity's node) when the group is
/// released; so a group may even span nodes spun by different executors,
/// which rclcpp does not allow.
#[derive(Clone)]
pub struct CallbackGroup {
    inner: Arc<GroupInner>,
}

impl fmt::Debug for CallbackGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallbackGroup")
            .field("kind", &self.inner.kind)
            .field("busy", &self.inner.busy.load(Ordering::Relaxed))
            .finish()
    }
}

impl PartialEq for CallbackGroup {
    /// Whether both handles are the same group.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for CallbackGroup {}

/// Holds a mutually exclusive group while a callback runs; releasing it wakes
/// the executors that skipped the group meanwhile.
pub(crate) struct GroupGuard<'a> {
    group: Option<&'a GroupInner>,
}

impl Drop for GroupGuard<'_> {
    fn drop(&mut self) {
        let Some(group) = self.group else { return };
        group.busy.store(false, Ordering::SeqCst);
        if group.contended.swap(false, Ordering::SeqCst) {
            let mut waiting = lock(&group.waiting);
            for waker in waiting.drain(..) {
                waker.wake();
            }
        }
    }
}

impl CallbackGroup {
    pub(crate) fn new(kind: CallbackGroupType) -> Self {
        CallbackGroup {
            inner: Arc::new(GroupInner {
                kind,
                busy: AtomicBool::new(false),
                contended: AtomicBool::new(false),
                waiting: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The group's kind.
    pub fn kind(&self) -> CallbackGroupType {
        self.inner.kind
    }

    /// Enters the group to run one callback, or returns `None` at once when a
    /// mutually exclusive group is busy; then `waker` is woken when it is
    /// released.
    pub(crate) fn try_enter(&self, waker: &Arc<NodeWaker>) -> Option<GroupGuard<'_>> {
        let inner = &*self.inner;
        if inner.kind == CallbackGroupType::Reentrant {
            return Some(GroupGuard { group: None });
        }
        let enter = || {
            inner
                .busy
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        };
        if enter() {
            return Some(GroupGuard { group: Some(inner) });
        }
        self.wait_for_release(waker);
        // The holder may have released before it could see `contended`.
        enter().then(|| GroupGuard { group: Some(inner) })
    }

    /// Whether an entity of the group may run now. When not, `waker` is
    /// woken once it may (so that a sleeping executor reconsiders the entity's
    /// due time).
    pub(crate) fn is_free(&self, waker: &Arc<NodeWaker>) -> bool {
        let inner = &*self.inner;
        if inner.kind == CallbackGroupType::Reentrant || !inner.busy.load(Ordering::SeqCst) {
            return true;
        }
        self.wait_for_release(waker);
        !inner.busy.load(Ordering::SeqCst)
    }

    /// Asks the holder to wake `waker` on release.
    fn wait_for_release(&self, waker: &Arc<NodeWaker>) {
        let inner = &*self.inner;
        let mut waiting = lock(&inner.waiting);
        if !waiting.iter().any(|w| Arc::ptr_eq(w, waker)) {
            waiting.push(waker.clone());
        }
        inner.contended.store(true, Ordering::SeqCst);
    }
}

impl Node {
    /// Creates a callback group. Entities join it through their options
    /// ([`SubscriptionOptions::callback_group`](crate::SubscriptionOptions::callback_group),
    /// …); the executor spinning this node honours it.
    ///
    /// ```
    /// use hibari::{CallbackGroupType, Context, QosProfile, SubscriptionOptions};
    /// use hibari::msg::std_msgs::msg::String as RosString;
    ///
    /// let node = Context::builder().isolated().create()?.create_node("n")?;
    /// let parallel = node.create_callback_group(CallbackGroupType::Reentrant);
    /// let _sub = node.create_subscription(
    ///     "chatter",
    ///     SubscriptionOptions::new(QosProfile::default()).callback_group(&parallel),
    ///     |_: &RosString| {},
    /// )?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_callback_group(&self, kind: CallbackGroupType) -> CallbackGroup {
        CallbackGroup::new(kind)
    }

    /// The node's default group: mutually exclusive, joined by every entity
    /// created without a group of its own.
    pub fn default_callback_group(&self) -> CallbackGroup {
        self.inner.default_group.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutually_exclusive_group_admits_one_holder_and_wakes_who_it_turned_away() {
        let group = CallbackGroup::new(CallbackGroupType::MutuallyExclusive);
        let waker = Arc::new(NodeWaker::default());
        let first = group.try_enter(&waker).expect("free");
        assert!(group.try_enter(&waker).is_none());
        assert!(!group.is_free(&waker));
        assert_eq!(lock(&group.inner.waiting).len(), 1, "registered once");
        drop(first);
        assert!(lock(&group.inner.waiting).is_empty(), "woken and cleared");
        assert!(group.is_free(&waker));
        let _again = group.try_enter(&waker).expect("released");
    }

    #[test]
    fn a_reentrant_group_admits_everyone() {
        let group = CallbackGroup::new(CallbackGroupType::Reentrant);
        let waker = Arc::new(NodeWaker::default());
        let _a = group.try_enter(&waker).unwrap();
        let _b = group.try_enter(&waker).unwrap();
        assert!(group.is_free(&waker));
    }
}
