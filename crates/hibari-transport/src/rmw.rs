//! The rmw integer encoding of QoS (ros2/rmw `rmw/types.h`), as found in
//! rosbag2 metadata (`offered_qos_profiles`), MCAP channels and rmw_zenoh's
//! liveliness tokens.
//!
//! | policy      | 0              | 1               | 2           | 3               | 4              | 5              |
//! |-------------|----------------|-----------------|-------------|-----------------|----------------|----------------|
//! | reliability | SYSTEM_DEFAULT | RELIABLE        | BEST_EFFORT | UNKNOWN         | BEST_AVAILABLE |                |
//! | history     | SYSTEM_DEFAULT | KEEP_LAST       | KEEP_ALL    | UNKNOWN         |                |                |
//! | durability  | SYSTEM_DEFAULT | TRANSIENT_LOCAL | VOLATILE    | UNKNOWN         | BEST_AVAILABLE |                |
//! | liveliness  | SYSTEM_DEFAULT | AUTOMATIC       |             | MANUAL_BY_TOPIC | UNKNOWN        | BEST_AVAILABLE |
//!
//! Durations are `{sec, nsec}`; `{0, 0}` (unspecified) and
//! `{9223372036, 854775807}` (infinite) both mean "none".

use std::time::Duration;

use crate::qos::{Durability, History, Liveliness, QosProfile, Reliability};

/// `RMW_DURATION_INFINITE` as `(sec, nsec)`.
pub const RMW_DURATION_INFINITE: RmwTime = RmwTime {
    sec: 9_223_372_036,
    nsec: 854_775_807,
};

/// An `rmw_time_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RmwTime {
    /// Seconds.
    pub sec: u64,
    /// Nanoseconds.
    pub nsec: u64,
}

impl RmwTime {
    /// `None` (infinite) becomes `RMW_DURATION_INFINITE`.
    pub fn from_duration(d: Option<Duration>) -> Self {
        match d {
            None => RMW_DURATION_INFINITE,
            Some(d) => RmwTime {
                sec: d.as_secs(),
                nsec: u64::from(d.subsec_nanos()),
            },
        }
    }

    /// Unspecified `{0, 0}` and anything at or past infinite become `None`.
    pub fn to_duration(self) -> Option<Duration> {
        let total = u128::from(self.sec) * 1_000_000_000 + u128::from(self.nsec);
        let infinite = u128::from(RMW_DURATION_INFINITE.sec) * 1_000_000_000
            + u128::from(RMW_DURATION_INFINITE.nsec);
        if total == 0 || total >= infinite {
            None
        } else {
            Some(Duration::new(self.sec, 0) + Duration::from_nanos(self.nsec))
        }
    }
}

impl Reliability {
    /// The rmw value: RELIABLE 1, BEST_EFFORT 2.
    pub const fn to_rmw(self) -> u8 {
        match self {
            Reliability::Reliable => 1,
            Reliability::BestEffort => 2,
        }
    }

    /// RELIABLE and BEST_EFFORT; `None` for SYSTEM_DEFAULT, UNKNOWN,
    /// BEST_AVAILABLE and anything else, which the caller resolves.
    pub const fn from_rmw(v: u8) -> Option<Self> {
        match v {
            1 => Some(Reliability::Reliable),
            2 => Some(Reliability::BestEffort),
            _ => None,
        }
    }
}

impl Durability {
    /// The rmw value: TRANSIENT_LOCAL 1, VOLATILE 2.
    pub const fn to_rmw(self) -> u8 {
        match self {
            Durability::TransientLocal => 1,
            Durability::Volatile => 2,
        }
    }

    /// TRANSIENT_LOCAL and VOLATILE; `None` otherwise.
    pub const fn from_rmw(v: u8) -> Option<Self> {
        match v {
            1 => Some(Durability::TransientLocal),
            2 => Some(Durability::Volatile),
            _ => None,
        }
    }
}

impl Liveliness {
    /// The rmw value: AUTOMATIC 1, MANUAL_BY_TOPIC 3.
    pub const fn to_rmw(self) -> u8 {
        match self {
            Liveliness::Automatic => 1,
            Liveliness::ManualByTopic => 3,
        }
    }

    /// AUTOMATIC and MANUAL_BY_TOPIC; `None` otherwise (2, the removed
    /// MANUAL_BY_NODE, included).
    pub const fn from_rmw(v: u8) -> Option<Self> {
        match v {
            1 => Some(Liveliness::Automatic),
            3 => Some(Liveliness::ManualByTopic),
            _ => None,
        }
    }
}

impl History {
    /// The rmw `(history, depth)`: KEEP_LAST 1 with its depth, KEEP_ALL 2 with 0.
    pub const fn to_rmw(self) -> (u8, usize) {
        match self {
            History::KeepLast(n) => (1, n),
            History::KeepAll => (2, 0),
        }
    }

    /// KEEP_LAST (a depth of 0, "system default", becomes 1) and KEEP_ALL;
    /// `None` otherwise.
    pub const fn from_rmw(v: u8, depth: usize) -> Option<Self> {
        match v {
            1 => Some(History::KeepLast(if depth == 0 { 1 } else { depth })),
            2 => Some(History::KeepAll),
            _ => None,
        }
    }
}

/// An `rmw_qos_profile_t` with its enums as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RmwQosProfile {
    /// History kind.
    pub history: u8,
    /// Depth.
    pub depth: usize,
    /// Reliability kind.
    pub reliability: u8,
    /// Durability kind.
    pub durability: u8,
    /// Deadline.
    pub deadline: RmwTime,
    /// Lifespan.
    pub lifespan: RmwTime,
    /// Liveliness kind.
    pub liveliness: u8,
    /// Liveliness lease duration.
    pub liveliness_lease_duration: RmwTime,
}

impl QosProfile {
    /// The rmw integers of this profile (never SYSTEM_DEFAULT).
    pub fn to_rmw(&self) -> RmwQosProfile {
        let (history, depth) = self.history.to_rmw();
        RmwQosProfile {
            history,
            depth,
            reliability: self.reliability.to_rmw(),
            durability: self.durability.to_rmw(),
            deadline: RmwTime::from_duration(self.deadline),
            lifespan: RmwTime::from_duration(self.lifespan),
            liveliness: self.liveliness.to_rmw(),
            liveliness_lease_duration: RmwTime::from_duration(self.liveliness_lease),
        }
    }

    /// A profile from rmw integers. SYSTEM_DEFAULT and UNKNOWN take the value
    /// of [`QosProfile::system_default`]; BEST_AVAILABLE (a reader's "match
    /// anything") takes the value that is compatible with every writer: best
    /// effort, volatile, automatic.
    pub fn from_rmw(rmw: &RmwQosProfile) -> Self {
        let sys = QosProfile::system_default();
        let best_available = |v: u8, avail: u8| v == avail;
        QosProfile {
            reliability: Reliability::from_rmw(rmw.reliability).unwrap_or(
                if best_available(rmw.reliability, 4) {
                    Reliability::BestEffort
                } else {
                    sys.reliability
                },
            ),
            history: History::from_rmw(rmw.history, rmw.depth).unwrap_or(if rmw.depth > 0 {
                History::KeepLast(rmw.depth)
            } else {
                sys.history
            }),
            durability: Durability::from_rmw(rmw.durability).unwrap_or(
                if best_available(rmw.durability, 4) {
                    Durability::Volatile
                } else {
                    sys.durability
                },
            ),
            deadline: rmw.deadline.to_duration(),
            lifespan: rmw.lifespan.to_duration(),
            liveliness: Liveliness::from_rmw(rmw.liveliness).unwrap_or(
                if best_available(rmw.liveliness, 5) {
                    Liveliness::Automatic
                } else {
                    sys.liveliness
                },
            ),
            liveliness_lease: rmw.liveliness_lease_duration.to_duration(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_have_the_rmw_integers() {
        assert_eq!(Reliability::Reliable.to_rmw(), 1);
        assert_eq!(Reliability::BestEffort.to_rmw(), 2);
        assert_eq!(Durability::TransientLocal.to_rmw(), 1);
        assert_eq!(Durability::Volatile.to_rmw(), 2);
        assert_eq!(Liveliness::Automatic.to_rmw(), 1);
        assert_eq!(Liveliness::ManualByTopic.to_rmw(), 3);
        assert_eq!(History::KeepLast(7).to_rmw(), (1, 7));
        assert_eq!(History::KeepAll.to_rmw(), (2, 0));
        assert_eq!(Reliability::from_rmw(0), None);
        assert_eq!(Liveliness::from_rmw(2), None);
    }

    #[test]
    fn profiles_round_trip_through_rmw_integers() {
        for qos in [
            QosProfile::default(),
            QosProfile::sensor_data(),
            QosProfile::rosout(),
            QosProfile::latched(1)
                .keep_all()
                .deadline(Duration::from_millis(30))
                .liveliness(Liveliness::ManualByTopic)
                .liveliness_lease(Duration::new(2, 5)),
        ] {
            assert_eq!(QosProfile::from_rmw(&qos.to_rmw()), qos);
        }
    }

    #[test]
    fn infinite_and_unspecified_durations_are_none() {
        assert_eq!(RMW_DURATION_INFINITE.to_duration(), None);
        assert_eq!(RmwTime::default().to_duration(), None);
        assert_eq!(RmwTime::from_duration(None), RMW_DURATION_INFINITE);
        let t = RmwTime { sec: 1, nsec: 500 };
        assert_eq!(t.to_duration(), Some(Duration::new(1, 500)));
    }

    #[test]
    fn system_default_and_best_available_resolve() {
        let rmw = RmwQosProfile {
            history: 0,
            depth: 0,
            reliability: 4,
            durability: 0,
            deadline: RmwTime::default(),
            lifespan: RmwTime::default(),
            liveliness: 5,
            liveliness_lease_duration: RmwTime::default(),
        };
        let q = QosProfile::from_rmw(&rmw);
        assert_eq!(q.reliability, Reliability::BestEffort);
        assert_eq!(q.durability, QosProfile::system_default().durability);
        assert_eq!(q.history, QosProfile::system_default().history);
        assert_eq!(q.liveliness, Liveliness::Automatic);
    }
}
