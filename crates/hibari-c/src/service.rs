//! Service servers: a C callback answers each request's CDR bytes.

use std::ffi::{c_char, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use hibari_rs::{
    CdrBytes, QosProfile, ServiceCreateError, ServiceOptions, ServiceRespondError, ServiceResponder,
};

use crate::args::{bytes_arg, check_out, put, str_arg, UserData};
use crate::error::{ffi, hibari_ret_t, Error};
use crate::handles::{
    self, hibari_callback_group_t, hibari_node_t, hibari_service_t, Close, Gate, Kind,
};
use crate::node::node;
use crate::qos::{from_c, hibari_qos_t};
use crate::subscription::{hibari_sample_info_t, info};

/// The answer to one request, valid during the service callback only.
/// Opaque.
#[allow(non_camel_case_types)]
pub struct hibari_response_t {
    responder: Option<ServiceResponder>,
}

/// Called with each request: its `len` CDR bytes (header included) at
/// `request`, borrowed for the call only. Answer with
/// `hibari_response_set(response, …)` before returning; a callback that
/// does not answer sends no reply (the caller's call then times out, as
/// with a server that ignores it). It runs on the thread of the executor
/// spinning the service's node; it must return normally (a C++ exception
/// must not leave it).
#[allow(non_camel_case_types)]
pub type hibari_service_callback_t = Option<
    unsafe extern "C" fn(
        request: *const u8,
        len: usize,
        response: *mut hibari_response_t,
        user_data: *mut c_void,
    ),
>;

/// Creates a server of the service type `srv_type`
/// (`example_interfaces/srv/AddTwoInts`) named `name`, with `qos` (NULL:
/// the services profile); the executor spinning the node calls `callback`
/// with each request and `user_data`, in the node's default callback group
/// (see `hibari_service_create_in_group`). Destroy it with
/// `hibari_service_destroy` (or with its node); the callback then stops as
/// a subscription's does.
///
/// # Safety
///
/// `name` and `srv_type` are NUL-terminated strings; `qos` is NULL or
/// readable; `user_data` may be used on the executor's threads; `out` is
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_service_create(
    node: hibari_node_t,
    name: *const c_char,
    srv_type: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_service_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_service_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create's.
    unsafe { create(node, None, name, srv_type, qos, callback, user_data, out) }
}

/// `hibari_service_create` with the callback in `group`, a callback group
/// of `node` (`HIBARI_ERROR_INVALID_ARGUMENT` for another node's; see
/// `hibari_callback_group_create`). A callback that waits for another
/// service of the same node (through a client, from inside the callback)
/// needs that service's callback free to run meanwhile: on a
/// multi-threaded executor, put this one in a reentrant group (or in a
/// group of its own) — in the node's default group, both would wait for
/// each other until the call times out. Requests still reach this callback
/// one at a time, whatever its group.
///
/// # Safety
///
/// As `hibari_service_create`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hibari_service_create_in_group(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    name: *const c_char,
    srv_type: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_service_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_service_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create's.
    unsafe {
        create(
            node,
            Some(group),
            name,
            srv_type,
            qos,
            callback,
            user_data,
            out,
        )
    }
}

/// Both creation functions: `group` `None` is the node's default group.
///
/// # Safety
///
/// As `hibari_service_create`.
#[allow(clippy::too_many_arguments)]
unsafe fn create(
    node: hibari_node_t,
    group: Option<hibari_callback_group_t>,
    name: *const c_char,
    srv_type: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_service_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_service_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's contract.
        let (name, srv_type) = unsafe { (str_arg(name, "name")?, str_arg(srv_type, "srv_type")?) };
        // SAFETY: the caller's contract.
        let qos = unsafe { from_c(qos, QosProfile::services_default()) }?;
        let callback = callback.ok_or_else(|| Error::invalid("`callback` is NULL"))?;
        let n = self::node(node)?;
        let mut options = ServiceOptions::new(qos);
        if let Some(g) = crate::group::for_entity(node, group)? {
            options = options.callback_group(&g);
        }
        crate::interfaces::check_service(srv_type)?;
        let gate = Arc::new(Gate::default());
        let (g, ran, user) = (gate.clone(), n.ran.clone(), UserData::new(user_data));
        let answer = move |request: CdrBytes, responder: ServiceResponder| {
            let mut response = hibari_response_t {
                responder: Some(responder),
            };
            g.run(|| {
                ran.fetch_add(1, Ordering::Relaxed);
                // SAFETY: a C function given for this; the request's bytes
                // and `response` live through the call; `user` is C's.
                unsafe { callback(request.as_ptr(), request.len(), &mut response, user.get()) }
            });
        };
        let server = n
            .inner
            .create_generic_service(name, srv_type, options, answer)
            .map_err(|e| match e {
                ServiceCreateError::InvalidName(_) => Error::invalid_from(e),
                e => Error::other(e),
            })?;
        let close: Arc<dyn Close> = gate;
        let id = handles::insert(Kind::Service, node.id, Arc::new(server), Some(close));
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_service_t { id }) }
    })
}

/// Sends `len` CDR bytes at `cdr` (a `…_Response`, header included) as the
/// reply; once per request (`HIBARI_ERROR_INVALID_ARGUMENT` the second time).
///
/// # Safety
///
/// `response` is the pointer the callback got, during the callback; `cdr`
/// points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hibari_response_set(
    response: *mut hibari_response_t,
    cdr: *const u8,
    len: usize,
) -> hibari_ret_t {
    ffi(|| {
        if response.is_null() {
            return Err(Error::invalid("`response` is NULL"));
        }
        // SAFETY: the callback's own response, alive and not otherwise
        // borrowed while the callback runs (the caller's contract).
        let response = unsafe { &mut *response };
        // SAFETY: the caller's contract.
        let bytes = unsafe { bytes_arg(cdr, len, "cdr") }?;
        let responder = response
            .responder
            .take()
            .ok_or_else(|| Error::invalid("this request was answered already"))?;
        responder.respond(bytes).map_err(|e| match e {
            ServiceRespondError::NotCdr => Error::invalid_from(e),
            ServiceRespondError::ServerGone => {
                Error::from(hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE, e)
            }
            e => Error::other(e),
        })
    })
}

/// The request's info: `publisher_id` is the client's id, `sequence` its
/// request number (a ROS 2 request header's writer GUID and sequence).
///
/// # Safety
///
/// `response` as `hibari_response_set`'s; `info_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_response_get_request_info(
    response: *const hibari_response_t,
    info_out: *mut hibari_sample_info_t,
) -> hibari_ret_t {
    ffi(|| {
        if response.is_null() {
            return Err(Error::invalid("`response` is NULL"));
        }
        // SAFETY: the callback's own response, alive during the callback.
        let response = unsafe { &*response };
        let responder = response
            .responder
            .as_ref()
            .ok_or_else(|| Error::invalid("this request was answered already"))?;
        // SAFETY: the caller's contract.
        unsafe { put(info_out, "info_out", info(responder.info())) }
    })
}

/// Destroys the service server.
#[no_mangle]
pub extern "C" fn hibari_service_destroy(service: hibari_service_t) -> hibari_ret_t {
    ffi(|| handles::remove::<hibari_rs::GenericServiceServer>(Kind::Service, service.id).map(drop))
}
