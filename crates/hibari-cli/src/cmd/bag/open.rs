//! Finding a bag's files, and what each holds.
//!
//! A bag is a directory with `metadata.yaml` naming its files, a directory
//! of `.mcap` (or `.db3`) files without it (a recorder that died, or files
//! copied together), or one `.mcap` or `.db3` file. What an MCAP file holds
//! comes from its summary when it has one, else from reading it whole; what
//! a `.db3` file holds, from its tables ([`super::sqlite`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use mcap::records::Channel;
use yaml_rust2::YamlLoader;

use super::metadata::{BagMetadata, FileInfo, TopicInfo};
use super::qos;
use super::scan::{self, Item, ScanEnd, Schema};
use super::sqlite;

/// How a bag's messages are stored (rosbag2's `storage_identifier`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    Mcap,
    /// rosbag2's `.db3` files (read only).
    Sqlite3,
}

/// A bag's storage files, in order, and its `metadata.yaml` if it has one.
pub struct Bag {
    pub dir: Option<PathBuf>,
    pub files: Vec<PathBuf>,
    pub metadata: Option<BagMetadata>,
    pub storage: Storage,
}

impl Bag {
    pub fn open(path: &Path) -> Result<Bag> {
        if path.is_file() && path.file_name().is_some_and(|n| n == "metadata.yaml") {
            return Bag::open(path.parent().unwrap_or(Path::new(".")));
        }
        if path.is_file() {
            let db = path.extension().is_some_and(|e| e == "db3") || sqlite::is_sqlite(path);
            return Ok(Bag {
                dir: None,
                files: vec![path.to_path_buf()],
                metadata: None,
                storage: if db { Storage::Sqlite3 } else { Storage::Mcap },
            });
        }
        if !path.is_dir() {
            bail!(
                "no bag at {}: give a bag directory, or an .mcap or .db3 file",
                path.display()
            );
        }
        let yaml = path.join("metadata.yaml");
        if yaml.is_file() {
            let metadata = BagMetadata::read(&yaml)?;
            let storage = match metadata.storage_identifier.as_str() {
                "mcap" => Storage::Mcap,
                "sqlite3" => Storage::Sqlite3,
                other => bail!(
                    "{} uses `{other}` storage; hibari reads MCAP and sqlite3 bags",
                    path.display(),
                ),
            };
            let mut files = Vec::new();
            for relative in &metadata.relative_file_paths {
                // rosbag2 once wrote paths with the directory in front.
                let name = Path::new(relative).file_name().unwrap_or_default();
                let file = path.join(name);
                if !file.is_file() {
                    bail!("{} names {relative}, which is missing", yaml.display());
                }
                files.push(file);
            }
            return Ok(Bag {
                dir: Some(path.to_path_buf()),
                files,
                metadata: Some(metadata),
                storage,
            });
        }
        let (files, storage) = match files_ending(path, "mcap")? {
            files if !files.is_empty() => (files, Storage::Mcap),
            _ => (files_ending(path, "db3")?, Storage::Sqlite3),
        };
        if files.is_empty() {
            bail!(
                "{} holds no metadata.yaml, no .mcap and no .db3 file",
                path.display()
            );
        }
        Ok(Bag {
            dir: Some(path.to_path_buf()),
            files,
            metadata: None,
            storage,
        })
    }

    /// The files' total size.
    pub fn size(&self) -> u64 {
        self.files
            .iter()
            .filter_map(|f| f.metadata().ok())
            .map(|m| m.len())
            .sum()
    }
}

/// The `.mcap` files in `dir`, in split order (`b_2` before `b_10`).
pub fn mcap_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let files = files_ending(dir, "mcap")?;
    if files.is_empty() {
        bail!("{} holds no metadata.yaml and no .mcap file", dir.display());
    }
    Ok(files)
}

/// The files in `dir` whose extension is `ext`, in split order.
pub fn files_ending(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort_by_key(|p| {
        let stem = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let split = stem.rsplit('_').next().and_then(|n| n.parse::<u64>().ok());
        (split.unwrap_or(u64::MAX), stem)
    });
    Ok(files)
}

/// What one MCAP file holds.
pub struct FileSummary {
    pub path: PathBuf,
    pub schemas: BTreeMap<u16, Schema>,
    pub channels: BTreeMap<u16, Channel>,
    /// Messages per channel.
    pub counts: BTreeMap<u16, u64>,
    /// Log times of the first and last message.
    pub span: Option<(u64, u64)>,
    pub ros_distro: Option<String>,
    /// How reading it ended; `None` when it came from the summary.
    pub end: Option<ScanEnd>,
}

impl FileSummary {
    pub fn message_count(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The type of channel `c`: its schema's name.
    pub fn type_of(&self, c: &Channel) -> Option<&str> {
        self.schemas.get(&c.schema_id).map(|s| s.name.as_str())
    }
}

/// Summarizes `path`: from its summary, or by reading it whole.
pub fn summarize(path: &Path) -> Result<FileSummary> {
    let mut out = FileSummary {
        path: path.to_path_buf(),
        schemas: BTreeMap::new(),
        channels: BTreeMap::new(),
        counts: BTreeMap::new(),
        span: None,
        ros_distro: None,
        end: None,
    };
    if let Some(summary) = scan::read_summary(path)? {
        if let Some(stats) = &summary.statistics {
            out.schemas = summary.schemas.into_iter().map(|s| (s.id, s)).collect();
            out.channels = summary.channels.into_iter().map(|c| (c.id, c)).collect();
            out.counts = stats.channel_message_counts.clone();
            out.span = (stats.message_count > 0)
                .then_some((stats.message_start_time, stats.message_end_time));
            out.ros_distro = summary.rosbag2_metadata.as_deref().and_then(distro_of);
            return Ok(out);
        }
    }
    let end = scan::scan(path, |item| {
        match item {
            Item::Schema(s) => {
                out.schemas.insert(s.id, s);
            }
            Item::Channel(c) => {
                out.channels.insert(c.id, c);
            }
            Item::Message { header, .. } => {
                *out.counts.entry(header.channel_id).or_default() += 1;
                let t = header.log_time;
                out.span = Some(out.span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
            }
            Item::Metadata(m) if m.name == "rosbag2" => {
                if let Some(d) = m
                    .metadata
                    .get("serialized_metadata")
                    .and_then(|s| distro_of(s))
                {
                    out.ros_distro = Some(d);
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    out.end = Some(end);
    Ok(out)
}

fn distro_of(serialized: &str) -> Option<String> {
    let docs = YamlLoader::load_from_str(serialized).ok()?;
    let distro = docs.first()?["ros_distro"].as_str()?.to_string();
    (!distro.is_empty()).then_some(distro)
}

/// Lists the storage file `path` in `m` (its `relative_file_paths` and
/// `files`) with its first stamp, how long it spans and how many messages it
/// holds.
pub fn list_file(
    m: &mut BagMetadata,
    path: &Path,
    starting_time_ns: i64,
    duration_ns: u64,
    message_count: u64,
) {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    m.relative_file_paths.push(name.clone());
    m.files.push(FileInfo {
        path: name,
        starting_time_ns,
        duration_ns,
        message_count,
    });
}

/// The first and last stamps of `span` and `file` together.
pub fn widen<T: Ord + Copy>(span: Option<(T, T)>, file: Option<(T, T)>) -> Option<(T, T)> {
    match (span, file) {
        (Some((x, y)), Some((a, b))) => Some((x.min(a), y.max(b))),
        (span, file) => span.or(file),
    }
}

/// The metadata of a bag made of `files`, as rosbag2 derives it from its
/// storage: topics by name, in order of appearance.
pub fn metadata_of(files: &[FileSummary]) -> BagMetadata {
    let mut m = BagMetadata::new();
    m.ros_distro = files
        .iter()
        .find_map(|f| f.ros_distro.clone())
        .unwrap_or_default();
    let mut span: Option<(u64, u64)> = None;
    for f in files {
        list_file(
            &mut m,
            &f.path,
            f.span.map_or(i64::MAX, |(a, _)| a as i64),
            f.span.map_or(0, |(a, b)| b - a),
            f.message_count(),
        );
        span = widen(span, f.span);
        m.message_count += f.message_count();
        for c in f.channels.values() {
            let count = f.counts.get(&c.id).copied().unwrap_or(0);
            if let Some(t) = m.topics.iter_mut().find(|t| t.name == c.topic) {
                t.message_count += count;
                continue;
            }
            m.topics.push(TopicInfo {
                name: c.topic.clone(),
                type_name: f.type_of(c).unwrap_or_default().to_string(),
                serialization_format: c.message_encoding.clone(),
                offered_qos: c
                    .metadata
                    .get("offered_qos_profiles")
                    .and_then(|q| qos::parse_string(q).ok())
                    .unwrap_or_default(),
                type_description_hash: c
                    .metadata
                    .get("topic_type_hash")
                    .cloned()
                    .unwrap_or_default(),
                message_count: count,
            });
        }
    }
    if let Some((a, b)) = span {
        m.starting_time_ns = a as i64;
        m.duration_ns = b - a;
    }
    m
}
