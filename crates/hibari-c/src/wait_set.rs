//! Wait sets: sleep until a subscription has a sample, a guard condition
//! was triggered or a timer is due, then take and call yourself (rcl's
//! `rcl_wait_set_t`), instead of having an executor run callbacks.

use std::sync::{Arc, Mutex, PoisonError};

use hibari_rs::{ReadyEntities, WaitError, WaitResult, WaitSet as RustWaitSet};

use crate::args::{check_out, put, timeout};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{
    self, hibari_context_t, hibari_guard_condition_t, hibari_subscription_t, hibari_timer_t,
    hibari_wait_set_t, Kind,
};

/// The wait set and what its last wait found.
#[derive(Default)]
struct WaitSet {
    inner: RustWaitSet,
    /// `None` before the first wait, after a timeout, and after a change.
    ready: Option<ReadyEntities>,
    /// How many entities of each kind were added since the last clear.
    counts: [usize; 3],
}

const SUBSCRIPTIONS: usize = 0;
const GUARD_CONDITIONS: usize = 1;
const TIMERS: usize = 2;

type Shared = Mutex<WaitSet>;

fn wait_set(ws: hibari_wait_set_t) -> Result<Arc<Shared>> {
    handles::get(Kind::WaitSet, ws.id)
}

/// Runs `f` on the wait set (a wait holds it: calls on the same wait set
/// from other threads wait for it, as rcl's wait sets are not shared).
fn with<T>(ws: hibari_wait_set_t, f: impl FnOnce(&mut WaitSet) -> Result<T>) -> Result<T> {
    let shared = wait_set(ws)?;
    let mut guard = shared.lock().unwrap_or_else(PoisonError::into_inner);
    f(&mut guard)
}

/// Creates an empty wait set bound to `context`, as rcl's: once the context
/// is shut down (Ctrl-C, `hibari_context_shutdown`), a wait returns
/// `HIBARI_ERROR_SHUTDOWN` — at once, or waking from its sleep. Add subscriptions, guard conditions and
/// timers (of any nodes; a standalone guard condition from
/// `hibari_guard_condition_create_standalone`), then `hibari_wait_set_wait`.
/// The wait set keeps what it holds alive until it is cleared or
/// destroyed: a subscription destroyed meanwhile no longer calls its
/// callback, but is still waited on. Destroy it with
/// `hibari_wait_set_destroy`.
///
/// # Safety
///
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_create(
    context: hibari_context_t,
    out: *mut hibari_wait_set_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let mut ws = WaitSet::default();
        ws.inner
            .add_context(&crate::context::context(context)?.inner);
        let id = handles::insert(Kind::WaitSet, 0, Arc::new(Mutex::new(ws)), None);
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_wait_set_t { id }) }
    })
}

/// Adds an entity of the kind `slot`; writes its index to `index_out`.
///
/// # Safety
///
/// `index_out` is writable.
unsafe fn add(
    ws: hibari_wait_set_t,
    slot: usize,
    index_out: *mut usize,
    add: impl FnOnce(&mut RustWaitSet) -> Result<usize>,
) -> hibari_ret_t {
    ffi(|| {
        check_out(index_out, "index_out")?;
        let index = with(ws, |w| {
            let index = add(&mut w.inner)?;
            w.counts[slot] += 1;
            w.ready = None;
            Ok(index)
        })?;
        // SAFETY: the caller's contract.
        unsafe { put(index_out, "index_out", index) }
    })
}

/// Adds a subscription (with a callback or polled); `index_out` gets its
/// index among the wait set's subscriptions: 0, 1, 2… in the order added.
///
/// # Safety
///
/// `index_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_add_subscription(
    ws: hibari_wait_set_t,
    subscription: hibari_subscription_t,
    index_out: *mut usize,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is add's.
    unsafe {
        add(ws, SUBSCRIPTIONS, index_out, |w| {
            let s = crate::subscription::subscription(subscription)?;
            Ok(w.add_subscription(&s))
        })
    }
}

/// Adds a guard condition; `index_out` gets its index among the wait
/// set's guard conditions.
///
/// # Safety
///
/// `index_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_add_guard_condition(
    ws: hibari_wait_set_t,
    guard: hibari_guard_condition_t,
    index_out: *mut usize,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is add's.
    unsafe {
        add(ws, GUARD_CONDITIONS, index_out, |w| {
            let g = handles::get::<hibari_rs::GuardCondition>(Kind::GuardCondition, guard.id)?;
            Ok(w.add_guard_condition(&g))
        })
    }
}

/// Adds a timer; `index_out` gets its index among the wait set's timers.
///
/// # Safety
///
/// `index_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_add_timer(
    ws: hibari_wait_set_t,
    timer: hibari_timer_t,
    index_out: *mut usize,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is add's.
    unsafe {
        add(ws, TIMERS, index_out, |w| {
            let t = handles::get::<hibari_rs::Timer>(Kind::Timer, timer.id)?;
            Ok(w.add_timer(&t))
        })
    }
}

/// Removes every entity: indices start from 0 again.
#[no_mangle]
pub extern "C" fn hibari_wait_set_clear(ws: hibari_wait_set_t) -> hibari_ret_t {
    ffi(|| {
        with(ws, |w| {
            w.inner.clear();
            w.counts = [0; 3];
            w.ready = None;
            Ok(())
        })
    })
}

/// Waits up to `timeout_ns` (negative: forever) until at least one entity
/// is ready, without polling; returns at once if one is already.
/// `ready_out` is false when the timeout passed first. Then ask
/// `hibari_wait_set_*_is_ready` which ones are:
/// - a subscription when a sample waits: take it with
///   `hibari_subscription_take` (which may still find nothing: a QoS event
///   also wakes it, or another taker was first). Nothing is taken here.
/// - a guard condition when it was triggered: the wait consumes the trigger.
/// - a timer when it is due: `hibari_timer_call` runs it.
///
/// An empty wait set is `HIBARI_ERROR_INVALID_ARGUMENT`.
///
/// # Safety
///
/// `ready_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_wait(
    ws: hibari_wait_set_t,
    timeout_ns: i64,
    ready_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        check_out(ready_out, "ready_out")?;
        let ready = with(ws, |w| {
            w.ready = None;
            match w.inner.wait(timeout(timeout_ns)) {
                Ok(WaitResult::Ready(r)) => w.ready = Some(r),
                Ok(WaitResult::Timeout) => {}
                Err(e @ WaitError::Empty) => return Err(Error::invalid_from(e)),
                Err(e @ WaitError::Shutdown) => {
                    return Err(Error::from(hibari_ret_t::HIBARI_ERROR_SHUTDOWN, e))
                }
                Err(e) => return Err(Error::other(e)),
            }
            Ok(w.ready.is_some())
        })?;
        // SAFETY: the caller's contract.
        unsafe { put(ready_out, "ready_out", ready) }
    })
}

/// Whether the last wait found the entity at `index` of the kind `slot`
/// ready; `HIBARI_ERROR_INVALID_ARGUMENT` past the entities added.
///
/// # Safety
///
/// `ready_out` is writable.
unsafe fn is_ready(
    ws: hibari_wait_set_t,
    slot: usize,
    index: usize,
    ready_out: *mut bool,
    of: impl FnOnce(&ReadyEntities) -> &[usize],
) -> hibari_ret_t {
    ffi(|| {
        check_out(ready_out, "ready_out")?;
        let ready = with(ws, |w| {
            let added = w.counts[slot];
            if index >= added {
                return Err(Error::invalid(format!(
                    "index {index} is past the {added} added: use the index the add function gave"
                )));
            }
            Ok(w.ready.as_ref().is_some_and(|r| of(r).contains(&index)))
        })?;
        // SAFETY: the caller's contract.
        unsafe { put(ready_out, "ready_out", ready) }
    })
}

/// Whether the last wait found the subscription at `index` ready (a sample
/// to take).
///
/// # Safety
///
/// `ready_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_subscription_is_ready(
    ws: hibari_wait_set_t,
    index: usize,
    ready_out: *mut bool,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is is_ready's.
    unsafe { is_ready(ws, SUBSCRIPTIONS, index, ready_out, |r| r.subscriptions()) }
}

/// Whether the last wait found the guard condition at `index` triggered.
///
/// # Safety
///
/// `ready_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_guard_condition_is_ready(
    ws: hibari_wait_set_t,
    index: usize,
    ready_out: *mut bool,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is is_ready's.
    unsafe {
        is_ready(ws, GUARD_CONDITIONS, index, ready_out, |r| {
            r.guard_conditions()
        })
    }
}

/// Whether the last wait found the timer at `index` due.
///
/// # Safety
///
/// `ready_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_wait_set_timer_is_ready(
    ws: hibari_wait_set_t,
    index: usize,
    ready_out: *mut bool,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is is_ready's.
    unsafe { is_ready(ws, TIMERS, index, ready_out, |r| r.timers()) }
}

/// Destroys the wait set; the entities it held are not destroyed (a wait
/// in progress on another thread still ends at its wake-up or timeout).
#[no_mangle]
pub extern "C" fn hibari_wait_set_destroy(ws: hibari_wait_set_t) -> hibari_ret_t {
    ffi(|| handles::remove::<Shared>(Kind::WaitSet, ws.id).map(drop))
}
