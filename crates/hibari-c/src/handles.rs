//! Handles: what C holds is a number, a key into one registry of the
//! objects it created. A zero, destroyed or foreign number, or one of
//! another kind, is `HIBARI_ERROR_INVALID_HANDLE`, never a dangling pointer.
//!
//! Numbers come from one counter and are never reused. Each entry names its
//! parent (a node's context, an entity's node): destroying a parent
//! destroys its children first. Nothing is dropped, and no callback waited
//! for, while the registry is locked, so a callback may call any function.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use crate::error::{hibari_ret_t, Error, Result};
use crate::handle_cache;

pub(crate) use crate::gate::Gate;

// The handles, one struct per kind so that C's compiler tells them apart
// (written out: cbindgen does not expand macros).

/// A context: one domain, its transports, the `--ros-args` given. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_context_t {
    pub id: u64,
}

/// A node of a context. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_node_t {
    pub id: u64,
}

/// A publisher of CDR bytes. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_publisher_t {
    pub id: u64,
}

/// A subscription of CDR bytes (with a callback, or polled). A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_subscription_t {
    pub id: u64,
}

/// A service server. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_service_t {
    pub id: u64,
}

/// A service client. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_client_t {
    pub id: u64,
}

/// A timer. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_timer_t {
    pub id: u64,
}

/// A guard condition. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_guard_condition_t {
    pub id: u64,
}

/// A callback group of a node: which of its entities' callbacks may run at
/// the same time. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_callback_group_t {
    pub id: u64,
}

/// An executor (single- or multi-threaded). A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_executor_t {
    pub id: u64,
}

/// A wait set: subscriptions, guard conditions and timers to wait on
/// together. A handle: pass it by value; 0 is never valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_wait_set_t {
    pub id: u64,
}

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Context,
    Node,
    CallbackGroup,
    Publisher,
    Subscription,
    Service,
    Client,
    Timer,
    GuardCondition,
    Executor,
    WaitSet,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Context => "context",
            Kind::Node => "node",
            Kind::CallbackGroup => "callback group",
            Kind::Publisher => "publisher",
            Kind::Subscription => "subscription",
            Kind::Service => "service",
            Kind::Client => "client",
            Kind::Timer => "timer",
            Kind::GuardCondition => "guard condition",
            Kind::Executor => "executor",
            Kind::WaitSet => "wait set",
        }
    }
}

/// What a destroyed entry does before it is dropped: cancel, stop its
/// callbacks, fail its pending calls.
pub(crate) trait Close: Send + Sync {
    fn close(&self);
}

struct Entry {
    kind: Kind,
    parent: u64,
    object: Arc<dyn Any + Send + Sync>,
    close: Option<Arc<dyn Close>>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static REGISTRY: RwLock<BTreeMap<u64, Entry>> = RwLock::new(BTreeMap::new());

/// Registers `object` as a `kind` child of `parent` (0: none); its number.
pub(crate) fn insert<T: Any + Send + Sync>(
    kind: Kind,
    parent: u64,
    object: Arc<T>,
    close: Option<Arc<dyn Close>>,
) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let entry = Entry {
        kind,
        parent,
        object,
        close,
    };
    REGISTRY
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, entry);
    id
}

fn invalid(kind: Kind, id: u64, found: Option<Kind>) -> Error {
    let what = kind.name();
    let message = match (id, found) {
        (0, _) => {
            format!("the {what} handle is zero: it was never created (or its creation failed)")
        }
        (_, Some(other)) => format!("handle {id} is a {}, not a {what}", other.name()),
        (_, None) => format!(
            "the {what} handle {id} is not valid: it was destroyed (or what it belonged to was)"
        ),
    };
    Error::new(hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE, message)
}

/// The `kind` object `id`.
/// This thread's recent lookups answer first (`handle_cache.rs`).
pub(crate) fn get<T: Any + Send + Sync>(kind: Kind, id: u64) -> Result<Arc<T>> {
    if let Some(found) = handle_cache::find(kind, id) {
        if let Ok(object) = found.downcast::<T>() {
            return Ok(object);
        }
    }
    let at = handle_cache::epoch();
    let registry = REGISTRY.read().unwrap_or_else(PoisonError::into_inner);
    match registry.get(&id) {
        Some(e) if e.kind == kind => {
            let object = e.object.clone();
            drop(registry);
            handle_cache::keep(kind, id, &object, at);
            object
                .downcast::<T>()
                .map_err(|_| invalid(kind, id, Some(kind)))
        }
        Some(e) => Err(invalid(kind, id, Some(e.kind))),
        None => Err(invalid(kind, id, None)),
    }
}

/// The objects of every `kind` entry.
pub(crate) fn all<T: Any + Send + Sync>(kind: Kind) -> Vec<Arc<T>> {
    let registry = REGISTRY.read().unwrap_or_else(PoisonError::into_inner);
    registry
        .values()
        .filter(|e| e.kind == kind)
        .filter_map(|e| e.object.clone().downcast::<T>().ok())
        .collect()
}

/// The ids of every live entry of `kind`.
pub(crate) fn ids(kind: Kind) -> Vec<u64> {
    let registry = REGISTRY.read().unwrap_or_else(PoisonError::into_inner);
    registry
        .iter()
        .filter(|(_, e)| e.kind == kind)
        .map(|(id, _)| *id)
        .collect()
}

/// Destroys the `kind` entry `id` and, first, its descendants: each is
/// closed, then dropped, outside the registry's lock. Its object is
/// returned (the last reference, unless a call in flight holds one).
pub(crate) fn remove<T: Any + Send + Sync>(kind: Kind, id: u64) -> Result<Arc<T>> {
    let removed = {
        let mut registry = REGISTRY.write().unwrap_or_else(PoisonError::into_inner);
        match registry.get(&id) {
            Some(e) if e.kind == kind && e.object.is::<T>() => {}
            found => return Err(invalid(kind, id, found.map(|e| e.kind))),
        }
        // Children before parents: a node's entities before the node.
        let mut order = vec![id];
        let mut i = 0;
        while i < order.len() {
            let p = order[i];
            order.extend(
                registry
                    .iter()
                    .filter(|(_, e)| e.parent == p)
                    .map(|(k, _)| *k),
            );
            i += 1;
        }
        order
            .into_iter()
            .rev()
            .filter_map(|k| registry.remove(&k))
            .collect::<Vec<_>>()
    };
    // No thread finds them in its cache from here on.
    handle_cache::forget_all();
    let mut object = None;
    for entry in removed {
        if let Some(close) = &entry.close {
            close.close();
        }
        object = Some(entry.object);
    }
    let object = object.expect("the entry itself is removed last");
    Ok(object.downcast::<T>().expect("its type was checked"))
}
