//! Statistics of one series: exact mean and (population) standard deviation
//! over every value, percentiles from an HDR histogram (3 significant
//! digits), the largest value exact.

use hdrhistogram::Histogram;

/// Latency statistics of one series, µs.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// Values.
    pub count: u64,
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
    /// Arithmetic mean.
    pub mean_us: f64,
    /// Population standard deviation (the write-ups' "variance" is its square).
    pub stddev_us: f64,
}

impl Stats {
    /// The statistics of `latencies_ns` (empty: all zero).
    pub fn of(latencies_ns: &[u64]) -> Stats {
        if latencies_ns.is_empty() {
            return Stats::default();
        }
        let mut h = Histogram::<u64>::new(3).expect("3 significant digits is valid");
        let (mut sum, mut max) = (0f64, 0u64);
        for &v in latencies_ns {
            h.record(v.max(1))
                .expect("auto-resizing histogram accepts any u64");
            sum += v as f64;
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
        Stats {
            count: latencies_ns.len() as u64,
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

/// Mean and relative spread (max − min over mean) of one figure across
/// repetitions: `(mean, spread)`; a single value has spread 0.
pub fn spread(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let (lo, hi) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let rel = if mean > 0.0 { (hi - lo) / mean } else { 0.0 };
    (mean, rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_values_give_the_textbook_figures() {
        let v: Vec<u64> = (1..=1000).map(|i| i * 1000).collect(); // 1 µs … 1000 µs
        let s = Stats::of(&v);
        assert_eq!(s.count, 1000);
        assert!((s.mean_us - 500.5).abs() < 1e-9, "{s:?}");
        // population sd of 1..=n is sqrt((n²−1)/12)
        let sd = ((1000f64 * 1000.0 - 1.0) / 12.0).sqrt();
        assert!((s.stddev_us - sd).abs() < 1e-6, "{s:?}");
        assert!((s.p50_us - 500.0).abs() <= 1.0, "{s:?}");
        assert!((s.p90_us - 900.0).abs() <= 1.0, "{s:?}");
        assert!((s.p99_us - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.p999_us - 999.0).abs() <= 1.0, "{s:?}");
        assert_eq!(s.max_us, 1000.0);
    }

    #[test]
    fn one_outlier_moves_the_max_and_the_tail_not_the_median() {
        let mut v = vec![10_000u64; 999];
        v.push(50_000_000);
        let s = Stats::of(&v);
        assert!((s.p50_us - 10.0).abs() < 0.02, "{s:?}");
        assert!((s.p99_us - 10.0).abs() < 0.02, "{s:?}");
        assert_eq!(s.max_us, 50_000.0);
        assert!((s.mean_us - (999.0 * 10.0 + 50_000.0) / 1000.0).abs() < 1e-9);
    }

    #[test]
    fn no_values_and_spread_edge_cases() {
        assert_eq!(Stats::of(&[]), Stats::default());
        assert_eq!(spread(&[]), (0.0, 0.0));
        assert_eq!(spread(&[4.0]), (4.0, 0.0));
        let (m, r) = spread(&[90.0, 100.0, 110.0]);
        assert!((m - 100.0).abs() < 1e-9 && (r - 0.2).abs() < 1e-9);
    }
}
