//! `hibari._hibari`: the private extension module under the `hibari` Python
//! package, over hibari's public Rust API.
//!
//! - Messages are plain Python classes made by `hibari.msg` from the
//!   definitions in hibari's registry ([`schema`]); this module encodes them
//!   to CDR and decodes them from it, driven by the same definitions, in
//!   Rust ([`encode`], [`decode`]). Received numeric arrays are read-only
//!   numpy arrays over the received bytes ([`view`]); published numpy
//!   arrays are copied once, into the message's buffer, without the GIL.
//! - The runtime is hibari's: contexts, nodes, generic (run-time typed)
//!   publishers, subscriptions, services and clients, action servers and
//!   clients, timers, guard conditions and executors ([`runtime`],
//!   [`endpoints`], [`services`], [`action`], [`executor`]), plus queues for
//!   asyncio ([`aio`]). Waits release the
//!   GIL; callbacks hold it only while they run.
//!
//! The Python package (`hibari/__init__.py`) is the public face; the names
//! here are not an API of their own.

#![forbid(unsafe_code)]
mod action;
mod aio;
mod arrays;
mod clock;
mod decode;
mod encode;
mod endpoints;
mod errors;
mod executor;
mod fields;
mod lifecycle;
mod loans;
mod local;
mod logging;
mod parameters;
mod pending;
mod pieces;
mod qos;
mod runtime;
mod schema;
mod services;
mod view;

use hibari::interfaces::Primitive;
use hibari::CdrBytes;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The CDR bytes of `message`, an instance of the class of `type_name`.
#[pyfunction]
fn serialize<'py>(
    py: Python<'py>,
    type_name: &str,
    message: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let schema = schema::schema(py, type_name)?;
    let bytes = endpoints::to_cdr(py, message, &schema)?;
    Ok(PyBytes::new(py, &bytes))
}

/// The message of type `type_name` in the CDR bytes `data` (copied once,
/// with the GIL released, into a buffer the message's arrays then view).
#[pyfunction]
fn deserialize<'py>(
    py: Python<'py>,
    type_name: &str,
    data: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyAny>> {
    let schema = schema::schema(py, type_name)?;
    let data = data.as_bytes();
    let bytes = py.detach(|| CdrBytes::from(data.to_vec()));
    decode::decode(py, &schema, &bytes)
}

/// A read-only uint8 numpy array over a copy of `data`, kept alive by the
/// array (for tests of the view machinery).
#[pyfunction]
fn _bytes_view<'py>(py: Python<'py>, data: Vec<u8>) -> PyResult<Bound<'py, PyAny>> {
    let bytes = CdrBytes::from(data);
    view::array(py, &bytes, 0, bytes.len(), Primitive::UInt8, false)
}

#[pymodule]
fn _hibari(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("HibariError", py.get_type::<errors::HibariError>())?;
    m.add(
        "ServiceUnavailableError",
        py.get_type::<errors::ServiceUnavailableError>(),
    )?;
    m.add(
        "ServiceGoneError",
        py.get_type::<errors::ServiceGoneError>(),
    )?;
    m.add_class::<runtime::Context>()?;
    m.add_class::<runtime::Node>()?;
    m.add_class::<endpoints::Publisher>()?;
    m.add_class::<endpoints::Subscription>()?;
    m.add_class::<endpoints::Timer>()?;
    m.add_class::<endpoints::GuardCondition>()?;
    m.add_class::<services::Service>()?;
    m.add_class::<services::Client>()?;
    m.add_class::<pending::PendingCall>()?;
    m.add_class::<action::server::ActionServer>()?;
    m.add_class::<action::server::ServerGoal>()?;
    m.add_class::<action::client::ActionClient>()?;
    m.add_class::<action::client::ClientGoal>()?;
    m.add_class::<executor::Executor>()?;
    m.add_class::<executor::CallbackGroup>()?;
    m.add_class::<aio::AsyncSubscription>()?;
    m.add_class::<qos::PySampleInfo>()?;
    m.add_class::<view::SampleBuffer>()?;
    m.add_class::<logging::Logger>()?;
    m.add_class::<clock::Clock>()?;
    m.add_class::<clock::JumpHandle>()?;
    m.add_class::<lifecycle::Lifecycle>()?;
    m.add_class::<parameters::NodeParameters>()?;
    m.add_class::<parameters::ParameterCallback>()?;
    m.add_class::<loans::Loan>()?;
    m.add_class::<loans::LoanBuffer>()?;
    m.add_class::<loans::LoanMemory>()?;
    m.add_function(wrap_pyfunction!(runtime::has_interprocess, m)?)?;
    m.add_function(wrap_pyfunction!(qos::qos_preset, m)?)?;
    m.add_function(wrap_pyfunction!(schema::describe, m)?)?;
    m.add_function(wrap_pyfunction!(schema::register_class, m)?)?;
    m.add_function(wrap_pyfunction!(schema::package_types, m)?)?;
    m.add_function(wrap_pyfunction!(schema::packages, m)?)?;
    m.add_function(wrap_pyfunction!(schema::add_interface_path, m)?)?;
    m.add_function(wrap_pyfunction!(serialize, m)?)?;
    m.add_function(wrap_pyfunction!(deserialize, m)?)?;
    m.add_function(wrap_pyfunction!(_bytes_view, m)?)?;
    Ok(())
}
