//! Timers: callbacks the executor spinning their node runs when due (or
//! that a wait set reports, for `hibari_timer_call`). Guard conditions, in
//! `guard.rs`, share their callback type and gate.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari_rs::TimerOptions;

use crate::args::{check_out, put, UserData};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{
    self, hibari_callback_group_t, hibari_node_t, hibari_timer_t, Close, Gate, Kind,
};
use crate::node::node;

/// Called when a timer is due or a guard condition was triggered, on the
/// thread of the executor spinning the node (or, for a timer, the thread
/// calling `hibari_timer_call`); it must return normally (a C++ exception
/// must not leave it).
#[allow(non_camel_case_types)]
pub type hibari_timer_callback_t = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

pub(crate) type Callback = unsafe extern "C" fn(*mut c_void);

/// A callback behind its gate, counting its runs on the node.
pub(crate) fn gated(
    callback: Callback,
    user_data: *mut c_void,
    ran: Arc<AtomicU64>,
) -> (Arc<Gate>, impl FnMut() + Send + 'static) {
    let gate = Arc::new(Gate::default());
    let (g, user) = (gate.clone(), UserData::new(user_data));
    let run = move || {
        g.run(|| {
            ran.fetch_add(1, Ordering::Relaxed);
            // SAFETY: a C function given for this; `user` is C's.
            unsafe { callback(user.get()) }
        })
    };
    (gate, run)
}

fn timer(t: hibari_timer_t) -> Result<Arc<hibari_rs::Timer>> {
    handles::get(Kind::Timer, t.id)
}

/// Creates a timer calling `callback(user_data)` every `period_ns` on the
/// steady clock (rclcpp's `create_wall_timer`: real elapsed time, never
/// simulated), the first time one period from now, in the node's default
/// callback group (see `hibari_timer_create_in_group`). Destroy it with
/// `hibari_timer_destroy` (or with its node); its callback then stops as a
/// subscription's does.
///
/// # Safety
///
/// `user_data` may be used on the executor's threads; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_timer_create(
    node: hibari_node_t,
    period_ns: i64,
    callback: hibari_timer_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_timer_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create_timer's.
    unsafe { create_timer(node, None, false, period_ns, callback, user_data, out) }
}

/// `hibari_timer_create` with the callback in `group`, a callback group of
/// `node` (`HIBARI_ERROR_INVALID_ARGUMENT` for another node's; see
/// `hibari_callback_group_create`). Two timers of one reentrant group may
/// run at the same time on a multi-threaded executor; a timer never
/// overlaps its own previous tick (a tick due while the callback still runs
/// waits for it).
///
/// # Safety
///
/// As `hibari_timer_create`.
#[no_mangle]
pub unsafe extern "C" fn hibari_timer_create_in_group(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    period_ns: i64,
    callback: hibari_timer_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_timer_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create_timer's.
    unsafe {
        create_timer(
            node,
            Some(group),
            false,
            period_ns,
            callback,
            user_data,
            out,
        )
    }
}

/// A timer on the node's clock (rclcpp's `create_timer`): ROS time, which
/// under `use_sim_time` is the simulated time `/clock` brings — the timer
/// then fires as simulated time passes each period, however fast or slow
/// that is, and not while it stands still. Otherwise as `hibari_timer_create`
/// (`group` a callback group of `node`, or a zero handle for the node's
/// default group).
///
/// # Safety
///
/// As `hibari_timer_create`.
#[no_mangle]
pub unsafe extern "C" fn hibari_timer_create_on_node_clock(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    period_ns: i64,
    callback: hibari_timer_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_timer_t,
) -> hibari_ret_t {
    let group = (group.id != 0).then_some(group);
    // SAFETY: the caller's contract is create_timer's.
    unsafe { create_timer(node, group, true, period_ns, callback, user_data, out) }
}

/// Every timer creation function: `group` `None` is the node's default
/// group; `on_node_clock` picks the node's clock over the steady one.
///
/// # Safety
///
/// As `hibari_timer_create`.
#[allow(clippy::too_many_arguments)]
unsafe fn create_timer(
    node: hibari_node_t,
    group: Option<hibari_callback_group_t>,
    on_node_clock: bool,
    period_ns: i64,
    callback: hibari_timer_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_timer_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let callback = callback.ok_or_else(|| Error::invalid("`callback` is NULL"))?;
        let period = u64::try_from(period_ns)
            .ok()
            .filter(|&p| p > 0)
            .map(Duration::from_nanos)
            .ok_or_else(|| Error::invalid(format!("period_ns is {period_ns}: it must be > 0")))?;
        let n = self::node(node)?;
        let mut options = TimerOptions::new(period);
        if let Some(g) = crate::group::for_entity(node, group)? {
            options = options.callback_group(&g);
        }
        let (gate, run) = gated(callback, user_data, n.ran.clone());
        let t = if on_node_clock {
            n.inner.create_timer(options, run)
        } else {
            n.inner.create_wall_timer(options, run)
        }
        .map_err(Error::invalid_from)?;
        let close: Arc<dyn Close> = gate;
        let id = handles::insert(Kind::Timer, node.id, Arc::new(t), Some(close));
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_timer_t { id }) }
    })
}

/// Stops the timer until `hibari_timer_reset`.
#[no_mangle]
pub extern "C" fn hibari_timer_cancel(timer: hibari_timer_t) -> hibari_ret_t {
    ffi(|| {
        self::timer(timer)?.cancel();
        Ok(())
    })
}

/// Restarts the timer: due one period from now (also after a cancel).
#[no_mangle]
pub extern "C" fn hibari_timer_reset(timer: hibari_timer_t) -> hibari_ret_t {
    ffi(|| {
        self::timer(timer)?.reset();
        Ok(())
    })
}

/// Whether the timer is canceled.
///
/// # Safety
///
/// `canceled_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_timer_is_canceled(
    timer: hibari_timer_t,
    canceled_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        let canceled = self::timer(timer)?.is_canceled();
        // SAFETY: the caller's contract.
        unsafe { put(canceled_out, "canceled_out", canceled) }
    })
}

/// The timer's period in ns.
///
/// # Safety
///
/// `period_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_timer_get_period(
    timer: hibari_timer_t,
    period_out: *mut i64,
) -> hibari_ret_t {
    ffi(|| {
        let period = self::timer(timer)?.period().as_nanos();
        // SAFETY: the caller's contract.
        unsafe {
            put(
                period_out,
                "period_out",
                i64::try_from(period).unwrap_or(i64::MAX),
            )
        }
    })
}

/// Runs the timer's callback now, on this thread, if it is due (as a wait
/// set reports), and moves it to its next period (rcl's `rcl_timer_call`).
/// `called_out` says whether it ran: not when the timer is not due, is
/// canceled, or its callback (or its mutually exclusive callback group)
/// runs on another thread right now.
///
/// # Safety
///
/// `called_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_timer_call(
    timer: hibari_timer_t,
    called_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        check_out(called_out, "called_out")?;
        let called = self::timer(timer)?.call();
        // SAFETY: the caller's contract.
        unsafe { put(called_out, "called_out", called) }
    })
}

/// Destroys the timer.
#[no_mangle]
pub extern "C" fn hibari_timer_destroy(timer: hibari_timer_t) -> hibari_ret_t {
    ffi(|| handles::remove::<hibari_rs::Timer>(Kind::Timer, timer.id).map(drop))
}
