//! A loan's layout: the top-level message with one numeric array left as a
//! hole (see [`Encoded::encode_with_hole`]).

use hibari::interfaces::{ArrayKind, Primitive};
use pyo3::prelude::*;

use super::{Encoded, Source};
use crate::fields::{FieldError, Result};
use crate::pieces::HolePlace;
use crate::schema::{Base, Schema};

impl<'py> Encoded<'py> {
    /// The top-level message, where a loan's hole may be.
    pub(super) fn top(
        &mut self,
        py: Python<'py>,
        obj: &Bound<'py, PyAny>,
        schema: &Schema,
    ) -> Result<()> {
        let Some((name, count)) = self.hole.take() else {
            return self.message(py, obj, schema);
        };
        for field in &schema.fields {
            let at_hole = field.name == name;
            let done = match (at_hole, &field.base) {
                (true, Base::Prim(p)) if field.array != ArrayKind::Single => {
                    self.hole_at(*p, field.array, count)
                }
                _ => obj
                    .getattr(field.py_name.bind(py))
                    .map_err(|_| FieldError::type_error("the field is not set".into()))
                    .and_then(|v| self.field(py, &v, field)),
            };
            done.map_err(|e| e.at(field.name.clone()))?;
        }
        Ok(())
    }

    /// Lays out a loan's hole of `count` elements of `p`.
    fn hole_at(&mut self, p: Primitive, array: ArrayKind, count: usize) -> Result<()> {
        self.length(count, array)?;
        let bytes = count.checked_mul(p.size()).ok_or_else(|| {
            FieldError::value_error(format!("{count} elements do not fit in memory"))
        })?;
        if bytes > 0 {
            self.align(p.size());
        }
        self.placed = Some(HolePlace {
            offset: self.len,
            bytes,
            element: p,
        });
        if bytes > 0 {
            self.gaps.push((self.skeleton.len(), Source::Hole(bytes)));
            self.len += bytes;
        }
        Ok(())
    }
}
