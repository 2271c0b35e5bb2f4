//! Request/offered matching (DDS "RxO"), with ROS 2's policy names.
//!
//! A writer offers, a reader requests; they match when the offer is at least
//! as strong as the request on every policy:
//!
//! | policy                      | incompatible when                                  |
//! |-----------------------------|----------------------------------------------------|
//! | `reliability`               | best effort offered, reliable requested            |
//! | `durability`                | volatile offered, transient local requested        |
//! | `deadline`                  | offered period longer than requested (none = ∞)    |
//! | `liveliness`                | automatic offered, manual by topic requested       |
//! | `liveliness_lease_duration` | offered lease longer than requested (none = ∞)     |
//!
//! History, depth and lifespan never prevent a match.

use std::fmt;
use std::time::Duration;

use crate::qos::{Durability, Liveliness, QosProfile, Reliability};

/// A QoS policy, as `rmw_qos_policy_kind_t` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QosPolicyKind {
    /// `durability`
    Durability,
    /// `deadline`
    Deadline,
    /// `liveliness`
    Liveliness,
    /// `reliability`
    Reliability,
    /// `history`
    History,
    /// `lifespan`
    Lifespan,
    /// `depth`
    Depth,
    /// `liveliness_lease_duration`
    LivelinessLeaseDuration,
}

impl QosPolicyKind {
    /// The name `rmw_qos_policy_kind_to_str` gives (`"reliability"`, …).
    pub const fn ros_name(self) -> &'static str {
        match self {
            QosPolicyKind::Durability => "durability",
            QosPolicyKind::Deadline => "deadline",
            QosPolicyKind::Liveliness => "liveliness",
            QosPolicyKind::Reliability => "reliability",
            QosPolicyKind::History => "history",
            QosPolicyKind::Lifespan => "lifespan",
            QosPolicyKind::Depth => "depth",
            QosPolicyKind::LivelinessLeaseDuration => "liveliness_lease_duration",
        }
    }

    /// The `rmw_qos_policy_kind_t` bit (`RMW_QOS_POLICY_RELIABILITY` = 1 << 4).
    pub const fn rmw_bit(self) -> u32 {
        match self {
            QosPolicyKind::Durability => 1 << 1,
            QosPolicyKind::Deadline => 1 << 2,
            QosPolicyKind::Liveliness => 1 << 3,
            QosPolicyKind::Reliability => 1 << 4,
            QosPolicyKind::History => 1 << 5,
            QosPolicyKind::Lifespan => 1 << 6,
            QosPolicyKind::Depth => 1 << 7,
            QosPolicyKind::LivelinessLeaseDuration => 1 << 8,
        }
    }
}

impl fmt::Display for QosPolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ros_name())
    }
}

/// One policy on which an offer falls short of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QosMismatch {
    /// Best effort offered, reliable requested.
    Reliability {
        /// The writer's.
        offered: Reliability,
        /// The reader's.
        requested: Reliability,
    },
    /// Volatile offered, transient local requested.
    Durability {
        /// The writer's.
        offered: Durability,
        /// The reader's.
        requested: Durability,
    },
    /// The offered deadline is longer than the requested one.
    Deadline {
        /// The writer's (`None` = infinite).
        offered: Option<Duration>,
        /// The reader's.
        requested: Option<Duration>,
    },
    /// Automatic offered, manual by topic requested.
    Liveliness {
        /// The writer's.
        offered: Liveliness,
        /// The reader's.
        requested: Liveliness,
    },
    /// The offered lease is longer than the requested one.
    LivelinessLease {
        /// The writer's (`None` = infinite).
        offered: Option<Duration>,
        /// The reader's.
        requested: Option<Duration>,
    },
}

impl QosMismatch {
    /// The policy this mismatch is about.
    pub const fn policy(&self) -> QosPolicyKind {
        match self {
            QosMismatch::Reliability { .. } => QosPolicyKind::Reliability,
            QosMismatch::Durability { .. } => QosPolicyKind::Durability,
            QosMismatch::Deadline { .. } => QosPolicyKind::Deadline,
            QosMismatch::Liveliness { .. } => QosPolicyKind::Liveliness,
            QosMismatch::LivelinessLease { .. } => QosPolicyKind::LivelinessLeaseDuration,
        }
    }
}

struct Dur(Option<Duration>);

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("infinite"),
            Some(d) => write!(f, "{d:?}"),
        }
    }
}

impl fmt::Display for QosMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            QosMismatch::Reliability { .. } => f.write_str(
                "reliability: the publisher offers BEST_EFFORT but the subscription requests \
                 RELIABLE (make the publisher reliable or the subscription best effort)",
            ),
            QosMismatch::Durability { .. } => f.write_str(
                "durability: the publisher offers VOLATILE but the subscription requests \
                 TRANSIENT_LOCAL (make the publisher transient local or the subscription volatile)",
            ),
            QosMismatch::Deadline { offered, requested } => write!(
                f,
                "deadline: the publisher offers {} but the subscription requests {} \
                 (the offered period must not be longer)",
                Dur(offered),
                Dur(requested)
            ),
            QosMismatch::Liveliness { .. } => f.write_str(
                "liveliness: the publisher offers AUTOMATIC but the subscription requests \
                 MANUAL_BY_TOPIC",
            ),
            QosMismatch::LivelinessLease { offered, requested } => write!(
                f,
                "liveliness_lease_duration: the publisher offers {} but the subscription \
                 requests {} (the offered lease must not be longer)",
                Dur(offered),
                Dur(requested)
            ),
        }
    }
}

/// Why a writer and a reader were not matched: every policy that failed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QosIncompatibility {
    /// The failed policies, in the order of the table above; never empty.
    pub mismatches: Vec<QosMismatch>,
}

impl QosIncompatibility {
    /// The first failed policy (what rmw reports as `last_policy_kind`).
    pub fn policy(&self) -> QosPolicyKind {
        self.mismatches[0].policy()
    }

    /// Whether `policy` is among the failed ones.
    pub fn involves(&self, policy: QosPolicyKind) -> bool {
        self.mismatches.iter().any(|m| m.policy() == policy)
    }
}

impl fmt::Display for QosIncompatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("incompatible QoS: ")?;
        for (i, m) in self.mismatches.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{m}")?;
        }
        Ok(())
    }
}

impl std::error::Error for QosIncompatibility {}

/// `None` is infinite, so it is the longest.
fn longer(offered: Option<Duration>, requested: Option<Duration>) -> bool {
    match (offered, requested) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(o), Some(r)) => o > r,
    }
}

/// Whether a writer offering `offered` may serve a reader requesting
/// `requested`; if not, every policy that fails and why.
pub fn check_compatibility(
    offered: &QosProfile,
    requested: &QosProfile,
) -> Result<(), QosIncompatibility> {
    let mut mismatches = Vec::new();
    if offered.reliability == Reliability::BestEffort
        && requested.reliability == Reliability::Reliable
    {
        mismatches.push(QosMismatch::Reliability {
            offered: offered.reliability,
            requested: requested.reliability,
        });
    }
    if offered.durability < requested.durability {
        mismatches.push(QosMismatch::Durability {
            offered: offered.durability,
            requested: requested.durability,
        });
    }
    if longer(offered.deadline, requested.deadline) {
        mismatches.push(QosMismatch::Deadline {
            offered: offered.deadline,
            requested: requested.deadline,
        });
    }
    if offered.liveliness < requested.liveliness {
        mismatches.push(QosMismatch::Liveliness {
            offered: offered.liveliness,
            requested: requested.liveliness,
        });
    }
    if longer(offered.liveliness_lease, requested.liveliness_lease) {
        mismatches.push(QosMismatch::LivelinessLease {
            offered: offered.liveliness_lease,
            requested: requested.liveliness_lease,
        });
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(QosIncompatibility { mismatches })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policies(o: &QosProfile, r: &QosProfile) -> Vec<&'static str> {
        match check_compatibility(o, r) {
            Ok(()) => vec![],
            Err(e) => e.mismatches.iter().map(|m| m.policy().ros_name()).collect(),
        }
    }

    #[test]
    fn a_stronger_offer_matches_a_weaker_request() {
        let strong = QosProfile::latched(1)
            .deadline(Duration::from_millis(10))
            .liveliness(Liveliness::ManualByTopic)
            .liveliness_lease(Duration::from_millis(10));
        assert!(check_compatibility(&strong, &QosProfile::sensor_data()).is_ok());
        assert!(check_compatibility(&strong, &strong).is_ok());
        assert!(check_compatibility(&QosProfile::default(), &QosProfile::default()).is_ok());
    }

    #[test]
    fn each_weaker_offer_names_its_policy() {
        let d = QosProfile::default();
        assert_eq!(policies(&d.best_effort(), &d), ["reliability"]);
        assert_eq!(policies(&d, &d.transient_local()), ["durability"]);
        let ms = Duration::from_millis;
        assert_eq!(policies(&d, &d.deadline(ms(5))), ["deadline"]);
        assert_eq!(
            policies(&d.deadline(ms(6)), &d.deadline(ms(5))),
            ["deadline"]
        );
        assert!(policies(&d.deadline(ms(5)), &d.deadline(ms(5))).is_empty());
        assert_eq!(
            policies(&d, &d.liveliness(Liveliness::ManualByTopic)),
            ["liveliness"]
        );
        assert_eq!(
            policies(&d, &d.liveliness_lease(ms(5))),
            ["liveliness_lease_duration"]
        );
    }

    #[test]
    fn all_failed_policies_are_reported_and_explained() {
        let err = check_compatibility(
            &QosProfile::sensor_data(),
            &QosProfile::latched(1).deadline(Duration::from_secs(1)),
        )
        .unwrap_err();
        assert_eq!(err.policy(), QosPolicyKind::Reliability);
        assert!(err.involves(QosPolicyKind::Durability));
        assert!(err.involves(QosPolicyKind::Deadline));
        let text = err.to_string();
        assert!(
            text.contains("BEST_EFFORT") && text.contains("TRANSIENT_LOCAL"),
            "{text}"
        );
        assert!(text.contains("infinite"), "{text}");
        assert_eq!(QosPolicyKind::Reliability.rmw_bit(), 16);
    }
}
