//! The result document: one [`Record`] per measured (or published) series,
//! and the machine it was measured on.

use crate::stats::Stats;

/// One series: a workload on one system and transport, measured here
/// (`published: false`) or quoted from a write-up (`published: true`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// `e1-images`, `e3-laserscan`, `e5-type-adapt`, `latency`, …
    pub experiment: String,
    /// `hibari`, `iceoryx2`, `ros1`, or the write-up's system.
    pub system: String,
    /// `inproc`, `shm`, `tcpros`, … and the variant (`jpeg`, `adapted`).
    pub transport: String,
    /// `rust`, `cpp`, `python`.
    pub language: String,
    /// Payload bytes per message (the serialized message where known).
    pub size_bytes: u64,
    /// Publishing rate; 0 = as fast as possible.
    pub rate_hz: f64,
    /// Measured messages sent (warm-up excluded).
    pub sent: u64,
    /// Measured messages received.
    pub received: u64,
    /// `sent − received`.
    pub lost: u64,
    /// Latency statistics (receive − intended send time).
    #[serde(flatten)]
    pub stats: Stats,
    /// Publisher CPU seconds (process, or thread in one-process set-ups).
    pub cpu_pub_s: f64,
    /// Subscriber CPU seconds.
    pub cpu_sub_s: f64,
    /// Context switches, publisher + subscriber.
    pub ctx_switches: u64,
    /// Quoted from a write-up, not measured here.
    pub published: bool,
    /// Repetition (0-based); published rows have 0.
    pub rep: u32,
    /// `one process`, `two processes`, `ping-pong` …
    pub setup: String,
    /// Free text: the source of a published figure, or a caveat.
    pub note: String,
    /// Measured seconds of the series.
    pub duration_s: f64,
    /// Per-message latencies (µs) in send order, for plots; not in CSV.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub series_us: Vec<f64>,
    /// This series' p50 (a published row's mean) over hibari's best p50 in
    /// the same cell (experiment, size, rate, set-up, and JPEG or adapted
    /// when the series is); in a throughput cell, hibari's best throughput
    /// over this series'. Above 1, hibari is ahead. Set by
    /// [`set_vs_hibari`]; absent where hibari has no series.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub vs_hibari: Option<f64>,
    /// Messages per second delivered, for series sent as fast as possible
    /// (see [`Record::throughput`]). Set by [`set_vs_hibari`].
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub throughput_msgs_s: Option<f64>,
    /// Heap allocations per message, where a series counted them (E4's
    /// Python series, `python/bench/allocs.py`: the publish call, or publish
    /// and delivery end to end).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub allocs_per_msg: Option<f64>,
}

/// A series' duration: `seconds` at the publisher (first measured send to
/// the last send); sent as fast as possible (`rate_hz` 0), up to the last
/// receipt: plus the last message's latency (`series_us`, in send order).
pub fn until_last_receipt(rate_hz: f64, seconds: f64, series_us: &[f64]) -> f64 {
    match (rate_hz == 0.0, series_us.last()) {
        (true, Some(&last_us)) => seconds + last_us / 1e6,
        _ => seconds,
    }
}

/// Fills every record's [`Record::vs_hibari`] and
/// [`Record::throughput_msgs_s`].
pub fn set_vs_hibari(records: &mut [Record]) {
    for r in records.iter_mut() {
        r.throughput_msgs_s = r.throughput();
    }
    // What a series sends beyond its size: a JPEG or an adapted frame is
    // compared with hibari's series of the same kind only.
    let variant = |r: &Record| {
        ["jpeg", "adapted"]
            .into_iter()
            .find(|v| r.transport.contains(v))
            .unwrap_or("")
    };
    let key = |r: &Record| {
        (
            r.experiment.clone(),
            r.size_bytes,
            r.rate_hz.round() as i64,
            r.setup.clone(),
            variant(r),
        )
    };
    // Lower is better: seconds per message where throughput is the point.
    let figure = |r: &Record| match (r.throughput(), r.stats.p50_us > 0.0) {
        (Some(t), _) => 1.0 / t,
        (None, true) => r.stats.p50_us,
        (None, false) => r.stats.mean_us,
    };
    let mut best: std::collections::HashMap<_, f64> = std::collections::HashMap::new();
    for r in records
        .iter()
        .filter(|r| r.system == "hibari" && !r.published)
    {
        if figure(r) > 0.0 {
            let b = best.entry(key(r)).or_insert(f64::INFINITY);
            *b = b.min(figure(r));
        }
    }
    for r in records.iter_mut() {
        r.vs_hibari = best
            .get(&key(r))
            .filter(|_| figure(r) > 0.0)
            .map(|b| figure(r) / b);
    }
}

impl Record {
    /// Messages per second from the first measured send to the last
    /// receipt, for a series whose point is throughput: measured here, sent
    /// as fast as possible in the `scale` experiment's throughput set-up.
    pub fn throughput(&self) -> Option<f64> {
        let wanted = self.rate_hz == 0.0
            && !self.published
            && self.setup == crate::experiments::THROUGHPUT
            && self.received > 0
            && self.duration_s > 0.0;
        wanted.then(|| self.received as f64 / self.duration_s)
    }

    /// Who sent and received: the system, and its client library where one
    /// system has several (`ros2 rclpy`, `ros2 rcl`, `ros1 rospy`,
    /// `hibari python`).
    pub fn who(&self) -> String {
        match (self.system.as_str(), self.language.as_str()) {
            ("ros2", "python") => "ros2 rclpy".into(),
            ("ros2", "c") => "ros2 rcl".into(),
            ("ros1", "python") => "ros1 rospy".into(),
            (system, "python") => format!("{system} python"),
            (system, _) => system.into(),
        }
    }

    /// The label of the series in tables and plots.
    pub fn label(&self) -> String {
        let mut s = format!("{} {}", self.who(), self.transport);
        if !self.setup.is_empty() {
            s.push_str(&format!(" ({})", self.setup));
        }
        s
    }
}

/// The machine and software a run was made on.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Machine {
    /// CPU, cores, kernel, clock source, load (from hibari-bench-ipc).
    #[serde(flatten)]
    pub base: hibari_bench_ipc::Machine,
    /// This crate's version (hibari's).
    pub hibari: &'static str,
    /// `rustc --version` when it can be run, else empty.
    pub rustc: String,
}

impl Machine {
    /// Describes this machine now.
    pub fn describe() -> Machine {
        let rustc = std::process::Command::new("rustc")
            .arg("--version")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        Machine {
            base: hibari_bench_ipc::Machine::describe(),
            hibari: env!("CARGO_PKG_VERSION"),
            rustc,
        }
    }

    /// One line for the terminal and the report.
    pub fn line(&self) -> String {
        format!(
            "{} ({} CPUs), kernel {}, clocksource {}, load1 {}, hibari {}, {}, iceoryx2 {}",
            self.base.cpu_model,
            self.base.cpus,
            self.base.kernel,
            self.base.clocksource,
            self.base.load1,
            self.hibari,
            self.rustc,
            self.base.iceoryx2
        )
    }
}

/// A whole run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// Where it ran.
    pub machine: Machine,
    /// The command line.
    pub command: String,
    /// Wall-clock seconds of the whole run.
    pub elapsed_s: f64,
    /// Lines about experiments that could not run, and why.
    pub notes: Vec<String>,
    /// Every series.
    pub records: Vec<Record>,
}
