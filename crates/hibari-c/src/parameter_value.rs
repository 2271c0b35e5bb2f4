//! Parameter values as C holds them: a tagged struct, converted both ways.
//!
//! A value C passes in is read only (it stays C's). A value hibari writes
//! out is the caller's, to free with `hibari_parameter_value_fini`, which
//! frees what hibari allocated in it (never call it on a value you built).

use std::ffi::{c_char, c_void, CString};
use std::ptr::addr_of;

use hibari_rs::ParameterValue;

use crate::args::str_arg;
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::owned::{hibari_string_array_t, read_strings};

/// A parameter's type: `HIBARI_PARAMETER_*` (ROS 2's numbers).
#[allow(non_camel_case_types)]
pub type hibari_parameter_type_t = i32;
pub const HIBARI_PARAMETER_NOT_SET: hibari_parameter_type_t = 0;
pub const HIBARI_PARAMETER_BOOL: hibari_parameter_type_t = 1;
pub const HIBARI_PARAMETER_INTEGER: hibari_parameter_type_t = 2;
pub const HIBARI_PARAMETER_DOUBLE: hibari_parameter_type_t = 3;
pub const HIBARI_PARAMETER_STRING: hibari_parameter_type_t = 4;
pub const HIBARI_PARAMETER_BYTE_ARRAY: hibari_parameter_type_t = 5;
pub const HIBARI_PARAMETER_BOOL_ARRAY: hibari_parameter_type_t = 6;
pub const HIBARI_PARAMETER_INTEGER_ARRAY: hibari_parameter_type_t = 7;
pub const HIBARI_PARAMETER_DOUBLE_ARRAY: hibari_parameter_type_t = 8;
pub const HIBARI_PARAMETER_STRING_ARRAY: hibari_parameter_type_t = 9;

/// A parameter value: `type` says which field holds it.
///
/// - BOOL: `bool_value`; INTEGER: `integer_value`; DOUBLE: `double_value`;
///   STRING: `string_value` (NUL-terminated UTF-8);
/// - arrays: `array_len` elements at `array`: `uint8_t` (BYTE_ARRAY),
///   `bool` (BOOL_ARRAY), `int64_t` (INTEGER_ARRAY), `double`
///   (DOUBLE_ARRAY), `char *` (STRING_ARRAY);
/// - NOT_SET: none.
///
/// The other fields are ignored when read and zero when written.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct hibari_parameter_value_t {
    pub r#type: hibari_parameter_type_t,
    pub bool_value: bool,
    pub integer_value: i64,
    pub double_value: f64,
    pub string_value: *mut c_char,
    pub array: *mut c_void,
    pub array_len: usize,
}

impl hibari_parameter_value_t {
    const EMPTY: hibari_parameter_value_t = hibari_parameter_value_t {
        r#type: HIBARI_PARAMETER_NOT_SET,
        bool_value: false,
        integer_value: 0,
        double_value: 0.0,
        string_value: std::ptr::null_mut(),
        array: std::ptr::null_mut(),
        array_len: 0,
    };
}

/// Hands `items` to C as a boxed slice: (address, length).
fn leak<T>(items: Vec<T>) -> (*mut c_void, usize) {
    let boxed = items.into_boxed_slice();
    let len = boxed.len();
    (Box::into_raw(boxed).cast::<c_void>(), len)
}

/// The C value of `v`, owning what it points to.
pub(crate) fn to_c(v: &ParameterValue) -> hibari_parameter_value_t {
    let mut c = hibari_parameter_value_t::EMPTY;
    let (t, (array, len)) = match v {
        ParameterValue::NotSet => (HIBARI_PARAMETER_NOT_SET, (std::ptr::null_mut(), 0)),
        ParameterValue::Bool(b) => {
            c.bool_value = *b;
            (HIBARI_PARAMETER_BOOL, (std::ptr::null_mut(), 0))
        }
        ParameterValue::Integer(i) => {
            c.integer_value = *i;
            (HIBARI_PARAMETER_INTEGER, (std::ptr::null_mut(), 0))
        }
        ParameterValue::Double(d) => {
            c.double_value = *d;
            (HIBARI_PARAMETER_DOUBLE, (std::ptr::null_mut(), 0))
        }
        ParameterValue::String(s) => {
            c.string_value = CString::new(s.replace('\0', " "))
                .unwrap_or_default()
                .into_raw();
            (HIBARI_PARAMETER_STRING, (std::ptr::null_mut(), 0))
        }
        ParameterValue::ByteArray(a) => (HIBARI_PARAMETER_BYTE_ARRAY, leak(a.clone())),
        ParameterValue::BoolArray(a) => (HIBARI_PARAMETER_BOOL_ARRAY, leak(a.clone())),
        ParameterValue::IntegerArray(a) => (HIBARI_PARAMETER_INTEGER_ARRAY, leak(a.clone())),
        ParameterValue::DoubleArray(a) => (HIBARI_PARAMETER_DOUBLE_ARRAY, leak(a.clone())),
        ParameterValue::StringArray(a) => {
            let strings = hibari_string_array_t::new(a);
            (
                HIBARI_PARAMETER_STRING_ARRAY,
                (strings.data.cast(), strings.len),
            )
        }
    };
    c.r#type = t;
    c.array = array;
    c.array_len = len;
    c
}

/// Copies `len` elements of `T` at `ptr`.
///
/// # Safety
///
/// `ptr` is NULL (with `len` 0) or points to `len` readable `T`s, each
/// valid for `T`.
unsafe fn elements<T: Copy>(ptr: *const c_void, len: usize) -> Result<Vec<T>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() || !ptr.cast::<T>().is_aligned() {
        return Err(Error::invalid(format!(
            "the value's `array` is NULL or misaligned but `array_len` is {len}"
        )));
    }
    // SAFETY: not NULL, aligned, `len` readable valid Ts (the caller's
    // contract), copied out at once.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<T>(), len) }.to_vec())
}

/// The value C passes at `v`, read field by field (a `bool` as a byte, so
/// that a stray value is not undefined behaviour).
///
/// # Safety
///
/// `v` is NULL or points to a readable `hibari_parameter_value_t` whose
/// pointers are valid for its type.
pub(crate) unsafe fn from_c(
    v: *const hibari_parameter_value_t,
    what: &str,
) -> Result<ParameterValue> {
    if v.is_null() || !v.is_aligned() {
        return Err(Error::invalid(format!("`{what}` is NULL or misaligned")));
    }
    // SAFETY: for every read below: `v` is readable and aligned (the caller's
    // contract); each field is read as plain data of its type, the bools as
    // bytes; the pointers are valid for the value's type (the contract).
    unsafe {
        let t = addr_of!((*v).r#type).read();
        let array = addr_of!((*v).array).read();
        let len = addr_of!((*v).array_len).read();
        Ok(match t {
            HIBARI_PARAMETER_NOT_SET => ParameterValue::NotSet,
            HIBARI_PARAMETER_BOOL => {
                ParameterValue::Bool(addr_of!((*v).bool_value).cast::<u8>().read() != 0)
            }
            HIBARI_PARAMETER_INTEGER => {
                ParameterValue::Integer(addr_of!((*v).integer_value).read())
            }
            HIBARI_PARAMETER_DOUBLE => ParameterValue::Double(addr_of!((*v).double_value).read()),
            HIBARI_PARAMETER_STRING => {
                let s = addr_of!((*v).string_value).read();
                ParameterValue::String(str_arg(s, &format!("{what}.string_value"))?.to_owned())
            }
            HIBARI_PARAMETER_BYTE_ARRAY => ParameterValue::ByteArray(elements::<u8>(array, len)?),
            HIBARI_PARAMETER_BOOL_ARRAY => ParameterValue::BoolArray(
                elements::<u8>(array, len)?
                    .into_iter()
                    .map(|b| b != 0)
                    .collect(),
            ),
            HIBARI_PARAMETER_INTEGER_ARRAY => {
                ParameterValue::IntegerArray(elements::<i64>(array, len)?)
            }
            HIBARI_PARAMETER_DOUBLE_ARRAY => {
                ParameterValue::DoubleArray(elements::<f64>(array, len)?)
            }
            HIBARI_PARAMETER_STRING_ARRAY => ParameterValue::StringArray(read_strings(
                array.cast::<*mut c_char>(),
                len,
                &format!("{what}.array"),
            )?),
            other => {
                return Err(Error::invalid(format!(
                    "{what}.type is {other}: use a HIBARI_PARAMETER_* type"
                )))
            }
        })
    }
}

/// Frees what `value` holds (if hibari wrote it) and zeroes it.
///
/// # Safety
///
/// `value` is NULL, zeroed, or written by hibari (unchanged), readable and
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_parameter_value_fini(
    value: *mut hibari_parameter_value_t,
) -> hibari_ret_t {
    ffi(|| {
        if value.is_null() {
            return Ok(());
        }
        // SAFETY: not NULL, readable and writable, written by hibari (so its
        // bool is 0 or 1): the caller's contract.
        let v = unsafe { value.replace(hibari_parameter_value_t::EMPTY) };
        // SAFETY: for each free below: the allocation `to_c` made for this type,
        // unchanged (the contract); the struct is zeroed now, so it is freed
        // once.
        unsafe {
            if !v.string_value.is_null() {
                drop(CString::from_raw(v.string_value));
            }
            if v.array.is_null() {
                return Ok(());
            }
            let len = v.array_len;
            match v.r#type {
                HIBARI_PARAMETER_BYTE_ARRAY => free::<u8>(v.array, len),
                HIBARI_PARAMETER_BOOL_ARRAY => free::<bool>(v.array, len),
                HIBARI_PARAMETER_INTEGER_ARRAY => free::<i64>(v.array, len),
                HIBARI_PARAMETER_DOUBLE_ARRAY => free::<f64>(v.array, len),
                HIBARI_PARAMETER_STRING_ARRAY => hibari_string_array_t {
                    data: v.array.cast(),
                    len,
                }
                .free(),
                _ => {}
            }
        }
        Ok(())
    })
}

/// Frees a boxed slice [`leak`] made.
///
/// # Safety
///
/// `ptr` and `len` are those `leak::<T>` returned, freed once.
unsafe fn free<T>(ptr: *mut c_void, len: usize) {
    // SAFETY: the caller's contract.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr.cast::<T>(), len)) });
}
