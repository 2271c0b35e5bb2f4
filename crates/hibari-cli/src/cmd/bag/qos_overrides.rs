//! `hibari bag play --qos-profile-overrides-path FILE`: the QoS to offer on
//! chosen topics instead of what the bag recorded, in the YAML file
//! `ros2 bag play` reads:
//!
//! ```yaml
//! /chatter:
//!   reliability: best_effort
//!   durability: volatile
//!   history: keep_last
//!   depth: 5
//!   deadline:
//!     sec: 1
//!     nsec: 0
//! ```
//!
//! Topics are the bag's names (before `--remap`), as rosbag2 keys them. A
//! policy left out takes ROS 2's default (reliable, volatile, keep last 10,
//! automatic liveliness, no deadline, lifespan or lease); policies are rmw's
//! names in any case (`BEST_EFFORT` too) or their integers. An override
//! replaces the recorded profile whole.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context as _, Result};
use hibari::QosProfile;
use yaml_rust2::{Yaml, YamlLoader};

use super::qos::{OfferedQos, DURABILITY, HISTORY, LIVELINESS, RELIABILITY};

/// The keys a profile may have, with the names its policy takes (none for
/// depth, durations and the flag).
const KEYS: [(&str, &[&str]); 9] = [
    ("history", &HISTORY),
    ("depth", &[]),
    ("reliability", &RELIABILITY),
    ("durability", &DURABILITY),
    ("deadline", &[]),
    ("lifespan", &[]),
    ("liveliness", &LIVELINESS),
    ("liveliness_lease_duration", &[]),
    ("avoid_ros_namespace_conventions", &[]),
];

/// Reads the overrides file: topic name → the profile to offer.
pub fn read(path: &Path) -> Result<BTreeMap<String, QosProfile>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the QoS overrides {}", path.display()))?;
    parse(&text).with_context(|| format!("in the QoS overrides {}", path.display()))
}

pub fn parse(text: &str) -> Result<BTreeMap<String, QosProfile>> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| anyhow!("bad YAML: {e}"))?;
    let topics = match docs.first() {
        None | Some(Yaml::Null) => return Ok(BTreeMap::new()),
        Some(Yaml::Hash(h)) => h,
        Some(other) => bail!("expected `/topic: {{policy: value, …}}` entries, found {other:?}"),
    };
    let mut out = BTreeMap::new();
    for (topic, profile) in topics {
        let Some(name) = topic.as_str() else {
            bail!("the topic {topic:?} is not a name");
        };
        let name = if name.starts_with('/') {
            name.to_string()
        } else {
            format!("/{name}")
        };
        check(profile).with_context(|| format!("topic {name}"))?;
        let qos = OfferedQos::from_yaml(profile).with_context(|| format!("topic {name}"))?;
        out.insert(name, qos.to_profile());
    }
    Ok(out)
}

/// Refuses unknown keys and policy names, which would otherwise fall back
/// to defaults unseen.
fn check(profile: &Yaml) -> Result<()> {
    let Some(entries) = profile.as_hash() else {
        bail!("the profile is {profile:?}, not a mapping of policies");
    };
    for (key, value) in entries {
        let key = key.as_str().unwrap_or_default();
        let Some((_, names)) = KEYS.iter().find(|(k, _)| *k == key) else {
            let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
            bail!("unknown QoS key `{key}`; the keys are {}", known.join(", "));
        };
        if let Yaml::String(v) = value {
            let known = names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(v) && *n != "unknown");
            if names.is_empty() || !known {
                let names: Vec<&str> = names.iter().copied().filter(|n| *n != "unknown").collect();
                bail!(
                    "`{key}: {v}` is not a value it takes{}",
                    if names.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", names.join(", "))
                    }
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari::{Durability, History, Reliability};
    use std::time::Duration;

    #[test]
    fn a_rosbag2_overrides_file_gives_each_topic_its_profile() {
        let text = "/chatter:\n  reliability: best_effort\n  durability: volatile\n  \
                    history: keep_last\n  depth: 5\n  deadline:\n    sec: 1\n    nsec: 500\n\
                    scan:\n  durability: TRANSIENT_LOCAL\n  history: keep_all\n";
        let got = parse(text).unwrap();
        let chatter = &got["/chatter"];
        assert_eq!(chatter.reliability, Reliability::BestEffort);
        assert_eq!(chatter.durability, Durability::Volatile);
        assert_eq!(chatter.history, History::KeepLast(5));
        assert_eq!(
            chatter.deadline,
            Some(Duration::from_secs(1) + Duration::from_nanos(500))
        );
        let scan = &got["/scan"];
        assert_eq!(scan.reliability, Reliability::Reliable);
        assert_eq!(scan.durability, Durability::TransientLocal);
        assert_eq!(scan.history, History::KeepAll);
    }

    #[test]
    fn policies_left_out_take_ros_defaults_and_integers_are_rmw_values() {
        let got = parse("/a: {reliability: 2}\n/b: {}\n").unwrap();
        assert_eq!(got["/a"].reliability, Reliability::BestEffort);
        assert_eq!(got["/b"], QosProfile::default());
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn unknown_keys_and_names_are_errors_that_list_what_is_known() {
        let e = format!("{:#}", parse("/a: {reliability: bestefort}").unwrap_err());
        assert!(e.contains("topic /a"), "{e}");
        assert!(
            e.contains("`reliability: bestefort` is not a value it takes (system_default, reliable, best_effort, best_available)"),
            "{e}"
        );
        let e = format!("{:#}", parse("/a: {relyability: reliable}").unwrap_err());
        assert!(e.contains("unknown QoS key `relyability`"), "{e}");
        let e = format!("{:#}", parse("- /a").unwrap_err());
        assert!(e.contains("expected `/topic: {policy: value, …}`"), "{e}");
        let e = format!("{:#}", parse("/a: best_effort").unwrap_err());
        assert!(e.contains("not a mapping of policies"), "{e}");
    }
}
