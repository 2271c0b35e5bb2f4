//! Parameters: named, typed values a node declares, that its own code and
//! other processes read and set, as in rclcpp and rclpy.
//!
//! A node declares each parameter with a default and, optionally, a
//! [`ParameterDescriptor`] (description, read-only, dynamic typing, ranges).
//! The value it gets is the default unless an override names it: the
//! node's options first, then `--ros-args -p name:=value` and
//! `--params-file file.yaml` in the order given (a later one wins). A
//! statically typed parameter keeps its type: an integer is not accepted
//! where a double was declared.
//!
//! A set runs, in order: the pre-set callbacks (which may change the list),
//! the checks of each parameter's descriptor (type, range, read-only), the
//! on-set callbacks (which may refuse it with a reason), then stores the
//! values, publishes a `rcl_interfaces/msg/ParameterEvent` on
//! `/parameter_events` and runs the post-set callbacks. A refused set
//! changes nothing and says why in its [`SetParametersResult`].
//!
//! Unless its [`NodeOptions`](crate::NodeOptions) say otherwise, a node
//! serves the six parameter services under its name
//! (`~/get_parameters`, `~/set_parameters`, …) with the `rcl_interfaces`
//! types, so `ros2 param`, rclpy's `AsyncParameterClient` and hibari's
//! [`ParameterClient`] read and set its parameters from other processes,
//! over shared memory or DDS. The services answer while an executor spins
//! the node.

use thiserror::Error;

mod callbacks;
mod client;
mod descriptor;
mod node_api;
pub(crate) mod overrides;
mod services;
pub(crate) mod store;
mod value;
mod yaml;

pub use callbacks::ParameterCallbackHandle;
pub use client::{ParameterClient, ParameterClientError};
pub use descriptor::{FloatingPointRange, IntegerRange, ParameterDescriptor};
pub use node_api::DEPTH_RECURSIVE;
pub use overrides::{parameters_from_file, ParameterOverrideError};
pub use services::ParameterServicesError;
pub(crate) use services::{start_events, start_services};
pub use store::ParameterOverrides;
pub use value::{ParameterType, ParameterValue};
pub use yaml::ParameterValueParseError;

#[cfg(test)]
mod overrides_tests;
#[cfg(test)]
mod store_tests;

/// A name and a value.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// The parameter's name (`a.b.c`; the dots make its prefixes).
    pub name: String,
    /// Its value.
    pub value: ParameterValue,
}

impl Parameter {
    /// A parameter from anything that converts into a value.
    pub fn new(name: impl Into<String>, value: impl Into<ParameterValue>) -> Self {
        Parameter {
            name: name.into(),
            value: value.into(),
        }
    }

    pub(crate) fn to_msg(&self) -> crate::msg::rcl_interfaces::msg::Parameter {
        crate::msg::rcl_interfaces::msg::Parameter {
            name: self.name.clone(),
            value: self.value.to_msg(),
        }
    }

    pub(crate) fn from_msg(m: crate::msg::rcl_interfaces::msg::Parameter) -> Self {
        Parameter {
            name: m.name,
            value: ParameterValue::from_msg(m.value),
        }
    }
}

/// Whether a set succeeded, and if not, why
/// (`rcl_interfaces/msg/SetParametersResult`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetParametersResult {
    /// The values were stored.
    pub successful: bool,
    /// Why not, when they were not.
    pub reason: String,
}

impl SetParametersResult {
    /// Success.
    pub fn ok() -> Self {
        SetParametersResult {
            successful: true,
            reason: String::new(),
        }
    }

    /// A refusal with its reason.
    pub fn refused(reason: impl Into<String>) -> Self {
        SetParametersResult {
            successful: false,
            reason: reason.into(),
        }
    }
}

/// The names a listing found, and their prefixes
/// (`rcl_interfaces/msg/ListParametersResult`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListParametersResult {
    /// The parameters' names.
    pub names: Vec<String>,
    /// The distinct prefixes of those names (up to their last dot).
    pub prefixes: Vec<String>,
}

/// Why a parameter could not be declared.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum DeclareParameterError {
    /// It was declared before.
    #[error("the parameter `{name}` is already declared: declare it once, then get or set it")]
    AlreadyDeclared {
        /// The parameter.
        name: String,
    },
    /// The name is empty.
    #[error("a parameter needs a name")]
    InvalidName,
    /// A statically typed parameter declared without a value or a type.
    #[error(
        "the parameter `{name}` has no type: give it a default value, a type \
         (declare_parameter_typed) or a descriptor with dynamic_typing"
    )]
    NoType {
        /// The parameter.
        name: String,
    },
    /// The override's value (or the default) is of another type than the
    /// one declared.
    #[error("the parameter `{name}` cannot be declared: {reason}")]
    InvalidType {
        /// The parameter.
        name: String,
        /// Expected and found types.
        reason: String,
    },
    /// The value is outside its range, or an on-set callback refused it.
    #[error("the parameter `{name}` cannot be declared with the value {value}: {reason}")]
    InvalidValue {
        /// The parameter.
        name: String,
        /// The value refused.
        value: ParameterValue,
        /// Why.
        reason: String,
    },
    /// Declared from inside a parameter callback of the same node.
    #[error("the parameter `{name}` cannot be declared from inside a parameter callback")]
    InCallback {
        /// The parameter.
        name: String,
    },
}

/// Why a parameter could not be read (or described, or undeclared).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParameterAccessError {
    /// No parameter of that name is declared (and the node does not allow
    /// undeclared parameters).
    #[error("Invalid access to undeclared parameter(s): {name}")]
    NotDeclared {
        /// The parameter.
        name: String,
    },
    /// Declared with a type but no value, and never set.
    #[error("the parameter `{name}` is declared with a type but has no value yet: set it first")]
    Uninitialized {
        /// The parameter.
        name: String,
    },
    /// Undeclaring a read-only parameter.
    #[error("the parameter `{name}` is read-only: it cannot be undeclared")]
    ReadOnly {
        /// The parameter.
        name: String,
    },
    /// Undeclared from inside a parameter callback of the same node.
    #[error("the parameter `{name}` cannot be undeclared from inside a parameter callback")]
    InCallback {
        /// The parameter.
        name: String,
    },
}
