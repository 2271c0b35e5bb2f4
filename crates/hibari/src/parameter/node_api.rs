//! The parameter methods of [`Node`], named as in rclcpp and rclpy.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{
    DeclareParameterError, ListParametersResult, Parameter, ParameterAccessError,
    ParameterCallbackHandle, ParameterDescriptor, ParameterType, ParameterValue,
    SetParametersResult,
};
use crate::node::Node;

/// `list_parameters` depth that lists every level.
pub const DEPTH_RECURSIVE: u64 = 0;

impl Node {
    /// Declares a parameter with a default value (its type becomes the
    /// parameter's) and returns the value it got: an override's, if one
    /// names it, else `default`.
    ///
    /// ```
    /// use hibari::Context;
    /// let node = Context::builder().isolated().create()?.create_node("cam")?;
    /// let rate = node.declare_parameter("rate", 30i64)?;
    /// assert_eq!(rate.as_integer(), Some(30));
    /// assert!(!node.set_parameter(hibari::Parameter::new("rate", 2.5)).successful);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn declare_parameter(
        &self,
        name: &str,
        default: impl Into<ParameterValue>,
    ) -> Result<ParameterValue, DeclareParameterError> {
        self.declare_parameter_with(name, default, ParameterDescriptor::default(), false)
    }

    /// [`declare_parameter`](Node::declare_parameter) with a descriptor;
    /// `ignore_override` keeps overrides out.
    pub fn declare_parameter_with(
        &self,
        name: &str,
        default: impl Into<ParameterValue>,
        descriptor: ParameterDescriptor,
        ignore_override: bool,
    ) -> Result<ParameterValue, DeclareParameterError> {
        let store = &self.inner.parameters;
        store.declare(name, default.into(), None, descriptor, ignore_override)
    }

    /// Declares a statically typed parameter without a default: it has the
    /// override's value if there is one, else none until it is set (reading
    /// it before is [`ParameterAccessError::Uninitialized`]).
    pub fn declare_parameter_typed(
        &self,
        name: &str,
        parameter_type: ParameterType,
        descriptor: ParameterDescriptor,
    ) -> Result<ParameterValue, DeclareParameterError> {
        if parameter_type == ParameterType::NotSet || descriptor.dynamic_typing {
            return Err(DeclareParameterError::NoType { name: name.into() });
        }
        let store = &self.inner.parameters;
        store.declare(
            name,
            ParameterValue::NotSet,
            Some(parameter_type),
            descriptor,
            false,
        )
    }

    /// Undeclares a parameter (not a read-only one). No event is published
    /// and no callback runs, as in rclpy.
    pub fn undeclare_parameter(&self, name: &str) -> Result<(), ParameterAccessError> {
        self.inner.parameters.undeclare(name)
    }

    /// Whether the parameter is declared.
    pub fn has_parameter(&self, name: &str) -> bool {
        self.inner.parameters.has(name)
    }

    /// The parameter's value.
    pub fn get_parameter(&self, name: &str) -> Result<ParameterValue, ParameterAccessError> {
        self.inner.parameters.get(name)
    }

    /// The values of several parameters, in the order named.
    pub fn get_parameters(
        &self,
        names: &[&str],
    ) -> Result<Vec<ParameterValue>, ParameterAccessError> {
        names.iter().map(|n| self.get_parameter(n)).collect()
    }

    /// The value, or `alternative` when the parameter is not declared or not
    /// set.
    pub fn get_parameter_or(
        &self,
        name: &str,
        alternative: impl Into<ParameterValue>,
    ) -> ParameterValue {
        match self.get_parameter(name) {
            Ok(ParameterValue::NotSet) | Err(_) => alternative.into(),
            Ok(v) => v,
        }
    }

    /// The parameters under `prefix.` by their names after it (all of them
    /// for an empty prefix).
    pub fn get_parameters_by_prefix(&self, prefix: &str) -> BTreeMap<String, ParameterValue> {
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}.")
        };
        self.inner
            .parameters
            .snapshot()
            .into_iter()
            .filter_map(|(n, v)| Some((n.strip_prefix(&prefix)?.to_string(), v)))
            .collect()
    }

    /// The parameter's type (`NotSet` for an undeclared one when those are
    /// allowed).
    pub fn get_parameter_type(&self, name: &str) -> Result<ParameterType, ParameterAccessError> {
        self.inner.parameters.type_of(name)
    }

    /// The parameter's descriptor.
    pub fn describe_parameter(
        &self,
        name: &str,
    ) -> Result<ParameterDescriptor, ParameterAccessError> {
        self.inner.parameters.describe(name)
    }

    /// Sets one parameter; the result says whether it was stored and if not,
    /// why (undeclared, read-only, wrong type, out of range, refused by a
    /// callback). Setting `NotSet` undeclares a dynamically typed one.
    pub fn set_parameter(&self, parameter: Parameter) -> SetParametersResult {
        self.inner.parameters.set_atomically(vec![parameter])
    }

    /// Sets each parameter on its own, in order: one result each.
    pub fn set_parameters(&self, parameters: Vec<Parameter>) -> Vec<SetParametersResult> {
        parameters
            .into_iter()
            .map(|p| self.set_parameter(p))
            .collect()
    }

    /// Sets all the parameters or none.
    pub fn set_parameters_atomically(&self, parameters: Vec<Parameter>) -> SetParametersResult {
        self.inner.parameters.set_atomically(parameters)
    }

    /// Lists the parameters under `prefixes` (all for none) down to `depth`
    /// dot-separated levels ([`DEPTH_RECURSIVE`]: every level), as rclpy
    /// lists them.
    pub fn list_parameters(&self, prefixes: &[String], depth: u64) -> ListParametersResult {
        list(
            self.inner.parameters.snapshot().into_iter().map(|(n, _)| n),
            prefixes,
            depth,
        )
    }

    /// Adds a callback that checks every set before it is stored (also the
    /// set of a declaration); returning a refusal cancels the set with its
    /// reason. Removed when the handle is dropped.
    pub fn add_on_set_parameters_callback(
        &self,
        callback: impl Fn(&[Parameter]) -> SetParametersResult + Send + Sync + 'static,
    ) -> ParameterCallbackHandle {
        self.inner.parameters.add_on_set(Arc::new(callback))
    }

    /// Adds a callback that may change the list of a set before it is
    /// checked (not run for declarations). Removed when the handle is dropped.
    pub fn add_pre_set_parameters_callback(
        &self,
        callback: impl Fn(&mut Vec<Parameter>) + Send + Sync + 'static,
    ) -> ParameterCallbackHandle {
        self.inner.parameters.add_pre_set(Arc::new(callback))
    }

    /// Adds a callback run after every successful set with what it set.
    /// Removed when the handle is dropped.
    pub fn add_post_set_parameters_callback(
        &self,
        callback: impl Fn(&[Parameter]) + Send + Sync + 'static,
    ) -> ParameterCallbackHandle {
        self.inner.parameters.add_post_set(Arc::new(callback))
    }
}

/// rclpy's `list_parameters` over `names`.
pub(crate) fn list(
    names: impl Iterator<Item = String>,
    prefixes: &[String],
    depth: u64,
) -> ListParametersResult {
    let dots = |s: &str| s.matches('.').count() as u64;
    let recursive = prefixes.is_empty() && depth == DEPTH_RECURSIVE;
    let mut result = ListParametersResult::default();
    for name in names {
        if !recursive {
            let get_all = prefixes.is_empty() && dots(&name) < depth;
            let matches = || {
                prefixes.iter().any(|prefix| {
                    name == *prefix
                        || name
                            .strip_prefix(prefix.as_str())
                            .and_then(|rest| rest.strip_prefix('.'))
                            .is_some_and(|rest| depth == DEPTH_RECURSIVE || dots(rest) < depth)
                })
            };
            if !get_all && !matches() {
                continue;
            }
        }
        if let Some((prefix, _)) = name.rsplit_once('.') {
            if !result.prefixes.iter().any(|p| p == prefix) {
                result.prefixes.push(prefix.to_string());
            }
        }
        result.names.push(name);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list_result: ListParametersResult) -> Vec<String> {
        list_result.names
    }

    #[test]
    fn listing_follows_prefixes_and_depth_as_rclpy_does() {
        let all = ["a", "b.c", "b.d.e", "bb.x"].map(String::from);
        let l = |p: &[&str], d| {
            let p: Vec<String> = p.iter().map(|s| s.to_string()).collect();
            list(all.iter().cloned(), &p, d)
        };
        assert_eq!(names(l(&[], DEPTH_RECURSIVE)), all.to_vec());
        assert_eq!(names(l(&[], 1)), ["a"]);
        assert_eq!(names(l(&[], 2)), ["a", "b.c", "bb.x"]);
        assert_eq!(names(l(&["b"], DEPTH_RECURSIVE)), ["b.c", "b.d.e"]);
        assert_eq!(names(l(&["b"], 1)), ["b.c"]);
        let r = l(&[], DEPTH_RECURSIVE);
        assert_eq!(r.prefixes, ["b", "b.d", "bb"]);
    }
}
