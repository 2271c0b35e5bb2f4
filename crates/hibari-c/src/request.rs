//! Asynchronous requests of a client, whose C callback is called exactly
//! once.
//!
//! hibari's calls need no executor: a reply is sorted into its request's
//! slot on the thread that delivers it, which wakes the call's future. An
//! asynchronous call is polled there ([`Pending`]) and its callback called
//! there; then the client's node is woken (a guard condition), so that an
//! executor spinning it until the call is done sees it at once.

use std::ffi::c_void;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context as TaskContext, Poll, Wake, Waker};

use hibari_rs::{CdrBytes, GenericResponseFuture};

use crate::args::{bytes_arg, put, UserData};
use crate::client::{call_error, client, lock, Client};
use crate::error::{ffi, hibari_ret_t, set_last_error, Error};
use crate::handles::hibari_client_t;

/// Called once per asynchronous request: with `HIBARI_OK` and the
/// response's `len` CDR bytes at `cdr` (borrowed for the call only), or
/// with an error status and no bytes (`hibari_last_error()` says why):
/// `HIBARI_ERROR_NOT_FOUND` (no server, or it went away),
/// `HIBARI_ERROR_SHUTDOWN` (the context was shut down),
/// `HIBARI_ERROR_CANCELED` (the client was destroyed, or the request
/// removed). It runs on the thread that completes the call: the one that
/// delivers the reply (a transport's, or in one process the server
/// executor's), the one that destroys the client or shuts the context down
/// — or, for a request that fails at once, the caller's, before
/// `hibari_client_send_request` returns. Keep it short, do not block in it
/// (no blocking call of the same client) and let no exception leave it.
#[allow(non_camel_case_types)]
pub type hibari_response_callback_t = Option<
    unsafe extern "C" fn(status: hibari_ret_t, cdr: *const u8, len: usize, user_data: *mut c_void),
>;

type Callback = unsafe extern "C" fn(hibari_ret_t, *const u8, usize, *mut c_void);

/// One asynchronous request until its callback is called.
pub(crate) struct Pending {
    future: Mutex<Option<Pin<Box<GenericResponseFuture>>>>,
    callback: Mutex<Option<(Callback, UserData)>>,
    client: Weak<Client>,
    sequence: Option<u64>,
}

/// Wakes a pending request: polls it again.
struct Wakeup(Weak<Pending>);

impl Wake for Wakeup {
    fn wake(self: Arc<Self>) {
        if let Some(p) = self.0.upgrade() {
            p.poll();
        }
    }
}

impl Pending {
    fn poll(self: &Arc<Self>) {
        let outcome = {
            let mut slot = lock(&self.future);
            let Some(future) = slot.as_mut() else {
                return;
            };
            let waker = Waker::from(Arc::new(Wakeup(Arc::downgrade(self))));
            match future.as_mut().poll(&mut TaskContext::from_waker(&waker)) {
                Poll::Pending => return,
                Poll::Ready(outcome) => outcome,
            }
        };
        match outcome {
            Ok(bytes) => self.finish(hibari_ret_t::HIBARI_OK, "", Some(&bytes)),
            Err(e) => {
                let e = call_error(e);
                self.finish(e.code, &e.message, None);
            }
        }
    }

    /// Calls the callback, once: the first finish wins.
    pub(crate) fn finish(&self, status: hibari_ret_t, message: &str, bytes: Option<&CdrBytes>) {
        let Some((callback, user)) = lock(&self.callback).take() else {
            return;
        };
        drop(lock(&self.future).take()); // forgets the request if unanswered
        let client = self.client.upgrade();
        if let (Some(c), Some(s)) = (&client, self.sequence) {
            lock(&c.pending).remove(&s);
        }
        if status != hibari_ret_t::HIBARI_OK {
            set_last_error(message);
        }
        let (data, len) = bytes.map_or((std::ptr::null(), 0), |b| (b.as_ptr(), b.len()));
        // SAFETY: a C function given for this; the bytes live through the
        // call; `user` is C's, handed back.
        unsafe { callback(status, data, len, user.get()) };
        if let Some(c) = client {
            c.wake.trigger();
        }
    }
}

/// Sends `len` CDR bytes at `request` now; `callback` is called exactly
/// once with the response or the error (see
/// `hibari_response_callback_t`, also for which thread). The request's
/// sequence number (what the server sees, from 1; -1 when it was not sent)
/// goes to `sequence_out` (may be NULL) before the callback can run.
///
/// # Safety
///
/// `request` points to `len` readable bytes; `user_data` may be used on the
/// thread that completes the call; `sequence_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_client_send_request(
    client: hibari_client_t,
    request: *const u8,
    len: usize,
    callback: hibari_response_callback_t,
    user_data: *mut c_void,
    sequence_out: *mut i64,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let bytes = unsafe { bytes_arg(request, len, "request") }?;
        crate::publisher::check_cdr(bytes, "the request")?;
        let callback = callback.ok_or_else(|| Error::invalid("`callback` is NULL"))?;
        if !sequence_out.is_null() && !sequence_out.is_aligned() {
            return Err(Error::invalid("`sequence_out` is misaligned"));
        }
        let c = self::client(client)?;
        let future = c.inner.call_async(bytes.to_vec());
        let sequence = future.sequence();
        let pending = Arc::new(Pending {
            future: Mutex::new(Some(Box::pin(future))),
            callback: Mutex::new(Some((callback, UserData::new(user_data)))),
            client: Arc::downgrade(&c),
            sequence,
        });
        if let Some(s) = sequence {
            lock(&c.pending).insert(s, pending.clone());
        }
        if !sequence_out.is_null() {
            let s = sequence.map_or(-1, |s| i64::try_from(s).unwrap_or(i64::MAX));
            // SAFETY: not NULL, aligned, writable (the caller's contract).
            unsafe { put(sequence_out, "sequence_out", s) }?;
        }
        pending.poll();
        Ok(())
    })
}

/// Forgets the request `sequence`: its callback is called now with
/// `HIBARI_ERROR_CANCELED` (unless it was completed already), and a late
/// response is dropped. `removed_out` (may be NULL) says whether it was
/// still pending.
///
/// # Safety
///
/// `removed_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_client_remove_pending_request(
    client: hibari_client_t,
    sequence: i64,
    removed_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        let c = self::client(client)?;
        let pending = u64::try_from(sequence)
            .ok()
            .and_then(|s| lock(&c.pending).remove(&s));
        let removed = pending.is_some();
        if let Some(p) = pending {
            p.finish(
                hibari_ret_t::HIBARI_ERROR_CANCELED,
                "the request was removed before its response came",
                None,
            );
        }
        if !removed_out.is_null() {
            // SAFETY: the caller's contract.
            unsafe { put(removed_out, "removed_out", removed) }?;
        }
        Ok(())
    })
}
