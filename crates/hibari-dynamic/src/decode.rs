//! CDR bytes → [`Value`], driven by the definition.
//!
//! Hostile input is expected: every read is bounds-checked by
//! [`CdrReader`], every count is checked against the bytes left (times the
//! smallest possible element) before anything is allocated, fixed arrays from
//! the definition are checked the same way, and nesting is capped at
//! [`MAX_DEPTH`] so a recursive definition cannot exhaust the stack.

use hibari_cdr::{Bytes, CdrDecodeError, CdrReader, MAX_DEPTH};
use hibari_idl::model::{ArrayKind, BaseType, FieldType, MessageDef, Primitive as Prim, TypeName};

use crate::error::{AtPath, DynamicDecodeError, FieldPath};
use crate::lookup::TypeLookup;
use crate::schema::min_wire_size;
use crate::value::{Struct, Value};

/// Decodes one encapsulated CDR payload (either byte order) of type `ty`.
///
/// The result is in canonical shape (see [`Value`]). Up to 3 trailing bytes
/// are accepted, as ROS 2 readers do; padding content is never checked.
/// Primitive arrays are copied in one block when the payload's byte order is
/// the host's, so a 1080p image costs one `memcpy`. `bytes` may be shared
/// memory another process changes meanwhile ([`Bytes::Shared`]): every
/// value is copied before it is checked, so that gives other values or an
/// error, never undefined behaviour.
pub fn decode<'b, L: TypeLookup + ?Sized>(
    lookup: &L,
    ty: &TypeName,
    bytes: impl Into<Bytes<'b>>,
) -> Result<Value, DynamicDecodeError> {
    let def = find(lookup, ty)?;
    let mut d = Decoder {
        lookup,
        r: CdrReader::new(bytes)?,
    };
    let s = d.message(def, 0)?;
    d.r.finish()?;
    Ok(Value::Message(s))
}

fn find<'l, L: TypeLookup + ?Sized>(
    lookup: &'l L,
    ty: &TypeName,
) -> Result<&'l MessageDef, DynamicDecodeError> {
    lookup
        .message(ty)
        .ok_or_else(|| DynamicDecodeError::UnknownType {
            path: FieldPath::root(),
            name: ty.clone(),
        })
}

struct Decoder<'l, 'b, L: ?Sized> {
    lookup: &'l L,
    r: CdrReader<'b>,
}

impl<L: TypeLookup + ?Sized> Decoder<'_, '_, L> {
    fn message(&mut self, def: &MessageDef, depth: usize) -> Result<Struct, DynamicDecodeError> {
        if depth > MAX_DEPTH {
            return Err(DynamicDecodeError::TooDeep {
                path: FieldPath::root(),
                limit: MAX_DEPTH,
            });
        }
        if def.fields.is_empty() {
            // rosidl's `structure_needs_at_least_one_member` byte.
            self.r.read::<u8>()?;
            return Ok(Struct::new());
        }
        let mut s = Struct::with_capacity(def.fields.len());
        for field in &def.fields {
            let v = self.field(&field.ty, depth).at_field(&field.name)?;
            s.push(&field.name, v);
        }
        Ok(s)
    }

    fn field(&mut self, ty: &FieldType, depth: usize) -> Result<Value, DynamicDecodeError> {
        if let BaseType::WString { .. } = ty.base {
            return Err(DynamicDecodeError::WStringUnsupported {
                path: FieldPath::root(),
            });
        }
        let min = min_wire_size(&ty.base);
        let count = match ty.array {
            ArrayKind::Single => return self.single(&ty.base, depth),
            ArrayKind::Fixed(n) => self.check_fixed(n as usize, min)?,
            ArrayKind::Bounded(_) | ArrayKind::Unbounded => self.r.read_count(min)?,
        };
        match &ty.base {
            BaseType::Primitive(p) => self.prim_array(*p, count),
            BaseType::Named(name) => {
                let def = find(self.lookup, name)?;
                let mut items = Vec::with_capacity(count);
                for i in 0..count {
                    let s = self.message(def, depth + 1).at_index(i)?;
                    items.push(Value::Message(s));
                }
                Ok(Value::Array(items))
            }
            _ => {
                let mut items = Vec::with_capacity(count);
                for i in 0..count {
                    let s = self.r.read_str().map_err(DynamicDecodeError::from);
                    items.push(Value::String(s.at_index(i)?.into_owned()));
                }
                Ok(Value::Array(items))
            }
        }
    }

    /// A fixed array's length comes from the definition, which is trusted,
    /// but it still must fit in the input before we allocate for it.
    fn check_fixed(&self, n: usize, min: usize) -> Result<usize, DynamicDecodeError> {
        let needed = n.saturating_mul(min);
        if needed > self.r.remaining() {
            return Err(CdrDecodeError::Truncated {
                offset: self.r.position(),
                needed,
                available: self.r.remaining(),
            }
            .into());
        }
        Ok(n)
    }

    fn single(&mut self, base: &BaseType, depth: usize) -> Result<Value, DynamicDecodeError> {
        let r = &mut self.r;
        Ok(match base {
            BaseType::Primitive(p) => match p {
                Prim::Bool => Value::Bool(r.read()?),
                Prim::Byte | Prim::Char | Prim::UInt8 => Value::UInt(r.read::<u8>()?.into()),
                Prim::Int8 => Value::Int(r.read::<i8>()?.into()),
                Prim::Int16 => Value::Int(r.read::<i16>()?.into()),
                Prim::UInt16 => Value::UInt(r.read::<u16>()?.into()),
                Prim::Int32 => Value::Int(r.read::<i32>()?.into()),
                Prim::UInt32 => Value::UInt(r.read::<u32>()?.into()),
                Prim::Int64 => Value::Int(r.read::<i64>()?),
                Prim::UInt64 => Value::UInt(r.read::<u64>()?),
                Prim::Float32 => Value::Float(crate::schema::widen_f32(r.read::<f32>()?)),
                Prim::Float64 => Value::Float(r.read::<f64>()?),
            },
            BaseType::String { .. } => Value::String(r.read_str()?.into_owned()),
            BaseType::WString { .. } => {
                return Err(DynamicDecodeError::WStringUnsupported {
                    path: FieldPath::root(),
                })
            }
            BaseType::Named(name) => {
                let def = find(self.lookup, name)?;
                Value::Message(self.message(def, depth + 1)?)
            }
        })
    }

    /// One block copy per array (element-wise only for a foreign byte order
    /// or a misaligned source address).
    fn prim_array(&mut self, p: Prim, count: usize) -> Result<Value, DynamicDecodeError> {
        let r = &mut self.r;
        macro_rules! typed {
            ($variant:ident, $t:ty) => {
                Value::$variant(r.read_prim_seq::<$t>(count)?.to_vec())
            };
        }
        Ok(match p {
            Prim::Bool => {
                let seq = r.read_prim_seq::<bool>(count)?;
                Value::Array(seq.iter().map(Value::Bool).collect())
            }
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
        })
    }
}
