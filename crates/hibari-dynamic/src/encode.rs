//! [`Value`] → CDR bytes, driven by the definition, byte-identical to ROS 2.
//!
//! Bounds are enforced here, as rosidl's C++ type support does (interop.md
//! §1.5): bounded strings and sequences, and fixed array lengths. Values may
//! be in canonical shape or the looser shapes [`Value`] documents.

use hibari_cdr::{CdrSink, CdrWriter, CountSink, MAX_DEPTH};
use hibari_idl::model::{ArrayKind, BaseType, FieldType, MessageDef, Primitive as Prim, TypeName};

use crate::error::{AtPath, DynamicEncodeError, FieldPath};
use crate::lookup::TypeLookup;
use crate::schema::{float_overflows, type_label};
use crate::value::{Struct, Value};

type Result<T> = std::result::Result<T, DynamicEncodeError>;

/// Encodes `value` as type `ty`: the little-endian header, then the fields.
pub fn encode<L: TypeLookup + ?Sized>(lookup: &L, ty: &TypeName, value: &Value) -> Result<Vec<u8>> {
    let size = encoded_size(lookup, ty, value)?;
    encode_into(lookup, ty, value, Vec::with_capacity(size))
}

/// Encodes into any [`CdrSink`] (a `Vec`, a caller's slice through
/// [`SliceSink`](hibari_cdr::SliceSink), …) and hands the sink back.
pub fn encode_into<L: TypeLookup + ?Sized, S: CdrSink>(
    lookup: &L,
    ty: &TypeName,
    value: &Value,
    sink: S,
) -> Result<S> {
    let def = find(lookup, ty)?;
    let Value::Message(s) = value else {
        return Err(mismatch(ty.to_string(), value));
    };
    let mut e = Encoder {
        lookup,
        w: CdrWriter::new(sink)?,
    };
    e.message(def, s, 0)?;
    Ok(e.w.into_sink())
}

/// The exact encoded size in bytes, header included, without encoding.
pub fn encoded_size<L: TypeLookup + ?Sized>(
    lookup: &L,
    ty: &TypeName,
    value: &Value,
) -> Result<usize> {
    encode_into(lookup, ty, value, CountSink::default()).map(|c| c.0)
}

fn find<'l, L: TypeLookup + ?Sized>(lookup: &'l L, ty: &TypeName) -> Result<&'l MessageDef> {
    lookup
        .message(ty)
        .ok_or_else(|| DynamicEncodeError::UnknownType {
            path: FieldPath::root(),
            name: ty.clone(),
        })
}

fn mismatch(expected: impl Into<String>, got: &Value) -> DynamicEncodeError {
    DynamicEncodeError::TypeMismatch {
        path: FieldPath::root(),
        expected: expected.into(),
        got: got.kind(),
    }
}

struct Encoder<'l, L: ?Sized, S: CdrSink> {
    lookup: &'l L,
    w: CdrWriter<S>,
}

impl<L: TypeLookup + ?Sized, S: CdrSink> Encoder<'_, L, S> {
    fn message(&mut self, def: &MessageDef, s: &Struct, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(DynamicEncodeError::TooDeep {
                path: FieldPath::root(),
                limit: MAX_DEPTH,
            });
        }
        for (i, field) in def.fields.iter().enumerate() {
            let value = match s.get_index(i) {
                Some((name, v)) if name == field.name => Some(v),
                _ => s.get(&field.name),
            };
            let Some(value) = value else {
                return Err(DynamicEncodeError::MissingField {
                    path: FieldPath::root(),
                })
                .at_field(&field.name);
            };
            self.field(&field.ty, value, depth).at_field(&field.name)?;
        }
        if let Some((extra, _)) = s
            .iter()
            .find(|(n, _)| !def.fields.iter().any(|f| f.name == *n))
        {
            return Err(DynamicEncodeError::UnknownField {
                path: FieldPath::root(),
                ty: def.name.clone(),
            })
            .at_field(extra);
        }
        if def.fields.is_empty() {
            // rosidl's `structure_needs_at_least_one_member` byte.
            self.w.write(0u8)?;
        }
        Ok(())
    }

    fn field(&mut self, ty: &FieldType, v: &Value, depth: usize) -> Result<()> {
        if let BaseType::WString { .. } = ty.base {
            return Err(DynamicEncodeError::WStringUnsupported {
                path: FieldPath::root(),
            });
        }
        if ty.array == ArrayKind::Single {
            return self.single(&ty.base, v, depth);
        }
        let len = v.array_len().ok_or_else(|| mismatch(type_label(ty), v))?;
        match ty.array {
            ArrayKind::Fixed(n) if len != n as usize => {
                return Err(DynamicEncodeError::FixedLengthMismatch {
                    path: FieldPath::root(),
                    len,
                    expected: n as usize,
                })
            }
            ArrayKind::Bounded(b) if len > b as usize => {
                return Err(DynamicEncodeError::BoundExceeded {
                    path: FieldPath::root(),
                    len,
                    bound: b as usize,
                })
            }
            ArrayKind::Bounded(_) | ArrayKind::Unbounded => self.w.write_len("sequence", len)?,
            _ => {}
        }
        if let BaseType::Primitive(p) = ty.base {
            return self.prim_array(p, v, ty);
        }
        let Value::Array(items) = v else {
            return Err(mismatch(type_label(ty), v));
        };
        for (i, item) in items.iter().enumerate() {
            self.single(&ty.base, item, depth).at_index(i)?;
        }
        Ok(())
    }

    fn single(&mut self, base: &BaseType, v: &Value, depth: usize) -> Result<()> {
        match base {
            BaseType::Primitive(p) => self.scalar(*p, v),
            BaseType::String { bound } => {
                let Value::String(s) = v else {
                    return Err(mismatch("string", v));
                };
                if let Some(b) = bound {
                    if s.len() > *b as usize {
                        return Err(DynamicEncodeError::BoundExceeded {
                            path: FieldPath::root(),
                            len: s.len(),
                            bound: *b as usize,
                        });
                    }
                }
                if s.as_bytes().contains(&0) {
                    return Err(DynamicEncodeError::NulInString {
                        path: FieldPath::root(),
                    });
                }
                Ok(self.w.write_str("string", s, None)?)
            }
            BaseType::WString { .. } => Err(DynamicEncodeError::WStringUnsupported {
                path: FieldPath::root(),
            }),
            BaseType::Named(name) => {
                let Value::Message(s) = v else {
                    return Err(mismatch(name.to_string(), v));
                };
                let def = find(self.lookup, name)?;
                self.message(def, s, depth + 1)
            }
        }
    }

    fn scalar(&mut self, p: Prim, v: &Value) -> Result<()> {
        let w = &mut self.w;
        match p {
            Prim::Bool => match v {
                Value::Bool(b) => Ok(w.write(*b)?),
                _ => Err(mismatch("bool", v)),
            },
            Prim::Float32 => Ok(w.write(crate::schema::narrow_f64(float(p, v)?))?),
            Prim::Float64 => Ok(w.write(float(p, v)?)?),
            _ => {
                let i = int(p, v)?;
                // `int` checked the range, so these casts are exact.
                Ok(match p {
                    Prim::Int8 => w.write(i as i8),
                    Prim::Int16 => w.write(i as i16),
                    Prim::UInt16 => w.write(i as u16),
                    Prim::Int32 => w.write(i as i32),
                    Prim::UInt32 => w.write(i as u32),
                    Prim::Int64 => w.write(i as i64),
                    Prim::UInt64 => w.write(i as u64),
                    _ => w.write(i as u8),
                }?)
            }
        }
    }

    fn prim_array(&mut self, p: Prim, v: &Value, ty: &FieldType) -> Result<()> {
        macro_rules! typed {
            ($variant:ident, $t:ty) => {
                if let Value::$variant(xs) = v {
                    return Ok(self.w.write_prim_slice::<$t>(xs)?);
                }
            };
        }
        match p {
            Prim::Byte | Prim::Char | Prim::UInt8 => typed!(Bytes, u8),
            Prim::Int8 => typed!(I8s, i8),
            Prim::Int16 => typed!(I16s, i16),
            Prim::UInt16 => typed!(U16s, u16),
            Prim::Int32 => typed!(I32s, i32),
            Prim::UInt32 => typed!(U32s, u32),
            Prim::Int64 => typed!(I64s, i64),
            Prim::UInt64 => typed!(U64s, u64),
            Prim::Float32 => typed!(F32s, f32),
            Prim::Float64 => typed!(F64s, f64),
            Prim::Bool => {}
        }
        let Value::Array(items) = v else {
            return Err(mismatch(type_label(ty), v));
        };
        for (i, item) in items.iter().enumerate() {
            self.scalar(p, item).at_index(i)?;
        }
        Ok(())
    }
}

/// The integer in `v`, range-checked for `p`.
fn int(p: Prim, v: &Value) -> Result<i128> {
    let i = match *v {
        Value::Int(i) => i as i128,
        Value::UInt(u) => u as i128,
        _ => return Err(mismatch(p.msg_name(), v)),
    };
    match p.int_range() {
        Some((lo, hi)) if (lo..=hi).contains(&i) => Ok(i),
        _ => Err(DynamicEncodeError::OutOfRange {
            path: FieldPath::root(),
            value: i.to_string(),
            ty: p.msg_name(),
        }),
    }
}

/// The number in `v` as a float; a finite value too big for `float32` is refused.
fn float(p: Prim, v: &Value) -> Result<f64> {
    let x = v.as_f64().ok_or_else(|| mismatch(p.msg_name(), v))?;
    if float_overflows(p, x) {
        return Err(DynamicEncodeError::OutOfRange {
            path: FieldPath::root(),
            value: format!("{x:e}"),
            ty: p.msg_name(),
        });
    }
    Ok(x)
}
