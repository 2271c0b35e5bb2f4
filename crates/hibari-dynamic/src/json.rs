//! rosbridge v2 JSON for [`Value`]s (bridge.md §1.4).
//!
//! Output ([`to_json`]), as rosbridge 2.1 `_from_inst` writes it:
//! - a message is an object keyed by field name, in definition order;
//!   `builtin_interfaces/Time` and `Duration` are therefore `{"sec", "nanosec"}`;
//! - arrays of `uint8` and `char` (unbounded, bounded or fixed) are one
//!   standard base64 string (E1); arrays of `byte` are arrays of integers,
//!   since rosbridge's binary set is only `uint8[]`/`char[]` and it turns
//!   each `octet` into an int;
//! - `int64`/`uint64` are exact JSON integers, never rounded through `f64` (E6);
//! - NaN and ±Infinity are `null` (E3); a `float32` is printed as its exact
//!   widened `f64`, as rosbridge's `numpy.tolist()` does.
//!
//! Input ([`from_json`]), rosbridge's `_to_inst` rules plus a few supersets
//! that the conformance list allows:
//! - missing fields take their defaults; an unknown field is an error, as
//!   rosbridge's `NonexistentFieldException` (E4);
//! - integers are range-checked against the field type; integers are
//!   accepted for float fields; floats for integer fields, and integers for
//!   bools, are refused (E4);
//! - `uint8`/`char`/`byte` arrays accept a base64 string or an array of ints;
//! - Time/Duration accept ROS 1's `secs`/`nsecs`; a Time given as the string
//!   `"now"`, and the stamp of a `std_msgs/Header` object that has none, take
//!   the clock reading passed in [`FromJsonOptions::with_now`] (E2, P2);
//! - `null` in a float field reads as NaN (a superset allowed by E3);
//! - fixed array lengths and bounds are checked, so every result encodes.
//!
//! Errors name the JSON path: `header.stamp.sec: expected integer, got string`.
//! Text input nests at most 128 levels (serde_json's recursion limit, which
//! this workspace does not disable); [`MAX_DEPTH`](hibari_cdr::MAX_DEPTH)
//! bounds message nesting for JSON built in memory.

mod from;

pub use from::{from_json, from_json_str, from_json_with, FromJsonOptions};

use base64::Engine as _;
use hibari_idl::model::{ArrayKind, BaseType, FieldType, MessageDef, Primitive as Prim, TypeName};
use serde_json::{Map, Number, Value as Json};

use crate::lookup::TypeLookup;
use crate::value::{Struct, Value};

/// Renders `value` (of type `ty`) as rosbridge JSON.
///
/// Never fails: where the value does not match the definition (or the type
/// is unknown), that part is rendered from the value alone, so a mismatch
/// shows up in the output rather than hiding it.
pub fn to_json<L: TypeLookup + ?Sized>(lookup: &L, ty: &TypeName, value: &Value) -> Json {
    match (lookup.message(ty), value) {
        (Some(def), Value::Message(s)) => message(lookup, def, s),
        _ => plain(value),
    }
}

/// [`to_json`] as compact text.
pub fn to_json_string<L: TypeLookup + ?Sized>(lookup: &L, ty: &TypeName, value: &Value) -> String {
    to_json(lookup, ty, value).to_string()
}

fn message<L: TypeLookup + ?Sized>(lookup: &L, def: &MessageDef, s: &Struct) -> Json {
    let mut map = Map::with_capacity(s.len());
    for (name, v) in s.iter() {
        let j = match def.fields.iter().find(|f| f.name == name) {
            Some(field) => field_json(lookup, &field.ty, v),
            None => plain(v),
        };
        map.insert(name.to_owned(), j);
    }
    Json::Object(map)
}

fn field_json<L: TypeLookup + ?Sized>(lookup: &L, ty: &FieldType, v: &Value) -> Json {
    match (&ty.base, ty.array, v) {
        (BaseType::Named(name), ArrayKind::Single, Value::Message(s)) => match lookup.message(name)
        {
            Some(def) => message(lookup, def, s),
            None => plain(v),
        },
        (BaseType::Primitive(Prim::UInt8 | Prim::Char), a, Value::Bytes(b))
            if a != ArrayKind::Single =>
        {
            Json::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        // A hand-built `Array` of small integers is still base64 on the wire.
        (BaseType::Primitive(Prim::UInt8 | Prim::Char), a, Value::Array(items))
            if a != ArrayKind::Single =>
        {
            let bytes: Option<Vec<u8>> = items
                .iter()
                .map(|x| x.as_u64().and_then(|u| u8::try_from(u).ok()))
                .collect();
            match bytes {
                Some(b) => Json::String(base64::engine::general_purpose::STANDARD.encode(b)),
                None => plain(v),
            }
        }
        (BaseType::Named(_), a, Value::Array(items)) if a != ArrayKind::Single => {
            let single = FieldType {
                base: ty.base.clone(),
                array: ArrayKind::Single,
            };
            Json::Array(
                items
                    .iter()
                    .map(|x| field_json(lookup, &single, x))
                    .collect(),
            )
        }
        _ => plain(v),
    }
}

fn float(x: f64) -> Json {
    Number::from_f64(x).map_or(Json::Null, Json::Number)
}

/// The value alone, with no definition to consult.
fn plain(v: &Value) -> Json {
    fn nums<T: Copy + Into<Json>>(xs: &[T]) -> Json {
        Json::Array(xs.iter().map(|&x| x.into()).collect())
    }
    match v {
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::UInt(u) => Json::from(*u),
        Value::Float(x) => float(*x),
        Value::String(s) => Json::String(s.clone()),
        Value::Bytes(b) => nums(b),
        Value::I8s(x) => nums(x),
        Value::I16s(x) => nums(x),
        Value::U16s(x) => nums(x),
        Value::I32s(x) => nums(x),
        Value::U32s(x) => nums(x),
        Value::I64s(x) => nums(x),
        Value::U64s(x) => nums(x),
        Value::F32s(x) => Json::Array(x.iter().map(|&f| float(f.into())).collect()),
        Value::F64s(x) => Json::Array(x.iter().map(|&f| float(f)).collect()),
        Value::Array(items) => Json::Array(items.iter().map(plain).collect()),
        Value::Message(s) => Json::Object(
            s.iter()
                .map(|(n, v)| (n.to_owned(), plain(v)))
                .collect::<Map<_, _>>(),
        ),
    }
}
