//! What hibari hands C to own: byte buffers and arrays of strings, each
//! freed by its `_fini` (which zeroes it; a zeroed one may be finished
//! again, harmlessly).

use std::ffi::{c_char, CString};

use crate::error::{ffi, hibari_ret_t, Error, Result};

/// Bytes hibari allocated for the caller: `len` bytes at `data` (`cap` is
/// hibari's bookkeeping). Free with `hibari_bytes_fini`; do not change the
/// fields.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct hibari_bytes_t {
    pub data: *mut u8,
    pub len: usize,
    pub cap: usize,
}

impl hibari_bytes_t {
    pub(crate) const EMPTY: hibari_bytes_t = hibari_bytes_t {
        data: std::ptr::null_mut(),
        len: 0,
        cap: 0,
    };

    /// Hands `bytes` to C.
    pub(crate) fn new(bytes: Vec<u8>) -> Self {
        let boxed = bytes.into_boxed_slice();
        let len = boxed.len();
        let data = Box::into_raw(boxed).cast::<u8>();
        hibari_bytes_t {
            data,
            len,
            cap: len,
        }
    }
}

/// Frees bytes hibari handed out and zeroes the struct.
///
/// # Safety
///
/// `bytes` is NULL, zeroed, or as hibari filled it (unchanged), readable and
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_bytes_fini(bytes: *mut hibari_bytes_t) -> hibari_ret_t {
    ffi(|| {
        if bytes.is_null() {
            return Ok(());
        }
        // SAFETY: not NULL, readable and writable (the caller's contract).
        let b = unsafe { bytes.replace(hibari_bytes_t::EMPTY) };
        if b.data.is_null() {
            return Ok(());
        }
        if b.cap != b.len {
            return Err(Error::invalid(
                "these bytes were not handed out by hibari (cap != len)",
            ));
        }
        let slice = std::ptr::slice_from_raw_parts_mut(b.data, b.len);
        // SAFETY: `data` and `len` are those of a boxed slice that
        // hibari_bytes_t::new leaked (the caller's contract: unchanged), and
        // the struct is zeroed now, so it is freed once.
        drop(unsafe { Box::from_raw(slice) });
        Ok(())
    })
}

/// Strings hibari allocated for the caller: `len` NUL-terminated UTF-8
/// strings at `data`. Free with `hibari_string_array_fini`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct hibari_string_array_t {
    pub data: *mut *mut c_char,
    pub len: usize,
}

impl hibari_string_array_t {
    pub(crate) const EMPTY: hibari_string_array_t = hibari_string_array_t {
        data: std::ptr::null_mut(),
        len: 0,
    };

    /// Hands `strings` to C (a NUL inside one becomes a space).
    pub(crate) fn new<S: AsRef<str>>(strings: impl IntoIterator<Item = S>) -> Self {
        let pointers: Box<[*mut c_char]> = strings
            .into_iter()
            .map(|s| {
                let s = s.as_ref().replace('\0', " ");
                CString::new(s).unwrap_or_default().into_raw()
            })
            .collect();
        let len = pointers.len();
        let data = Box::into_raw(pointers).cast::<*mut c_char>();
        hibari_string_array_t { data, len }
    }

    /// Frees an array [`new`](Self::new) made.
    ///
    /// # Safety
    ///
    /// `self` came from `new`, unchanged, and is freed once.
    pub(crate) unsafe fn free(self) {
        if self.data.is_null() {
            return;
        }
        let slice = std::ptr::slice_from_raw_parts_mut(self.data, self.len);
        // SAFETY: the boxed slice `new` leaked (the caller's contract).
        let pointers = unsafe { Box::from_raw(slice) };
        for p in pointers.iter().filter(|p| !p.is_null()) {
            // SAFETY: each came from CString::into_raw in `new`.
            drop(unsafe { CString::from_raw(*p) });
        }
    }
}

/// Reads a C array of `len` strings (for parameters given by C).
///
/// # Safety
///
/// `data` is NULL (with `len` 0) or holds `len` NUL-terminated strings.
pub(crate) unsafe fn read_strings(
    data: *const *mut c_char,
    len: usize,
    what: &str,
) -> Result<Vec<String>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    if data.is_null() {
        return Err(Error::invalid(format!(
            "`{what}` is NULL but holds {len} strings"
        )));
    }
    (0..len)
        .map(|i| {
            // SAFETY: `data` holds `len` pointers (the caller's contract).
            let s = unsafe { data.add(i).read() };
            // SAFETY: each is a NUL-terminated string (the contract).
            unsafe { crate::args::str_arg(s, &format!("{what}[{i}]")) }.map(str::to_owned)
        })
        .collect()
}

/// Frees strings hibari handed out and zeroes the struct.
///
/// # Safety
///
/// `array` is NULL, zeroed, or as hibari filled it (unchanged), readable
/// and writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_string_array_fini(
    array: *mut hibari_string_array_t,
) -> hibari_ret_t {
    ffi(|| {
        if array.is_null() {
            return Ok(());
        }
        // SAFETY: not NULL, readable and writable (the caller's contract).
        let a = unsafe { array.replace(hibari_string_array_t::EMPTY) };
        // SAFETY: as hibari filled it (the contract), and zeroed now: once.
        unsafe { a.free() };
        Ok(())
    })
}
