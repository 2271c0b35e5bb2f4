//! `hibari bag`: record, play, inspect and repair rosbag2 bags in MCAP storage.
//!
//! A bag is what `ros2 bag record` of ROS 2 Jazzy writes with its default
//! MCAP storage: a directory holding `metadata.yaml` (rosbag2 metadata,
//! version 9) and one `<dir>_<n>.mcap` file per split. Each MCAP file uses
//! the `ros2` profile: one schema per type (`ros2msg`, the concatenated
//! `.msg` text), one channel per topic (`cdr`, with the publishers'
//! `offered_qos_profiles` and the `topic_type_hash` in its metadata), and
//! messages stamped with their reception (`log_time`) and source
//! (`publish_time`) timestamps. `ros2 bag`, rosbags and Foxglove read what
//! `hibari bag record` writes, and `hibari bag` reads what they write.
//!
//! Compression: rosbag2's MCAP storage writes uncompressed chunks unless a
//! storage preset says otherwise, and so does `hibari bag record` unless
//! `--compression-mode chunk` asks for zstd-compressed chunks (rosbag2's
//! `zstd_fast` preset). Either way `metadata.yaml` names no compression: the
//! chunks are the storage's business, and every MCAP reader decompresses them.
//!
//! A recorder that is killed leaves a file without its summary and no
//! `metadata.yaml`; it finishes a chunk at least every second, so `hibari bag
//! reindex` recovers all but the last second of it.
//!
//! Bags in rosbag2's older sqlite3 storage (`.db3` files, the default before
//! Iron) are read too: `info` describes them and `play` plays them.

mod controls;
mod info;
mod keyboard;
mod metadata;
mod open;
mod play;
mod player;
mod qos;
mod qos_overrides;
mod record;
mod reindex;
mod scan;
mod sqlite;
mod writer;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};

#[derive(Args, Debug)]
pub struct BagArgs {
    #[command(subcommand)]
    command: BagCommand,
}

#[derive(Subcommand, Debug)]
enum BagCommand {
    /// Record topics into a rosbag2 bag (MCAP storage) until Ctrl-C.
    Record(RecordArgs),
    /// Publish a bag's messages with their recorded timing and QoS
    /// (SPACE pauses, s plays the next message).
    Play(PlayArgs),
    /// Print what a bag holds, as `ros2 bag info` does.
    Info(InfoArgs),
    /// Rebuild the summaries and metadata.yaml of a bag whose recorder died.
    Reindex(ReindexArgs),
}

/// How chunks of messages are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompressionMode {
    /// Uncompressed chunks (rosbag2's default).
    None,
    /// zstd-compressed chunks (rosbag2's `zstd_fast` storage preset).
    Chunk,
}

/// rosbag2's MCAP storage presets (`--storage-preset-profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StoragePreset {
    /// No chunks, no CRCs, no message index: each message goes to the file
    /// as it arrives, at the least CPU per byte (readers scan the file).
    Fastwrite,
    /// zstd chunks at the fastest level (as `--compression-mode chunk`).
    #[value(name = "zstd_fast")]
    ZstdFast,
    /// zstd chunks at a high level, in larger chunks: the smallest files.
    #[value(name = "zstd_small")]
    ZstdSmall,
}

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// Topics to record (relative names resolve against `/`).
    #[arg(conflicts_with = "all")]
    pub topics: Vec<String>,
    /// Record every topic that has a publisher, including those that appear later.
    #[arg(short, long)]
    pub all: bool,
    /// Record the topics whose names match this regular expression.
    #[arg(short = 'e', long, value_name = "REGEX")]
    pub regex: Option<String>,
    /// Leave out the topics whose names match this regular expression.
    #[arg(
        short = 'x',
        long = "exclude-regex",
        visible_alias = "exclude",
        value_name = "REGEX"
    )]
    pub exclude: Option<String>,
    /// The bag directory to create [default: rosbag2_YYYY_MM_DD-HH_MM_SS].
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Start a new file once the current one reaches this size (0: never).
    #[arg(short = 'b', long, value_name = "BYTES", default_value_t = 0)]
    pub max_bag_size: u64,
    /// Start a new file once the current one spans this many seconds (0: never).
    #[arg(short = 'd', long, value_name = "SECS", default_value_t = 0)]
    pub max_bag_duration: u64,
    /// `chunk`: zstd-compressed MCAP chunks; `none`: uncompressed, as rosbag2 by default.
    #[arg(long, value_enum, default_value_t = CompressionMode::None)]
    pub compression_mode: CompressionMode,
    /// A storage preset of rosbag2's MCAP plugin; `zstd_*` imply chunk compression.
    #[arg(long, value_enum, visible_alias = "storage-preset")]
    pub storage_preset_profile: Option<StoragePreset>,
    /// Also record hidden topics (a name part starting with `_`).
    #[arg(long)]
    pub include_hidden_topics: bool,
    /// How often to look for new topics, in milliseconds.
    #[arg(short = 'p', long, value_name = "MS", default_value_t = 100)]
    pub polling_interval: u64,
    /// The recorder's node name.
    #[arg(long, default_value = "rosbag2_recorder")]
    pub node_name: String,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The bag: its directory, or one of its `.mcap` or `.db3` files.
    pub bag: PathBuf,
    /// Playback speed: 2 plays twice as fast, 0.5 half as fast.
    #[arg(short, long, default_value_t = 1.0, value_parser = positive_rate)]
    pub rate: f64,
    /// Start over at the end, until Ctrl-C.
    #[arg(short = 'l', long = "loop")]
    pub repeat: bool,
    /// Publish the bag's time on /clock at HZ (40 when no value is given).
    #[arg(long, value_name = "HZ", num_args = 0..=1, default_missing_value = "40",
          value_parser = positive_rate)]
    pub clock: Option<f64>,
    /// Skip this many seconds at the start of the bag.
    #[arg(long, value_name = "SECS", default_value_t = 0.0, value_parser = non_negative_secs)]
    pub start_offset: f64,
    /// Sleep this many seconds after creating the publishers (each loop), before playing.
    #[arg(short, long, value_name = "SECS", default_value_t = 0.0, value_parser = non_negative_secs)]
    pub delay: f64,
    /// Before playing, wait until every publisher (/clock's too) has a subscriber.
    #[arg(long)]
    pub wait_for_subscribers: bool,
    /// After playing, wait up to MS milliseconds until every reliable
    /// subscriber has acknowledged every message (0: as long as it takes,
    /// -1: not at all), so that one that matched late still gets the
    /// repairs before the player exits. rosbag2's option of the same name
    /// defaults to not waiting.
    #[arg(long, value_name = "MS", default_value_t = 3000, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).range(-1..))]
    pub wait_for_all_acked: i64,
    /// Play only these topics.
    #[arg(long, num_args = 1..)]
    pub topics: Vec<String>,
    /// Publish a topic under another name: `--remap /from:=/to` (repeatable).
    #[arg(short = 'm', long, value_name = "FROM:=TO", num_args = 1..)]
    pub remap: Vec<String>,
    /// Start paused: SPACE resumes, s plays one message at a time.
    #[arg(short = 'p', long)]
    pub start_paused: bool,
    /// Do not read keys from the terminal.
    #[arg(long)]
    pub disable_keyboard_controls: bool,
    /// A YAML file of QoS profiles to offer instead of the recorded ones:
    /// `/topic: {reliability: best_effort, depth: 5, ...}`.
    #[arg(long, value_name = "FILE")]
    pub qos_profile_overrides_path: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The bag: its directory, or an `.mcap` or `.db3` file.
    pub bag: PathBuf,
    /// Print JSON instead of ros2's text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ReindexArgs {
    /// The bag: its directory, or an `.mcap` file.
    pub bag: PathBuf,
}

fn positive_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a positive number")),
    }
}

fn non_negative_secs(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a number of seconds (0 or more)")),
    }
}

pub fn run(args: BagArgs) -> Result<()> {
    match args.command {
        BagCommand::Record(a) => record::run(a),
        BagCommand::Play(a) => play::run(a),
        BagCommand::Info(a) => info::run(a),
        BagCommand::Reindex(a) => reindex::run(a),
    }
}

/// `ns` since the epoch as ros2 prints it: `May 22 2024 15:56:52.396553434`,
/// in local time.
pub(crate) fn local_time(ns: i64) -> String {
    use chrono::TimeZone as _;
    let secs = ns.div_euclid(1_000_000_000);
    let frac = ns.rem_euclid(1_000_000_000);
    match chrono::Local.timestamp_opt(secs, 0).single() {
        Some(t) => format!("{}.{frac:09}", t.format("%b %e %Y %H:%M:%S")),
        None => format!("{secs}.{frac:09}"),
    }
}

/// `ns` as seconds with nine decimals: `1716386212.396553434`.
pub(crate) fn seconds(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let abs = ns.unsigned_abs();
    format!("{sign}{}.{:09}", abs / 1_000_000_000, abs % 1_000_000_000)
}
