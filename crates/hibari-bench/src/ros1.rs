//! The ROS 1 peer (`peers/ros1/run.sh`): real roscpp nodes in two
//! processes, TCPROS through a roscore. Its JSON line per cell becomes a
//! [`Record`]; its per-message CSV (`seq,intended_ns,recv_ns,latency_us`)
//! becomes the record's series, so ROS 1 appears in the per-message plots
//! beside hibari.
//!
//! One roscore serves the whole bench run (`ros1/master.rs`): the peer uses the
//! master at `$ROS_MASTER_URI` when it answers, so the bench starts one on a
//! free port at the first cell and stops it with [`stop_master`], saving the
//! second the peer would spend starting its own for every cell.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::experiments::Config;
use crate::record::Record;
use crate::stats::Stats;

mod master;

use master::master_uri;
pub use master::stop_master;

/// One call of the ROS 1 peer.
#[derive(Debug, Clone)]
pub struct Ros1Cell {
    experiment: &'static str,
    args: Vec<String>,
}

impl Ros1Cell {
    fn new(experiment: &'static str, mut args: Vec<String>, rate: f64, count: u64) -> Ros1Cell {
        args.extend([
            "--rate".into(),
            format!("{rate}"),
            "--count".into(),
            count.to_string(),
            "--warmup".into(),
            (count / 10).clamp(5, 20).to_string(),
            "--both-nodelay".into(),
            "--experiment".into(),
            experiment.into(),
        ]);
        Ros1Cell { experiment, args }
    }
    /// `LaserScan` with `ranges` ranges.
    pub fn laser(experiment: &'static str, ranges: u32, rate: f64, count: u64) -> Ros1Cell {
        let a = ["--type", "laser", "--ranges", &ranges.to_string()];
        Self::new(experiment, a.map(String::from).to_vec(), rate, count)
    }
    /// rgb8 `Image`.
    pub fn image(experiment: &'static str, w: u32, h: u32, rate: f64, count: u64) -> Ros1Cell {
        let (w, h) = (w.to_string(), h.to_string());
        let a = ["--type", "image", "--width", &w, "--height", &h];
        Self::new(experiment, a.map(String::from).to_vec(), rate, count)
    }
    /// `CompressedImage`: the rgb8 frame JPEG-encoded at `quality` for every
    /// message by the publisher (libjpeg-turbo), encode time inside the latency.
    pub fn jpeg(
        experiment: &'static str,
        w: u32,
        h: u32,
        quality: u8,
        rate: f64,
        count: u64,
    ) -> Ros1Cell {
        let (w, h, q) = (w.to_string(), h.to_string(), quality.to_string());
        let a = [
            "--type",
            "jpeg",
            "--width",
            &w,
            "--height",
            &h,
            "--quality",
            &q,
        ];
        Self::new(experiment, a.map(String::from).to_vec(), rate, count)
    }
    /// `UInt8MultiArray` of `size` bytes.
    pub fn bytes(experiment: &'static str, size: u32, rate: f64, count: u64) -> Ros1Cell {
        let a = ["--type", "bytes", "--size", &size.to_string()];
        Self::new(experiment, a.map(String::from).to_vec(), rate, count)
    }
    /// Only with tcpNoDelay (the latency sweep), not both ways.
    pub fn nodelay_only(mut self) -> Ros1Cell {
        for a in &mut self.args {
            if a == "--both-nodelay" {
                *a = "--tcp-nodelay".into();
            }
        }
        self
    }
    /// Short description for the progress bar.
    pub fn describe(&self) -> String {
        let get = |k: &str| {
            let i = self.args.iter().position(|a| a == k)?;
            self.args.get(i + 1).cloned()
        };
        let size = get("--ranges")
            .map(|r| format!("{r} ranges"))
            .or_else(|| get("--size").map(|s| format!("{s} B")))
            .or_else(|| {
                get("--width").map(|w| format!("{w}x{}", get("--height").unwrap_or_default()))
            })
            .map(|s| match get("--quality") {
                Some(q) => format!("{s} q{q}"),
                None => s,
            })
            .unwrap_or_default();
        format!(
            "{} ROS 1 {} {size} @ {} Hz",
            self.experiment,
            get("--type").unwrap_or_default(),
            get("--rate").unwrap_or_default()
        )
    }
}

const HOW: &str = "ROS 1 peer not available: run scripts/ros1-peer.sh (installs Debian's ros-core and builds the peer programs)";

/// Where the peer writes this run's per-message CSVs.
fn csv_dir() -> PathBuf {
    std::env::temp_dir().join(format!("hibari-bench-ros1-{}", std::process::id()))
}

/// Per-message latencies (µs) in sequence order from the peer's CSV.
pub fn read_series(csv: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(csv).unwrap_or_default();
    let mut rows: Vec<(u64, f64)> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Some((
                f.first()?.trim().parse().ok()?,
                f.get(3)?.trim().parse().ok()?,
            ))
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    rows.dedup_by_key(|r| r.0);
    rows.into_iter().map(|r| r.1).collect()
}

/// Runs a ROS 1 cell: its records, or a note saying why not.
pub fn ros1(cell: &Ros1Cell, cfg: &Config) -> (Vec<Record>, Vec<String>) {
    let script = cfg.repo.join("peers/ros1/run.sh");
    let bin_dir = std::env::var_os("ROS1_PEER_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| cfg.repo.join("target/ros1-peer"));
    let built = bin_dir.join("ros1_pub");
    if !script.exists() || !built.exists() || which("roscore").is_none() {
        return (Vec::new(), vec![HOW.into()]);
    }
    let csv_dir = csv_dir();
    let mut cmd = Command::new(&script);
    cmd.args(&cell.args).arg("--csv-dir").arg(&csv_dir);
    // The peer repeats its cells itself (one roscore call for all repetitions).
    cmd.args(["--reps", &cfg.reps.to_string()]);
    if let Some(uri) = master_uri() {
        cmd.env("ROS_MASTER_URI", uri).env("ROS_IP", "127.0.0.1");
    }
    let out = match cmd.stderr(Stdio::null()).output() {
        Ok(o) => o,
        Err(e) => return (Vec::new(), vec![format!("ROS 1 peer: {e}")]),
    };
    if out.status.code() == Some(3) {
        return (Vec::new(), vec![HOW.into()]);
    }
    let mut records = Vec::new();
    let mut notes = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v.get("ok").and_then(|o| o.as_bool()) == Some(false) {
            notes.push(format!("ROS 1 {}: {}", v["label"], v["error"]));
            continue;
        }
        records.push(record_of(&v, cell.experiment));
    }
    if records.is_empty() && notes.is_empty() {
        notes.push(format!(
            "ROS 1 peer gave no record (exit {:?})",
            out.status.code()
        ));
    }
    (records, notes)
}

/// The record of one line of the peer's output (its per-message CSV, when
/// named, becomes the series and is removed).
fn record_of(v: &serde_json::Value, experiment: &'static str) -> Record {
    let f = |k: &str| v.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0);
    let u = |k: &str| v.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
    // Images are labelled like hibari's series (`shm raw`, `shm jpeg q30`), and a JPEG
    // series counts the frame's pixels as its size, as hibari's does.
    let (variant, size_bytes, jpeg_note) = match s("msg_type").as_str() {
        "sensor_msgs/Image" => (" raw".to_string(), u("size_bytes"), String::new()),
        "sensor_msgs/CompressedImage" => (
            format!(" jpeg q{}", u("quality")),
            u("width") * u("height") * 3,
            format!(
                ", JPEG {:.0} B mean (libjpeg-turbo), encode {:.0} µs mean",
                f("jpeg_bytes_mean"),
                f("encode_mean_us")
            ),
        ),
        _ => (String::new(), u("size_bytes"), String::new()),
    };
    let series_us = match v.get("csv").and_then(|c| c.as_str()) {
        Some(p) => {
            let series = read_series(Path::new(p));
            let _ = std::fs::remove_file(p);
            series
        }
        None => Vec::new(),
    };
    Record {
        experiment: experiment.into(),
        system: "ros1".into(),
        transport: s("transport") + &variant,
        language: s("language"),
        size_bytes,
        rate_hz: f("rate_hz"),
        sent: u("sent"),
        received: u("received"),
        lost: u("lost"),
        stats: Stats {
            count: u("received"),
            p50_us: f("p50_us"),
            p90_us: f("p90_us"),
            p99_us: f("p99_us"),
            p999_us: f("p999_us"),
            max_us: f("max_us"),
            mean_us: f("mean_us"),
            stddev_us: f("stddev_us"),
            min_us: f("min_us"),
        },
        cpu_pub_s: f("cpu_pub_s"),
        cpu_sub_s: f("cpu_sub_s"),
        ctx_switches: u("ctx_switches"),
        published: false,
        rep: u("rep") as u32,
        setup: "two processes".into(),
        note: format!(
            "peers/ros1 (roscpp), CPU per process, bunched {:.1}%{jpeg_note}",
            f("bunched_pct")
        ),
        duration_s: if f("rate_hz") > 0.0 {
            u("sent") as f64 / f("rate_hz")
        } else {
            0.0
        },
        series_us,
        vs_hibari: None,
        throughput_msgs_s: None,
        allocs_per_msg: None,
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(program))
        .find(|p| p.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csv_series_is_in_sequence_order_without_duplicates_or_the_header() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let p = dir.join("c.csv");
        let text = "seq,intended_ns,recv_ns,latency_us\n2,0,0,30.5\n0,0,0,10\n1,0,0,20\n1,0,0,99\n";
        std::fs::write(&p, text).unwrap();
        assert_eq!(read_series(&p), vec![10.0, 20.0, 30.5]);
        assert!(read_series(&dir.join("missing.csv")).is_empty());
    }

    #[test]
    fn a_sweep_cell_asks_for_tcp_nodelay_only() {
        let c = Ros1Cell::bytes("latency", 64, 1000.0, 300).nodelay_only();
        assert!(c.args.contains(&"--tcp-nodelay".to_string()));
        assert!(!c.args.contains(&"--both-nodelay".to_string()));
        assert_eq!(c.describe(), "latency ROS 1 bytes 64 B @ 1000 Hz");
    }

    #[test]
    fn a_jpeg_line_is_labelled_and_sized_like_hibaris_jpeg_series() {
        let c = Ros1Cell::jpeg("e1-images", 640, 480, 30, 1000.0 / 30.0, 500);
        assert_eq!(
            c.describe(),
            "e1-images ROS 1 jpeg 640x480 q30 @ 33.333333333333336 Hz"
        );
        let line = r#"{"ok": true, "transport": "tcpros+tcpNoDelay", "language": "cpp",
            "msg_type": "sensor_msgs/CompressedImage", "width": 640, "height": 480, "quality": 30,
            "size_bytes": 59455, "jpeg_bytes_mean": 59421.0, "encode_mean_us": 780.5,
            "rate_hz": 33.3, "sent": 500, "received": 499, "lost": 1, "p50_us": 1100.0}"#;
        let r = record_of(&serde_json::from_str(line).unwrap(), "e1-images");
        assert_eq!(r.transport, "tcpros+tcpNoDelay jpeg q30");
        assert_eq!(r.size_bytes, 640 * 480 * 3);
        assert_eq!(
            (r.sent, r.received, r.lost, r.stats.count),
            (500, 499, 1, 499)
        );
        assert!(r.note.contains("JPEG 59421 B mean"), "{}", r.note);
        let raw = r#"{"ok": true, "transport": "tcpros", "msg_type": "sensor_msgs/Image", "size_bytes": 921651}"#;
        let r = record_of(&serde_json::from_str(raw).unwrap(), "e1-images");
        assert_eq!(
            (r.transport.as_str(), r.size_bytes),
            ("tcpros raw", 921_651)
        );
    }
}
