//! Nodes: a name in a namespace of a context; they create every entity.
//!
//! Destroying a node destroys the entities created from it (publishers,
//! subscriptions, services, clients, timers, guard conditions, callback
//! groups): their handles become invalid, and the node leaves its executor. Loans and
//! taken samples stay valid until sent, discarded or released.

use std::ffi::c_char;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::args::{check_out, copy_str, opt_str_arg, put, str_arg};
use crate::context::context;
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::executor::Executor;
use crate::handles::{self, hibari_context_t, hibari_node_t, Close, Kind};

pub(crate) struct Node {
    pub inner: hibari_rs::Node,
    pub context: u64,
    /// Callbacks of its entities run so far (what a multi-threaded
    /// executor's `spin_once` watches).
    pub ran: Arc<AtomicU64>,
    /// The executor it is in.
    pub executor: Mutex<Option<Weak<Executor>>>,
}

impl Node {
    pub fn executor(&self) -> std::sync::MutexGuard<'_, Option<Weak<Executor>>> {
        self.executor.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Close for Node {
    fn close(&self) {
        let executor = self.executor().take().and_then(|e| e.upgrade());
        if let Some(executor) = executor {
            executor.remove(self);
        }
    }
}

pub(crate) fn node(node: hibari_node_t) -> Result<Arc<Node>> {
    handles::get(Kind::Node, node.id)
}

/// Creates a node named `name` in `namespace_` (NULL or "": `/`; a relative
/// one is made absolute) of `ctx`. The context's `--ros-args` remap its
/// name and namespace and give its parameters' overrides. Destroy it with
/// `hibari_node_destroy`.
///
/// # Safety
///
/// `name` is a NUL-terminated string, `namespace_` NULL or one; `out` is
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_create(
    ctx: hibari_context_t,
    name: *const c_char,
    namespace_: *const c_char,
    out: *mut hibari_node_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let namespace = unsafe { opt_str_arg(namespace_, "namespace_") }?.unwrap_or("/");
        let context = context(ctx)?;
        let inner = context
            .inner
            .create_node_with_namespace(name, if namespace.is_empty() { "/" } else { namespace })
            .map_err(|e| match e {
                hibari_rs::NodeCreateError::ShutDown { .. } => {
                    Error::from(hibari_ret_t::HIBARI_ERROR_SHUTDOWN, e)
                }
                hibari_rs::NodeCreateError::InvalidName(_)
                | hibari_rs::NodeCreateError::InvalidNamespace(_) => Error::invalid_from(e),
                e => Error::other(e),
            })?;
        let node = Arc::new(Node {
            inner,
            context: ctx.id,
            ran: Arc::default(),
            executor: Mutex::new(None),
        });
        let close: Arc<dyn Close> = node.clone();
        let id = handles::insert(Kind::Node, ctx.id, node, Some(close));
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_node_t { id }) }
    })
}

/// Destroys the node, its entities and its callback groups (see above).
#[no_mangle]
pub extern "C" fn hibari_node_destroy(node: hibari_node_t) -> hibari_ret_t {
    ffi(|| handles::remove::<Node>(Kind::Node, node.id).map(drop))
}

/// Copies the node's name (after remapping) with its NUL into `buf` of
/// `cap` bytes and its length (without the NUL) into `len_out`;
/// `HIBARI_ERROR_BUFFER_TOO_SMALL` when it does not fit, `len_out` then
/// holding the length (call with `buf` NULL and `cap` 0 to ask for it).
///
/// # Safety
///
/// `buf` is NULL or has `cap` writable bytes; `len_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_get_name(
    node: hibari_node_t,
    buf: *mut c_char,
    cap: usize,
    len_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let n = self::node(node)?;
        // SAFETY: the caller's contract.
        unsafe { copy_str(n.inner.name(), buf, cap, len_out) }
    })
}

/// The node's namespace (`/` or `/a/b`), as `hibari_node_get_name`.
///
/// # Safety
///
/// As `hibari_node_get_name`.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_get_namespace(
    node: hibari_node_t,
    buf: *mut c_char,
    cap: usize,
    len_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let n = self::node(node)?;
        // SAFETY: the caller's contract.
        unsafe { copy_str(n.inner.namespace(), buf, cap, len_out) }
    })
}

/// `/namespace/name`, as `hibari_node_get_name`.
///
/// # Safety
///
/// As `hibari_node_get_name`.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_get_fully_qualified_name(
    node: hibari_node_t,
    buf: *mut c_char,
    cap: usize,
    len_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let n = self::node(node)?;
        // SAFETY: the caller's contract.
        unsafe { copy_str(&n.inner.fully_qualified_name(), buf, cap, len_out) }
    })
}

/// The topic `topic` stands for from this node (expanded, remapped), as
/// `hibari_node_get_name`.
///
/// # Safety
///
/// `topic` is a NUL-terminated string; the rest as `hibari_node_get_name`.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_resolve_topic_name(
    node: hibari_node_t,
    topic: *const c_char,
    buf: *mut c_char,
    cap: usize,
    len_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let topic = unsafe { str_arg(topic, "topic") }?;
        let n = self::node(node)?;
        let resolved = n
            .inner
            .resolve_topic_name(topic)
            .map_err(Error::invalid_from)?;
        // SAFETY: the caller's contract.
        unsafe { copy_str(&resolved, buf, cap, len_out) }
    })
}

/// The node clock's time in ns since the epoch: ROS time, which follows
/// `/clock` while the node's `use_sim_time` parameter is true (set with
/// `--ros-args -p use_sim_time:=true` or `hibari_node_set_parameter`), else
/// the system clock (rclcpp's `Node::now`).
///
/// # Safety
///
/// `ns_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_now(node: hibari_node_t, ns_out: *mut i64) -> hibari_ret_t {
    ffi(|| {
        let now = self::node(node)?.inner.now().nanoseconds();
        // SAFETY: the caller's contract.
        unsafe { put(ns_out, "ns_out", now) }
    })
}
