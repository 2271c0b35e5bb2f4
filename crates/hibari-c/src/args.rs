//! What C hands in: pointers checked for NULL, strings checked for UTF-8,
//! byte ranges, out-parameters, the `user_data` of callbacks, timeouts.

use std::ffi::{c_char, c_void, CStr};
use std::time::Duration;

use crate::error::{hibari_ret_t, Error, Result};

/// The string at `ptr` (`what` names the argument in the error).
///
/// # Safety
///
/// `ptr` is NULL or points to a NUL-terminated string that stays unchanged
/// for `'a`.
pub(crate) unsafe fn str_arg<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(Error::invalid(format!("`{what}` is NULL: pass a string")));
    }
    // SAFETY: not NULL, and NUL-terminated and unchanged for 'a (the caller's
    // contract, stated in the header for every string argument).
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str()
        .map_err(|e| Error::invalid(format!("`{what}` is not UTF-8: {e}")))
}

/// Like [`str_arg`], with NULL meaning `None`.
///
/// # Safety
///
/// As [`str_arg`].
pub(crate) unsafe fn opt_str_arg<'a>(ptr: *const c_char, what: &str) -> Result<Option<&'a str>> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract is str_arg's.
    unsafe { str_arg(ptr, what) }.map(Some)
}

/// The `len` bytes at `ptr` (NULL is allowed when `len` is 0).
///
/// # Safety
///
/// `ptr` is NULL or points to `len` readable bytes, unchanged for `'a`.
pub(crate) unsafe fn bytes_arg<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::invalid(format!(
            "`{what}` is NULL but its length is {len}"
        )));
    }
    if isize::try_from(len).is_err() {
        return Err(Error::invalid(format!(
            "`{what}`'s length {len} is too large"
        )));
    }
    // SAFETY: not NULL, `len` readable bytes that stay unchanged for 'a (the
    // caller's contract), and `len` fits in isize.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Writes `value` to the out-parameter `ptr` (`what` names it in the
/// error), without reading or dropping what was there (C's memory, maybe
/// uninitialized).
///
/// # Safety
///
/// `ptr` is NULL or points to memory writable for a `T`.
pub(crate) unsafe fn put<T>(ptr: *mut T, what: &str, value: T) -> Result {
    if ptr.is_null() {
        return Err(Error::invalid(format!(
            "`{what}` is NULL: pass where to write the result"
        )));
    }
    if !ptr.is_aligned() {
        return Err(Error::invalid(format!("`{what}` is misaligned")));
    }
    // SAFETY: not NULL, aligned, and writable for a T (the caller's
    // contract); `write` neither reads nor drops the old contents.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Checks an out-parameter before the work that fills it, so that a NULL
/// one fails before anything is created.
pub(crate) fn check_out<T>(ptr: *mut T, what: &str) -> Result {
    if ptr.is_null() {
        return Err(Error::invalid(format!(
            "`{what}` is NULL: pass where to write the result"
        )));
    }
    Ok(())
}

/// Copies `text` with its NUL into `buf` of `cap` bytes and writes its
/// length (without the NUL) to `len_out`; `HIBARI_ERROR_BUFFER_TOO_SMALL`
/// when it does not fit (`len_out` then says how long it is). `buf` may be
/// NULL when `cap` is 0, to ask for the length.
///
/// # Safety
///
/// `buf` is NULL or points to `cap` writable bytes; `len_out` as [`put`].
pub(crate) unsafe fn copy_str(
    text: &str,
    buf: *mut c_char,
    cap: usize,
    len_out: *mut usize,
) -> Result {
    // SAFETY: the caller's contract.
    unsafe { put(len_out, "len_out", text.len()) }?;
    if cap < text.len() + 1 {
        return Err(Error::new(
            hibari_ret_t::HIBARI_ERROR_BUFFER_TOO_SMALL,
            format!(
                "the buffer holds {cap} bytes; {} are needed (*len_out + 1 for the NUL)",
                text.len() + 1
            ),
        ));
    }
    if buf.is_null() {
        return Err(Error::invalid("`buf` is NULL but `cap` is not 0"));
    }
    // SAFETY: `buf` is not NULL and has `cap` >= len + 1 writable bytes (the
    // caller's contract); `text` is Rust memory, so they do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        *buf.add(text.len()) = 0;
    }
    Ok(())
}

/// A timeout in ns: negative waits forever.
pub(crate) fn timeout(ns: i64) -> Duration {
    u64::try_from(ns).map_or(Duration::MAX, Duration::from_nanos)
}

/// The `user_data` a callback gets back: an address C chose, handed back
/// untouched on the thread that runs the callback.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UserData(*mut c_void);

impl UserData {
    pub fn new(ptr: *mut c_void) -> Self {
        UserData(ptr)
    }

    /// The address, to hand back to C.
    pub fn get(self) -> *mut c_void {
        self.0
    }
}

// SAFETY: hibari never dereferences the address; it only hands it back to
// the C callback it came with, on the threads the header names (the
// executor's, a transport's). That those threads may use what it points to
// is the caller's promise, stated in the header for every callback.
unsafe impl Send for UserData {}
// SAFETY: as for Send: shared, it is still only copied and handed back.
unsafe impl Sync for UserData {}
