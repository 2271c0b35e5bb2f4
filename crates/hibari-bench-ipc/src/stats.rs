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

/// Percentiles and moments of one histogram, µs.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Number of values.
    pub count: u64,
    /// Smallest value.
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

/// One measured series: a (system, variant, size, placement, touch) cell.
///
/// `p*_us`, `mean_us`, `stddev_us` describe the one-way latency: receive time
/// minus send stamp, or, with `touch`, the time the subscriber finished reading
/// every byte minus the send stamp.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// Always `"ipc-latency"` (two processes, ping-pong).
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
    fn an_empty_histogram_summarizes_to_zeros() {
        assert_eq!(Latencies::new().summary(), Summary::default());
    }
}
