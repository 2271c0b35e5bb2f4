//! CPU time and context switches of this process and of single threads, read
//! from /proc (Linux): no `unsafe`, no libc.
//!
//! - `/proc/self/task/<tid>/schedstat`: the thread's time on a CPU, in ns
//!   (the scheduler's own account, so far finer than the tick-based fields);
//! - `/proc/self/task/<tid>/status`: its voluntary and involuntary context
//!   switches;
//! - `/proc/self/stat`: the process's user and system time, in clock ticks
//!   (`USER_HZ` = 100 on Linux, so 10 ms each): the coarse cross-check.

use std::time::Duration;

/// A thread's id as the kernel knows it, read by the thread itself.
pub fn current_tid() -> Option<u32> {
    // "/proc/thread-self" links to "<pid>/task/<tid>".
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

/// One reading of a thread's counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadSample {
    /// Time on a CPU.
    pub cpu: Duration,
    /// Times it gave up the CPU (to wait).
    pub voluntary_switches: u64,
    /// Times it was preempted.
    pub involuntary_switches: u64,
}

impl ThreadSample {
    /// Reads thread `tid` of this process (zeros if /proc cannot tell).
    pub fn read(tid: u32) -> Self {
        let dir = format!("/proc/self/task/{tid}");
        let cpu_ns = std::fs::read_to_string(format!("{dir}/schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let status = std::fs::read_to_string(format!("{dir}/status")).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
                .unwrap_or(0)
        };
        ThreadSample {
            cpu: Duration::from_nanos(cpu_ns),
            voluntary_switches: field("voluntary_ctxt_switches:"),
            involuntary_switches: field("nonvoluntary_ctxt_switches:"),
        }
    }

    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &ThreadSample) -> ThreadSample {
        ThreadSample {
            cpu: self.cpu.saturating_sub(earlier.cpu),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self
                .involuntary_switches
                .saturating_sub(earlier.involuntary_switches),
        }
    }
}

/// User plus system time of the whole process, from /proc/self/stat (a
/// resolution of 10 ms).
pub fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let Some(close) = stat.rfind(')') else {
        return Duration::ZERO;
    };
    // Fields 14 and 15 of proc(5) (utime, stime); this slice starts at field 3.
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// The machine, for the record: CPUs, model, kernel, load averages.
pub fn machine() -> serde_json::Value {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find_map(|l| Some(l.strip_prefix("model name")?.split_once(':')?.1.trim()))
        .unwrap_or("unknown");
    serde_json::json!({
        "cpus": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "model": model,
        "kernel": read("/proc/sys/kernel/osrelease").trim(),
        "loadavg": read("/proc/loadavg").split_whitespace().take(3).collect::<Vec<_>>(),
    })
}
