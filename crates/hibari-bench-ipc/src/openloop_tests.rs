//! The open-loop publisher and subscriber on a real channel between two
//! threads, with a synthetic stall and synthetic losses.

use super::*;
use crate::harness::Placement;
use hibari_cdr::Bytes;
use std::sync::mpsc;
use std::sync::Arc;

/// Sends over a channel; stalls `stall` before sending message `stall_at`,
/// and drops every message whose sequence is a multiple of `drop_every`.
struct ChannelTx {
    tx: mpsc::Sender<Vec<u8>>,
    stall_at: u64,
    stall: Duration,
    drop_every: u64,
}

impl Publish for ChannelTx {
    fn publish(
        &mut self,
        len: usize,
        fill: u8,
        stamp: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        let mut buf = vec![fill; len];
        stamp(&mut buf);
        let seq = Header::read(&buf).map(|h| h.seq).unwrap_or(0);
        if seq == self.stall_at {
            std::thread::sleep(self.stall);
        }
        if self.drop_every > 0 && seq.is_multiple_of(self.drop_every) {
            return Ok(());
        }
        let _ = self.tx.send(buf);
        Ok(())
    }
}

struct ChannelRx {
    rx: mpsc::Receiver<Vec<u8>>,
    abort: Arc<AtomicBool>,
}

impl Subscribe for ChannelRx {
    fn receive(&mut self, read: &mut dyn FnMut(Bytes<'_>)) -> Result<(), LinkError> {
        loop {
            match self.rx.recv_timeout(Duration::from_millis(20)) {
                Ok(b) => {
                    read(Bytes::Private(&b));
                    return Ok(());
                }
                Err(_) if self.abort.load(Ordering::Relaxed) => return Err(LinkError::Aborted),
                Err(_) => {}
            }
        }
    }
}

fn spec(warmup: u64, samples: u64) -> CellSpec {
    CellSpec {
        system: "test".into(),
        variant: "channel".into(),
        size: 256,
        touch: false,
        placement: Placement::Free,
        warmup,
        samples,
        rate_hz: Some(1000.0),
        depth: 2,
    }
}

/// Runs one series over the channel; returns the subscriber's collection.
fn run(spec: &CellSpec, stall_at: u64, stall: Duration, drop_every: u64) -> Received {
    let (tx, rx) = mpsc::channel();
    let abort = Arc::new(AtomicBool::new(false));
    let mut rx = ChannelRx {
        rx,
        abort: abort.clone(),
    };
    let (size, warmup, samples) = (spec.size, spec.warmup, spec.samples);
    let ab = abort.clone();
    let sub = std::thread::spawn(move || receive_open_loop(&mut rx, size, warmup, samples, &ab));
    let mut tx = ChannelTx {
        tx,
        stall_at,
        stall,
        drop_every,
    };
    let progress = AtomicU64::new(0);
    let sent = publish_open_loop(spec, 1000.0, &mut tx, &progress).unwrap();
    assert_eq!(progress.load(Ordering::Relaxed), spec.warmup + spec.samples);
    assert_eq!(sent.late.count(), spec.samples);
    std::thread::sleep(Duration::from_millis(50));
    abort.store(true, Ordering::Relaxed);
    sub.join().unwrap().unwrap()
}

#[test]
fn latency_runs_from_the_due_time_so_a_stall_delays_every_message_behind_it() {
    // 1 kHz: message 10 of the measured part is due at 10 ms, 11 at 11 ms …
    // The send of message warmup+10 stalls 40 ms, so messages 10 … ~49 leave
    // late; measured from their due time, message 10 is ≥ 40 ms late, 11 is
    // ≥ 39 ms late, 30 ≥ 20 ms. Stamping the actual send time (closed loop's
    // view) would give all of them microseconds.
    let spec = spec(5, 100);
    let got = run(&spec, 5 + 10, Duration::from_millis(40), 0);
    assert_eq!(got.errors, 0);
    let t = tally(&got.samples, spec.samples);
    assert_eq!((t.received, t.lost, t.duplicates), (100, 0, 0));
    let ms = |i: usize| t.latencies_ns[i] as f64 / 1e6;
    assert!(ms(10) >= 39.0, "message 10: {} ms", ms(10));
    assert!(ms(11) >= 38.0, "message 11: {} ms", ms(11));
    assert!(ms(30) >= 19.0, "message 30: {} ms", ms(30));
    // Before the stall nothing waited on it.
    assert!(ms(9) < ms(10), "{} !< {}", ms(9), ms(10));
    assert!(got.first.is_some());
}

#[test]
fn dropped_messages_count_as_lost_and_the_rest_as_received() {
    // Every 4th message (sequence 0, 4, 8 … warm-up included) never arrives.
    // Measured sequences 3 … 62 are 60 messages, of which 15 are multiples of 4.
    let spec = spec(3, 60);
    let got = run(&spec, u64::MAX, Duration::ZERO, 4);
    let t = tally(&got.samples, spec.samples);
    assert_eq!((t.received, t.lost), (45, 15), "{t:?}");
    assert_eq!(t.latencies_ns.len(), 45);
}

#[test]
fn tally_counts_duplicates_once_and_ignores_foreign_sequences() {
    let s = [(2, 20), (0, 10), (2, 99), (7, 70), (1, 15)];
    let t = tally(&s, 5);
    assert_eq!(
        t,
        Tally {
            received: 3,
            lost: 2,
            duplicates: 1,
            latencies_ns: vec![10, 15, 20],
        }
    );
    assert_eq!(tally(&[], 3).lost, 3);
}
