//! Logging through a node's logger: the console in ROS 2's format and
//! `/rosout`, as hibari's Rust loggers write them; or through a named
//! logger of its own (`rclcpp::get_logger`), to the console only.

use std::ffi::c_char;

use hibari_rs::logging::{get_logger, Location, Logger, Severity};

use crate::args::{opt_str_arg, put, str_arg};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::hibari_node_t;
use crate::node::node;

/// A record's severity: `HIBARI_LOG_*` (rcutils' numbers). An `int32_t`
/// with named values, as the QoS policies (see there).
#[allow(non_camel_case_types)]
pub type hibari_log_severity_t = i32;
/// No level of its own: inherit (for `hibari_logger_set_level` only).
pub const HIBARI_LOG_UNSET: hibari_log_severity_t = 0;
pub const HIBARI_LOG_DEBUG: hibari_log_severity_t = 10;
pub const HIBARI_LOG_INFO: hibari_log_severity_t = 20;
pub const HIBARI_LOG_WARN: hibari_log_severity_t = 30;
pub const HIBARI_LOG_ERROR: hibari_log_severity_t = 40;
pub const HIBARI_LOG_FATAL: hibari_log_severity_t = 50;

fn severity(s: hibari_log_severity_t) -> Result<Severity> {
    match s {
        HIBARI_LOG_DEBUG => Ok(Severity::Debug),
        HIBARI_LOG_INFO => Ok(Severity::Info),
        HIBARI_LOG_WARN => Ok(Severity::Warn),
        HIBARI_LOG_ERROR => Ok(Severity::Error),
        HIBARI_LOG_FATAL => Ok(Severity::Fatal),
        _ => Err(Error::invalid(format!(
            "severity {s} is not a level: use HIBARI_LOG_DEBUG … _FATAL"
        ))),
    }
}

/// Writes `message` if `severity` is enabled.
///
/// # Safety
///
/// Each pointer is NULL or a NUL-terminated string.
unsafe fn log(
    logger: &Logger,
    severity: hibari_log_severity_t,
    file: *const c_char,
    line: i32,
    function: *const c_char,
    message: *const c_char,
) -> Result {
    let s = self::severity(severity)?;
    // SAFETY: the caller's contract.
    let message = unsafe { str_arg(message, "message") }?;
    if !logger.is_enabled_for(s) {
        return Ok(());
    }
    let at = Location {
        // SAFETY: the caller's contract.
        file: unsafe { opt_str_arg(file, "file") }?.unwrap_or(""),
        // SAFETY: the caller's contract.
        function: unsafe { opt_str_arg(function, "function") }?.unwrap_or(""),
        line: u32::try_from(line).unwrap_or(0),
    };
    logger.log_at(s, at, format_args!("{message}"));
    Ok(())
}

/// Writes a record through the node's logger (named `namespace.name`)
/// when `severity` is enabled for it: to the console, as ROS 2 prints it,
/// and to `/rosout`. `file` and `function` may be NULL.
///
/// # Safety
///
/// `message` is a NUL-terminated string; `file` and `function` NULL or one.
#[no_mangle]
pub unsafe extern "C" fn hibari_log(
    node: hibari_node_t,
    severity: hibari_log_severity_t,
    file: *const c_char,
    line: i32,
    function: *const c_char,
    message: *const c_char,
) -> hibari_ret_t {
    ffi(|| {
        let n = self::node(node)?;
        // SAFETY: the caller's contract.
        unsafe {
            log(
                n.inner.get_logger(),
                severity,
                file,
                line,
                function,
                message,
            )
        }
    })
}

/// Writes a record through the logger named `logger_name` (a logger of its
/// own, as `rclcpp::get_logger`: to the console only).
///
/// # Safety
///
/// `logger_name` and `message` are NUL-terminated strings; `file` and
/// `function` NULL or one.
#[no_mangle]
pub unsafe extern "C" fn hibari_log_named(
    logger_name: *const c_char,
    severity: hibari_log_severity_t,
    file: *const c_char,
    line: i32,
    function: *const c_char,
    message: *const c_char,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(logger_name, "logger_name") }?;
        // SAFETY: the caller's contract.
        unsafe { log(&get_logger(name), severity, file, line, function, message) }
    })
}

/// Sets the level of the node's logger (`HIBARI_LOG_UNSET`: inherit again).
#[no_mangle]
pub extern "C" fn hibari_logger_set_level(
    node: hibari_node_t,
    severity: hibari_log_severity_t,
) -> hibari_ret_t {
    ffi(|| {
        let level = match severity {
            HIBARI_LOG_UNSET => None,
            s => Some(self::severity(s)?),
        };
        self::node(node)?.inner.get_logger().set_level(level);
        Ok(())
    })
}

/// Whether a record of `severity` would be written by the node's logger.
///
/// # Safety
///
/// `enabled_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_logger_is_enabled_for(
    node: hibari_node_t,
    severity: hibari_log_severity_t,
    enabled_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        let s = self::severity(severity)?;
        let enabled = self::node(node)?.inner.get_logger().is_enabled_for(s);
        // SAFETY: the caller's contract.
        unsafe { put(enabled_out, "enabled_out", enabled) }
    })
}

/// Whether a record of `severity` would be written by the logger named
/// `logger_name`.
///
/// # Safety
///
/// `logger_name` is a NUL-terminated string; `enabled_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_named_logger_is_enabled_for(
    logger_name: *const c_char,
    severity: hibari_log_severity_t,
    enabled_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(logger_name, "logger_name") }?;
        let enabled = get_logger(name).is_enabled_for(self::severity(severity)?);
        // SAFETY: the caller's contract.
        unsafe { put(enabled_out, "enabled_out", enabled) }
    })
}
