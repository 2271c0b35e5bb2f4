//! The parts measured by hibari-bench-ipc: hibari-shm's transport API and
//! iceoryx2 in this program (the subscriber is `hibari __child`), raw Zenoh
//! through a `hibari-bench-ipc` binary built with `--features zenoh` (so the
//! `hibari` binary never compiles Zenoh).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use hibari_bench_ipc::{run_cell, CellSpec, Placement, RunOptions};

use crate::experiments::Config;
use crate::programs::stderr_tail;
use crate::record::Record;
use crate::run::ChildCommand;

pub use crate::programs::program;
pub use crate::ros1::{ros1, Ros1Cell};

/// One hibari-bench-ipc cell, event-driven.
#[derive(Debug, Clone, Copy)]
pub struct IpcCell {
    /// The experiment its record belongs to (`latency`, `scale`).
    pub experiment: &'static str,
    /// `hibari` (hibari-shm, loaned, through the transport API) or `iceoryx2`.
    pub system: &'static str,
    /// Payload bytes.
    pub size: usize,
    /// `Some(rate)`: open loop (0 = as fast as possible); `None`: ping-pong.
    pub rate_hz: Option<f64>,
    /// Measured messages.
    pub samples: u64,
}

impl fmt::Display for IpcCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.rate_hz {
            None => "ping-pong".to_string(),
            Some(0.0) => "open loop, max rate".to_string(),
            Some(r) => format!("open loop, {r} Hz"),
        };
        write!(f, "{} {} B {how}", self.system, self.size)
    }
}

/// Open-loop queue depth of the data direction.
fn depth(size: usize) -> usize {
    if size >= 1 << 20 {
        8
    } else {
        16
    }
}

/// Warm-up messages before `samples` measured ones.
fn warmup(samples: u64) -> u64 {
    (samples / 10).clamp(5, 100)
}

/// The bench's record of a hibari-bench-ipc record.
pub fn from_ipc(r: &hibari_bench_ipc::Record) -> Record {
    let l = r.latency;
    let kind = match (r.system.as_str(), r.variant.as_str()) {
        ("hibari", _) => "shm transport API".to_string(),
        ("iceoryx2", v) => format!("ipc {v}"),
        ("zenoh", v) => format!("{v} peer"),
        (_, v) => v.to_string(),
    };
    let (transport, setup, note) = if r.open_loop {
        (
            kind,
            "two processes".to_string(),
            format!(
                "hibari-bench-ipc open loop, depth {}, placement {}; CPU per process",
                r.depth, r.placement
            ),
        )
    } else {
        (
            format!("{kind} ping-pong"),
            "two processes, closed loop".to_string(),
            "hibari-bench-ipc ping-pong: next message after the ack (not open loop)".to_string(),
        )
    };
    Record {
        experiment: "latency".into(),
        system: r.system.clone(),
        transport,
        language: "rust".into(),
        size_bytes: r.size_bytes,
        rate_hz: r.rate_hz,
        sent: r.sent,
        received: r.received,
        lost: r.lost,
        stats: l,
        cpu_pub_s: r.cpu_pub_us_per_msg * r.sent as f64 / 1e6,
        cpu_sub_s: r.cpu_sub_us_per_msg * r.sent as f64 / 1e6,
        ctx_switches: r.ctx_vol + r.ctx_invol,
        published: false,
        rep: 0,
        setup,
        note,
        duration_s: crate::record::until_last_receipt(r.rate_hz, r.seconds, &r.series_us),
        series_us: r.series_us.clone(),
        vs_hibari: None,
        throughput_msgs_s: None,
        allocs_per_msg: None,
    }
}

/// Runs one cell: open loop with both processes free to run anywhere (as
/// hibari's own series), ping-pong on CPU 0 and CPU 1 (as the anchors).
pub fn ipc_cell(
    cell: &IpcCell,
    child: &ChildCommand,
) -> Result<Record, hibari_bench_ipc::CellRunError> {
    let spec = CellSpec {
        system: cell.system.into(),
        variant: "event".into(),
        size: cell.size,
        touch: false,
        placement: match cell.rate_hz {
            Some(_) => Placement::Free,
            None => Placement::Cross,
        },
        warmup: warmup(cell.samples),
        samples: cell.samples,
        rate_hz: cell.rate_hz,
        depth: match cell.rate_hz {
            Some(_) => depth(cell.size),
            None => 2,
        },
    };
    let opts = RunOptions {
        child_exe: child.program.clone(),
        stall_timeout: Duration::from_secs(10),
    };
    let mut record = from_ipc(&run_cell(&spec, &opts)?);
    record.experiment = cell.experiment.into();
    if cell.experiment == "scale" {
        record.setup = crate::experiments::THROUGHPUT.into();
    }
    Ok(record)
}

/// The Zenoh cells of the sweep: every size at every rate.
#[derive(Debug, Clone)]
pub struct ZenohCells {
    /// Payload sizes.
    pub sizes: Vec<usize>,
    /// `(rate, measured messages)`; rate 0 = as fast as possible.
    pub rates: Vec<(f64, u64)>,
}

/// How to get Zenoh into the sweep.
pub const ZENOH_HOW: &str = "cargo build --release -p hibari-bench-ipc --features zenoh   (or scripts/demo.sh --zenoh; Zenoh compiles slowly, so it is off by default)";

fn zenoh_binary(cfg: &Config) -> Result<PathBuf, String> {
    let exe = cfg.target_dir.join("hibari-bench-ipc");
    if !exe.exists() {
        return Err(format!(
            "latency: raw Zenoh not measured: {} not built; build it with `{ZENOH_HOW}`",
            exe.display()
        ));
    }
    let listed = Command::new(&exe).arg("--list-systems").output();
    let has = listed
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.starts_with("zenoh "))
        })
        .unwrap_or(false);
    if !has {
        return Err(format!(
            "latency: raw Zenoh not measured: {} was built without the `zenoh` feature; build it with `{ZENOH_HOW}`",
            exe.display()
        ));
    }
    Ok(exe)
}

/// `sizes` grouped by their open-loop [`depth`], in order of first appearance.
fn by_depth(sizes: &[usize]) -> Vec<(usize, Vec<usize>)> {
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for &size in sizes {
        let d = depth(size);
        match groups.iter_mut().find(|g| g.0 == d) {
            Some(g) => g.1.push(size),
            None => groups.push((d, vec![size])),
        }
    }
    groups
}

/// Runs the Zenoh cells, one `hibari-bench-ipc` call per repetition, rate
/// and queue depth (the sizes of one depth together, the depth of
/// hibari's and iceoryx2's cells).
pub fn zenoh(cells: &ZenohCells, cfg: &Config) -> (Vec<Record>, Vec<String>) {
    let exe = match zenoh_binary(cfg) {
        Ok(e) => e,
        Err(note) => return (Vec::new(), vec![note]),
    };
    let (mut records, mut notes) = (Vec::new(), Vec::new());
    let variants = if cfg.quick { "tcp,shm" } else { "tcp,unix,shm" };
    let groups = by_depth(&cells.sizes);
    let json = std::env::temp_dir().join(format!("hibari-bench-zenoh-{}.json", std::process::id()));
    for rep in 0..cfg.reps {
        for (&(rate, samples), (depth, sizes)) in cells
            .rates
            .iter()
            .flat_map(|r| groups.iter().map(move |g| (r, g)))
        {
            // One call per (rate, depth): the sizes of that depth together.
            let sizes: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
            let args = [
                "--systems".to_string(),
                "zenoh".into(),
                "--variants".into(),
                variants.into(),
                "--modes".into(),
                "event".into(),
                "--placement".into(),
                "free".into(),
                "--sizes".into(),
                sizes.join(","),
                "--rates".into(),
                rate.to_string(),
                "--samples".into(),
                samples.to_string(),
                "--warmup".into(),
                warmup(samples).to_string(),
                "--depth".into(),
                depth.to_string(),
                "--json".into(),
                json.display().to_string(),
            ];
            let _ = std::fs::remove_file(&json);
            let out = Command::new(&exe).args(&args).output();
            match out {
                Err(e) => notes.push(format!("zenoh: could not run {}: {e}", exe.display())),
                Ok(o) => {
                    let (r, n) = zenoh_report(&json, rep);
                    records.extend(r);
                    notes.extend(n);
                    if !o.status.success() {
                        notes.push(format!(
                            "zenoh @ {rate} Hz, depth {depth}: exit {:?}: {}",
                            o.status.code(),
                            stderr_tail(&o.stderr, 3).join(" | ")
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_file(&json);
    (records, notes)
}

fn zenoh_report(json: &Path, rep: u32) -> (Vec<Record>, Vec<String>) {
    #[derive(serde::Deserialize)]
    struct Doc {
        records: Vec<hibari_bench_ipc::Record>,
        #[serde(default)]
        failed: Vec<String>,
    }
    let doc = std::fs::read(json)
        .ok()
        .and_then(|b| serde_json::from_slice::<Doc>(&b).ok());
    match doc {
        None => (
            Vec::new(),
            vec![format!("zenoh: no report in {}", json.display())],
        ),
        Some(d) => {
            let records = d
                .records
                .iter()
                .map(|r| Record { rep, ..from_ipc(r) })
                .collect();
            let notes = d
                .failed
                .iter()
                .map(|f| format!("zenoh cell failed: {f}"))
                .collect();
            (records, notes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zenoh_sizes_are_grouped_by_the_depth_of_hibaris_cells() {
        let sizes = [64, 4096, 65_536, 1 << 20, 4 << 20, 8 << 20];
        let groups = by_depth(&sizes);
        assert_eq!(
            groups,
            [
                (16, vec![64, 4096, 65_536]),
                (8, vec![1 << 20, 4 << 20, 8 << 20])
            ]
        );
        for (d, sizes) in &groups {
            assert!(sizes.iter().all(|&s| depth(s) == *d));
        }
        assert!(by_depth(&[]).is_empty());
    }
}
