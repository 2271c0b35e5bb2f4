//! Checking single values against a field's type, and the error that says
//! which field was wrong.

use hibari::interfaces::Primitive;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

/// Why a value was refused, and where.
pub(crate) struct FieldError {
    /// Field names and `[i]` indices, innermost first.
    path: Vec<String>,
    error: PyErr,
}

impl FieldError {
    pub(crate) fn type_error(msg: String) -> Self {
        FieldError {
            path: Vec::new(),
            error: PyTypeError::new_err(msg),
        }
    }
    pub(crate) fn value_error(msg: String) -> Self {
        FieldError {
            path: Vec::new(),
            error: PyValueError::new_err(msg),
        }
    }
    pub(crate) fn at(mut self, segment: String) -> Self {
        self.path.push(segment);
        self
    }
    /// The exception, its message prefixed with `type_name.path: `.
    pub(crate) fn into_pyerr(self, py: Python<'_>, type_name: &str) -> PyErr {
        let mut path = String::from(type_name);
        for seg in self.path.iter().rev() {
            if !seg.starts_with('[') {
                path.push('.');
            }
            path.push_str(seg);
        }
        let message = format!("{path}: {}", self.error.value(py));
        if self.error.is_instance_of::<PyValueError>(py) {
            PyValueError::new_err(message)
        } else if self.error.is_instance_of::<PyTypeError>(py) {
            PyTypeError::new_err(message)
        } else {
            self.error
        }
    }
}

impl From<PyErr> for FieldError {
    fn from(error: PyErr) -> Self {
        FieldError {
            path: Vec::new(),
            error,
        }
    }
}

pub(crate) type Result<T> = std::result::Result<T, FieldError>;

pub(crate) fn type_name_of(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map_or_else(|_| "?".into(), |n| n.to_string())
}

/// A list or tuple, or a `TypeError`.
pub(crate) fn sequence<'py>(v: &Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>> {
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        Ok(v.clone())
    } else {
        Err(FieldError::type_error(format!(
            "expected a list, got {}",
            type_name_of(v)
        )))
    }
}

/// The integer in `v`, range-checked for `p`.
///
/// Every ROS integer fits an `i64` or a `u64`, so those two are tried (one C
/// call each under the stable ABI, where `i128` takes several Python calls);
/// an int that fits neither is out of range for any field.
pub(crate) fn integer(v: &Bound<'_, PyAny>, p: Primitive) -> Result<i128> {
    let (lo, hi) = p.int_range().unwrap_or((0, 0));
    let wide = match v.extract::<i64>() {
        Ok(i) => Ok(i128::from(i)),
        Err(e) if e.is_instance_of::<PyOverflowError>(v.py()) => v.extract::<u64>().map(i128::from),
        Err(e) => Err(e),
    };
    let i: i128 = match wide {
        Ok(i) => i,
        Err(e) if e.is_instance_of::<PyOverflowError>(v.py()) => {
            return Err(FieldError::value_error(format!(
                "{v} is out of range for {} ({lo} to {hi})",
                p.msg_name()
            )))
        }
        Err(_) => {
            if let (true, Ok(b)) = (p == Primitive::Byte, v.cast::<PyBytes>()) {
                if let [byte] = b.as_bytes() {
                    return Ok(i128::from(*byte));
                }
            }
            return Err(FieldError::type_error(format!(
                "expected int ({}), got {}",
                p.msg_name(),
                type_name_of(v)
            )));
        }
    };
    if i < lo || i > hi {
        return Err(FieldError::value_error(format!(
            "{i} is out of range for {} ({lo} to {hi})",
            p.msg_name()
        )));
    }
    Ok(i)
}
