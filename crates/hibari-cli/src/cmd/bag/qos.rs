//! QoS as rosbag2 stores it: `offered_qos_profiles`, one entry per publisher
//! the recorder saw, with rmw's policies.
//!
//! Version 9 of the metadata (Jazzy) writes the policies as names
//! (`keep_last`, `reliable`, …); version 8 and older as rmw integers. Both
//! are read. In `metadata.yaml` the list is a YAML sequence (version 9) or a
//! string holding one (version 8); in an MCAP channel's metadata it is always
//! that string. Durations are `{sec, nsec}`, with `9223372036.854775807`
//! (and the Foxy-era values past `2^31 - 1` seconds) meaning infinite.

use std::fmt::Write as _;
use std::time::Duration;

use anyhow::{bail, Result};
use hibari::{QosProfile, TopicEndpointInfo};
use yaml_rust2::Yaml;

/// `RMW_DURATION_INFINITE`.
const INFINITE: (u64, u64) = (9_223_372_036, 854_775_807);

/// One publisher's offered QoS, as rmw's integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfferedQos {
    pub history: u8,
    pub depth: u64,
    pub reliability: u8,
    pub durability: u8,
    pub deadline: (u64, u64),
    pub lifespan: (u64, u64),
    pub liveliness: u8,
    pub liveliness_lease_duration: (u64, u64),
    pub avoid_ros_namespace_conventions: bool,
}

fn rmw_time(d: Option<Duration>) -> (u64, u64) {
    d.map_or(INFINITE, |d| (d.as_secs(), u64::from(d.subsec_nanos())))
}

/// `None` for unspecified `{0, 0}` and anything infinite.
fn duration((sec, nsec): (u64, u64)) -> Option<Duration> {
    if (sec == 0 && nsec == 0) || sec >= 0x7FFF_FFFF {
        return None;
    }
    Some(Duration::from_secs(sec) + Duration::from_nanos(nsec))
}

impl OfferedQos {
    pub fn from_profile(qos: &QosProfile) -> Self {
        let rmw = qos.to_rmw();
        OfferedQos {
            history: rmw.history,
            depth: rmw.depth as u64,
            reliability: rmw.reliability,
            durability: rmw.durability,
            deadline: rmw_time(qos.deadline),
            lifespan: rmw_time(qos.lifespan),
            liveliness: rmw.liveliness,
            liveliness_lease_duration: rmw_time(qos.liveliness_lease),
            avoid_ros_namespace_conventions: false,
        }
    }

    /// The profile a publisher offers when it plays this back. SYSTEM_DEFAULT
    /// and unknown values keep ROS 2's defaults (reliable, volatile, keep last 10).
    pub fn to_profile(self) -> QosProfile {
        let mut q = QosProfile::default();
        q = match (self.history, self.depth) {
            (2, _) => q.keep_all(),
            (_, 0) => q,
            (_, depth) => q.keep_last(usize::try_from(depth).unwrap_or(usize::MAX)),
        };
        if self.reliability == 2 {
            q = q.best_effort();
        }
        if self.durability == 1 {
            q = q.transient_local();
        }
        if let Some(d) = duration(self.deadline) {
            q = q.deadline(d);
        }
        if let Some(d) = duration(self.lifespan) {
            q = q.lifespan(d);
        }
        if self.liveliness == 3 {
            q = q.liveliness(hibari::Liveliness::ManualByTopic);
        }
        if let Some(d) = duration(self.liveliness_lease_duration) {
            q = q.liveliness_lease(d);
        }
        q
    }

    /// The YAML mapping's lines (version 9 names), the first prefixed by
    /// `first`, the others by `rest`.
    fn write_yaml(&self, out: &mut String, first: &str, rest: &str) {
        let time = |out: &mut String, key: &str, (sec, nsec): (u64, u64)| {
            let _ = write!(
                out,
                "{rest}{key}:\n{rest}  sec: {sec}\n{rest}  nsec: {nsec}\n"
            );
        };
        let _ = writeln!(out, "{first}history: {}", history_name(self.history));
        let _ = writeln!(out, "{rest}depth: {}", self.depth);
        let _ = writeln!(
            out,
            "{rest}reliability: {}",
            reliability_name(self.reliability)
        );
        let _ = writeln!(
            out,
            "{rest}durability: {}",
            durability_name(self.durability)
        );
        time(out, "deadline", self.deadline);
        time(out, "lifespan", self.lifespan);
        let _ = writeln!(
            out,
            "{rest}liveliness: {}",
            liveliness_name(self.liveliness)
        );
        time(
            out,
            "liveliness_lease_duration",
            self.liveliness_lease_duration,
        );
        let _ = writeln!(
            out,
            "{rest}avoid_ros_namespace_conventions: {}",
            self.avoid_ros_namespace_conventions
        );
    }

    /// The policies by name, durations in ns (`null`: infinite), for `--json`.
    pub fn to_json(self) -> serde_json::Value {
        let ns = |t| duration(t).map(|d| d.as_nanos() as u64);
        serde_json::json!({
            "history": history_name(self.history),
            "depth": self.depth,
            "reliability": reliability_name(self.reliability),
            "durability": durability_name(self.durability),
            "deadline_ns": ns(self.deadline),
            "lifespan_ns": ns(self.lifespan),
            "liveliness": liveliness_name(self.liveliness),
            "liveliness_lease_duration_ns": ns(self.liveliness_lease_duration),
        })
    }

    pub(super) fn from_yaml(y: &Yaml) -> Result<Self> {
        let policy = |key: &str, names: &[&str]| -> Result<u8> {
            match &y[key] {
                Yaml::Integer(v) => Ok(u8::try_from(*v).unwrap_or(u8::MAX)),
                Yaml::String(s) => Ok(names
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(s))
                    .map_or(u8::MAX, |i| i as u8)),
                Yaml::BadValue | Yaml::Null => Ok(0),
                other => bail!("`{key}` is {other:?}, not a QoS policy"),
            }
        };
        let time = |key: &str| -> (u64, u64) {
            let part = |k: &str| y[key][k].as_i64().map_or(0, |v| v.max(0) as u64);
            (part("sec"), part("nsec"))
        };
        Ok(OfferedQos {
            history: policy("history", &HISTORY)?,
            depth: y["depth"].as_i64().map_or(0, |v| v.max(0) as u64),
            reliability: policy("reliability", &RELIABILITY)?,
            durability: policy("durability", &DURABILITY)?,
            deadline: time("deadline"),
            lifespan: time("lifespan"),
            liveliness: policy("liveliness", &LIVELINESS)?,
            liveliness_lease_duration: time("liveliness_lease_duration"),
            avoid_ros_namespace_conventions: y["avoid_ros_namespace_conventions"]
                .as_bool()
                .unwrap_or(false),
        })
    }
}

// rmw's names, indexed by the policy's integer (rmw/qos_string_conversions.c).
pub(super) const HISTORY: [&str; 4] = ["system_default", "keep_last", "keep_all", "unknown"];
pub(super) const RELIABILITY: [&str; 5] = [
    "system_default",
    "reliable",
    "best_effort",
    "unknown",
    "best_available",
];
pub(super) const DURABILITY: [&str; 5] = [
    "system_default",
    "transient_local",
    "volatile",
    "unknown",
    "best_available",
];
pub(super) const LIVELINESS: [&str; 6] = [
    "system_default",
    "automatic",
    "manual_by_node",
    "manual_by_topic",
    "unknown",
    "best_available",
];

fn name(names: &[&'static str], v: u8) -> &'static str {
    names.get(usize::from(v)).copied().unwrap_or("unknown")
}
fn history_name(v: u8) -> &'static str {
    name(&HISTORY, v)
}
fn reliability_name(v: u8) -> &'static str {
    name(&RELIABILITY, v)
}
fn durability_name(v: u8) -> &'static str {
    name(&DURABILITY, v)
}
fn liveliness_name(v: u8) -> &'static str {
    name(&LIVELINESS, v)
}

/// The list as a YAML block sequence, each line prefixed by `indent`
/// (`[]` when empty, on the caller's line).
pub fn to_yaml(profiles: &[OfferedQos], indent: &str) -> String {
    let mut out = String::new();
    let rest = format!("{indent}  ");
    for p in profiles {
        p.write_yaml(&mut out, &format!("{indent}- "), &rest);
    }
    out
}

/// The string stored in an MCAP channel's `offered_qos_profiles`.
pub fn to_yaml_string(profiles: &[OfferedQos]) -> String {
    if profiles.is_empty() {
        return "[]".into();
    }
    let mut text = to_yaml(profiles, "");
    text.truncate(text.trim_end().len());
    text
}

/// A sequence (version 9) or a string holding one (version 8 and MCAP channels).
pub fn from_yaml(y: &Yaml) -> Result<Vec<OfferedQos>> {
    match y {
        Yaml::Array(items) => items.iter().map(OfferedQos::from_yaml).collect(),
        Yaml::String(text) => parse_string(text),
        Yaml::Null | Yaml::BadValue => Ok(Vec::new()),
        other => bail!("offered_qos_profiles is {other:?}, not a list"),
    }
}

pub fn parse_string(text: &str) -> Result<Vec<OfferedQos>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(text)
        .map_err(|e| anyhow::anyhow!("offered_qos_profiles is not YAML: {e}"))?;
    match docs.first() {
        Some(y @ Yaml::Array(_)) => from_yaml(y),
        Some(Yaml::Null) | None => Ok(Vec::new()),
        Some(other) => bail!("offered_qos_profiles is {other:?}, not a list"),
    }
}

/// What a recorder requests to hear every publisher (rosbag2's
/// `adapt_request_to_offers`): reliable only if all are, transient local
/// only if all are; a deep queue, so that bursts are not dropped.
pub fn request_for(publishers: &[TopicEndpointInfo]) -> QosProfile {
    crate::cmd::common::qos::adapted(publishers).keep_last(1000)
}

/// What a player offers for a topic (rosbag2's
/// `adapt_offer_to_recorded_offers`): the recorded profile when every
/// publisher offered the same (history aside), with ROS's default depth;
/// else, or when nothing was recorded, ROS's default profile.
pub fn offer_for(recorded: &[OfferedQos]) -> QosProfile {
    let Some(first) = recorded.first() else {
        return QosProfile::default();
    };
    let same = recorded.iter().all(|p| {
        p.reliability == first.reliability
            && p.durability == first.durability
            && p.deadline == first.deadline
            && p.liveliness == first.liveliness
            && p.liveliness_lease_duration == first.liveliness_lease_duration
    });
    if !same {
        return QosProfile::default();
    }
    first.to_profile().keep_last(10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari::Reliability;

    #[test]
    fn profiles_survive_the_version_9_yaml_string() {
        let profiles = [
            OfferedQos::from_profile(&QosProfile::default()),
            OfferedQos::from_profile(&QosProfile::sensor_data().transient_local()),
        ];
        let text = to_yaml_string(&profiles);
        assert!(
            text.starts_with("- history: keep_last\n  depth: 10\n"),
            "{text}"
        );
        assert!(text.contains("  reliability: best_effort\n"), "{text}");
        assert_eq!(parse_string(&text).unwrap(), profiles);
    }

    #[test]
    fn version_8_integers_are_read() {
        let text = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  \
                    deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  lifespan:\n    \
                    sec: 0\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    \
                    sec: 0\n    nsec: 0\n  avoid_ros_namespace_conventions: false";
        let p = &parse_string(text).unwrap()[0];
        assert_eq!((p.history, p.reliability, p.durability), (3, 1, 2));
        let q = p.to_profile();
        assert_eq!(q.reliability, Reliability::Reliable);
        assert_eq!(q.deadline, None);
    }
}
