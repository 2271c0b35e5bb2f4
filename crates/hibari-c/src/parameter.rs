//! Parameters of a node: declare (with `--ros-args -p` overrides), get,
//! set — ROS 2's rules (a declared type is kept; an integer is not a
//! double).

use std::ffi::c_char;

use hibari_rs::parameter::ParameterAccessError;
use hibari_rs::Parameter;

use crate::args::{put, str_arg};
use crate::error::{ffi, hibari_ret_t, Error};
use crate::handles::hibari_node_t;
use crate::node::node;
use crate::parameter_value::{from_c, hibari_parameter_value_t, to_c};

fn not_found(name: &str) -> Error {
    Error::new(
        hibari_ret_t::HIBARI_ERROR_NOT_FOUND,
        format!("the parameter `{name}` is not declared: declare it first"),
    )
}

/// Declares the parameter `name` with `default_value` (its type becomes the
/// parameter's) and writes the value it got — an override's
/// (`--ros-args -p name:=value`), if one names it, else the default — to
/// `value_out` (may be NULL; else free it with
/// `hibari_parameter_value_fini`).
///
/// # Safety
///
/// `name` is a NUL-terminated string; `default_value` points to a readable
/// value; `value_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_declare_parameter(
    node: hibari_node_t,
    name: *const c_char,
    default_value: *const hibari_parameter_value_t,
    value_out: *mut hibari_parameter_value_t,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let default = unsafe { from_c(default_value, "default_value") }?;
        let n = self::node(node)?;
        let value = n
            .inner
            .declare_parameter(name, default)
            .map_err(Error::invalid_from)?;
        if value_out.is_null() {
            return Ok(());
        }
        // SAFETY: the caller's contract.
        unsafe { put(value_out, "value_out", to_c(&value)) }
    })
}

/// Writes the value of the parameter `name` to `value_out` (free it with
/// `hibari_parameter_value_fini`); `HIBARI_ERROR_NOT_FOUND` when it is not
/// declared.
///
/// # Safety
///
/// `name` is a NUL-terminated string; `value_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_get_parameter(
    node: hibari_node_t,
    name: *const c_char,
    value_out: *mut hibari_parameter_value_t,
) -> hibari_ret_t {
    ffi(|| {
        crate::args::check_out(value_out, "value_out")?;
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        let value = self::node(node)?
            .inner
            .get_parameter(name)
            .map_err(|e| match e {
                ParameterAccessError::NotDeclared { .. } => not_found(name),
                e => Error::other(e),
            })?;
        // SAFETY: the caller's contract.
        unsafe { put(value_out, "value_out", to_c(&value)) }
    })
}

/// Sets the parameter `name` (declared before: `HIBARI_ERROR_NOT_FOUND`
/// otherwise) to `value`; `HIBARI_ERROR_INVALID_ARGUMENT` with the reason
/// when it is refused (another type, out of range, a callback's no).
///
/// # Safety
///
/// `name` is a NUL-terminated string; `value` points to a readable value.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_set_parameter(
    node: hibari_node_t,
    name: *const c_char,
    value: *const hibari_parameter_value_t,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let value = unsafe { from_c(value, "value") }?;
        let n = self::node(node)?;
        if !n.inner.has_parameter(name) {
            return Err(not_found(name));
        }
        let result = n.inner.set_parameter(Parameter::new(name, value));
        if result.successful {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "the parameter `{name}` was not set: {}",
                result.reason
            )))
        }
    })
}

/// Whether the parameter `name` is declared.
///
/// # Safety
///
/// `name` is a NUL-terminated string; `declared_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_has_parameter(
    node: hibari_node_t,
    name: *const c_char,
    declared_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        let declared = self::node(node)?.inner.has_parameter(name);
        // SAFETY: the caller's contract.
        unsafe { put(declared_out, "declared_out", declared) }
    })
}
