//! Parameter values: the nine ROS types and "not set", as
//! `rcl_interfaces/msg/ParameterValue` carries them.

use std::fmt;

use crate::msg::rcl_interfaces::msg::{ParameterType as TypeMsg, ParameterValue as ValueMsg};

/// The type of a parameter value (`rcl_interfaces/msg/ParameterType`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum ParameterType {
    /// No value: an undeclared or uninitialized parameter.
    #[default]
    NotSet = TypeMsg::PARAMETER_NOT_SET,
    /// `bool`.
    Bool = TypeMsg::PARAMETER_BOOL,
    /// `int64`.
    Integer = TypeMsg::PARAMETER_INTEGER,
    /// `float64`.
    Double = TypeMsg::PARAMETER_DOUBLE,
    /// `string`.
    String = TypeMsg::PARAMETER_STRING,
    /// `byte[]`.
    ByteArray = TypeMsg::PARAMETER_BYTE_ARRAY,
    /// `bool[]`.
    BoolArray = TypeMsg::PARAMETER_BOOL_ARRAY,
    /// `int64[]`.
    IntegerArray = TypeMsg::PARAMETER_INTEGER_ARRAY,
    /// `float64[]`.
    DoubleArray = TypeMsg::PARAMETER_DOUBLE_ARRAY,
    /// `string[]`.
    StringArray = TypeMsg::PARAMETER_STRING_ARRAY,
}

impl ParameterType {
    /// The type of a wire value; `None` for a number no ROS type has.
    pub fn from_u8(t: u8) -> Option<Self> {
        use ParameterType::*;
        [
            NotSet,
            Bool,
            Integer,
            Double,
            String,
            ByteArray,
            BoolArray,
            IntegerArray,
            DoubleArray,
            StringArray,
        ]
        .into_iter()
        .find(|k| *k as u8 == t)
    }

    /// The name rclpy prints (`Type.INTEGER`), used in refusal reasons.
    pub fn rclpy_name(self) -> &'static str {
        use ParameterType::*;
        match self {
            NotSet => "Type.NOT_SET",
            Bool => "Type.BOOL",
            Integer => "Type.INTEGER",
            Double => "Type.DOUBLE",
            String => "Type.STRING",
            ByteArray => "Type.BYTE_ARRAY",
            BoolArray => "Type.BOOL_ARRAY",
            IntegerArray => "Type.INTEGER_ARRAY",
            DoubleArray => "Type.DOUBLE_ARRAY",
            StringArray => "Type.STRING_ARRAY",
        }
    }
}

impl fmt::Display for ParameterType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rclpy_name())
    }
}

/// A parameter's value. A value of one type is never converted to another
/// (an integer is not a double), as in rclcpp and rclpy.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ParameterValue {
    /// No value.
    #[default]
    NotSet,
    /// `bool`.
    Bool(bool),
    /// `int64`.
    Integer(i64),
    /// `float64`.
    Double(f64),
    /// `string`.
    String(String),
    /// `byte[]`.
    ByteArray(Vec<u8>),
    /// `bool[]`.
    BoolArray(Vec<bool>),
    /// `int64[]`.
    IntegerArray(Vec<i64>),
    /// `float64[]`.
    DoubleArray(Vec<f64>),
    /// `string[]`.
    StringArray(Vec<String>),
}

impl ParameterValue {
    /// The value's type.
    pub fn parameter_type(&self) -> ParameterType {
        match self {
            ParameterValue::NotSet => ParameterType::NotSet,
            ParameterValue::Bool(_) => ParameterType::Bool,
            ParameterValue::Integer(_) => ParameterType::Integer,
            ParameterValue::Double(_) => ParameterType::Double,
            ParameterValue::String(_) => ParameterType::String,
            ParameterValue::ByteArray(_) => ParameterType::ByteArray,
            ParameterValue::BoolArray(_) => ParameterType::BoolArray,
            ParameterValue::IntegerArray(_) => ParameterType::IntegerArray,
            ParameterValue::DoubleArray(_) => ParameterType::DoubleArray,
            ParameterValue::StringArray(_) => ParameterType::StringArray,
        }
    }

    /// The value as a message. Only the field of its type is filled.
    pub fn to_msg(&self) -> ValueMsg {
        let mut m = ValueMsg {
            r#type: self.parameter_type() as u8,
            ..ValueMsg::default()
        };
        match self.clone() {
            ParameterValue::NotSet => {}
            ParameterValue::Bool(v) => m.bool_value = v,
            ParameterValue::Integer(v) => m.integer_value = v,
            ParameterValue::Double(v) => m.double_value = v,
            ParameterValue::String(v) => m.string_value = v,
            ParameterValue::ByteArray(v) => m.byte_array_value = v,
            ParameterValue::BoolArray(v) => m.bool_array_value = v,
            ParameterValue::IntegerArray(v) => m.integer_array_value = v,
            ParameterValue::DoubleArray(v) => m.double_array_value = v,
            ParameterValue::StringArray(v) => m.string_array_value = v,
        }
        m
    }

    /// The value a message carries: the field its `type` names (an unknown
    /// type reads as not set, as rclpy and rclcpp read it).
    pub fn from_msg(m: ValueMsg) -> Self {
        match ParameterType::from_u8(m.r#type) {
            None | Some(ParameterType::NotSet) => ParameterValue::NotSet,
            Some(ParameterType::Bool) => ParameterValue::Bool(m.bool_value),
            Some(ParameterType::Integer) => ParameterValue::Integer(m.integer_value),
            Some(ParameterType::Double) => ParameterValue::Double(m.double_value),
            Some(ParameterType::String) => ParameterValue::String(m.string_value),
            Some(ParameterType::ByteArray) => ParameterValue::ByteArray(m.byte_array_value),
            Some(ParameterType::BoolArray) => ParameterValue::BoolArray(m.bool_array_value),
            Some(ParameterType::IntegerArray) => {
                ParameterValue::IntegerArray(m.integer_array_value)
            }
            Some(ParameterType::DoubleArray) => ParameterValue::DoubleArray(m.double_array_value),
            Some(ParameterType::StringArray) => ParameterValue::StringArray(m.string_array_value),
        }
    }

    /// The `bool`, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ParameterValue::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// The `int64`, if it is one.
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            ParameterValue::Integer(v) => Some(*v),
            _ => None,
        }
    }

    /// The `float64`, if it is one.
    pub fn as_double(&self) -> Option<f64> {
        match self {
            ParameterValue::Double(v) => Some(*v),
            _ => None,
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParameterValue::String(v) => Some(v),
            _ => None,
        }
    }
}

/// As YAML writes it (`ros2 param get` style): `true`, `3`, `2.5`, `hello`,
/// `[1, 2]`.
impl fmt::Display for ParameterValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T: fmt::Debug>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
            f.write_str("[")?;
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{v:?}")?;
            }
            f.write_str("]")
        }
        match self {
            ParameterValue::NotSet => f.write_str("not set"),
            ParameterValue::Bool(v) => write!(f, "{v}"),
            ParameterValue::Integer(v) => write!(f, "{v}"),
            ParameterValue::Double(v) => write!(f, "{v:?}"),
            ParameterValue::String(v) => f.write_str(v),
            ParameterValue::ByteArray(v) => list(f, v),
            ParameterValue::BoolArray(v) => list(f, v),
            ParameterValue::IntegerArray(v) => list(f, v),
            ParameterValue::DoubleArray(v) => list(f, v),
            ParameterValue::StringArray(v) => list(f, v),
        }
    }
}

macro_rules! from_impls {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl From<$t> for ParameterValue {
            fn from(v: $t) -> Self {
                ParameterValue::$variant(v.into())
            }
        }
    )*};
}

from_impls! {
    bool => Bool,
    i64 => Integer,
    i32 => Integer,
    f64 => Double,
    String => String,
    &str => String,
    Vec<u8> => ByteArray,
    Vec<bool> => BoolArray,
    Vec<i64> => IntegerArray,
    Vec<f64> => DoubleArray,
    Vec<String> => StringArray,
}

impl From<Vec<&str>> for ParameterValue {
    fn from(v: Vec<&str>) -> Self {
        ParameterValue::StringArray(v.into_iter().map(String::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_round_trips_through_its_message() {
        for v in [
            ParameterValue::NotSet,
            true.into(),
            (-7i64).into(),
            2.5.into(),
            "hi".into(),
            vec![1u8, 2].into(),
            vec![true].into(),
            vec![1i64, 2].into(),
            vec![0.5].into(),
            vec!["a", "b"].into(),
        ] {
            let m = v.to_msg();
            assert_eq!(m.r#type, v.parameter_type() as u8);
            assert_eq!(ParameterValue::from_msg(m), v);
        }
    }

    #[test]
    fn an_unknown_wire_type_reads_as_not_set() {
        let m = ValueMsg {
            r#type: 42,
            integer_value: 3,
            ..ValueMsg::default()
        };
        assert_eq!(ParameterValue::from_msg(m), ParameterValue::NotSet);
        assert_eq!(ParameterType::from_u8(42), None);
    }

    #[test]
    fn values_print_as_yaml_does() {
        assert_eq!(ParameterValue::from(3i64).to_string(), "3");
        assert_eq!(ParameterValue::from(3.0).to_string(), "3.0");
        assert_eq!(ParameterValue::from(vec![1i64, 2]).to_string(), "[1, 2]");
        assert_eq!(ParameterType::Integer.to_string(), "Type.INTEGER");
    }
}
