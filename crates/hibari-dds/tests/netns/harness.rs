//! Starting peers inside the namespaces and reading their line protocol.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hibari_testkit::lines::{LineChild, NoLine};
use hibari_testkit::netns::{Netns, NetnsPair};
use hibari_testkit::TestDomain;

/// How long a peer process may live (it exits 2 past it): a guard, not a speed
/// requirement.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(120);

/// Two namespaces, checked to carry unicast and multicast before DDS is
/// involved, so that a failure below is DDS's, not the topology's.
pub fn hosts() -> NetnsPair {
    let hosts = NetnsPair::create().unwrap_or_else(|e| panic!("{e}"));
    hosts.verify().unwrap_or_else(|e| panic!("{e}"));
    hosts
}

/// A domain of this test alone, within ROS 2's range (rclpy and the DDS
/// transport accept 0..=232 only).
pub fn domain() -> TestDomain {
    let d = TestDomain::reserve();
    assert!(
        d.id() <= hibari_dds::MAX_DOMAIN,
        "hibari-testkit handed out domain {d}, outside ROS 2's 0..=232, which rclpy and DDS need"
    );
    d
}

/// Which program plays a role.
#[derive(Clone, Copy, Debug)]
pub enum Side {
    /// hibari-dds's `netns_peer` example (one `DdsTransport`).
    Hibari,
    /// `rclpy_peer.py` on ROS 2 Jazzy from the PyPI wheels (rmw_fastrtps_cpp).
    Rclpy,
}

/// The venv `scripts/ros2-peer.sh jazzy` makes, or the test fails with one
/// line saying how to install it (never a silent pass).
fn venv() -> PathBuf {
    let v = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv-ros2-jazzy");
    assert!(
        v.join("env.sh").is_file(),
        "ROS 2 jazzy is not installed ({}/env.sh is missing): run scripts/ros2-peer.sh jazzy",
        v.display()
    );
    v
}

/// 1920 x 1080 rgb8, the size of the peers' `image` kind.
pub const FULL_HD: usize = 1920 * 1080 * 3;

/// The `netns_peer` example, which `cargo test` builds beside this test
/// (`target/<profile>/examples/`, next to `deps/` that holds this binary).
fn hibari_peer() -> PathBuf {
    let exe = std::env::current_exe().expect("this test binary");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let peer = profile_dir.join("examples").join("netns_peer");
    assert!(
        peer.is_file(),
        "{} is missing: `cargo test -p hibari-dds` builds it; with a --test filter, first run `cargo build -p hibari-dds --example netns_peer`",
        peer.display()
    );
    peer
}

/// Starts `side` in `ns` with `role` (see `rclpy_peer.py`), node `name`.
pub fn spawn(ns: &Netns, side: Side, domain: &TestDomain, name: &str, role: &str) -> Peer {
    let mut c = match side {
        Side::Hibari => {
            let mut c = ns.command(hibari_peer());
            c.args(role.split_whitespace());
            c
        }
        Side::Rclpy => {
            let script =
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../peers/ros2/rclpy_peer.py");
            let mut c = ns.command("bash");
            c.arg("-c")
                .arg(r#". "$0/env.sh" && exec "$ROS2_PYTHON" "$@""#)
                .arg(venv())
                .arg(script)
                .args(role.split_whitespace());
            c
        }
    };
    for k in [
        "ROS_AUTOMATIC_DISCOVERY_RANGE",
        "ROS_STATIC_PEERS",
        "ROS_LOCALHOST_ONLY",
    ] {
        c.env_remove(k);
    }
    c.env("ROS_DOMAIN_ID", domain.id().to_string())
        .env("NETNS_PEER_NAME", name)
        .env("NETNS_PEER_TIMEOUT", PEER_TIMEOUT.as_secs().to_string());
    Peer::start(c, &format!("{name} ({side:?} in {})", ns.name()))
}

/// A running peer; killed (SIGKILL) when dropped.
pub struct Peer {
    what: String,
    process: LineChild,
    seen: Vec<String>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Peer {
    fn start(mut c: Command, what: &str) -> Peer {
        c.stdin(Stdio::null()).stderr(Stdio::piped());
        let mut process = LineChild::spawn(c).unwrap_or_else(|e| panic!("start {what}: {e}"));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let err = process.child().stderr.take().expect("piped");
        let keep = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut k = keep.lock().unwrap_or_else(|e| e.into_inner());
                k.push(line);
                if k.len() > 40 {
                    k.remove(0);
                }
            }
        });
        Peer {
            what: what.to_owned(),
            process,
            seen: Vec::new(),
            stderr,
        }
    }

    /// Every protocol line read so far.
    pub fn seen(&self) -> &[String] {
        &self.seen
    }

    /// Reads the lines that have arrived, without waiting.
    pub fn drain(&mut self) -> &[String] {
        while let Some(line) = self.process.try_line() {
            self.seen.push(line);
        }
        &self.seen
    }

    /// Reads lines until one starts with `key` and returns it; fails the test
    /// (with the peer's recent output) if the peer ends or `limit` passes.
    pub fn wait_for(&mut self, key: &str, limit: Duration) -> String {
        self.wait_until(limit, &format!("a {key} line"), |l| l.starts_with(key))
    }

    /// Reads lines until `done(line)`; fails like [`wait_for`](Self::wait_for).
    pub fn wait_until(
        &mut self,
        limit: Duration,
        what: &str,
        mut done: impl FnMut(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + limit;
        loop {
            match self.process.next_line_by(deadline) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if done(&line) {
                        return line;
                    }
                }
                Err(NoLine::Timeout) => self.fail(&format!("waited {limit:?} for {what}")),
                Err(NoLine::Ended) => {
                    let status = self.process.child().wait().map(|s| s.to_string());
                    self.fail(&format!("it ended ({status:?}) before {what}"))
                }
            }
        }
    }

    fn fail(&mut self, why: &str) -> ! {
        let tail = |v: &[String]| v[v.len().saturating_sub(12)..].join("\n  ");
        let err = self
            .stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        panic!(
            "{}: {why}\n stdout (last lines):\n  {}\n stderr (last lines):\n  {}",
            self.what,
            tail(&self.seen),
            tail(&err)
        )
    }

    /// SIGKILL, as a crash would end it.
    pub fn kill(&mut self) {
        self.process.kill();
    }
}

/// `key=<value>` of a protocol line.
pub fn field(line: &str, key: &str) -> Option<i64> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

/// A subscriber's verdict: the RECV lines it printed and its DONE line.
#[derive(Debug)]
pub struct Received {
    /// Sequence numbers in the order they arrived.
    pub seqs: Vec<i64>,
    /// How many matched `frame(i)` / `"netns <i>"` byte for byte.
    pub exact: usize,
    /// Sizes seen.
    pub bytes: Vec<i64>,
    /// One-way latencies in µs (images only).
    pub lat_us: Vec<i64>,
}

/// Waits for `sub`'s DONE line and collects what it received.
pub fn received(sub: &mut Peer, limit: Duration) -> Received {
    sub.wait_for("DONE", limit);
    let recv: Vec<&String> = sub
        .seen()
        .iter()
        .filter(|l| l.starts_with("RECV"))
        .collect();
    let get = |k| recv.iter().filter_map(|l| field(l, k)).collect::<Vec<_>>();
    Received {
        seqs: get("seq"),
        exact: get("exact").iter().filter(|&&e| e == 1).count(),
        bytes: get("bytes"),
        lat_us: get("lat_us"),
    }
}

/// Prints how many arrived and their one-way latency (information, not a
/// check: timing is the benchmark's business).
pub fn report(r: &Received, what: &str) {
    let mut l = r.lat_us.clone();
    l.sort_unstable();
    let at = |q: f64| l.get(((l.len() as f64 * q) as usize).min(l.len().saturating_sub(1)));
    eprintln!(
        "{what}: {} received, {} exact; latency p50 {:?} µs, max {:?} µs",
        r.seqs.len(),
        r.exact,
        at(0.5),
        l.last()
    );
}

/// Asserts that `r` is exactly 1..=count, in order, every one exact.
pub fn assert_all_exact(r: &Received, count: i64, what: &str) {
    let want: Vec<i64> = (1..=count).collect();
    let missing: Vec<i64> = want
        .iter()
        .filter(|s| !r.seqs.contains(s))
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "{what}: {} of {count} received; missing {missing:?}",
        r.seqs.len()
    );
    assert_eq!(r.seqs, want, "{what}: duplicates or out of order");
    assert_eq!(
        r.exact, count as usize,
        "{what}: some samples differ from what was sent"
    );
}
