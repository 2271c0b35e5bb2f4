//! CDR bytes → a Python message, driven by the type's [`Schema`].
//!
//! Scalars and strings become Python objects (a string is copied; nothing
//! else can be done for `str`). Arrays of numbers — `uint8[] data`,
//! `float32[] ranges`, `float64[9] covariance` — become read-only numpy
//! arrays over the sample's own bytes ([`view`](crate::view)), whatever
//! their size, so a camera frame costs the same to receive as a `Header`.
//! Arrays of bools, strings and messages become lists. Big-endian input is
//! read as such (numpy arrays get a big-endian dtype).
//!
//! The input is treated as hostile: every length is checked against the
//! bytes left before anything is made from it, and nesting is bounded.

use std::sync::Arc;

use hibari::cdr::{CdrDecodeError, CdrReader, Endian, MAX_DEPTH};
use hibari::interfaces::{ArrayKind, Primitive};
use hibari::CdrBytes;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyType};

use crate::errors::HibariError;
use crate::schema::{Base, FieldSchema, Schema};
use crate::view;

/// Decodes `bytes` as a message of `schema`; the message's numeric arrays
/// keep `bytes` alive.
pub(crate) fn decode<'py>(
    py: Python<'py>,
    schema: &Arc<Schema>,
    bytes: &CdrBytes,
) -> PyResult<Bound<'py, PyAny>> {
    let failed = |e: CdrDecodeError| {
        HibariError::new_err(format!(
            "the bytes are not a valid {}: {e}",
            schema.type_name
        ))
    };
    let mut r = CdrReader::new(bytes).map_err(failed)?;
    let d = Decoder {
        py,
        bytes,
        big_endian: r.endian() == Endian::Big,
    };
    d.message(&mut r, schema, 0).map_err(|e| match e {
        Failure::Cdr(e) => failed(e),
        Failure::Py(e) => e,
    })
}

enum Failure {
    Cdr(CdrDecodeError),
    Py(PyErr),
}

impl From<CdrDecodeError> for Failure {
    fn from(e: CdrDecodeError) -> Self {
        Failure::Cdr(e)
    }
}

impl From<std::convert::Infallible> for Failure {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}

type Result<T> = std::result::Result<T, Failure>;

static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A bare instance of `cls` (`object.__new__(cls)`), its fields set after.
fn bare<'py>(py: Python<'py>, cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
    let new = OBJECT_NEW.get_or_try_init(py, || {
        py.import("builtins")?
            .getattr("object")?
            .getattr("__new__")
            .map(Bound::unbind)
    })?;
    new.bind(py).call1((cls,))
}

struct Decoder<'a, 'py> {
    py: Python<'py>,
    bytes: &'a CdrBytes,
    big_endian: bool,
}

impl<'py> Decoder<'_, 'py> {
    fn message(
        &self,
        r: &mut CdrReader<'_>,
        schema: &Arc<Schema>,
        depth: usize,
    ) -> Result<Bound<'py, PyAny>> {
        if depth > MAX_DEPTH {
            return Err(CdrDecodeError::TooDeep { limit: MAX_DEPTH }.into());
        }
        let obj = bare(self.py, schema.class(self.py)?)?;
        for field in &schema.fields {
            let value = self.field(r, field, depth)?;
            obj.setattr(field.py_name.bind(self.py), value)?;
        }
        if schema.fields.is_empty() {
            r.read::<u8>()?; // the one byte of an empty message
        }
        Ok(obj)
    }

    fn count(&self, r: &mut CdrReader<'_>, array: ArrayKind, min_size: usize) -> Result<usize> {
        Ok(match array {
            ArrayKind::Fixed(n) => n as usize,
            _ => r.read_count(min_size)?,
        })
    }

    fn field(
        &self,
        r: &mut CdrReader<'_>,
        field: &FieldSchema,
        depth: usize,
    ) -> Result<Bound<'py, PyAny>> {
        if field.array == ArrayKind::Single {
            return self.single(r, &field.base, depth);
        }
        let py = self.py;
        match &field.base {
            Base::Prim(p) if *p != Primitive::Bool => {
                let count = self.count(r, field.array, p.size())?;
                self.numbers(r, *p, count)
            }
            base => {
                let min = match base {
                    Base::Prim(_) => 1,
                    Base::Str(_) | Base::WStr => 4,
                    Base::Msg(_) => 1,
                };
                let count = self.count(r, field.array, min)?;
                let list = PyList::empty(py);
                for _ in 0..count {
                    list.append(self.single(r, base, depth)?)?;
                }
                Ok(list.into_any())
            }
        }
    }

    /// `count` numbers as a read-only numpy view of the sample's bytes.
    fn numbers(
        &self,
        r: &mut CdrReader<'_>,
        p: Primitive,
        count: usize,
    ) -> Result<Bound<'py, PyAny>> {
        if count > 0 {
            r.align(p.size())?;
        }
        let offset = r.position();
        let len = count
            .checked_mul(p.size())
            .ok_or(CdrDecodeError::LengthTooLarge {
                offset,
                len: count as u64,
                available: r.remaining(),
            })?;
        r.read_prim_seq::<u8>(len)?; // bounds-checked skip, no copy
        Ok(view::array(
            self.py,
            self.bytes,
            offset,
            count,
            p,
            self.big_endian,
        )?)
    }

    fn single(
        &self,
        r: &mut CdrReader<'_>,
        base: &Base,
        depth: usize,
    ) -> Result<Bound<'py, PyAny>> {
        let py = self.py;
        macro_rules! num {
            ($t:ty) => {
                r.read::<$t>()?.into_pyobject(py)?.into_any()
            };
        }
        Ok(match base {
            Base::Prim(p) => match p {
                Primitive::Bool => r.read::<bool>()?.into_pyobject(py)?.to_owned().into_any(),
                Primitive::Byte | Primitive::Char | Primitive::UInt8 => num!(u8),
                Primitive::Int8 => num!(i8),
                Primitive::Int16 => num!(i16),
                Primitive::UInt16 => num!(u16),
                Primitive::Int32 => num!(i32),
                Primitive::UInt32 => num!(u32),
                Primitive::Int64 => num!(i64),
                Primitive::UInt64 => num!(u64),
                Primitive::Float32 => (r.read::<f32>()? as f64).into_pyobject(py)?.into_any(),
                Primitive::Float64 => num!(f64),
            },
            Base::Str(_) => r.read_str()?.into_pyobject(py)?.into_any(),
            Base::WStr => return Err(CdrDecodeError::WStringUnsupported.into()),
            Base::Msg(s) => self.message(r, s, depth + 1)?,
        })
    }
}
