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
//! numpy reads the description through `__array_struct__` (a capsule
//! holding numpy's `PyArrayInterface`, with the element's dtype object), the
//! fast form of the protocol: no dict to build, no type string to parse.
//! `__array_interface__` describes the same array for other readers.
//!
//! Only an address is handed out, never a Rust reference: this object keeps
//! the bytes alive (and mapped), and numpy reads them itself. Bytes of a
//! shared-memory sample ([`CdrBytes::is_shared`]) could still be changed by
//! a misbehaving publisher in another process; numpy then shows other values
//! (it makes no promise of immutability the way a Rust `&[u8]` does), so no
//! `unsafe` is needed on this side.

use std::ffi::{c_char, c_int};

use hibari::interfaces::Primitive;
use hibari::CdrBytes;
use numpy::PyArrayDescr;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCapsule, PyDict};

/// One primitive array inside a received sample, offered to numpy.
#[pyclass(frozen, weakref, module = "hibari._hibari")]
pub struct SampleBuffer {
    bytes: CdrBytes,
    offset: usize,
    count: usize,
    typestr: &'static str,
    itemsize: usize,
    /// The element type, in the sample's byte order.
    dtype: Py<PyArrayDescr>,
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
    let typestr = typestr(p, big_endian);
    let dtype = if big_endian {
        PyArrayDescr::new(py, typestr)?
    } else {
        crate::arrays::element_dtype(py, p)
    };
    let buffer = SampleBuffer {
        bytes: bytes.clone(),
        offset,
        count,
        typestr,
        itemsize: p.size(),
        dtype: dtype.unbind(),
    };
    asarray.call1((buffer,))
}

/// numpy's `PyArrayInterface` (`numpy/ndarraytypes.h`), the contents of an
/// `__array_struct__` capsule, with its pointers held as addresses; then
/// what those addresses point to, owned by the capsule.
#[repr(C)]
struct ArrayStruct {
    /// Always 2.
    two: c_int,
    nd: c_int,
    typekind: c_char,
    itemsize: c_int,
    flags: c_int,
    /// `npy_intp *`: `dims`.
    shape: usize,
    /// `npy_intp *`: none, C order.
    strides: usize,
    /// `void *`: the first element.
    data: usize,
    /// `PyObject *`: `dtype` (read because of `HAS_DESCR`).
    descr: usize,
    dims: Box<[isize; 1]>,
    dtype: Py<PyArrayDescr>,
}

// The addresses stand for C pointers.
const _: () = assert!(std::mem::size_of::<usize>() == std::mem::size_of::<*const u8>());

/// numpy's array flags (`NPY_ARRAY_*`); `WRITEABLE` (0x400) is left out.
const C_CONTIGUOUS: c_int = 0x1;
const ALIGNED: c_int = 0x100;
/// The bytes are in the order of `descr`, which says which (numpy must
/// not swap them again, nor clear this flag in the capsule).
const NOTSWAPPED: c_int = 0x200;
const HAS_DESCR: c_int = 0x800;

/// numpy's array interface (version 3) of `count` elements of `typestr`
/// at `address`: the dict both a received array and a loan's array offer.
pub(crate) fn array_interface<'py>(
    py: Python<'py>,
    count: usize,
    typestr: &'static str,
    address: usize,
    read_only: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "version"), 3)?;
    d.set_item(intern!(py, "shape"), (count,))?;
    d.set_item(intern!(py, "typestr"), typestr)?;
    d.set_item(intern!(py, "data"), (address, read_only))?;
    Ok(d)
}

#[pymethods]
impl SampleBuffer {
    /// numpy's array interface (version 3): shape, element type, and the
    /// address of the bytes, read-only.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        array_interface(py, self.count, self.typestr, self.address(), true)
    }

    /// numpy's array struct interface: the same array as
    /// `__array_interface__`, read-only, in a capsule numpy reads directly.
    #[getter]
    fn __array_struct__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let dims = Box::new([isize::try_from(self.count).unwrap_or(isize::MAX)]);
        let aligned = if self.address().is_multiple_of(self.itemsize) {
            ALIGNED
        } else {
            0
        };
        let inner = ArrayStruct {
            two: 2,
            nd: 1,
            typekind: self.typestr.as_bytes()[1] as c_char,
            itemsize: self.itemsize as c_int,
            flags: C_CONTIGUOUS | aligned | NOTSWAPPED | HAS_DESCR,
            shape: dims.as_ptr() as usize,
            strides: 0,
            data: self.address(),
            descr: self.dtype.as_ptr() as usize,
            dims,
            dtype: self.dtype.clone_ref(py),
        };
        // numpy asks for the pointer of a capsule without a name.
        #[allow(deprecated)]
        PyCapsule::new(py, inner, None)
    }

    /// The address of the first element (for tests that check sharing).
    #[getter]
    fn address(&self) -> usize {
        self.bytes.as_ptr() as usize + self.offset
    }

    /// The size of the whole sample, in bytes.
    #[getter]
    fn sample_len(&self) -> usize {
        self.bytes.len()
    }
}
