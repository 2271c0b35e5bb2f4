//! hibari's [`QosProfile`] as DDS QoS policies and back, one to one as
//! rmw_fastrtps maps them (`rmw_dds_common/src/qos.cpp`,
//! `fill_entity_qos_from_profile`): reliability, durability, history and
//! depth, deadline, lifespan, liveliness and its lease. Durations that are
//! `None` (infinite) are left out (DDS's default is infinite).

use std::time::Duration;

use hibari_transport::{
    Durability, History, Liveliness, QosProfile, Reliability, ResourceLimits, WhenFull,
};
use rustdds::policy;
use rustdds::{QosPolicies, QosPolicyBuilder};

/// DDS's default `max_blocking_time` (100 ms), for readers and for writers
/// that never wait.
const DEFAULT_BLOCKING: Duration = Duration::from_millis(100);

fn dds_duration(d: Duration) -> rustdds::Duration {
    rustdds::Duration::from_std(d)
}

/// `None` for DDS's infinite (and anything longer than a century). RTPS
/// durations count 2⁻³² s, so a whole number of µs comes back one ns short
/// at worst: that ns is put back.
fn std_duration(d: rustdds::Duration) -> Option<Duration> {
    if d == rustdds::Duration::INFINITE {
        return None;
    }
    let mut std = d.to_std();
    if std.subsec_nanos() % 1000 == 999 {
        std += Duration::from_nanos(1);
    }
    (std < Duration::from_secs(100 * 365 * 86_400)).then_some(std)
}

/// The least keep-last depth a reader's engine cache gets (see
/// [`engine_reader`]).
pub const ENGINE_READER_DEPTH: usize = 256;

/// The profile a reader's engine (RustDDS) cache is created with: a keep-last
/// depth of at least [`ENGINE_READER_DEPTH`]. The event thread drains that
/// cache into hibari's queue, which keeps the reader's own depth and counts
/// what it drops as lost; a cache only as deep as the reader would itself
/// replace samples the thread had not drained yet (under load), and those
/// losses would go uncounted when they precede a writer's first drained
/// sample. SEDP carries no history, so peers see the same reader.
pub fn engine_reader(qos: &QosProfile) -> QosProfile {
    let mut q = *qos;
    if let History::KeepLast(n) = q.history {
        q.history = History::KeepLast(n.max(ENGINE_READER_DEPTH));
    }
    q
}

/// The DDS policies of an endpoint with `qos`; `limits` bound a keep-all
/// history, `when_full` sets a reliable writer's blocking time.
pub fn to_dds(
    qos: &QosProfile,
    limits: &ResourceLimits,
    when_full: Option<WhenFull>,
) -> QosPolicies {
    let blocking = match when_full {
        Some(WhenFull::Block { timeout }) => timeout,
        Some(WhenFull::Fail) => Duration::ZERO,
        None => DEFAULT_BLOCKING,
    };
    let mut b = QosPolicyBuilder::new()
        .reliability(match qos.reliability {
            Reliability::Reliable => policy::Reliability::Reliable {
                max_blocking_time: dds_duration(blocking),
            },
            Reliability::BestEffort => policy::Reliability::BestEffort,
        })
        .durability(match qos.durability {
            Durability::Volatile => policy::Durability::Volatile,
            Durability::TransientLocal => policy::Durability::TransientLocal,
        })
        .history(match qos.history {
            History::KeepLast(n) => policy::History::KeepLast {
                depth: i32::try_from(n).unwrap_or(i32::MAX),
            },
            History::KeepAll => policy::History::KeepAll,
        });
    if qos.history == History::KeepAll {
        let max = i32::try_from(limits.max_samples).unwrap_or(i32::MAX);
        b = b.resource_limits(policy::ResourceLimits {
            max_samples: max,
            max_instances: 1,
            max_samples_per_instance: max,
        });
    }
    if let Some(d) = qos.deadline {
        b = b.deadline(policy::Deadline(dds_duration(d)));
    }
    if let Some(d) = qos.lifespan {
        b = b.lifespan(policy::Lifespan {
            duration: dds_duration(d),
        });
    }
    let lease_duration = qos
        .liveliness_lease
        .map_or(rustdds::Duration::INFINITE, dds_duration);
    b = b.liveliness(match qos.liveliness {
        Liveliness::Automatic => policy::Liveliness::Automatic { lease_duration },
        Liveliness::ManualByTopic => policy::Liveliness::ManualByTopic { lease_duration },
    });
    b.build()
}

/// The profile a remote endpoint's DDS policies stand for; what it leaves out
/// takes DDS's default for its side (`writer`: a writer's reliability
/// defaults to reliable, a reader's to best effort). SEDP carries no history:
/// keep last 1 unless the peer says otherwise (see `routing`).
pub fn from_dds(q: &QosPolicies, writer: bool) -> QosProfile {
    let mut p = QosProfile::default();
    p.reliability = match q.reliability() {
        Some(policy::Reliability::BestEffort) => Reliability::BestEffort,
        Some(policy::Reliability::Reliable { .. }) => Reliability::Reliable,
        // DDS defaults: writers reliable, readers best effort.
        None if writer => Reliability::Reliable,
        None => Reliability::BestEffort,
    };
    p.durability = match q.durability() {
        Some(policy::Durability::Volatile) | None => Durability::Volatile,
        Some(_) => Durability::TransientLocal,
    };
    p.history = match q.history() {
        Some(policy::History::KeepAll) => History::KeepAll,
        Some(policy::History::KeepLast { depth }) => {
            History::KeepLast(usize::try_from(depth).unwrap_or(1).max(1))
        }
        None => History::KeepLast(1),
    };
    p.deadline = q.deadline().and_then(|d| std_duration(d.0));
    p.lifespan = q.lifespan().and_then(|l| std_duration(l.duration));
    match q.liveliness() {
        Some(policy::Liveliness::Automatic { lease_duration }) => {
            p.liveliness = Liveliness::Automatic;
            p.liveliness_lease = std_duration(lease_duration);
        }
        Some(
            policy::Liveliness::ManualByTopic { lease_duration }
            | policy::Liveliness::ManualByParticipant { lease_duration },
        ) => {
            p.liveliness = Liveliness::ManualByTopic;
            p.liveliness_lease = std_duration(lease_duration);
        }
        None => {
            p.liveliness = Liveliness::Automatic;
            p.liveliness_lease = None;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_policy_survives_the_round_trip() {
        let ms = Duration::from_millis;
        let profiles = [
            QosProfile::default(),
            QosProfile::sensor_data(),
            QosProfile::latched(3).keep_all(),
            QosProfile::default()
                .deadline(ms(100))
                .lifespan(ms(2500))
                .liveliness(Liveliness::ManualByTopic)
                .liveliness_lease(ms(700)),
        ];
        for p in profiles {
            let dds = to_dds(&p, &ResourceLimits::default(), None);
            assert_eq!(from_dds(&dds, true), p, "{dds:?}");
            assert_eq!(from_dds(&dds, false), p, "{dds:?}");
        }
    }

    #[test]
    fn a_keep_all_history_is_bounded_by_the_limits() {
        let limits = ResourceLimits {
            max_samples: 5,
            ..ResourceLimits::default()
        };
        let dds = to_dds(&QosProfile::default().keep_all(), &limits, None);
        assert_eq!(dds.resource_limits().map(|r| r.max_samples), Some(5));
    }

    #[test]
    fn a_reader_engine_cache_is_at_least_engine_depth_deep() {
        let shallow = engine_reader(&QosProfile::default().keep_last(3));
        assert_eq!(shallow.history, History::KeepLast(ENGINE_READER_DEPTH));
        let deep = QosProfile::default().keep_last(ENGINE_READER_DEPTH + 1);
        assert_eq!(engine_reader(&deep), deep);
        let all = QosProfile::default().keep_all();
        assert_eq!(engine_reader(&all), all);
    }
}
