//! `hibari bag play`: publish a bag's messages with their recorded timing
//! (log time, scaled by `--rate`) and QoS, as `ros2 bag play` does.
//!
//! Messages go out through generic publishers as the CDR bytes they were
//! recorded as, so any type plays, known to hibari or not (the type name is
//! all a generic publisher needs). Files are read as a stream, chunk by
//! chunk; messages of overlapping chunks are put back in log-time order.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::rosgraph_msgs::msg::Clock;
use hibari::{Context, NodeOptions, Publisher, QosProfile, Serialized};

use super::info::summaries;
use super::open::{metadata_of, Bag};
use super::qos;
use super::scan::{self, Item};
use super::PlayArgs;
use crate::cmd::common::stop::Stop;

/// The scan was stopped by Ctrl-C.
#[derive(Debug)]
struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// A message read but not yet published, ordered by log time, then file order.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Pending {
    log_time: u64,
    order: u64,
    topic: usize,
    data: Vec<u8>,
}

/// `/from:=/to` pairs, names given a leading `/`.
fn remaps(rules: &[String]) -> Result<BTreeMap<String, String>> {
    let absolute = |n: &str| {
        if n.starts_with('/') {
            n.to_string()
        } else {
            format!("/{n}")
        }
    };
    rules
        .iter()
        .map(|r| match r.split_once(":=") {
            Some((from, to)) if !from.is_empty() && !to.is_empty() => {
                Ok((absolute(from), absolute(to)))
            }
            _ => bail!("--remap `{r}` is not `from:=to`"),
        })
        .collect()
}

pub fn run(args: PlayArgs) -> Result<()> {
    let bag = Bag::open(&args.bag)?;
    let summaries = summaries(&bag)?;
    let metadata = match &bag.metadata {
        Some(m) => m.clone(),
        None => metadata_of(&summaries),
    };
    if metadata.end_ns().is_none() {
        println!("{} holds no message", args.bag.display());
        return Ok(());
    }
    let remaps = remaps(&args.remap)?;
    let wanted: BTreeSet<String> = absolute_names(&args.topics);
    let context = Context::new().context("joining the domain")?;
    let options = NodeOptions::new()
        .start_parameter_services(false)
        .start_parameter_event_publisher(false)
        .enable_rosout(false)
        .use_global_arguments(false);
    let node = context
        .create_node_with_options("rosbag2_player", options)
        .context("creating the player's node")?;

    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut publishers: Vec<Option<Publisher<Serialized>>> = Vec::new();
    for t in &metadata.topics {
        let play = wanted.is_empty() || wanted.contains(&t.name);
        let publisher = if !play {
            None
        } else if t.serialization_format != "cdr" || t.type_name.is_empty() {
            eprintln!(
                "warning: not playing '{}': its messages are `{}`, not CDR of a ROS type",
                t.name, t.serialization_format
            );
            None
        } else {
            let out = remaps.get(&t.name).unwrap_or(&t.name);
            let p = node
                .create_generic_publisher(out, &t.type_name, qos::offer_for(&t.offered_qos))
                .with_context(|| format!("cannot publish {out} ({})", t.type_name))?;
            Some(p)
        };
        names.insert(t.name.clone(), publishers.len());
        publishers.push(publisher);
    }
    let missing: Vec<&String> = wanted.iter().filter(|t| !names.contains_key(*t)).collect();
    if publishers.iter().all(Option::is_none) {
        let topics: Vec<&str> = metadata.topics.iter().map(|t| t.name.as_str()).collect();
        bail!(
            "nothing to play: {missing:?} not in the bag, whose topics are {}",
            topics.join(", ")
        );
    }
    for t in missing {
        eprintln!("warning: '{t}' is not in the bag");
    }
    let clock = match args.clock {
        Some(hz) => Some((
            node.create_publisher::<Clock>("/clock", QosProfile::clock())?,
            Duration::from_secs_f64(1.0 / hz),
        )),
        None => None,
    };
    let stop = Stop::global();
    let anchor = u64::try_from(metadata.starting_time_ns)
        .unwrap_or(0)
        .saturating_add((args.start_offset * 1e9) as u64);
    let mut player = Player {
        publishers: &publishers,
        clock,
        next_clock: Instant::now(),
        stop: &stop,
        rate: args.rate,
        anchor,
        wall_start: Instant::now(),
        published: 0,
        warned: BTreeSet::new(),
    };
    let waiting = args.wait_for_subscribers;
    if waiting {
        println!("Waiting for subscribers (Ctrl-C stops)");
    }
    let each = Duration::from_millis(100);
    let clock_publisher = player.clock.as_ref().map(|(c, _)| c);
    for p in publishers.iter().flatten().filter(|_| waiting) {
        while !p.wait_for_subscribers(1, each) {
            if stop.is_set() {
                return Ok(());
            }
        }
    }
    for c in clock_publisher.into_iter().filter(|_| waiting) {
        while !c.wait_for_subscribers(1, each) {
            if stop.is_set() {
                return Ok(());
            }
        }
    }
    loop {
        if stop.sleep_until(Instant::now() + Duration::from_secs_f64(args.delay)) {
            break;
        }
        player.wall_start = Instant::now();
        player.next_clock = player.wall_start;
        for summary in &summaries {
            let mut channels: BTreeMap<u16, usize> = summary
                .channels
                .values()
                .filter_map(|c| Some((c.id, *names.get(&c.topic)?)))
                .collect();
            if let Err(e) = player.play_file(&summary.path, &mut channels, &names) {
                if e.is::<Interrupted>() {
                    break;
                }
                return Err(e);
            }
        }
        if stop.is_set() || !args.repeat {
            break;
        }
    }
    println!("Played {} messages", player.published);
    Ok(())
}

fn absolute_names(topics: &[String]) -> BTreeSet<String> {
    topics
        .iter()
        .map(|t| {
            if t.starts_with('/') {
                t.clone()
            } else {
                format!("/{t}")
            }
        })
        .collect()
}

struct Player<'a> {
    publishers: &'a [Option<Publisher<Serialized>>],
    clock: Option<(Publisher<Clock>, Duration)>,
    next_clock: Instant,
    stop: &'a Stop,
    rate: f64,
    /// The log time played at `wall_start`.
    anchor: u64,
    wall_start: Instant,
    published: u64,
    warned: BTreeSet<usize>,
}

impl Player<'_> {
    fn play_file(
        &mut self,
        path: &std::path::Path,
        channels: &mut BTreeMap<u16, usize>,
        names: &BTreeMap<String, usize>,
    ) -> Result<()> {
        let mut heap: BinaryHeap<Reverse<Pending>> = BinaryHeap::new();
        let mut order = 0u64;
        let mut chunked = false;
        let end = scan::scan(path, |item| {
            match item {
                Item::Channel(c) => {
                    if let Some(&topic) = names.get(&c.topic) {
                        channels.insert(c.id, topic);
                    }
                }
                // Later chunks (in a file written in order) hold nothing older.
                Item::Chunk { header, .. } => {
                    chunked = true;
                    self.release(&mut heap, header.message_start_time)?;
                }
                Item::Message { header, data } => {
                    let Some(&topic) = channels.get(&header.channel_id) else {
                        return Ok(());
                    };
                    if self.publishers[topic].is_none() || header.log_time < self.anchor {
                        return Ok(());
                    }
                    order += 1;
                    heap.push(Reverse(Pending {
                        log_time: header.log_time,
                        order,
                        topic,
                        data: data.to_vec(),
                    }));
                    if !chunked {
                        self.release(&mut heap, header.log_time)?;
                    }
                }
                _ => {}
            }
            Ok(())
        })?;
        self.release(&mut heap, u64::MAX)?;
        end.readable(path)
    }

    /// Publishes the pending messages logged at or before `until`.
    fn release(&mut self, heap: &mut BinaryHeap<Reverse<Pending>>, until: u64) -> Result<()> {
        while heap.peek().is_some_and(|Reverse(m)| m.log_time <= until) {
            let Reverse(m) = heap.pop().expect("peeked");
            self.publish(m)?;
        }
        Ok(())
    }

    fn publish(&mut self, m: Pending) -> Result<()> {
        let offset = (m.log_time - self.anchor) as f64 / self.rate;
        let target = self.wall_start + Duration::from_nanos(offset as u64);
        loop {
            let until = match &self.clock {
                Some(_) => target.min(self.next_clock),
                None => target,
            };
            if self.stop.sleep_until(until) {
                return Err(Interrupted.into());
            }
            let now = Instant::now();
            if let Some((clock, period)) = &self.clock {
                if now >= self.next_clock {
                    let elapsed = now.duration_since(self.wall_start).as_nanos() as f64;
                    let t = self.anchor.saturating_add((elapsed * self.rate) as u64);
                    let _ = clock.publish(Clock {
                        clock: Time {
                            sec: (t / 1_000_000_000) as i32,
                            nanosec: (t % 1_000_000_000) as u32,
                        },
                    });
                    self.next_clock = (self.next_clock + *period).max(now);
                }
            }
            if now >= target {
                break;
            }
        }
        let publisher = self.publishers[m.topic]
            .as_ref()
            .expect("chosen topics only");
        match publisher.publish(m.data) {
            Ok(()) => self.published += 1,
            Err(e) => {
                if self.warned.insert(m.topic) {
                    eprintln!("warning: publishing on {} failed: {e}", publisher.topic());
                }
            }
        }
        Ok(())
    }
}
