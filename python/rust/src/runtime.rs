//! Contexts and nodes; a node creates every other entity.
//!
//! These classes are the private layer under `hibari.Node` & co.: they take
//! type names and QoS tuples, and the Python package turns message classes
//! and `QoSProfile`s into those.

use std::collections::BTreeMap;
use std::time::Duration;

use hibari::transports::Transport;
use pyo3::prelude::*;

use crate::endpoints::{GuardCondition, Publisher, Subscription, Timer};
use crate::errors::{value_error, Reporter};
use crate::executor::CallbackGroup;
use crate::qos::{profile, QosTuple};
use crate::services::{Client, Service};

/// One domain and its transport, with a shutdown switch.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Context {
    pub(crate) inner: hibari::Context,
}

/// Whether `context`'s transport reaches other processes.
pub(crate) fn reaches_other_processes(context: &hibari::Context) -> bool {
    let transport: &dyn Transport = &**context.transport();
    transport.kind() != "inproc"
}

#[pymethods]
impl Context {
    /// A context of `domain_id` (default: `ROS_DOMAIN_ID`, else 0), with
    /// the remapping rules found in `args` (`--ros-args -r from:=to`);
    /// `isolated` gives it a domain no other context reaches (for tests).
    #[new]
    #[pyo3(signature = (args = None, domain_id = None, isolated = false))]
    fn new(args: Option<Vec<String>>, domain_id: Option<u32>, isolated: bool) -> PyResult<Self> {
        let mut builder = hibari::Context::builder();
        if let Some(d) = domain_id {
            builder = builder.domain(d);
        }
        if let Some(args) = args {
            builder = builder.args(args);
        }
        if isolated {
            builder = builder.isolated();
        }
        let inner = builder.create().map_err(value_error)?;
        Ok(Context { inner })
    }

    /// Stops every executor spinning this context's nodes; no node can be
    /// created any more.
    fn shutdown(&self) {
        self.inner.shutdown();
    }

    /// Whether the context is not shut down.
    fn ok(&self) -> bool {
        !self.inner.is_shut_down()
    }

    /// The domain id.
    #[getter]
    fn domain_id(&self) -> u32 {
        self.inner.domain_id()
    }

    /// Whether this context's transport reaches other processes (shared
    /// memory, network), not only this one.
    fn has_interprocess(&self) -> bool {
        reaches_other_processes(&self.inner)
    }
}

/// Whether the default context reaches other processes.
#[pyfunction]
pub(crate) fn has_interprocess() -> PyResult<bool> {
    let context = hibari::Context::new().map_err(value_error)?;
    Ok(reaches_other_processes(&context))
}

/// A node: a name in a namespace, in one context.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Node {
    pub(crate) inner: hibari::Node,
    /// Where its callbacks report: the executor that has it.
    pub(crate) reporter: Reporter,
}

fn duration(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(Duration::MAX)
}

#[pymethods]
impl Node {
    /// A node named `name` in `namespace` of `context`, with its parameter
    /// options (rclpy's `Node` keywords).
    #[new]
    #[pyo3(signature = (
        context, name, namespace = "/", parameter_overrides = Vec::new(),
        allow_undeclared_parameters = false,
        automatically_declare_parameters_from_overrides = false,
        start_parameter_services = true,
    ))]
    #[allow(clippy::too_many_arguments)] // rclpy's `Node` keywords, one each
    fn new(
        py: Python<'_>,
        context: &Context,
        name: &str,
        namespace: &str,
        parameter_overrides: Vec<(String, Py<PyAny>)>,
        allow_undeclared_parameters: bool,
        automatically_declare_parameters_from_overrides: bool,
        start_parameter_services: bool,
    ) -> PyResult<Self> {
        let mut options = hibari::NodeOptions::new()
            .namespace(namespace)
            .allow_undeclared_parameters(allow_undeclared_parameters)
            .automatically_declare_parameters_from_overrides(
                automatically_declare_parameters_from_overrides,
            )
            .start_parameter_services(start_parameter_services);
        for (name, value) in parameter_overrides {
            options =
                options.parameter_override(&name, crate::parameters::to_value(value.bind(py))?);
        }
        let inner = context
            .inner
            .create_node_with_options(name, options)
            .map_err(value_error)?;
        Ok(Node {
            inner,
            reporter: Reporter::default(),
        })
    }

    /// The node's name (after remapping).
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The node's namespace (after remapping).
    #[getter]
    fn namespace(&self) -> &str {
        self.inner.namespace()
    }

    /// `/namespace/name`.
    #[getter]
    fn fully_qualified_name(&self) -> String {
        self.inner.fully_qualified_name()
    }

    /// The topic `topic` stands for from this node (expanded, remapped).
    fn resolve_topic_name(&self, topic: &str) -> PyResult<String> {
        self.inner.resolve_topic_name(topic).map_err(value_error)
    }

    /// A publisher of the message type `type_name` on `topic`.
    fn create_publisher(
        &self,
        py: Python<'_>,
        type_name: &str,
        topic: &str,
        qos: QosTuple,
    ) -> PyResult<Publisher> {
        Publisher::create(py, &self.inner, type_name, topic, profile(qos)?)
    }

    /// A subscription calling `callback(msg)` (or `callback(msg, info)`
    /// when `with_info`; `msg` is a read-only uint8 numpy array of the CDR
    /// bytes when `raw`).
    #[pyo3(signature = (type_name, topic, qos, callback, with_info = false, raw = false, group = None))]
    #[allow(clippy::too_many_arguments)]
    fn create_subscription(
        &self,
        py: Python<'_>,
        type_name: &str,
        topic: &str,
        qos: QosTuple,
        callback: Py<PyAny>,
        with_info: bool,
        raw: bool,
        group: Option<&CallbackGroup>,
    ) -> PyResult<Subscription> {
        Subscription::create(
            py,
            &self.inner,
            type_name,
            topic,
            profile(qos)?,
            callback,
            with_info,
            raw,
            &self.group(group),
            self.reporter.clone(),
        )
    }

    /// A subscription for asyncio: messages wait in a queue of the QoS depth.
    fn create_async_subscription(
        &self,
        py: Python<'_>,
        type_name: &str,
        topic: &str,
        qos: QosTuple,
    ) -> PyResult<crate::aio::AsyncSubscription> {
        crate::aio::AsyncSubscription::create(py, &self.inner, type_name, topic, profile(qos)?)
    }

    /// A timer calling `callback()` every `period_sec` seconds, in `group`
    /// (default: the node's, mutually exclusive), on `clock` (default: the
    /// node's).
    #[pyo3(signature = (period_sec, callback, group = None, clock = None))]
    fn create_timer(
        &self,
        period_sec: f64,
        callback: Py<PyAny>,
        group: Option<&CallbackGroup>,
        clock: Option<&crate::clock::Clock>,
    ) -> PyResult<Timer> {
        let group = self.group(group);
        Timer::create(
            &self.inner,
            duration(period_sec),
            callback,
            &group,
            clock.map(|c| &c.inner),
            self.reporter.clone(),
        )
    }

    /// A guard condition: `trigger()` it to have the executor call
    /// `callback()`, in `group` (default: the node's).
    #[pyo3(signature = (callback, group = None))]
    fn create_guard_condition(
        &self,
        callback: Py<PyAny>,
        group: Option<&CallbackGroup>,
    ) -> GuardCondition {
        GuardCondition::create(
            &self.inner,
            callback,
            &self.group(group),
            self.reporter.clone(),
        )
    }

    /// The node's default group (mutually exclusive): what entities created
    /// without a group join.
    fn default_callback_group(&self) -> CallbackGroup {
        CallbackGroup {
            inner: self.inner.default_callback_group(),
        }
    }

    /// A new callback group, reentrant or mutually exclusive; it may hold
    /// entities of any node.
    fn create_callback_group(&self, reentrant: bool) -> CallbackGroup {
        CallbackGroup::new(&self.inner, reentrant)
    }

    /// A server of the service type `type_name` (`pkg/srv/S`) named `name`,
    /// answering with `callback(request, response) -> response`.
    #[pyo3(signature = (type_name, name, qos, callback, group = None))]
    fn create_service(
        &self,
        py: Python<'_>,
        type_name: &str,
        name: &str,
        qos: QosTuple,
        callback: Py<PyAny>,
        group: Option<&CallbackGroup>,
    ) -> PyResult<Service> {
        let options = hibari::ServiceOptions::new(profile(qos)?).callback_group(&self.group(group));
        Service::create(
            py,
            &self.inner,
            type_name,
            name,
            options,
            callback,
            self.reporter.clone(),
        )
    }

    /// A client of the service type `type_name` named `name`.
    fn create_client(
        &self,
        py: Python<'_>,
        type_name: &str,
        name: &str,
        qos: QosTuple,
    ) -> PyResult<Client> {
        Client::create(py, &self.inner, type_name, name, profile(qos)?)
    }

    /// How many publishers `topic` has (from every node).
    fn count_publishers(&self, topic: &str) -> PyResult<usize> {
        self.inner.count_publishers(topic).map_err(value_error)
    }

    /// How many subscriptions `topic` has (from every node).
    fn count_subscribers(&self, topic: &str) -> PyResult<usize> {
        self.inner.count_subscribers(topic).map_err(value_error)
    }

    /// Every topic seen, with its types.
    fn get_topic_names_and_types(&self) -> BTreeMap<String, Vec<String>> {
        self.inner.get_topic_names_and_types()
    }

    /// Every service seen, with its types.
    fn get_service_names_and_types(&self) -> BTreeMap<String, Vec<String>> {
        self.inner.get_service_names_and_types()
    }

    /// The names of every node seen.
    fn get_node_names(&self) -> Vec<String> {
        self.inner.get_node_names()
    }

    /// Waits up to `timeout_sec` for the node `fully_qualified_name` to
    /// appear; returns whether it did.
    fn wait_for_node(&self, py: Python<'_>, fully_qualified_name: &str, timeout_sec: f64) -> bool {
        let node = &self.inner;
        py.detach(|| node.wait_for_node(fully_qualified_name, duration(timeout_sec)))
    }
}

impl Node {
    /// `group`'s hibari group, or the node's default one.
    pub(crate) fn group(&self, group: Option<&CallbackGroup>) -> hibari::CallbackGroup {
        group.map_or_else(|| self.inner.default_callback_group(), |g| g.inner.clone())
    }
}

/// Converts a timeout in seconds (None: forever).
pub(crate) fn timeout(seconds: Option<f64>) -> Option<Duration> {
    seconds.map(duration)
}
