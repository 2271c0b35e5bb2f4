//! `metadata.yaml`: rosbag2's description of a bag (`rosbag2_bagfile_information`).
//!
//! Written as rosbag2 of Jazzy writes it (version 9, yaml-cpp's block
//! style); read from any version rosbag2 and rosbags write (4 and later:
//! older ones lack the QoS and file lists, which are then left empty).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{anyhow, bail, Context as _, Result};
use yaml_rust2::{Yaml, YamlLoader};

use super::qos::{self, OfferedQos};

/// The version written.
pub const VERSION: i64 = 9;

/// A bag's metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct BagMetadata {
    pub version: i64,
    pub storage_identifier: String,
    pub relative_file_paths: Vec<String>,
    pub files: Vec<FileInfo>,
    pub duration_ns: u64,
    /// `i64::MAX` when the bag holds no message (as rosbag2 writes it).
    pub starting_time_ns: i64,
    pub message_count: u64,
    pub topics: Vec<TopicInfo>,
    pub compression_format: String,
    pub compression_mode: String,
    pub custom_data: Vec<(String, String)>,
    pub ros_distro: String,
}

/// A topic and how many of its messages the bag holds.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicInfo {
    pub name: String,
    pub type_name: String,
    pub serialization_format: String,
    pub offered_qos: Vec<OfferedQos>,
    pub type_description_hash: String,
    pub message_count: u64,
}

/// One storage file of the bag.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    pub path: String,
    pub starting_time_ns: i64,
    pub duration_ns: u64,
    pub message_count: u64,
}

impl BagMetadata {
    /// An empty MCAP bag of Jazzy.
    pub fn new() -> Self {
        BagMetadata {
            version: VERSION,
            storage_identifier: "mcap".into(),
            relative_file_paths: Vec::new(),
            files: Vec::new(),
            duration_ns: 0,
            starting_time_ns: i64::MAX,
            message_count: 0,
            topics: Vec::new(),
            compression_format: String::new(),
            compression_mode: String::new(),
            custom_data: Vec::new(),
            ros_distro: "jazzy".into(),
        }
    }

    /// The end of the last message, or `None` without messages.
    pub fn end_ns(&self) -> Option<i64> {
        (self.message_count > 0).then(|| {
            self.starting_time_ns
                .saturating_add(i64::try_from(self.duration_ns).unwrap_or(i64::MAX))
        })
    }

    /// The text of `metadata.yaml`.
    pub fn to_yaml(&self) -> String {
        let mut out = String::from("rosbag2_bagfile_information:\n");
        self.write_fields(&mut out, "  ");
        out
    }

    /// The fields alone, unindented: what rosbag2 puts in the MCAP metadata
    /// record `rosbag2` under `serialized_metadata`.
    pub fn to_serialized(&self) -> String {
        let mut out = String::new();
        self.write_fields(&mut out, "");
        out
    }

    fn write_fields(&self, out: &mut String, i: &str) {
        let _ = writeln!(out, "{i}version: {}", self.version);
        let _ = writeln!(
            out,
            "{i}storage_identifier: {}",
            scalar(&self.storage_identifier)
        );
        let _ = writeln!(out, "{i}duration:\n{i}  nanoseconds: {}", self.duration_ns);
        let _ = writeln!(
            out,
            "{i}starting_time:\n{i}  nanoseconds_since_epoch: {}",
            self.starting_time_ns
        );
        let _ = writeln!(out, "{i}message_count: {}", self.message_count);
        if self.topics.is_empty() {
            let _ = writeln!(out, "{i}topics_with_message_count: []");
        } else {
            let _ = writeln!(out, "{i}topics_with_message_count:");
        }
        for t in &self.topics {
            let _ = writeln!(out, "{i}  - topic_metadata:");
            let _ = writeln!(out, "{i}      name: {}", scalar(&t.name));
            let _ = writeln!(out, "{i}      type: {}", scalar(&t.type_name));
            let _ = writeln!(
                out,
                "{i}      serialization_format: {}",
                scalar(&t.serialization_format)
            );
            if t.offered_qos.is_empty() {
                let _ = writeln!(out, "{i}      offered_qos_profiles: []");
            } else {
                let _ = writeln!(out, "{i}      offered_qos_profiles:");
                out.push_str(&qos::to_yaml(&t.offered_qos, &format!("{i}        ")));
            }
            let _ = writeln!(
                out,
                "{i}      type_description_hash: {}",
                scalar(&t.type_description_hash)
            );
            let _ = writeln!(out, "{i}    message_count: {}", t.message_count);
        }
        let _ = writeln!(
            out,
            "{i}compression_format: {}",
            scalar(&self.compression_format)
        );
        let _ = writeln!(
            out,
            "{i}compression_mode: {}",
            scalar(&self.compression_mode)
        );
        let _ = writeln!(out, "{i}relative_file_paths:");
        for p in &self.relative_file_paths {
            let _ = writeln!(out, "{i}  - {}", scalar(p));
        }
        let _ = writeln!(out, "{i}files:");
        for f in &self.files {
            let _ = writeln!(out, "{i}  - path: {}", scalar(&f.path));
            let _ = writeln!(
                out,
                "{i}    starting_time:\n{i}      nanoseconds_since_epoch: {}",
                f.starting_time_ns
            );
            let _ = writeln!(
                out,
                "{i}    duration:\n{i}      nanoseconds: {}",
                f.duration_ns
            );
            let _ = writeln!(out, "{i}    message_count: {}", f.message_count);
        }
        if self.custom_data.is_empty() {
            let _ = writeln!(out, "{i}custom_data: ~");
        } else {
            let _ = writeln!(out, "{i}custom_data:");
            for (k, v) in &self.custom_data {
                let _ = writeln!(out, "{i}  {}: {}", scalar(k), scalar(v));
            }
        }
        let _ = writeln!(out, "{i}ros_distro: {}", scalar(&self.ros_distro));
    }

    /// Reads `metadata.yaml`.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("{} is not rosbag2 metadata", path.display()))
    }

    pub fn parse(text: &str) -> Result<Self> {
        let docs = YamlLoader::load_from_str(text).map_err(|e| anyhow!("bad YAML: {e}"))?;
        let doc = docs.first().ok_or_else(|| anyhow!("the file is empty"))?;
        let m = &doc["rosbag2_bagfile_information"];
        if m.is_badvalue() {
            bail!("no `rosbag2_bagfile_information` at its top");
        }
        let int = |y: &Yaml, what: &str| {
            y.as_i64()
                .ok_or_else(|| anyhow!("`{what}` is missing or not a number"))
        };
        let string = |y: &Yaml| match y {
            Yaml::String(s) => s.clone(),
            Yaml::Integer(v) => v.to_string(),
            Yaml::Real(v) => v.clone(),
            Yaml::Boolean(b) => b.to_string(),
            _ => String::new(),
        };
        let mut topics = Vec::new();
        for t in m["topics_with_message_count"]
            .as_vec()
            .into_iter()
            .flatten()
        {
            let tm = &t["topic_metadata"];
            let name = string(&tm["name"]);
            topics.push(TopicInfo {
                offered_qos: qos::from_yaml(&tm["offered_qos_profiles"])
                    .with_context(|| format!("topic {name}"))?,
                name,
                type_name: string(&tm["type"]),
                serialization_format: string(&tm["serialization_format"]),
                type_description_hash: string(&tm["type_description_hash"]),
                message_count: int(&t["message_count"], "message_count")?.max(0) as u64,
            });
        }
        let files = m["files"]
            .as_vec()
            .into_iter()
            .flatten()
            .map(|f| {
                Ok(FileInfo {
                    path: string(&f["path"]),
                    starting_time_ns: int(
                        &f["starting_time"]["nanoseconds_since_epoch"],
                        "files.starting_time",
                    )?,
                    duration_ns: int(&f["duration"]["nanoseconds"], "files.duration")?.max(0)
                        as u64,
                    message_count: int(&f["message_count"], "files.message_count")?.max(0) as u64,
                })
            })
            .collect::<Result<_>>()?;
        let custom_data = m["custom_data"]
            .as_hash()
            .into_iter()
            .flatten()
            .map(|(k, v)| (string(k), string(v)))
            .collect();
        Ok(BagMetadata {
            version: int(&m["version"], "version")?,
            storage_identifier: string(&m["storage_identifier"]),
            relative_file_paths: m["relative_file_paths"]
                .as_vec()
                .into_iter()
                .flatten()
                .map(string)
                .collect(),
            files,
            duration_ns: int(&m["duration"]["nanoseconds"], "duration")?.max(0) as u64,
            starting_time_ns: int(
                &m["starting_time"]["nanoseconds_since_epoch"],
                "starting_time",
            )?,
            message_count: int(&m["message_count"], "message_count")?.max(0) as u64,
            topics,
            compression_format: string(&m["compression_format"]),
            compression_mode: string(&m["compression_mode"]),
            custom_data,
            ros_distro: string(&m["ros_distro"]),
        })
    }
}

/// A YAML scalar: plain when that reads back as the same string, else
/// double-quoted (a JSON string is a valid YAML one).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_/.-".contains(c))
        && !s.starts_with(['-', '.'])
        && YamlLoader::load_from_str(s)
            .ok()
            .and_then(|d| d.into_iter().next())
            .is_some_and(|y| y.as_str() == Some(s));
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari::QosProfile;

    fn sample() -> BagMetadata {
        let mut m = BagMetadata::new();
        m.relative_file_paths = vec!["bag_0.mcap".into()];
        m.files = vec![FileInfo {
            path: "bag_0.mcap".into(),
            starting_time_ns: 1_716_386_212_396_553_434,
            duration_ns: 2_999_536_803,
            message_count: 4,
        }];
        m.starting_time_ns = 1_716_386_212_396_553_434;
        m.duration_ns = 2_999_536_803;
        m.message_count = 4;
        m.topics = vec![TopicInfo {
            name: "/chatter".into(),
            type_name: "std_msgs/msg/String".into(),
            serialization_format: "cdr".into(),
            offered_qos: vec![OfferedQos::from_profile(&QosProfile::default())],
            type_description_hash: "RIHS01_df66".into(),
            message_count: 4,
        }];
        m.custom_data = vec![("key".into(), "a value: with colon".into())];
        m
    }

    #[test]
    fn metadata_reads_back_what_it_writes() {
        let m = sample();
        let text = m.to_yaml();
        assert!(text.contains("\n        offered_qos_profiles:\n          - history: keep_last\n"));
        assert!(text.contains("  compression_format: \"\"\n"), "{text}");
        assert_eq!(BagMetadata::parse(&text).unwrap(), m);
        let empty = BagMetadata::new();
        assert_eq!(BagMetadata::parse(&empty.to_yaml()).unwrap(), empty);
    }

    #[test]
    fn version_8_qos_strings_are_read() {
        let text = "rosbag2_bagfile_information:\n  version: 8\n  storage_identifier: mcap\n  \
            duration:\n    nanoseconds: 5\n  starting_time:\n    nanoseconds_since_epoch: 7\n  \
            message_count: 1\n  topics_with_message_count:\n    - topic_metadata:\n        \
            name: /a\n        type: std_msgs/msg/Empty\n        serialization_format: cdr\n        \
            offered_qos_profiles: \"- history: 3\\n  depth: 0\\n  reliability: 2\\n  durability: 2\"\n        \
            type_description_hash: \"\"\n      message_count: 1\n  compression_format: \"\"\n  \
            compression_mode: \"\"\n  relative_file_paths:\n    - a_0.mcap\n";
        let m = BagMetadata::parse(text).unwrap();
        assert_eq!(m.topics[0].offered_qos[0].reliability, 2);
        assert_eq!(m.relative_file_paths, ["a_0.mcap"]);
    }
}
