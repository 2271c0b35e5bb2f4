//! The [`Value`] tree: one ROS 2 message held without a generated Rust type.

use std::fmt;

/// A message, a field, or an array element, shaped by a `.msg` definition.
///
/// Decoding and [`default_value`](crate::default_value) produce the
/// *canonical* shape, which is also what [`from_json`](crate::from_json)
/// produces:
///
/// | `.msg` type | canonical `Value` |
/// |---|---|
/// | `bool` | `Bool` |
/// | `int8` … `int64` | `Int` |
/// | `uint8` … `uint64`, `byte`, `char` | `UInt` |
/// | `float32`, `float64` | `Float` (a `float32` holds the exact widened `f32`) |
/// | `string`, `string<=N` | `String` |
/// | a message type | `Message` |
/// | arrays of `uint8`, `byte`, `char` | `Bytes` |
/// | arrays of other numbers | the typed vector (`I8s` … `F64s`) |
/// | arrays of `bool`, strings, messages | `Array` |
///
/// Typed vectors keep big arrays flat: decoding a 1080p image is one copy of
/// its pixels, not six million `Value`s. Encoding is more forgiving than the
/// canonical shape: an `Array` of scalars is accepted for any array field,
/// `Int`/`UInt` are interchangeable where the number fits, and integers are
/// accepted for float fields.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    /// A signed integer field.
    Int(i64),
    /// An unsigned integer field, `byte` or `char`.
    UInt(u64),
    Float(f64),
    String(String),
    /// An array or sequence of `uint8`, `byte` or `char`.
    Bytes(Vec<u8>),
    I8s(Vec<i8>),
    I16s(Vec<i16>),
    U16s(Vec<u16>),
    I32s(Vec<i32>),
    U32s(Vec<u32>),
    I64s(Vec<i64>),
    U64s(Vec<u64>),
    F32s(Vec<f32>),
    F64s(Vec<f64>),
    /// An array of `bool`, strings or messages (or, on encode, of any scalar).
    Array(Vec<Value>),
    Message(Struct),
}

impl Value {
    /// A short name of the variant, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::Int(_) => "signed integer",
            Value::UInt(_) => "unsigned integer",
            Value::Float(_) => "float",
            Value::String(_) => "string",
            Value::Bytes(_) => "byte array",
            Value::I8s(_) => "int8 array",
            Value::I16s(_) => "int16 array",
            Value::U16s(_) => "uint16 array",
            Value::I32s(_) => "int32 array",
            Value::U32s(_) => "uint32 array",
            Value::I64s(_) => "int64 array",
            Value::U64s(_) => "uint64 array",
            Value::F32s(_) => "float32 array",
            Value::F64s(_) => "float64 array",
            Value::Array(_) => "array",
            Value::Message(_) => "message",
        }
    }

    /// The element count of an array value (`Bytes`, a typed vector or
    /// `Array`); `None` for a scalar or a message.
    pub fn array_len(&self) -> Option<usize> {
        Some(match self {
            Value::Bytes(x) => x.len(),
            Value::I8s(x) => x.len(),
            Value::I16s(x) => x.len(),
            Value::U16s(x) => x.len(),
            Value::I32s(x) => x.len(),
            Value::U32s(x) => x.len(),
            Value::I64s(x) => x.len(),
            Value::U64s(x) => x.len(),
            Value::F32s(x) => x.len(),
            Value::F64s(x) => x.len(),
            Value::Array(x) => x.len(),
            _ => return None,
        })
    }

    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The integer, if it is one and fits in `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            Value::UInt(u) => i64::try_from(u).ok(),
            _ => None,
        }
    }

    /// The integer, if it is one and fits in `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Int(i) => u64::try_from(i).ok(),
            Value::UInt(u) => Some(u),
            _ => None,
        }
    }

    /// The number as `f64` (integers are converted).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Float(f) => Some(f),
            Value::Int(i) => Some(i as f64),
            Value::UInt(u) => Some(u as f64),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_struct(&self) -> Option<&Struct> {
        match self {
            Value::Message(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_struct_mut(&mut self) -> Option<&mut Struct> {
        match self {
            Value::Message(s) => Some(s),
            _ => None,
        }
    }

    /// Follows a dotted path of field names (`"header.stamp.sec"`); array
    /// elements of `Array` values are addressed by number (`"points.3.x"`).
    pub fn get_path(&self, path: &str) -> Option<&Value> {
        path.split('.')
            .filter(|s| !s.is_empty())
            .try_fold(self, |v, seg| match v {
                Value::Message(s) => s.get(seg),
                Value::Array(items) => items.get(seg.parse::<usize>().ok()?),
                _ => None,
            })
    }

    /// Mutable [`get_path`](Value::get_path).
    pub fn get_path_mut(&mut self, path: &str) -> Option<&mut Value> {
        path.split('.')
            .filter(|s| !s.is_empty())
            .try_fold(self, |v, seg| match v {
                Value::Message(s) => s.get_mut(seg),
                Value::Array(items) => items.get_mut(seg.parse::<usize>().ok()?),
                _ => None,
            })
    }
}

/// A message's fields, in definition order.
///
/// Names are looked up linearly, which beats hashing for the handful of
/// fields real messages have.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Struct {
    fields: Vec<(String, Value)>,
}

impl Struct {
    /// An empty struct (the value of `std_msgs/msg/Empty`).
    pub fn new() -> Self {
        Struct::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        Struct {
            fields: Vec::with_capacity(n),
        }
    }

    /// Builder form of [`set`](Struct::set).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.set(name, value);
        self
    }

    /// Replaces the field's value, or appends the field if it is new.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<Value>) {
        let name = name.into();
        let value = value.into();
        match self.get_mut(&name) {
            Some(slot) => *slot = value,
            None => self.fields.push((name, value)),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        self.fields
            .iter_mut()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// The field at `index` (definition order), with its name.
    pub fn get_index(&self, index: usize) -> Option<(&str, &Value)> {
        self.fields.get(index).map(|(n, v)| (n.as_str(), v))
    }

    pub fn len(&self) -> usize {
        self.fields.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.fields.iter().map(|(n, v)| (n.as_str(), v))
    }

    pub fn into_fields(self) -> Vec<(String, Value)> {
        self.fields
    }

    /// Appends without checking for a duplicate name (decoders know better).
    pub(crate) fn push(&mut self, name: &str, value: Value) {
        self.fields.push((name.to_owned(), value));
    }
}

impl FromIterator<(String, Value)> for Struct {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut s = Struct::new();
        for (n, v) in iter {
            s.set(n, v);
        }
        s
    }
}

impl fmt::Display for Value {
    /// Compact JSON-like text, schema-free (byte arrays print as numbers).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
            f.write_str("[")?;
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            f.write_str("]")
        }
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::UInt(u) => write!(f, "{u}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Bytes(v) => list(f, v),
            Value::I8s(v) => list(f, v),
            Value::I16s(v) => list(f, v),
            Value::U16s(v) => list(f, v),
            Value::I32s(v) => list(f, v),
            Value::U32s(v) => list(f, v),
            Value::I64s(v) => list(f, v),
            Value::U64s(v) => list(f, v),
            Value::F32s(v) => list(f, v),
            Value::F64s(v) => list(f, v),
            Value::Array(v) => list(f, v),
            Value::Message(s) => {
                f.write_str("{")?;
                for (i, (n, v)) in s.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{n}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

macro_rules! from_impls {
    ($($t:ty => $variant:ident via $conv:ty),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::$variant(<$conv>::from(x))
            }
        }
    )*};
}

from_impls!(
    bool => Bool via bool,
    i8 => Int via i64, i16 => Int via i64, i32 => Int via i64, i64 => Int via i64,
    u8 => UInt via u64, u16 => UInt via u64, u32 => UInt via u64, u64 => UInt via u64,
    f32 => Float via f64, f64 => Float via f64,
    String => String via String, &str => String via String,
    Vec<u8> => Bytes via Vec<u8>, Vec<i8> => I8s via Vec<i8>,
    Vec<i16> => I16s via Vec<i16>, Vec<u16> => U16s via Vec<u16>,
    Vec<i32> => I32s via Vec<i32>, Vec<u32> => U32s via Vec<u32>,
    Vec<i64> => I64s via Vec<i64>, Vec<u64> => U64s via Vec<u64>,
    Vec<f32> => F32s via Vec<f32>, Vec<f64> => F64s via Vec<f64>,
    Vec<Value> => Array via Vec<Value>, Struct => Message via Struct,
);

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Value {
        let stamp = Struct::new().with("sec", 1).with("nanosec", 2u32);
        let pt = Struct::new().with("x", 1.5f32);
        Value::Message(
            Struct::new()
                .with("header", Struct::new().with("stamp", stamp))
                .with("pts", vec![Value::Message(pt)])
                .with("data", vec![1u8, 2]),
        )
    }

    #[test]
    fn get_path_follows_fields_and_array_indices() {
        let v = sample();
        assert_eq!(v.get_path("header.stamp.sec"), Some(&Value::Int(1)));
        assert_eq!(v.get_path("pts.0.x"), Some(&Value::Float(1.5)));
        assert_eq!(v.get_path("pts.1.x"), None);
        assert_eq!(v.get_path("data.0"), None, "typed vectors are leaves");
        assert_eq!(v.get_path(""), Some(&v));
    }

    #[test]
    fn set_replaces_an_existing_field_in_place_and_appends_a_new_one() {
        let mut s = Struct::new().with("a", 1).with("b", 2);
        s.set("a", 10);
        s.set("c", 3);
        let names: Vec<&str> = s.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(s.get("a"), Some(&Value::Int(10)));
    }

    #[test]
    fn integers_convert_only_when_they_fit() {
        assert_eq!(Value::UInt(u64::MAX).as_i64(), None);
        assert_eq!(Value::Int(-1).as_u64(), None);
        assert_eq!(Value::Int(7).as_u64(), Some(7));
        assert_eq!(Value::UInt(7).as_f64(), Some(7.0));
    }

    #[test]
    fn display_is_compact_and_json_like() {
        assert_eq!(
            sample().to_string(),
            "{header: {stamp: {sec: 1, nanosec: 2}}, pts: [{x: 1.5}], data: [1, 2]}"
        );
    }
}
