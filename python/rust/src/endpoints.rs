//! Publishers, subscriptions, timers and guard conditions.
//!
//! Every callback runs on the executor thread that spins the node, attached
//! to the interpreter only for the callback itself (decoding included); an
//! exception it raises comes out of the spin call ([`errors`](crate::errors)).
//! Publishing encodes with the GIL held, then lays the big arrays into the
//! message's buffer and hands it to the transport with the GIL released.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari::interfaces::Primitive;
use hibari::{CdrBytes, GuardConditionOptions, QosProfile, SampleInfo, Serialized, TimerOptions};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::decode::decode;
use crate::encode::Encoded;
use crate::errors::{hibari_error, value_error, Reporter};
use crate::loans::{ArrayForm, Loan};
use crate::local::{self, LocalSubscription};
use crate::pieces::{assemble, assemble_into};
use crate::qos::PySampleInfo;
use crate::runtime::reaches_other_processes;
use crate::schema::{schema, Schema};
use crate::view;

/// Publishes messages of one type on one topic.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Publisher {
    inner: Arc<hibari::Publisher<Serialized>>,
    schema: Arc<Schema>,
    /// The context reaches other processes (then loans are shared memory).
    interprocess: bool,
    domain: u32,
    /// Publishes written into lent shared memory (see `reaches_out`).
    loaned: AtomicU64,
}

/// Encodes `message` as `schema` into CDR bytes; the big arrays are copied
/// with the GIL released.
pub(crate) fn to_cdr(
    py: Python<'_>,
    message: &Bound<'_, PyAny>,
    schema: &Schema,
) -> PyResult<Vec<u8>> {
    let encoded = Encoded::encode(py, message, schema)?;
    let gaps = encoded.gap_bytes()?;
    let skeleton = encoded.skeleton();
    let mut out = Vec::with_capacity(encoded.len());
    py.detach(|| assemble(skeleton, &gaps, &mut out));
    Ok(out)
}

impl Publisher {
    pub(crate) fn create(
        py: Python<'_>,
        node: &hibari::Node,
        type_name: &str,
        topic: &str,
        qos: QosProfile,
    ) -> PyResult<Self> {
        let schema = schema(py, type_name)?;
        let inner = node
            .create_generic_publisher(topic, &schema.type_name, qos)
            .map_err(value_error)?;
        let context = node.context();
        Ok(Publisher {
            inner: Arc::new(inner),
            schema,
            interprocess: reaches_other_processes(context),
            domain: context.domain_id(),
            loaned: AtomicU64::new(0),
        })
    }

    /// Whether a matched subscription is in another process (see
    /// [`local`](crate::local)): then the message is written into a loan of
    /// shared memory, one copy, rather than into a buffer the transport
    /// would copy again.
    fn reaches_out(&self) -> bool {
        self.interprocess
            && self.inner.matched_subscriptions() > local::count(self.domain, self.inner.topic())
    }
}

#[pymethods]
impl Publisher {
    /// Publishes `message` (an instance of the publisher's message class),
    /// or a `Loan` of this publisher. Arrays given as numpy arrays or bytes
    /// are copied once, with the GIL released: into shared memory when a
    /// subscription in another process is matched, else into a buffer that
    /// the subscriptions of this process share (recycled once they let go
    /// of it).
    fn publish(&self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(loan) = message.cast::<Loan>() {
            return loan.get().publish(py, &self.inner, &self.schema);
        }
        let encoded = Encoded::encode(py, message, &self.schema)?;
        let gaps = encoded.gap_bytes()?;
        let skeleton = encoded.skeleton();
        let len = encoded.len();
        let publisher = &*self.inner;
        if self.reaches_out() {
            self.loaned.fetch_add(1, Ordering::Relaxed);
        }
        // A loan either way: shared memory when a subscription in another
        // process reads it, else a heap buffer the publisher gets back from
        // the subscriptions here and lends again (no fresh pages per publish).
        py.detach(|| {
            let mut loan = publisher.loan(len).map_err(hibari_error)?;
            assemble_into(skeleton, &gaps, &mut loan);
            loan.send().map_err(hibari_error)
        })
    }

    /// Lends memory for `message` with its numeric array `field` left as a
    /// writable numpy array of `count` elements, to fill in place and then
    /// `publish(loan)`; `dtype` and `shape` give `loan.array` its form.
    #[pyo3(signature = (message, field, count, dtype = None, shape = None))]
    fn loan(
        &self,
        py: Python<'_>,
        message: &Bound<'_, PyAny>,
        field: &str,
        count: usize,
        dtype: Option<Py<PyAny>>,
        shape: Option<Py<PyAny>>,
    ) -> PyResult<Loan> {
        Loan::create(
            py,
            &self.inner,
            &self.schema,
            message,
            field,
            count,
            ArrayForm { dtype, shape },
        )
    }

    /// Publishes CDR bytes as they are (header included): `bytes` are
    /// copied once with the GIL released, other buffers extracted first.
    fn publish_raw(&self, py: Python<'_>, cdr: &Bound<'_, PyAny>) -> PyResult<()> {
        let publisher = &*self.inner;
        if let Ok(bytes) = cdr.cast::<PyBytes>() {
            let bytes = bytes.as_bytes();
            return py
                .detach(|| publisher.publish(bytes.to_vec()))
                .map_err(hibari_error);
        }
        let cdr: Vec<u8> = cdr.extract()?;
        py.detach(|| publisher.publish(cdr)).map_err(hibari_error)
    }

    /// The fully qualified topic name.
    #[getter]
    fn topic_name(&self) -> &str {
        self.inner.topic()
    }

    /// How many `publish(message)` calls wrote the message straight into
    /// lent shared memory (a subscription in another process was matched).
    #[getter]
    fn loaned_publishes(&self) -> u64 {
        self.loaned.load(Ordering::Relaxed)
    }

    /// How many subscriptions are matched now.
    fn get_subscription_count(&self) -> usize {
        self.inner.matched_subscriptions()
    }

    /// Waits up to `timeout_sec` until at least `n` subscriptions are
    /// matched; returns whether they are.
    fn wait_for_subscribers(&self, py: Python<'_>, n: usize, timeout_sec: f64) -> bool {
        let publisher = &self.inner;
        let timeout = Duration::try_from_secs_f64(timeout_sec.max(0.0)).unwrap_or(Duration::MAX);
        py.detach(|| publisher.wait_for_subscribers(n, timeout))
    }

    /// Waits up to `timeout_sec` (negative: as long as it takes) until every
    /// matched reliable subscription has acknowledged every message
    /// published so far; returns whether they have.
    fn wait_for_all_acked(&self, py: Python<'_>, timeout_sec: f64) -> bool {
        let publisher = &self.inner;
        let timeout = match timeout_sec < 0.0 {
            true => Duration::MAX,
            false => Duration::try_from_secs_f64(timeout_sec).unwrap_or(Duration::MAX),
        };
        py.detach(|| publisher.wait_for_all_acked(timeout))
    }
}

/// Receives messages of one type on one topic and calls a callback.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Subscription {
    inner: hibari::Subscription<Serialized>,
    undecodable: Arc<AtomicU64>,
    _local: LocalSubscription,
}

impl Subscription {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn create(
        py: Python<'_>,
        node: &hibari::Node,
        type_name: &str,
        topic: &str,
        qos: QosProfile,
        callback: Py<PyAny>,
        with_info: bool,
        raw: bool,
        group: &hibari::CallbackGroup,
        reporter: Reporter,
    ) -> PyResult<Self> {
        let schema = schema(py, type_name)?;
        // The class must exist before the first sample arrives.
        schema.class(py)?;
        let full_name = schema.type_name.clone();
        let undecodable = Arc::new(AtomicU64::new(0));
        let skipped = undecodable.clone();
        let deliver = move |bytes: CdrBytes, info: SampleInfo| {
            Python::attach(|py| {
                let message = if raw {
                    view::array(py, &bytes, 0, bytes.len(), Primitive::UInt8, false)
                } else {
                    decode(py, &schema, &bytes)
                };
                let Ok(message) = message else {
                    skipped.fetch_add(1, Ordering::Relaxed);
                    return;
                };
                let called = if with_info {
                    callback.call1(py, (message, PySampleInfo::new(info)))
                } else {
                    callback.call1(py, (message,))
                };
                reporter.finish(py, called.map(drop));
            });
        };
        let inner = node
            .create_generic_subscription(
                topic,
                &full_name,
                hibari::SubscriptionOptions::new(qos).callback_group(group),
                deliver,
            )
            .map_err(value_error)?;
        let _local = LocalSubscription::of(node, inner.topic());
        Ok(Subscription {
            inner,
            undecodable,
            _local,
        })
    }
}

#[pymethods]
impl Subscription {
    /// The fully qualified topic name.
    #[getter]
    fn topic_name(&self) -> &str {
        self.inner.topic()
    }

    /// How many publishers are matched now.
    fn get_publisher_count(&self) -> usize {
        self.inner.matched_publishers()
    }

    /// Samples skipped because their bytes were not a valid message.
    #[getter]
    fn undecodable_samples(&self) -> u64 {
        self.undecodable.load(Ordering::Relaxed) + self.inner.rejected_samples()
    }
}

/// Calls a callback periodically, on the executor spinning its node.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Timer {
    inner: hibari::Timer,
}

/// Runs the Python `callback()` as an executor callback.
fn call0(callback: &Py<PyAny>, reporter: &Reporter) {
    Python::attach(|py| reporter.finish(py, callback.call0(py).map(drop)));
}

impl Timer {
    pub(crate) fn create(
        node: &hibari::Node,
        period: Duration,
        callback: Py<PyAny>,
        group: &hibari::CallbackGroup,
        clock: Option<&hibari::Clock>,
        reporter: Reporter,
    ) -> PyResult<Self> {
        let mut options = TimerOptions::new(period).callback_group(group);
        if let Some(clock) = clock {
            options = options.clock(clock);
        }
        let inner = node
            .create_timer(options, move || call0(&callback, &reporter))
            .map_err(value_error)?;
        Ok(Timer { inner })
    }
}

#[pymethods]
impl Timer {
    /// Stops the timer until `reset()`.
    fn cancel(&self) {
        self.inner.cancel();
    }

    /// Whether the timer is canceled.
    fn is_canceled(&self) -> bool {
        self.inner.is_canceled()
    }

    /// Restarts the period from now (and un-cancels).
    fn reset(&self) {
        self.inner.reset();
    }

    /// The period, in ns.
    #[getter]
    fn timer_period_ns(&self) -> u128 {
        self.inner.period().as_nanos()
    }

    /// Time until the next call, in ns.
    fn time_until_next_call(&self) -> u128 {
        self.inner.time_until_trigger().as_nanos()
    }
}

/// Has the executor call a callback when triggered, from any thread.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct GuardCondition {
    inner: hibari::GuardCondition,
}

impl GuardCondition {
    pub(crate) fn create(
        node: &hibari::Node,
        callback: Py<PyAny>,
        group: &hibari::CallbackGroup,
        reporter: Reporter,
    ) -> Self {
        GuardCondition {
            inner: node.create_guard_condition(
                GuardConditionOptions::new().callback_group(group),
                move || call0(&callback, &reporter),
            ),
        }
    }
}

#[pymethods]
impl GuardCondition {
    /// Wakes the executor spinning the node, which then calls the callback.
    fn trigger(&self) {
        self.inner.trigger();
    }
}
