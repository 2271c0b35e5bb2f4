//! What every received sample carries besides its payload: who sent it, when,
//! its place in that sender's sequence and how many of that sender's samples
//! this subscription lost just before it.
//!
//! Latency is `reception - source`; loss is `lost_before`, or the gap in
//! `sequence` between two samples of one publisher. Neither needs a field in
//! the message.

use std::fmt;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A 16-byte endpoint identifier (a ROS 2 GID): random per writer or reader,
/// unique with overwhelming probability across processes and hosts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct EndpointId(pub [u8; 16]);

/// The identifier of the publisher (writer) a sample came from.
pub type PublisherId = EndpointId;

impl EndpointId {
    /// A fresh random identifier.
    ///
    /// Built from std's randomly keyed SipHash over the time, a process-wide
    /// counter, the process id and the thread: cheap, no dependency, and no two
    /// calls in one process return the same value (the counter differs).
    pub fn random() -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let word = |salt: u64| {
            let mut h = RandomState::new().build_hasher();
            h.write_u64(salt);
            h.write_u64(n);
            h.write_u128(t);
            h.write_u32(std::process::id());
            std::hash::Hash::hash(&std::thread::current().id(), &mut h);
            h.finish()
        };
        let mut id = [0; 16];
        id[..8].copy_from_slice(&word(0x6869_6261_7269).to_le_bytes());
        id[8..].copy_from_slice(&(word(0x6769_6400) ^ n).to_le_bytes());
        EndpointId(id)
    }

    /// The 16 bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl fmt::Display for EndpointId {
    /// 32 lowercase hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for EndpointId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EndpointId({self})")
    }
}

/// Metadata of one received sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleInfo {
    /// Position in the publisher's stream: the first sample a publisher
    /// writes is 1, and each later one is exactly one more (as rmw_zenoh's
    /// attachment). A failed write consumes no number.
    pub sequence: u64,
    /// When the publisher wrote the sample, ns since the UNIX epoch
    /// ([`now_ns`]).
    pub source_timestamp_ns: i64,
    /// When the sample reached this subscription, ns since the UNIX epoch.
    pub reception_timestamp_ns: i64,
    /// The publisher that wrote the sample.
    pub publisher_id: PublisherId,
    /// Samples of this publisher that this subscription lost (queue overflow
    /// or transport loss) between the previous sample it took from the same
    /// publisher and this one. Samples dropped because their lifespan expired
    /// are not loss; they are counted in the reader's status instead.
    pub lost_before: u64,
}

impl SampleInfo {
    /// Transport latency: reception minus source timestamp (zero if the clocks
    /// disagree the other way, which only happens across hosts).
    pub fn latency(&self) -> Duration {
        let ns = self
            .reception_timestamp_ns
            .saturating_sub(self.source_timestamp_ns);
        Duration::from_nanos(u64::try_from(ns).unwrap_or(0))
    }
}

/// Now, in ns since the UNIX epoch, never going backwards within a process.
///
/// The wall clock is read once per process and advanced by the monotonic
/// clock from then on. Within a process, two readings are therefore ordered,
/// so `source <= reception` holds for in-process and shared-memory delivery
/// even when NTP steps the wall clock. Both clocks are slewed alike by NTP, so
/// processes on one host stay consistent with each other; across hosts the
/// timestamps are as good as the hosts' clock synchronisation.
pub fn now_ns() -> i64 {
    static ANCHOR: OnceLock<(Instant, i64)> = OnceLock::new();
    let (at, wall) = ANCHOR.get_or_init(|| {
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        (Instant::now(), wall)
    });
    let since = i64::try_from(at.elapsed().as_nanos()).unwrap_or(i64::MAX);
    wall.saturating_add(since)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn random_ids_are_distinct() {
        let ids: HashSet<_> = (0..10_000).map(|_| EndpointId::random()).collect();
        assert_eq!(ids.len(), 10_000);
    }

    #[test]
    fn ids_print_as_32_hex_digits() {
        let id = EndpointId(core::array::from_fn(|i| i as u8));
        assert_eq!(id.to_string(), "000102030405060708090a0b0c0d0e0f");
    }

    #[test]
    fn the_clock_never_goes_backwards_and_is_after_2020() {
        let mut last = now_ns();
        assert!(last > 1_577_836_800_000_000_000);
        for _ in 0..1000 {
            let t = now_ns();
            assert!(t >= last);
            last = t;
        }
    }

    #[test]
    fn latency_is_reception_minus_source_and_never_negative() {
        let mut info = SampleInfo {
            sequence: 1,
            source_timestamp_ns: 100,
            reception_timestamp_ns: 1_100,
            publisher_id: EndpointId::default(),
            lost_before: 0,
        };
        assert_eq!(info.latency(), Duration::from_nanos(1_000));
        info.reception_timestamp_ns = 0;
        assert_eq!(info.latency(), Duration::ZERO);
    }
}
