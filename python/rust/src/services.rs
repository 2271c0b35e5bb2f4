//! Service servers and clients, by service type name.
//!
//! A server's callback runs on the executor spinning its node, with
//! `(request, response)` — the decoded request and a default response —
//! and returns the response to send, as in rclpy.
//!
//! A client needs no executor: its replies are sorted as they arrive, on
//! the thread that delivers them, and a call's completion runs there too
//! ([`pending`](crate::pending)): it decodes the response and completes the
//! Python `Future`. Blocking calls wait in Python on the future (with the
//! GIL released).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use hibari::{CdrBytes, GenericClient, QosProfile, ServiceResponder};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::decode::decode;
use crate::endpoints::to_cdr;
use crate::errors::{call_error, value_error, Reporter};
use crate::pending::{self, Finish, PendingCall};
use crate::runtime::timeout;
use crate::schema::{schema, Schema};

/// The request and response schemas of the service type `type_name`.
fn parts(py: Python<'_>, type_name: &str) -> PyResult<(Arc<Schema>, Arc<Schema>)> {
    Ok((
        schema(py, &format!("{type_name}_Request"))?,
        schema(py, &format!("{type_name}_Response"))?,
    ))
}

/// Answers requests with a Python callback.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Service {
    inner: hibari::GenericServiceServer,
    failed: Arc<AtomicU64>,
}

/// Runs the Python service callback on one request; the response's bytes,
/// or `None` when the callback failed (its exception goes to the spin call).
fn answer(
    py: Python<'_>,
    request: &CdrBytes,
    callback: &Py<PyAny>,
    rq: &Arc<Schema>,
    rs: &Arc<Schema>,
    reporter: &Reporter,
) -> Option<Vec<u8>> {
    let result = (|| {
        let request = decode(py, rq, request)?;
        let response = rs.class(py)?.call0()?;
        let response = callback.call1(py, (request, response))?;
        let response = response.bind(py);
        if response.is_none() {
            return Err(PyTypeError::new_err(format!(
                "the service callback returned None: return the {} it filled in",
                rs.type_name
            )));
        }
        to_cdr(py, response, rs)
    })();
    match result {
        Ok(bytes) => {
            reporter.finish(py, Ok(()));
            Some(bytes)
        }
        Err(e) => {
            reporter.finish(py, Err(e));
            None
        }
    }
}

impl Service {
    pub(crate) fn create(
        py: Python<'_>,
        node: &hibari::Node,
        type_name: &str,
        name: &str,
        options: hibari::ServiceOptions,
        callback: Py<PyAny>,
        reporter: Reporter,
    ) -> PyResult<Self> {
        let (rq, rs) = parts(py, type_name)?;
        rq.class(py)?;
        rs.class(py)?;
        let failed = Arc::new(AtomicU64::new(0));
        let count = failed.clone();
        let respond = move |request: CdrBytes, responder: ServiceResponder| {
            let reply = Python::attach(|py| answer(py, &request, &callback, &rq, &rs, &reporter));
            let sent = reply.is_some_and(|bytes| responder.respond(&bytes).is_ok());
            if !sent {
                count.fetch_add(1, Ordering::Relaxed);
            }
        };
        let inner = node
            .create_generic_service(name, type_name, options, respond)
            .map_err(value_error)?;
        Ok(Service { inner, failed })
    }
}

#[pymethods]
impl Service {
    /// The fully qualified service name.
    #[getter]
    fn service_name(&self) -> &str {
        self.inner.name()
    }

    /// Requests that got no reply (the callback raised, or the reply could
    /// not be sent).
    #[getter]
    fn failed_replies(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }
}

/// Calls a service.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Client {
    inner: GenericClient,
    request: Arc<Schema>,
    response: Arc<Schema>,
}

impl Client {
    pub(crate) fn create(
        py: Python<'_>,
        node: &hibari::Node,
        type_name: &str,
        name: &str,
        qos: QosProfile,
    ) -> PyResult<Self> {
        let (request, response) = parts(py, type_name)?;
        response.class(py)?;
        let inner = node
            .create_generic_client(name, type_name, qos)
            .map_err(value_error)?;
        Ok(Client {
            inner,
            request,
            response,
        })
    }
}

#[pymethods]
impl Client {
    /// The fully qualified service name.
    #[getter]
    fn service_name(&self) -> &str {
        self.inner.service_name()
    }

    /// Whether a server is matched both ways, so that a call can be sent now.
    fn service_is_ready(&self) -> bool {
        self.inner.service_is_ready()
    }

    /// Waits up to `timeout_sec` (None: forever) for a server; returns
    /// whether one is ready. Ctrl-C interrupts the wait.
    #[pyo3(signature = (timeout_sec = None))]
    fn wait_for_service(&self, py: Python<'_>, timeout_sec: Option<f64>) -> PyResult<bool> {
        let deadline = timeout(timeout_sec).and_then(|t| Instant::now().checked_add(t));
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let chunk = left.map_or(crate::executor::TICK, |l| l.min(crate::executor::TICK));
            let client = &self.inner;
            if py.detach(|| client.wait_for_service(chunk)) {
                return Ok(true);
            }
            py.check_signals()?;
            if left.is_some_and(|l| l <= chunk) {
                return Ok(false);
            }
        }
    }

    /// Sends `request` now; `on_done(ok, value)` is called once with the
    /// decoded response (`ok` true) or the exception (`ok` false), on the
    /// thread that delivers the reply. Dropping the returned handle (or
    /// `cancel()`) forgets the request.
    fn call_async(
        &self,
        py: Python<'_>,
        request: &Bound<'_, PyAny>,
        on_done: Py<PyAny>,
    ) -> PyResult<PendingCall> {
        let bytes = to_cdr(py, request, &self.request)?;
        let client = &self.inner;
        let call = py.detach(|| client.call_async(bytes));
        let response = self.response.clone();
        let future = async move {
            let outcome = call.await;
            Box::new(move |py: Python<'_>| {
                let bytes = outcome.map_err(call_error)?;
                Ok(decode(py, &response, &bytes)?.unbind())
            }) as Finish
        };
        Ok(pending::start(future, on_done))
    }
}
