//! The `dds` experiment (issue 13's benchmark): one-way latency and CPU of
//! `sensor_msgs/Image` from 64 B to 6.2 MB at 100 Hz and 30 Hz between
//! hibari and stock ROS 2, every direction, on one host and across two
//! hosts:
//!
//! - **peers**: hibari's public API in a process of its own ([`peer`],
//!   `hibari bench --dds-peer`), rclpy over rmw_fastrtps_cpp from the Jazzy
//!   wheels (`peers/ros2/rclpy_peer.py`) and the native peer, C against rcl
//!   from the same wheels (`peers/ros2/rcl_peer.c`, what rclcpp runs under
//!   its C++ layer; both installed by `scripts/ros2-peer.sh jazzy`), Fast DDS
//!   with its defaults. All speak one line protocol, so a cell is any
//!   (publisher, subscriber) pair;
//! - **one host**: hibari → hibari goes through shared memory (what hibari
//!   chooses), once as shipped (DDS on beside it) and once with
//!   `HIBARI_TRANSPORT=shm` (DDS off), to show what DDS costs that path;
//!   rcl → rcl and rclpy → rclpy through Fast DDS's own SHM transport (its
//!   default), rclpy → rclpy also
//!   once with `FASTDDS_BUILTIN_TRANSPORTS=UDPv4`: UDP on loopback, what the
//!   mixed pairs use, so their like-for-like reference;
//! - **two hosts**: two network namespaces joined by a veth pair (MTU 1500;
//!   hibari-testkit's `NetnsPair`, each namespace with its own machine id so
//!   Fast DDS does not take `/dev/shm`), every pair over DDS-RTPS on UDP;
//!   hibari runs with `HIBARI_TRANSPORT=dds` there, since both namespaces
//!   still share the machine's `/dev/shm`. Needs root.
//!
//! Latency is the subscriber's `CLOCK_REALTIME` on receipt minus the
//! message's due time (open loop: built before, stamped with and published
//! at `start + (i − 1) / rate`); the first samples are warm-up. QoS: reliable,
//! keep all, volatile. Every subscriber compares every byte of every image
//! with what was sent (in its CPU figure, alike on both sides); a mismatch
//! is reported in the record's note. CPU and context switches are each
//! process's own: the publisher's from matching to its last publish, the
//! subscriber's from its first sample to its last.
//!
//! The rclpy peers run with glibc's malloc thresholds fixed
//! ([`RCLPY_MALLOC`]). With glibc's defaults, a run of 6.2 MB images falls,
//! at random, into a mode where the rclpy subscriber gets fresh pages for
//! every sample (measured: 935,808 minor page faults in one run against
//! 22,000-55,000 in the others, system CPU 3.8 s against 0.3 s, p50 343 ms
//! against 22-25 ms, rclpy → rclpy over Fast DDS's SHM alike). Both the
//! rclpy → rclpy reference and hibari → rclpy have an rclpy subscriber, so
//! that mode made their comparison a coin toss; fixed, ten runs in a row
//! stayed at 28-43 ms (measure/bench-dds.md, "Send rate").

//!
//! The same peers are the ROS 2 series of the other experiments ([`ros2`]):
//! E1's images, E3's scans, E4's publish call, E5's 1080p CPU and the
//! latency sweep, two processes and one (the peers' `both` role: two nodes
//! in one context, whose samples still go through Fast DDS: rcl has no
//! intra-process path, rclcpp's is above it and not in the wheels).

use std::path::{Path, PathBuf};

use crate::experiments::Config;
use crate::record::Record;

pub mod fastdds_shm;
pub mod peer;
pub mod ros2;
mod run;

pub use run::RCLPY_MALLOC;

/// One end of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// hibari's public API (`hibari bench --dds-peer`).
    Hibari,
    /// rclpy on rmw_fastrtps_cpp (Jazzy wheels).
    Rclpy,
    /// C on rcl and rmw_fastrtps_cpp (Jazzy wheels): native ROS 2.
    Rcl,
}

/// Where the processes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hosts {
    /// Two processes on this host.
    One,
    /// One in each of two network namespaces joined by a veth pair.
    Two,
    /// One process: the ROS 2 peers' `both` role (publisher and subscriber
    /// the same side).
    Process,
}

/// What the peers exchange: their KIND argument (`peers/ros2/kinds.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// `sensor_msgs/Image` of this many bytes (mono8 N x 1; 6,220,800 is
    /// rgb8 1920x1080).
    Image(u64),
    /// `sensor_msgs/Image`, rgb8 width x height.
    Rgb(u32, u32),
    /// `sensor_msgs/LaserScan` with this many ranges.
    Laser(u32),
    /// `sensor_msgs/CompressedImage`: rgb8 width x height JPEG-encoded at a
    /// quality for every message (native peer only).
    Jpeg(u32, u32, u8),
}

impl Payload {
    /// The peers' KIND argument.
    pub fn arg(self) -> String {
        match self {
            Payload::Image(n) => format!("image:{n}"),
            Payload::Rgb(w, h) => format!("image:{w}x{h}"),
            Payload::Laser(n) => format!("laser:{n}"),
            Payload::Jpeg(w, h, q) => format!("jpeg:{w}x{h}:{q}"),
        }
    }

    /// Payload bytes (a JPEG's raw frame: its compressed size varies).
    pub fn bytes(self) -> u64 {
        match self {
            Payload::Image(n) => n,
            Payload::Rgb(w, h) | Payload::Jpeg(w, h, _) => u64::from(w) * u64::from(h) * 3,
            Payload::Laser(n) => u64::from(n) * 4,
        }
    }
}

/// One (publisher, subscriber, hosts, payload, rate) series.
#[derive(Debug, Clone)]
pub struct DdsCell {
    /// The experiment its records belong to.
    pub experiment: &'static str,
    /// Publisher.
    pub from: Side,
    /// Subscriber.
    pub to: Side,
    /// Placement.
    pub hosts: Hosts,
    /// What is sent.
    pub payload: Payload,
    /// Messages per second.
    pub rate_hz: f64,
    /// Measured messages.
    pub count: u64,
    /// Messages sent first and not measured.
    pub warmup: u64,
    /// The transport set-up beyond the defaults.
    pub variant: Variant,
    /// Subscriber processes (`scale`; 1 elsewhere, and in one process).
    pub subscribers: u64,
    /// Topics, each with `count` messages at `rate_hz`: `Some` for
    /// `scale`'s many-topics series (its own set-up, even of 1 topic),
    /// `None` (one topic) elsewhere. Not in one process.
    pub topics: Option<u64>,
}

/// A transport set-up other than the defaults (one host only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// What each side chooses by itself.
    Defaults,
    /// hibari → hibari with `HIBARI_TRANSPORT=shm`: DDS off.
    DdsOff,
    /// rclpy → rclpy with `FASTDDS_BUILTIN_TRANSPORTS=UDPv4`: no SHM.
    FastDdsUdp,
    /// The subscriber does not compare the bytes (E5: "the subscriber does
    /// nothing"; `NETNS_PEER_CHECK=0`).
    NoCheck,
}

impl Side {
    /// (system, language) of this side.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Side::Hibari => ("hibari", "rust"),
            Side::Rclpy => ("ros2", "python"),
            Side::Rcl => ("ros2", "c"),
        }
    }

    fn is_ros2(self) -> bool {
        self != Side::Hibari
    }
}

/// `a` when both ends say the same, else `a→b`.
fn pair(a: &'static str, b: &'static str) -> String {
    match a == b {
        true => a.to_string(),
        false => format!("{a}→{b}"),
    }
}

impl DdsCell {
    fn system(&self) -> String {
        pair(self.from.names().0, self.to.names().0)
    }

    fn transport(&self) -> String {
        let base = match (self.hosts, self.from, self.to) {
            (Hosts::Two, _, _) => "dds udp",
            (Hosts::Process, _, _) => "fast dds",
            _ if self.variant == Variant::DdsOff => "shm (dds off)",
            _ if self.variant == Variant::FastDdsUdp => "fast dds udp loopback",
            (Hosts::One, Side::Hibari, Side::Hibari) => "shm",
            (Hosts::One, f, t) if f.is_ros2() && t.is_ros2() => "fast dds shm",
            (Hosts::One, _, _) => "dds udp loopback",
        };
        match self.payload {
            Payload::Jpeg(_, _, q) => format!("{base} jpeg q{q}"),
            _ => base.into(),
        }
    }

    fn language(&self) -> String {
        pair(self.from.names().1, self.to.names().1)
    }

    fn setup(&self) -> String {
        match (self.hosts, self.experiment) {
            (Hosts::One, "dds") => "one host".into(),
            (Hosts::One, "scale") if self.rate_hz == 0.0 => crate::experiments::THROUGHPUT.into(),
            (Hosts::One, _) if self.topics.is_some() => {
                crate::experiments::topics_setup(self.topics.unwrap_or(1) as usize)
            }
            (Hosts::One, _) => crate::experiments::fanout_setup(self.subscribers),
            (Hosts::Two, _) => "two hosts (netns)".into(),
            (Hosts::Process, _) => "one process".into(),
        }
    }

    /// One line for the progress bar.
    pub fn describe(&self) -> String {
        format!(
            "{} {} {} {} [{}] {} B @ {} Hz",
            self.experiment,
            self.system(),
            self.language(),
            self.transport(),
            self.setup(),
            self.payload.bytes(),
            self.rate_hz.round()
        )
    }
}

/// The cells of the experiment, and why some could not be planned: ROS 2
/// cells need `peers` and the Jazzy venv, two-host cells root.
pub fn plan(cfg: &Config) -> (Vec<DdsCell>, Vec<String>) {
    let (quick, scale) = (cfg.quick, cfg.scale);
    let mut notes = Vec::new();
    let peers = cfg.peers
        && venv(&cfg.repo)
            .map_err(|e| notes.push(format!("dds: {e}")))
            .is_ok();
    let root = rustix::process::geteuid().is_root();
    if !root {
        notes.push("dds: two hosts (network namespaces) need root: one host only".into());
    }
    let sizes: &[u64] = if quick {
        &[64, 1 << 20, 6_220_800]
    } else {
        &[64, 4096, 65_536, 1 << 20, 6_220_800]
    };
    let rates: &[f64] = if quick { &[30.0] } else { &[100.0, 30.0] };
    let pairs = [
        (Side::Hibari, Side::Hibari),
        (Side::Rclpy, Side::Rclpy),
        (Side::Rcl, Side::Rcl),
        (Side::Hibari, Side::Rclpy),
        (Side::Rclpy, Side::Hibari),
    ];
    let mut cells = Vec::new();
    let placements: &[Hosts] = if root {
        &[Hosts::Two, Hosts::One]
    } else {
        &[Hosts::One]
    };
    for &hosts in placements {
        for &rate_hz in rates {
            let full = if rate_hz > 50.0 { 300.0 } else { 150.0 };
            let count = ((if quick { 45.0 } else { full }) * scale).max(3.0) as u64;
            for &size in sizes {
                let mut all: Vec<_> = pairs
                    .iter()
                    .map(|&(f, t)| (f, t, Variant::Defaults))
                    .collect();
                if hosts == Hosts::One {
                    all.push((Side::Hibari, Side::Hibari, Variant::DdsOff));
                    all.push((Side::Rclpy, Side::Rclpy, Variant::FastDdsUdp));
                }
                for (from, to, variant) in all {
                    if !peers && (from.is_ros2() || to.is_ros2()) {
                        continue;
                    }
                    cells.push(DdsCell {
                        experiment: "dds",
                        from,
                        to,
                        hosts,
                        payload: Payload::Image(size),
                        rate_hz,
                        count,
                        warmup: (count / 10).clamp(2, 10),
                        variant,
                        subscribers: 1,
                        topics: None,
                    });
                }
            }
        }
    }
    (cells, notes)
}

/// Runs `cell` `cfg.reps` times: its records, and notes for what failed.
pub fn dds(cell: &DdsCell, cfg: &Config) -> (Vec<Record>, Vec<String>) {
    let (mut records, mut notes) = (Vec::new(), Vec::new());
    for rep in 0..cfg.reps {
        match run::run(cell, cfg) {
            Ok(rs) => records.extend(rs.into_iter().map(|mut r| {
                r.rep = rep;
                r
            })),
            Err(e) => notes.push(format!("{} failed: {e}", cell.describe())),
        }
    }
    (records, notes)
}

/// The Jazzy venv `scripts/ros2-peer.sh jazzy` makes, with the native peer
/// built in it.
fn venv(repo: &Path) -> Result<PathBuf, String> {
    let v = repo.join(".venv-ros2-jazzy");
    match v.join("env.sh").is_file() && v.join("bin/rcl_peer").is_file() {
        true => Ok(v),
        false => Err(format!(
            "ROS 2 Jazzy and its native peer are not installed ({} or bin/rcl_peer missing): \
             run scripts/ros2-peer.sh jazzy",
            v.join("env.sh").display()
        )),
    }
}
