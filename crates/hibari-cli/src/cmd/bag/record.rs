//! `hibari bag record`: subscribe to topics as they appear and write what
//! arrives, until Ctrl-C or SIGTERM; then finish the file and metadata.yaml.
//!
//! Like rosbag2's recorder, it polls the graph (every `--polling-interval`)
//! and subscribes to each wanted topic once it has a publisher, with a QoS
//! every publisher can serve ([`qos::request_for`]), recording the
//! publishers' offered QoS for playback. A topic whose type the registry
//! does not know (bundled Jazzy packages plus `HIBARI_INTERFACE_PATH`) is
//! skipped with a warning: its schema could not be written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hibari::interfaces::{Distro, Registry, TypeName};
use hibari::{CdrBytes, Context, Node, SampleInfo, Serialized};
use hibari::{SingleThreadedExecutor, Subscription};
use regex::Regex;

use super::qos::{self, OfferedQos};
use super::writer::{BagWriter, TopicMeta, WriterOptions};
use super::{CompressionMode, RecordArgs, StoragePreset};
use crate::cmd::common::stop::{lock, Stop};
use crate::cmd::common::tool_node;

/// How often the open chunk is written out: what a crash can lose.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// The bag and the first error writing it (callbacks cannot return one).
struct Shared {
    /// Taken out when recording stops.
    bag: Option<BagWriter>,
    error: Option<anyhow::Error>,
}

/// Which topics to record.
struct Selection {
    topics: BTreeSet<String>,
    all: bool,
    include: Option<Regex>,
    exclude: Option<Regex>,
    hidden: bool,
}

impl Selection {
    fn wants(&self, topic: &str) -> bool {
        if self.topics.contains(topic) {
            return true;
        }
        let hidden = topic.split('/').any(|part| part.starts_with('_'));
        (self.all || self.include.as_ref().is_some_and(|r| r.is_match(topic)))
            && !self.exclude.as_ref().is_some_and(|r| r.is_match(topic))
            && (self.hidden || !hidden)
    }
}

fn regex(text: &Option<String>, what: &str) -> Result<Option<Regex>> {
    text.as_deref()
        .map(|r| Regex::new(r).with_context(|| format!("{what} `{r}` is not a regular expression")))
        .transpose()
}

pub fn run(args: RecordArgs) -> Result<()> {
    if args.topics.is_empty() && !args.all && args.regex.is_none() {
        bail!("say what to record: topic names, --all (-a) or --regex (-e)");
    }
    let mut registry = Registry::bundled(Distro::Jazzy);
    registry
        .add_from_env()
        .context("loading packages from HIBARI_INTERFACE_PATH")?;
    let dir = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(
            chrono::Local::now()
                .format("rosbag2_%Y_%m_%d-%H_%M_%S")
                .to_string(),
        )
    });
    let options = WriterOptions {
        compression: args.compression_mode,
        preset: args.storage_preset_profile,
        max_size: args.max_bag_size,
        max_duration_ns: args.max_bag_duration.saturating_mul(1_000_000_000),
    };
    let context = Context::new().context("joining the domain")?;
    let node = tool_node(&context, &args.node_name)?;
    let mut selection = Selection {
        topics: BTreeSet::new(),
        all: args.all,
        include: regex(&args.regex, "--regex")?,
        exclude: regex(&args.exclude, "--exclude-regex")?,
        hidden: args.include_hidden_topics,
    };
    for t in &args.topics {
        let resolved = node
            .resolve_topic_name(t)
            .with_context(|| format!("`{t}` is not a topic name"))?;
        selection.topics.insert(resolved);
    }
    let stop = Stop::global();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor
        .add_node(&node)
        .context("spinning the recorder's node")?;
    let e = executor.clone();
    stop.on_stop(move || e.cancel());

    let shared = Arc::new(Mutex::new(Shared {
        bag: Some(BagWriter::create(&dir, options)?),
        error: None,
    }));
    println!(
        "Recording to '{}' ({}); Ctrl-C stops",
        dir.display(),
        match (args.storage_preset_profile, args.compression_mode) {
            (Some(StoragePreset::Fastwrite), _) => "no chunks: fastwrite",
            (Some(StoragePreset::ZstdSmall), _) => "zstd chunks: zstd_small",
            (Some(StoragePreset::ZstdFast), _) | (None, CompressionMode::Chunk) => "zstd chunks",
            (None, CompressionMode::None) => "uncompressed chunks",
        }
    );
    let mut recorder = Recorder {
        node: &node,
        registry: &registry,
        selection: &selection,
        shared: &shared,
        subscriptions: BTreeMap::new(),
        warned: BTreeSet::new(),
    };
    let poll = Duration::from_millis(args.polling_interval.max(1));
    let mut flushed = Instant::now();
    let result = loop {
        if let Err(e) = recorder.discover() {
            break Err(e);
        }
        executor.spin_until(|| stop.is_set(), poll);
        let mut s = lock(&shared);
        if let Some(e) = s.error.take() {
            break Err(e);
        }
        if stop.is_set() {
            break Ok(());
        }
        if flushed.elapsed() >= FLUSH_EVERY {
            flushed = Instant::now();
            if let Some(Err(e)) = s.bag.as_mut().map(BagWriter::flush) {
                break Err(e);
            }
        }
    };
    // What has arrived is recorded; no callback runs once the subscriptions are gone.
    executor.spin_some();
    let topics = recorder.subscriptions.len();
    drop(recorder);
    executor.remove_node(&node);
    let (bag, late_error) = {
        let mut s = lock(&shared);
        (s.bag.take().expect("the bag is taken once"), s.error.take())
    };
    let result = result.and(late_error.map_or(Ok(()), Err));
    // A failed write (a full disk) is what to report; finishing the file
    // then usually fails too, and says less.
    let metadata = match (result, bag.finish()) {
        (Ok(()), finished) => finished?,
        (Err(e), finished) => {
            if let Err(f) = finished {
                eprintln!("warning: {f:#}");
            }
            return Err(e.context(format!(
                "recording stopped; what '{}' holds reads up to its last complete chunk \
                 (`hibari bag reindex` rebuilds its index once there is space)",
                dir.display()
            )));
        }
    };
    println!(
        "Recording stopped: {} messages on {topics} topics in '{}'",
        metadata.message_count,
        dir.display()
    );
    Ok(())
}

struct Recorder<'a> {
    node: &'a Node,
    registry: &'a Registry,
    selection: &'a Selection,
    shared: &'a Arc<Mutex<Shared>>,
    subscriptions: BTreeMap<String, Subscription<Serialized>>,
    /// Topics skipped with a warning, not to warn again.
    warned: BTreeSet<String>,
}

impl Recorder<'_> {
    /// Subscribes to every wanted topic that has a publisher now.
    fn discover(&mut self) -> Result<()> {
        for topic in self.node.get_topic_names_and_types().into_keys() {
            if self.subscriptions.contains_key(&topic)
                || self.warned.contains(&topic)
                || !self.selection.wants(&topic)
            {
                continue;
            }
            let publishers = self.node.get_publishers_info_by_topic(&topic)?;
            if publishers.is_empty() {
                continue;
            }
            let types: BTreeSet<&str> = publishers.iter().map(|p| p.topic_type.as_str()).collect();
            if types.len() > 1 {
                self.skip(
                    &topic,
                    &format!("its publishers disagree on its type ({types:?})"),
                );
                continue;
            }
            let type_name = types.into_iter().next().expect("one type").to_string();
            let Some(name) =
                TypeName::parse(&type_name).filter(|n| self.registry.message(n).is_some())
            else {
                self.skip(
                    &topic,
                    &format!(
                        "its type {type_name} is unknown; add its package to HIBARI_INTERFACE_PATH"
                    ),
                );
                continue;
            };
            let schema_text = match self.registry.msgdef_text(&name) {
                Ok(text) => text,
                Err(e) => {
                    self.skip(
                        &topic,
                        &format!("the definition of {type_name} is incomplete: {e}"),
                    );
                    continue;
                }
            };
            let type_hash = publishers
                .iter()
                .map(|p| p.topic_type_hash.clone())
                .find(|h| !h.is_empty())
                .or_else(|| self.registry.type_hash(&name).ok())
                .unwrap_or_default();
            let meta = TopicMeta {
                name: topic.clone(),
                type_name: type_name.clone(),
                offered_qos: publishers
                    .iter()
                    .map(|p| OfferedQos::from_profile(&p.qos))
                    .collect(),
                type_hash,
                schema_text,
            };
            let index = match lock(self.shared).bag.as_mut() {
                Some(bag) => bag.add_topic(meta)?,
                None => return Ok(()),
            };
            let shared = self.shared.clone();
            let subscription = self
                .node
                .create_generic_subscription(
                    &topic,
                    &type_name,
                    qos::request_for(&publishers),
                    move |bytes: CdrBytes, info: SampleInfo| {
                        let mut s = lock(&shared);
                        let Shared {
                            bag: Some(bag),
                            error: None,
                        } = &mut *s
                        else {
                            return;
                        };
                        let written = bag.write(
                            index,
                            info.sequence,
                            info.reception_timestamp_ns,
                            info.source_timestamp_ns,
                            bytes.bytes(),
                        );
                        if let Err(e) = written {
                            s.error = Some(e);
                        }
                    },
                )
                .with_context(|| format!("cannot subscribe to {topic}"))?;
            println!("Subscribed to topic '{topic}' ({type_name})");
            self.subscriptions.insert(topic, subscription);
        }
        Ok(())
    }

    fn skip(&mut self, topic: &str, why: &str) {
        eprintln!("warning: not recording '{topic}': {why}");
        self.warned.insert(topic.to_string());
    }
}
