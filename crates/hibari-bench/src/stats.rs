//! Statistics of one series: exact mean and (population) standard deviation
//! over every value, percentiles from an HDR histogram (3 significant
//! digits), the smallest and largest value exact. The type is
//! hibari-bench-ipc's [`Summary`](hibari_bench_ipc::Summary), shared by both
//! crates; this module adds the spread across repetitions.

/// Latency statistics of one series, µs: hibari-bench-ipc's summary, one
/// type for both crates ([`Stats::of`] computes it from nanoseconds).
pub use hibari_bench_ipc::Summary as Stats;

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
        assert_eq!((s.min_us, s.max_us), (1.0, 1000.0));
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
