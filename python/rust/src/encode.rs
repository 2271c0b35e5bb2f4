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
//!
//! This file is the layout (the skeleton, its alignment and gaps);
//! [`values`] walks the Python values and checks them, [`hole`] lays out a
//! loan's hole.

use hibari::interfaces::ArrayKind;
use numpy::PyReadonlyArrayDyn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::fields::{FieldError, Result};
use crate::pieces::{HolePlace, HoleSpec, Piece};
use crate::schema::Schema;

mod hole;
mod values;

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
