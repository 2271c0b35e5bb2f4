//! QoS profiles from Python, and the sample info every message comes with.

use std::time::Duration;

use hibari::{Durability, History, Liveliness, QosProfile, Reliability, SampleInfo as RsInfo};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A QoS profile as `hibari.qos.QoSProfile._as_tuple()` passes it:
/// `(reliability, history, depth, durability, deadline_ns, lifespan_ns,
/// liveliness, lease_ns)`, policies as strings, durations in ns or `None`
/// for infinite.
pub(crate) type QosTuple = (
    String,
    String,
    usize,
    String,
    Option<u64>,
    Option<u64>,
    String,
    Option<u64>,
);

/// The Rust profile of a Python one.
pub(crate) fn profile(t: QosTuple) -> PyResult<QosProfile> {
    let (reliability, history, depth, durability, deadline, lifespan, liveliness, lease) = t;
    let mut q = QosProfile::default();
    q = match reliability.as_str() {
        "reliable" | "system_default" => q.reliable(),
        "best_effort" => q.best_effort(),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown reliability `{other}`"
            )))
        }
    };
    q = match history.as_str() {
        "keep_last" | "system_default" => q.keep_last(depth.max(1)),
        "keep_all" => q.keep_all(),
        other => return Err(PyValueError::new_err(format!("unknown history `{other}`"))),
    };
    q = match durability.as_str() {
        "volatile" | "system_default" => q.volatile(),
        "transient_local" => q.transient_local(),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown durability `{other}`"
            )))
        }
    };
    q = match liveliness.as_str() {
        "automatic" | "system_default" => q.liveliness(Liveliness::Automatic),
        "manual_by_topic" => q.liveliness(Liveliness::ManualByTopic),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown liveliness `{other}`"
            )))
        }
    };
    if let Some(ns) = deadline {
        q = q.deadline(Duration::from_nanos(ns));
    }
    if let Some(ns) = lifespan {
        q = q.lifespan(Duration::from_nanos(ns));
    }
    if let Some(ns) = lease {
        q = q.liveliness_lease(Duration::from_nanos(ns));
    }
    q.validate().map_err(PyValueError::new_err)?;
    Ok(q)
}

fn ns(d: Option<Duration>) -> Option<u64> {
    d.map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The tuple of one of ROS 2's named profiles, from the runtime's own
/// definitions: `default`, `sensor_data`, `services_default`, `parameters`,
/// `parameter_events`, `rosout`, `clock`, `system_default`.
#[pyfunction]
pub(crate) fn qos_preset(name: &str) -> PyResult<QosTuple> {
    let q = match name {
        "default" => QosProfile::default(),
        "sensor_data" => QosProfile::sensor_data(),
        "services_default" => QosProfile::services_default(),
        "parameters" => QosProfile::parameters(),
        "parameter_events" => QosProfile::parameter_events(),
        "rosout" => QosProfile::rosout(),
        "clock" => QosProfile::clock(),
        "system_default" => QosProfile::system_default(),
        other => {
            return Err(PyValueError::new_err(format!(
                "no QoS profile named `{other}`"
            )))
        }
    };
    let (history, depth) = match q.history {
        History::KeepLast(n) => ("keep_last", n),
        History::KeepAll => ("keep_all", q.depth()),
    };
    Ok((
        match q.reliability {
            Reliability::Reliable => "reliable",
            Reliability::BestEffort => "best_effort",
        }
        .into(),
        history.into(),
        depth,
        match q.durability {
            Durability::Volatile => "volatile",
            Durability::TransientLocal => "transient_local",
        }
        .into(),
        ns(q.deadline),
        ns(q.lifespan),
        match q.liveliness {
            Liveliness::Automatic => "automatic",
            Liveliness::ManualByTopic => "manual_by_topic",
        }
        .into(),
        ns(q.liveliness_lease),
    ))
}

/// What came with a message: who sent it, when, its place in the sender's
/// stream, and what was lost just before it.
#[pyclass(frozen, module = "hibari._hibari", name = "SampleInfo")]
pub struct PySampleInfo {
    info: RsInfo,
}

impl PySampleInfo {
    pub(crate) fn new(info: RsInfo) -> Self {
        PySampleInfo { info }
    }
}

#[pymethods]
impl PySampleInfo {
    /// Position in the publisher's stream: its first message is 1, each
    /// later one exactly one more.
    #[getter]
    fn sequence(&self) -> u64 {
        self.info.sequence
    }

    /// When the publisher wrote the message, ns since the UNIX epoch.
    #[getter]
    fn source_timestamp(&self) -> i64 {
        self.info.source_timestamp_ns
    }

    /// When the message reached this subscription, ns since the UNIX epoch.
    #[getter]
    fn reception_timestamp(&self) -> i64 {
        self.info.reception_timestamp_ns
    }

    /// Reception minus source timestamp, in seconds.
    #[getter]
    fn latency(&self) -> f64 {
        self.info.latency().as_secs_f64()
    }

    /// Reception minus source timestamp, in ns.
    #[getter]
    fn latency_ns(&self) -> u64 {
        u64::try_from(self.info.latency().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The 16-byte id of the publisher (its GID).
    #[getter]
    fn publisher_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.info.publisher_id.as_bytes())
    }

    /// Messages of this publisher lost by this subscription just before this one.
    #[getter]
    fn lost_before(&self) -> u64 {
        self.info.lost_before
    }

    fn __repr__(&self) -> String {
        format!(
            "SampleInfo(sequence={}, publisher_id={}, latency_ns={}, lost_before={})",
            self.info.sequence,
            self.info.publisher_id,
            self.latency_ns(),
            self.info.lost_before
        )
    }
}
