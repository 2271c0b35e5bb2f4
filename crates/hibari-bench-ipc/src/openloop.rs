//! Open-loop, fixed-rate publishing: the method of the `latency` sweep
//! (`shared/specs/anchors.md` §2, item 1).
//!
//! Message `i` (warm-up included) is **due** at `start + i · period`,
//! whatever happened before: the publisher sleeps until then (spinning the
//! last 100 µs) or, when it is late, sends at once; it never skips a message
//! and never moves one to a later slot. The due time, not the time of the
//! send, goes into the header, so a publisher or transport that stalls shows
//! up as latency of every message that should have left during the stall (no
//! coordinated omission). At rate 0 ("as fast as possible") each message is
//! due when the publisher starts to fill it.
//!
//! The subscriber does not answer. It stamps every message it receives,
//! keeps `(sequence, receive − due)` of the measured ones and reports them at
//! the end; [`tally`] turns them into received, lost and duplicate counts.
//! A message overwritten in a full queue (hibari-shm's keep-last, Zenoh's
//! congestion drop) counts as lost; iceoryx2 is set up without safe
//! overflow, its publisher retrying until the subscriber made room.

use crate::harness::{CellRunError, CellSpec};
use crate::stats::Latencies;
use crate::sys::{self, Usage};
use crate::system::{LinkError, Publish, Subscribe};
use crate::workload::{fill_byte, payload_ok, Header};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The fixed schedule of an open-loop series.
#[derive(Debug, Clone, Copy)]
pub struct Pacer {
    start_ns: u64,
    period_ns: u64,
}

impl Pacer {
    /// A schedule of `rate_hz` (0: as fast as possible) whose message 0 is
    /// due one period from now.
    pub fn new(rate_hz: f64) -> Pacer {
        let period_ns = if rate_hz > 0.0 {
            (1e9 / rate_hz) as u64
        } else {
            0
        };
        Pacer {
            start_ns: sys::monotonic_ns() + period_ns,
            period_ns,
        }
    }

    /// Waits until message `i` is due and returns its due time (ns,
    /// `CLOCK_MONOTONIC`); unpaced: returns now.
    pub fn wait(&self, i: u64) -> u64 {
        if self.period_ns == 0 {
            return sys::monotonic_ns();
        }
        let due = self.start_ns + i * self.period_ns;
        loop {
            let now = sys::monotonic_ns();
            if now >= due {
                return due;
            }
            let left = due - now;
            if left > 150_000 {
                std::thread::sleep(Duration::from_nanos(left - 100_000));
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// What the publisher side of an open-loop cell measured.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sent {
    /// How late each measured message left (start of the fill − due), ns.
    pub late: Latencies,
    /// Publisher usage over the measured messages.
    pub usage: Usage,
    /// Seconds from the first measured due time to the last send.
    pub seconds: f64,
}

/// Publishes `spec.warmup + spec.samples` messages on the open-loop schedule
/// of `rate_hz`. `progress` counts the messages sent (for the stall watcher).
pub(crate) fn publish_open_loop(
    spec: &CellSpec,
    rate_hz: f64,
    tx: &mut dyn Publish,
    progress: &AtomicU64,
) -> Result<Sent, CellRunError> {
    let mut sent = Sent::default();
    let pacer = Pacer::new(rate_hz);
    let (mut start, mut t_first) = (Usage::now(), 0);
    for i in 0..spec.warmup + spec.samples {
        let due = pacer.wait(i);
        if i == spec.warmup {
            (start, t_first) = (Usage::now(), due);
        }
        let begin = sys::monotonic_ns();
        tx.publish(spec.size, fill_byte(i), &mut |buf| {
            Header {
                seq: i,
                t_send: due,
                len: spec.size as u64,
            }
            .write(buf)
        })?;
        progress.store(i + 1, Ordering::Relaxed);
        if i >= spec.warmup {
            sent.late.record_ns(begin.saturating_sub(due));
        }
    }
    sent.usage = Usage::now().since(&start);
    sent.seconds = sys::monotonic_ns().saturating_sub(t_first) as f64 / 1e9;
    Ok(sent)
}

/// What the subscriber side of an open-loop cell collected.
#[derive(Debug, Clone, Default)]
pub struct Received {
    /// `(measured sequence from 0, receive − due in ns)` in arrival order.
    pub samples: Vec<(u64, u64)>,
    /// Measured messages whose length or fill byte was wrong.
    pub errors: u64,
    /// Usage at the first measured message (`None`: none arrived).
    pub first: Option<Usage>,
}

/// Receives until the last message (`warmup + samples − 1`) arrived or
/// `abort` is set (the publisher is done and gave the stragglers time).
pub fn receive_open_loop(
    rx: &mut dyn Subscribe,
    size: usize,
    warmup: u64,
    samples: u64,
    abort: &AtomicBool,
) -> Result<Received, LinkError> {
    let mut out = Received {
        samples: Vec::with_capacity(samples as usize),
        ..Received::default()
    };
    let last = warmup + samples - 1;
    loop {
        let mut got = None;
        let r = rx.receive(&mut |bytes| {
            let t_recv = sys::monotonic_ns();
            if let Some(h) = Header::read(bytes) {
                got = Some((h.seq, t_recv.saturating_sub(h.t_send), {
                    payload_ok(bytes, h.seq, size)
                }));
            }
        });
        match r {
            Ok(()) => {}
            Err(LinkError::Aborted) => return Ok(out),
            Err(e) => return Err(e),
        }
        let Some((seq, latency, ok)) = got else {
            out.errors += 1;
            continue;
        };
        if seq >= warmup {
            out.first.get_or_insert_with(Usage::now);
            match ok {
                true => out.samples.push((seq - warmup, latency)),
                false => out.errors += 1,
            }
        }
        if seq >= last || abort.load(Ordering::Relaxed) {
            return Ok(out);
        }
    }
}

/// The counts and latencies of an open-loop series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Distinct measured messages received.
    pub received: u64,
    /// Measured messages sent and never received.
    pub lost: u64,
    /// Messages received more than once (only the first counts).
    pub duplicates: u64,
    /// Latencies (ns) of the received messages, in sequence order.
    pub latencies_ns: Vec<u64>,
}

/// Counts `samples` (`(sequence from 0, latency ns)`) against `sent`
/// measured messages; sequences at or beyond `sent` are ignored.
pub fn tally(samples: &[(u64, u64)], sent: u64) -> Tally {
    let mut s: Vec<(u64, u64)> = samples.iter().copied().filter(|s| s.0 < sent).collect();
    s.sort_by_key(|x| x.0); // stable: the first arrival of a duplicate stays first
    let before = s.len() as u64;
    s.dedup_by_key(|x| x.0);
    let received = s.len() as u64;
    Tally {
        received,
        lost: sent - received,
        duplicates: before - received,
        latencies_ns: s.into_iter().map(|x| x.1).collect(),
    }
}

#[cfg(test)]
#[path = "openloop_tests.rs"]
mod tests;
