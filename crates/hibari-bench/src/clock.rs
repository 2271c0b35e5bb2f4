//! One clock for every process: `CLOCK_MONOTONIC` in nanoseconds, shared by
//! all processes of the host, so a stamp written by a publisher process can
//! be subtracted from a reading in a subscriber process. Also the CPU time
//! and context switches of a process or thread, and the open-loop pacer.

use rustix::time::{clock_gettime, ClockId};

/// `CLOCK_MONOTONIC` now, ns.
pub fn mono_ns() -> u64 {
    let t = clock_gettime(ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn cpu_ns(clock: ClockId) -> u64 {
    let t = clock_gettime(clock);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// CPU time and context switches at one instant, of a process or a thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// User + system CPU time, ns.
    pub cpu_ns: u64,
    /// Voluntary context switches.
    pub voluntary: u64,
    /// Involuntary context switches.
    pub involuntary: u64,
}

impl Usage {
    /// This process (every thread): CPU from `CLOCK_PROCESS_CPUTIME_ID`,
    /// context switches summed over `/proc/self/task/*/status`.
    pub fn process() -> Usage {
        let (mut voluntary, mut involuntary) = (0, 0);
        if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
            for task in dir.flatten() {
                let (v, i) = switches(&task.path().join("status"));
                voluntary += v;
                involuntary += i;
            }
        }
        Usage {
            cpu_ns: cpu_ns(ClockId::ProcessCPUTime),
            voluntary,
            involuntary,
        }
    }

    /// The calling thread.
    pub fn thread() -> Usage {
        let (voluntary, involuntary) = switches(std::path::Path::new("/proc/thread-self/status"));
        Usage {
            cpu_ns: cpu_ns(ClockId::ThreadCPUTime),
            voluntary,
            involuntary,
        }
    }

    /// What was used since `earlier`.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            voluntary: self.voluntary.saturating_sub(earlier.voluntary),
            involuntary: self.involuntary.saturating_sub(earlier.involuntary),
        }
    }

    /// CPU seconds.
    pub fn cpu_s(&self) -> f64 {
        self.cpu_ns as f64 / 1e9
    }

    /// Both kinds of context switches.
    pub fn switches(&self) -> u64 {
        self.voluntary + self.involuntary
    }
}

fn switches(status: &std::path::Path) -> (u64, u64) {
    let text = std::fs::read_to_string(status).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    (
        field("voluntary_ctxt_switches:"),
        field("nonvoluntary_ctxt_switches:"),
    )
}

/// The open-loop schedule, shared with hibari-bench-ipc: message `k` is
/// due at `start + k · period` whatever happened before; a late publisher
/// sends at once and never skips or shifts a slot. A rate of 0 means "as
/// fast as possible": each message is due when the publisher asks, so
/// latency is then measured from the actual send. Its clock is
/// `CLOCK_MONOTONIC`, the same as [`mono_ns`].
pub use hibari_bench_ipc::openloop::Pacer;

/// Sleeps until [`mono_ns`] reaches `t` (ns) and returns `t`; never spins.
/// For schedules whose messages are too close for [`Pacer`]'s final spin
/// (many topics: at 1,000 topics × 10 Hz they are 100 µs apart, and a spin
/// would take a whole core); oversleeping shows as latency, as it should.
pub fn sleep_until(t: u64) -> u64 {
    loop {
        let now = mono_ns();
        if now >= t {
            return t;
        }
        std::thread::sleep(std::time::Duration::from_nanos(t - now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pacer_keeps_an_absolute_schedule() {
        let pacer = Pacer::new(1000.0);
        let t0 = pacer.wait(0);
        let t5 = pacer.wait(5);
        assert_eq!(t5 - t0, 5_000_000);
        assert!(mono_ns() >= t5);
    }

    #[test]
    fn a_busy_thread_uses_cpu_time() {
        // Spin until the thread clock moved 10 ms (at most 10 s of wall time, so a
        // loaded machine only makes it slower): the process clock includes it.
        let before = Usage::thread();
        let start = mono_ns();
        let mut used = Usage::default();
        while used.cpu_ns < 10_000_000 && mono_ns() - start < 10_000_000_000 {
            used = Usage::thread().since(&before);
        }
        assert!(used.cpu_ns >= 10_000_000, "{used:?}");
        assert!(Usage::process().cpu_ns >= used.cpu_ns);
    }
}
