//! The default instance of a message: definition defaults, zeros otherwise.

use hibari_cdr::MAX_DEPTH;
use hibari_idl::model::{ArrayKind, BaseType, Field, FieldType, Literal, MessageDef, TypeName};

use crate::error::{AtPath, DynamicDefaultError, FieldPath};
use crate::lookup::TypeLookup;
use crate::schema::{float_for, int_scalar, prim_array, type_label, zero_array, zero_scalar};
use crate::value::{Struct, Value};

/// The default instance of `ty`: each field takes the default written in its
/// definition (`float64 x 1.5`), or zero / `false` / `""` / an empty sequence;
/// fixed arrays are filled to their length; nested messages are their own
/// defaults. The result is in canonical shape (see [`Value`]) and encodes.
pub fn default_value<L: TypeLookup + ?Sized>(
    lookup: &L,
    ty: &TypeName,
) -> Result<Value, DynamicDefaultError> {
    let def = find(lookup, ty)?;
    default_struct(lookup, def, 0).map(Value::Message)
}

fn find<'l, L: TypeLookup + ?Sized>(
    lookup: &'l L,
    ty: &TypeName,
) -> Result<&'l MessageDef, DynamicDefaultError> {
    lookup
        .message(ty)
        .ok_or_else(|| DynamicDefaultError::UnknownType {
            path: FieldPath::root(),
            name: ty.clone(),
        })
}

pub(crate) fn default_struct<L: TypeLookup + ?Sized>(
    lookup: &L,
    def: &MessageDef,
    depth: usize,
) -> Result<Struct, DynamicDefaultError> {
    if depth > MAX_DEPTH {
        return Err(DynamicDefaultError::TooDeep {
            path: FieldPath::root(),
            limit: MAX_DEPTH,
        });
    }
    let mut s = Struct::with_capacity(def.fields.len());
    for field in &def.fields {
        let v = default_field(lookup, field, depth).at_field(&field.name)?;
        s.push(&field.name, v);
    }
    Ok(s)
}

/// The default of one field (its definition default, or zeros).
pub(crate) fn default_field<L: TypeLookup + ?Sized>(
    lookup: &L,
    field: &Field,
    depth: usize,
) -> Result<Value, DynamicDefaultError> {
    match &field.default {
        Some(lit) => from_literal(&field.ty, lit),
        None => zero_value(lookup, &field.ty, depth),
    }
}

fn zero_value<L: TypeLookup + ?Sized>(
    lookup: &L,
    ty: &FieldType,
    depth: usize,
) -> Result<Value, DynamicDefaultError> {
    let n = match ty.array {
        ArrayKind::Single => return zero_single(lookup, &ty.base, depth),
        ArrayKind::Fixed(n) => n as usize,
        ArrayKind::Bounded(_) | ArrayKind::Unbounded => 0,
    };
    Ok(match &ty.base {
        BaseType::Primitive(p) => zero_array(*p, n),
        _ if n == 0 => Value::Array(Vec::new()),
        base => Value::Array(vec![zero_single(lookup, base, depth)?; n]),
    })
}

fn zero_single<L: TypeLookup + ?Sized>(
    lookup: &L,
    base: &BaseType,
    depth: usize,
) -> Result<Value, DynamicDefaultError> {
    Ok(match base {
        BaseType::Primitive(p) => zero_scalar(*p),
        BaseType::String { .. } | BaseType::WString { .. } => Value::String(String::new()),
        BaseType::Named(name) => {
            let def = find(lookup, name)?;
            Value::Message(default_struct(lookup, def, depth + 1)?)
        }
    })
}

/// Converts a definition's default literal to a canonical value of `ty`.
fn from_literal(ty: &FieldType, lit: &Literal) -> Result<Value, DynamicDefaultError> {
    let invalid = || DynamicDefaultError::InvalidDefault {
        path: FieldPath::root(),
        reason: format!("{lit:?} is not a valid {}", type_label(ty)),
    };
    if ty.array == ArrayKind::Single {
        return scalar_literal(&ty.base, lit).ok_or_else(invalid);
    }
    let Literal::Array(items) = lit else {
        return Err(invalid());
    };
    let len_ok = match ty.array {
        ArrayKind::Fixed(n) => items.len() == n as usize,
        ArrayKind::Bounded(n) => items.len() <= n as usize,
        _ => true,
    };
    if !len_ok {
        return Err(invalid());
    }
    let values = items
        .iter()
        .map(|l| scalar_literal(&ty.base, l))
        .collect::<Option<Vec<Value>>>()
        .ok_or_else(invalid)?;
    match &ty.base {
        BaseType::Primitive(p) => prim_array(*p, values).ok_or_else(invalid),
        _ => Ok(Value::Array(values)),
    }
}

fn scalar_literal(base: &BaseType, lit: &Literal) -> Option<Value> {
    use hibari_idl::model::Primitive as Prim;
    match (base, lit) {
        (BaseType::Primitive(Prim::Bool), Literal::Bool(b)) => Some(Value::Bool(*b)),
        (BaseType::Primitive(Prim::Bool), Literal::Int(i @ 0..=1)) => Some(Value::Bool(*i == 1)),
        (BaseType::Primitive(p @ (Prim::Float32 | Prim::Float64)), Literal::Float(x)) => {
            Some(Value::Float(float_for(*p, *x)))
        }
        (BaseType::Primitive(p @ (Prim::Float32 | Prim::Float64)), Literal::Int(i)) => {
            Some(Value::Float(float_for(*p, *i as f64)))
        }
        (BaseType::Primitive(p), Literal::Int(i)) => int_scalar(*p, *i),
        (BaseType::String { bound } | BaseType::WString { bound }, Literal::String(s)) => {
            match bound {
                Some(b) if s.len() > *b as usize => None,
                _ => Some(Value::String(s.clone())),
            }
        }
        _ => None,
    }
}
