//! What a parameter is allowed to be: its descriptor
//! (`rcl_interfaces/msg/ParameterDescriptor`) and the checks a new value
//! passes before it is set, with rclpy's refusal reasons.

use crate::msg::rcl_interfaces::msg::{
    FloatingPointRange as FloatRangeMsg, IntegerRange as IntRangeMsg,
    ParameterDescriptor as DescriptorMsg,
};

use super::value::{ParameterType, ParameterValue};

/// The relative tolerance of floating-point range and step checks (rclpy's
/// `PARAM_REL_TOL`).
const REL_TOL: f64 = 1e-6;

/// An inclusive integer range; `step` 0 allows every value in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntegerRange {
    /// One end.
    pub from_value: i64,
    /// The other end.
    pub to_value: i64,
    /// Allowed values are `from_value + k * step`; 0 for any.
    pub step: u64,
}

/// An inclusive floating-point range; `step` 0.0 allows every value in it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FloatingPointRange {
    /// One end.
    pub from_value: f64,
    /// The other end.
    pub to_value: f64,
    /// Allowed values are close to `from_value + k * step`; 0.0 for any.
    pub step: f64,
}

/// How a parameter is described to tools and what values it accepts.
///
/// Its type is fixed by the value it is declared with unless
/// `dynamic_typing` is set; `read_only` refuses every change after the
/// declaration; a range bounds integers or doubles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParameterDescriptor {
    /// The parameter's name (filled in by the node).
    pub name: String,
    /// The parameter's type (filled in by the node).
    pub parameter_type: ParameterType,
    /// What it is for.
    pub description: String,
    /// Constraints in words, for people.
    pub additional_constraints: String,
    /// Refuse every set after the declaration.
    pub read_only: bool,
    /// Accept a value of any type.
    pub dynamic_typing: bool,
    /// Bounds for a double.
    pub floating_point_range: Option<FloatingPointRange>,
    /// Bounds for an integer.
    pub integer_range: Option<IntegerRange>,
}

impl ParameterDescriptor {
    /// A descriptor with a description.
    pub fn new(description: impl Into<String>) -> Self {
        ParameterDescriptor {
            description: description.into(),
            ..Self::default()
        }
    }

    /// The descriptor as a message.
    pub fn to_msg(&self) -> DescriptorMsg {
        DescriptorMsg {
            name: self.name.clone(),
            r#type: self.parameter_type as u8,
            description: self.description.clone(),
            additional_constraints: self.additional_constraints.clone(),
            read_only: self.read_only,
            dynamic_typing: self.dynamic_typing,
            floating_point_range: self
                .floating_point_range
                .iter()
                .map(|r| FloatRangeMsg {
                    from_value: r.from_value,
                    to_value: r.to_value,
                    step: r.step,
                })
                .collect(),
            integer_range: self
                .integer_range
                .iter()
                .map(|r| IntRangeMsg {
                    from_value: r.from_value,
                    to_value: r.to_value,
                    step: r.step,
                })
                .collect(),
        }
    }

    /// A descriptor from its message (an unknown type reads as not set).
    pub fn from_msg(m: DescriptorMsg) -> Self {
        ParameterDescriptor {
            name: m.name,
            parameter_type: ParameterType::from_u8(m.r#type).unwrap_or_default(),
            description: m.description,
            additional_constraints: m.additional_constraints,
            read_only: m.read_only,
            dynamic_typing: m.dynamic_typing,
            floating_point_range: m.floating_point_range.first().map(|r| FloatingPointRange {
                from_value: r.from_value,
                to_value: r.to_value,
                step: r.step,
            }),
            integer_range: m.integer_range.first().map(|r| IntegerRange {
                from_value: r.from_value,
                to_value: r.to_value,
                step: r.step,
            }),
        }
    }

    /// Whether `value` may be set under this descriptor: its type (unless
    /// dynamically typed) and its range. `Err` holds rclpy's reason.
    /// Read-only and undeclaring are the store's checks.
    pub(crate) fn admits(&self, name: &str, value: &ParameterValue) -> Result<(), String> {
        if !self.admits_type(value) {
            return Err(format!(
                "Wrong parameter type, expected '{}' got '{}'",
                self.parameter_type,
                value.parameter_type()
            ));
        }
        match (value, &self.integer_range, &self.floating_point_range) {
            (ParameterValue::Integer(v), Some(r), _) => integer_in_range(name, *v, r),
            (ParameterValue::Double(v), _, Some(r)) => double_in_range(name, *v, r),
            _ => Ok(()),
        }
    }
}

impl ParameterDescriptor {
    /// Whether `value`'s type may be set: any when dynamically typed, else
    /// the declared one (or not set).
    pub(crate) fn admits_type(&self, value: &ParameterValue) -> bool {
        let t = value.parameter_type();
        self.dynamic_typing || t == ParameterType::NotSet || t == self.parameter_type
    }
}

fn integer_in_range(name: &str, v: i64, r: &IntegerRange) -> Result<(), String> {
    let (min, max) = (r.from_value.min(r.to_value), r.from_value.max(r.to_value));
    if v == min || v == max {
        return Ok(());
    }
    if !(min < v && v < max) {
        return Err(format!(
            "Parameter {name} out of range. Min: {min}, Max: {max}, value: {v}"
        ));
    }
    // min < v < max, so the difference is positive and fits in a u64.
    let offset = v.abs_diff(min);
    if r.step != 0 && offset % r.step != 0 {
        return Err(format!(
            "The parameter value for {name} is not a valid step. \
             Min: {min}, max: {max}, value: {v}, step: {}",
            r.step
        ));
    }
    Ok(())
}

fn is_close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= REL_TOL * a.abs().max(b.abs())
}

fn double_in_range(name: &str, v: f64, r: &FloatingPointRange) -> Result<(), String> {
    let (min, max) = (r.from_value.min(r.to_value), r.from_value.max(r.to_value));
    if is_close(v, min) || is_close(v, max) {
        return Ok(());
    }
    if !(min < v && v < max) {
        return Err(format!(
            "Parameter {name} out of range Min: {min:?}, Max: {max:?}, value: {v:?}"
        ));
    }
    if r.step != 0.0 {
        let steps = ((v - min) / r.step).round();
        if !is_close(min + steps * r.step, v) {
            return Err(format!(
                "The parameter value for {name} is not close enough to a valid step. \
                 Min: {min:?}, max: {max:?}, value: {v:?}, step: {:?}",
                r.step
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(t: ParameterType) -> ParameterDescriptor {
        ParameterDescriptor {
            parameter_type: t,
            ..ParameterDescriptor::default()
        }
    }

    #[test]
    fn an_integer_is_not_a_double_unless_typing_is_dynamic() {
        let d = typed(ParameterType::Double);
        let e = d.admits("gain", &3i64.into()).unwrap_err();
        assert_eq!(
            e,
            "Wrong parameter type, expected 'Type.DOUBLE' got 'Type.INTEGER'"
        );
        assert!(d.admits("gain", &3.0.into()).is_ok());
        let dynamic = ParameterDescriptor {
            dynamic_typing: true,
            ..d
        };
        assert!(dynamic.admits("gain", &"x".into()).is_ok());
    }

    #[test]
    fn integer_ranges_admit_their_ends_and_their_steps_only() {
        let d = ParameterDescriptor {
            parameter_type: ParameterType::Integer,
            integer_range: Some(IntegerRange {
                from_value: 10,
                to_value: 0,
                step: 3,
            }),
            ..ParameterDescriptor::default()
        };
        for ok in [0i64, 3, 9, 10] {
            assert!(d.admits("n", &ok.into()).is_ok(), "{ok}");
        }
        let e = d.admits("n", &11i64.into()).unwrap_err();
        assert_eq!(e, "Parameter n out of range. Min: 0, Max: 10, value: 11");
        assert!(d
            .admits("n", &4i64.into())
            .unwrap_err()
            .contains("valid step"));
        assert!(d.admits("n", &i64::MIN.into()).is_err());
    }

    #[test]
    fn double_ranges_compare_with_a_relative_tolerance() {
        let d = ParameterDescriptor {
            parameter_type: ParameterType::Double,
            floating_point_range: Some(FloatingPointRange {
                from_value: 0.0,
                to_value: 1.0,
                step: 0.1,
            }),
            ..ParameterDescriptor::default()
        };
        assert!(d.admits("x", &0.3.into()).is_ok());
        assert!(d.admits("x", &1.0000000001.into()).is_ok());
        assert!(d
            .admits("x", &0.35.into())
            .unwrap_err()
            .contains("close enough"));
        assert!(d
            .admits("x", &1.5.into())
            .unwrap_err()
            .contains("out of range"));
        assert!(d.admits("x", &f64::NAN.into()).is_err());
    }

    #[test]
    fn a_descriptor_round_trips_through_its_message() {
        let d = ParameterDescriptor {
            name: "a".into(),
            parameter_type: ParameterType::Integer,
            description: "d".into(),
            additional_constraints: "c".into(),
            read_only: true,
            dynamic_typing: false,
            floating_point_range: None,
            integer_range: Some(IntegerRange {
                from_value: 1,
                to_value: 2,
                step: 1,
            }),
        };
        assert_eq!(ParameterDescriptor::from_msg(d.to_msg()), d);
    }
}
