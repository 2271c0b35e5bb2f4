//! Actions for Python: `hibari.action.ActionServer` and `ActionClient`
//! (rclpy's) over hibari's generic action server and client.
//!
//! The Rust side runs the protocol — the goal table and its state machine,
//! the status topic, kept results, cancel rules, one reply per client — with
//! [`dynamic`](hibari::dynamic) values as goals, results and feedback. A
//! Python message crosses as its CDR: encoded from the object by its schema,
//! decoded into a value by the registry's definition (and back the other
//! way). Actions carry small messages at low rates, so the extra pass costs
//! little and no state machine is written twice.

use std::sync::Arc;

use hibari::dynamic::Value;
use hibari::interfaces::{Registry, TypeName};
use hibari::CdrBytes;
use pyo3::prelude::*;

use crate::decode::decode;
use crate::endpoints::to_cdr;
use crate::errors::value_error;
use crate::schema::{registry, schema, Schema};

pub(crate) mod client;
pub(crate) mod server;

/// One part of an action (its goal, result or feedback): the registry's
/// name and the Python schema.
pub(crate) struct Part {
    name: TypeName,
    schema: Arc<Schema>,
}

/// The parts of one action type, and the registry that defines them.
pub(crate) struct Parts {
    registry: Arc<Registry>,
    pub(crate) goal: Part,
    pub(crate) result: Part,
    pub(crate) feedback: Part,
}

impl Parts {
    /// The parts of `type_name` (`pkg/action/Name`), whose classes Python
    /// made already (`hibari.msg.get_action`).
    pub(crate) fn new(py: Python<'_>, type_name: &str) -> PyResult<Arc<Self>> {
        // The definitions as they are now: the action's own are known (its
        // classes exist), and later additions cannot change them.
        let registry = Arc::new(
            registry()?
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
        );
        let part = |suffix: &str| -> PyResult<Part> {
            let full = format!("{type_name}{suffix}");
            let name = TypeName::parse(&full)
                .ok_or_else(|| value_error(format!("`{type_name}` is not an action type name")))?;
            let schema = schema(py, &full)?;
            schema.class(py)?;
            Ok(Part { name, schema })
        };
        Ok(Arc::new(Parts {
            goal: part("_Goal")?,
            result: part("_Result")?,
            feedback: part("_Feedback")?,
            registry,
        }))
    }

    /// The registry, for the Rust codec.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        self.registry.clone()
    }

    /// The value of the Python message `message` of `part`.
    pub(crate) fn to_value(
        &self,
        py: Python<'_>,
        part: &Part,
        message: &Bound<'_, PyAny>,
    ) -> PyResult<Value> {
        let bytes = to_cdr(py, message, &part.schema)?;
        hibari::dynamic::decode(&*self.registry, &part.name, &bytes).map_err(value_error)
    }

    /// The Python message of `part` holding `value`.
    pub(crate) fn to_python<'py>(
        &self,
        py: Python<'py>,
        part: &Part,
        value: &Value,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bytes =
            hibari::dynamic::encode(&*self.registry, &part.name, value).map_err(value_error)?;
        decode(py, &part.schema, &CdrBytes::from(bytes))
    }
}
