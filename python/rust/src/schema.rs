//! Message definitions, as the encoder and decoder walk them.
//!
//! Definitions come from one process-wide [`Registry`]: the bundled packages
//! of `HIBARI_DISTRO` (`jazzy`, the default, or `humble`), then the user
//! packages found under `HIBARI_INTERFACE_PATH`, then whatever
//! `add_interface_path` adds later. Each message type used from Python is
//! compiled once into a [`Schema`] (its fields, with nested schemas
//! resolved) and tied to the Python class the `hibari.msg` package made for
//! it, whose instances the decoder creates.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use hibari::interfaces::{
    ArrayKind, BaseType, InterfaceKind, Literal, MessageDef, Primitive, Registry, TypeName,
};
use pyo3::exceptions::{PyLookupError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyType};

use crate::errors::value_error;

/// One field of a message.
pub(crate) struct FieldSchema {
    /// The field's name.
    pub name: String,
    /// The same, as an interned Python string (the attribute name).
    pub py_name: Py<PyString>,
    /// What one element is.
    pub base: Base,
    /// Single value, fixed array, bounded or unbounded sequence.
    pub array: ArrayKind,
}

/// What one element of a field is.
pub(crate) enum Base {
    /// A number or a bool.
    Prim(Primitive),
    /// A string, with its bound in bytes.
    Str(Option<u32>),
    /// A wide string: refused both ways (ROS 2 vendors disagree on its bytes).
    WStr,
    /// A nested message.
    Msg(Arc<Schema>),
}

/// A message type: its fields in order, and its Python class once made.
pub(crate) struct Schema {
    /// `pkg/msg/Name`.
    pub type_name: String,
    /// The fields, in definition order.
    pub fields: Vec<FieldSchema>,
    class: PyOnceLock<Py<PyType>>,
}

impl Schema {
    /// The Python class of this type.
    pub fn class<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyType>> {
        self.class.get(py).map(|c| c.bind(py)).ok_or_else(|| {
            PyRuntimeError::new_err(format!(
                "no Python class was registered for `{}`: import it from hibari.msg first",
                self.type_name
            ))
        })
    }
}

static REGISTRY: OnceLock<Result<RwLock<Registry>, String>> = OnceLock::new();
static SCHEMAS: Mutex<Option<HashMap<String, Arc<Schema>>>> = Mutex::new(None);

/// The registry, loaded on first use.
pub(crate) fn registry() -> PyResult<&'static RwLock<Registry>> {
    let loaded = REGISTRY.get_or_init(|| {
        Registry::from_env()
            .map(RwLock::new)
            .map_err(|e| e.to_string())
    });
    loaded
        .as_ref()
        .map_err(|e| PyRuntimeError::new_err(e.clone()))
}

fn read() -> PyResult<std::sync::RwLockReadGuard<'static, Registry>> {
    Ok(registry()?
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner))
}

/// Adds the packages under `root` (a folder of packages, or one package);
/// returns how many definitions were added.
#[pyfunction]
pub(crate) fn add_interface_path(root: &str) -> PyResult<usize> {
    let mut registry = registry()?
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut added = registry
        .add_search_path(Path::new(root))
        .map_err(value_error)?;
    if added == 0 {
        added = registry
            .add_package_dir(Path::new(root))
            .map_err(value_error)?;
    }
    registry.validate().map_err(value_error)?;
    Ok(added)
}

/// The full name of the message type `name` (`pkg/msg/T`, `pkg/T`, or a
/// service part `pkg/srv/S_Request`).
fn resolve_message(name: &str) -> PyResult<TypeName> {
    let registry = read()?;
    TypeName::parse(name)
        .filter(|t| registry.message(t).is_some())
        .or_else(|| {
            registry
                .resolve(name)
                .filter(|t| registry.message(t).is_some())
        })
        .ok_or_else(|| PyLookupError::new_err(format!("unknown message type `{name}`")))
}

/// The compiled schema of the message type `name`.
pub(crate) fn schema(py: Python<'_>, name: &str) -> PyResult<Arc<Schema>> {
    // The cache is keyed by full names (`pkg/msg/T`, a class's `_type`): a
    // hit needs no resolution, and a compiled type keeps its schema anyway.
    if let Some(s) = cached(name) {
        return Ok(s);
    }
    let full = resolve_message(name)?.to_string();
    if let Some(s) = cached(&full) {
        return Ok(s);
    }
    let def: MessageDef = read()?
        .message(&TypeName::parse(&full).expect("resolved names parse"))
        .cloned()
        .ok_or_else(|| PyLookupError::new_err(format!("unknown message type `{full}`")))?;
    let mut fields = Vec::with_capacity(def.fields.len());
    for f in &def.fields {
        let base = match &f.ty.base {
            BaseType::Primitive(p) => Base::Prim(*p),
            BaseType::String { bound } => Base::Str(*bound),
            BaseType::WString { .. } => Base::WStr,
            // Definitions are validated: no type contains itself.
            BaseType::Named(t) => Base::Msg(schema(py, &t.to_string())?),
        };
        fields.push(FieldSchema {
            name: f.name.clone(),
            py_name: PyString::intern(py, &f.name).unbind(),
            base,
            array: f.ty.array,
        });
    }
    let compiled = Arc::new(Schema {
        type_name: full.clone(),
        fields,
        class: PyOnceLock::new(),
    });
    let mut map = SCHEMAS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(map
        .get_or_insert_with(HashMap::new)
        .entry(full)
        .or_insert(compiled)
        .clone())
}

fn cached(full: &str) -> Option<Arc<Schema>> {
    let map = SCHEMAS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    map.as_ref()?.get(full).cloned()
}

/// Ties the Python class `cls` to the message type `name`; the decoder
/// creates its instances. A type gets one class per process.
#[pyfunction]
pub(crate) fn register_class(py: Python<'_>, name: &str, cls: Bound<'_, PyType>) -> PyResult<()> {
    let s = schema(py, name)?;
    let stored = s.class.get_or_init(py, || cls.clone().unbind());
    if !stored.bind(py).is(&cls) {
        return Err(PyRuntimeError::new_err(format!(
            "`{name}` already has a Python class"
        )));
    }
    Ok(())
}

fn literal(py: Python<'_>, l: &Literal) -> PyResult<Py<PyAny>> {
    Ok(match l {
        Literal::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Literal::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Literal::Float(x) => x.into_pyobject(py)?.into_any().unbind(),
        Literal::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Literal::Array(items) => {
            let items = items
                .iter()
                .map(|i| literal(py, i))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
    })
}

fn base_name(base: &BaseType) -> (String, Option<String>, Option<u32>) {
    match base {
        BaseType::Primitive(p) => (p.msg_name().to_owned(), None, None),
        BaseType::String { bound } => ("string".into(), None, *bound),
        BaseType::WString { bound } => ("wstring".into(), None, *bound),
        BaseType::Named(t) => ("message".into(), Some(t.to_string()), None),
    }
}

/// What `hibari.msg` needs to make the class of the message type `name`:
/// `{"type", "fields": [{"name", "base", "nested", "array", "length",
/// "string_bound", "default"}], "constants": [(name, value)], "definition"}`.
#[pyfunction]
pub(crate) fn describe(py: Python<'_>, name: &str) -> PyResult<Py<PyDict>> {
    let full = resolve_message(name)?;
    let def = read()?.message(&full).cloned().expect("resolved");
    let fields = PyList::empty(py);
    for f in &def.fields {
        let d = PyDict::new(py);
        let (base, nested, string_bound) = base_name(&f.ty.base);
        let (array, length) = match f.ty.array {
            ArrayKind::Single => (None, None),
            ArrayKind::Fixed(n) => (Some("fixed"), Some(n)),
            ArrayKind::Bounded(n) => (Some("bounded"), Some(n)),
            ArrayKind::Unbounded => (Some("unbounded"), None),
        };
        d.set_item("name", &f.name)?;
        d.set_item("base", base)?;
        d.set_item("nested", nested)?;
        d.set_item("array", array)?;
        d.set_item("length", length)?;
        d.set_item("string_bound", string_bound)?;
        let default = f.default.as_ref().map(|l| literal(py, l)).transpose()?;
        d.set_item("default", default)?;
        fields.append(d)?;
    }
    let constants = PyList::empty(py);
    for c in &def.constants {
        constants.append((&c.name, literal(py, &c.value)?))?;
    }
    let out = PyDict::new(py);
    out.set_item("type", full.to_string())?;
    out.set_item("fields", fields)?;
    out.set_item("constants", constants)?;
    out.set_item("definition", &def.source)?;
    Ok(out.unbind())
}

/// The interfaces of package `package`: `{name: "msg" | "srv" | "action"}`
/// (service and action parts are left out: they come with their service).
#[pyfunction]
pub(crate) fn package_types(py: Python<'_>, package: &str) -> PyResult<Py<PyDict>> {
    let registry = read()?;
    let out = PyDict::new(py);
    let add = |t: &TypeName| -> PyResult<()> {
        if t.package == package {
            out.set_item(&t.name, t.kind.as_str())?;
        }
        Ok(())
    };
    for a in registry.actions() {
        add(&a.name)?;
    }
    for s in registry.services() {
        add(&s.name)?;
    }
    for m in registry
        .messages()
        .filter(|m| m.name.kind == InterfaceKind::Msg)
    {
        add(&m.name)?;
    }
    Ok(out.unbind())
}

/// Every package name the registry knows, sorted.
#[pyfunction]
pub(crate) fn packages() -> PyResult<Vec<String>> {
    let registry = read()?;
    let mut names: Vec<String> = registry
        .messages()
        .map(|m| m.name.package.clone())
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}
