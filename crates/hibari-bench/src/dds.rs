//! The `dds` experiment (issue 13's benchmark): one-way latency and CPU of
//! `sensor_msgs/Image` from 64 B to 6.2 MB at 100 Hz and 30 Hz between
//! hibari and stock ROS 2, every direction, on one host and across two
//! hosts:
//!
//! - **peers**: hibari's public API in a process of its own ([`peer`],
//!   `hibari bench --dds-peer`) and rclpy over rmw_fastrtps_cpp from the
//!   Jazzy wheels (`peers/ros2/rclpy_peer.py`, `scripts/ros2-peer.sh jazzy`),
//!   Fast DDS with its defaults. Both speak one line protocol, so a cell is
//!   any (publisher, subscriber) pair;
//! - **one host**: hibari → hibari goes through shared memory (what hibari
//!   chooses), once as shipped (DDS on beside it) and once with
//!   `HIBARI_TRANSPORT=shm` (DDS off), to show what DDS costs that path;
//!   rclpy → rclpy through Fast DDS's own SHM transport (its default) and
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

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hibari_testkit::lines::LineChild;
use hibari_testkit::netns::{Netns, NetnsPair};

use crate::experiments::Config;
use crate::record::Record;
use crate::stats::Stats;

pub mod peer;

/// One end of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// hibari's public API (`hibari bench --dds-peer`).
    Hibari,
    /// rclpy on rmw_fastrtps_cpp (Jazzy wheels).
    Rclpy,
}

/// Where the two processes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hosts {
    /// Both on this host.
    One,
    /// One in each of two network namespaces joined by a veth pair.
    Two,
}

/// One (publisher, subscriber, hosts, size, rate) series.
#[derive(Debug, Clone)]
pub struct DdsCell {
    /// Publisher.
    pub from: Side,
    /// Subscriber.
    pub to: Side,
    /// Placement.
    pub hosts: Hosts,
    /// `Image.data` bytes.
    pub size: u64,
    /// Messages per second.
    pub rate_hz: f64,
    /// Measured messages.
    pub count: u64,
    /// Messages sent first and not measured.
    pub warmup: u64,
    /// The transport set-up beyond the defaults.
    pub variant: Variant,
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
}

impl Side {
    /// (system, language) of this side.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Side::Hibari => ("hibari", "rust"),
            Side::Rclpy => ("ros2", "python"),
        }
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

    fn transport(&self) -> &'static str {
        match (self.hosts, self.from, self.to) {
            (Hosts::Two, _, _) => "dds udp",
            _ if self.variant == Variant::DdsOff => "shm (dds off)",
            _ if self.variant == Variant::FastDdsUdp => "fast dds udp loopback",
            (Hosts::One, Side::Hibari, Side::Hibari) => "shm",
            (Hosts::One, Side::Rclpy, Side::Rclpy) => "fast dds shm",
            (Hosts::One, _, _) => "dds udp loopback",
        }
    }

    fn language(&self) -> String {
        pair(self.from.names().1, self.to.names().1)
    }

    fn setup(&self) -> &'static str {
        match self.hosts {
            Hosts::One => "one host",
            Hosts::Two => "two hosts (netns)",
        }
    }

    /// One line for the progress bar.
    pub fn describe(&self) -> String {
        format!(
            "dds {} {} [{}] {} B @ {} Hz",
            self.system(),
            self.transport(),
            self.setup(),
            self.size,
            self.rate_hz.round()
        )
    }
}

/// The cells of the experiment, and why some could not be planned: rclpy
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
                    if !peers && (from == Side::Rclpy || to == Side::Rclpy) {
                        continue;
                    }
                    cells.push(DdsCell {
                        from,
                        to,
                        hosts,
                        size,
                        rate_hz,
                        count,
                        warmup: (count / 10).clamp(2, 10),
                        variant,
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
        match run(cell, cfg) {
            Ok(mut r) => {
                r.rep = rep;
                records.push(r);
            }
            Err(e) => notes.push(format!("{} failed: {e}", cell.describe())),
        }
    }
    (records, notes)
}

fn venv(repo: &Path) -> Result<PathBuf, String> {
    let v = repo.join(".venv-ros2-jazzy");
    match v.join("env.sh").is_file() {
        true => Ok(v),
        false => Err(format!(
            "ROS 2 Jazzy is not installed ({} missing): run scripts/ros2-peer.sh jazzy",
            v.join("env.sh").display()
        )),
    }
}

fn command(
    cell: &DdsCell,
    side: Side,
    ns: Option<&Netns>,
    role: &str,
    cfg: &Config,
) -> Result<Command, String> {
    let (program, args): (PathBuf, Vec<String>) = match side {
        Side::Hibari => (
            cfg.child.program.clone(),
            vec!["bench".into(), "--dds-peer".into(), role.into()],
        ),
        Side::Rclpy => {
            let script = cfg.repo.join("peers/ros2/rclpy_peer.py");
            let mut a = vec![
                "-c".into(),
                r#". "$0/env.sh" && exec "$ROS2_PYTHON" "$@""#.into(),
                venv(&cfg.repo)?.display().to_string(),
                script.display().to_string(),
            ];
            a.extend(role.split_whitespace().map(String::from));
            ("bash".into(), a)
        }
    };
    let mut c = match ns {
        Some(ns) => ns.command(program),
        None => Command::new(program),
    };
    c.args(args).stdin(Stdio::null()).stdout(Stdio::piped());
    c.stderr(Stdio::null())
        .env("ROS_DOMAIN_ID", crate::run::domain().to_string());
    if side == Side::Rclpy {
        c.env("GLIBC_TUNABLES", RCLPY_MALLOC);
    }
    match cell.variant {
        Variant::Defaults => {}
        Variant::DdsOff => {
            c.env("HIBARI_TRANSPORT", "shm");
        }
        Variant::FastDdsUdp => {
            c.env("FASTDDS_BUILTIN_TRANSPORTS", "UDPv4");
        }
    }
    if ns.is_some() {
        // Both namespaces share /dev/shm: only DDS crosses the "hosts".
        c.env("HIBARI_TRANSPORT", "dds")
            .env_remove("ROS_AUTOMATIC_DISCOVERY_RANGE")
            .env_remove("ROS_STATIC_PEERS");
    }
    Ok(c)
}

/// glibc tunables of the rclpy peers: 6.2 MB buffers come from the heap and
/// freed ones stay mapped (glibc's dynamic mmap threshold otherwise flips,
/// run by run, into mapping and unmapping every sample; see the module docs).
pub const RCLPY_MALLOC: &str =
    "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456";

/// A running peer: its process and its stdout lines; killed when dropped.
struct Peer(LineChild);

impl Peer {
    fn spawn(c: Command) -> Result<Peer, String> {
        let what = format!("{c:?}");
        LineChild::spawn(c)
            .map(Peer)
            .map_err(|e| format!("start {what}: {e}"))
    }

    /// Lines until one starts with `key` (returned) or `deadline`.
    fn until(&self, key: &str, deadline: Instant, mut each: impl FnMut(&str)) -> Option<String> {
        loop {
            let line = self.0.next_line_by(deadline).ok()?;
            if line.starts_with(key) {
                return Some(line);
            }
            each(&line);
        }
    }
}

fn field(line: &str, key: &str) -> Option<u64> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

fn run(cell: &DdsCell, cfg: &Config) -> Result<Record, String> {
    let hosts = match cell.hosts {
        Hosts::One => None,
        Hosts::Two => Some(NetnsPair::create().map_err(|e| format!("two hosts: {e}"))?),
    };
    let topic = format!("/bench_dds_{}_{}", std::process::id(), next_id());
    let total = cell.warmup + cell.count;
    let nominal = total as f64 / cell.rate_hz;
    // A slow pair gets four times its schedule; discovery gets 30 s.
    let limit = Duration::from_secs_f64(30.0 + 4.0 * nominal);
    let timeout = format!("{}", limit.as_secs() + 10);
    let kind = format!("image:{}", cell.size);
    let role = |r: &str| format!("{r} {topic} {kind} {total}");
    let mut sub_cmd = command(
        cell,
        cell.to,
        hosts.as_ref().map(NetnsPair::b),
        &role("sub"),
        cfg,
    )?;
    sub_cmd.env("NETNS_PEER_TIMEOUT", &timeout);
    let sub = Peer::spawn(sub_cmd)?;
    let start = Instant::now();
    sub.until("READY", start + Duration::from_secs(30), |_| {})
        .ok_or("the subscriber did not start")?;
    let pub_role = format!("{} {}", role("pub"), cell.rate_hz);
    let mut pub_cmd = command(
        cell,
        cell.from,
        hosts.as_ref().map(NetnsPair::a),
        &pub_role,
        cfg,
    )?;
    pub_cmd.env("NETNS_PEER_TIMEOUT", &timeout);
    let publ = Peer::spawn(pub_cmd)?;
    let (mut lat_ns, mut seen, mut inexact) = (Vec::new(), vec![false; total as usize + 1], 0);
    let done = sub.until("DONE", Instant::now() + limit, |line| {
        let (Some(seq), Some(lat), Some(exact)) = (
            field(line, "seq"),
            field(line, "lat_us"),
            field(line, "exact"),
        ) else {
            return;
        };
        if seq > cell.warmup && seq <= total && !std::mem::replace(&mut seen[seq as usize], true) {
            lat_ns.push(lat.saturating_mul(1000));
            inexact += u64::from(exact == 0);
        }
    });
    let sent = publ.until("DONE", Instant::now() + Duration::from_secs(5), |_| {});
    drop(publ);
    drop(sub);
    drop(hosts);
    let (Some(done), Some(sent)) = (done, sent) else {
        let got = lat_ns.len();
        return Err(format!(
            "{got} of {} measured samples arrived in {limit:?}",
            cell.count
        ));
    };
    let usage = |l: &str| {
        let f = |k| field(l, k).unwrap_or(0);
        (f("cpu_ns") as f64 / 1e9, f("vcsw") + f("ivcsw"))
    };
    let ((cpu_pub, cs_pub), (cpu_sub, cs_sub)) = (usage(&sent), usage(&done));
    let received = lat_ns.len() as u64;
    Ok(Record {
        experiment: "dds".into(),
        system: cell.system(),
        transport: cell.transport().into(),
        language: cell.language(),
        size_bytes: cell.size,
        rate_hz: cell.rate_hz,
        sent: cell.count,
        received,
        lost: cell.count.saturating_sub(received),
        stats: Stats::of(&lat_ns),
        cpu_pub_s: cpu_pub,
        cpu_sub_s: cpu_sub,
        ctx_switches: cs_pub + cs_sub,
        published: false,
        rep: 0,
        setup: cell.setup().into(),
        note: format!(
            "reliable keep-all Image, latency = receipt − due time (CLOCK_REALTIME); CPU per \
             process, subscriber's includes a byte check; {} of {received} not exact",
            inexact
        ),
        duration_s: nominal,
        series_us: lat_ns.iter().map(|&v| v as f64 / 1000.0).collect(),
    })
}

fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}
