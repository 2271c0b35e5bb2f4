//! A node's parameters for Python: `hibari.Node`'s parameter methods (in
//! `hibari/parameters.py`) call these with plain values.
//!
//! Values cross as Python objects (`None`, `bool`, `int`, `float`, `str`,
//! `bytes`, lists of one of those), descriptors as tuples
//! `(type, description, additional_constraints, read_only, dynamic_typing,
//! [(from, to, step)] float range, [(from, to, step)] integer range)`.
//! Every call that may run parameter callbacks releases the GIL first: a
//! callback (Python, reattached) may run on the executor thread serving the
//! parameter services while this thread waits for the same set to finish.
//! Errors are raised as `hibari.exceptions`' rclpy-named classes.

use hibari::parameter::{
    DeclareParameterError, FloatingPointRange, IntegerRange, ParameterAccessError,
    ParameterCallbackHandle, DEPTH_RECURSIVE,
};
use hibari::{Parameter, ParameterDescriptor, ParameterType, ParameterValue, SetParametersResult};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::runtime::Node;

type Range<T> = Vec<(T, T, T)>;
/// A descriptor as it crosses to Python.
pub(crate) type DescriptorTuple = (u8, String, String, bool, bool, Range<f64>, Range<i64>);

/// Raises `hibari.exceptions.<class>(message)`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    match py
        .import("hibari.exceptions")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message,)))
    {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

fn access_error(py: Python<'_>, e: ParameterAccessError) -> PyErr {
    let class = match e {
        ParameterAccessError::NotDeclared { .. } => "ParameterNotDeclaredException",
        ParameterAccessError::Uninitialized { .. } => "ParameterUninitializedException",
        ParameterAccessError::ReadOnly { .. } => "ParameterImmutableException",
        _ => "ParameterException",
    };
    raise(py, class, e.to_string())
}

fn declare_error(py: Python<'_>, e: DeclareParameterError) -> PyErr {
    let class = match e {
        DeclareParameterError::AlreadyDeclared { .. } => "ParameterAlreadyDeclaredException",
        DeclareParameterError::InvalidName => "InvalidParameterException",
        DeclareParameterError::InvalidType { .. } => "InvalidParameterTypeException",
        DeclareParameterError::InvalidValue { .. } => "InvalidParameterValueException",
        DeclareParameterError::NoType { .. } => return PyValueError::new_err(e.to_string()),
        _ => "ParameterException",
    };
    raise(py, class, e.to_string())
}

/// A Python value as a parameter value, typed as rclpy types it.
pub(crate) fn to_value(v: &Bound<'_, PyAny>) -> PyResult<ParameterValue> {
    if v.is_none() {
        return Ok(ParameterValue::NotSet);
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(ParameterValue::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(ParameterValue::Integer(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(ParameterValue::Double(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(ParameterValue::String(v.extract()?));
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(ParameterValue::ByteArray(b.as_bytes().to_vec()));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
        let all = |f: &dyn Fn(&Bound<'_, PyAny>) -> bool| items.iter().all(f);
        if all(&|i| i.cast::<PyBytes>().is_ok_and(|b| b.as_bytes().len() == 1)) {
            let bytes = items
                .iter()
                .map(|i| i.cast::<PyBytes>().map(|b| b.as_bytes()[0]));
            return Ok(ParameterValue::ByteArray(bytes.collect::<Result<_, _>>()?));
        }
        if all(&|i| i.is_instance_of::<PyBool>()) {
            return Ok(ParameterValue::BoolArray(v.extract()?));
        }
        if all(&|i| i.is_instance_of::<PyInt>() && !i.is_instance_of::<PyBool>()) {
            return Ok(ParameterValue::IntegerArray(v.extract()?));
        }
        if all(&|i| i.is_instance_of::<PyFloat>()) {
            return Ok(ParameterValue::DoubleArray(v.extract()?));
        }
        if all(&|i| i.is_instance_of::<PyString>()) {
            return Ok(ParameterValue::StringArray(v.extract()?));
        }
    }
    Err(PyValueError::new_err(format!(
        "{} is not a parameter value: use bool, int, float, str, bytes, or a list of one of them",
        v.repr()?
    )))
}

/// A parameter value as a Python value (a byte array as a list of 1-byte
/// `bytes`, as rclpy gives it).
pub(crate) fn from_value(py: Python<'_>, v: ParameterValue) -> PyResult<Py<PyAny>> {
    Ok(match v {
        ParameterValue::NotSet => py.None(),
        ParameterValue::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        ParameterValue::Integer(i) => i.into_pyobject(py)?.into_any().unbind(),
        ParameterValue::Double(d) => d.into_pyobject(py)?.into_any().unbind(),
        ParameterValue::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        ParameterValue::ByteArray(b) => {
            let items: Vec<Bound<'_, PyBytes>> =
                b.iter().map(|x| PyBytes::new(py, &[*x])).collect();
            PyList::new(py, items)?.into_any().unbind()
        }
        ParameterValue::BoolArray(v) => PyList::new(py, v)?.into_any().unbind(),
        ParameterValue::IntegerArray(v) => PyList::new(py, v)?.into_any().unbind(),
        ParameterValue::DoubleArray(v) => PyList::new(py, v)?.into_any().unbind(),
        ParameterValue::StringArray(v) => PyList::new(py, v)?.into_any().unbind(),
    })
}

fn to_descriptor(t: DescriptorTuple) -> ParameterDescriptor {
    let (ty, description, additional_constraints, read_only, dynamic_typing, fp, int) = t;
    ParameterDescriptor {
        name: String::new(),
        parameter_type: ParameterType::from_u8(ty).unwrap_or_default(),
        description,
        additional_constraints,
        read_only,
        dynamic_typing,
        floating_point_range: fp
            .first()
            .map(|&(from_value, to_value, step)| FloatingPointRange {
                from_value,
                to_value,
                step,
            }),
        integer_range: int
            .first()
            .map(|&(from_value, to_value, step)| IntegerRange {
                from_value,
                to_value,
                step: step.unsigned_abs(),
            }),
    }
}

fn from_descriptor(d: ParameterDescriptor) -> DescriptorTuple {
    let step = |s: u64| i64::try_from(s).unwrap_or(i64::MAX);
    (
        d.parameter_type as u8,
        d.description,
        d.additional_constraints,
        d.read_only,
        d.dynamic_typing,
        d.floating_point_range
            .map(|r| (r.from_value, r.to_value, r.step))
            .into_iter()
            .collect(),
        d.integer_range
            .map(|r| (r.from_value, r.to_value, step(r.step)))
            .into_iter()
            .collect(),
    )
}

type Pairs = Vec<(String, Py<PyAny>)>;

fn to_pairs(py: Python<'_>, list: &[Parameter]) -> PyResult<Pairs> {
    list.iter()
        .map(|p| Ok((p.name.clone(), from_value(py, p.value.clone())?)))
        .collect()
}

fn from_pairs(py: Python<'_>, pairs: Pairs) -> PyResult<Vec<Parameter>> {
    pairs
        .into_iter()
        .map(|(name, v)| Ok(Parameter::new(name, to_value(v.bind(py))?)))
        .collect()
}

/// Keeps a parameter callback registered until `remove()` or until it is
/// collected.
#[pyclass(module = "hibari._hibari")]
pub struct ParameterCallback {
    handle: Option<ParameterCallbackHandle>,
}

#[pymethods]
impl ParameterCallback {
    /// Unregisters the callback.
    fn remove(&mut self) {
        self.handle = None;
    }
}

/// The parameters of one node.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct NodeParameters {
    node: hibari::Node,
}

#[pymethods]
impl NodeParameters {
    #[new]
    fn new(node: &Node) -> Self {
        NodeParameters {
            node: node.inner.clone(),
        }
    }

    /// Declares `name`; `typed` (a type number) declares it without a value.
    #[pyo3(signature = (name, value, descriptor, ignore_override = false, typed = None))]
    fn declare(
        &self,
        py: Python<'_>,
        name: &str,
        value: &Bound<'_, PyAny>,
        descriptor: DescriptorTuple,
        ignore_override: bool,
        typed: Option<u8>,
    ) -> PyResult<Py<PyAny>> {
        let value = to_value(value)?;
        let descriptor = to_descriptor(descriptor);
        let node = &self.node;
        let declared = py.detach(|| match typed {
            Some(t) => {
                let t = ParameterType::from_u8(t).unwrap_or_default();
                node.declare_parameter_typed(name, t, descriptor)
            }
            None => node.declare_parameter_with(name, value, descriptor, ignore_override),
        });
        from_value(py, declared.map_err(|e| declare_error(py, e))?)
    }

    fn undeclare(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let node = &self.node;
        py.detach(|| node.undeclare_parameter(name))
            .map_err(|e| access_error(py, e))
    }

    fn has(&self, name: &str) -> bool {
        self.node.has_parameter(name)
    }

    /// `(type number, value)`.
    fn get(&self, py: Python<'_>, name: &str) -> PyResult<(u8, Py<PyAny>)> {
        let v = self
            .node
            .get_parameter(name)
            .map_err(|e| access_error(py, e))?;
        Ok((v.parameter_type() as u8, from_value(py, v)?))
    }

    /// The declared value even when not set (`None` then).
    fn get_unchecked(&self, py: Python<'_>, name: &str) -> PyResult<(u8, Py<PyAny>)> {
        match self.node.get_parameter(name) {
            Ok(v) => Ok((v.parameter_type() as u8, from_value(py, v)?)),
            Err(ParameterAccessError::Uninitialized { .. }) => Ok((0, py.None())),
            Err(e) => Err(access_error(py, e)),
        }
    }

    fn describe(&self, py: Python<'_>, name: &str) -> PyResult<DescriptorTuple> {
        let d = self
            .node
            .describe_parameter(name)
            .map_err(|e| access_error(py, e))?;
        Ok(from_descriptor(d))
    }

    /// Sets all or none; `(successful, reason)`.
    fn set_atomically(&self, py: Python<'_>, parameters: Pairs) -> PyResult<(bool, String)> {
        let list = from_pairs(py, parameters)?;
        let node = &self.node;
        let r = py.detach(|| node.set_parameters_atomically(list));
        Ok((r.successful, r.reason))
    }

    /// `(names, prefixes)`.
    #[pyo3(signature = (prefixes, depth = DEPTH_RECURSIVE))]
    fn list(&self, prefixes: Vec<String>, depth: u64) -> (Vec<String>, Vec<String>) {
        let r = self.node.list_parameters(&prefixes, depth);
        (r.names, r.prefixes)
    }

    /// `callback([(name, value)]) -> (successful, reason)` before a set is
    /// stored; an exception refuses the set with its text.
    fn add_on_set(&self, callback: Py<PyAny>) -> ParameterCallback {
        let handle = self.node.add_on_set_parameters_callback(move |list| {
            Python::attach(|py| {
                let result = to_pairs(py, list)
                    .and_then(|pairs| callback.call1(py, (pairs,)))
                    .and_then(|r| r.extract::<(bool, String)>(py));
                match result {
                    Ok((true, _)) => SetParametersResult::ok(),
                    Ok((false, reason)) => SetParametersResult::refused(reason),
                    Err(e) => SetParametersResult::refused(format!("the callback raised: {e}")),
                }
            })
        });
        ParameterCallback {
            handle: Some(handle),
        }
    }

    /// `callback([(name, value)]) -> [(name, value)]` may rewrite a set's list.
    fn add_pre_set(&self, callback: Py<PyAny>) -> ParameterCallback {
        let handle = self.node.add_pre_set_parameters_callback(move |list| {
            Python::attach(|py| {
                let rewritten = to_pairs(py, list)
                    .and_then(|pairs| callback.call1(py, (pairs,)))
                    .and_then(|r| r.extract::<Pairs>(py))
                    .and_then(|pairs| from_pairs(py, pairs));
                match rewritten {
                    Ok(new) => *list = new,
                    Err(e) => e.print(py),
                }
            })
        });
        ParameterCallback {
            handle: Some(handle),
        }
    }

    /// `callback([(name, value)])` after a successful set.
    fn add_post_set(&self, callback: Py<PyAny>) -> ParameterCallback {
        let handle = self.node.add_post_set_parameters_callback(move |list| {
            Python::attach(|py| {
                if let Err(e) = to_pairs(py, list).and_then(|p| callback.call1(py, (p,))) {
                    e.print(py);
                }
            })
        });
        ParameterCallback {
            handle: Some(handle),
        }
    }
}
