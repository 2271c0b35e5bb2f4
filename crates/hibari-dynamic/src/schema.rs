//! Small facts about `.msg` types shared by the decoder, encoder, defaults and JSON.

use hibari_idl::model::{ArrayKind, BaseType, FieldType, Primitive as Prim};

use crate::value::Value;

/// The canonical scalar for an integer of primitive `p`, if it is in range.
pub(crate) fn int_scalar(p: Prim, i: i128) -> Option<Value> {
    let (lo, hi) = p.int_range()?;
    if i < lo || i > hi {
        return None;
    }
    Some(if lo < 0 {
        Value::Int(i as i64)
    } else {
        Value::UInt(i as u64)
    })
}

/// Widens an `f32` to `f64` keeping a NaN's payload and signalling bit
/// (a plain `as` conversion quiets a signalling NaN, which would change the
/// bytes of a decode→encode round trip).
pub(crate) fn widen_f32(x: f32) -> f64 {
    if x.is_nan() {
        let b = x.to_bits() as u64;
        let sign = (b >> 31) << 63;
        let mantissa = (b & 0x007f_ffff) << 29;
        f64::from_bits(sign | 0x7ff0_0000_0000_0000 | mantissa)
    } else {
        x as f64
    }
}

/// Narrows back to `f32`, the inverse of [`widen_f32`] for NaNs.
pub(crate) fn narrow_f64(x: f64) -> f32 {
    if x.is_nan() {
        let b = x.to_bits();
        let sign = ((b >> 63) as u32) << 31;
        let mut mantissa = ((b >> 29) & 0x007f_ffff) as u32;
        if mantissa == 0 {
            mantissa = 0x0040_0000; // a NaN whose payload sat only in the low bits
        }
        f32::from_bits(sign | 0x7f80_0000 | mantissa)
    } else {
        x as f32
    }
}

/// Rounds to the field's precision, so a `float32` holds an exact `f32`.
pub(crate) fn float_for(p: Prim, x: f64) -> f64 {
    match p {
        Prim::Float32 => widen_f32(narrow_f64(x)),
        _ => x,
    }
}

/// Whether `x` is finite but too large for `p` (only `float32` can overflow).
pub(crate) fn float_overflows(p: Prim, x: f64) -> bool {
    p == Prim::Float32 && x.is_finite() && !(x as f32).is_finite()
}

/// The zero of a primitive.
pub(crate) fn zero_scalar(p: Prim) -> Value {
    match p {
        Prim::Bool => Value::Bool(false),
        Prim::Float32 | Prim::Float64 => Value::Float(0.0),
        Prim::Int8 | Prim::Int16 | Prim::Int32 | Prim::Int64 => Value::Int(0),
        _ => Value::UInt(0),
    }
}

/// Builds the canonical array value of primitive `p` from canonical scalars.
/// `None` when a scalar does not fit (callers check ranges first).
pub(crate) fn prim_array(p: Prim, items: Vec<Value>) -> Option<Value> {
    macro_rules! typed {
        ($variant:ident, $t:ty, $get:ident) => {
            Value::$variant(
                items
                    .iter()
                    .map(|v| v.$get().and_then(|x| <$t>::try_from(x).ok()))
                    .collect::<Option<Vec<$t>>>()?,
            )
        };
    }
    Some(match p {
        Prim::Bool => Value::Array(items),
        Prim::Byte | Prim::Char | Prim::UInt8 => typed!(Bytes, u8, as_u64),
        Prim::Int8 => typed!(I8s, i8, as_i64),
        Prim::Int16 => typed!(I16s, i16, as_i64),
        Prim::UInt16 => typed!(U16s, u16, as_u64),
        Prim::Int32 => typed!(I32s, i32, as_i64),
        Prim::UInt32 => typed!(U32s, u32, as_u64),
        Prim::Int64 => typed!(I64s, i64, as_i64),
        Prim::UInt64 => typed!(U64s, u64, as_u64),
        Prim::Float32 => Value::F32s(
            items
                .iter()
                .map(|v| v.as_f64().map(|x| x as f32))
                .collect::<Option<_>>()?,
        ),
        Prim::Float64 => Value::F64s(items.iter().map(Value::as_f64).collect::<Option<_>>()?),
    })
}

/// `n` zeros of primitive `p`, in canonical array form.
pub(crate) fn zero_array(p: Prim, n: usize) -> Value {
    match p {
        Prim::Bool => Value::Array(vec![Value::Bool(false); n]),
        Prim::Byte | Prim::Char | Prim::UInt8 => Value::Bytes(vec![0; n]),
        Prim::Int8 => Value::I8s(vec![0; n]),
        Prim::Int16 => Value::I16s(vec![0; n]),
        Prim::UInt16 => Value::U16s(vec![0; n]),
        Prim::Int32 => Value::I32s(vec![0; n]),
        Prim::UInt32 => Value::U32s(vec![0; n]),
        Prim::Int64 => Value::I64s(vec![0; n]),
        Prim::UInt64 => Value::U64s(vec![0; n]),
        Prim::Float32 => Value::F32s(vec![0.0; n]),
        Prim::Float64 => Value::F64s(vec![0.0; n]),
    }
}

/// The `.msg` spelling of a field type, for error messages: `float32[<=3]`.
pub(crate) fn type_label(ty: &FieldType) -> String {
    let base = base_label(&ty.base);
    match ty.array {
        ArrayKind::Single => base,
        ArrayKind::Fixed(n) => format!("{base}[{n}]"),
        ArrayKind::Bounded(n) => format!("{base}[<={n}]"),
        ArrayKind::Unbounded => format!("{base}[]"),
    }
}

pub(crate) fn base_label(base: &BaseType) -> String {
    match base {
        BaseType::Primitive(p) => p.msg_name().to_owned(),
        BaseType::String { bound: None } => "string".to_owned(),
        BaseType::String { bound: Some(n) } => format!("string<={n}"),
        BaseType::WString { bound: None } => "wstring".to_owned(),
        BaseType::WString { bound: Some(n) } => format!("wstring<={n}"),
        BaseType::Named(t) => t.to_string(),
    }
}

/// The fewest bytes one element of `base` can take on the wire, so a forged
/// count can be checked against the input before anything is allocated.
pub(crate) fn min_wire_size(base: &BaseType) -> usize {
    match base {
        BaseType::Primitive(p) => p.size(),
        BaseType::String { .. } | BaseType::WString { .. } => 4,
        // Every message takes at least one byte (an empty one is a single 0).
        BaseType::Named(_) => 1,
    }
}

/// Whether arrays of this base are kept as `Value::Bytes`.
pub(crate) fn is_byte_like(p: Prim) -> bool {
    matches!(p, Prim::Byte | Prim::Char | Prim::UInt8)
}

#[cfg(test)]
mod nan_bits {
    use super::{narrow_f64, widen_f32};

    #[test]
    fn a_signalling_float32_nan_survives_widening_and_narrowing_bit_for_bit() {
        for bits in [
            0x7f80_0001u32,
            0x7fc0_0000,
            0xffbf_ffff,
            0x7f80_1234,
            0xff80_0001,
        ] {
            let x = f32::from_bits(bits);
            assert_eq!(narrow_f64(widen_f32(x)).to_bits(), bits, "{bits:#x}");
        }
        assert_eq!(narrow_f64(widen_f32(1.5)), 1.5);
    }
}
