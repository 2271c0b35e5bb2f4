//! Random values of several definitions: encode → decode and to_json →
//! from_json are the identity, and `encoded_size` is exact.

mod common;

use common::{defs, ty, Defs};
use hibari_dynamic::{decode, encode, encoded_size, from_json_str, to_json_string, Value};
use hibari_idl::model::{ArrayKind, BaseType, FieldType, Primitive as Prim, TypeName};
use proptest::collection::vec;
use proptest::prelude::*;

const TYPES: &[&str] = &[
    "test_msgs/msg/Layout",
    "test_msgs/msg/Primitives",
    "test_msgs/msg/Arrays",
    "test_msgs/msg/Tree",
    "sensor_msgs/msg/LaserScan",
    "sensor_msgs/msg/PointCloud2",
    "sensor_msgs/msg/Imu",
    "std_msgs/msg/Empty",
];

/// Floats without NaN (which is not equal to itself); `finite` also drops
/// the infinities, which JSON turns into `null` and back into NaN.
fn f64s(finite: bool) -> BoxedStrategy<f64> {
    use prop::num::f64::*;
    if finite {
        (NORMAL | SUBNORMAL | ZERO).boxed()
    } else {
        (NORMAL | SUBNORMAL | ZERO | INFINITE).boxed()
    }
}

fn f32s(finite: bool) -> BoxedStrategy<f32> {
    use prop::num::f32::*;
    if finite {
        (NORMAL | SUBNORMAL | ZERO).boxed()
    } else {
        (NORMAL | SUBNORMAL | ZERO | INFINITE).boxed()
    }
}

/// Canonical random values of `name`, nesting recursive types at most 3 deep.
fn arb_message(defs: &Defs, name: &TypeName, finite: bool, depth: usize) -> BoxedStrategy<Value> {
    let def = defs.message(name).expect("known type");
    let names: Vec<String> = def.fields.iter().map(|f| f.name.clone()).collect();
    let fields: Vec<BoxedStrategy<Value>> = def
        .fields
        .iter()
        .map(|f| arb_field(defs, &f.ty, finite, depth))
        .collect();
    fields
        .prop_map(move |vals| Value::Message(names.iter().cloned().zip(vals).collect()))
        .boxed()
}

fn arb_field(defs: &Defs, ty: &FieldType, finite: bool, depth: usize) -> BoxedStrategy<Value> {
    let len = match ty.array {
        ArrayKind::Single => return arb_single(defs, &ty.base, finite, depth),
        ArrayKind::Fixed(n) => n as usize..=n as usize,
        ArrayKind::Bounded(b) => 0..=b as usize,
        ArrayKind::Unbounded => 0..=6,
    };
    if matches!(ty.base, BaseType::Named(_)) && depth >= 3 {
        return Just(Value::Array(Vec::new())).boxed();
    }
    macro_rules! typed {
        ($variant:ident, $elem:expr) => {
            vec($elem, len).prop_map(Value::$variant).boxed()
        };
    }
    match &ty.base {
        BaseType::Primitive(p) => match p {
            Prim::Byte | Prim::Char | Prim::UInt8 => typed!(Bytes, any::<u8>()),
            Prim::Int8 => typed!(I8s, any::<i8>()),
            Prim::Int16 => typed!(I16s, any::<i16>()),
            Prim::UInt16 => typed!(U16s, any::<u16>()),
            Prim::Int32 => typed!(I32s, any::<i32>()),
            Prim::UInt32 => typed!(U32s, any::<u32>()),
            Prim::Int64 => typed!(I64s, any::<i64>()),
            Prim::UInt64 => typed!(U64s, any::<u64>()),
            Prim::Float32 => typed!(F32s, f32s(finite)),
            Prim::Float64 => typed!(F64s, f64s(finite)),
            Prim::Bool => typed!(Array, any::<bool>().prop_map(Value::Bool)),
        },
        base => typed!(Array, arb_single(defs, base, finite, depth)),
    }
}

fn arb_single(defs: &Defs, base: &BaseType, finite: bool, depth: usize) -> BoxedStrategy<Value> {
    match base {
        BaseType::Primitive(p) => match p {
            Prim::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
            Prim::Byte | Prim::Char | Prim::UInt8 => any::<u8>().prop_map(Value::from).boxed(),
            Prim::Int8 => any::<i8>().prop_map(Value::from).boxed(),
            Prim::Int16 => any::<i16>().prop_map(Value::from).boxed(),
            Prim::UInt16 => any::<u16>().prop_map(Value::from).boxed(),
            Prim::Int32 => any::<i32>().prop_map(Value::from).boxed(),
            Prim::UInt32 => any::<u32>().prop_map(Value::from).boxed(),
            Prim::Int64 => any::<i64>().prop_map(Value::from).boxed(),
            Prim::UInt64 => any::<u64>().prop_map(Value::from).boxed(),
            Prim::Float32 => f32s(finite).prop_map(Value::from).boxed(),
            Prim::Float64 => f64s(finite).prop_map(Value::from).boxed(),
        },
        BaseType::String { bound: Some(b) } => {
            proptest::string::string_regex(&format!("[a-z0-9 ]{{0,{b}}}"))
                .unwrap()
                .prop_map(Value::String)
                .boxed()
        }
        BaseType::String { bound: None } => "[^\u{0}]{0,12}".prop_map(Value::String).boxed(),
        BaseType::WString { .. } => unreachable!("no wstring in the round-trip types"),
        BaseType::Named(name) => arb_message(defs, name, finite, depth + 1),
    }
}

fn arb_typed_value(finite: bool) -> impl Strategy<Value = (&'static str, Value)> {
    let defs = defs();
    let per_type: Vec<BoxedStrategy<(&'static str, Value)>> = TYPES
        .iter()
        .map(|&name| {
            arb_message(&defs, &ty(name), finite, 0)
                .prop_map(move |v| (name, v))
                .boxed()
        })
        .collect();
    proptest::strategy::Union::new(per_type)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_values_encode_then_decode_to_themselves((name, value) in arb_typed_value(false)) {
        let defs = defs();
        let t = ty(name);
        let bytes = encode(&defs, &t, &value).unwrap();
        prop_assert_eq!(encoded_size(&defs, &t, &value).unwrap(), bytes.len());
        prop_assert_eq!(decode(&defs, &t, &bytes).unwrap(), value);
    }

    #[test]
    fn random_values_survive_json_text_unchanged((name, value) in arb_typed_value(true)) {
        let defs = defs();
        let t = ty(name);
        let text = to_json_string(&defs, &t, &value);
        prop_assert_eq!(from_json_str(&defs, &t, &text).unwrap(), value);
    }
}
