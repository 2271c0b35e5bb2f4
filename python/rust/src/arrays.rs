//! Numpy arrays (and other buffers) handed to the encoder, as raw bytes.
//!
//! An array field accepts any numpy array (of any shape: an `(h, w, 3)`
//! image is its `h·w·3` bytes in C order), `bytes`, `bytearray`,
//! `memoryview` or `array.array`. An array of exactly the field's element
//! type that is C-contiguous is used as it is, not copied; another element
//! type is converted when numpy calls the cast safe (`uint8` into a
//! `float32[]`, `float32` into a `float64[]`) and refused otherwise
//! (`float64` into `float32[]`, which would lose precision), with a
//! `TypeError` that says how to convert; a non-contiguous array is made
//! contiguous (one copy).

use hibari::interfaces::Primitive;
use numpy::{dtype, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString};

use crate::fields::FieldError;

static NUMPY: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The numpy module.
pub(crate) fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    NUMPY
        .get_or_try_init(py, || py.import("numpy").map(Bound::unbind))
        .map(|m| m.bind(py))
}

/// The numpy dtype of elements of `p`.
pub(crate) fn element_dtype<'py>(py: Python<'py>, p: Primitive) -> Bound<'py, numpy::PyArrayDescr> {
    use Primitive::*;
    match p {
        Bool => dtype::<bool>(py),
        Byte | Char | UInt8 => dtype::<u8>(py),
        Int8 => dtype::<i8>(py),
        Int16 => dtype::<i16>(py),
        UInt16 => dtype::<u16>(py),
        Int32 => dtype::<i32>(py),
        UInt32 => dtype::<u32>(py),
        Int64 => dtype::<i64>(py),
        UInt64 => dtype::<u64>(py),
        Float32 => dtype::<f32>(py),
        Float64 => dtype::<f64>(py),
    }
}

/// `v` as a flat, C-contiguous numpy array of `uint8` holding its elements
/// as `p`, native byte order (a view of `v` itself when it already is one).
pub(crate) fn as_bytes<'py>(
    py: Python<'py>,
    v: &Bound<'py, PyAny>,
    p: Primitive,
) -> Result<Bound<'py, PyAny>, FieldError> {
    let np = numpy(py)?;
    if v.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("expected an array or a list, got str").into());
    }
    let array = match v.cast::<PyUntypedArray>() {
        Ok(a) => a.clone(),
        Err(_) => np
            .call_method1(intern!(py, "asarray"), (v,))
            .and_then(|a| Ok(a.cast_into::<PyUntypedArray>()?))
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "expected an array of {} (a numpy array, a list, bytes), got {}",
                    p.msg_name(),
                    v.get_type()
                        .name()
                        .map_or_else(|_| "?".into(), |n| n.to_string())
                ))
            })?,
    };
    let want = element_dtype(py, p);
    let exact = array.dtype().is_equiv_to(&want);
    if exact && array.ndim() == 1 && array.is_c_contiguous() {
        // The common case (an `Image.data`, a `LaserScan.ranges`): no
        // Python call at all for uint8, one `view` for other elements.
        if matches!(p, Primitive::Byte | Primitive::Char | Primitive::UInt8) {
            return Ok(array.into_any());
        }
        return Ok(array.call_method1(intern!(py, "view"), (dtype::<u8>(py),))?);
    }
    let array = if exact {
        array.into_any()
    } else {
        let kwargs = PyDict::new(py);
        kwargs.set_item("casting", "safe")?;
        array
            .call_method(intern!(py, "astype"), (&want,), Some(&kwargs))
            .map_err(|_| {
                let got = array.dtype();
                PyTypeError::new_err(format!(
                    "expected an array of {} (numpy.{}), got an array of {}: convert it with \
                     .astype(numpy.{})",
                    p.msg_name(),
                    want,
                    got,
                    want
                ))
            })?
    };
    let contiguous = array
        .cast::<PyUntypedArray>()
        .is_ok_and(|a| a.is_c_contiguous());
    let array = if contiguous {
        array
    } else {
        np.call_method1(intern!(py, "ascontiguousarray"), (array,))?
    };
    Ok(array
        .call_method1(intern!(py, "reshape"), (-1,))?
        .call_method1(intern!(py, "view"), (dtype::<u8>(py),))?)
}
