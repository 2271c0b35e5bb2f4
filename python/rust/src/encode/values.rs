//! Walking a Python message: every value checked against its field's type
//! (class, integer range, `float32` range, string and sequence bounds, fixed
//! lengths, NULs) and written into the [`Encoded`] layout; a refused value
//! becomes a [`FieldError`] that the walk extends with the path to it.

use hibari::interfaces::{ArrayKind, Primitive};
use numpy::{PyArrayDyn, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use super::{Encoded, Source};
use crate::fields::{integer, sequence, type_name_of, FieldError, Result};
use crate::schema::{Base, FieldSchema, Schema};

impl<'py> Encoded<'py> {
    pub(super) fn check_class(&self, v: &Bound<'py, PyAny>, schema: &Schema) -> Result<()> {
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

    pub(super) fn message(
        &mut self,
        py: Python<'py>,
        obj: &Bound<'py, PyAny>,
        schema: &Schema,
    ) -> Result<()> {
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

    pub(super) fn field(
        &mut self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        field: &FieldSchema,
    ) -> Result<()> {
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
}
