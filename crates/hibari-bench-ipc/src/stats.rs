//! Latency histograms (HDR, nanosecond resolution, 3 significant digits) and
//! the record written for every measured series.

use hdrhistogram::Histogram;

/// A latency histogram in nanoseconds, 1 ns … 60 s, 3 significant digits.
#[derive(Debug, Clone)]
pub struct Latencies(Histogram<u64>);

impl Default for Latencies {
    fn default() -> Self {
        Latencies::new()
    }
}

impl Latencies {
    /// An empty histogram.
    pub fn new() -> Latencies {
        Latencies(Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid static bounds"))
    }

    /// Records one value in ns (values outside the range are clamped to it).
    pub fn record_ns(&mut self, ns: u64) {
        self.0.saturating_record(ns.max(1));
    }

    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.0.len()
    }

    /// The value at `quantile` (0..=1) in µs; 0 when empty.
    pub fn quantile_us(&self, quantile: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.value_at_quantile(quantile) as f64 / 1e3
    }

    /// Summary statistics in µs.
    pub fn summary(&self) -> Summary {
        if self.0.is_empty() {
            return Summary::default();
        }
        Summary {
            count: self.0.len(),
            min_us: self.0.min() as f64 / 1e3,
            p50_us: self.quantile_us(0.5),
            p90_us: self.quantile_us(0.9),
            p99_us: self.quantile_us(0.99),
            p999_us: self.quantile_us(0.999),
            max_us: self.0.max() as f64 / 1e3,
            mean_us: self.0.mean() / 1e3,
            stddev_us: self.0.stdev() / 1e3,
        }
    }
}

/// Latency statistics of one series, µs: the one summary type of
/// hibari-bench-ipc and `hibari bench` (which calls it `Stats`).
///
/// From [`Summary::of`]: exact count, min, max, mean and population standard
/// deviation, percentiles from an HDR histogram (3 significant digits, never
/// above the max). From [`Latencies::summary`]: everything from the histogram.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Number of values.
    pub count: u64,
    /// Smallest value (0 when a producer of records does not give it).
    #[serde(default)]
    pub min_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// Largest value.
    pub max_us: f64,
    /// Mean.
    pub mean_us: f64,
    /// Standard deviation.
    pub stddev_us: f64,
}

impl Summary {
    /// The statistics of `latencies_ns` (empty: all zero); see the type's docs.
    pub fn of(latencies_ns: &[u64]) -> Summary {
        if latencies_ns.is_empty() {
            return Summary::default();
        }
        let mut h = Histogram::<u64>::new(3).expect("3 significant digits is valid");
        let (mut sum, mut min, mut max) = (0f64, u64::MAX, 0u64);
        for &v in latencies_ns {
            // Auto-resizing: `record` grows the range to fit (clamped only if it cannot).
            if h.record(v.max(1)).is_err() {
                h.saturating_record(v.max(1));
            }
            sum += v as f64;
            min = min.min(v);
            max = max.max(v);
        }
        let n = latencies_ns.len() as f64;
        let mean = sum / n;
        let var = latencies_ns
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        // The histogram rounds up within its precision; no percentile exceeds the max.
        let q = |q: f64| h.value_at_quantile(q).min(max) as f64 / 1000.0;
        Summary {
            count: latencies_ns.len() as u64,
            min_us: min as f64 / 1000.0,
            p50_us: q(0.5),
            p90_us: q(0.9),
            p99_us: q(0.99),
            p999_us: q(0.999),
            max_us: max as f64 / 1000.0,
            mean_us: mean / 1000.0,
            stddev_us: var.sqrt() / 1000.0,
        }
    }
}

/// One measured series: a (system, variant, size, placement, touch) cell.
///
/// `p*_us`, `mean_us`, `stddev_us` describe the one-way latency: receive time
/// minus send stamp, or, with `touch`, the time the subscriber finished reading
/// every byte minus the send stamp.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// Always `"ipc-latency"` (two processes).
    pub experiment: String,
    /// `floor`, `iceoryx2`, … .
    pub system: String,
    /// What carries the bytes and the wake-up.
    pub transport: String,
    /// `event` or `poll`.
    pub mode: String,
    /// The system's variant name (`futex`, `eventfd`, `spin`, `event`, `poll`).
    pub variant: String,
    /// Always `"rust"`.
    pub language: String,
    /// Payload bytes per message.
    pub size_bytes: u64,
    /// `same`, `cross` or `free`.
    pub placement: String,
    /// Whether the subscriber read every byte before stamping.
    pub touch: bool,
    /// Warm-up messages, not measured.
    pub warmup: u64,
    /// Measured messages sent.
    pub sent: u64,
    /// Measured messages acknowledged with the right sequence number and checks.
    pub received: u64,
    /// `sent − received`.
    pub lost: u64,
    /// Messages whose ack or payload check was wrong (publisher and subscriber side).
    pub errors: u64,
    /// One-way latency statistics.
    #[serde(flatten)]
    pub latency: Summary,
    /// Median of receive − send stamp (equals `p50_us` without touch).
    pub arrival_p50_us: f64,
    /// Median of half the round trip (the return leg is a 32-byte ack).
    pub rtt_half_p50_us: f64,
    /// Median of the publisher's loan + fill of the whole payload (before the stamp).
    pub fill_p50_us: f64,
    /// Publisher process user+sys CPU per measured message, µs (includes the fill and
    /// waiting for the ack).
    pub cpu_pub_us_per_msg: f64,
    /// Subscriber process user+sys CPU per measured message, µs.
    pub cpu_sub_us_per_msg: f64,
    /// Voluntary context switches, both processes, over the measured window.
    pub ctx_vol: u64,
    /// Involuntary context switches, both processes, over the measured window.
    pub ctx_invol: u64,
    /// Voluntary context switches of the publisher.
    pub ctx_vol_pub: u64,
    /// Voluntary context switches of the subscriber.
    pub ctx_vol_sub: u64,
    /// Involuntary context switches of the publisher.
    pub ctx_invol_pub: u64,
    /// Involuntary context switches of the subscriber.
    pub ctx_invol_sub: u64,
    /// Files the system held in `/dev/shm` and its own directories while both sides ran.
    pub files_while_running: u64,
    /// Their total size in bytes (shared-memory files count their full size).
    pub bytes_while_running: u64,
    /// CPU cores used on average by *other* processes during the measured window
    /// (machine busy time from `/proc/stat` minus both benchmark processes). `/proc/stat`
    /// counts in 10 ms ticks, so this is `None` for windows shorter than 0.25 s. Above
    /// ~0.2 the cell was probably disturbed.
    pub others_cores: Option<f64>,
    /// Hypervisor steal time during the measured window, ms.
    pub steal_ms: f64,
    /// Files the system left behind after both processes exited cleanly (then removed).
    pub leftover_files: Vec<String>,
    /// Their total size in bytes.
    pub leftover_bytes: u64,
    /// Open loop at `rate_hz` (latency from the due time) rather than ping-pong.
    #[serde(default)]
    pub open_loop: bool,
    /// Open loop: messages per second, 0 = as fast as possible (ping-pong: 0).
    #[serde(default)]
    pub rate_hz: f64,
    /// Queue depth of the data direction.
    #[serde(default)]
    pub depth: usize,
    /// Open loop: median of how late the publisher started a message after its due time.
    #[serde(default)]
    pub late_p50_us: f64,
    /// Open loop: the largest such lateness.
    #[serde(default)]
    pub late_max_us: f64,
    /// Open loop: messages received more than once.
    #[serde(default)]
    pub duplicates: u64,
    /// Open loop: seconds from the first measured due time to the last send.
    #[serde(default)]
    pub seconds: f64,
    /// Open loop: per-message latency (µs) in sequence order, for plots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series_us: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_values_has_ordered_percentiles_within_precision() {
        let mut h = Latencies::new();
        for v in 1..=1000u64 {
            h.record_ns(v * 1000); // 1 µs … 1000 µs
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert!((s.p50_us - 500.0).abs() <= 1.0, "{s:?}");
        assert!((s.p99_us - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.max_us - 1000.0).abs() <= 1.0, "{s:?}");
        assert!((s.mean_us - 500.5).abs() <= 1.0, "{s:?}");
        assert!(s.min_us <= s.p50_us && s.p50_us <= s.p90_us && s.p90_us <= s.p99_us);
        assert!(s.p99_us <= s.p999_us && s.p999_us <= s.max_us);
    }

    #[test]
    fn exact_summary_keeps_percentiles_within_precision_and_min_max_exact() {
        let v: Vec<u64> = (1..=2000u64).map(|i| i * 5_000).collect(); // 5 µs … 10 ms
        let s = Summary::of(&v);
        assert_eq!((s.count, s.min_us, s.max_us), (2000, 5.0, 10_000.0));
        assert!((s.p50_us - 5_000.0).abs() <= 5.0, "{s:?}");
        assert!((s.p99_us - 9_900.0).abs() <= 10.0, "{s:?}");
        assert!((s.mean_us - 5_002.5).abs() < 1e-6, "{s:?}");
        assert_eq!(Summary::of(&[]), Summary::default());
    }

    #[test]
    fn an_empty_histogram_summarizes_to_zeros() {
        assert_eq!(Latencies::new().summary(), Summary::default());
    }
}
