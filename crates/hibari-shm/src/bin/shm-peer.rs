//! A participant in its own process, for the crate's multi-process tests:
//! publishes or subscribes checksummed payloads, or misbehaves.
//!
//! ```text
//! shm-peer pub  <domain> <topic> <size|min-max> <count|0=forever> <period_us> <best|reliable>
//! shm-peer sub  <domain> <topic> <count|0=forever> <best|reliable> [hold N | slow]
//! shm-peer hostile <domain> <topic>
//! ```
//!
//! A payload is `seq: u64`, `sum: u64` (wrapping sum of the words after
//! it), then words derived from `seq`: a torn or foreign sample shows as a
//! wrong sum. `sub` prints `ready` once matched, one `got <seq> <len>` per
//! sample (only the first 5 and then every 1000th), and on exit
//! `summary received=… torn=… order=… lost=…`; a line `violation: …` for each
//! torn or (reliable) out-of-order sample, and then exits 1. `hold N` keeps
//! the last N samples alive; `slow` naps now and then, so that reliable
//! writers have to wait for it.
#![forbid(unsafe_code)]

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari_shm::{ShmTransport, ShmWriter};
use hibari_transport::{
    Endpoint, EndpointEvent, EndpointId, EndpointSpec, QosProfile, Reader, ReaderOptions, Sample,
    WhenFull, WriterOptions,
};

fn spec(topic: &str, reliable: bool) -> EndpointSpec {
    let qos = if reliable {
        QosProfile::default().keep_last(64)
    } else {
        QosProfile::sensor_data().keep_last(8)
    };
    EndpointSpec {
        topic: topic.into(),
        type_name: "hibari_test/msg/Blob".into(),
        type_hash: String::new(),
        qos,
    }
}

/// Fills `buf` (at least 16 bytes) as payload number `seq`.
fn fill(buf: &mut [u8], seq: u64) {
    let mut sum = 0u64;
    let mut k = seq.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for w in buf[16..].chunks_mut(8) {
        k = k.rotate_left(7) ^ 0x5851_f42d_4c95_7f2d;
        let bytes = k.to_le_bytes();
        w.copy_from_slice(&bytes[..w.len()]);
        sum = sum.wrapping_add(word(w));
    }
    buf[..8].copy_from_slice(&seq.to_le_bytes());
    buf[8..16].copy_from_slice(&sum.to_le_bytes());
}

fn word(w: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..w.len()].copy_from_slice(w);
    u64::from_le_bytes(b)
}

/// Checks a payload; returns its `seq` if intact.
fn check(buf: &[u8]) -> Option<u64> {
    if buf.len() < 16 {
        return None;
    }
    let seq = word(&buf[..8]);
    let sum = word(&buf[8..16]);
    let actual = buf[16..]
        .chunks(8)
        .fold(0u64, |s, w| s.wrapping_add(word(w)));
    (sum == actual).then_some(seq)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn publish(domain: u32, topic: &str, size: &str, count: u64, period: Duration, reliable: bool) {
    let (lo, hi) = match size.split_once('-') {
        Some((a, b)) => (a.parse().expect("size"), b.parse().expect("size")),
        None => {
            let n: usize = size.parse().expect("size");
            (n, n)
        }
    };
    let t = ShmTransport::open(domain).expect("open");
    let options = WriterOptions::default().when_full(WhenFull::Block {
        timeout: Duration::from_millis(200),
    });
    let w = t.writer(&spec(topic, reliable), &options).expect("writer");
    let mut rng = Rng(u64::from(std::process::id()) | 1);
    let mut sent = 0u64;
    if count > 0 {
        // A finite run waits for its reader.
        let deadline = Instant::now() + Duration::from_secs(10);
        while w.matched_count() == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    println!("ready");
    let _ = std::io::stdout().flush();
    while count == 0 || sent < count {
        let len = (lo + (rng.next() as usize) % (hi - lo + 1)).max(16);
        send(&w, len, sent + 1);
        sent += 1;
        if !period.is_zero() {
            std::thread::sleep(period);
        }
    }
    // Let readers take the last ones before the writer goes.
    std::thread::sleep(Duration::from_millis(300));
    println!("sent {sent}");
}

/// Sends payload `seq`, retrying while a reliable reader stays full.
fn send(w: &ShmWriter, len: usize, seq: u64) {
    loop {
        let mut loan = w.loan(len).expect("loan");
        fill(&mut loan, seq);
        match loan.send() {
            Ok(()) => return,
            Err(e) => drop(e.loan),
        }
    }
}

fn subscribe(
    domain: u32,
    topic: &str,
    count: u64,
    reliable: bool,
    hold: usize,
    slow: bool,
) -> bool {
    let mut rng = Rng(u64::from(std::process::id()) | 1);
    let t = ShmTransport::open(domain).expect("open");
    let limits = hibari_transport::ResourceLimits {
        max_samples: 4096,
        ..Default::default()
    };
    let r = t
        .reader(
            &spec(topic, reliable),
            &ReaderOptions::default().limits(limits),
        )
        .expect("reader");
    let wake = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let w2 = wake.clone();
    r.set_notify(Some(Arc::new(move || {
        *w2.0.lock().unwrap() = true;
        w2.1.notify_all();
    })));
    let (mut received, mut torn, mut order, mut lost) = (0u64, 0u64, 0u64, 0u64);
    let mut last: HashMap<EndpointId, u64> = HashMap::new();
    let mut held: VecDeque<Sample> = VecDeque::new();
    let mut announced = false;
    let started = Instant::now();
    while count == 0 || received < count {
        while let Some(ev) = r.take_event() {
            match ev {
                EndpointEvent::Matched { .. } if !announced => {
                    announced = true;
                    println!("ready");
                }
                EndpointEvent::Unmatched { peer } => println!("unmatched {peer}"),
                _ => {}
            }
        }
        while let Some(s) = r.take() {
            received += 1;
            let bytes = s.payload.cdr().expect("bytes").to_cow();
            let Some(seq) = check(&bytes) else {
                torn += 1;
                println!("violation: a torn sample of {} bytes", bytes.len());
                continue;
            };
            lost += s.info.lost_before;
            if let Some(prev) = last.insert(s.info.publisher_id, s.info.sequence) {
                if reliable && (s.info.sequence != prev + 1 || s.info.lost_before != 0) {
                    order += 1;
                    println!(
                        "violation: #{} after #{prev}, lost {}",
                        s.info.sequence, s.info.lost_before
                    );
                }
            }
            if received <= 5 || received.is_multiple_of(1000) {
                println!("got {seq} {}", bytes.len());
            }
            if slow && rng.next().is_multiple_of(64) {
                std::thread::sleep(Duration::from_millis(rng.next() % 100));
            }
            if hold > 0 {
                held.push_back(s);
                if held.len() > hold {
                    held.pop_front();
                }
            }
        }
        let mut woken = wake.0.lock().unwrap();
        if !*woken {
            woken = wake
                .1
                .wait_timeout(woken, Duration::from_millis(50))
                .unwrap()
                .0;
        }
        *woken = false;
        let _ = std::io::stdout().flush();
        if count > 0 && started.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    println!("summary received={received} torn={torn} order={order} lost={lost}");
    torn == 0 && order == 0
}

fn hostile(domain: u32, topic: &str) {
    let t = ShmTransport::open(domain).expect("open");
    let w = t
        .writer(&spec(topic, false), &WriterOptions::default())
        .expect("writer");
    let mut rng = Rng(0x1234_5678_9abc_def1 ^ u64::from(std::process::id()));
    println!("ready");
    let _ = std::io::stdout().flush();
    loop {
        // A real sample, then garbage.
        send(&w, 64 + (rng.next() as usize % 4096), rng.next());
        std::thread::sleep(Duration::from_millis(2));
        for _ in 0..rng.next() % 3 {
            w.scribble_for_tests(rng.next());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a = |i: usize| args.get(i).map(String::as_str).unwrap_or_default();
    let domain: u32 = a(1).parse().expect("domain");
    match a(0) {
        "pub" => publish(
            domain,
            a(2),
            a(3),
            a(4).parse().expect("count"),
            Duration::from_micros(a(5).parse().expect("period")),
            a(6) == "reliable",
        ),
        "sub" => {
            let hold = if a(5) == "hold" {
                a(6).parse().expect("hold")
            } else {
                0
            };
            let count = a(3).parse().expect("count");
            let ok = subscribe(
                domain,
                a(2),
                count,
                a(4) == "reliable",
                hold,
                a(5) == "slow",
            );
            std::process::exit(if ok { 0 } else { 1 });
        }
        "hostile" => hostile(domain, a(2)),
        other => panic!("unknown mode `{other}`"),
    }
}
