//! What the E2 benchmark reads from `/proc`: this process's resident memory
//! by kind (sampled during a run, so a short peak is seen), the CPU time and
//! context switches of the bridge's threads, a child's CPU time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A `kB` field of `/proc/self/status` (`VmRSS:`, `VmHWM:`, `RssAnon:` …).
pub fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Resident memory by kind (kB), from `/proc/self/status`: `VmRSS` is the
/// sum of `RssAnon` (heap, stacks: what the allocator holds), `RssFile`
/// (mapped files: code) and `RssShmem` (shared memory: a hibari
/// publisher's buffer lives there).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rss {
    pub total: u64,
    pub anon: u64,
    pub file: u64,
    pub shmem: u64,
}

impl Rss {
    /// This process's figures now.
    pub fn now() -> Rss {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        Rss {
            total: field("VmRSS:"),
            anon: field("RssAnon:"),
            file: field("RssFile:"),
            shmem: field("RssShmem:"),
        }
    }

    /// Each field the larger of the two (the peaks need not coincide).
    pub fn max(self, other: Rss) -> Rss {
        Rss {
            total: self.total.max(other.total),
            anon: self.anon.max(other.anon),
            file: self.file.max(other.file),
            shmem: self.shmem.max(other.shmem),
        }
    }
}

impl std::fmt::Display for Rss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "anon {:.1} MiB, file {:.1} MiB, shmem {:.1} MiB",
            mib(self.anon),
            mib(self.file),
            mib(self.shmem)
        )
    }
}

/// Samples this process's [`Rss`] every 2 ms on a thread of its own and
/// keeps the largest value of each field since the last
/// [`RssSampler::reset`], so a short peak is seen.
pub struct RssSampler {
    peak: Arc<Mutex<Rss>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl RssSampler {
    pub fn start() -> RssSampler {
        let peak = Arc::new(Mutex::new(Rss::now()));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("rss-sampler".into())
            .spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    let now = Rss::now();
                    let mut peak = p.lock().unwrap();
                    *peak = peak.max(now);
                    drop(peak);
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
            .expect("the sampler starts");
        RssSampler {
            peak,
            stop,
            thread: Some(thread),
        }
    }

    /// Starts a new window: returns `VmRSS` now, which is also the window's
    /// peak so far.
    pub fn reset(&self) -> u64 {
        let now = Rss::now();
        *self.peak.lock().unwrap() = now;
        now.total
    }

    /// The largest `VmRSS` seen in this window (kB).
    pub fn peak(&self) -> u64 {
        self.peak_parts().total
    }

    /// The largest value of each field seen in this window.
    pub fn peak_parts(&self) -> Rss {
        self.peak.lock().unwrap().max(Rss::now())
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Fields 14 and 15 (utime, stime) of a `stat` file, in ticks.
fn stat_ticks(stat: &str) -> u64 {
    // The fields after the command name (which may hold spaces) start at 3.
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    field(11) + field(12)
}

fn ticks_to_s(ticks: u64) -> f64 {
    ticks as f64 / rustix::param::clock_ticks_per_second() as f64
}

/// The bridge's threads (named `hibari-bridge*`), as `/proc` task folders.
fn bridge_tasks() -> impl Iterator<Item = std::path::PathBuf> {
    std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
        .map(|t| t.path())
        .filter(|p| {
            std::fs::read_to_string(p.join("comm"))
                .unwrap_or_default()
                .starts_with("hibari-bridge")
        })
}

/// User+system seconds of the bridge's threads.
pub fn bridge_cpu() -> f64 {
    ticks_to_s(
        bridge_tasks()
            .map(|p| stat_ticks(&std::fs::read_to_string(p.join("stat")).unwrap_or_default()))
            .sum(),
    )
}

/// Context switches (voluntary and not) of the bridge's threads.
pub fn bridge_ctx_switches() -> u64 {
    bridge_tasks()
        .map(|p| {
            std::fs::read_to_string(p.join("status"))
                .unwrap_or_default()
                .lines()
                .filter(|l| l.contains("ctxt_switches:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .sum::<u64>()
        })
        .sum()
}

/// User+system seconds of process `pid` so far (0 when it is gone).
pub fn process_cpu(pid: u32) -> f64 {
    ticks_to_s(stat_ticks(
        &std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default(),
    ))
}

/// MiB from kB, for printing.
pub fn mib(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// A signed difference of two kB figures, in MiB.
pub fn delta_mib(from_kb: u64, to_kb: u64) -> f64 {
    (to_kb as f64 - from_kb as f64) / 1024.0
}
