//! The experiments: each is a list of [`Step`]s (so the progress bar knows
//! its length), run one after another into [`Record`](crate::Record)s
//! (`execute.rs`).
//!
//! | name | what |
//! |---|---|
//! | `e1-images` | 640x480 rgb8 every 30 ms (500 frames; `--quick` 60), raw `Image` and JPEG q30 (`CompressedImage`, encoded inside the latency by libjpeg-turbo, the peers' encoder — `jpeg-encoder` when built without libjpeg-dev, and the record says which); one process and two processes; ROS 1 raw and JPEG (libjpeg-turbo, same frame) beside it, with and without tcpNoDelay |
//! | `e3-laserscan` | `LaserScan` at 100 Hz and 10 Hz, 10 … 100,000 ranges, 200 messages (`--quick`: fewer), two processes; ROS 1 with and without tcpNoDelay |
//! | `e5-type-adapt` | 1920x1080 rgb8 at 30 Hz, subscriber does nothing; CPU in the write-up's six set-ups: {two processes, one process through shared memory (composed without intra-process), one process in-process} × {type adaptation off, on} |
//! | `latency` | 64 B … 8 MB at 100 Hz, 1 kHz, as fast as possible, open loop, two processes unless in-process: hibari (in-process, shared memory; whole stack: typed publish to a typed callback; by loan — `loan_message` — to a view subscription, the zero-copy path end to end as the transport API's series; and of a reused message — `publish_ref`), hibari-shm's transport API, iceoryx2 and raw Zenoh — over TCP and over its own shared memory, without `--quick` also a Unix socket — (hibari-bench-ipc, built with `--features zenoh`), ROS 1 (100 Hz, 1 kHz); without `--quick` also the anchors' closed-loop ping-pong for hibari-shm and iceoryx2 |
//! | `dds` | `Image` 64 B … 6.2 MB at 100 Hz and 30 Hz (`--quick`: 64 B, 1 MiB, 6.2 MB at 30 Hz), reliable: hibari → hibari, rclpy → rclpy (Fast DDS defaults), hibari → rclpy, rclpy → hibari, on one host and across two network namespaces (root); see [`crate::dds`] |
//! | `scale` | one publisher to 1, 2, 4, 8 subscriber processes, 64 B at 100 Hz and 6.2 MB at 30 Hz, shared memory (typed publish, loan, and iceoryx2 event-driven through the same runner); p50, p99 and CPU per subscriber; throughput: 64 B and 6.2 MB as fast as possible, reliable, two processes (typed, loan, transport API, iceoryx2; messages/s and MB/s from the first measured send to the last receipt); 10, 100, 1,000 topics of 64 B at 10 Hz each between two processes (hibari, iceoryx2 with one event service for all topics): CPU of both, p99 |
//! | `e2-bridge`, `e4-python` | the existing programs when built, else how to build them |
//!
//! With the peers, E1, E3, E4, E5 and the latency sweep also run stock ROS 2
//! (rclpy and a native rcl peer, [`crate::dds::ros2`]) in the same run.

use std::path::PathBuf;

use crate::dds::DdsCell;
use crate::external::{IpcCell, Ros1Cell, ZenohCells};
use crate::run::{ChildCommand, SeriesSpec, SeriesSystem};
use crate::workload::{Kind, Schedule};

mod execute;

pub use execute::{finish, run_experiment, run_step};

/// Every experiment, in the order `all` runs them.
pub const ALL: [&str; 8] = [
    "latency",
    "dds",
    "scale",
    "e1-images",
    "e3-laserscan",
    "e5-type-adapt",
    "e2-bridge",
    "e4-python",
];

/// How to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Fewer messages, one repetition.
    pub quick: bool,
    /// Repetitions of every measured series.
    pub reps: u32,
    /// Scale message counts (tests use a small fraction); 1.0 normally.
    pub scale: f64,
    /// How to start the subscriber process.
    pub child: ChildCommand,
    /// The repository (for `peers/ros1`, `python/bench`).
    pub repo: PathBuf,
    /// Directory of built programs (`target/release`), for `e2_bridge`.
    pub target_dir: PathBuf,
    /// Run the ROS 1 peer when installed.
    pub peers: bool,
}

/// One unit of work.
#[derive(Debug, Clone)]
pub enum Step {
    /// A hibari series.
    Series {
        /// Experiment name.
        experiment: &'static str,
        /// Transport label.
        transport: String,
        /// Set-up label.
        setup: String,
        /// What to run.
        spec: SeriesSpec,
    },
    /// A hibari-bench-ipc cell (two processes, this program as the subscriber).
    Ipc(IpcCell),
    /// Raw Zenoh cells, run by a `hibari-bench-ipc` built with `--features zenoh`.
    Zenoh(ZenohCells),
    /// A ROS 1 peer call.
    Ros1(Ros1Cell),
    /// A `dds` cell: hibari and rclpy peer processes.
    Dds(DdsCell),
    /// What could not be planned, and why (a note of the report).
    Unavailable(String),
    /// `e2-bridge` or `e4-python`.
    External(&'static str),
}

/// Subscriber processes of the `scale` experiment.
pub const SCALE_SUBSCRIBERS: [usize; 4] = [1, 2, 4, 8];

/// Topics of the `scale` experiment's many-topics series (times the scale).
pub const SCALE_TOPICS: [usize; 3] = [10, 100, 1000];

/// The topic counts of the many-topics series: [`SCALE_TOPICS`] times the
/// scale, at least 1 each, without repeats.
pub fn scale_topics(cfg: &Config) -> Vec<usize> {
    let mut counts: Vec<usize> = SCALE_TOPICS
        .iter()
        .map(|&t| ((t as f64 * cfg.scale) as usize).max(1))
        .collect();
    counts.dedup();
    counts
}

/// The set-up label of `n` topics at 10 Hz each between two processes.
pub fn topics_setup(n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} topic{s} at 10 Hz, two processes")
}

/// The number of topics of a [`topics_setup`] label.
pub fn topics_of(setup: &str) -> Option<u64> {
    let rest = setup.strip_suffix(" at 10 Hz, two processes")?;
    let n = rest
        .strip_suffix(" topics")
        .or_else(|| rest.strip_suffix(" topic"))?;
    n.parse().ok()
}

/// The `scale` experiment's throughput set-up: one publisher and one
/// subscriber process, as fast as possible.
pub const THROUGHPUT: &str = "as fast as possible, two processes";

/// The set-up label of one publisher and `n` subscriber processes.
pub fn fanout_setup(n: u64) -> String {
    match n {
        1 => "two processes".into(),
        n => format!("1 publisher, {n} subscriber processes"),
    }
}

/// Messages of a series: `full`, or `quick` with `--quick`, times the
/// scale; at least 3.
pub fn count(cfg: &Config, full: u64, quick: u64) -> u64 {
    let n = if cfg.quick { quick } else { full };
    ((n as f64 * cfg.scale) as u64).max(3)
}

/// The experiment's steps; an unknown name gives `None`.
pub fn plan(name: &str, cfg: &Config) -> Option<Vec<Step>> {
    let q = cfg.quick;
    let n = |full: u64, quick: u64| count(cfg, full, quick);
    let series =
        |experiment, transport: &str, two: bool, kind, rate_hz, count: u64, depth| Step::Series {
            experiment,
            transport: transport.to_string(),
            setup: if two { "two processes" } else { "one process" }.into(),
            spec: SeriesSpec {
                kind,
                schedule: Schedule {
                    rate_hz,
                    warmup: (count / 10).clamp(2, 50),
                    count,
                    subscribers: 1,
                    topics: 1,
                },
                depth,
                two_processes: two,
                shm_in_one_process: false,
                system: SeriesSystem::Hibari,
            },
        };
    let mut steps = Vec::new();
    match name {
        "e1-images" => {
            let count = n(500, 60);
            let (w, h) = (640, 480);
            for two in [false, true] {
                let tr = if two { "shm" } else { "inproc" };
                steps.push(series(
                    "e1-images",
                    &format!("{tr} raw"),
                    two,
                    Kind::Image {
                        width: w,
                        height: h,
                    },
                    1000.0 / 30.0,
                    count,
                    10,
                ));
                let jpeg = Kind::Jpeg {
                    width: w,
                    height: h,
                    quality: 30,
                };
                steps.push(series(
                    "e1-images",
                    &format!("{tr} jpeg q30"),
                    two,
                    jpeg,
                    1000.0 / 30.0,
                    count,
                    10,
                ));
            }
            if cfg.peers {
                let rate = 1000.0 / 30.0;
                steps.push(Step::Ros1(Ros1Cell::image("e1-images", w, h, rate, count)));
                let jpeg = Ros1Cell::jpeg("e1-images", w, h, 30, rate, count);
                steps.push(Step::Ros1(jpeg));
            }
        }
        "dds" => {
            let (cells, notes) = crate::dds::plan(cfg);
            steps.extend(notes.into_iter().map(Step::Unavailable));
            steps.extend(cells.into_iter().map(Step::Dds));
        }
        "e3-laserscan" => {
            let ranges: &[u32] = if q {
                &[10, 1000, 100_000]
            } else {
                &[10, 100, 1000, 10_000, 100_000]
            };
            for &rate in &[100.0, 10.0] {
                let count = if rate > 50.0 { n(200, 60) } else { n(200, 12) };
                for &r in ranges {
                    steps.push(series(
                        "e3-laserscan",
                        "shm",
                        true,
                        Kind::Laser { ranges: r },
                        rate,
                        count,
                        100,
                    ));
                }
                if cfg.peers {
                    for &r in ranges {
                        steps.push(Step::Ros1(Ros1Cell::laser("e3-laserscan", r, rate, count)));
                    }
                }
            }
        }
        "e5-type-adapt" => {
            // The write-up's six set-ups: {separate processes, composed, composed with
            // intra-process} × {Image, type adaptation}. "Composed" without
            // intra-process is one process whose two nodes meet through the
            // middleware: here two contexts joined only by shared memory.
            let count = n(300, 60);
            let (w, h) = (1920, 1080);
            let image = Kind::Image {
                width: w,
                height: h,
            };
            let adapted = Kind::Adapted {
                width: w,
                height: h,
            };
            for (two, via_shm) in [(true, false), (false, true), (false, false)] {
                for (kind, what) in [(image, "Image"), (adapted, "adapted")] {
                    let mut step = series("e5-type-adapt", "", two, kind, 30.0, count, 5);
                    if let Step::Series {
                        transport,
                        setup,
                        spec,
                        ..
                    } = &mut step
                    {
                        *transport = match two || via_shm {
                            true => format!("shm {what}"),
                            false => format!("inproc {what}"),
                        };
                        if via_shm {
                            *setup = "one process, no intra-process".into();
                            spec.shm_in_one_process = true;
                        }
                    }
                    steps.push(step);
                }
            }
        }
        "latency" => {
            let sizes: &[u32] = if q {
                &[64, 65_536, 1 << 20, 8 << 20]
            } else {
                &[64, 4096, 65_536, 1 << 20, 4 << 20, 8 << 20]
            };
            let rates = [
                (100.0, n(300, 30)),
                (1000.0, n(2000, 300)),
                (0.0, n(2000, 300)),
            ];
            for &size in sizes {
                for &(rate, count) in &rates {
                    let depth = if size >= 1 << 20 { 8 } else { 100 };
                    for two in [false, true] {
                        steps.push(series(
                            "latency",
                            if two { "shm" } else { "inproc" },
                            two,
                            Kind::Bytes { size },
                            rate,
                            count,
                            depth,
                        ));
                    }
                    // The public loan path and a reused message
                    // (`publish_ref`) beside the typed publish.
                    let loan = Kind::BytesLoan { size };
                    steps.push(series(
                        "latency", "shm loan", true, loan, rate, count, depth,
                    ));
                    let kept = Kind::BytesReused { size };
                    steps.push(series(
                        "latency",
                        "shm reused",
                        true,
                        kept,
                        rate,
                        count,
                        depth,
                    ));
                    for system in ["hibari", "iceoryx2"] {
                        steps.push(Step::Ipc(IpcCell {
                            experiment: "latency",
                            system,
                            size: size as usize,
                            rate_hz: Some(rate),
                            samples: count,
                        }));
                    }
                }
                if !q {
                    // The anchors' closed loop, labelled as such: compare with itself only.
                    for system in ["hibari", "iceoryx2"] {
                        steps.push(Step::Ipc(IpcCell {
                            experiment: "latency",
                            system,
                            size: size as usize,
                            rate_hz: None,
                            samples: n(2000, 300),
                        }));
                    }
                }
            }
            steps.push(Step::Zenoh(ZenohCells {
                sizes: sizes.iter().map(|&s| s as usize).collect(),
                rates: rates.to_vec(),
            }));
            if cfg.peers {
                for &size in sizes {
                    // The peer publishes on a schedule only: 100 Hz and 1 kHz, tcpNoDelay.
                    for &(rate, count) in &rates[..2] {
                        let cell = Ros1Cell::bytes("latency", size, rate, count).nodelay_only();
                        steps.push(Step::Ros1(cell));
                    }
                }
            }
        }
        "scale" => {
            // One publisher, 1 … 8 subscriber processes: the cost per
            // subscriber as their number grows; the typed publish, the loan
            // and iceoryx2 (event-driven, through the same runner).
            for (size, rate, count) in [(64, 100.0, n(300, 30)), (6_220_800, 30.0, n(150, 15))] {
                let depth = if size > 1 << 20 { 8 } else { 100 };
                for subscribers in SCALE_SUBSCRIBERS {
                    for (transport, kind, system) in [
                        ("shm", Kind::Bytes { size }, SeriesSystem::Hibari),
                        ("shm loan", Kind::BytesLoan { size }, SeriesSystem::Hibari),
                        ("ipc event", Kind::Bytes { size }, SeriesSystem::Iceoryx2),
                    ] {
                        let mut step = series("scale", transport, true, kind, rate, count, depth);
                        if let Step::Series { setup, spec, .. } = &mut step {
                            *setup = fanout_setup(subscribers as u64);
                            spec.schedule.subscribers = subscribers;
                            spec.system = system;
                        }
                        steps.push(step);
                    }
                }
            }
            // Many topics at 10 Hz each between two processes: the cost
            // of each topic a node carries (CPU of both, p99).
            for topics in scale_topics(cfg) {
                for (transport, system) in [
                    ("shm", SeriesSystem::Hibari),
                    ("ipc event", SeriesSystem::Iceoryx2),
                ] {
                    let kind = Kind::Bytes { size: 64 };
                    let mut step = series("scale", transport, true, kind, 10.0, n(100, 20), 10);
                    if let Step::Series { setup, spec, .. } = &mut step {
                        *setup = topics_setup(topics);
                        spec.schedule.topics = topics;
                        spec.schedule.warmup = 2;
                        spec.system = system;
                    }
                    steps.push(step);
                }
            }
            // Throughput: as fast as possible, reliable, one subscriber
            // process; the typed publish, the loan, and the transport API
            // beside iceoryx2 (both through hibari-bench-ipc).
            for (size, count) in [(64u32, n(200_000, 20_000)), (6_220_800, n(60, 15))] {
                let depth = if size > 1 << 20 { 8 } else { 100 };
                for (transport, kind) in [
                    ("shm", Kind::Bytes { size }),
                    ("shm loan", Kind::BytesLoan { size }),
                ] {
                    let mut step = series("scale", transport, true, kind, 0.0, count, depth);
                    if let Step::Series { setup, .. } = &mut step {
                        *setup = THROUGHPUT.into();
                    }
                    steps.push(step);
                }
                for system in ["hibari", "iceoryx2"] {
                    steps.push(Step::Ipc(IpcCell {
                        experiment: "scale",
                        system,
                        size: size as usize,
                        rate_hz: Some(0.0),
                        samples: count,
                    }));
                }
            }
        }
        "e2-bridge" => steps.push(Step::External("e2-bridge")),
        "e4-python" => steps.push(Step::External("e4-python")),
        _ => return None,
    }
    if let Some(&name) = ALL.iter().find(|&&n| n == name) {
        let (cells, notes) = crate::dds::ros2::cells(name, cfg);
        steps.extend(notes.into_iter().map(Step::Unavailable));
        steps.extend(cells.into_iter().map(Step::Dds));
    }
    Some(steps)
}

/// An experiment by name (`all` is the caller's loop over [`ALL`]).
pub type Experiment = &'static str;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_up_labels_give_their_counts_back() {
        for n in [1, 10, 1000] {
            assert_eq!(topics_of(&topics_setup(n)), Some(n as u64));
            assert_eq!(crate::plots::subscribers_of(&topics_setup(n)), None);
        }
        assert_eq!(topics_setup(1), "1 topic at 10 Hz, two processes");
        // The `scale` headline's cell names this set-up.
        assert_eq!(topics_setup(1000), "1000 topics at 10 Hz, two processes");
        for n in [1, 8] {
            assert_eq!(crate::plots::subscribers_of(&fanout_setup(n)), Some(n));
            assert_eq!(topics_of(&fanout_setup(n)), None);
        }
    }
}
