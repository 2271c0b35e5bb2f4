//! `hibari bag play`: publish a bag's messages with their recorded timing
//! (log time, scaled by `--rate`) and QoS, as `ros2 bag play` does.
//!
//! Messages go out through generic publishers as the CDR bytes they were
//! recorded as, so any type plays, known to hibari or not (the type name is
//! all a generic publisher needs). Each topic offers the QoS its publishers
//! offered when recorded, or the one `--qos-profile-overrides-path` gives
//! it. From a terminal, keys pause, resume and step ([`super::keyboard`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hibari::msg::rosgraph_msgs::msg::Clock;
use hibari::{Context, Publisher, QosProfile, Serialized};

use super::controls::Controls;
use super::info::{db_summaries, summaries};
use super::keyboard::{self, Keyboard};
use super::metadata::BagMetadata;
use super::open::{metadata_of, Bag, FileSummary, Storage};
use super::player::{Interrupted, Player};
use super::sqlite::{self, DbSummary};
use super::{qos, qos_overrides, PlayArgs};
use crate::cmd::common::stop::Stop;
use crate::cmd::common::tool_node;

/// Per topic of the bag, its publisher (`None` when not played).
type Publishers = Vec<Option<Publisher<Serialized>>>;

/// What the bag's files hold, by storage.
enum Files {
    Mcap(Vec<FileSummary>),
    Sqlite3(Vec<DbSummary>),
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
    // Ctrl-C ends playback cleanly from before the publishers appear.
    let stop = Stop::global();
    let bag = Bag::open(&args.bag)?;
    let files = match bag.storage {
        Storage::Mcap => Files::Mcap(summaries(&bag)?),
        Storage::Sqlite3 => Files::Sqlite3(db_summaries(&bag)?),
    };
    let metadata = match (&bag.metadata, &files) {
        (Some(m), _) => m.clone(),
        (None, Files::Mcap(f)) => metadata_of(f),
        (None, Files::Sqlite3(f)) => sqlite::metadata_of(f),
    };
    if metadata.end_ns().is_none() {
        println!("{} holds no message", args.bag.display());
        return Ok(());
    }
    let overrides = match &args.qos_profile_overrides_path {
        Some(path) => qos_overrides::read(path)?,
        None => BTreeMap::new(),
    };
    let context = Context::new().context("joining the domain")?;
    let node = tool_node(&context, "rosbag2_player")?;
    let (names, publishers) = create_publishers(&node, &metadata, &args, &overrides)?;
    let clock = match args.clock {
        Some(hz) => Some((
            node.create_publisher::<Clock>("/clock", QosProfile::clock())?,
            Duration::from_secs_f64(1.0 / hz),
        )),
        None => None,
    };
    let controls = Arc::new(Controls::new(args.rate, args.start_paused));
    let c = controls.clone();
    stop.on_stop(move || c.stop());
    if stop.is_set() {
        controls.stop();
    }
    // Dropped when this function returns, however: the terminal goes back.
    let keys = if args.disable_keyboard_controls {
        None
    } else {
        Keyboard::start(controls.clone(), stop.clone())
    };
    if keys.is_some() {
        println!("{}", keyboard::HELP);
    } else if args.start_paused {
        let why = if args.disable_keyboard_controls {
            "keyboard controls are disabled"
        } else {
            "stdin is not the terminal of the foreground"
        };
        eprintln!("warning: paused with no key to resume ({why}): Ctrl-C ends");
    }
    let anchor = u64::try_from(metadata.starting_time_ns)
        .unwrap_or(0)
        .saturating_add((args.start_offset * 1e9) as u64);
    let mut player = Player {
        publishers: &publishers,
        clock,
        next_tick: Instant::now(),
        controls,
        start: anchor,
        published: 0,
        warned: BTreeSet::new(),
    };
    if args.wait_for_subscribers && !wait_for_subscribers(&player, &stop) {
        return Ok(());
    }
    loop {
        if stop.sleep_until(Instant::now() + Duration::from_secs_f64(args.delay)) {
            break;
        }
        player.controls.start_at(anchor);
        player.next_tick = Instant::now();
        let played = match &files {
            Files::Mcap(files) => files.iter().try_for_each(|summary| {
                let mut channels: BTreeMap<u16, usize> = summary
                    .channels
                    .values()
                    .filter_map(|c| Some((c.id, *names.get(&c.topic)?)))
                    .collect();
                player.play_mcap(&summary.path, &mut channels, &names)
            }),
            Files::Sqlite3(files) => files
                .iter()
                .try_for_each(|db| player.play_db(&db.path, &db.topics, &names)),
        };
        match played {
            Err(e) if e.is::<Interrupted>() => break,
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        if stop.is_set() || !args.repeat {
            break;
        }
    }
    drop(keys);
    println!("Played {} messages", player.published);
    wait_for_all_acked(&player, args.wait_for_all_acked);
    Ok(())
}

/// Waits for every publisher's reliable subscribers to acknowledge, up to
/// `ms` milliseconds in all (0: no limit, -1: no wait); warns when they
/// have not.
fn wait_for_all_acked(player: &Player<'_>, ms: i64) {
    let Ok(ms) = u64::try_from(ms) else { return };
    let timeout = match ms {
        0 => Duration::MAX,
        ms => Duration::from_millis(ms),
    };
    let deadline = Instant::now().checked_add(timeout);
    for p in player.publishers.iter().flatten() {
        let left = deadline.map_or(timeout, |d| d.saturating_duration_since(Instant::now()));
        if !p.wait_for_all_acked(left) {
            eprintln!(
                "warning: a subscriber of {} had not acknowledged every message after {ms} ms",
                p.topic()
            );
        }
    }
}

/// Waits until every publisher (/clock's too) has a subscriber; `false`
/// when Ctrl-C came first.
fn wait_for_subscribers(player: &Player<'_>, stop: &Stop) -> bool {
    println!("Waiting for subscribers (Ctrl-C stops)");
    let each = Duration::from_millis(100);
    for p in player.publishers.iter().flatten() {
        while !p.wait_for_subscribers(1, each) {
            if stop.is_set() {
                return false;
            }
        }
    }
    if let Some((c, _)) = &player.clock {
        while !c.wait_for_subscribers(1, each) {
            if stop.is_set() {
                return false;
            }
        }
    }
    true
}

/// One publisher per topic played (`None` for the others), offering the
/// recorded QoS or its override; the topics' indexes by name.
fn create_publishers(
    node: &hibari::Node,
    metadata: &BagMetadata,
    args: &PlayArgs,
    overrides: &BTreeMap<String, QosProfile>,
) -> Result<(BTreeMap<String, usize>, Publishers)> {
    let remaps = remaps(&args.remap)?;
    let wanted: BTreeSet<String> = absolute_names(&args.topics);
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut publishers = Vec::new();
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
            let offer = match overrides.get(&t.name) {
                Some(q) => *q,
                None => qos::offer_for(&t.offered_qos),
            };
            let p = node
                .create_generic_publisher(out, &t.type_name, offer)
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
    for t in overrides.keys().filter(|t| !names.contains_key(*t)) {
        eprintln!("warning: the QoS override of '{t}' names no topic of the bag");
    }
    Ok((names, publishers))
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
