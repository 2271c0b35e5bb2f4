//! A Python message → CDR bytes, driven by the type's [`Schema`], checking
//! every value on the way: types, integer ranges, `float32` range, string
//! and sequence bounds, fixed array lengths, NULs in strings. A bad value
//! raises `TypeError` or `ValueError` naming the field
//! (`sensor_msgs/msg/Image.header.stamp.sec: ...`).
//!
//! Encoding is two steps so that the bulk of a big message is copied once,
//! without the GIL. [`Encoded::encode`] walks the message with the GIL held
//! and writes everything small (scalars, strings, short arrays) into a
//! skeleton, leaving a gap for each big array (a numpy array or `bytes`,
//! held, not copied). [`assemble`](crate::pieces::assemble) then copies skeleton and arrays
//! into the final buffer in one pass, and may run with the GIL released.
//! The layout is ROS 2's little-endian CDR, alignment counted from the end
//! of the 4-byte header, as hibari-cdr writes it.

use hibari::interfaces::{ArrayKind, Primitive};
use numpy::{PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use crate::fields::{integer, sequence, type_name_of, FieldError, Result};
use crate::pieces::{HolePlace, HoleSpec, Piece};

mod hole;
use crate::schema::{Base, FieldSchema, Schema};

#[cfg(target_endian = "big")]
compile_error!("hibari's Python module lays out CDR from native memory: little-endian hosts only");

/// Arrays up to this size are copied into the skeleton at once.
const SMALL: usize = 4096;

/// Big array bytes kept until the final copy.
enum Source<'py> {
    Bytes(Bound<'py, PyBytes>),
    Array(PyReadonlyArrayDyn<'py, u8>),
    /// A loan's hole of this many bytes: left as it is, filled in place.
    Hole(usize),
}

/// A message laid out but for its big arrays (see the [module](self)).
pub(crate) struct Encoded<'py> {
    skeleton: Vec<u8>,
    /// `(offset in the skeleton, source)`: where each big array goes.
    gaps: Vec<(usize, Source<'py>)>,
    /// The final length.
    len: usize,
    /// The hole asked for (field, count), then where it went.
    hole: Option<(String, usize)>,
    placed: Option<HolePlace>,
}

impl<'py> Encoded<'py> {
    /// Walks `message`, an instance of `schema`'s class; see the [module](self).
    pub fn encode(py: Python<'py>, message: &Bound<'py, PyAny>, schema: &Schema) -> PyResult<Self> {
        Self::walk(py, message, schema, None)
    }

    /// Like [`encode`](Self::encode), with the top-level numeric array
    /// `hole.field` laid out as `hole.count` elements whose bytes are left
    /// out (the field's value is not read): a loan's layout. Where the hole
    /// went is [`hole`](Self::hole).
    pub fn encode_with_hole(
        py: Python<'py>,
        message: &Bound<'py, PyAny>,
        schema: &Schema,
        hole: HoleSpec<'_>,
    ) -> PyResult<Self> {
        let e = Self::walk(py, message, schema, Some(hole))?;
        if e.placed.is_none() {
            return Err(PyValueError::new_err(format!(
                "{} has no field `{}` that is an array of numbers",
                schema.type_name, hole.field
            )));
        }
        Ok(e)
    }

    fn walk(
        py: Python<'py>,
        message: &Bound<'py, PyAny>,
        schema: &Schema,
        hole: Option<HoleSpec<'_>>,
    ) -> PyResult<Self> {
        let mut e = Encoded {
            skeleton: Vec::with_capacity(256),
            gaps: Vec::new(),
            len: 0,
            hole: hole.map(|h| (h.field.to_owned(), h.count)),
            placed: None,
        };
        e.put(&[0x00, 0x01, 0x00, 0x00]);
        let walk = e
            .check_class(message, schema)
            .and_then(|()| e.top(py, message, schema));
        walk.map_err(|err| err.into_pyerr(py, &schema.type_name))?;
        Ok(e)
    }

    /// Where the hole went, for [`encode_with_hole`](Self::encode_with_hole).
    pub fn hole(&self) -> Option<HolePlace> {
        self.placed
    }

    /// The final length in bytes, header included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The big arrays' bytes, for [`assemble`](crate::pieces::assemble) (taken with
    /// the GIL held; the slices stay valid while `self` lives).
    pub fn gap_bytes(&self) -> PyResult<Vec<Piece<'_>>> {
        self.gaps
            .iter()
            .map(|(at, s)| {
                let bytes = match s {
                    Source::Bytes(b) => Some(b.as_bytes()),
                    Source::Array(a) => Some(
                        a.as_slice()
                            .map_err(|e| PyValueError::new_err(e.to_string()))?,
                    ),
                    Source::Hole(_) => None,
                };
                let len = match s {
                    Source::Hole(n) => *n,
                    _ => bytes.map_or(0, <[u8]>::len),
                };
                Ok(Piece {
                    at: *at,
                    bytes,
                    len,
                })
            })
            .collect()
    }

    /// The skeleton (for [`assemble`](crate::pieces::assemble)).
    pub fn skeleton(&self) -> &[u8] {
        &self.skeleton
    }

    fn put(&mut self, bytes: &[u8]) {
        self.skeleton.extend_from_slice(bytes);
        self.len += bytes.len();
    }

    fn align(&mut self, n: usize) {
        let pad = (n - (self.len - 4) % n) % n;
        self.put(&[0; 8][..pad]);
    }

    fn prim<T: bytemuck::NoUninit>(&mut self, value: T) {
        self.align(std::mem::size_of::<T>());
        self.put(bytemuck::bytes_of(&value));
    }

    fn count(&mut self, n: usize) -> Result<()> {
        let n = u32::try_from(n).map_err(|_| {
            FieldError::value_error(format!("{n} elements do not fit a CDR sequence"))
        })?;
        self.prim(n);
        Ok(())
    }

    fn check_class(&self, v: &Bound<'py, PyAny>, schema: &Schema) -> Result<()> {
        let cls = schema.class(v.py())?;
        if v.is_instance(cls)? {
            return Ok(());
        }
        Err(FieldError::type_error(format!(
            "expected a {}, got {}",
            schema.type_name,
            type_name_of(v)
        )))
    }

    fn message(&mut self, py: Python<'py>, obj: &Bound<'py, PyAny>, schema: &Schema) -> Result<()> {
        for field in &schema.fields {
            let value = obj
                .getattr(field.py_name.bind(py))
                .map_err(|_| FieldError::type_error("the field is not set".into()));
            value
                .and_then(|v| self.field(py, &v, field))
                .map_err(|e| e.at(field.name.clone()))?;
        }
        if schema.fields.is_empty() {
            self.put(&[0]); // rosidl's one byte for an empty structure
        }
        Ok(())
    }

    fn field(&mut self, py: Python<'py>, v: &Bound<'py, PyAny>, field: &FieldSchema) -> Result<()> {
        if field.array == ArrayKind::Single {
            return self.single(py, v, &field.base);
        }
        if let Base::Prim(p) = field.base {
            return self.numbers(py, v, p, field.array);
        }
        if let Base::WStr = field.base {
            return Err(FieldError::type_error(
                "wstring fields are not supported".into(),
            ));
        }
        let items = sequence(v)?;
        self.length(items.len()?, field.array)?;
        for (i, item) in items.try_iter()?.enumerate() {
            self.single(py, &item?, &field.base)
                .map_err(|e| e.at(format!("[{i}]")))?;
        }
        Ok(())
    }

    /// Checks a length against the array kind and writes a sequence's count.
    fn length(&mut self, n: usize, array: ArrayKind) -> Result<()> {
        match array {
            ArrayKind::Fixed(len) if n != len as usize => Err(FieldError::value_error(format!(
                "expected exactly {len} elements, got {n}"
            ))),
            ArrayKind::Bounded(b) if n > b as usize => Err(FieldError::value_error(format!(
                "at most {b} elements allowed, got {n}"
            ))),
            ArrayKind::Fixed(_) | ArrayKind::Single => Ok(()),
            _ => self.count(n),
        }
    }

    fn single(&mut self, py: Python<'py>, v: &Bound<'py, PyAny>, base: &Base) -> Result<()> {
        match base {
            Base::Prim(p) => self.scalar(v, *p),
            Base::Str(bound) => {
                let s = v.cast::<PyString>().map_err(|_| {
                    FieldError::type_error(format!("expected str, got {}", type_name_of(v)))
                })?;
                let s = s.to_cow()?;
                if let Some(b) = bound {
                    if s.len() > *b as usize {
                        return Err(FieldError::value_error(format!(
                            "string of {} bytes exceeds its bound of {b}",
                            s.len()
                        )));
                    }
                }
                if s.as_bytes().contains(&0) {
                    return Err(FieldError::value_error("strings cannot contain NUL".into()));
                }
                self.count(s.len() + 1)?;
                self.put(s.as_bytes());
                self.put(&[0]);
                Ok(())
            }
            Base::WStr => Err(FieldError::type_error(
                "wstring fields are not supported".into(),
            )),
            Base::Msg(schema) => {
                self.check_class(v, schema)?;
                self.message(py, v, schema)
            }
        }
    }

    fn scalar(&mut self, v: &Bound<'py, PyAny>, p: Primitive) -> Result<()> {
        match p {
            Primitive::Bool => {
                let b: bool = v.extract().map_err(|_| {
                    FieldError::type_error(format!("expected bool, got {}", type_name_of(v)))
                })?;
                self.prim(u8::from(b));
            }
            Primitive::Float32 | Primitive::Float64 => {
                let x: f64 = v.extract().map_err(|_| {
                    FieldError::type_error(format!("expected float, got {}", type_name_of(v)))
                })?;
                if p == Primitive::Float32 {
                    if x.is_finite() && !(x as f32).is_finite() {
                        return Err(FieldError::value_error(format!(
                            "{x:e} is out of range for float32 (±3.4028235e38)"
                        )));
                    }
                    self.prim(x as f32);
                } else {
                    self.prim(x);
                }
            }
            _ => {
                let i = integer(v, p)?;
                // `integer` checked the range, so these casts are exact.
                match p {
                    Primitive::Int8 => self.prim(i as i8),
                    Primitive::Int16 => self.prim(i as i16),
                    Primitive::UInt16 => self.prim(i as u16),
                    Primitive::Int32 => self.prim(i as i32),
                    Primitive::UInt32 => self.prim(i as u32),
                    Primitive::Int64 => self.prim(i as i64),
                    Primitive::UInt64 => self.prim(i as u64),
                    _ => self.prim(i as u8),
                }
            }
        }
        Ok(())
    }

    /// An array of numbers (or bools): `bytes` or a numpy array kept for
    /// the final copy, or any sequence converted element by element.
    fn numbers(
        &mut self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        p: Primitive,
        array: ArrayKind,
    ) -> Result<()> {
        let byte_like = matches!(p, Primitive::Byte | Primitive::Char | Primitive::UInt8);
        if byte_like {
            if let Ok(b) = v.cast::<PyBytes>() {
                let n = b.as_bytes().len();
                self.length(n, array)?;
                self.gap(Source::Bytes(b.clone()), n, 1);
                return Ok(());
            }
        }
        if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            let n = v.len()?;
            self.length(n, array)?;
            if n > 0 {
                self.align(p.size());
            }
            for (i, item) in v.try_iter()?.enumerate() {
                self.scalar(&item?, p).map_err(|e| e.at(format!("[{i}]")))?;
            }
            return Ok(());
        }
        let bytes = crate::arrays::as_bytes(py, v, p)?;
        let n = bytes.len()? / p.size();
        self.length(n, array)?;
        let bytes = bytes
            .cast::<PyArrayDyn<u8>>()
            .map_err(|e| FieldError::from(PyErr::from(e)))?
            .try_readonly()
            .map_err(|e| FieldError::value_error(format!("the array is in use: {e}")))?;
        self.gap(Source::Array(bytes), n * p.size(), p.size());
        Ok(())
    }

    /// Leaves room for `len` bytes of `source`, aligned to `align`; small
    /// ones are copied at once.
    fn gap(&mut self, source: Source<'py>, len: usize, align: usize) {
        if len == 0 {
            return;
        }
        self.align(align);
        if len <= SMALL {
            let small = match &source {
                Source::Bytes(b) => Some(b.as_bytes()),
                Source::Array(a) => a.as_slice().ok(),
                Source::Hole(_) => None,
            };
            if let Some(bytes) = small {
                self.put(bytes);
                return;
            }
        }
        self.gaps.push((self.skeleton.len(), source));
        self.len += len;
    }
}
