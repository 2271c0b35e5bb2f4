//! rosbridge JSON → [`Value`] (the rules are in the parent module's docs).

use base64::Engine as _;
use hibari_cdr::MAX_DEPTH;
use hibari_idl::model::{ArrayKind, BaseType, FieldType, MessageDef, Primitive as Prim, TypeName};
use serde_json::Value as Json;

use crate::defaults::default_field;
use crate::error::{AtPath, DynamicJsonError, FieldPath};
use crate::lookup::TypeLookup;
use crate::schema::{float_for, float_overflows, int_scalar, is_byte_like, type_label};
use crate::value::{Struct, Value};

type Result<T> = std::result::Result<T, DynamicJsonError>;

/// How [`from_json_with`] fills what the JSON leaves to the bridge.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct FromJsonOptions {
    /// The clock reading (`sec`, `nanosec`) that `"now"` stands for.
    pub now: Option<(i32, u32)>,
}

impl FromJsonOptions {
    /// Lets a Time be given as `"now"`, and fills the stamp of any
    /// `std_msgs/Header` object that has none, as rosbridge does.
    pub fn with_now(mut self, sec: i32, nanosec: u32) -> Self {
        self.now = Some((sec, nanosec));
        self
    }
}

/// Reads rosbridge JSON as a canonical [`Value`] of type `ty`.
pub fn from_json<L: TypeLookup + ?Sized>(lookup: &L, ty: &TypeName, json: &Json) -> Result<Value> {
    from_json_with(lookup, ty, json, &FromJsonOptions::default())
}

/// Parses JSON text (nesting at most 128 levels) and reads it as `ty`.
pub fn from_json_str<L: TypeLookup + ?Sized>(
    lookup: &L,
    ty: &TypeName,
    text: &str,
) -> Result<Value> {
    let json: Json = serde_json::from_str(text)?;
    from_json(lookup, ty, &json)
}

/// [`from_json`] with a clock reading for `"now"` and omitted Header stamps.
pub fn from_json_with<L: TypeLookup + ?Sized>(
    lookup: &L,
    ty: &TypeName,
    json: &Json,
    options: &FromJsonOptions,
) -> Result<Value> {
    let def = find(lookup, ty)?;
    let reader = Reader { lookup, options };
    reader.message(def, json, 0).map(Value::Message)
}

fn find<'l, L: TypeLookup + ?Sized>(lookup: &'l L, ty: &TypeName) -> Result<&'l MessageDef> {
    lookup
        .message(ty)
        .ok_or_else(|| DynamicJsonError::UnknownType {
            path: FieldPath::root(),
            name: ty.clone(),
        })
}

fn kind(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "bool",
        Json::Number(n) if n.is_f64() => "float",
        Json::Number(_) => "integer",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

fn mismatch(expected: impl Into<String>, got: &Json) -> DynamicJsonError {
    DynamicJsonError::TypeMismatch {
        path: FieldPath::root(),
        expected: expected.into(),
        got: kind(got),
    }
}

fn is(def: &MessageDef, package: &str, name: &str) -> bool {
    def.name.package == package && def.name.name == name
}

/// ROS 1 spellings rosbridge accepts for Time/Duration fields.
fn alias(def: &MessageDef, field: &str) -> Option<&'static str> {
    if !(is(def, "builtin_interfaces", "Time") || is(def, "builtin_interfaces", "Duration")) {
        return None;
    }
    match field {
        "sec" => Some("secs"),
        "nanosec" => Some("nsecs"),
        _ => None,
    }
}

struct Reader<'a, L: ?Sized> {
    lookup: &'a L,
    options: &'a FromJsonOptions,
}

impl<L: TypeLookup + ?Sized> Reader<'_, L> {
    fn now(&self) -> Result<Struct> {
        let (sec, nanosec) = self.options.now.ok_or(DynamicJsonError::NowUnavailable {
            path: FieldPath::root(),
        })?;
        Ok(Struct::new().with("sec", sec).with("nanosec", nanosec))
    }

    fn message(&self, def: &MessageDef, json: &Json, depth: usize) -> Result<Struct> {
        if depth > MAX_DEPTH {
            return Err(DynamicJsonError::TooDeep {
                path: FieldPath::root(),
                limit: MAX_DEPTH,
            });
        }
        if json.as_str() == Some("now") && is(def, "builtin_interfaces", "Time") {
            return self.now();
        }
        let Json::Object(obj) = json else {
            return Err(mismatch(format!("object ({})", def.name), json));
        };
        for key in obj.keys() {
            let known = def
                .fields
                .iter()
                .any(|f| f.name == *key || alias(def, &f.name) == Some(key.as_str()));
            if !known {
                return Err(DynamicJsonError::UnknownField {
                    path: FieldPath::root(),
                    ty: def.name.clone(),
                })
                .at_field(key);
            }
        }
        let header = is(def, "std_msgs", "Header");
        let mut s = Struct::with_capacity(def.fields.len());
        for field in &def.fields {
            // As encode and decode: no single ROS 2 encoding (interop.md §1.4),
            // so a value holding one could not be encoded.
            if let BaseType::WString { .. } = field.ty.base {
                return Err(DynamicJsonError::WStringUnsupported {
                    path: FieldPath::root(),
                })
                .at_field(&field.name);
            }
            let given = obj
                .get(&field.name)
                .or_else(|| alias(def, &field.name).and_then(|a| obj.get(a)));
            let v = match given {
                Some(j) => self.field(&field.ty, j, depth),
                None if header && field.name == "stamp" && self.options.now.is_some() => {
                    self.now().map(Value::Message)
                }
                None => default_field(self.lookup, field, depth).map_err(Into::into),
            };
            s.push(&field.name, v.at_field(&field.name)?);
        }
        Ok(s)
    }

    fn field(&self, ty: &FieldType, json: &Json, depth: usize) -> Result<Value> {
        let (fixed, bound) = match ty.array {
            ArrayKind::Single => return self.single(&ty.base, json, depth),
            ArrayKind::Fixed(n) => (Some(n as usize), None),
            ArrayKind::Bounded(b) => (None, Some(b as usize)),
            ArrayKind::Unbounded => (None, None),
        };
        let value = match (&ty.base, json) {
            (BaseType::Primitive(p), Json::String(text)) if is_byte_like(*p) => Value::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| DynamicJsonError::InvalidBase64 {
                        path: FieldPath::root(),
                        reason: e.to_string(),
                    })?,
            ),
            (base, Json::Array(items)) => {
                check_len(items.len(), fixed, bound)?;
                match base {
                    BaseType::Primitive(p) => prim_array(*p, items)?,
                    _ => Value::Array(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, j)| self.single(base, j, depth).at_index(i))
                            .collect::<Result<_>>()?,
                    ),
                }
            }
            _ => return Err(mismatch(format!("array ({})", type_label(ty)), json)),
        };
        if let Value::Bytes(b) = &value {
            check_len(b.len(), fixed, bound)?;
        }
        Ok(value)
    }

    fn single(&self, base: &BaseType, json: &Json, depth: usize) -> Result<Value> {
        match base {
            BaseType::Primitive(p) => scalar(*p, json),
            BaseType::String { bound } | BaseType::WString { bound } => {
                let Json::String(s) = json else {
                    return Err(mismatch("string", json));
                };
                let len = match base {
                    BaseType::WString { .. } => s.chars().count(),
                    _ => s.len(),
                };
                if let Some(b) = bound {
                    check_len(len, None, Some(*b as usize))?;
                }
                if s.contains('\0') {
                    return Err(DynamicJsonError::NulInString {
                        path: FieldPath::root(),
                    });
                }
                Ok(Value::String(s.clone()))
            }
            BaseType::Named(name) => {
                let def = find(self.lookup, name)?;
                self.message(def, json, depth + 1).map(Value::Message)
            }
        }
    }
}

fn check_len(len: usize, fixed: Option<usize>, bound: Option<usize>) -> Result<()> {
    match (fixed, bound) {
        (Some(expected), _) if len != expected => Err(DynamicJsonError::FixedLengthMismatch {
            path: FieldPath::root(),
            len,
            expected,
        }),
        (_, Some(bound)) if len > bound => Err(DynamicJsonError::BoundExceeded {
            path: FieldPath::root(),
            len,
            bound,
        }),
        _ => Ok(()),
    }
}

/// Converts each element straight into the typed vector (no `Value` per element).
fn prim_array(p: Prim, items: &[Json]) -> Result<Value> {
    macro_rules! typed {
        ($variant:ident, $t:ty, $conv:ident) => {
            Value::$variant(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, j)| $conv(p, j).map(|x| x as $t).at_index(i))
                    .collect::<Result<_>>()?,
            )
        };
    }
    Ok(match p {
        Prim::Bool => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, j)| scalar(p, j).at_index(i))
                .collect::<Result<_>>()?,
        ),
        Prim::Byte | Prim::Char | Prim::UInt8 => typed!(Bytes, u8, int),
        Prim::Int8 => typed!(I8s, i8, int),
        Prim::Int16 => typed!(I16s, i16, int),
        Prim::UInt16 => typed!(U16s, u16, int),
        Prim::Int32 => typed!(I32s, i32, int),
        Prim::UInt32 => typed!(U32s, u32, int),
        Prim::Int64 => typed!(I64s, i64, int),
        Prim::UInt64 => typed!(U64s, u64, int),
        Prim::Float32 => typed!(F32s, f32, float),
        Prim::Float64 => typed!(F64s, f64, float),
    })
}

fn scalar(p: Prim, json: &Json) -> Result<Value> {
    match p {
        Prim::Bool => json
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| mismatch("bool", json)),
        Prim::Float32 | Prim::Float64 => float(p, json).map(Value::Float),
        _ => {
            let i = int(p, json)?;
            // `int` checked the range.
            Ok(int_scalar(p, i).unwrap_or(Value::Int(0)))
        }
    }
}

/// An integer JSON number, range-checked for `p`.
fn int(p: Prim, json: &Json) -> Result<i128> {
    let Json::Number(n) = json else {
        return Err(mismatch("integer", json));
    };
    let out_of_range = |value: String| DynamicJsonError::OutOfRange {
        path: FieldPath::root(),
        value,
        ty: p.msg_name(),
    };
    let i = match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => i128::from(i),
        (_, Some(u), _) => i128::from(u),
        // Integer literals beyond 64 bits arrive as floats.
        (_, _, Some(x)) if x.fract() == 0.0 && x.abs() >= 9.2e18 => {
            return Err(out_of_range(n.to_string()))
        }
        _ => return Err(mismatch("integer", json)),
    };
    match p.int_range() {
        Some((lo, hi)) if (lo..=hi).contains(&i) => Ok(i),
        _ => Err(out_of_range(i.to_string())),
    }
}

/// A float from a JSON number (integers included) or `null` (NaN).
fn float(p: Prim, json: &Json) -> Result<f64> {
    let x = match json {
        Json::Null => f64::NAN,
        Json::Number(n) => n.as_f64().ok_or_else(|| mismatch("number", json))?,
        _ => return Err(mismatch("number", json)),
    };
    if float_overflows(p, x) {
        return Err(DynamicJsonError::OutOfRange {
            path: FieldPath::root(),
            value: json.to_string(),
            ty: p.msg_name(),
        });
    }
    Ok(float_for(p, x))
}
