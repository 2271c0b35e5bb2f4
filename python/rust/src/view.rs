//! Read-only numpy arrays over a received sample's bytes, without a copy.
//!
//! A [`SampleBuffer`] owns a reference to the sample's [`CdrBytes`] (which
//! may be a shared-memory slot, released when the last reference goes) and
//! describes one array inside it through numpy's array interface:
//! `numpy.asarray(buffer)` makes an array over those bytes whose `base` is
//! the buffer, so the sample stays alive exactly as long as some array (or
//! message) still refers to it. The interface marks the memory read-only:
//! numpy refuses writes, and refuses to make the array writeable again.
//!
//! Only the address of bytes that never change is handed out: the bytes of a
//! `CdrBytes` are immutable for its whole life, and this object keeps them
//! alive, so no `unsafe` is needed on this side.

use hibari::interfaces::Primitive;
use hibari::CdrBytes;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

/// One primitive array inside a received sample, offered to numpy.
#[pyclass(frozen, weakref, module = "hibari._hibari")]
pub struct SampleBuffer {
    bytes: CdrBytes,
    offset: usize,
    count: usize,
    typestr: &'static str,
}

/// numpy's type string for elements of `p` in the given byte order.
pub(crate) fn typestr(p: Primitive, big_endian: bool) -> &'static str {
    use Primitive::*;
    match (p, big_endian) {
        (Bool, _) => "|b1",
        (Byte | Char | UInt8, _) => "|u1",
        (Int8, _) => "|i1",
        (Int16, false) => "<i2",
        (Int16, true) => ">i2",
        (UInt16, false) => "<u2",
        (UInt16, true) => ">u2",
        (Int32, false) => "<i4",
        (Int32, true) => ">i4",
        (UInt32, false) => "<u4",
        (UInt32, true) => ">u4",
        (Int64, false) => "<i8",
        (Int64, true) => ">i8",
        (UInt64, false) => "<u8",
        (UInt64, true) => ">u8",
        (Float32, false) => "<f4",
        (Float32, true) => ">f4",
        (Float64, false) => "<f8",
        (Float64, true) => ">f8",
    }
}

static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A read-only numpy array of `count` elements of `p` at `offset` in `bytes`.
pub(crate) fn array<'py>(
    py: Python<'py>,
    bytes: &CdrBytes,
    offset: usize,
    count: usize,
    p: Primitive,
    big_endian: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let asarray = ASARRAY.import(py, "numpy", "asarray")?;
    let buffer = SampleBuffer {
        bytes: bytes.clone(),
        offset,
        count,
        typestr: typestr(p, big_endian),
    };
    asarray.call1((buffer,))
}

#[pymethods]
impl SampleBuffer {
    /// numpy's array interface (version 3): shape, element type, and the
    /// address of the bytes, read-only.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", (self.count,))?;
        d.set_item("typestr", self.typestr)?;
        d.set_item("data", (self.address(), true))?;
        Ok(d)
    }

    /// The address of the first element (for tests that check sharing).
    #[getter]
    fn address(&self) -> usize {
        self.bytes.as_slice().as_ptr() as usize + self.offset
    }

    /// The size of the whole sample, in bytes.
    #[getter]
    fn sample_len(&self) -> usize {
        self.bytes.len()
    }
}
