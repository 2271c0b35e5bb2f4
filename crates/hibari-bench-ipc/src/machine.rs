//! The machine a run is made on, and how busy it is: this VM is shared with
//! builds and other benchmarks, so every cell records how much CPU the rest
//! of the machine used while it ran, and a run can wait for a quiet moment.

use std::time::{Duration, Instant};

/// The machine the run was made on.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Machine {
    /// CPU model name from `/proc/cpuinfo`.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpus: usize,
    /// Kernel release.
    pub kernel: String,
    /// Kernel command-line options that change scheduling or idle behaviour.
    pub kernel_options: Vec<String>,
    /// Clock source (`tsc` is the good one).
    pub clocksource: String,
    /// The 1-minute load average when the description was taken.
    pub load1: String,
    /// iceoryx2 version linked.
    pub iceoryx2: &'static str,
}

const PERF_OPTIONS: [&str; 6] = [
    "idle",
    "haltpoll",
    "isolcpus",
    "nohz",
    "mitigations",
    "sched",
];

impl Machine {
    /// Describes this machine now.
    pub fn describe() -> Machine {
        let read = |p: &str| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        let cpuinfo = read("/proc/cpuinfo");
        let model = cpuinfo.lines().find(|l| l.starts_with("model name"));
        let cmdline = read("/proc/cmdline");
        let kernel_options = cmdline
            .split(" -- ")
            .next()
            .unwrap_or("")
            .split_whitespace()
            .filter(|o| PERF_OPTIONS.iter().any(|k| o.contains(k)))
            .map(String::from)
            .collect();
        Machine {
            cpu_model: model
                .and_then(|l| l.split(':').nth(1))
                .unwrap_or("?")
                .trim()
                .to_string(),
            cpus: crate::sys::online_cpus(),
            kernel: read("/proc/sys/kernel/osrelease"),
            kernel_options,
            clocksource: read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
            load1: read("/proc/loadavg")
                .split_whitespace()
                .next()
                .unwrap_or("?")
                .to_string(),
            iceoryx2: "0.10.0",
        }
    }
}

/// Machine-wide CPU time from the first line of `/proc/stat`, in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MachineCpu {
    /// Busy time of all CPUs (user, nice, system, irq, softirq).
    pub busy_s: f64,
    /// Time the hypervisor ran something else on our vCPUs.
    pub steal_s: f64,
    /// When it was read.
    at: Option<Instant>,
}

impl MachineCpu {
    /// Reads the counters now (zeros if `/proc/stat` is unreadable).
    pub fn now() -> MachineCpu {
        let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        let hz = crate::sys::clock_ticks_per_sec();
        let f: Vec<f64> = text
            .lines()
            .next()
            .unwrap_or("")
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap_or(0.0))
            .collect();
        let get = |i: usize| f.get(i).copied().unwrap_or(0.0) / hz;
        MachineCpu {
            busy_s: get(0) + get(1) + get(2) + get(5) + get(6),
            steal_s: get(7),
            at: Some(Instant::now()),
        }
    }

    /// Busy CPU seconds, steal seconds and wall seconds since `earlier`.
    pub fn since(&self, earlier: &MachineCpu) -> (f64, f64, f64) {
        let wall = match (self.at, earlier.at) {
            (Some(a), Some(b)) => a.duration_since(b).as_secs_f64(),
            _ => 0.0,
        };
        (
            self.busy_s - earlier.busy_s,
            self.steal_s - earlier.steal_s,
            wall,
        )
    }
}

/// Waits until the whole machine is less than `max_busy` busy (0..1 of all CPUs,
/// measured over 300 ms) or `timeout` passed. Returns the last busy fraction seen.
pub fn wait_until_quiet(max_busy: f64, timeout: Duration) -> f64 {
    let deadline = Instant::now() + timeout;
    let cpus = crate::sys::online_cpus() as f64;
    loop {
        let a = MachineCpu::now();
        std::thread::sleep(Duration::from_millis(300));
        let (busy, _, wall) = MachineCpu::now().since(&a);
        let fraction = busy / (wall * cpus).max(1e-9);
        if fraction < max_busy || Instant::now() >= deadline {
            return fraction;
        }
    }
}
