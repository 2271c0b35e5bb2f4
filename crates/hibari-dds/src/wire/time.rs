//! RTPS timestamps (seconds and 2⁻³² fractions) and hibari's ns since the epoch.

use rustdds::Timestamp;

/// hibari's ns → an RTPS timestamp (rounded down).
pub fn timestamp_from_ns(ns: i64) -> Timestamp {
    let ns = u64::try_from(ns).unwrap_or(0);
    let secs = ns / 1_000_000_000;
    let frac = ((ns % 1_000_000_000) << 32) / 1_000_000_000;
    Timestamp::from_ticks((secs << 32) | frac)
}

/// An RTPS timestamp → hibari's ns (rounded down, so a round trip never
/// moves a time later).
pub fn ns_from_timestamp(t: Timestamp) -> i64 {
    let ticks = t.to_ticks();
    let secs = ticks >> 32;
    let frac = ticks & 0xffff_ffff;
    let ns = secs
        .saturating_mul(1_000_000_000)
        .saturating_add((frac * 1_000_000_000) >> 32);
    i64::try_from(ns).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_never_moves_a_time_later_and_loses_under_a_nanosecond() {
        for ns in [0, 1, 999_999_999, 1_764_000_000_123_456_789] {
            let back = ns_from_timestamp(timestamp_from_ns(ns));
            assert!(back <= ns && ns - back <= 1, "{ns} → {back}");
        }
    }
}
