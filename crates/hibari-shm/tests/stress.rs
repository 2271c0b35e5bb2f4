//! Random `kill -9` of publishers and subscribers: no sample is ever torn,
//! every reliable sample reaches a live subscriber once and in order, and
//! nothing is left behind. The run is a number of kills with samples from
//! restarted publishers, bounded by a deadline that fails with what was
//! missing: it asserts no rate of kills or samples the machine must reach.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{check, domain, leftovers, spec, Peer};
use hibari_shm::ShmTransport;
use hibari_transport::{Endpoint, EndpointId, Reader, ReaderOptions, ResourceLimits};

/// How many processes are killed (and restarted).
const KILLS: u32 = 20;
/// Publishers whose samples must arrive: the first two and restarted ones.
const WRITERS: usize = 4;
/// A hang guard, not a speed requirement: the run takes ~6 s here.
const DEADLINE: Duration = Duration::from_secs(120);

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn random_kills_never_tear_lose_or_reorder_reliable_samples_of_live_peers() {
    let d = domain().to_string();
    let publisher = || Peer::spawn(&["pub", &d, "/stress", "16-100000", "0", "1000", "reliable"]);
    let subscriber = || Peer::spawn(&["sub", &d, "/stress", "0", "reliable", "slow"]);
    let t = ShmTransport::open(d.parse().unwrap()).unwrap();
    let limits = ResourceLimits {
        max_samples: 4096,
        ..Default::default()
    };
    let reader = Arc::new(
        t.reader(
            &spec("/stress", true),
            &ReaderOptions::default().limits(limits),
        )
        .unwrap(),
    );
    let mut pubs: Vec<Peer> = (0..2).map(|_| publisher()).collect();
    let mut subs: Vec<Peer> = (0..3).map(|_| subscriber()).collect();
    let mut rng = Rng(0x9e37_79b9 ^ u64::from(std::process::id()));
    let (mut kills, mut received, mut writers) = (0, 0u64, 0usize);
    let mut last: HashMap<EndpointId, u64> = HashMap::new();
    let mut violations = Vec::new();
    let started = Instant::now();
    let mut next_kill = Instant::now() + Duration::from_millis(200);
    while kills < KILLS || writers < WRITERS {
        assert!(
            started.elapsed() < DEADLINE,
            "timed out after {DEADLINE:?}: {kills} of {KILLS} kills, samples from \
             {writers} of {WRITERS} publishers ({received} samples, {violations:?})"
        );
        for s in std::iter::from_fn(|| reader.take()).take(100) {
            received += 1;
            if check(s.payload.cdr().unwrap()).is_none() {
                violations.push(format!("torn sample #{}", s.info.sequence));
            }
            let seq = s.info.sequence;
            match last.insert(s.info.publisher_id, seq) {
                Some(prev) if seq != prev + 1 => violations.push(format!("{} after {prev}", seq)),
                None => writers += 1,
                _ => {}
            }
            if s.info.lost_before != 0 {
                violations.push(format!("lost {} before #{seq}", s.info.lost_before));
            }
        }
        for p in subs.iter().chain(pubs.iter()) {
            while let Ok(line) = p.lines.try_recv() {
                if line.starts_with("violation") {
                    violations.push(line);
                }
            }
        }
        if Instant::now() >= next_kill {
            kills += 1;
            let i = rng.below(5) as usize;
            if i < 2 {
                pubs[i].kill();
                pubs[i] = publisher();
            } else {
                subs[i - 2].kill();
                subs[i - 2] = subscriber();
            }
            next_kill = Instant::now() + Duration::from_millis(100 + rng.below(400));
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    for p in subs.iter_mut().chain(pubs.iter_mut()) {
        p.kill();
    }
    assert!(violations.is_empty(), "{violations:?}");
    assert!(
        common::eventually(Duration::from_secs(10), || reader.matched_count() == 0),
        "dead publishers still matched"
    );
    assert_eq!(leftovers(), Vec::<String>::new());
    eprintln!("{kills} kills, {received} samples from {writers} publishers");
}
