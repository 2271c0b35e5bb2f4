//! Running one [`DdsCell`]: the peer processes, their lines, the records.
//!
//! Two processes: the subscriber starts first and says READY, then the
//! publisher; the subscriber's RECV lines give the latencies, both DONE lines
//! the usage. One process (the ROS 2 peers' `both` role): one peer gives
//! both. Every cell gets a topic of its own (this process's id and a
//! counter) on the run's domain.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hibari_testkit::lines::LineChild;
use hibari_testkit::netns::{Netns, NetnsPair};

use super::{venv, DdsCell, Hosts, Side, Variant};
use crate::experiments::Config;
use crate::record::Record;
use crate::stats::Stats;

fn command(
    cell: &DdsCell,
    side: Side,
    ns: Option<&Netns>,
    role: &str,
    cfg: &Config,
) -> Result<Command, String> {
    let in_venv = |program: &str| -> Result<Vec<String>, String> {
        let mut a = vec![
            "-c".into(),
            format!(r#". "$0/env.sh" && exec {program} "$@""#),
            venv(&cfg.repo)?.display().to_string(),
        ];
        if side == Side::Rclpy {
            a.push(
                cfg.repo
                    .join("peers/ros2/rclpy_peer.py")
                    .display()
                    .to_string(),
            );
        }
        a.extend(role.split_whitespace().map(String::from));
        Ok(a)
    };
    let (program, args): (PathBuf, Vec<String>) = match side {
        Side::Hibari => (
            cfg.child.program.clone(),
            vec!["bench".into(), "--dds-peer".into(), role.into()],
        ),
        Side::Rclpy => ("bash".into(), in_venv(r#""$ROS2_PYTHON""#)?),
        Side::Rcl => ("bash".into(), in_venv(r#""$ROS2_RCL_PEER""#)?),
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
        Variant::NoCheck => {
            c.env("NETNS_PEER_CHECK", "0");
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

/// What the lines of one subscriber (and, for the first, the publisher)
/// said.
#[derive(Default, Clone)]
struct Seen {
    /// Latencies of measured samples, ns, in arrival order.
    lat_ns: Vec<u64>,
    /// Publish-call times of measured messages, ns.
    call_ns: Vec<u64>,
    /// Measured samples whose bytes were not exact.
    inexact: u64,
    /// Per sequence number: received already.
    seen: Vec<bool>,
    /// First measured send and last measured receipt, `CLOCK_MONOTONIC`
    /// ns (the send is the receipt minus the latency).
    span: Option<(u64, u64)>,
}

impl Seen {
    fn line(&mut self, cell: &DdsCell, line: &str) {
        // With several topics the peers number messages across them.
        let seq = field(line, "seq").unwrap_or(0);
        if seq <= cell.warmup * cell.topics.unwrap_or(1) || seq as usize >= self.seen.len() {
            return;
        }
        if line.starts_with("SENT") {
            self.call_ns.extend(field(line, "call_ns"));
            return;
        }
        let (Some(lat), Some(exact)) = (field(line, "lat_us"), field(line, "exact")) else {
            return;
        };
        if !std::mem::replace(&mut self.seen[seq as usize], true) {
            let lat_ns = lat.saturating_mul(1000);
            self.lat_ns.push(lat_ns);
            self.inexact += u64::from(exact == 0);
            if let Some(rx) = field(line, "rx_ns") {
                let (sent, last) = self.span.unwrap_or((u64::MAX, 0));
                self.span = Some((sent.min(rx.saturating_sub(lat_ns)), last.max(rx)));
            }
        }
    }
}

/// Runs `cell` once: its latency record, and for E4 its publish-call record.
pub(super) fn run(cell: &DdsCell, cfg: &Config) -> Result<Vec<Record>, String> {
    let hosts = match cell.hosts {
        Hosts::Two => Some(NetnsPair::create().map_err(|e| format!("two hosts: {e}"))?),
        Hosts::One | Hosts::Process => None,
    };
    let topic = format!("/bench_dds_{}_{}", std::process::id(), next_id());
    let total = cell.warmup + cell.count;
    let topics = cell.topics.unwrap_or(1).max(1);
    // As fast as possible: allow 50 MB/s and 20 µs a message.
    let nominal = match cell.rate_hz > 0.0 {
        true => total as f64 / cell.rate_hz,
        false => total as f64 * (cell.payload.bytes() as f64 / 50e6 + 20e-6),
    };
    // A slow pair gets four times its schedule; discovery gets 30 s, and
    // 50 ms more per topic.
    let limit = Duration::from_secs_f64(30.0 + 0.05 * topics as f64 + 4.0 * nominal);
    let timeout = format!("{}", limit.as_secs() + 10);
    let role = |r: &str| format!("{r} {topic} {} {total}", cell.payload.arg());
    let subscribers = cell.subscribers.max(1);
    let start_peer = |side, ns: Option<&Netns>, role: &str, name: Option<String>| {
        let mut c = command(cell, side, ns, role, cfg)?;
        c.env("NETNS_PEER_TIMEOUT", &timeout)
            .env("NETNS_PEER_SUBSCRIBERS", subscribers.to_string())
            .env("NETNS_PEER_TOPICS", topics.to_string());
        if let Some(name) = name {
            c.env("NETNS_PEER_NAME", name);
        }
        Peer::spawn(c)
    };
    let fresh = || Seen {
        seen: vec![false; (total * topics) as usize + 1],
        ..Seen::default()
    };
    let mut seen = vec![fresh(); subscribers as usize];
    let start = Instant::now();
    let (dones, sent) = if cell.hosts == Hosts::Process {
        let both_role = format!("{} {}", role("both"), cell.rate_hz);
        let both = start_peer(cell.from, None, &both_role, None)?;
        let done = both.until("DONE", start + limit, |l| seen[0].line(cell, l));
        (vec![done.clone()], done)
    } else {
        let b = hosts.as_ref().map(NetnsPair::b);
        let subs = (0..subscribers)
            .map(|i| start_peer(cell.to, b, &role("sub"), Some(format!("bench_sub_{i}"))))
            .collect::<Result<Vec<_>, _>>()?;
        for sub in &subs {
            sub.until("READY", start + Duration::from_secs(30), |_| {})
                .ok_or("a subscriber did not start")?;
        }
        let pub_role = format!("{} {}", role("pub"), cell.rate_hz);
        let a = hosts.as_ref().map(NetnsPair::a);
        let publ = start_peer(cell.from, a, &pub_role, None)?;
        let deadline = Instant::now() + limit;
        let dones: Vec<_> = subs
            .iter()
            .zip(seen.iter_mut())
            .map(|(sub, seen)| sub.until("DONE", deadline, |l| seen.line(cell, l)))
            .collect();
        let deadline = Instant::now() + Duration::from_secs(5);
        let sent = publ.until("DONE", deadline, |l| seen[0].line(cell, l));
        (dones, sent)
    };
    drop(hosts);
    let got: usize = seen.iter().map(|s| s.lat_ns.len()).sum();
    let (Some(dones), Some(sent)) = (dones.into_iter().collect::<Option<Vec<_>>>(), sent) else {
        return Err(format!(
            "{got} of {} measured samples arrived in {limit:?}",
            cell.count * topics * subscribers
        ));
    };
    let usage = |l: &str| {
        let f = |k| field(l, k).unwrap_or(0);
        (f("cpu_ns") as f64 / 1e9, f("vcsw") + f("ivcsw"))
    };
    let (cpu_pub, cs_pub) = usage(&sent);
    let (mut cpu_sub, mut cs_sub) = (0.0, 0);
    for d in &dones {
        let (c, s) = usage(d);
        (cpu_sub, cs_sub) = (cpu_sub + c / subscribers as f64, cs_sub + s);
    }
    if cell.hosts == Hosts::Process {
        (cpu_sub, cs_sub) = (0.0, 0);
    }
    let call_ns = std::mem::take(&mut seen[0].call_ns);
    // As fast as possible: the series lasts from the first measured send to
    // the last measured receipt (throughput = received / duration).
    let spans = seen.iter().filter_map(|s| s.span);
    let span = spans.reduce(|(a0, a1), (b0, b1)| (a0.min(b0), a1.max(b1)));
    let duration_s = match (cell.rate_hz > 0.0, span) {
        (false, Some((sent, last))) => last.saturating_sub(sent) as f64 / 1e9,
        _ => nominal,
    };
    let inexact: u64 = seen.iter().map(|s| s.inexact).sum();
    let lat_ns: Vec<u64> = seen.into_iter().flat_map(|s| s.lat_ns).collect();
    let received = lat_ns.len() as u64;
    let expected = cell.count * topics * subscribers;
    let checked = match cell.variant {
        Variant::NoCheck => "bytes not compared".to_string(),
        _ => format!("{inexact} of {received} not exact"),
    };
    let cpu = match (cell.hosts, subscribers) {
        (Hosts::Process, _) => "CPU of the whole process in the publisher's column".into(),
        (_, 1) => "CPU per process".to_string(),
        (_, n) => format!("{n} subscriber processes: CPU per subscriber (mean), sent = deliveries"),
    };
    let latency = Record {
        experiment: cell.experiment.into(),
        system: cell.system(),
        transport: cell.transport(),
        language: cell.language(),
        size_bytes: cell.payload.bytes(),
        rate_hz: cell.rate_hz,
        sent: expected,
        received,
        lost: expected.saturating_sub(received),
        stats: Stats::of(&lat_ns),
        cpu_pub_s: cpu_pub,
        cpu_sub_s: cpu_sub,
        ctx_switches: cs_pub + cs_sub,
        published: false,
        rep: 0,
        setup: cell.setup(),
        note: format!(
            "reliable keep-all, {}, latency = receipt − due time (CLOCK_REALTIME); \
             {cpu}; {checked}",
            match cell.rate_hz > 0.0 {
                true => "open loop",
                false => "as fast as possible",
            }
        ),
        duration_s,
        series_us: lat_ns.iter().map(|&v| v as f64 / 1000.0).collect(),
        vs_hibari: None,
        throughput_msgs_s: None,
        allocs_per_msg: None,
    };
    let mut records = vec![latency];
    if cell.experiment == "e4-python" && !call_ns.is_empty() {
        let call = &records[0];
        records.push(Record {
            setup: format!("{}, reliable, publish call", call.setup),
            stats: Stats::of(&call_ns),
            note: "publish-call time".into(),
            series_us: Vec::new(),
            ..call.clone()
        });
        records[0].setup = format!("{}, reliable", records[0].setup);
    }
    Ok(records)
}

fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}
