//! Executors: run the callbacks of their nodes' entities.
//!
//! A spin holds no lock of this library while it runs, so callbacks may
//! call any function: create or destroy entities, nodes, the executor
//! itself (the spin then returns), cancel it.

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hibari_rs::{MultiThreadedExecutor, SingleThreadedExecutor};

use crate::args::{check_out, put, timeout, UserData};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{self, hibari_executor_t, hibari_node_t, Close, Kind};
use crate::node::{node, Node};

enum Inner {
    Single(SingleThreadedExecutor),
    Multi(MultiThreadedExecutor),
}

pub(crate) struct Executor {
    inner: Inner,
    nodes: Mutex<Vec<Arc<Node>>>,
}

impl Executor {
    fn nodes(&self) -> MutexGuard<'_, Vec<Arc<Node>>> {
        self.nodes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes `node` (a node being destroyed, or asked).
    pub fn remove(&self, node: &Node) {
        match &self.inner {
            Inner::Single(e) => e.remove_node(&node.inner),
            Inner::Multi(e) => e.remove_node(&node.inner),
        }
        self.nodes().retain(|n| !std::ptr::eq(&**n, node));
    }

    /// Callbacks its nodes' entities ran so far.
    fn ran(&self) -> u64 {
        self.nodes()
            .iter()
            .map(|n| n.ran.load(Ordering::Relaxed))
            .sum()
    }

    pub fn cancel(&self) {
        match &self.inner {
            Inner::Single(e) => e.cancel(),
            Inner::Multi(e) => e.cancel(),
        }
    }

    /// Spins until `done()`, `timeout`, cancel or shutdown; whether `done()`.
    fn spin_until(&self, done: impl Fn() -> bool + Sync, timeout: Duration) -> bool {
        match &self.inner {
            Inner::Single(e) => e.spin_until(done, timeout),
            Inner::Multi(e) => e.spin_until(done, timeout),
        }
    }
}

impl Close for Executor {
    fn close(&self) {
        self.cancel();
        let nodes: Vec<_> = self.nodes().clone();
        for n in nodes {
            *n.executor() = None;
            self.remove(&n);
        }
    }
}

fn executor(e: hibari_executor_t) -> Result<Arc<Executor>> {
    handles::get(Kind::Executor, e.id)
}

/// Registers a new executor and writes its handle to `out`.
///
/// # Safety
///
/// `out` is NULL or writable.
unsafe fn create(inner: Inner, out: *mut hibari_executor_t) -> Result {
    let e = Arc::new(Executor {
        inner,
        nodes: Mutex::default(),
    });
    let close: Arc<dyn Close> = e.clone();
    let id = handles::insert(Kind::Executor, 0, e, Some(close));
    // SAFETY: the caller's contract.
    unsafe { put(out, "out", hibari_executor_t { id }) }
}

/// Creates an executor running callbacks on the thread that spins it, one
/// at a time. Destroy it with `hibari_executor_destroy`.
///
/// # Safety
///
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_executor_create_single(
    out: *mut hibari_executor_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's contract.
        unsafe { create(Inner::Single(SingleThreadedExecutor::new()), out) }
    })
}

/// Creates an executor running callbacks on `threads` threads (0: as many
/// as the machine runs at once): the spinning one and those it starts.
/// Callbacks in one mutually exclusive callback group run one at a time —
/// so one node's do, unless some are in other groups (each node's default
/// group is mutually exclusive, as in rclcpp; see
/// `hibari_callback_group_create`); different groups' overlap, and so do
/// different entities' of a reentrant group.
///
/// # Safety
///
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_executor_create_multi(
    threads: usize,
    out: *mut hibari_executor_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let inner = match threads {
            0 => MultiThreadedExecutor::with_available_parallelism(),
            n => MultiThreadedExecutor::new(n),
        };
        // SAFETY: the caller's contract.
        unsafe { create(Inner::Multi(inner), out) }
    })
}

/// Adds a node: its entities' callbacks run here. A node is in one
/// executor at a time (`HIBARI_ERROR` otherwise).
#[no_mangle]
pub extern "C" fn hibari_executor_add_node(
    ex: hibari_executor_t,
    node: hibari_node_t,
) -> hibari_ret_t {
    ffi(|| {
        let (e, n) = (executor(ex)?, self::node(node)?);
        match &e.inner {
            Inner::Single(s) => s.add_node(&n.inner),
            Inner::Multi(m) => m.add_node(&n.inner),
        }
        .map_err(Error::other)?;
        *n.executor() = Some(Arc::downgrade(&e));
        let mut nodes = e.nodes();
        if !nodes.iter().any(|m| Arc::ptr_eq(m, &n)) {
            nodes.push(n);
        }
        Ok(())
    })
}

/// Removes a node (nothing when it is not in this executor).
#[no_mangle]
pub extern "C" fn hibari_executor_remove_node(
    ex: hibari_executor_t,
    node: hibari_node_t,
) -> hibari_ret_t {
    ffi(|| {
        let (e, n) = (executor(ex)?, self::node(node)?);
        let mut mine = n.executor();
        if mine
            .as_ref()
            .and_then(|w| w.upgrade())
            .is_some_and(|m| Arc::ptr_eq(&m, &e))
        {
            *mine = None;
            drop(mine);
            e.remove(&n);
        }
        Ok(())
    })
}

/// Runs callbacks until `hibari_executor_cancel`, the executor's
/// destruction, or the shutdown of a node's context.
#[no_mangle]
pub extern "C" fn hibari_executor_spin(ex: hibari_executor_t) -> hibari_ret_t {
    ffi(|| {
        executor(ex)?.spin_until(|| false, Duration::MAX);
        Ok(())
    })
}

/// Runs at most one callback, waiting up to `timeout_ns` (negative:
/// forever) for one; `did_work_out` (may be NULL) says whether one ran.
///
/// # Safety
///
/// `did_work_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_executor_spin_once(
    ex: hibari_executor_t,
    timeout_ns: i64,
    did_work_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        let e = executor(ex)?;
        let ran = match &e.inner {
            Inner::Single(s) => s.spin_once(timeout(timeout_ns)),
            Inner::Multi(_) => {
                let before = e.ran();
                e.spin_until(|| e.ran() != before, timeout(timeout_ns))
            }
        };
        if !did_work_out.is_null() {
            // SAFETY: the caller's contract.
            unsafe { put(did_work_out, "did_work_out", ran) }?;
        }
        Ok(())
    })
}

/// Runs the callbacks ready now, without waiting; `executed_out` (may be
/// NULL) gets how many ran.
///
/// # Safety
///
/// `executed_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_executor_spin_some(
    ex: hibari_executor_t,
    executed_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let e = executor(ex)?;
        let executed = match &e.inner {
            Inner::Single(s) => s.spin_some(),
            Inner::Multi(_) => {
                let before = e.ran();
                e.spin_until(|| false, Duration::ZERO);
                usize::try_from(e.ran() - before).unwrap_or(usize::MAX)
            }
        };
        if !executed_out.is_null() {
            // SAFETY: the caller's contract.
            unsafe { put(executed_out, "executed_out", executed) }?;
        }
        Ok(())
    })
}

/// A condition `hibari_executor_spin_until` asks: true ends the spin.
#[allow(non_camel_case_types)]
pub type hibari_condition_t = Option<unsafe extern "C" fn(user_data: *mut c_void) -> bool>;

/// Runs callbacks until `condition(user_data)` is true (`done_out` true),
/// or `timeout_ns` passes (negative: never), cancel or shutdown (`done_out`
/// false). The condition is asked before the first wait, after each
/// callback and each wake-up — on every thread of a multi-threaded
/// executor, maybe at once. Something another thread changes should wake
/// the executor: trigger a guard condition of one of its nodes (a client's
/// response does so for its node by itself).
///
/// # Safety
///
/// `user_data` may be used on the executor's threads; `done_out` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_executor_spin_until(
    ex: hibari_executor_t,
    condition: hibari_condition_t,
    user_data: *mut c_void,
    timeout_ns: i64,
    done_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        let condition = condition.ok_or_else(|| Error::invalid("`condition` is NULL"))?;
        let e = executor(ex)?;
        let user = UserData::new(user_data);
        // SAFETY: a C function given for this; `user` is C's.
        let done = e.spin_until(|| unsafe { condition(user.get()) }, timeout(timeout_ns));
        if !done_out.is_null() {
            // SAFETY: the caller's contract.
            unsafe { put(done_out, "done_out", done) }?;
        }
        Ok(())
    })
}

/// Makes the spins running now return, from any thread (a callback too).
/// As in rclcpp, a cancel while no spin runs is forgotten.
#[no_mangle]
pub extern "C" fn hibari_executor_cancel(ex: hibari_executor_t) -> hibari_ret_t {
    ffi(|| {
        executor(ex)?.cancel();
        Ok(())
    })
}

/// Destroys the executor: its spins return, its nodes leave it.
#[no_mangle]
pub extern "C" fn hibari_executor_destroy(ex: hibari_executor_t) -> hibari_ret_t {
    ffi(|| handles::remove::<Executor>(Kind::Executor, ex.id).map(drop))
}
