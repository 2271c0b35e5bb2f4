//! Return codes, the thread's last error message, and the wrapper every
//! entry point runs its body in (no panic crosses into C).

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a hibari call returns: `HIBARI_OK`, or why it failed (the message
/// is `hibari_last_error()`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum hibari_ret_t {
    /// Success.
    HIBARI_OK = 0,
    /// A failure none of the codes below names (the message says what).
    HIBARI_ERROR = 1,
    /// A NULL pointer, a string that is not UTF-8, an invalid name or value.
    HIBARI_ERROR_INVALID_ARGUMENT = 2,
    /// A zero handle, one destroyed (or whose node or context was), or a
    /// handle of another kind.
    HIBARI_ERROR_INVALID_HANDLE = 3,
    /// The type name is not one hibari knows (the bundled ROS 2 packages and
    /// those on `HIBARI_INTERFACE_PATH` or added with
    /// `hibari_add_interface_path`).
    HIBARI_ERROR_UNKNOWN_TYPE = 4,
    /// Nothing came within the timeout.
    HIBARI_ERROR_TIMEOUT = 5,
    /// No such parameter, no server of the service.
    HIBARI_ERROR_NOT_FOUND = 6,
    /// The buffer is too small; the length needed is in the `len_out`.
    HIBARI_ERROR_BUFFER_TOO_SMALL = 7,
    /// The context was shut down.
    HIBARI_ERROR_SHUTDOWN = 8,
    /// hibari panicked (a bug: please report the message).
    HIBARI_ERROR_PANIC = 9,
    /// The request was forgotten before its response came (its client was
    /// destroyed, or `hibari_client_remove_pending_request`).
    HIBARI_ERROR_CANCELED = 10,
}

use hibari_ret_t::*;

/// A failure: its code and its message.
#[derive(Debug)]
pub(crate) struct Error {
    pub code: hibari_ret_t,
    pub message: String,
}

impl Error {
    pub fn new(code: hibari_ret_t, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(HIBARI_ERROR_INVALID_ARGUMENT, message)
    }

    pub fn invalid_from(error: impl std::fmt::Display) -> Self {
        Self::invalid(error.to_string())
    }

    pub fn other(message: impl std::fmt::Display) -> Self {
        Self::new(HIBARI_ERROR, message.to_string())
    }

    /// `code` with `error`'s text.
    pub fn from(code: hibari_ret_t, error: impl std::fmt::Display) -> Self {
        Self::new(code, error.to_string())
    }
}

pub(crate) type Result<T = ()> = std::result::Result<T, Error>;

thread_local! {
    // Const-initialized: the check every call makes is one load, no lazy
    // initialization (None: no error).
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// Records `message` as this thread's last error (NULs become spaces).
pub(crate) fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // After the thread's locals are gone (a C++ static destructor at exit)
    // there is nowhere to keep it: the code alone tells.
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = Some(text));
}

fn clear_last_error() {
    let _ = LAST_ERROR.try_with(|e| {
        if e.borrow().is_some() {
            *e.borrow_mut() = None;
        }
    });
}

/// Runs an entry point's body: clears the thread's last error, turns an
/// [`Error`] into its code (keeping the message) and a panic into
/// `HIBARI_ERROR_PANIC`.
pub(crate) fn ffi(body: impl FnOnce() -> Result) -> hibari_ret_t {
    clear_last_error();
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => HIBARI_OK,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into());
            set_last_error(&format!(
                "hibari panicked (a bug; please report it): {what}"
            ));
            HIBARI_ERROR_PANIC
        }
    }
}

/// The message of this thread's last hibari call if it failed, else `""`.
/// The string belongs to hibari and stays valid until this thread's next
/// hibari call; copy it to keep it. Inside a client's response callback
/// called with an error status, it describes that error.
#[no_mangle]
pub extern "C" fn hibari_last_error() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    LAST_ERROR
        .try_with(|e| e.borrow().as_ref().map(|text| text.as_ptr()))
        .ok()
        .flatten()
        .unwrap_or(EMPTY.as_ptr().cast())
}
