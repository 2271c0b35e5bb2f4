//! Parameter callbacks: the three kinds a node runs around a set, their
//! registration, and the handle whose drop removes one.

use std::sync::{Arc, Mutex, Weak};
use std::thread::{self, ThreadId};

use super::store::ParameterStore;
use super::{Parameter, SetParametersResult};
use crate::context::lock;

pub(crate) type OnSet = dyn Fn(&[Parameter]) -> SetParametersResult + Send + Sync;
pub(crate) type PreSet = dyn Fn(&mut Vec<Parameter>) + Send + Sync;
pub(crate) type PostSet = dyn Fn(&[Parameter]) + Send + Sync;

pub(crate) enum Callback {
    Pre(Arc<PreSet>),
    On(Arc<OnSet>),
    Post(Arc<PostSet>),
}

impl ParameterStore {
    pub(super) fn callbacks_of<T>(&self, pick: impl Fn(&Callback) -> Option<T>) -> Vec<T> {
        lock(&self.callbacks)
            .iter()
            .filter_map(|(_, c)| pick(c))
            .collect()
    }

    /// Runs `f` marked as this thread's callbacks (cleared even if a
    /// callback panics).
    pub(super) fn with_callbacks<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Clear<'a>(&'a Mutex<Option<ThreadId>>);
        impl Drop for Clear<'_> {
            fn drop(&mut self) {
                *lock(self.0) = None;
            }
        }
        *lock(&self.in_callbacks) = Some(thread::current().id());
        let _clear = Clear(&self.in_callbacks);
        f()
    }

    /// The on-set callbacks, in the order added; the first refusal stops.
    pub(super) fn run_on_set(&self, list: &[Parameter]) -> SetParametersResult {
        let on: Vec<Arc<OnSet>> = self.callbacks_of(|c| match c {
            Callback::On(f) => Some(f.clone()),
            _ => None,
        });
        self.with_callbacks(|| {
            for f in &on {
                let r = f(list);
                if !r.successful {
                    return r;
                }
            }
            SetParametersResult::ok()
        })
    }

    fn add(self: &Arc<Self>, callback: Callback) -> ParameterCallbackHandle {
        let mut next = lock(&self.next_callback);
        *next += 1;
        let id = *next;
        lock(&self.callbacks).push((id, callback));
        ParameterCallbackHandle {
            store: Arc::downgrade(self),
            id,
        }
    }

    pub(crate) fn add_on_set(self: &Arc<Self>, f: Arc<OnSet>) -> ParameterCallbackHandle {
        self.add(Callback::On(f))
    }

    pub(crate) fn add_pre_set(self: &Arc<Self>, f: Arc<PreSet>) -> ParameterCallbackHandle {
        self.add(Callback::Pre(f))
    }

    pub(crate) fn add_post_set(self: &Arc<Self>, f: Arc<PostSet>) -> ParameterCallbackHandle {
        self.add(Callback::Post(f))
    }
}

/// Keeps a parameter callback registered: dropping it removes the callback
/// (rclcpp's callback handles).
#[must_use = "the callback is removed when its handle is dropped"]
pub struct ParameterCallbackHandle {
    store: Weak<ParameterStore>,
    id: u64,
}

impl Drop for ParameterCallbackHandle {
    fn drop(&mut self) {
        if let Some(store) = self.store.upgrade() {
            lock(&store.callbacks).retain(|(id, _)| *id != self.id);
        }
    }
}

impl std::fmt::Debug for ParameterCallbackHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParameterCallbackHandle({})", self.id)
    }
}
