//! The parts run by other programs: hibari-bench-ipc's ping-pong cells
//! (iceoryx2, hibari-shm), the ROS 1 peer (`peers/ros1/run.sh`), the E2
//! bridge example and the E4 Python script.

use std::process::Command;
use std::time::Duration;

use hibari_bench_ipc::{run_cell, CellSpec, Placement, RunOptions};

use crate::experiments::Config;
use crate::record::Record;
use crate::run::ChildCommand;
use crate::stats::Stats;

/// One hibari-bench-ipc cell, event-driven, processes on CPU 0 and CPU 1:
/// closed-loop ping-pong (the anchors' method), so compare it with itself.
pub fn ping_pong(
    system: &str,
    size: usize,
    samples: u64,
    child: &ChildCommand,
) -> Result<Record, hibari_bench_ipc::CellRunError> {
    let spec = CellSpec {
        system: system.into(),
        variant: "event".into(),
        size,
        touch: false,
        placement: Placement::Cross,
        warmup: (samples / 10).max(20),
        samples,
    };
    let opts = RunOptions {
        child_exe: child.program.clone(),
        stall_timeout: Duration::from_secs(10),
    };
    let r = run_cell(&spec, &opts)?;
    let l = r.latency;
    Ok(Record {
        experiment: "latency".into(),
        system: system.into(),
        transport: format!("{} ping-pong", r.transport),
        language: "rust".into(),
        size_bytes: size as u64,
        rate_hz: 0.0,
        sent: r.sent,
        received: r.received,
        lost: r.lost,
        stats: Stats {
            count: l.count,
            p50_us: l.p50_us,
            p90_us: l.p90_us,
            p99_us: l.p99_us,
            p999_us: l.p999_us,
            max_us: l.max_us,
            mean_us: l.mean_us,
            stddev_us: l.stddev_us,
        },
        cpu_pub_s: r.cpu_pub_us_per_msg * r.sent as f64 / 1e6,
        cpu_sub_s: r.cpu_sub_us_per_msg * r.sent as f64 / 1e6,
        ctx_switches: r.ctx_vol + r.ctx_invol,
        published: false,
        rep: 0,
        setup: "two processes, closed loop".into(),
        note: "hibari-bench-ipc: ping-pong, next message after the ack (not open loop)".into(),
        duration_s: 0.0,
        series_us: Vec::new(),
    })
}

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
            "--both-nodelay".into(),
            "--experiment".into(),
            experiment.into(),
        ]);
        Ros1Cell { experiment, args }
    }
    /// `LaserScan` with `ranges` ranges.
    pub fn laser(experiment: &'static str, ranges: u32, rate: f64, count: u64) -> Ros1Cell {
        let a = vec![
            "--type".into(),
            "laser".into(),
            "--ranges".into(),
            ranges.to_string(),
        ];
        Self::new(experiment, a, rate, count)
    }
    /// rgb8 `Image`.
    pub fn image(experiment: &'static str, w: u32, h: u32, rate: f64, count: u64) -> Ros1Cell {
        let a = [
            "--type",
            "image",
            "--width",
            &w.to_string(),
            "--height",
            &h.to_string(),
        ];
        Self::new(
            experiment,
            a.iter().map(|s| s.to_string()).collect(),
            rate,
            count,
        )
    }
    /// `UInt8MultiArray` of `size` bytes.
    pub fn bytes(experiment: &'static str, size: u32, rate: f64, count: u64) -> Ros1Cell {
        let a = vec![
            "--type".into(),
            "bytes".into(),
            "--size".into(),
            size.to_string(),
        ];
        Self::new(experiment, a, rate, count)
    }
}

/// Runs a ROS 1 cell: its records, or a note saying why not.
pub fn ros1(cell: &Ros1Cell, cfg: &Config) -> (Vec<Record>, Vec<String>) {
    let script = cfg.repo.join("peers/ros1/run.sh");
    let how = "ROS 1 peer not available: run scripts/ros1-peer.sh (installs Debian's ros-core and builds the peer programs)";
    if !script.exists() {
        return (Vec::new(), vec![how.into()]);
    }
    let out = match Command::new(&script).args(&cell.args).output() {
        Ok(o) => o,
        Err(e) => return (Vec::new(), vec![format!("ROS 1 peer: {e}")]),
    };
    if out.status.code() == Some(3) {
        return (Vec::new(), vec![how.into()]);
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
        let f = |k: &str| v.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0);
        let u = |k: &str| v.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
        records.push(Record {
            experiment: cell.experiment.into(),
            system: "ros1".into(),
            transport: s("transport"),
            language: s("language"),
            size_bytes: u("size_bytes"),
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
            },
            cpu_pub_s: f("cpu_pub_s"),
            cpu_sub_s: f("cpu_sub_s"),
            ctx_switches: u("ctx_switches"),
            published: false,
            rep: u("rep") as u32,
            setup: "two processes".into(),
            note: format!("peers/ros1 (roscpp), bunched {}%", f("bunched_pct")),
            duration_s: if f("rate_hz") > 0.0 {
                u("sent") as f64 / f("rate_hz")
            } else {
                0.0
            },
            series_us: Vec::new(),
        });
    }
    if records.is_empty() && notes.is_empty() {
        notes.push(format!(
            "ROS 1 peer gave no record (exit {:?})",
            out.status.code()
        ));
    }
    (records, notes)
}

/// `e2-bridge` and `e4-python`: runs the program when it is built and
/// returns its output as notes, else how to build it.
pub fn program(name: &str, cfg: &Config) -> Vec<String> {
    let (program, args, how): (std::path::PathBuf, Vec<String>, &str) = match name {
        "e2-bridge" => {
            let exe = cfg.target_dir.join("examples/e2_bridge");
            let n = if cfg.quick { "10000" } else { "100000" };
            let runs = if cfg.quick { "1" } else { "3" };
            let args = ["--variants", "W1,T1", "--n", n, "--runs", runs];
            (
                exe,
                args.iter().map(|s| s.to_string()).collect(),
                "cargo build --release -p hibari-bridge --example e2_bridge",
            )
        }
        _ => {
            let script = cfg.repo.join("python/bench/e4.py");
            let ok = Command::new("python3")
                .args(["-c", "import hibari"])
                .output();
            if !matches!(ok, Ok(ref o) if o.status.success()) {
                return vec![format!("e4-python not available: build the Python package with scripts/python.sh, then `python3 {}`", script.display())];
            }
            let sizes = if cfg.quick {
                "1024,1048576,4194304"
            } else {
                "1024,4096,65536,1048576,4194304"
            };
            (
                "python3".into(),
                vec![script.display().to_string(), "--sizes".into(), sizes.into()],
                "scripts/python.sh",
            )
        }
    };
    if name == "e2-bridge" && !program.exists() {
        return vec![format!(
            "e2-bridge not available: build with `{how}` (looked for {})",
            program.display()
        )];
    }
    match Command::new(&program).args(&args).output() {
        Ok(o) => {
            let mut lines = vec![format!(
                "{name}: `{} {}` (exit {:?}):",
                program.display(),
                args.join(" "),
                o.status.code()
            )];
            lines.extend(
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .map(|l| format!("    {l}")),
            );
            lines
        }
        Err(e) => vec![format!("{name}: could not run {}: {e}", program.display())],
    }
}
