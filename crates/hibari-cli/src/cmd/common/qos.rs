//! QoS on the command line, as `ros2 topic echo|pub` take it, and as
//! `ros2 topic info -v` prints it.

use std::time::Duration;

use clap::{Args, ValueEnum};
use hibari::{Durability, History, Liveliness, QosProfile, Reliability, TopicEndpointInfo};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProfileArg {
    #[value(name = "system_default")]
    SystemDefault,
    #[value(name = "sensor_data")]
    SensorData,
    #[value(name = "services_default")]
    ServicesDefault,
    #[value(name = "parameters")]
    Parameters,
    #[value(name = "parameter_events")]
    ParameterEvents,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReliabilityArg {
    #[value(name = "reliable")]
    Reliable,
    #[value(name = "best_effort")]
    BestEffort,
    #[value(name = "system_default")]
    SystemDefault,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DurabilityArg {
    #[value(name = "volatile")]
    Volatile,
    #[value(name = "transient_local")]
    TransientLocal,
    #[value(name = "system_default")]
    SystemDefault,
}

/// `--qos-profile`, `--qos-reliability`, `--qos-durability`, `--qos-depth`,
/// `--qos-history`.
#[derive(Args, Debug, Clone, Default)]
pub struct QosArgs {
    /// Start from this profile (without any `--qos-*`: adapt to the publishers,
    /// as ros2 does; with some, start from `sensor_data` when subscribing).
    #[arg(long, value_enum)]
    pub qos_profile: Option<ProfileArg>,
    /// Reliability (overrides the profile's).
    #[arg(long, value_enum)]
    pub qos_reliability: Option<ReliabilityArg>,
    /// Durability (overrides the profile's).
    #[arg(long, value_enum)]
    pub qos_durability: Option<DurabilityArg>,
    /// Queue depth of keep-last history.
    #[arg(long)]
    pub qos_depth: Option<usize>,
    /// `keep_last` or `keep_all`.
    #[arg(long, value_parser = ["keep_last", "keep_all", "system_default"])]
    pub qos_history: Option<String>,
}

impl QosArgs {
    fn given(&self) -> bool {
        self.qos_profile.is_some()
            || self.qos_reliability.is_some()
            || self.qos_durability.is_some()
            || self.qos_depth.is_some()
            || self.qos_history.is_some()
    }

    /// The QoS a subscription asks for: what the user gave, else
    /// `ros2`'s `choose_qos` — reliable and transient local only when every
    /// publisher offers them, so that every publisher matches.
    pub fn for_subscription(&self, publishers: &[TopicEndpointInfo]) -> QosProfile {
        if self.given() {
            return self.apply(QosProfile::sensor_data());
        }
        if publishers.is_empty() {
            // Whatever publisher comes, a best-effort volatile reader matches it.
            return QosProfile::default().best_effort();
        }
        adapted(publishers)
    }

    /// The QoS a publisher offers: ROS 2's default unless told otherwise.
    pub fn for_publisher(&self) -> QosProfile {
        self.apply(QosProfile::default())
    }

    fn apply(&self, start: QosProfile) -> QosProfile {
        let mut qos = match self.qos_profile {
            None => start,
            Some(ProfileArg::SystemDefault) => QosProfile::system_default(),
            Some(ProfileArg::SensorData) => QosProfile::sensor_data(),
            Some(ProfileArg::ServicesDefault) => QosProfile::services_default(),
            Some(ProfileArg::Parameters) => QosProfile::parameters(),
            Some(ProfileArg::ParameterEvents) => QosProfile::parameter_events(),
        };
        match self.qos_reliability {
            Some(ReliabilityArg::Reliable) => qos = qos.reliable(),
            Some(ReliabilityArg::BestEffort) => qos = qos.best_effort(),
            _ => {}
        }
        match self.qos_durability {
            Some(DurabilityArg::Volatile) => qos = qos.volatile(),
            Some(DurabilityArg::TransientLocal) => qos = qos.transient_local(),
            _ => {}
        }
        if self.qos_history.as_deref() == Some("keep_all") {
            qos = qos.keep_all();
        }
        if let Some(depth) = self.qos_depth {
            qos = qos.keep_last(depth.max(1));
        }
        qos
    }
}

/// ROS 2's default QoS adapted to the publishers of a topic, as `ros2 topic
/// echo` and `ros2 bag record` adapt it: reliable only when every publisher
/// is, transient local only when there are publishers and every one is, so
/// that every publisher matches and none is asked for more than it offers.
pub fn adapted(publishers: &[TopicEndpointInfo]) -> QosProfile {
    let mut qos = QosProfile::default();
    if publishers
        .iter()
        .any(|p| p.qos.reliability == Reliability::BestEffort)
    {
        qos = qos.best_effort();
    }
    if !publishers.is_empty()
        && publishers
            .iter()
            .all(|p| p.qos.durability == Durability::TransientLocal)
    {
        qos = qos.transient_local();
    }
    qos
}

/// The `QoS profile:` block of `ros2 topic info -v`, indented by two.
pub fn describe(qos: &QosProfile) -> String {
    let reliability = match qos.reliability {
        Reliability::Reliable => "RELIABLE",
        Reliability::BestEffort => "BEST_EFFORT",
    };
    let history = match qos.history {
        History::KeepLast(n) => format!("KEEP_LAST ({n})"),
        History::KeepAll => "KEEP_ALL".to_owned(),
    };
    let durability = match qos.durability {
        Durability::Volatile => "VOLATILE",
        Durability::TransientLocal => "TRANSIENT_LOCAL",
    };
    let liveliness = match qos.liveliness {
        Liveliness::Automatic => "AUTOMATIC",
        Liveliness::ManualByTopic => "MANUAL_BY_TOPIC",
    };
    format!(
        "QoS profile:\n  Reliability: {reliability}\n  History (Depth): {history}\n  \
         Durability: {durability}\n  Lifespan: {}\n  Deadline: {}\n  Liveliness: {liveliness}\n  \
         Liveliness lease duration: {}\n",
        duration(qos.lifespan),
        duration(qos.deadline),
        duration(qos.liveliness_lease),
    )
}

/// `Infinite` or nanoseconds, as `ros2 topic info -v` prints durations.
fn duration(d: Option<Duration>) -> String {
    match d {
        None => "Infinite".to_owned(),
        Some(d) => format!("{} nanoseconds", d.as_nanos()),
    }
}

/// The QoS as JSON, for `--json` output.
pub fn json(qos: &QosProfile) -> serde_json::Value {
    let (history, depth) = match qos.history {
        History::KeepLast(n) => ("keep_last", n),
        History::KeepAll => ("keep_all", 0),
    };
    let ns = |d: Option<Duration>| d.map(|d| d.as_nanos() as u64);
    serde_json::json!({
        "reliability": match qos.reliability { Reliability::Reliable => "reliable", Reliability::BestEffort => "best_effort" },
        "history": history,
        "depth": depth,
        "durability": match qos.durability { Durability::Volatile => "volatile", Durability::TransientLocal => "transient_local" },
        "deadline_ns": ns(qos.deadline),
        "lifespan_ns": ns(qos.lifespan),
        "liveliness": match qos.liveliness { Liveliness::Automatic => "automatic", Liveliness::ManualByTopic => "manual_by_topic" },
        "liveliness_lease_ns": ns(qos.liveliness_lease),
    })
}
