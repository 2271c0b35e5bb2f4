//! Quality of service, as in ROS 2.
//!
//! A [`QosProfile`] is what a writer *offers* or a reader *requests*:
//!
//! - **reliability**: [`Reliable`](Reliability::Reliable) means a sample
//!   queued for a reliable reader is never dropped for it: when the reader's
//!   queue is full the writer waits (bounded) or fails, see
//!   [`WhenFull`](crate::WhenFull). [`BestEffort`](Reliability::BestEffort)
//!   readers never slow the writer: when full they drop their oldest sample
//!   and count it in [`SampleInfo::lost_before`](crate::SampleInfo).
//! - **history** and depth: a reader queues at most `KeepLast(n)` samples, or
//!   with `KeepAll` up to its [`ResourceLimits`](crate::ResourceLimits). A
//!   transient-local writer keeps its last `n` samples for late joiners.
//! - **durability**: a [`TransientLocal`](Durability::TransientLocal) reader
//!   matched with a transient-local writer first receives the writer's kept
//!   samples; a volatile reader receives what is written after it matched
//!   (over DDS, possibly also earlier samples still in flight, as DDS allows).
//! - **deadline**, **liveliness** and its lease: promises checked when a
//!   writer and reader meet ([`check_compatibility`](crate::check_compatibility));
//!   monitoring them over time belongs to the runtime's timers.
//! - **lifespan**: a sample older than the writer's lifespan is dropped before
//!   a reader takes it.
//!
//! `None` durations mean infinite (ROS 2's `RMW_DURATION_INFINITE`).

use std::time::Duration;

/// Whether every sample must reach a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reliability {
    /// Never drop a queued sample; a full reader makes the writer wait or fail.
    Reliable,
    /// Drop the oldest sample of a full reader; never slow the writer.
    BestEffort,
}

/// How many samples are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum History {
    /// The last `n` samples (`n >= 1`).
    KeepLast(usize),
    /// All samples, bounded by the endpoint's resource limits.
    KeepAll,
}

/// Whether late joiners receive samples written before they matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Durability {
    /// Only samples written after matching.
    Volatile,
    /// The writer keeps its last `depth` samples and hands them to readers
    /// that match later and ask for them.
    TransientLocal,
}

/// How a writer shows it is alive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Liveliness {
    /// The middleware asserts it while the writer exists.
    Automatic,
    /// The application asserts it by writing (or asserting) on the topic.
    ManualByTopic,
}

/// A writer's offered or a reader's requested QoS.
///
/// Build one from a ROS 2 profile and adjust it:
/// ```
/// use hibari_transport::QosProfile;
/// use std::time::Duration;
/// let qos = QosProfile::sensor_data().keep_last(1).deadline(Duration::from_millis(100));
/// assert_eq!(qos.depth(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct QosProfile {
    /// Reliable or best effort.
    pub reliability: Reliability,
    /// Keep last `n` or keep all.
    pub history: History,
    /// Volatile or transient local.
    pub durability: Durability,
    /// Maximum period between samples (`None`: no deadline).
    pub deadline: Option<Duration>,
    /// How long a sample stays valid after it was written (`None`: forever).
    pub lifespan: Option<Duration>,
    /// Who asserts liveliness.
    pub liveliness: Liveliness,
    /// How long a writer may stay silent before it counts as not alive
    /// (`None`: forever).
    pub liveliness_lease: Option<Duration>,
}

impl Default for QosProfile {
    /// ROS 2's `rmw_qos_profile_default`: reliable, keep last 10, volatile.
    fn default() -> Self {
        QosProfile {
            reliability: Reliability::Reliable,
            history: History::KeepLast(10),
            durability: Durability::Volatile,
            deadline: None,
            lifespan: None,
            liveliness: Liveliness::Automatic,
            liveliness_lease: None,
        }
    }
}

impl QosProfile {
    /// `rmw_qos_profile_sensor_data`: best effort, keep last 5, volatile.
    pub fn sensor_data() -> Self {
        Self::default().best_effort().keep_last(5)
    }

    /// `rmw_qos_profile_services_default`: reliable, keep last 10, volatile.
    pub fn services_default() -> Self {
        Self::default()
    }

    /// `rmw_qos_profile_parameters`: reliable, keep last 1000, volatile.
    pub fn parameters() -> Self {
        Self::default().keep_last(1000)
    }

    /// `rmw_qos_profile_parameter_events`: reliable, keep last 1000, volatile.
    pub fn parameter_events() -> Self {
        Self::default().keep_last(1000)
    }

    /// `rcl_qos_profile_rosout_default`: reliable, keep last 1000, transient
    /// local, lifespan 10 s.
    pub fn rosout() -> Self {
        Self::default()
            .keep_last(1000)
            .transient_local()
            .lifespan(Duration::from_secs(10))
    }

    /// rclcpp's `ClockQoS`: best effort, keep last 1 (for `/clock`).
    pub fn clock() -> Self {
        Self::default().best_effort().keep_last(1)
    }

    /// `rmw_qos_profile_system_default`. ROS 2 leaves every policy to the
    /// middleware; hibari resolves them to DDS's defaults for a writer:
    /// reliable, keep last 1, volatile, automatic liveliness, no deadline.
    pub fn system_default() -> Self {
        Self::default().keep_last(1)
    }

    /// A "latched" topic: reliable, keep last `depth`, transient local — late
    /// joiners receive the last `depth` samples (ROS 1's `latch=True`).
    pub fn latched(depth: usize) -> Self {
        Self::default().keep_last(depth).transient_local()
    }

    /// Keep the last `n` samples.
    pub fn keep_last(mut self, n: usize) -> Self {
        self.history = History::KeepLast(n);
        self
    }

    /// Keep all samples (bounded by resource limits).
    pub fn keep_all(mut self) -> Self {
        self.history = History::KeepAll;
        self
    }

    /// Reliable delivery.
    pub fn reliable(mut self) -> Self {
        self.reliability = Reliability::Reliable;
        self
    }

    /// Best-effort delivery.
    pub fn best_effort(mut self) -> Self {
        self.reliability = Reliability::BestEffort;
        self
    }

    /// Volatile durability.
    pub fn volatile(mut self) -> Self {
        self.durability = Durability::Volatile;
        self
    }

    /// Transient-local durability (late joiners get the last `depth`).
    pub fn transient_local(mut self) -> Self {
        self.durability = Durability::TransientLocal;
        self
    }

    /// A deadline.
    pub fn deadline(mut self, period: Duration) -> Self {
        self.deadline = Some(period);
        self
    }

    /// A lifespan.
    pub fn lifespan(mut self, lifespan: Duration) -> Self {
        self.lifespan = Some(lifespan);
        self
    }

    /// The liveliness kind.
    pub fn liveliness(mut self, kind: Liveliness) -> Self {
        self.liveliness = kind;
        self
    }

    /// The liveliness lease duration.
    pub fn liveliness_lease(mut self, lease: Duration) -> Self {
        self.liveliness_lease = Some(lease);
        self
    }

    /// The history depth: `n` for keep last, 0 for keep all (as in rmw).
    pub fn depth(&self) -> usize {
        match self.history {
            History::KeepLast(n) => n,
            History::KeepAll => 0,
        }
    }

    /// Checks the profile on its own: a keep-last depth must be at least 1.
    pub fn validate(&self) -> Result<(), String> {
        if self.history == History::KeepLast(0) {
            return Err(
                "history keep_last(0) keeps nothing: use keep_last(1) or more, or keep_all()"
                    .into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_match_ros_2() {
        let d = QosProfile::default();
        assert_eq!(d.reliability, Reliability::Reliable);
        assert_eq!(d.history, History::KeepLast(10));
        assert_eq!(d.durability, Durability::Volatile);
        assert_eq!(d.liveliness, Liveliness::Automatic);
        assert_eq!(
            (d.deadline, d.lifespan, d.liveliness_lease),
            (None, None, None)
        );
        let s = QosProfile::sensor_data();
        assert_eq!(
            (s.reliability, s.history),
            (Reliability::BestEffort, History::KeepLast(5))
        );
        assert_eq!(QosProfile::services_default(), d);
        assert_eq!(QosProfile::parameters().depth(), 1000);
        assert_eq!(QosProfile::parameter_events().depth(), 1000);
        let r = QosProfile::rosout();
        assert_eq!(r.durability, Durability::TransientLocal);
        assert_eq!(r.lifespan, Some(Duration::from_secs(10)));
        let l = QosProfile::latched(3);
        assert_eq!((l.depth(), l.durability), (3, Durability::TransientLocal));
    }

    #[test]
    fn keep_last_zero_is_rejected_with_advice() {
        let err = QosProfile::default().keep_last(0).validate().unwrap_err();
        assert!(err.contains("keep_last(1)"), "{err}");
        assert!(QosProfile::default().keep_all().validate().is_ok());
    }
}
