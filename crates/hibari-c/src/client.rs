//! Service clients: creation, readiness, blocking calls (asynchronous ones
//! are in [`request`](crate::request)).

use std::collections::HashMap;
use std::ffi::c_char;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hibari_rs::{CallError, ClientCreateError, GenericClient, GuardConditionOptions, QosProfile};

use crate::args::{bytes_arg, check_out, put, str_arg, timeout};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{self, hibari_callback_group_t, hibari_client_t, hibari_node_t, Close, Kind};
use crate::node::node;
use crate::owned::hibari_bytes_t;
use crate::qos::{from_c, hibari_qos_t};
use crate::request::Pending;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) struct Client {
    pub inner: GenericClient,
    context: u64,
    /// Woken after a response callback ran (see [`request`](crate::request)).
    pub wake: hibari_rs::GuardCondition,
    /// The asynchronous requests not answered yet, by sequence number.
    pub pending: Mutex<HashMap<u64, Arc<Pending>>>,
}

impl Client {
    /// Completes every pending request with `status`.
    fn fail_all(&self, status: hibari_ret_t, message: &str) {
        let pending: Vec<_> = lock(&self.pending).drain().map(|(_, p)| p).collect();
        for p in pending {
            p.finish(status, message, None);
        }
    }
}

impl Close for Client {
    fn close(&self) {
        self.fail_all(
            hibari_ret_t::HIBARI_ERROR_CANCELED,
            "the client was destroyed before the response came",
        );
    }
}

/// Completes the pending requests of the clients of context `context` with
/// `HIBARI_ERROR_SHUTDOWN`.
pub(crate) fn fail_pending_in_context(context: u64) {
    for c in handles::all::<Client>(Kind::Client) {
        if c.context == context {
            c.fail_all(
                hibari_ret_t::HIBARI_ERROR_SHUTDOWN,
                "the context was shut down: no call can complete any more",
            );
        }
    }
}

pub(crate) fn call_error(e: CallError) -> Error {
    let code = match &e {
        CallError::ServiceUnavailable { .. } | CallError::ServiceGone { .. } => {
            hibari_ret_t::HIBARI_ERROR_NOT_FOUND
        }
        CallError::Timeout { .. } => hibari_ret_t::HIBARI_ERROR_TIMEOUT,
        CallError::Shutdown => hibari_ret_t::HIBARI_ERROR_SHUTDOWN,
        _ => hibari_ret_t::HIBARI_ERROR,
    };
    Error::from(code, e)
}

pub(crate) fn client(c: hibari_client_t) -> Result<Arc<Client>> {
    handles::get(Kind::Client, c.id)
}

/// Creates a client of the service type `srv_type` named `name`, with
/// `qos` (NULL: the services profile). Destroy it with
/// `hibari_client_destroy` (or with its node): its pending requests then
/// complete with `HIBARI_ERROR_CANCELED`.
///
/// # Safety
///
/// `name` and `srv_type` are NUL-terminated strings; `qos` is NULL or
/// readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_client_create(
    node: hibari_node_t,
    name: *const c_char,
    srv_type: *const c_char,
    qos: *const hibari_qos_t,
    out: *mut hibari_client_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create's.
    unsafe { create(node, None, name, srv_type, qos, out) }
}

/// `hibari_client_create` in `group`, a callback group of `node`
/// (`HIBARI_ERROR_INVALID_ARGUMENT` for another node's; see
/// `hibari_callback_group_create`), as rclcpp's `create_client` takes one.
/// Unlike rclcpp's, hibari's clients need no executor: a response
/// completes its call on the thread that delivers it, whatever the group
/// (see `hibari_response_callback_t`). The group only holds the client's
/// wake-up of its node (what makes `hibari_executor_spin_until` see a
/// response at once), and is checked, so that code written for rclcpp's
/// groups ports as it is.
///
/// # Safety
///
/// As `hibari_client_create`.
#[no_mangle]
pub unsafe extern "C" fn hibari_client_create_in_group(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    name: *const c_char,
    srv_type: *const c_char,
    qos: *const hibari_qos_t,
    out: *mut hibari_client_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create's.
    unsafe { create(node, Some(group), name, srv_type, qos, out) }
}

/// Both creation functions: `group` `None` is the node's default group.
///
/// # Safety
///
/// As `hibari_client_create`.
unsafe fn create(
    node: hibari_node_t,
    group: Option<hibari_callback_group_t>,
    name: *const c_char,
    srv_type: *const c_char,
    qos: *const hibari_qos_t,
    out: *mut hibari_client_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's contract.
        let (name, srv_type) = unsafe { (str_arg(name, "name")?, str_arg(srv_type, "srv_type")?) };
        // SAFETY: the caller's contract.
        let qos = unsafe { from_c(qos, QosProfile::services_default()) }?;
        let n = self::node(node)?;
        let mut wake_options = GuardConditionOptions::new();
        if let Some(g) = crate::group::for_entity(node, group)? {
            wake_options = wake_options.callback_group(&g);
        }
        crate::interfaces::check_service(srv_type)?;
        let inner = n
            .inner
            .create_generic_client(name, srv_type, qos)
            .map_err(|e| match e {
                ClientCreateError::InvalidName(_) => Error::invalid_from(e),
                e => Error::other(e),
            })?;
        let wake = n.inner.create_guard_condition(wake_options, || {});
        let c = Arc::new(Client {
            inner,
            context: n.context,
            wake,
            pending: Mutex::default(),
        });
        let close: Arc<dyn Close> = c.clone();
        let id = handles::insert(Kind::Client, node.id, c, Some(close));
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_client_t { id }) }
    })
}

/// Whether a server is matched both ways, so that a request can be sent.
///
/// # Safety
///
/// `ready_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_client_service_is_ready(
    client: hibari_client_t,
    ready_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        let ready = self::client(client)?.inner.service_is_ready();
        // SAFETY: the caller's contract.
        unsafe { put(ready_out, "ready_out", ready) }
    })
}

/// Waits up to `timeout_ns` (negative: forever; shutdown ends it) for a
/// server; writes whether one is ready to `available_out`.
///
/// # Safety
///
/// `available_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_client_wait_for_service(
    client: hibari_client_t,
    timeout_ns: i64,
    available_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        check_out(available_out, "available_out")?;
        let available = self::client(client)?
            .inner
            .wait_for_service(timeout(timeout_ns));
        // SAFETY: the caller's contract.
        unsafe { put(available_out, "available_out", available) }
    })
}

/// Sends `len` CDR bytes at `request` (a `…_Request`, header included) and
/// waits up to `timeout_ns` (negative: forever) for the response, which it
/// writes to `response_out` (free it with `hibari_bytes_fini`). Fails with
/// `HIBARI_ERROR_NOT_FOUND` without a server, `HIBARI_ERROR_TIMEOUT`.
/// Called from a callback, the server must be spun by another thread.
///
/// # Safety
///
/// `request` points to `len` readable bytes; `response_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_client_call(
    client: hibari_client_t,
    request: *const u8,
    len: usize,
    timeout_ns: i64,
    response_out: *mut hibari_bytes_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(response_out, "response_out")?;
        // SAFETY: the caller's contract.
        let bytes = unsafe { bytes_arg(request, len, "request") }?;
        crate::publisher::check_cdr(bytes, "the request")?;
        let c = self::client(client)?;
        let response = c
            .inner
            .call(bytes.to_vec(), timeout(timeout_ns))
            .map_err(call_error)?;
        // SAFETY: the caller's contract.
        unsafe {
            put(
                response_out,
                "response_out",
                hibari_bytes_t::new(response.to_vec()),
            )
        }
    })
}

/// Destroys the client; its pending requests complete with
/// `HIBARI_ERROR_CANCELED` (their callbacks run in this call).
#[no_mangle]
pub extern "C" fn hibari_client_destroy(client: hibari_client_t) -> hibari_ret_t {
    ffi(|| handles::remove::<Client>(Kind::Client, client.id).map(drop))
}
