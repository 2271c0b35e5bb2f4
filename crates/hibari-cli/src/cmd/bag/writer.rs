//! Writing a bag: MCAP files that split by size or duration, then
//! `metadata.yaml`.
//!
//! A chunk goes to the file as it fills, not built in memory first: a 6 MB
//! image is copied out of shared memory in 64 KiB pieces, each hashed for the
//! chunk's CRC and written while it is in the cache. The chunk's header
//! (lengths, CRC) is written in place when the chunk closes, so a recorder
//! killed mid-write leaves every chunk before the open one intact (the open
//! one's header still says "unfinished", and `bag reindex` drops it);
//! [`BagWriter::flush`] closes the open chunk.
//!
//! As rosbag2 (through the C++ MCAP library) does, chunks carry CRCs and the
//! data section does not: one hash pass over the data, not two.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use hibari::Bytes;
use mcap::records::{MessageHeader, Metadata};

use super::metadata::{BagMetadata, FileInfo, TopicInfo};
use super::qos::{self, OfferedQos};
use super::{CompressionMode, StoragePreset};

/// A topic as the bag records it.
#[derive(Clone, Debug)]
pub struct TopicMeta {
    pub name: String,
    pub type_name: String,
    pub offered_qos: Vec<OfferedQos>,
    pub type_hash: String,
    /// The concatenated `ros2msg` definition.
    pub schema_text: String,
}

/// When to start a new file, and how to store chunks.
#[derive(Clone, Copy, Debug)]
pub struct WriterOptions {
    pub compression: CompressionMode,
    pub preset: Option<StoragePreset>,
    /// Bytes; 0: never split by size.
    pub max_size: u64,
    /// Nanoseconds of log time; 0: never split by duration.
    pub max_duration_ns: u64,
}

struct OpenFile {
    /// Unbuffered, so the file's size on disk is what has been written
    /// (message data goes in pieces of 64 KiB, not in small writes).
    writer: mcap::Writer<File>,
    /// The same file, to ask its size.
    probe: File,
    name: String,
    /// Topic index → channel id in this file.
    channels: BTreeMap<usize, u16>,
    first_ns: Option<u64>,
    last_ns: u64,
    count: u64,
}

/// A bag being written.
pub struct BagWriter {
    dir: PathBuf,
    base: String,
    options: WriterOptions,
    topics: Vec<TopicMeta>,
    counts: Vec<u64>,
    file: Option<OpenFile>,
    files: Vec<FileInfo>,
}

impl BagWriter {
    /// Creates the bag directory `dir` (which must not exist) and its first file.
    pub fn create(dir: &Path, options: WriterOptions) -> Result<Self> {
        if dir.exists() {
            bail!(
                "{} exists already: name a new bag directory with -o",
                dir.display()
            );
        }
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the bag directory {}", dir.display()))?;
        let base = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "rosbag2".into());
        let mut bag = BagWriter {
            dir: dir.to_path_buf(),
            base,
            options,
            topics: Vec::new(),
            counts: Vec::new(),
            file: None,
            files: Vec::new(),
        };
        bag.open_next()?;
        Ok(bag)
    }

    fn open_next(&mut self) -> Result<()> {
        let name = format!("{}_{}.mcap", self.base, self.files.len());
        let path = self.dir.join(&name);
        let file =
            File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
        let probe = file.try_clone()?;
        let chunk_size = match self.options.max_size {
            0 => mcap::WriteOptions::DEFAULT_CHUNK_SIZE,
            max => (max / 4).clamp(4096, mcap::WriteOptions::DEFAULT_CHUNK_SIZE),
        };
        let (compression, level, chunk_size) = match (self.options.preset, self.options.compression)
        {
            (Some(StoragePreset::ZstdSmall), _) => {
                (Some(mcap::Compression::Zstd), 19, chunk_size.max(4 << 20))
            }
            (Some(StoragePreset::ZstdFast), _) | (_, CompressionMode::Chunk) => {
                (Some(mcap::Compression::Zstd), 1, chunk_size)
            }
            _ => (None, 1, chunk_size),
        };
        let mut writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library(concat!("hibari ", env!("CARGO_PKG_VERSION")))
            .compression(compression)
            .compression_level(level)
            .compression_threads(0)
            .chunk_size(Some(chunk_size))
            .calculate_data_section_crc(false);
        if self.options.preset == Some(StoragePreset::Fastwrite) {
            writer = writer
                .use_chunks(false)
                .emit_message_indexes(false)
                .calculate_summary_section_crc(false);
        }
        let writer = writer
            .create(file)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut open = OpenFile {
            writer,
            probe,
            name,
            channels: BTreeMap::new(),
            first_ns: None,
            last_ns: 0,
            count: 0,
        };
        for index in 0..self.topics.len() {
            add_channel(&mut open, index, &self.topics[index])?;
        }
        self.file = Some(open);
        Ok(())
    }

    /// Adds a topic (its schema and channel); returns its index for [`write`](Self::write).
    pub fn add_topic(&mut self, topic: TopicMeta) -> Result<usize> {
        let index = self.topics.len();
        if let Some(open) = self.file.as_mut() {
            add_channel(open, index, &topic)?;
        }
        self.topics.push(topic);
        self.counts.push(0);
        Ok(index)
    }

    /// Writes one message of topic `index`.
    ///
    /// Bytes in another process's shared memory are never a `&[u8]` (that
    /// process may write them), so they go to the file through the MCAP
    /// writer's own small piece buffer, copied out piece by piece: a 6 MB
    /// image is not assembled in memory first.
    pub fn write(
        &mut self,
        index: usize,
        sequence: u64,
        log_ns: i64,
        publish_ns: i64,
        data: Bytes<'_>,
    ) -> Result<()> {
        let log_time = u64::try_from(log_ns).unwrap_or(0);
        self.split_if_due(log_time)?;
        let open = self.file.as_mut().expect("a file is open until finish");
        let channel_id = open.channels[&index];
        let header = MessageHeader {
            channel_id,
            sequence: sequence as u32,
            log_time,
            publish_time: u64::try_from(publish_ns).unwrap_or(0),
        };
        let written = match data.as_private() {
            Some(data) => open.writer.write_to_known_channel(&header, data),
            None => open.writer.write_to_known_channel_with(
                &header,
                data.len() as u64,
                |offset, piece| {
                    data.slice(offset as usize, piece.len())
                        .expect("the MCAP writer asks for the message's own range")
                        .copy_to_slice(piece)
                },
            ),
        };
        written.with_context(|| format!("cannot write to {}", open.name))?;
        open.first_ns.get_or_insert(log_time);
        open.last_ns = open.last_ns.max(log_time);
        open.count += 1;
        self.counts[index] += 1;
        Ok(())
    }

    fn split_if_due(&mut self, log_time: u64) -> Result<()> {
        let Some(open) = self.file.as_ref() else {
            return Ok(());
        };
        let Some(first) = open.first_ns else {
            return Ok(());
        };
        let by_size = self.options.max_size > 0
            && open.probe.metadata().map(|m| m.len()).unwrap_or(0) >= self.options.max_size;
        let by_time = self.options.max_duration_ns > 0
            && log_time.saturating_sub(first) >= self.options.max_duration_ns;
        if by_size || by_time {
            self.close_file()?;
            self.open_next()?;
        }
        Ok(())
    }

    /// Writes out the open chunk, so that a crash after this loses nothing before it.
    pub fn flush(&mut self) -> Result<()> {
        if let Some(open) = self.file.as_mut() {
            open.writer
                .flush()
                .with_context(|| format!("cannot write {}", open.name))?;
        }
        Ok(())
    }

    fn close_file(&mut self) -> Result<()> {
        let Some(mut open) = self.file.take() else {
            return Ok(());
        };
        let start = open.first_ns.unwrap_or(0);
        self.files.push(FileInfo {
            path: open.name.clone(),
            starting_time_ns: if open.count == 0 {
                i64::MAX
            } else {
                start as i64
            },
            duration_ns: open.last_ns.saturating_sub(start),
            message_count: open.count,
        });
        let serialized = self.metadata().to_serialized();
        let record = Metadata {
            name: "rosbag2".into(),
            metadata: BTreeMap::from([("serialized_metadata".into(), serialized)]),
        };
        let what = || format!("cannot finish {}", open.name);
        open.writer.write_metadata(&record).with_context(what)?;
        open.writer.finish().with_context(what)?;
        open.writer.into_inner().flush().with_context(what)?;
        Ok(())
    }

    /// What `metadata.yaml` says of the files finished so far.
    fn metadata(&self) -> BagMetadata {
        let mut m = BagMetadata::new();
        if let Ok(distro) = std::env::var("ROS_DISTRO") {
            m.ros_distro = distro;
        }
        m.relative_file_paths = self.files.iter().map(|f| f.path.clone()).collect();
        m.files = self.files.clone();
        let with_messages = self.files.iter().filter(|f| f.message_count > 0);
        let start = with_messages.clone().map(|f| f.starting_time_ns).min();
        let end = with_messages
            .map(|f| f.starting_time_ns.saturating_add(f.duration_ns as i64))
            .max();
        if let (Some(start), Some(end)) = (start, end) {
            m.starting_time_ns = start;
            m.duration_ns = end.saturating_sub(start) as u64;
        }
        m.message_count = self.files.iter().map(|f| f.message_count).sum();
        m.topics = self
            .topics
            .iter()
            .zip(&self.counts)
            .map(|(t, &count)| TopicInfo {
                name: t.name.clone(),
                type_name: t.type_name.clone(),
                serialization_format: "cdr".into(),
                offered_qos: t.offered_qos.clone(),
                type_description_hash: t.type_hash.clone(),
                message_count: count,
            })
            .collect();
        m
    }

    /// Finishes the open file and writes `metadata.yaml`.
    pub fn finish(mut self) -> Result<BagMetadata> {
        self.close_file()?;
        let metadata = self.metadata();
        write_metadata(&self.dir, &metadata)?;
        Ok(metadata)
    }
}

fn add_channel(open: &mut OpenFile, index: usize, topic: &TopicMeta) -> Result<()> {
    let what = || format!("cannot add {} to {}", topic.name, open.name);
    let schema = open
        .writer
        .add_schema(&topic.type_name, "ros2msg", topic.schema_text.as_bytes())
        .with_context(what)?;
    let metadata = BTreeMap::from([
        (
            "offered_qos_profiles".to_string(),
            qos::to_yaml_string(&topic.offered_qos),
        ),
        ("topic_type_hash".to_string(), topic.type_hash.clone()),
    ]);
    let id = open
        .writer
        .add_channel(schema, &topic.name, "cdr", &metadata)
        .with_context(what)?;
    open.channels.insert(index, id);
    Ok(())
}

/// Writes `dir/metadata.yaml` whole or not at all.
pub fn write_metadata(dir: &Path, metadata: &BagMetadata) -> Result<()> {
    let path = dir.join("metadata.yaml");
    let tmp = dir.join(".metadata.yaml.tmp");
    std::fs::write(&tmp, metadata.to_yaml())
        .and_then(|()| std::fs::rename(&tmp, &path))
        .with_context(|| format!("cannot write {}", path.display()))
}
