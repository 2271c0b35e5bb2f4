//! Publishing a bag's messages at their time: each waits on the
//! [`Controls`]' clock (which pauses, steps and changes rate), and /clock
//! ticks in between say the bag's time.
//!
//! MCAP files are read as a stream, chunk by chunk; messages of overlapping
//! chunks are put back in log-time order. `.db3` files are read in log-time
//! order by SQLite.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::rosgraph_msgs::msg::Clock;
use hibari::{Publisher, Serialized};

use super::controls::{Controls, Wake};
use super::scan::{self, Item};
use super::sqlite::{self, DbTopic};

/// Playback was stopped by Ctrl-C.
#[derive(Debug)]
pub struct Interrupted;

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

pub struct Player<'a> {
    /// Per topic of the bag: its publisher, `None` when not played.
    pub publishers: &'a [Option<Publisher<Serialized>>],
    /// /clock's publisher and period (`--clock`).
    pub clock: Option<(Publisher<Clock>, Duration)>,
    pub next_tick: Instant,
    pub controls: Arc<Controls>,
    /// Messages logged before this are skipped (`--start-offset`).
    pub start: u64,
    pub published: u64,
    pub warned: BTreeSet<usize>,
}

impl Player<'_> {
    /// Plays one MCAP file; `channels` maps its channel ids to topics,
    /// `names` the topics' names to their index.
    pub fn play_mcap(
        &mut self,
        path: &Path,
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
                    if self.publishers[topic].is_none() || header.log_time < self.start {
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

    /// Plays one `.db3` file, whose `topics` table is `topics`.
    pub fn play_db(
        &mut self,
        path: &Path,
        topics: &[DbTopic],
        names: &BTreeMap<String, usize>,
    ) -> Result<()> {
        let played: BTreeMap<i64, usize> = topics
            .iter()
            .filter_map(|t| Some((t.id, *names.get(&t.info.name)?)))
            .filter(|(_, topic)| self.publishers[*topic].is_some())
            .collect();
        let ids: Vec<i64> = played.keys().copied().collect();
        let from = i64::try_from(self.start).unwrap_or(i64::MAX);
        sqlite::read_messages(path, &ids, from, |id, stamp, data| {
            self.publish(Pending {
                log_time: u64::try_from(stamp).unwrap_or(0),
                order: 0,
                topic: played[&id],
                data: data.to_vec(),
            })
        })
    }

    /// Publishes the pending messages logged at or before `until`.
    fn release(&mut self, heap: &mut BinaryHeap<Reverse<Pending>>, until: u64) -> Result<()> {
        while heap.peek().is_some_and(|Reverse(m)| m.log_time <= until) {
            let Reverse(m) = heap.pop().expect("peeked");
            self.publish(m)?;
        }
        Ok(())
    }

    /// Waits for `m`'s time (ticking /clock meanwhile), then publishes it.
    fn publish(&mut self, m: Pending) -> Result<()> {
        loop {
            let tick = self.clock.as_ref().map(|_| self.next_tick);
            match self.controls.wait_for(m.log_time, tick) {
                Wake::Publish => break,
                Wake::Tick => self.tick(),
                Wake::Stopped => return Err(Interrupted.into()),
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

    /// Publishes the bag's time on /clock and schedules the next tick.
    pub fn tick(&mut self) {
        let Some((clock, period)) = &self.clock else {
            return;
        };
        let t = self.controls.bag_time();
        let _ = clock.publish(Clock {
            clock: Time {
                sec: (t / 1_000_000_000) as i32,
                nanosec: (t % 1_000_000_000) as u32,
            },
        });
        self.next_tick = (self.next_tick + *period).max(Instant::now());
    }
}
