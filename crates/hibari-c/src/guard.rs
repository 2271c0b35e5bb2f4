//! Guard conditions: a callback the executor spinning the node runs when
//! triggered from any thread, and the wait sets holding one wake; a
//! standalone one (no node) only wakes wait sets.

use std::ffi::c_void;
use std::sync::Arc;

use hibari_rs::GuardConditionOptions;

use crate::args::{check_out, put};
use crate::error::{ffi, hibari_ret_t};
use crate::handles::{
    self, hibari_callback_group_t, hibari_guard_condition_t, hibari_node_t, Close, Kind,
};
use crate::node::node;
use crate::timer::{gated, hibari_timer_callback_t};

/// Creates a guard condition: `hibari_guard_condition_trigger` it (from
/// any thread) to have the executor spinning the node call
/// `callback(user_data)` (NULL: nothing is called, the executor just
/// wakes), in the node's default callback group (see
/// `hibari_guard_condition_create_in_group`). Destroy it with
/// `hibari_guard_condition_destroy` (or with its node).
///
/// # Safety
///
/// `user_data` may be used on the executor's threads; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_guard_condition_create(
    node: hibari_node_t,
    callback: hibari_timer_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_guard_condition_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create_guard_condition's.
    unsafe { create_guard_condition(node, None, callback, user_data, out) }
}

/// `hibari_guard_condition_create` with the callback in `group`, a
/// callback group of `node` (`HIBARI_ERROR_INVALID_ARGUMENT` for another
/// node's; see `hibari_callback_group_create`). In a reentrant group, a
/// multi-threaded executor may run it while callbacks of the group's other
/// entities run; never two calls of this callback at once.
///
/// # Safety
///
/// As `hibari_guard_condition_create`.
#[no_mangle]
pub unsafe extern "C" fn hibari_guard_condition_create_in_group(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    callback: hibari_timer_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_guard_condition_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create_guard_condition's.
    unsafe { create_guard_condition(node, Some(group), callback, user_data, out) }
}

/// Both guard condition creation functions: `group` `None` is the node's
/// default group.
///
/// # Safety
///
/// As `hibari_guard_condition_create`.
unsafe fn create_guard_condition(
    node: hibari_node_t,
    group: Option<hibari_callback_group_t>,
    callback: hibari_timer_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_guard_condition_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let n = self::node(node)?;
        let mut options = GuardConditionOptions::new();
        if let Some(g) = crate::group::for_entity(node, group)? {
            options = options.callback_group(&g);
        }
        unsafe extern "C" fn nothing(_: *mut c_void) {}
        let (gate, run) = gated(callback.unwrap_or(nothing), user_data, n.ran.clone());
        let g = n.inner.create_guard_condition(options, run);
        let close: Arc<dyn Close> = gate;
        let id = handles::insert(Kind::GuardCondition, node.id, Arc::new(g), Some(close));
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_guard_condition_t { id }) }
    })
}

/// Creates a guard condition of no node and with no callback (rclcpp's
/// `std::make_shared<rclcpp::GuardCondition>()`): add it to wait sets and
/// trigger it from any thread to wake them. Destroy it with
/// `hibari_guard_condition_destroy`.
///
/// # Safety
///
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_guard_condition_create_standalone(
    out: *mut hibari_guard_condition_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let g = hibari_rs::GuardCondition::new();
        let id = handles::insert(Kind::GuardCondition, 0, Arc::new(g), None);
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_guard_condition_t { id }) }
    })
}

/// Triggers the guard condition (thread-safe): the executor spinning its
/// node runs its callback, and the wait sets holding it wake.
#[no_mangle]
pub extern "C" fn hibari_guard_condition_trigger(guard: hibari_guard_condition_t) -> hibari_ret_t {
    ffi(|| {
        handles::get::<hibari_rs::GuardCondition>(Kind::GuardCondition, guard.id)?.trigger();
        Ok(())
    })
}

/// Destroys the guard condition.
#[no_mangle]
pub extern "C" fn hibari_guard_condition_destroy(guard: hibari_guard_condition_t) -> hibari_ret_t {
    ffi(|| handles::remove::<hibari_rs::GuardCondition>(Kind::GuardCondition, guard.id).map(drop))
}
